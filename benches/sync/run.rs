//! The harness: one embedded server per pod count, every client run as a child process
//! `runs` times, samples collected into the report.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::Value;

use crate::Settings;
use crate::child::{self, Counting, Progress, Reaped, Running};
use crate::pods;
use crate::report::{Report, Sample};

/// Errors that end the whole harness (a failing client only fails its row).
pub type HarnessResult<T = ()> = Result<T, Box<dyn Error + Send + Sync>>;

/// How long a client may take to sync and say it is watching.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long kubectl may take to consume the watch events after the writes ended; its rate is
/// then measured over what it consumed.
const KUBECTL_WATCH_CAP: Duration = Duration::from_secs(10);

/// A client whose run takes longer than this (per mode) runs only once, so the default run
/// fits in 10 minutes; its row says so.
const SLOW_RUN: Duration = Duration::from_secs(30);

/// The note on the rows of such a client.
const SLOW_NOTE: &str = "1 run only (a run takes > 30 s)";

/// A client program and how to read what it prints.
pub struct Client {
    pub name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    /// Role marker lines on stdout (else: stdout discarded, or counted in smoke mode).
    markers: bool,
    /// What marks an object line of its output (smoke mode counts them).
    objects: Option<&'static [u8]>,
    /// kinformer JSONL whose `synced` line is the moment to sample the RSS after sync.
    rss_at_synced: bool,
}

/// The paths and environment every client run needs.
pub struct Env {
    pub kinformer: PathBuf,
    pub me: PathBuf,
    /// client-go 1.37's benchmark client (`scripts/bench-client-go`).
    pub client_go: PathBuf,
    pub vars: Vec<(&'static str, String)>,
}

/// The client-go clients: the dynamic informer and the typed pod informer over protobuf
/// (`go/oracle/v1.37/bench_test.go`), each until synced, then for `events` updates if any.
pub fn client_go_clients(env: &Env, events: u64) -> [Client; 2] {
    let events = events.to_string();
    ["dynamic", "typed-protobuf"].map(|mode| {
        let name = if mode == "dynamic" {
            "client-go dynamic"
        } else {
            "client-go typed protobuf"
        };
        let mut args = vec!["-test.run", "^TestBench$", "-bench-mode", mode];
        if events != "0" {
            args.extend(["-bench-events", events.as_str()]);
        }
        client(name, &env.client_go, &args, true)
    })
}

/// Builds (or finds, cached) client-go's benchmark client; an error says what is missing.
pub fn build_client_go() -> HarnessResult<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-client-go");
    let output = std::process::Command::new(&script)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!(
            "the client-go rows need client-go's benchmark client: {} failed (see above)",
            script.display()
        )
        .into());
    }
    Ok(PathBuf::from(String::from_utf8(output.stdout)?.trim()))
}

pub fn client(name: &'static str, program: &Path, args: &[&str], markers: bool) -> Client {
    Client {
        name,
        program: program.to_path_buf(),
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        markers,
        objects: (!markers).then_some(b"{".as_slice()),
        rss_at_synced: false,
    }
}

/// Runs every benchmark and returns the report.
pub fn harness(settings: &Settings) -> HarnessResult<Report> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut report = Report::new(settings);
    let client_go = build_client_go()?;
    let mut sizes = settings.sizes.clone();
    if !sizes.contains(&settings.watch_size) && settings.events > 0 {
        sizes.push(settings.watch_size);
    }
    for &size in &sizes {
        let started = Instant::now();
        let history = usize::try_from(settings.events)? + 10_000;
        let server = runtime.block_on(EmbeddedServer::start(ServerConfig {
            history,
            ..ServerConfig::default()
        }))?;
        let watching = size == settings.watch_size && settings.events > 0;
        server.seed_objects((0..size).map(pods::pod))?;
        // The watch benchmark rewrites these pods as stored; the sync benchmark needs none kept.
        let bases: Vec<Value> = if watching {
            unconditional(server.objects("pods", None)?)
        } else {
            Vec::new()
        };
        let dir = tempfile::tempdir()?;
        let kubeconfig = dir.path().join("kubeconfig");
        server.write_kubeconfig(&kubeconfig)?;
        let env = Env {
            kinformer: settings.kinformer.clone(),
            me: std::env::current_exe()?,
            client_go: client_go.clone(),
            vars: vec![
                ("KUBECONFIG", kubeconfig.display().to_string()),
                ("KINFORMER_BENCH_URL", server.url()),
                (
                    "KINFORMER_BENCH_TOKEN",
                    server.token().unwrap_or("").to_owned(),
                ),
                ("RUST_LOG", "warn".to_owned()),
                ("HOME", dir.path().display().to_string()),
            ],
        };
        eprintln!(
            "== {size} pods seeded in {:.1}s ==",
            started.elapsed().as_secs_f64()
        );
        if settings.sizes.contains(&size) {
            sync_section(settings, &env, size, &mut report);
        }
        if watching {
            watch_section(settings, &env, &server, &bases, &mut report);
        }
        drop(bases);
        runtime.block_on(server.shutdown());
    }
    if settings.servers_size > 0 {
        crate::servers::section(settings, &runtime, &client_go, &mut report)?;
    }
    Ok(report)
}

