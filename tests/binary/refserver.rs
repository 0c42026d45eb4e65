//! kinformer against the real kube-apiserver (the reference server, `scripts/refserver`): the
//! commands a user runs against a cluster — `dump`, `watch`, `resync` — on pods, deployments,
//! a CRD's objects, metadata only, with label and field selectors, watch-list with the server's
//! own `initial-events-end` bookmark, LIST paging, real bookmarks and a real 410; and
//! `kinformer proxy` in front of it with the Python client, kube-runtime, `kubectl get -w`
//! (server-side printing) and a protobuf client, each stream replayed to the server's state.
//! Each test works in a namespace of its own on the shared server (or a dedicated one).

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::binary::{DEADLINE, kinformer, parse_jsonl, run};
use crate::refserver_fixture::RefServer;

/// `kinformer ARGS` against `server`.
fn real(server: &RefServer, args: &[&str]) -> tokio::process::Command {
    let mut c = kinformer(args);
    c.arg("--kubeconfig").arg(server.kubeconfig());
    c
}

/// `n` ConfigMaps `cm-0`… in `ns`, labelled `app=web` for even and `app=db` for odd `i`.
fn configmaps(ns: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            let app = if i % 2 == 0 { "web" } else { "db" };
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: {ns}\n  \
                 labels:\n    app: {app}\ndata:\n  i: \"{i}\"\n---\n"
            )
        })
        .collect()
}

/// The `metadata.name` of every item of a `dump -o json`, sorted.
fn dumped_names(stdout: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let mut names: Vec<String> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| o["metadata"]["name"].as_str().expect("a name").to_owned())
        .collect();
    names.sort();
    names
}

