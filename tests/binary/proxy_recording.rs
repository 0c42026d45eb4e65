//! What a Go controller author met recording through `kinformer proxy` (issue 49), against the
//! embedded server and the real kube-apiserver: the recording is complete however the proxy
//! ends (Ctrl-C, SIGTERM, `--timeout`, a client going away) and a replay runs to its end (a
//! resync ticks in the quiet tail); every recorded time is when it happened (a client that
//! started late has a fast first LIST in the replay); a mixed recording (an informer and
//! `kubectl get -w`) names its streams to `replay` and is taken whole by `report`/`explain`;
//! an upstream nobody can reach stops the proxy at start, and one that goes away later is said.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::binary::{DEADLINE, kinformer, parse_jsonl, run};
use crate::refserver_fixture::RefServer;

/// How the proxy run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Interrupt,
    Terminate,
    /// `--timeout` of this many seconds.
    Timeout(u64),
}

/// How long the clients wait after the proxy started: their first LIST comes this late.
const LATE_START: Duration = Duration::from_millis(1500);

/// How long the recording stays quiet after the last event before the proxy is stopped: a
/// replay with `--resync 1s` ticks in it.
const QUIET_TAIL: Duration = Duration::from_millis(2500);

/// A `kinformer proxy` child with its JSONL trace read as it comes.
struct Proxied {
    child: Child,
    trace: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
    dir: PathBuf,
}

impl Proxied {
    async fn start(upstream: &Path, dir: &Path, stop: Stop) -> Proxied {
        let mut c = kinformer(&["proxy", "-o", "jsonl", "--show", "all"]);
        c.arg("--kubeconfig")
            .arg(upstream)
            .arg("--kubeconfig-out")
            .arg(dir.join("proxy"))
            .arg("--record")
            .arg(dir.join("r.jsonl"));
        if let Stop::Timeout(s) = stop {
            c.arg("--timeout").arg(format!("{s}s"));
        }
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the proxy starts");
        let trace = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lines = trace.clone();
        let stdout = child.stdout.take().expect("stdout");
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    lines.lock().expect("lines").push(v);
                }
            }
        });
        let proxied = Proxied {
            child,
            trace,
            dir: dir.to_owned(),
        };
        wait_until("the proxy's kubeconfig", || proxied.kubeconfig().exists()).await;
        proxied
    }

    fn kubeconfig(&self) -> PathBuf {
        self.dir.join("proxy")
    }

    fn record(&self) -> PathBuf {
        self.dir.join("r.jsonl")
    }

    /// Waits for a trace line of `stream` with `event` matching `also`.
    async fn traced(&self, stream: &str, event: &str, also: impl Fn(&Value) -> bool) -> Value {
        let find = || {
            self.trace
                .lock()
                .expect("lines")
                .iter()
                .find(|v| v["resource"] == stream && v["event"] == event && also(v))
                .cloned()
        };
        wait_until(&format!("{event} on {stream}"), || find().is_some()).await;
        find().expect("found")
    }

    /// Ends the proxy as `stop` says; its exit code and stderr.
    async fn stop(mut self, stop: Stop) -> (i32, String) {
        let signal = match stop {
            Stop::Interrupt => Some("-INT"),
            Stop::Terminate => Some("-TERM"),
            Stop::Timeout(_) => None,
        };
        if let Some(signal) = signal {
            signal_child(&self.child, signal);
        }
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            err.read_to_string(&mut stderr).await.expect("stderr");
        }
        let status = tokio::time::timeout(DEADLINE, self.child.wait())
            .await
            .expect("the proxy stops")
            .expect("its status");
        (status.code().unwrap_or(-1), stderr)
    }
}