/// `stored` pods without their resourceVersions and managedFields: the bases of unconditional
/// updates, rendered once and written round-robin (a body carrying the managedFields of its
/// first rendering would reset the stored ones on every later write, as a client sending
/// managedFields does).
fn unconditional(mut stored: Vec<Value>) -> Vec<Value> {
    for pod in &mut stored {
        if let Some(metadata) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("resourceVersion");
            metadata.remove("managedFields");
        }
    }
    stored
}

/// Serves the first of `settings.sizes` pods with a kubeconfig at `kubeconfig` until stdin
/// ends.
pub fn serve(settings: &Settings, kubeconfig: &Path) -> HarnessResult {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let size = settings.sizes.first().copied().unwrap_or(0);
    let server = runtime.block_on(EmbeddedServer::start(ServerConfig::default()))?;
    server.seed_objects((0..size).map(pods::pod))?;
    server.write_kubeconfig(kubeconfig)?;
    eprintln!("{size} pods served; kubeconfig {}", kubeconfig.display());
    std::io::copy(&mut std::io::stdin(), &mut std::io::sink())?;
    runtime.block_on(server.shutdown());
    Ok(())
}

/// The clients of the sync benchmark.
fn sync_clients(env: &Env) -> Vec<Client> {
    let k = &env.kinformer;
    let dump = ["dump", "pods", "-A", "-o", "jsonl"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        dump.iter().chain(extra).copied().collect()
    };
    vec![
        client("kinformer", k, &dump, false),
        client(
            "kinformer real-fifo",
            k,
            &with(&["--queue", "real-fifo"]),
            false,
        ),
        client(
            "kinformer metadata-only",
            k,
            &with(&["--metadata-only"]),
            false,
        ),
        Client {
            objects: None,
            rss_at_synced: true,
            ..client(
                "kinformer after sync",
                k,
                &["watch", "pods", "-A", "-o", "jsonl", "--show", "reflector"],
                false,
            )
        },
        client("kube-runtime", &env.me, &["--role", "kube-runtime"], true),
    ]
    .into_iter()
    .chain(client_go_clients(env, 0))
    .chain([
        Client {
            objects: Some(br#""kind": "Pod""#),
            ..client(
                "kubectl",
                Path::new("kubectl"),
                &["get", "pods", "-A", "-o", "json"],
                false,
            )
        },
        client("floor (serde_json)", &env.me, &["--role", "floor"], true),
        client("server raw LIST", &env.me, &["--role", "raw-list"], true),
        client(
            "floor: read + scan",
            &env.me,
            &["--role", "scan-list"],
            true,
        ),
    ])
    .collect()
}

/// Sync time and peak RSS of every client, `runs` times each, interleaved.
fn sync_section(settings: &Settings, env: &Env, size: usize, report: &mut Report) {
    let mut clients = sync_clients(env);
    clients.retain(|c| settings.selected(c.name));
    let timeout = Duration::from_secs(60 + size as u64 / 500);
    let mut slow = Vec::new();
    for run in 0..settings.runs {
        for client in &clients {
            if slow.contains(&client.name) {
                continue;
            }
            let started = Instant::now();
            let result = sync_once(client, env, size, settings.smoke, timeout);
            if started.elapsed() > SLOW_RUN {
                slow.push(client.name);
                report.note("sync", size, client.name, "", SLOW_NOTE);
            }
            match &result {
                Ok(s) => eprintln!(
                    "sync  {size:>7} {:<26} run {run}: {:.3}s {:.0} MB",
                    client.name,
                    s.seconds,
                    s.max_rss_kb as f64 / 1024.0
                ),
                Err(e) => eprintln!("sync  {size:>7} {:<26} run {run}: FAILED {e}", client.name),
            }
            report.add("sync", size, client.name, "", result);
        }
    }
}

/// Why a reaped child failed, if it did.
fn failure(reaped: &Reaped, in_time: bool) -> Option<String> {
    let stderr = reaped.stderr.trim();
    let stderr = &stderr[stderr.len().saturating_sub(600)..];
    match (in_time, reaped.code) {
        (false, _) => Some(format!("timed out; stderr: {stderr}")),
        (true, 0) => None,
        (true, code) => Some(format!("exit {code}; stderr: {stderr}")),
    }
}

/// One sync run: spawn, wait, check.
pub fn sync_once(
    client: &Client,
    env: &Env,
    size: usize,
    verify: bool,
    timeout: Duration,
) -> Result<Sample, String> {
    let args: Vec<&str> = client.args.iter().map(String::as_str).collect();
    let pipe = client.markers || verify || client.rss_at_synced;
    let mut running = child::spawn(&client.program, &args, &env.vars, pipe)
        .map_err(|e| format!("cannot start {}: {e}", client.program.display()))?;
    let stdout = running.stdout.take();
    if client.rss_at_synced {
        let stdout = stdout.ok_or("no stdout")?;
        return sync_until_synced(running, stdout, timeout);
    }
    let (markers, counted) = match (stdout, client.markers, client.objects) {
        (Some(stdout), true, _) => (Some(child::markers(stdout)), None),
        (Some(stdout), false, Some(needle)) => (
            None,
            Some(child::count(stdout, Counting::Matching(needle), u64::MAX)),
        ),
        _ => (None, None),
    };
    let started = running.started;
    let (reaped, in_time) = running.wait(timeout);
    if let Some(e) = failure(&reaped, in_time) {
        return Err(e);
    }
    let mut sample = Sample::new((reaped.ended - started).as_secs_f64(), reaped.max_rss_kb);
    sample.cpu_seconds = Some(reaped.cpu.as_secs_f64());
    if let Some(markers) = markers {
        let markers = markers.join().map_err(|_| "marker reader panicked")?;
        let get = |key: &str| markers.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
        if let Some(items) = get("items") {
            check_count("items", items, size as u64)?;
        }
        sample.count = get("items").or(get("bytes")).unwrap_or(0);
        sample.bytes = get("bytes");
        sample.rss_after_sync_kb = get("rss_kb");
    }
    if let Some(counted) = counted {
        let objects =
            std::iter::from_fn(|| next(&counted, Duration::from_secs(10))).find_map(|p| {
                if let Progress::Ended(n) = p {
                    Some(n)
                } else {
                    None
                }
            });
        check_count("objects printed", objects.unwrap_or(0), size as u64)?;
        sample.count = size as u64;
    }
    Ok(sample)
}

/// A kinformer watch that prints a `synced` line and goes on watching: its sync time is spawn →
/// that line, its CPU time is read when that line arrives, its RSS after sync is sampled
/// [`SETTLE`] later (the steady state a user sees), then it is killed.
fn sync_until_synced(
    running: Running,
    stdout: std::process::ChildStdout,
    timeout: Duration,
) -> Result<Sample, String> {
    let progress = child::count(stdout, Counting::Notifications, u64::MAX);
    let (synced_at, cpu) = match next(&progress, timeout) {
        Some(Progress::Ready(at)) => (Some(at), running.cpu()),
        _ => (None, None),
    };
    if synced_at.is_some() {
        std::thread::sleep(SETTLE);
    }
    let rss = synced_at.and_then(|_| child::rss_kb(running.pid));
    let started = running.started;
    let (reaped, _) = finish(running, &progress);
    let Some(synced_at) = synced_at else {
        return Err(format!("no synced line: {}", reaped.stderr.trim()));
    };
    let mut sample = Sample::new((synced_at - started).as_secs_f64(), reaped.max_rss_kb);
    sample.cpu_seconds = cpu.map(|c| c.as_secs_f64());
    sample.rss_after_sync_kb = Some(rss.ok_or("the watch exited before its RSS was read")?);
    Ok(sample)
}

/// How long after the `synced` line the RSS after sync is read.
const SETTLE: Duration = Duration::from_millis(300);

/// An error unless `got == want`.
pub fn check_count(what: &str, got: u64, want: u64) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

/// A client of the watch benchmark.
struct Watcher {
    client: Client,
    counting: Counting,
    /// Counted lines before the updates (initial adds).
    initial: u64,
    /// Counted lines per update.
    per_event: u64,
    /// Stop after this long past the writes and report the partial rate.
    cap: Option<Duration>,
}

/// The clients of the watch benchmark.
fn watch_clients(env: &Env, size: u64, events: u64) -> Vec<Watcher> {
    let k = &env.kinformer;
    let watch = [
        "watch",
        "pods",
        "-A",
        "-o",
        "jsonl",
        "--show",
        "notifications",
    ];
    let four: Vec<&str> = watch
        .iter()
        .copied()
        .chain([
            "--handler",
            "h1",
            "--handler",
            "h2",
            "--handler",
            "h3",
            "--handler",
            "h4",
        ])
        .collect();
    let events_arg = events.to_string();
    let notifications = |client, handlers: u64| Watcher {
        client,
        counting: Counting::Notifications,
        initial: handlers * size,
        per_event: handlers,
        cap: None,
    };
    let role = |client| Watcher {
        client,
        counting: Counting::Markers,
        initial: 0,
        per_event: 1,
        cap: None,
    };
    let [dynamic, typed] = client_go_clients(env, events);
    vec![
        notifications(client("kinformer 1 handler", k, &watch, false), 1),
        role(dynamic),
        role(typed),
        notifications(client("kinformer 4 handlers", k, &four, false), 4),
        role(client(
            "kube-runtime",
            &env.me,
            &["--role", "kube-runtime-watch", &events_arg],
            true,
        )),
        Watcher {
            client: client(
                "kubectl",
                Path::new("kubectl"),
                &[
                    "get",
                    "pods",
                    "-A",
                    "-w",
                    "-o",
                    "json",
                    "--output-watch-events",
                ],
                false,
            ),
            counting: Counting::WatchEvents(size),
            initial: 0,
            per_event: 1,
            cap: Some(KUBECTL_WATCH_CAP),
        },
        role(client(
            "server raw watch",
            &env.me,
            &["--role", "raw-watch", &events_arg],
            true,
        )),
        role(client(
            "floor: read + scan + print",
            &env.me,
            &["--role", "scan-watch", &events_arg],
            true,
        )),
        role(client(
            "floor: read + scan + 4 prints",
            &env.me,
            &["--role", "scan-watch", &events_arg, "4"],
            true,
        )),
    ]
}

/// Live: the client consumes while the server writes. Drain: the client is stopped
/// (SIGSTOP) during the writes and timed from SIGCONT: its own consumption capacity.
const MODES: [&str; 2] = ["live", "drain"];

/// Watch throughput of every client in both modes, `runs` times, interleaved.
fn watch_section(
    settings: &Settings,
    env: &Env,
    server: &EmbeddedServer,
    bases: &[Value],
    report: &mut Report,
) {
    let size = bases.len();
    let mut watchers = watch_clients(env, size as u64, settings.events);
    watchers.retain(|w| settings.selected(w.client.name));
    let updates: Result<Vec<pods::Updates>, String> =
        bases.iter().map(pods::Updates::new).collect();
    let updates = match updates {
        Ok(updates) => updates,
        Err(e) => {
            for watcher in &watchers {
                for mode in MODES {
                    let failed = Err(format!("cannot render the updates: {e}"));
                    report.add("watch", size, watcher.client.name, mode, failed);
                }
            }
            return;
        }
    };
    let mut step = 0usize;
    let mut slow = Vec::new();
    for run in 0..settings.runs {
        for watcher in &watchers {
            if slow.contains(&watcher.client.name) {
                continue;
            }
            let started = Instant::now();
            for mode in MODES {
                let writer = Writer {
                    server,
                    updates: &updates,
                    step: &mut step,
                    events: settings.events,
                };
                let result = watch_once(watcher, env, writer, mode == "drain");
                let (client_result, write_rate) = match result {
                    Ok((sample, write_rate)) => (Ok(sample), Some(write_rate)),
                    Err(e) => (Err(e), None),
                };
                match &client_result {
                    Ok(s) => eprintln!(
                        "watch {size:>7} {:<22} {mode:<5} run {run}: {:.0} events/s{}",
                        watcher.client.name,
                        s.rate,
                        if s.note.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", s.note)
                        }
                    ),
                    Err(e) => eprintln!(
                        "watch {size:>7} {:<22} {mode:<5} run {run}: FAILED {e}",
                        watcher.client.name
                    ),
                }
                report.add("watch", size, watcher.client.name, mode, client_result);
                if let Some(rate) = write_rate {
                    let mut sample = Sample::new(settings.events as f64 / rate, 0);
                    sample.rate = rate;
                    sample.count = settings.events;
                    report.add("watch", size, "server update writes", mode, Ok(sample));
                }
            }
            if started.elapsed() > SLOW_RUN * 2 {
                slow.push(watcher.client.name);
                for mode in MODES {
                    report.note("watch", size, watcher.client.name, mode, SLOW_NOTE);
                }
            }
        }
    }
}

