//! The servers section (issue 37 item 4): the embedded server next to the real kube-apiserver
//! 1.37.2 + etcd (`scripts/refserver run DIR`), the same pods in both (the embedded server seeded
//! through its library, kube-apiserver over HTTP by the `seed` role: each pod created, then its
//! status written), measured by the same client programs in the same run: LIST throughput (one
//! unpaged LIST, and pages of 500), watch throughput (MODIFIED events delivered to one watcher
//! while a writer patches the pods, 16 requests in flight) and the 10k-pod sync of kinformer and
//! of client-go's two informers from each.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kinformer_apiserver::{EmbeddedServer, ServerConfig};

use crate::Settings;
use crate::child::{self, Counting, Progress};
use crate::pods;
use crate::report::{Report, Sample};
use crate::run::{self, Client, Env, HarnessResult};

/// The two servers, as the `mode` column names them.
pub const SERVERS: [&str; 2] = ["embedded", "kube-apiserver"];

/// How long kube-apiserver may take to become ready, and a client or the seeding to finish.
const DEADLINE: Duration = Duration::from_secs(600);

/// The real kube-apiserver and etcd, run by `scripts/refserver run DIR` until DIR/stop appears.
struct RefServer {
    process: Child,
    dir: PathBuf,
}

impl RefServer {
    /// Builds (cached) and starts the reference server in `dir`; waits for `dir/ready`.
    fn start(dir: &Path) -> HarnessResult<RefServer> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/refserver");
        let built = Command::new(&script)
            .arg("build")
            .stdout(Stdio::null())
            .status()?;
        if !built.success() {
            return Err(format!("{} build failed (see above)", script.display()).into());
        }
        let log = std::fs::File::create(dir.join("refserver.log"))?;
        let process = Command::new(&script)
            .arg("run")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()?;
        let mut server = RefServer {
            process,
            dir: dir.to_path_buf(),
        };
        let deadline = Instant::now() + DEADLINE;
        while !dir.join("ready").exists() {
            if let Some(status) = server.process.try_wait()? {
                let log = std::fs::read_to_string(dir.join("refserver.log")).unwrap_or_default();
                return Err(format!("scripts/refserver run exited ({status}): {log}").into());
            }
            if Instant::now() > deadline {
                server.stop();
                return Err("kube-apiserver not ready in 600 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(server)
    }

    fn kubeconfig(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }

    /// Asks the script to stop both servers and waits for it.
    fn stop(&mut self) {
        let _ = std::fs::write(self.dir.join("stop"), b"");
        let _ = self.process.wait();
    }
}

impl Drop for RefServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The environment of a client of the server whose kubeconfig is `kubeconfig`.
fn env_for(
    kubeconfig: &Path,
    home: &Path,
    settings: &Settings,
    client_go: &Path,
) -> HarnessResult<Env> {
    Ok(Env {
        kinformer: settings.kinformer.clone(),
        me: std::env::current_exe()?,
        client_go: client_go.to_path_buf(),
        vars: vec![
            ("KUBECONFIG", kubeconfig.display().to_string()),
            ("RUST_LOG", "warn".to_owned()),
            ("HOME", home.display().to_string()),
        ],
    })
}

/// The sync clients run against both servers.
fn clients(env: &Env) -> Vec<Client> {
    let [dynamic, typed] = run::client_go_clients(env, 0);
    vec![
        run::client("LIST full", &env.me, &["--role", "list"], true),
        run::client("LIST paged", &env.me, &["--role", "list-paged"], true),
        run::client(
            "kinformer",
            &env.kinformer,
            &["dump", "pods", "-A", "-o", "jsonl"],
            false,
        ),
        run::client(
            "kinformer protobuf",
            &env.kinformer,
            &[
                "dump",
                "pods",
                "-A",
                "-o",
                "jsonl",
                "--content-type",
                "protobuf",
            ],
            false,
        ),
        dynamic,
        typed,
    ]
}

/// Runs the section: both servers up with the same pods, every client `runs` times against
/// each, interleaved, then the watch throughput.
pub fn section(
    settings: &Settings,
    runtime: &tokio::runtime::Runtime,
    client_go: &Path,
    report: &mut Report,
) -> HarnessResult {
    let size = settings.servers_size;
    let started = Instant::now();
    let dir = tempfile::tempdir()?;
    let embedded = runtime.block_on(EmbeddedServer::start(ServerConfig {
        history: usize::try_from(settings.servers_events)? + 10_000,
        ..ServerConfig::default()
    }))?;
    embedded.seed_objects((0..size).map(pods::pod))?;
    let embedded_kubeconfig = dir.path().join("embedded.kubeconfig");
    embedded.write_kubeconfig(&embedded_kubeconfig)?;
    let reference_dir = dir.path().join("refserver");
    std::fs::create_dir_all(&reference_dir)?;
    let reference = RefServer::start(&reference_dir)?;
    let envs = [
        env_for(&embedded_kubeconfig, dir.path(), settings, client_go)?,
        env_for(&reference.kubeconfig(), dir.path(), settings, client_go)?,
    ];
    seed(&envs[1], size)?;
    eprintln!(
        "== servers: {size} pods in the embedded server and kube-apiserver in {:.1}s ==",
        started.elapsed().as_secs_f64()
    );
    for run in 0..settings.runs {
        for (server, env) in SERVERS.into_iter().zip(&envs) {
            for client in clients(env) {
                if !settings.selected(client.name) {
                    continue;
                }
                let result = run::sync_once(&client, env, size, settings.smoke, DEADLINE);
                match &result {
                    Ok(s) => eprintln!(
                        "servers {size:>7} {server:<14} {:<26} run {run}: {:.3}s",
                        client.name, s.seconds
                    ),
                    Err(e) => eprintln!(
                        "servers {size:>7} {server:<14} {:<26} run {run}: FAILED {e}",
                        client.name
                    ),
                }
                report.add("servers", size, client.name, server, result);
            }
            if settings.servers_events > 0 && settings.selected("watch: 1 watcher") {
                let (watcher, writer) = match watch_throughput(env, settings.servers_events) {
                    Ok((watcher, writer)) => (Ok(watcher), Ok(writer)),
                    Err(e) => (Err(e.clone()), Err(e)),
                };
                if let Ok(s) = &watcher {
                    eprintln!(
                        "servers {size:>7} {server:<14} watch: 1 watcher run {run}: {:.0} events/s",
                        s.rate
                    );
                }
                report.add("servers", size, "watch: 1 watcher", server, watcher);
                report.add("servers", size, "watch: writer (patches)", server, writer);
            }
        }
    }
    drop(reference);
    runtime.block_on(embedded.shutdown());
    Ok(())
}

/// Seeds the reference server with the benchmark's first `size` pods (the `seed` role).
fn seed(env: &Env, size: usize) -> HarnessResult {
    let count = size.to_string();
    let args = ["--role", "seed", count.as_str()];
    let running = child::spawn(&env.me, &args, &env.vars, false)?;
    let (reaped, in_time) = running.wait(DEADLINE);
    if !in_time || reaped.code != 0 {
        return Err(format!("seeding kube-apiserver failed: {}", reaped.stderr.trim()).into());
    }
    Ok(())
}

/// Starts role `args` and waits for its `ready` line; returns it with its progress.
fn start_role(
    env: &Env,
    args: &[&str],
    target: u64,
) -> Result<(child::Running, std::sync::mpsc::Receiver<Progress>, Instant), String> {
    let mut running = child::spawn(&env.me, args, &env.vars, true).map_err(|e| e.to_string())?;
    let stdout = running.stdout.take().ok_or("no stdout")?;
    let progress = child::count(stdout, Counting::Markers, target);
    match run::next(&progress, DEADLINE) {
        Some(Progress::Ready(at)) => Ok((running, progress, at)),
        other => {
            let (reaped, _) = run::finish(running, &progress);
            Err(format!(
                "{args:?} never ready ({other:?}); stderr: {}",
                reaped.stderr.trim()
            ))
        }
    }
}

/// One watcher counts `events` MODIFIED events while the writer patches: the watcher's sample
/// (events/s from the writer's first patch to the last event, its CPU over that window) and the
/// writer's (patches/s).
fn watch_throughput(env: &Env, events: u64) -> Result<(Sample, Sample), String> {
    let count = events.to_string();
    let (watcher, watched, _) = start_role(env, &["--role", "watch-count", &count], events)?;
    let cpu_from = watcher.cpu();
    let (writer, written, began) = match start_role(env, &["--role", "write", &count], events) {
        Ok(started) => started,
        Err(e) => {
            run::finish(watcher, &watched);
            return Err(e);
        }
    };
    let wrote = run::next(&written, DEADLINE);
    let seen = run::next(&watched, DEADLINE);
    let cpu_to = watcher.cpu();
    let (writer_reaped, _) = run::finish(writer, &written);
    let (watcher_reaped, _) = run::finish(watcher, &watched);
    let (Some(Progress::Done(wrote_at)), Some(Progress::Done(seen_at))) = (wrote, seen) else {
        return Err(format!(
            "writer {wrote:?}, watcher {seen:?}; stderr: {} {}",
            writer_reaped.stderr.trim(),
            watcher_reaped.stderr.trim()
        ));
    };
    let sample = |end: Instant, rss| {
        let mut sample = Sample::new((end - began).as_secs_f64(), rss);
        sample.count = events;
        sample.rate = events as f64 / sample.seconds;
        sample
    };
    let mut watcher = sample(seen_at, watcher_reaped.max_rss_kb);
    watcher.cpu_seconds = cpu_from
        .zip(cpu_to)
        .map(|(from, to)| to.saturating_sub(from).as_secs_f64());
    Ok((watcher, sample(wrote_at, writer_reaped.max_rss_kb)))
}