fn signal_child(child: &Child, signal: &str) {
    let pid = child.id().expect("running").to_string();
    let sent = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

async fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The record file: its header and its entries (the `stopped` line among them).
fn read_record(path: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(path).expect("the record file");
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")));
    let header = lines.next().expect("a header");
    (header, lines.collect())
}

/// `kinformer watch configmaps -n NS` (an informer: LIST or watch-list, then WATCH) as a
/// client of the proxy.
fn informer_client(kubeconfig: &Path, ns: &str) -> Child {
    kinformer(&["watch", "configmaps", "-n", ns, "-o", "jsonl"])
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("kinformer watch starts")
}

/// `kubectl get configmaps -n NS -w` as a person types it.
fn kubectl_client(kubeconfig: &Path, ns: &str) -> Child {
    Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["get", "configmaps", "-n", ns, "-w"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("kubectl (scripts/test installs it)")
}

fn configmap(ns: &str, name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\n")
}

/// The trace stream a client's configmaps informer is named by.
fn stream_of(client: &str, ns: &str) -> String {
    format!("{client}/configmaps@{ns}")
}

/// Milliseconds from `a` to `b` (RFC 3339 times).
fn millis_between(a: &Value, b: &Value) -> i64 {
    let t = |v: &Value| -> jiff::Timestamp {
        v.as_str()
            .unwrap_or_else(|| panic!("a time: {v}"))
            .parse()
            .unwrap_or_else(|e| panic!("{e}: {v}"))
    };
    i64::try_from(t(b).duration_since(t(a)).as_millis()).expect("milliseconds")
}

/// What the user did, on `upstream` (a kubeconfig) in `ns`: a proxy, a late informer and a
/// late `kubectl get -w`, a write both see, kubectl going away, then the proxy stopped by
/// `stop`. `create` writes a ConfigMap upstream. Returns the record file's path.
async fn the_users_recording(
    upstream: &Path,
    ns: &str,
    dir: &Path,
    stop: Stop,
    create: &dyn Fn(&str),
) -> PathBuf {
    let proxy = Proxied::start(upstream, dir, stop).await;
    // The clients start a while after the proxy: the issue's 3.6 s first LIST was this wait.
    tokio::time::sleep(LATE_START).await;
    let mut informer = informer_client(&proxy.kubeconfig(), ns);
    let mut kubectl = kubectl_client(&proxy.kubeconfig(), ns);
    let (ours, theirs) = (stream_of("kinformer", ns), stream_of("kubectl", ns));
    for stream in [&ours, &theirs] {
        proxy.traced(stream, "watch-start", |_| true).await;
    }
    create("late");
    for stream in [&ours, &theirs] {
        proxy
            .traced(stream, "watch-event", |v| v["key"] == format!("{ns}/late"))
            .await;
    }
    kubectl.kill().await.expect("kubectl goes away");
    proxy
        .traced(&theirs, "watch-end", |v| v["reason"] == "client closed")
        .await;
    let record = proxy.record();
    if !matches!(stop, Stop::Timeout(_)) {
        // A quiet tail: nothing happens, on purpose, before the proxy is stopped.
        tokio::time::sleep(QUIET_TAIL).await;
    }
    let expected = match stop {
        Stop::Interrupt => 130,
        Stop::Terminate => 143,
        Stop::Timeout(_) => 0,
    };
    let (code, stderr) = proxy.stop(stop).await;
    assert_eq!(code, expected, "{stop:?}: {stderr}");
    signal_child(&informer, "-INT");
    let _ = tokio::time::timeout(DEADLINE, informer.wait()).await;
    record
}

/// The record is complete: its last line is `stopped`, at or after every entry (at the
/// timeout for `--timeout`), and kubectl's watch, which kubectl closed, has its `end`.
fn assert_complete(record: &Path, ns: &str, stop: Stop) {
    let (header, entries) = read_record(record);
    let last = entries.last().expect("entries");
    assert_eq!(last["stopped"], true, "{stop:?}: the last line: {last}");
    let stopped = last["t"].as_u64().expect("t");
    let latest = entries.iter().filter_map(|e| e["t"].as_u64()).max();
    assert!(Some(stopped) >= latest, "{stop:?}: stopped at {stopped}");
    if let Stop::Timeout(s) = stop {
        assert!(stopped >= s * 1000 - 200, "{stop:?}: stopped at {stopped}");
    }
    let theirs = stream_of("kubectl", ns);
    let kubectl: Vec<&Value> = entries.iter().filter(|e| e["r"] == theirs).collect();
    assert!(
        kubectl.last().is_some_and(|e| e["end"] == true),
        "{stop:?}: kubectl's closed watch ends in the file: {kubectl:?}"
    );
    assert!(
        header["resources"].as_array().is_some_and(|r| r.len() == 2),
        "{header}"
    );
}

/// `replay FILE --stream STREAM --clock virtual -o jsonl --show all EXTRA`: its trace and
/// stderr.
async fn replayed(record: &Path, stream: &str, extra: &[&str]) -> (Vec<Value>, String) {
    let mut c = kinformer(&[
        "replay", "--clock", "virtual", "-o", "jsonl", "--show", "all",
    ]);
    c.arg(record).arg("--stream").arg(stream).args(extra);
    let ran = run(c).await;
    assert_eq!(ran.code, 0, "replay of {stream}: {}", ran.stderr);
    (parse_jsonl(&ran.stdout), ran.stderr)
}

fn first<'a>(lines: &'a [Value], event: &str) -> &'a Value {
    lines
        .iter()
        .find(|v| v["event"] == event)
        .unwrap_or_else(|| panic!("no {event}"))
}

