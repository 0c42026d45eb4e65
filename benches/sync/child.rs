//! Child processes: each runs in its own process group (so signals reach a wrapper's children
//! too), is reaped with `wait4` for its exact end time and its CPU time, has its peak RSS
//! sampled, and optionally has its stdout counted by a thread.
//!
//! Peak RSS is the child's `VmHWM` (the high-water mark of its own address space) read from
//! `/proc/PID/status` every 2 ms until it exits. `wait4`'s `ru_maxrss` is not used: Linux
//! folds the pre-exec address space — a copy of the harness, server included — into it.
//! Its `ru_utime` + `ru_stime` are the child's own (the few microseconds between fork and exec
//! aside): the CPU time of a whole run. The CPU time of a window of a run that goes on (a
//! watch between its first update and its last event) is read from the child's process CPU
//! clock (`clock_getcpuclockid`) at both ends: user + sys of all its threads, in nanoseconds.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// How a child ended.
#[derive(Debug, Clone)]
pub struct Reaped {
    /// Exit code (128 + signal when killed).
    pub code: i32,
    /// Peak resident set size (`VmHWM`) in KiB, sampled every 2 ms.
    pub max_rss_kb: u64,
    /// When `wait4` returned.
    pub ended: Instant,
    /// Its CPU time, user + sys (`wait4`'s rusage).
    pub cpu: Duration,
    /// The last lines of its stderr.
    pub stderr: String,
}

/// A started child.
pub struct Running {
    /// Its pid, which is also its process group id.
    pub pid: i32,
    /// Just before spawning.
    pub started: Instant,
    /// Its stdout when piped.
    pub stdout: Option<ChildStdout>,
    reaped: Receiver<Reaped>,
}

/// Starts `program args` with stdin closed, stdout piped or discarded, stderr captured.
pub fn spawn(
    program: &Path,
    args: &[&str],
    envs: &[(&str, String)],
    pipe_stdout: bool,
) -> std::io::Result<Running> {
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(if pipe_stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
    let stderr = child.stderr.take();
    let stdout = child.stdout.take();
    // `child` is never waited on through std: `wait_for` below reaps it.
    drop(child);
    let (sender, reaped) = mpsc::channel();
    let exited = Arc::new(AtomicBool::new(false));
    let sampler = sample_peak_rss(pid, Arc::clone(&exited));
    thread::spawn(move || {
        let stderr = stderr.map(tail_of);
        let (code, ended, cpu) = wait_for(pid);
        exited.store(true, Ordering::SeqCst);
        let max_rss_kb = sampler.join().unwrap_or(0);
        let stderr = stderr
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default();
        let _ = sender.send(Reaped {
            code,
            max_rss_kb,
            ended,
            cpu,
            stderr,
        });
    });
    Ok(Running {
        pid,
        started,
        stdout,
        reaped,
    })
}

/// Reads a stream to its end on a thread, keeping its last 2000 characters.
fn tail_of(stream: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            text.push_str(&line);
            text.push('\n');
            if text.len() > 4000 {
                text.drain(..text.len() - 2000);
            }
        }
        text
    })
}

/// A `/proc/PID/status` memory field (`VmHWM`, `VmRSS`) in KiB (None once it has exited).
fn status_kb(pid: i32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// `VmHWM` of `pid` in KiB.
fn high_water_kb(pid: i32) -> Option<u64> {
    status_kb(pid, "VmHWM")
}

/// The current `VmRSS` of `pid` in KiB.
pub fn rss_kb(pid: i32) -> Option<u64> {
    status_kb(pid, "VmRSS")
}

/// Samples the peak RSS of `pid` until `exited` is set; returns the highest value seen.
fn sample_peak_rss(pid: i32, exited: Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let mut peak = 0;
        while !exited.load(Ordering::SeqCst) {
            peak = peak.max(high_water_kb(pid).unwrap_or(0));
            thread::sleep(Duration::from_millis(2));
        }
        peak
    })
}

/// Waits for `pid`: exit code, when it ended and its CPU time (user + sys).
#[allow(unsafe_code)] // the benchmark reaps its children itself (wait4), to time their exit
fn wait_for(pid: i32) -> (i32, Instant, Duration) {
    let mut status = 0;
    loop {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: valid pointers to locals; pid is our own unreaped child.
        let result = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
        let ended = Instant::now();
        if result == pid {
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                128 + libc::WTERMSIG(status)
            };
            // SAFETY: wait4 filled it in (and all-zero bytes are a valid rusage anyway).
            let usage = unsafe { usage.assume_init() };
            return (
                code,
                ended,
                timeval(usage.ru_utime) + timeval(usage.ru_stime),
            );
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return (-1, ended, Duration::ZERO);
        }
    }
}

/// A rusage time as a duration.
fn timeval(time: libc::timeval) -> Duration {
    let micros = u64::try_from(time.tv_sec).unwrap_or(0) * 1_000_000
        + u64::try_from(time.tv_usec).unwrap_or(0);
    Duration::from_micros(micros)
}