/// Writes the watch benchmark's updates.
struct Writer<'a> {
    server: &'a EmbeddedServer,
    /// Per pod, its update template (rendered before the timed window).
    updates: &'a [pods::Updates],
    /// Updates written so far (every update gets a new label value).
    step: &'a mut usize,
    events: u64,
}

impl Writer<'_> {
    /// Writes `events` updates round-robin over the pods, as PUT bodies: rendering each body
    /// from its template is timed with the server's work.
    fn write(self) -> Result<(), String> {
        let start = *self.step;
        let events = usize::try_from(self.events).map_err(|e| e.to_string())?;
        *self.step += events;
        let pods = self.updates;
        let bodies = (start..start + events).map(|i| {
            let pod = &pods[i % pods.len()];
            (pod.namespace.as_str(), pod.name.as_str(), pod.body(i))
        });
        let written = self
            .server
            .replace_objects("pods", bodies)
            .map_err(|e| e.to_string())?;
        check_count("updates written", written as u64, self.events)
    }
}

/// Receives the next progress message within `timeout`.
pub fn next(progress: &Receiver<Progress>, timeout: Duration) -> Option<Progress> {
    progress.recv_timeout(timeout).ok()
}

/// Kills `running`, then returns the final count of its stdout.
pub fn finish(running: Running, progress: &Receiver<Progress>) -> (Reaped, Option<u64>) {
    let reaped = running.kill();
    let ended = std::iter::from_fn(|| next(progress, Duration::from_secs(10))).find_map(|p| {
        if let Progress::Ended(count) = p {
            Some(count)
        } else {
            None
        }
    });
    (reaped, ended)
}