/// Items 1, 2 and 4 on the recording of the Ctrl-C run: the replay runs to the recording's
/// end (a resync ticks after the last event), the first LIST is as fast as it was on the wire
/// and starts when it was made, and the mixed recording is named to `replay` and taken whole
/// by `report` and `explain`.
async fn assert_replays_as_it_happened(record: &Path, ns: &str, dir: &Path) {
    let (header, entries) = read_record(record);
    let stopped = entries.last().and_then(|e| e["t"].as_u64()).expect("t");
    for client in ["kinformer", "kubectl"] {
        let stream = stream_of(client, ns);
        let (lines, stderr) = replayed(record, &stream, &["--resync", "1s"]).await;
        assert!(
            !stderr.contains("never asked for"),
            "{stream}: every entry is asked for: {stderr}"
        );
        let list_start = first(&lines, "list-start");
        let list_done = first(&lines, "list-done");
        let began = millis_between(&header["created"], &list_start["ts"]);
        assert!(
            began >= i64::try_from(LATE_START.as_millis()).expect("milliseconds"),
            "{stream}: the first LIST is stamped when it was made, {began} ms after the start"
        );
        let took = millis_between(&list_start["ts"], &list_done["ts"]);
        assert!(
            took < 1000,
            "{stream}: the first LIST took {took} ms in the replay"
        );
        let last_event = lines
            .iter()
            .rfind(|v| v["event"] == "watch-event")
            .expect("a watch event");
        let tail_ticks = lines
            .iter()
            .filter(|v| v["event"] == "tick" && v["seq"].as_u64() > last_event["seq"].as_u64())
            .count();
        assert!(
            tail_ticks >= 1,
            "{stream}: resync ticks after the last event"
        );
        let last = lines
            .iter()
            .rfind(|v| v["stage"] != "summary")
            .expect("a line");
        let ran_to = millis_between(&header["created"], &last["ts"]);
        assert!(
            ran_to + 1000 >= i64::try_from(stopped).expect("milliseconds"),
            "{stream}: the replay ran to {ran_to} ms of a recording that stopped at {stopped} ms"
        );
    }
    // On the wall clock (the default) a replay takes the recording's time, and says so.
    let mut wall = kinformer(&["replay", "--timeout", "1s", "--stream"]);
    wall.arg(stream_of("kubectl", ns)).arg(record);
    let wall = run(wall).await;
    assert_eq!(wall.code, 0, "{}", wall.stderr);
    assert!(
        wall.stderr
            .lines()
            .any(|l| l.contains("on the wall clock: it takes") && l.contains("--clock virtual")),
        "{}",
        wall.stderr
    );
    let asked = run({
        let mut c = kinformer(&["replay", "--clock", "virtual"]);
        c.arg(record);
        c
    })
    .await;
    assert_eq!(asked.code, 2, "{}", asked.stderr);
    let line = asked.stderr.trim();
    assert!(
        line.lines().count() == 1
            && line.contains("--stream")
            && line.contains(&stream_of("kinformer", ns))
            && line.contains(&stream_of("kubectl", ns)),
        "replay names the streams and asks for one: {line}"
    );
    let page = dir.join("r.html");
    let mut report = kinformer(&["report"]);
    report.arg(record).arg("-o").arg(&page);
    let reported = run(report).await;
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    let html = std::fs::read_to_string(&page).expect("the page");
    for client in ["kinformer", "kubectl"] {
        assert!(
            html.contains(&stream_of(client, ns)),
            "the page has {client}'s stream"
        );
    }
    let mut explain = kinformer(&["explain", &format!("{ns}/late")]);
    explain.arg(record);
    let explained = run(explain).await;
    assert_eq!(explained.code, 0, "{}", explained.stderr);
    assert!(
        explained.stdout.contains("kubectl") && explained.stdout.contains("kinformer"),
        "explain tells the object's story in both streams: {}",
        explained.stdout
    );
}

/// An embedded server over TLS in a fresh directory, with its kubeconfig there.
async fn embedded() -> (kinformer_apiserver::EmbeddedServer, tempfile::TempDir) {
    let server = kinformer_apiserver::EmbeddedServer::start(kinformer_apiserver::ServerConfig {
        tls: true,
        ..kinformer_apiserver::ServerConfig::default()
    })
    .await
    .expect("the server starts");
    let dir = tempfile::tempdir().expect("a directory");
    server
        .write_kubeconfig(&dir.path().join("upstream"))
        .expect("its kubeconfig");
    (server, dir)
}