impl Running {
    /// The CPU time (user + sys, all threads) the child has used so far; None once it has
    /// been reaped.
    #[allow(unsafe_code)] // clock_getcpuclockid and clock_gettime on our own child
    pub fn cpu(&self) -> Option<Duration> {
        let mut clock: libc::clockid_t = 0;
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: valid pointers to locals; the calls only read the clock of `pid`.
        let ok = unsafe {
            libc::clock_getcpuclockid(self.pid, &mut clock) == 0
                && libc::clock_gettime(clock, &mut now) == 0
        };
        ok.then(|| {
            Duration::new(
                u64::try_from(now.tv_sec).unwrap_or(0),
                u32::try_from(now.tv_nsec).unwrap_or(0),
            )
        })
    }

    /// Sends `signal` to the child's process group.
    #[allow(unsafe_code)] // kill(2) on the benchmark's own child group
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill has no memory effects; the group is our own child's.
        unsafe {
            libc::kill(-self.pid, signal);
        }
    }

    /// Waits up to `timeout` for the child to end; kills its group and reaps it after that.
    /// The bool says whether it ended in time.
    pub fn wait(self, timeout: Duration) -> (Reaped, bool) {
        match self.reaped.recv_timeout(timeout) {
            Ok(reaped) => (reaped, true),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => (self.kill(), false),
        }
    }

    /// Kills the child's group (resuming it first if stopped) and reaps it.
    pub fn kill(self) -> Reaped {
        self.signal(libc::SIGKILL);
        self.signal(libc::SIGCONT);
        self.reaped.recv().unwrap_or(Reaped {
            code: -1,
            max_rss_kb: 0,
            ended: Instant::now(),
            cpu: Duration::ZERO,
            stderr: String::new(),
        })
    }
}

/// What a counted stdout says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// The client is synced and watching.
    Ready(Instant),
    /// The target count was reached.
    Done(Instant),
    /// Stdout ended after this many counted events.
    Ended(u64),
}

/// How to count a client's stdout.
#[derive(Debug, Clone, Copy)]
pub enum Counting {
    /// kinformer JSONL: `notify` lines count, the `synced` line means ready.
    Notifications,
    /// kubectl `-o json --output-watch-events`: `MODIFIED` lines count; ready once `ADDED`
    /// lines carried this many pods (kubectl prints each LIST chunk of a multi-page list as
    /// one `ADDED` event holding a List, and single pods otherwise).
    WatchEvents(u64),
    /// Role marker lines: `ready`, `done N` (N is the count).
    Markers,
    /// Lines with this text in their first 160 bytes (dump verification).
    Matching(&'static [u8]),
}

/// True when `needle` occurs in the first 160 bytes of `line`.
fn early(line: &[u8], needle: &[u8]) -> bool {
    line[..line.len().min(160)]
        .windows(needle.len())
        .any(|w| w == needle)
}

/// How many pods a kubectl `ADDED` line carries.
fn pods_in(line: &[u8]) -> u64 {
    let needle = br#""kind":"Pod""#;
    line.windows(needle.len()).filter(|w| w == needle).count() as u64
}

/// Counts `stdout` on a thread until it ends, reporting readiness, the moment the count
/// reaches `target`, and the final count.
pub fn count(stdout: ChildStdout, counting: Counting, target: u64) -> Receiver<Progress> {
    let (sender, progress) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 20, stdout);
        let mut line = Vec::with_capacity(1 << 14);
        let mut seen = 0u64;
        let mut added = 0u64;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let before = seen;
            match counting {
                Counting::Notifications => {
                    if early(&line, br#""event":"notify""#) {
                        seen += 1;
                    } else if early(&line, br#""event":"synced""#) {
                        let _ = sender.send(Progress::Ready(Instant::now()));
                    }
                }
                Counting::WatchEvents(ready_after) => {
                    if line.starts_with(br#"{"type":"MODIFIED""#) {
                        seen += 1;
                    } else if line.starts_with(br#"{"type":"ADDED""#) {
                        let before = added;
                        added += pods_in(&line);
                        if before < ready_after && added >= ready_after {
                            let _ = sender.send(Progress::Ready(Instant::now()));
                        }
                    }
                }
                Counting::Matching(needle) => seen += u64::from(early(&line, needle)),
                Counting::Markers => {
                    if line == b"ready\n" {
                        let _ = sender.send(Progress::Ready(Instant::now()));
                    } else if let Some(n) = line.strip_prefix(b"done ") {
                        seen = String::from_utf8_lossy(n).trim().parse().unwrap_or(0);
                    }
                }
            }
            if before < target && seen >= target {
                let _ = sender.send(Progress::Done(Instant::now()));
            }
        }
        let _ = sender.send(Progress::Ended(seen));
    });
    progress
}

/// Collects the marker lines (`key value`) of a role's stdout.
pub fn markers(stdout: ChildStdout) -> thread::JoinHandle<Vec<(String, u64)>> {
    thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| {
                let (key, value) = l.split_once(' ')?;
                Some((key.to_owned(), value.trim().parse().ok()?))
            })
            .collect()
    })
}
