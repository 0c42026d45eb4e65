//! kinformer against the real kube-apiserver (the reference server, `scripts/refserver`): the
//! commands a user runs against a cluster — `dump`, `watch`, `resync` — on pods, deployments,
//! a CRD's objects, metadata only, with label and field selectors, watch-list with the server's
//! own `initial-events-end` bookmark, LIST paging and real bookmarks. Each test works in a
//! namespace of its own on the shared server.

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

/// A `kinformer` child whose JSONL stdout is read line by line as it comes.
struct Streaming {
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
    async fn until(&mut self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
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

fn is(v: &Value, stage: &str, event: &str) -> bool {
    v["stage"] == stage && v["event"] == event
}

#[tokio::test]
async fn watch_streams_the_initial_list_and_sees_each_later_write() {
    let server = RefServer::shared();
    let ns = server.namespace("watch");
    server.apply(&configmaps(&ns, 2));
    let mut watch = Streaming::spawn(real(
        &server,
        &[
            "watch",
            "cm",
            "-n",
            &ns,
            "-o",
            "jsonl",
            "--show",
            "all",
            "--handler",
            "a",
            "--handler",
            "b",
            "--timeout",
            "60s",
        ],
    ));
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
    let mut watch = Streaming::spawn(real(
        &server,
        &[
            "watch",
            "cm",
            "-n",
            &ns,
            "--watch-list=false",
            "-o",
            "jsonl",
            "--show",
            "all",
            "--timeout",
            "120s",
        ],
    ));
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