/// Writes ConfigMap `name` in `default` on `server`.
fn create_in(server: &kinformer_apiserver::EmbeddedServer, name: &str) {
    server
        .create_object(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}}))
        .expect("created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_recording_on_the_embedded_server_is_complete_and_replays_as_it_happened() {
    for stop in [Stop::Interrupt, Stop::Terminate, Stop::Timeout(12)] {
        let (server, dir) = embedded().await;
        let create = |name: &str| create_in(&server, name);
        let upstream = dir.path().join("upstream");
        let record = the_users_recording(&upstream, "default", dir.path(), stop, &create).await;
        assert_complete(&record, "default", stop);
        if stop == Stop::Interrupt {
            assert_replays_as_it_happened(&record, "default", dir.path()).await;
        }
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_recording_in_front_of_kube_apiserver_is_complete_and_replays_as_it_happened() {
    let server = RefServer::shared();
    let ns = server.namespace("proxy-tail");
    let dir = tempfile::tempdir().expect("a directory");
    let applier = server.clone();
    let namespace = ns.clone();
    let create = move |name: &str| applier.apply(&configmap(&namespace, name));
    let record = the_users_recording(
        &server.kubeconfig(),
        &ns,
        dir.path(),
        Stop::Interrupt,
        &create,
    )
    .await;
    assert_complete(&record, &ns, Stop::Interrupt);
    assert_replays_as_it_happened(&record, &ns, dir.path()).await;
}

/// A kubeconfig whose server refuses connections (a port that was just free).
fn dead_kubeconfig(dir: &Path) -> PathBuf {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let path = dir.join("dead.kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: dead\n  cluster:\n    server: https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\ncontexts:\n- name: dead\n  context:\n    cluster: dead\n    user: me\nusers:\n- name: me\n  user:\n    token: t\ncurrent-context: dead\n"
        ),
    )
    .expect("written");
    path
}

#[tokio::test]
async fn a_proxy_in_front_of_an_unreachable_server_fails_as_kubectl_does() {
    let dir = tempfile::tempdir().expect("a directory");
    let dead = dead_kubeconfig(dir.path());
    let mut proxy = kinformer(&["proxy", "--timeout", "6s"]);
    proxy.arg("--kubeconfig").arg(&dead);
    let proxied = run(proxy).await;
    let mut watch = kinformer(&["watch", "pods"]);
    watch.arg("--kubeconfig").arg(&dead);
    let watched = run(watch).await;
    assert_eq!(proxied.code, 5, "{}", proxied.stderr);
    assert_eq!(proxied.stderr.lines().count(), 1, "{}", proxied.stderr);
    assert!(
        proxied.stderr.starts_with("error: ") && proxied.stderr.contains("connection refused"),
        "{}",
        proxied.stderr
    );
    // The words `watch` uses (kubectl's `dial tcp …: connect: connection refused`), for the
    // request the proxy makes first, without `watch`'s --retry-connect hint (the proxy has no
    // such flag).
    let as_watch = watched
        .stderr
        .replace("/api\"", "/version\"")
        .replace(" (--retry-connect retries it)", "");
    assert_eq!(
        proxied.stderr, as_watch,
        "the proxy fails in the words every command uses"
    );
    assert!(proxied.stdout.is_empty(), "{}", proxied.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_says_on_stderr_when_its_server_goes_away() {
    let (server, dir) = embedded().await;
    let proxy = Proxied::start(&dir.path().join("upstream"), dir.path(), Stop::Interrupt).await;
    let mut informer = informer_client(&proxy.kubeconfig(), "default");
    let stream = stream_of("kinformer", "default");
    proxy.traced(&stream, "watch-start", |_| true).await;
    server.shutdown().await;
    let unreachable = |v: &Value| {
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("could not reach"))
    };
    wait_until("a 502 on the informer's stream", || {
        proxy.trace.lock().expect("lines").iter().any(|v| {
            v["resource"] == stream.as_str()
                && (v["event"] == "watch-error" || v["event"] == "list-error")
                && unreachable(v)
        })
    })
    .await;
    signal_child(&informer, "-INT");
    let _ = tokio::time::timeout(DEADLINE, informer.wait()).await;
    let (code, stderr) = proxy.stop(Stop::Interrupt).await;
    assert_eq!(code, 130, "{stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("unreachable"))
        .collect();
    assert_eq!(
        said.len(),
        1,
        "said once, when it became unreachable: {stderr}"
    );
    assert!(said[0].starts_with("warning: the API server became unreachable"));
}

/// Issue 49 item 10: the recording of a proxy nobody used says so plainly when replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_of_a_proxy_nobody_used_says_so() {
    let (server, dir) = embedded().await;
    let proxy = Proxied::start(&dir.path().join("upstream"), dir.path(), Stop::Interrupt).await;
    let record = proxy.record();
    let (code, stderr) = proxy.stop(Stop::Interrupt).await;
    assert_eq!(code, 130, "{stderr}");
    let mut replay = kinformer(&["replay"]);
    replay.arg(&record);
    let replayed = run(replay).await;
    assert_eq!(replayed.code, 7, "{}", replayed.stderr);
    assert_eq!(
        replayed.stderr,
        format!(
            "error: {}:1: nothing to replay: no client listed or watched anything through the proxy while it recorded\n",
            record.display()
        )
    );
    server.shutdown().await;
}