/// One watch run: start the client, wait until it is synced, write the updates, time the
/// consumption and read the client's CPU time over the same window (live: from the first
/// write; drain: from SIGSTOP, as a stopped client uses none). Returns the client's sample and
/// the server's write rate.
fn watch_once(
    watcher: &Watcher,
    env: &Env,
    writer: Writer<'_>,
    drain: bool,
) -> Result<(Sample, f64), String> {
    let events = writer.events;
    let target = watcher.initial + events * watcher.per_event;
    let client = &watcher.client;
    let mut vars = env.vars.clone();
    vars.push((
        "KINFORMER_BENCH_RV",
        writer.server.resource_version().to_string(),
    ));
    let args: Vec<&str> = client.args.iter().map(String::as_str).collect();
    let mut running = child::spawn(&client.program, &args, &vars, true)
        .map_err(|e| format!("cannot start {}: {e}", client.program.display()))?;
    let stdout = running.stdout.take().ok_or("no stdout")?;
    let progress = child::count(stdout, watcher.counting, target);
    match next(&progress, READY_TIMEOUT) {
        Some(Progress::Ready(_)) => {}
        other => {
            let (reaped, counted) = finish(running, &progress);
            return Err(format!(
                "never ready ({other:?}, {} events counted); stderr: {}",
                counted.unwrap_or(0),
                reaped.stderr.trim()
            ));
        }
    }
    if drain {
        running.signal(libc::SIGSTOP);
    }
    let cpu_from = running.cpu();
    let began = Instant::now();
    writer.write()?;
    let written = Instant::now();
    let write_rate = events as f64 / (written - began).as_secs_f64();
    let from = if drain {
        running.signal(libc::SIGCONT);
        Instant::now()
    } else {
        began
    };
    let wait = watcher.cap.unwrap_or(READY_TIMEOUT);
    let (done_at, capped) = match next(&progress, wait) {
        Some(Progress::Done(at)) => (at, false),
        _ => (Instant::now(), true),
    };
    let cpu_to = running.cpu();
    if !capped {
        // Anything past the target would be a miscount: give it a moment to show up.
        std::thread::sleep(Duration::from_millis(100));
    }
    let (reaped, total) = finish(running, &progress);
    let total = total.ok_or("stdout never ended")?;
    // A role that exits by itself at its last event is read from its rusage.
    let cpu = cpu_from.map(|from| cpu_to.unwrap_or(reaped.cpu).saturating_sub(from));
    let consumed = total.saturating_sub(watcher.initial) / watcher.per_event;
    let mut sample = Sample::new((done_at - from).as_secs_f64(), reaped.max_rss_kb);
    sample.count = consumed;
    sample.rate = consumed as f64 / sample.seconds;
    sample.cpu_seconds = cpu.map(|c| c.as_secs_f64());
    if capped {
        if watcher.cap.is_none() || consumed == 0 {
            return Err(format!(
                "consumed {consumed} of {events} events; stderr: {}",
                reaped.stderr.trim()
            ));
        }
        sample.note = format!(
            "capped: {consumed}/{events} events in {:.0}s",
            sample.seconds
        );
    } else {
        check_count("events counted", total, target)?;
    }
    Ok((sample, write_rate))
}