/// kubectl's names of `resource` in `ns` (`kubectl get -o name`, the prefix cut), sorted.
fn kubectl_names(server: &RefServer, resource: &str, ns: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["get", resource, "-n", ns, "-o", "name"];
    args.extend(extra);
    let mut names: Vec<String> = server
        .kubectl(&args)
        .lines()
        .map(|l| l.rsplit('/').next().unwrap_or(l).to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn dump_holds_what_kubectl_lists_with_and_without_selectors() {
    let server = RefServer::shared();
    let ns = server.namespace("dump");
    server.apply(&configmaps(&ns, 5));
    let all = run(real(
        &server,
        &["dump", "configmaps", "-n", &ns, "-o", "json"],
    ))
    .await;
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert_eq!(
        dumped_names(&all.stdout),
        kubectl_names(&server, "configmaps", &ns, &[])
    );

    let web = run(real(
        &server,
        &["dump", "cm", "-n", &ns, "-l", "app=web", "-o", "json"],
    ))
    .await;
    assert_eq!(web.code, 0, "{}", web.stderr);
    assert_eq!(dumped_names(&web.stdout), ["cm-0", "cm-2", "cm-4"]);

    let one = run(real(
        &server,
        &[
            "dump",
            "configmaps",
            "-n",
            &ns,
            "--field-selector",
            "metadata.name=cm-3",
            "-o",
            "json",
        ],
    ))
    .await;
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(dumped_names(&one.stdout), ["cm-3"]);
}

#[tokio::test]
async fn dump_of_deployments_metadata_only_has_no_spec() {
    let server = RefServer::shared();
    let ns = server.namespace("meta");
    server.kubectl(&["create", "deployment", "web", "--image=nginx", "-n", &ns]);
    let full = run(real(&server, &["dump", "deploy", "-n", &ns, "-o", "json"])).await;
    assert_eq!(full.code, 0, "{}", full.stderr);
    let full: Value = serde_json::from_str(&full.stdout).unwrap();
    assert_eq!(full["items"][0]["spec"]["replicas"], 1, "{full}");

    let meta = run(real(
        &server,
        &[
            "dump",
            "deployments.apps",
            "-n",
            &ns,
            "--metadata-only",
            "-o",
            "json",
        ],
    ))
    .await;
    assert_eq!(meta.code, 0, "{}", meta.stderr);
    let meta: Value = serde_json::from_str(&meta.stdout).unwrap();
    let item = &meta["items"][0];
    assert_eq!(item["metadata"]["name"], "web", "{meta}");
    assert!(item.get("spec").is_none(), "metadata only: {item}");
    assert_eq!(item["kind"], "PartialObjectMetadata", "{item}");
}

#[tokio::test]
async fn a_crd_and_its_objects_are_dumped_by_every_kubectl_name() {
    let server = RefServer::shared();
    let ns = server.namespace("crd");
    server.apply(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    \
         plural: widgets\n    singular: widget\n    shortNames: [wd]\n  scope: Namespaced\n  \
         versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      \
         openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: \
         true\n",
    );
    server.kubectl(&[
        "wait",
        "--for=condition=Established",
        "crd/widgets.example.com",
        "--timeout=60s",
    ]);
    let widgets: String = ["a", "b"]
        .iter()
        .map(|n| {
            format!(
                "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {n}\n  namespace: \
                 {ns}\nspec:\n  size: 3\n---\n"
            )
        })
        .collect();
    server.apply(&widgets);
    for name in ["widgets", "widget", "wd", "widgets.example.com", "Widget"] {
        let r = run(real(&server, &["dump", name, "-n", &ns, "-o", "json"])).await;
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert_eq!(dumped_names(&r.stdout), ["a", "b"], "{name}");
    }
}

/// `kinformer watch cm -n NS -o jsonl --show all EXTRA` against `server`, read as it comes.
fn watching(server: &RefServer, ns: &str, extra: &[&str]) -> Streaming {
    let mut args = vec!["watch", "cm", "-n", ns, "-o", "jsonl", "--show", "all"];
    args.extend(extra);
    Streaming::spawn(real(server, &args))
}

/// A `kinformer` child whose JSONL stdout is read line by line as it comes.
pub(crate) struct Streaming {
    child: tokio::process::Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    seen: Vec<Value>,
}

impl Streaming {
    fn spawn(mut c: tokio::process::Command) -> Self {
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kinformer starts");
        let stdout = child.stdout.take().expect("stdout");
        Self {
            child,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
        }
    }

    /// Reads lines until one satisfies `done`; panics at the deadline or at the end of output.
    pub(crate) async fn until(&mut self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        self.until_within(DEADLINE, what, done).await
    }

    /// [`Self::until`] with a deadline of its own.
    async fn until_within(
        &mut self,
        deadline: Duration,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let read = async {
            while let Some(line) = self.lines.next_line().await.expect("stdout reads") {
                let v: Value = serde_json::from_str(&line).expect("a JSON line");
                self.seen.push(v.clone());
                if done(&v) {
                    return Some(v);
                }
            }
            None
        };
        match tokio::time::timeout(deadline, read).await {
            Ok(Some(v)) => v,
            outcome => panic!(
                "no {what} ({}): {:#?}",
                if outcome.is_err() {
                    "deadline"
                } else {
                    "output ended"
                },
                self.seen
            ),
        }
    }
}

pub(crate) fn is(v: &Value, stage: &str, event: &str) -> bool {
    v["stage"] == stage && v["event"] == event
}

#[tokio::test]
async fn watch_streams_the_initial_list_and_sees_each_later_write() {
    let server = RefServer::shared();
    let ns = server.namespace("watch");
    server.apply(&configmaps(&ns, 2));
    let mut watch = watching(
        &server,
        &ns,
        &["--handler", "a", "--handler", "b", "--timeout", "60s"],
    );
    // client-go 1.37 streams the initial list (WatchListClient), and kube-apiserver ends it
    // with a bookmark annotated k8s.io/initial-events-end (reflector.go v0.37:361-368).
    let start = watch
        .until("the first request", |v| {
            is(v, "reflector", "list-start") || is(v, "reflector", "watch-start")
        })
        .await;
    // client-go's watch-list request: RV "" (NotOlderThan, sendInitialEvents=true).
    assert_eq!(
        (
            &start["event"],
            &start["watch_list"],
            &start["rv"],
            &start["rv_match"]
        ),
        (
            &"list-start".into(),
            &true.into(),
            &"".into(),
            &"NotOlderThan".into()
        ),
        "a watch-list: {start}"
    );
    let end = watch
        .until("the initial-events-end bookmark", |v| {
            is(v, "reflector", "bookmark") && v["initial_events_end"] == true
        })
        .await;
    let synced = watch.until("synced", |v| is(v, "informer", "synced")).await;
    assert_eq!(synced["objects"], 2, "{synced}");
    assert_eq!(
        synced["store_rv"], end["rv"],
        "the cache is at the bookmark's RV"
    );
    server.kubectl(&[
        "create",
        "configmap",
        "late",
        "-n",
        &ns,
        "--from-literal=k=v",
    ]);
    for handler in ["a", "b"] {
        let add = watch
            .until("the late add", |v| {
                is(v, "handler", "notify")
                    && v["key"] == format!("{ns}/late")
                    && v["handler"] == handler
            })
            .await;
        assert_eq!(
            (&add["kind"], &add["initial"]),
            (&"add".into(), &false.into())
        );
    }
    server.kubectl(&["delete", "configmap", "late", "-n", &ns]);
    watch
        .until("the delete", |v| {
            is(v, "handler", "notify") && v["kind"] == "delete" && v["key"] == format!("{ns}/late")
        })
        .await;
    assert!(
        !watch.seen.iter().any(|v| is(v, "reflector", "relist")),
        "no relist on a healthy server: {:#?}",
        watch.seen
    );
    watch.child.kill().await.expect("kinformer stops");
}

#[tokio::test]
async fn a_list_without_watch_list_pages_with_continue_tokens() {
    let server = RefServer::shared();
    let ns = server.namespace("paging");
    server.apply(&configmaps(&ns, 7));
    // --page-size 3 on a LIST at RV "0": kube-apiserver's watch cache serves RV="0" whole
    // (it ignores limit there), so client-go's pager gets one page; at RV "" (a consistent
    // read, --watch-list=false after... ) it pages. kinformer must show exactly what the
    // server did, and end with every object either way.
    let r = run(real(
        &server,
        &[
            "watch",
            "cm",
            "-n",
            &ns,
            "--watch-list=false",
            "--page-size",
            "3",
            "-o",
            "jsonl",
            "--show",
            "all",
            "--until-synced",
        ],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    let start = lines
        .iter()
        .find(|v| is(v, "reflector", "list-start"))
        .expect("a LIST");
    assert_eq!(
        (&start["rv"], &start["limit"]),
        (&"0".into(), &3.into()),
        "{start}"
    );
    let done = lines
        .iter()
        .find(|v| is(v, "reflector", "list-done"))
        .expect("list-done");
    assert_eq!(done["items"], 7, "{done}");
    let pages: Vec<&Value> = lines
        .iter()
        .filter(|v| is(v, "reflector", "list-page"))
        .collect();
    assert_eq!(pages.len() as u64, done["pages"].as_u64().unwrap());
    for (i, page) in pages.iter().enumerate() {
        assert_eq!(page["more"], i + 1 < pages.len(), "{page}");
    }
}

#[tokio::test]
async fn resync_shows_each_handlers_ticks_against_the_real_server() {
    let server = RefServer::shared();
    let ns = server.namespace("resync");
    server.apply(&configmaps(&ns, 3));
    let r = run(real(
        &server,
        &[
            "resync",
            "configmaps",
            "-n",
            &ns,
            "--resync",
            "1s",
            "--handler",
            "a",
            "--handler",
            "b:resync=0s",
            "--timeout",
            "3500ms",
            "-o",
            "jsonl",
        ],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    let end = |h: &str| {
        lines
            .iter()
            .find(|v| v["event"] == "schedule" && v["phase"] == "end" && v["handler"] == h)
            .unwrap_or_else(|| panic!("no end schedule for {h}: {}", r.stdout))
            .clone()
    };
    let (a, b) = (end("a"), end("b"));
    assert!(a["ticks_due"].as_u64().unwrap() >= 2, "{a}");
    assert_eq!(b["ticks_due"], 0, "{b}");
}

#[tokio::test]
async fn the_real_server_sends_bookmarks_kinformer_takes_without_a_delta() {
    let server = RefServer::shared();
    let ns = server.namespace("bookmarks");
    server.apply(&configmaps(&ns, 1));
    let mut watch = watching(&server, &ns, &["--watch-list=false", "--timeout", "120s"]);
    watch.until("synced", |v| is(v, "informer", "synced")).await;
    // kube-apiserver's watch cache sends a watch that allows bookmarks one about every
    // minute (cacher.go's bookmarkFrequency), carrying the cache's newest resourceVersion.
    let bookmark = watch
        .until_within(Duration::from_secs(150), "a bookmark", |v| {
            is(v, "reflector", "bookmark")
        })
        .await;
    assert_eq!(bookmark["initial_events_end"], false, "{bookmark}");
    let after = watch
        .seen
        .iter()
        .skip_while(|v| !is(v, "reflector", "bookmark"));
    assert!(
        !after.clone().any(|v| is(v, "fifo", "delta")),
        "a bookmark is no delta: {:#?}",
        watch.seen
    );
    watch.child.kill().await.expect("kinformer stops");
}

#[tokio::test]
async fn a_restarted_kube_apiserver_answers_the_old_watch_410_and_kinformer_relists() {
    let server = RefServer::dedicated("");
    let ns = server.namespace("restart");
    server.apply(&configmaps(&ns, 2));
    // A kube-apiserver still starting may take a watch and answer nothing (seen under load: the
    // re-watch then waited out the whole run); with a request timeout the client gives up on it
    // and re-watches, as a client-go controller with a timeout does.
    let mut watch = watching(
        &server,
        &ns,
        &[
            "--handler",
            "a",
            "--retry-timeout",
            "120s",
            "--timeout",
            "120s",
            "--request-timeout",
            "20s",
        ],
    );
    let synced = watch.until("synced", |v| is(v, "informer", "synced")).await;
    // Writes elsewhere move etcd's revision past the watch's resourceVersion; the restarted
    // server's watch cache starts there, so the re-watch from the old resourceVersion is too
    // old for it.
    let other = server.namespace("restart-other");
    server.apply(&configmaps(&other, 3));
    server.restart();
    let expired = watch
        .until("the 410", |v| {
            (is(v, "reflector", "watch-error") || is(v, "reflector", "list-error"))
                && v["code"] == 410
        })
        .await;
    let relist = watch
        .until("the relist", |v| is(v, "reflector", "relist"))
        .await;
    assert_eq!(relist["reason"], "410 Expired", "{relist} after {expired}");
    let done = watch
        .until("the relist's list", |v| is(v, "reflector", "list-done"))
        .await;
    assert_ne!(done["rv"], synced["store_rv"], "{done}");
    let syncs: Vec<&Value> = watch
        .seen
        .iter()
        .filter(|v| is(v, "handler", "notify") && v["sync"] == true)
        .collect();
    assert!(syncs.is_empty(), "unchanged objects are no sync: {syncs:?}");
    watch.child.kill().await.expect("kinformer stops");
}

/// A pod `name` in `ns` (never scheduled: the reference server runs no scheduler).
fn pod_yaml(ns: &str, name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  \
         containers:\n  - name: c\n    image: nginx\n"
    )
}

/// `KEY -> resourceVersion` of the pods in `ns`, as kubectl reads them from the server.
fn server_pods(server: &RefServer, ns: &str) -> std::collections::BTreeMap<String, String> {
    server_objects(server, "pods", ns)
}

/// `KEY -> resourceVersion` of the `resource` objects in `ns`, as kubectl reads them.
fn server_objects(
    server: &RefServer,
    resource: &str,
    ns: &str,
) -> std::collections::BTreeMap<String, String> {
    let list: Value =
        serde_json::from_str(&server.kubectl(&["get", resource, "-n", ns, "-o", "json"]))
            .expect("kubectl's JSON");
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|p| {
            let m = &p["metadata"];
            (
                format!("{ns}/{}", m["name"].as_str().expect("a name")),
                m["resourceVersion"].as_str().expect("an RV").to_owned(),
            )
        })
        .collect()
}

/// `kinformer proxy` in front of `server`, writing its kubeconfig to `proxied` and its
/// recording to `record`; returned once the kubeconfig is there.
pub(crate) async fn proxy_in_front_of(
    server: &RefServer,
    proxied: &std::path::Path,
    record: &std::path::Path,
) -> Streaming {
    let mut proxy = kinformer(&["proxy", "-o", "jsonl", "--show", "all"]);
    proxy
        .arg("--kubeconfig")
        .arg(server.kubeconfig())
        .arg("--kubeconfig-out")
        .arg(proxied)
        .arg("--record")
        .arg(record);
    let trace = Streaming::spawn(proxy);
    let deadline = std::time::Instant::now() + DEADLINE;
    while !proxied.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the proxy wrote no kubeconfig"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    trace
}

/// Ctrl-C to the proxy, and its exit (130, as documented).
pub(crate) async fn stop_proxy(trace: &mut Streaming) {
    let pid = trace.child.id().expect("the proxy runs").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = tokio::time::timeout(DEADLINE, trace.child.wait())
        .await
        .expect("the proxy stops")
        .expect("its status");
    assert_eq!(status.code(), Some(130));
}

/// The cache (`KEY -> resourceVersion`) `kinformer replay` of `stream` in `record` ends with.
async fn replayed_cache(
    record: &std::path::Path,
    stream: &str,
    extra: &[&str],
) -> std::collections::BTreeMap<String, String> {
    let mut replay = kinformer(&[
        "replay", "--clock", "virtual", "-o", "jsonl", "--show", "all",
    ]);
    replay.arg(record).arg("--stream").arg(stream).args(extra);
    let replayed = run(replay).await;
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    let mut cache = std::collections::BTreeMap::new();
    for v in parse_jsonl(&replayed.stdout)
        .iter()
        .filter(|v| v["stage"] == "indexer")
    {
        let key = v["key"].as_str().expect("a key").to_owned();
        if v["event"] == "delete" {
            cache.remove(&key);
        } else {
            cache.insert(key, v["rv"].as_str().expect("an rv").to_owned());
        }
    }
    cache
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_in_front_of_kube_apiserver_traces_real_clients_and_replays_them() {
    use futures_util::StreamExt;
    use kube::runtime::watcher;

    // Watches served from etcd, compacted every second: a client re-watching from a
    // resourceVersion that writes elsewhere have left behind gets a real 410.
    let server = RefServer::dedicated("--watch-cache=false --etcd-compaction-interval=1s");
    let ns = server.namespace("proxy");
    server.apply(&pod_yaml(&ns, "p-a"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record, stop) = (
        dir.path().join("proxy"),
        dir.path().join("record.jsonl"),
        dir.path().join("stop"),
    );
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;

    // The Python client (LIST, WATCH with 3 s timeouts, relist on 410) through the proxy.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/binary/proxy_clients/python_informer.py"
    );
    let mut python = tokio::process::Command::new("python3")
        .arg(script)
        .arg(&proxied)
        .arg(server.kubeconfig())
        .arg(&ns)
        .arg(&stop)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3 with the kubernetes package (scripts/test installs it)");
    let python_out = python.stdout.take().expect("stdout");
    let python_lines = tokio::spawn(async move {
        let mut lines = BufReader::new(python_out).lines();
        let mut all = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            all.push(serde_json::from_str::<Value>(&line).expect("a JSON line"));
        }
        all
    });
    // kube-runtime's watcher on ConfigMaps through the proxy.
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&proxied).expect("the proxy's kubeconfig"),
        &Default::default(),
    )
    .await
    .expect("a config");
    let client = kube::Client::try_from(config).expect("a client");
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = kube::Api::namespaced(client, &ns);
    let mut runtime = watcher(api, watcher::Config::default()).boxed();

    let python_stream = trace
        .until("the Python client's watch", |v| {
            is(v, "reflector", "watch-start")
                && v["resource"].as_str().is_some_and(|r| {
                    r.starts_with("OpenAPI-Generator/") && r.ends_with(&format!("/pods@{ns}"))
                })
        })
        .await["resource"]
        .as_str()
        .expect("a stream")
        .to_owned();
    server.kubectl(&["create", "configmap", "seen", "-n", &ns]);
    let seen = tokio::time::timeout(DEADLINE, async {
        while let Some(event) = runtime.next().await {
            if let Ok(watcher::Event::Apply(cm) | watcher::Event::InitApply(cm)) = event
                && cm.metadata.name.as_deref() == Some("seen")
            {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(seen, Ok(true), "kube-runtime's watcher saw the ConfigMap");
    let runtime_stream = trace
        .until("kube-runtime's stream", |v| {
            v["resource"]
                .as_str()
                .is_some_and(|r| r.contains(&format!("configmaps@{ns}")))
        })
        .await["resource"]
        .as_str()
        .expect("a stream")
        .to_owned();

    server.apply(&pod_yaml(&ns, "p-b"));
    trace
        .until("p-b on the Python stream", |v| {
            is(v, "reflector", "watch-event")
                && v["resource"] == python_stream
                && v["key"] == format!("{ns}/p-b")
        })
        .await;
    // Writes elsewhere move etcd's revision on and compaction passes the Python client's
    // resourceVersion: its next re-watch (every 3 s) is answered 410, and it relists.
    let other = server.namespace("proxy-other");
    server.apply(&configmaps(&other, 2));
    let relist = trace
        .until("the Python client's relist", |v| {
            is(v, "reflector", "relist") && v["resource"] == python_stream
        })
        .await;
    assert_eq!(relist["reason"], "410 Expired", "{relist}");
    server.apply(&pod_yaml(&ns, "p-c"));
    trace
        .until("p-c on the Python stream", |v| {
            is(v, "reflector", "watch-event")
                && v["resource"] == python_stream
                && v["key"] == format!("{ns}/p-c")
        })
        .await;
    std::fs::write(&stop, b"").expect("the stop file");
    let printed = tokio::time::timeout(DEADLINE, python_lines)
        .await
        .expect("the Python client stops")
        .expect("its output");
    let cache = printed
        .iter()
        .find(|v| v["event"] == "cache")
        .unwrap_or_else(|| panic!("no cache line: {printed:?}"));
    let expected = server_pods(&server, &ns);
    let cache: std::collections::BTreeMap<String, String> =
        serde_json::from_value(cache["objects"].clone()).expect("key -> rv");
    assert_eq!(cache, expected, "the Python client's cache is the server's");

    // A last ConfigMap, seen by kube-runtime's watcher before the recording ends (on its watch,
    // or on the relist after a 410 once compaction passed its resourceVersion).
    let last_rv: u64 = server
        .kubectl(&[
            "create",
            "configmap",
            "last",
            "-n",
            &ns,
            "-o",
            "jsonpath={.metadata.resourceVersion}",
        ])
        .trim()
        .parse()
        .expect("the last ConfigMap's resourceVersion");
    let last = tokio::time::timeout(DEADLINE, async {
        while let Some(event) = runtime.next().await {
            if let Ok(watcher::Event::Apply(cm) | watcher::Event::InitApply(cm)) = event
                && cm.metadata.name.as_deref() == Some("last")
            {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(
        last,
        Ok(true),
        "kube-runtime's watcher saw the last ConfigMap"
    );
    trace
        .until("the last ConfigMap on kube-runtime's stream", |v| {
            let listed_since = is(v, "reflector", "list-done")
                && v["rv"]
                    .as_str()
                    .and_then(|rv| rv.parse::<u64>().ok())
                    .is_some_and(|rv| rv >= last_rv);
            let watched = is(v, "reflector", "watch-event") && v["key"] == format!("{ns}/last");
            v["resource"] == runtime_stream && (listed_since || watched)
        })
        .await;
    drop(runtime);
    let configmaps = server_objects(&server, "configmaps", &ns);
    assert!(
        configmaps.contains_key(&format!("{ns}/last")),
        "{configmaps:?}"
    );

    stop_proxy(&mut trace).await;

    // The recording replays to the same caches: each client's stream, as the proxy saw it.
    assert_eq!(
        replayed_cache(&record, &python_stream, &["--watch-list=false"]).await,
        expected,
        "the replay of the Python client's stream ends with the server's pods"
    );
    assert_eq!(
        replayed_cache(&record, &runtime_stream, &["--watch-list=false"]).await,
        configmaps,
        "the replay of kube-runtime's stream ends with the server's ConfigMaps"
    );
}

#[tokio::test]
async fn pods_leave_a_field_selected_watch_when_their_phase_changes_and_dump_agrees() {
    let server = RefServer::shared();
    let ns = server.namespace("pods");
    server.apply(&format!(
        "{}---\n{}",
        pod_yaml(&ns, "p-0"),
        pod_yaml(&ns, "p-1")
    ));
    let mut watch = Streaming::spawn(real(
        &server,
        &[
            "watch",
            "pods",
            "-n",
            &ns,
            "-o",
            "jsonl",
            "--show",
            "all",
            "--field-selector",
            "status.phase=Pending",
            "--timeout",
            "60s",
        ],
    ));
    let synced = watch.until("synced", |v| is(v, "informer", "synced")).await;
    assert_eq!(synced["objects"], 2, "both pods are Pending: {synced}");

    // No kubelet runs: the phase changes only because a client writes the status subresource.
    // kube-apiserver then sends the watch a DELETED for p-0 (it left the field selector).
    server.kubectl(&[
        "patch",
        "pod",
        "p-0",
        "-n",
        &ns,
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"phase":"Running"}}"#,
    ]);
    let left = watch
        .until("p-0 leaving the selector", |v| {
            is(v, "handler", "notify") && v["key"] == format!("{ns}/p-0")
        })
        .await;
    assert_eq!(left["kind"], "delete", "{left}");

    server.kubectl(&[
        "delete",
        "pod",
        "p-1",
        "-n",
        &ns,
        "--grace-period=0",
        "--force",
    ]);
    watch
        .until("p-1's delete", |v| {
            is(v, "handler", "notify") && v["kind"] == "delete" && v["key"] == format!("{ns}/p-1")
        })
        .await;
    watch.child.kill().await.expect("kinformer stops");

    let dumped = run(real(
        &server,
        &[
            "dump",
            "pods",
            "-n",
            &ns,
            "-o",
            "json",
            "--field-selector",
            "status.phase=Running",
        ],
    ))
    .await;
    assert_eq!(dumped.code, 0, "{}", dumped.stderr);
    assert_eq!(
        dumped_names(&dumped.stdout),
        kubectl_names(
            &server,
            "pods",
            &ns,
            &["--field-selector", "status.phase=Running"]
        ),
    );
    assert_eq!(dumped_names(&dumped.stdout), ["p-0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_watch_through_the_proxy_in_front_of_kube_apiserver_replays_to_its_pods() {
    let server = RefServer::shared();
    let ns = server.namespace("proxy-kubectl");
    server.apply(&pod_yaml(&ns, "p-a"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record) = (dir.path().join("proxy"), dir.path().join("record.jsonl"));
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;
    // `kubectl get -w` as a person types it: server-side printing (a Table per event).
    let mut kubectl = tokio::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&proxied)
        .args(["get", "pods", "-n", &ns, "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("kubectl (scripts/test installs it)");
    let stream = format!("kubectl/pods@{ns}");
    let listed = trace
        .until("kubectl's LIST", |v| {
            is(v, "reflector", "list-done") && v["resource"] == stream
        })
        .await;
    assert_eq!(listed["items"], 1, "{listed}");
    let started = trace
        .until("kubectl's watch", |v| {
            is(v, "reflector", "watch-start") && v["resource"] == stream
        })
        .await;
    assert_eq!(
        started["rv"], listed["rv"],
        "kubectl watches from its list's RV"
    );

    server.apply(&pod_yaml(&ns, "p-b"));
    trace
        .until("p-b's ADDED on kubectl's stream", |v| {
            is(v, "reflector", "watch-event")
                && v["resource"] == stream
                && v["type"] == "ADDED"
                && v["key"] == format!("{ns}/p-b")
        })
        .await;
    server.kubectl(&[
        "delete",
        "pod",
        "p-a",
        "-n",
        &ns,
        "--grace-period=0",
        "--force",
    ]);
    trace
        .until("p-a's DELETED on kubectl's stream", |v| {
            is(v, "reflector", "watch-event")
                && v["resource"] == stream
                && v["type"] == "DELETED"
                && v["key"] == format!("{ns}/p-a")
        })
        .await;
    let expected = server_pods(&server, &ns);
    kubectl.kill().await.expect("kubectl stops");
    let printed = kubectl.wait_with_output().await.expect("kubectl's output");
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed
            .lines()
            .next()
            .is_some_and(|h| h.starts_with("NAME") && h.contains("STATUS")),
        "kubectl printed the server's columns: {printed}"
    );
    assert!(printed.contains("p-b"), "{printed}");

    stop_proxy(&mut trace).await;

    assert_eq!(
        replayed_cache(&record, &stream, &[]).await,
        expected,
        "replaying kubectl's stream ends with the server's pods"
    );
}

/// `GET path` through `client` asking for protobuf, as a Go controller's typed informer does.
fn protobuf_get(path: &str) -> http::Request<kube::client::Body> {
    http::Request::get(path)
        .header(http::header::ACCEPT, "application/vnd.kubernetes.protobuf")
        .header(http::header::USER_AGENT, "protobuf-client/1.0")
        .body(kube::client::Body::empty())
        .expect("a request")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protobuf_list_and_watch_through_the_proxy_are_traced_and_replay_to_the_servers_pods() {
    use http_body_util::BodyExt;

    let server = RefServer::shared();
    let ns = server.namespace("proxy-protobuf");
    server.apply(&pod_yaml(&ns, "p-a"));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record) = (dir.path().join("proxy"), dir.path().join("record.jsonl"));
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&proxied).expect("the proxy's kubeconfig"),
        &Default::default(),
    )
    .await
    .expect("a config");
    let client = kube::Client::try_from(config).expect("a client");
    let stream = format!("protobuf-client/pods@{ns}");

    let listed = client
        .send(protobuf_get(&format!("/api/v1/namespaces/{ns}/pods")))
        .await
        .expect("the LIST");
    assert_eq!(
        listed.headers()[http::header::CONTENT_TYPE],
        "application/vnd.kubernetes.protobuf",
        "kube-apiserver answered protobuf"
    );
    listed.into_body().collect().await.expect("the LIST's body");
    let list_done = trace
        .until("the protobuf LIST", |v| {
            is(v, "reflector", "list-done") && v["resource"] == stream
        })
        .await;
    assert_eq!(list_done["items"], 1, "{list_done}");
    let rv = list_done["rv"].as_str().expect("the list's RV").to_owned();

    let watch = client
        .send(protobuf_get(&format!(
            "/api/v1/namespaces/{ns}/pods?watch=1&resourceVersion={rv}&timeoutSeconds=5"
        )))
        .await
        .expect("the WATCH");
    let watched =
        tokio::spawn(async move { watch.into_body().collect().await.map(|b| b.to_bytes()) });
    trace
        .until("the protobuf watch", |v| {
            is(v, "reflector", "watch-start") && v["resource"] == stream
        })
        .await;
    server.apply(&pod_yaml(&ns, "p-b"));
    let added = trace
        .until("p-b's ADDED, decoded from protobuf", |v| {
            is(v, "reflector", "watch-event")
                && v["resource"] == stream
                && v["key"] == format!("{ns}/p-b")
        })
        .await;
    assert_eq!(added["type"], "ADDED", "{added}");
    let body = tokio::time::timeout(DEADLINE, watched)
        .await
        .expect("the watch ends at its timeoutSeconds")
        .expect("the task")
        .expect("the watch's body");
    assert!(
        !body.is_empty(),
        "the client got the protobuf frames untouched"
    );
    let expected = server_pods(&server, &ns);

    stop_proxy(&mut trace).await;

    assert_eq!(
        replayed_cache(&record, &stream, &[]).await,
        expected,
        "replaying the protobuf stream ends with the server's pods"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinformer_resolves_names_from_the_two_aggregated_discovery_documents() {
    let server = RefServer::shared();
    let ns = server.namespace("discovery");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record) = (dir.path().join("proxy"), dir.path().join("record.jsonl"));
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;
    let mut dump = kinformer(&["dump", "deploy.apps", "-n", &ns, "-o", "json"]);
    dump.arg("--kubeconfig").arg(&proxied);
    let dumped = run(dump).await;
    assert_eq!(dumped.code, 0, "{}", dumped.stderr);
    trace
        .until("the deployments LIST", |v| {
            is(v, "reflector", "list-done")
                && v["resource"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("kinformer/"))
        })
        .await;
    stop_proxy(&mut trace).await;
    while let Ok(Some(line)) = trace.lines.next_line().await {
        trace
            .seen
            .push(serde_json::from_str(&line).expect("a JSON line"));
    }
    let discovery: Vec<&str> = trace
        .seen
        .iter()
        .filter(|v| {
            v["event"] == "request"
                && v["client"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("kinformer"))
        })
        .filter_map(|v| v["path"].as_str())
        .filter(|p| p.starts_with("/api"))
        .collect();
    assert_eq!(
        discovery,
        ["/api", "/apis"],
        "kube-apiserver's aggregated documents, no group walked one by one"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_go_itself_behind_the_proxy_in_front_of_kube_apiserver_replays_to_its_pods() {
    let server = RefServer::shared();
    let ns = server.namespace("proxy-client-go");
    server.apply(&format!(
        "{}---\n{}",
        pod_yaml(&ns, "p-a"),
        pod_yaml(&ns, "p-b")
    ));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record) = (dir.path().join("proxy"), dir.path().join("record.jsonl"));
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;
    // Real client-go 1.37's informer (the oracle's live mode), until its handler synced.
    let oracle = tokio::process::Command::new(crate::oracle_live::oracle("oracle-live.test"))
        .args(["-test.run", "TestLive", "-live", "pods", "-namespace", &ns])
        .args(["-timeout", "30s", "-handler", "fast", "-kubeconfig"])
        .arg(&proxied)
        .output();
    let oracle = tokio::time::timeout(DEADLINE, oracle)
        .await
        .expect("client-go syncs and stops")
        .expect("the live oracle runs");
    assert!(
        oracle.status.success(),
        "{}",
        String::from_utf8_lossy(&oracle.stderr)
    );
    let stream = format!("oracle-live.test/pods@{ns}");
    let synced = trace
        .until("client-go's initial events", |v| {
            v["resource"] == stream
                && (is(v, "reflector", "list-done")
                    || (is(v, "reflector", "bookmark") && v["initial_events_end"] == true))
        })
        .await;
    assert!(
        synced["event"] == "bookmark",
        "client-go 1.37 streams its list (watch-list) and kube-apiserver ends it: {synced}"
    );
    let expected = server_pods(&server, &ns);
    stop_proxy(&mut trace).await;
    assert_eq!(
        replayed_cache(&record, &stream, &[]).await,
        expected,
        "replaying client-go's stream ends with the server's pods"
    );
}
