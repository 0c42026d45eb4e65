//! `kinformer proxy` with real clients nobody here wrote behind it, against the embedded API
//! server over TLS: kubectl (client-go over HTTP/2) watching, applying and deleting, kinformer
//! itself, and the Python `kubernetes` package's client (HTTP/1.1). For each: the bodies
//! relayed equal the server's (a LIST and a watch read through the proxy and directly), the
//! proxy's trace names the client's lists and watches with the RVs the client used, a 410
//! injected through the fault endpoint (via the proxy) shows as the client's relist, and
//! replaying the recording (`replay --stream`) ends with the server's objects in the cache.

use crate::apiserver_http;
use crate::binary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use binary::{DEADLINE, kinformer, parse_jsonl};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

/// Lines a child prints on stdout, as they come (JSON lines parsed).
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<Value>>>);

impl Lines {
    fn follow(&self, out: impl AsyncRead + Unpin + Send + 'static) {
        let lines = self.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(out).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                lines.0.lock().unwrap().push(value);
            }
        });
    }

    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (deadline, never a sleep) until a line matches; returns it.
    async fn wait(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            if let Some(found) = self.all().into_iter().find(|v| matches(v)) {
                return found;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}; lines so far:\n{}",
                self.dump()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn dump(&self) -> String {
        self.all()
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// An embedded server over TLS, and `kinformer proxy` (the binary) in front of it.
struct Bed {
    server: EmbeddedServer,
    dir: tempfile::TempDir,
    proxy: Child,
    trace: Lines,
}

impl Bed {
    async fn start() -> Bed {
        let server = EmbeddedServer::start(ServerConfig {
            tls: true,
            bookmark_interval: Duration::from_secs(1),
            ..ServerConfig::default()
        })
        .await
        .unwrap();
        for name in ["a", "b"] {
            server.create_object(pod(name)).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        server
            .write_kubeconfig(&dir.path().join("upstream"))
            .unwrap();
        let mut proxy = kinformer(&["proxy", "-o", "jsonl", "--show", "all", "-v", "4"])
            .arg("--kubeconfig")
            .arg(dir.path().join("upstream"))
            .arg("--kubeconfig-out")
            .arg(dir.path().join("proxy"))
            .arg("--record")
            .arg(dir.path().join("record.jsonl"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let trace = Lines::default();
        trace.follow(proxy.stdout.take().unwrap());
        let bed = Bed {
            server,
            dir,
            proxy,
            trace,
        };
        wait_for_file(&bed.kubeconfig()).await;
        bed
    }

    /// The clients' kubeconfig (the proxy's).
    fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("proxy")
    }

    fn upstream(&self) -> PathBuf {
        self.dir.path().join("upstream")
    }

    fn record(&self) -> PathBuf {
        self.dir.path().join("record.jsonl")
    }

    /// The trace line of `event` on `stream` matching `also`.
    async fn traced(&self, stream: &str, event: &str, also: impl Fn(&Value) -> bool) -> Value {
        self.trace
            .wait(&format!("{event} on {stream}"), |v| {
                v["resource"] == stream && v["event"] == event && also(v)
            })
            .await
    }

    /// A 410 for every watching client: the history is expired and open watches are closed,
    /// so each client's re-watch is answered 410 — asked through the proxy's fault endpoint.
    async fn inject_410(&self) {
        let client = proxy_client(&self.kubeconfig()).await;
        for fault in ["expire-all", "close-watches"] {
            let request = http::Request::post("/kinformer/v1/faults")
                .header("content-type", "application/json")
                .body(json!({ "fault": fault }).to_string().into_bytes())
                .unwrap();
            client.request_text(request).await.unwrap();
        }
    }

    /// Stops the proxy with SIGINT: exit 130, the whole trace, its stderr; the record file is
    /// complete.
    async fn stop(mut self) -> (Vec<Value>, String, PathBuf, tempfile::TempDir) {
        interrupt(&self.proxy).await;
        let mut stderr = String::new();
        if let Some(mut err) = self.proxy.stderr.take() {
            use tokio::io::AsyncReadExt;
            err.read_to_string(&mut stderr).await.unwrap();
        }
        let status = tokio::time::timeout(DEADLINE, self.proxy.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(130), "{stderr}");
        // The reader has the last lines once stdout closed.
        let trace = self.trace.clone();
        trace
            .wait("the summary", |v| v["event"] == "proxy-summary")
            .await;
        let text = trace.dump();
        let lines = parse_jsonl(&text);
        let record = self.record();
        self.server.shutdown().await;
        (lines, stderr, record, self.dir)
    }
}

fn pod(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}
    })
}

/// Ctrl-C for a child this test started.
async fn interrupt(child: &Child) {
    let pid = child.id().expect("running").to_string();
    let status = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .unwrap();
    assert!(status.success());
}

async fn wait_for_file(path: &Path) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while !path.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A kube-rs client of the proxy (from the kubeconfig it wrote).
async fn proxy_client(kubeconfig: &Path) -> kube::Client {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(config, &Default::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// The server's pods in `default`: key -> resourceVersion.
fn server_pods(server: &EmbeddedServer) -> BTreeMap<String, String> {
    server
        .objects("pods", Some("default"))
        .unwrap()
        .iter()
        .map(|o| {
            let m = &o["metadata"];
            (
                format!("default/{}", m["name"].as_str().unwrap()),
                m["resourceVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The cache at the end of a trace: every indexer write applied in order.
fn cache_of(lines: &[Value]) -> BTreeMap<String, String> {
    let mut cache = BTreeMap::new();
    for v in lines.iter().filter(|v| v["stage"] == "indexer") {
        let key = v["key"].as_str().unwrap().to_owned();
        match v["event"].as_str() {
            Some("delete") => {
                cache.remove(&key);
            }
            _ => {
                cache.insert(key, v["rv"].as_str().unwrap().to_owned());
            }
        }
    }
    cache
}

/// `kinformer replay FILE --stream STREAM [FLAGS]`: the cache it ends with, and its stderr.
async fn replay(record: &Path, stream: &str, flags: &[&str]) -> (BTreeMap<String, String>, String) {
    let mut c = kinformer(&[
        "replay", "--clock", "virtual", "-o", "jsonl", "--show", "all",
    ]);
    c.arg(record).arg("--stream").arg(stream).args(flags);
    let run = binary::run(c).await;
    assert_eq!(
        run.code,
        0,
        "replay of {stream}: {}\n{}",
        run.stderr,
        std::fs::read_to_string(record).unwrap_or_default()
    );
    (cache_of(&parse_jsonl(&run.stdout)), run.stderr)
}

/// The first line of `stream` with `event`, after the `skip`th.
fn nth<'a>(lines: &'a [Value], stream: &str, event: &str, n: usize) -> &'a Value {
    lines
        .iter()
        .filter(|v| v["resource"] == stream && v["event"] == event)
        .nth(n)
        .unwrap_or_else(|| panic!("no {event} #{n} on {stream}"))
}

fn stream_summary<'a>(lines: &'a [Value], stream: &str) -> &'a Value {
    lines
        .iter()
        .find(|v| v["event"] == "proxy-summary" && v["stream"] == stream)
        .unwrap_or_else(|| panic!("no summary of {stream}"))
}

fn kubectl(kubeconfig: &Path, args: &[&str]) -> Command {
    let kubectl = apiserver_http::kubectl_binary().unwrap_or_else(|e| panic!("{e}"));
    let mut c = Command::new(kubectl);
    c.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .kill_on_drop(true);
    c
}

async fn kubectl_output(kubeconfig: &Path, args: &[&str]) -> Vec<u8> {
    let out = tokio::time::timeout(DEADLINE, kubectl(kubeconfig, args).output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    // A small dependency-free digest would do, but the Python side uses sha256: compare the
    // bytes themselves here and print their length and a std hash for the message.
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(bytes, &mut hasher);
    let mut text = String::new();
    let _ = write!(
        text,
        "{}b:{:016x}",
        bytes.len(),
        std::hash::Hasher::finish(&hasher)
    );
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_watches_applies_and_deletes_through_the_proxy() {
    let bed = Bed::start().await;
    let px = bed.kubeconfig();
    // Bodies: the same LIST and the same (finite) watch, through the proxy and directly.
    let rv = bed.server.resource_version();
    bed.server
        .create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c1", "namespace": "default"}, "data": {"k": "v"}}))
        .unwrap();
    for path in [
        "/api/v1/namespaces/default/configmaps".to_owned(),
        format!(
            "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=1"
        ),
    ] {
        let via = kubectl_output(&px, &["get", "--raw", &path]).await;
        let direct = kubectl_output(&bed.upstream(), &["get", "--raw", &path]).await;
        assert!(!via.is_empty());
        assert_eq!(sha256_hex(&via), sha256_hex(&direct), "{path}");
        assert_eq!(via, direct, "{path}");
    }
    let mut watching = kubectl(
        &px,
        &[
            "get",
            "pods",
            "-n",
            "default",
            "-w",
            "--output-watch-events",
            "-o",
            "json",
        ],
    )
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let printed = Lines::default();
    printed.follow(watching.stdout.take().unwrap());
    let stream = "kubectl/pods@default";
    let listed = bed.traced(stream, "list-done", |_| true).await;
    let started = bed.traced(stream, "watch-start", |_| true).await;
    assert_eq!(
        started["rv"], listed["rv"],
        "kubectl watches from its list's RV"
    );
    assert_eq!(listed["items"], 2);
    let manifest = bed.dir.path().join("p1.yaml");
    std::fs::write(&manifest, serde_json::to_string(&pod("p1")).unwrap()).unwrap();
    kubectl_output(&px, &["apply", "-f", manifest.to_str().unwrap()]).await;
    let added = bed
        .traced(stream, "watch-event", |v| {
            v["type"] == "ADDED" && v["key"] == "default/p1"
        })
        .await;
    kubectl_output(
        &px,
        &["delete", "pod", "p1", "-n", "default", "--wait=false"],
    )
    .await;
    bed.traced(stream, "watch-event", |v| {
        v["type"] == "DELETED" && v["key"] == "default/p1"
    })
    .await;
    printed
        .wait("kubectl printing the ADDED event", |v| {
            v["type"] == "ADDED" && v["object"]["metadata"]["name"] == "p1"
        })
        .await;
    let created = printed
        .all()
        .into_iter()
        .find(|v| v["type"] == "ADDED" && v["object"]["metadata"]["name"] == "p1")
        .unwrap();
    assert_eq!(
        created["object"]["metadata"]["resourceVersion"],
        added["rv"]
    );
    bed.trace
        .wait("kubectl's create as a request line", |v| {
            v["event"] == "request"
                && v["client"] == "kubectl"
                && v["verb"] == "create"
                && v["code"] == 201
        })
        .await;
    bed.inject_410().await;
    bed.traced(stream, "watch-end", |v| v["reason"] == "server closed")
        .await;
    let _ = tokio::time::timeout(DEADLINE, watching.wait()).await;
    let server = server_pods(&bed.server);
    let (lines, stderr, record, _dir) = bed.stop().await;
    assert!(
        stderr.contains("HTTP/2 over TLS"),
        "client-go speaks HTTP/2: {stderr}"
    );
    assert!(
        !stderr.contains("Bearer"),
        "no credentials on stderr: {stderr}"
    );
    let summary = stream_summary(&lines, stream);
    assert_eq!(
        (summary["lists"].as_u64(), summary["watches"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(summary["events"].as_u64() >= Some(2), "{summary}");
    let (cache, _) = replay(&record, stream, &["--watch-list=false"]).await;
    assert_eq!(
        cache, server,
        "replaying kubectl's stream ends with the server's pods"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinformer_behind_the_proxy_relists_after_a_410_and_replays_to_the_servers_state() {
    let bed = Bed::start().await;
    let mut watch = kinformer(&[
        "watch", "pods", "-n", "default", "-o", "jsonl", "--show", "all",
    ])
    .arg("--kubeconfig")
    .arg(bed.kubeconfig())
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let own = Lines::default();
    own.follow(watch.stdout.take().unwrap());
    own.wait("kinformer synced", |v| v["event"] == "synced")
        .await;
    let watch_start = bed
        .trace
        .wait("kinformer's watch", |v| {
            v["event"] == "watch-start"
                && v["resource"]
                    .as_str()
                    .is_some_and(|r| r.ends_with("/pods@default") && !r.starts_with("kubectl"))
        })
        .await;
    let stream = watch_start["resource"].as_str().unwrap().to_owned();
    bed.server.create_object(pod("p1")).unwrap();
    bed.traced(&stream, "watch-event", |v| v["key"] == "default/p1")
        .await;
    own.wait("kinformer's notify of p1", |v| {
        v["event"] == "notify" && v["key"] == "default/p1"
    })
    .await;
    bed.inject_410().await;
    let relist = bed.traced(&stream, "relist", |_| true).await;
    assert_eq!(relist["reason"], "410 Expired", "{relist}");
    own.wait("kinformer's own relist", |v| v["event"] == "relist")
        .await;
    bed.traced(&stream, "list-done", |v| {
        v["seq"].as_u64() > relist["seq"].as_u64()
    })
    .await;
    bed.server.create_object(pod("p2")).unwrap();
    own.wait("kinformer's notify of p2", |v| {
        v["event"] == "notify" && v["key"] == "default/p2"
    })
    .await;
    interrupt(&watch).await;
    let status = tokio::time::timeout(DEADLINE, watch.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(130));
    let server = server_pods(&bed.server);
    let (lines, _, record, _dir) = bed.stop().await;
    // Every list and watch kinformer made, with the RVs it asked for, is in the proxy's trace.
    let asked = |lines: &[Value], resource: Option<&str>| -> Vec<(String, String)> {
        lines
            .iter()
            .filter(|v| resource.is_none_or(|r| v["resource"] == r))
            .filter(|v| v["event"] == "list-start" || v["event"] == "watch-start")
            .map(|v| {
                (
                    v["event"].as_str().unwrap().to_owned(),
                    v["rv"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(asked(&lines, Some(&stream)), asked(&own.all(), None));
    assert_eq!(nth(&lines, &stream, "watch-error", 0)["code"], 410);
    let summary = stream_summary(&lines, &stream);
    assert_eq!(summary["relists"], 1, "{summary}");
    let ends: Vec<&Value> = lines
        .iter()
        .filter(|v| v["resource"] == stream.as_str() && v["event"] == "watch-end")
        .collect();
    assert_eq!(
        ends.last().map(|v| &v["reason"]),
        Some(&json!("client closed")),
        "kinformer's Ctrl-C ends its watch mid-stream"
    );
    assert_eq!(
        cache_of(&own.all()),
        server,
        "kinformer's cache is the server's"
    );
    let (cache, stderr) = replay(&record, &stream, &[]).await;
    assert_eq!(cache, server, "the replay's cache is the server's");
    assert!(
        !stderr.contains("answered as recorded"),
        "kinformer's own stream replays as recorded: {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_behind_the_proxy_relists_after_a_410() {
    let python = std::process::Command::new("python3")
        .args(["-c", "import kubernetes"])
        .output();
    assert!(
        python.is_ok_and(|o| o.status.success()),
        "python3 with the `kubernetes` package is missing: pip install kubernetes (.ci/run does)"
    );
    let bed = Bed::start().await;
    let stop_file = bed.dir.path().join("stop");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/binary/proxy_clients/python_informer.py"
    );
    let mut client = Command::new("python3")
        .arg(script)
        .arg(bed.kubeconfig())
        .arg(bed.upstream())
        .arg("default")
        .arg(&stop_file)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let printed = Lines::default();
    printed.follow(client.stdout.take().unwrap());
    let via = printed
        .wait("the proxy's hash", |v| {
            v["event"] == "hash" && v["side"] == "proxy"
        })
        .await;
    let direct = printed
        .wait("the direct hash", |v| {
            v["event"] == "hash" && v["side"] == "direct"
        })
        .await;
    assert_eq!(via["sha256"], direct["sha256"], "{via} {direct}");
    let listed = printed
        .wait("the client's list", |v| v["event"] == "listed")
        .await;
    let watch_start = bed
        .trace
        .wait("the client's watch", |v| {
            v["event"] == "watch-start"
                && v["resource"].as_str().is_some_and(|r| {
                    r.starts_with("OpenAPI-Generator/") && r.ends_with("/pods@default")
                })
        })
        .await;
    let stream = watch_start["resource"].as_str().unwrap().to_owned();
    assert_eq!(watch_start["rv"], listed["rv"]);
    bed.server.create_object(pod("p1")).unwrap();
    printed
        .wait("the client's ADDED p1", |v| {
            v["event"] == "watch" && v["key"] == "default/p1"
        })
        .await;
    bed.inject_410().await;
    printed
        .wait("the client's 410", |v| v["event"] == "expired")
        .await;
    let relist = bed
        .traced(&stream, "relist", |v| v["reason"] == "410 Expired")
        .await;
    let relisted = printed
        .wait("the client's relist", |v| {
            v["event"] == "listed" && v["rv"] != listed["rv"]
        })
        .await;
    bed.traced(&stream, "list-done", |v| v["rv"] == relisted["rv"])
        .await;
    bed.server.create_object(pod("p2")).unwrap();
    printed
        .wait("the client's ADDED p2", |v| {
            v["event"] == "watch" && v["key"] == "default/p2"
        })
        .await;
    std::fs::write(&stop_file, b"").unwrap();
    let cache = printed
        .wait("the client's cache", |v| v["event"] == "cache")
        .await;
    let _ = tokio::time::timeout(DEADLINE, client.wait()).await;
    let server = server_pods(&bed.server);
    let (lines, _, record, _dir) = bed.stop().await;
    let client_cache: BTreeMap<String, String> =
        serde_json::from_value(cache["objects"].clone()).unwrap();
    assert_eq!(client_cache, server, "the client's cache is the server's");
    assert_eq!(stream_summary(&lines, &stream)["relists"], 1);
    assert!(relist["seq"].as_u64() > watch_start["seq"].as_u64());
    let (replayed, _) = replay(&record, &stream, &["--watch-list=false"]).await;
    assert_eq!(replayed, server, "the replay's cache is the server's");
}

/// A client of `config` without kube's transparent retry of 429/503/504 (as the CLI's own):
/// a throttle reaches whoever asked.
fn no_retry(mut config: kube::Config) -> kube::Client {
    config.default_retry = false;
    kube::Client::try_from(config).unwrap()
}

/// The proxy in-process (the library), in front of a plain embedded server.
async fn in_process(server: &EmbeddedServer) -> kinformer::proxy::Proxy {
    kinformer::proxy::Proxy::start(kinformer::proxy::ProxyConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        token: Some("proxy-token".into()),
        upstream: no_retry(server.kube_config()),
        tracer: kinformer::informer::trace::Tracer::counting_only(),
        record: None,
        on_upstream: None,
    })
    .await
    .unwrap()
}

/// One request through `client`: its status code and `Status` reason.
async fn status_of(client: &kube::Client, request: http::Request<Vec<u8>>) -> (u16, String) {
    match client.request_text(request).await {
        Ok(_) => (200, String::new()),
        Err(kube::Error::Api(status)) => (status.code, status.reason.clone()),
        Err(e) => panic!("not a Status: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_and_a_gone_upstream_get_a_status() {
    let server = EmbeddedServer::start(ServerConfig::default())
        .await
        .unwrap();
    let proxy = in_process(&server).await;
    let mut anonymous = proxy.kube_config();
    anonymous.auth_info = Default::default();
    let anonymous = kube::Client::try_from(anonymous).unwrap();
    let get = || http::Request::get("/api/v1/pods").body(Vec::new()).unwrap();
    assert_eq!(
        status_of(&anonymous, get()).await,
        (401, "Unauthorized".into())
    );
    let mut wrong = proxy.kube_config();
    wrong.auth_info.token = Some("the upstream's? no".to_owned().into());
    let wrong = kube::Client::try_from(wrong).unwrap();
    assert_eq!(status_of(&wrong, get()).await.0, 401);
    let client = no_retry(proxy.kube_config());
    assert_eq!(status_of(&client, get()).await.0, 200);
    let huge = http::Request::post("/api/v1/namespaces/default/configmaps")
        .header("content-type", "application/json")
        .body(vec![b' '; 17 * 1024 * 1024])
        .unwrap();
    assert_eq!(
        status_of(&client, huge).await,
        (413, "RequestEntityTooLarge".into())
    );
    let garbage = http::Request::post("/api/v1/namespaces/default/configmaps")
        .header("content-type", "application/json")
        .body(b"{not json".to_vec())
        .unwrap();
    assert_eq!(
        status_of(&client, garbage).await.0,
        400,
        "the server's own answer, relayed"
    );
    // A throttled LIST comes back as the server answered it: code, Retry-After, Status.
    let throttle = json!({"fault": "fail-requests", "count": 1, "status": 429,
        "retryAfterSeconds": 2, "path": "/configmaps"});
    let fault = http::Request::post("/kinformer/v1/faults")
        .body(throttle.to_string().into_bytes())
        .unwrap();
    client.request_text(fault).await.unwrap();
    let list = http::Request::get("/api/v1/namespaces/default/configmaps")
        .body(kube::client::Body::empty())
        .unwrap();
    let throttled = client.send(list).await.unwrap();
    assert_eq!(throttled.status(), 429);
    assert_eq!(throttled.headers()["retry-after"], "2");
    let body = throttled.into_body().collect_bytes().await.unwrap();
    let status: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status["kind"].as_str(), status["code"].as_u64()),
        (Some("Status"), Some(429))
    );
    server.shutdown().await;
    assert_eq!(status_of(&client, get()).await, (502, "BadGateway".into()));
    let stopped = proxy.shutdown().await;
    let total = &stopped.summaries[0];
    // The refused requests never reached the upstream: three LISTs, the throttled one and the
    // unreachable one failed.
    assert_eq!((total.lists, total.errors), (3, 2), "{total:?}");
}
