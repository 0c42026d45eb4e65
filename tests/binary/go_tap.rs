//! The Go tap inside a real client-go 1.37 program (go/tap/examples/informer, built by
//! `scripts/tap`; docs/debug-go-controller.md): against kube-apiserver (RBAC on: a user without
//! rules is denied by name) and the embedded server, the tap's trace agrees with the server's
//! writes, a slow handler's growing backlog is diagnosed, and `report` and `explain` read it.
//! The watch-list-without-bookmark diagnosis is tested in Go against client-go 1.37
//! (go/tap/examples/informer/main_test.go, run by `scripts/tap --test`): neither server here
//! can leave the bookmark out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::binary::{Cluster, DEADLINE, kinformer, parse_jsonl, run};
use crate::refserver_fixture::RefServer;

/// The example program `name`, built by scripts/tap next to the kinformer binary's target.
pub fn example(name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_kinformer"));
    let target = exe.parent().and_then(Path::parent).unwrap();
    let bin = target.join("tap").join(name);
    assert!(
        bin.is_file(),
        "the Go tap's example {} is missing: run scripts/tap (needs Go; CARGO_TARGET_DIR={})",
        bin.display(),
        target.display()
    );
    bin
}

/// The complete lines of the tap's file so far.
fn lines_of(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
    parse_jsonl(complete)
}

/// Runs the client-go example with `args` and `-tap-file FILE` until the tap's lines satisfy
/// `done`, then SIGTERM; returns every line once it exited 0 (the tap closed: its summary is
/// the last line).
async fn tapped(
    args: &[&str],
    file: &Path,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    tapped_example("informer", args, file, what, done).await
}

/// [`tapped`] for the example `name`.
async fn tapped_example(
    name: &str,
    args: &[&str],
    file: &Path,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let mut child = tokio::process::Command::new(example(name))
        .args(args)
        .arg("-tap-file")
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let waited = tokio::time::timeout(DEADLINE, async {
        loop {
            if done(&lines_of(file)) {
                return;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the example exited ({status}) before {what}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    if waited.is_err() {
        panic!("no {what} within {DEADLINE:?}: {:#?}", lines_of(file));
    }
    let pid = child.id().expect("running").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("the example ends after SIGTERM")
        .unwrap();
    assert!(
        out.status.success(),
        "the example failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = lines_of(file);
    assert_eq!(
        lines.last().map(|l| l["event"].clone()),
        Some("summary".into()),
        "the tap's summary ends the file"
    );
    lines
}

fn having<'a>(lines: &'a [Value], stage: &str, event: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|v| v["stage"] == stage && v["event"] == event)
        .collect()
}

/// `handler`'s add notifications as `key rv`.
fn adds(lines: &[Value], handler: &str) -> BTreeSet<String> {
    having(lines, "handler", "notify")
        .into_iter()
        .filter(|v| v["handler"] == handler && v["kind"] == "add")
        .map(|v| {
            format!(
                "{} {}",
                v["key"].as_str().unwrap(),
                v["rv"].as_str().unwrap()
            )
        })
        .collect()
}

/// The ConfigMaps of `ns` as `ns/name rv`, from `kubectl get -o json` output.
fn configmaps(list: &str, ns: &str) -> BTreeSet<String> {
    let list: Value = serde_json::from_str(list).expect("kubectl prints JSON");
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cm| {
            let m = &cm["metadata"];
            format!(
                "{ns}/{} {}",
                m["name"].as_str().unwrap(),
                m["resourceVersion"].as_str().unwrap()
            )
        })
        .collect()
}

/// `kubectl ARGS --kubeconfig K`'s stdout; panics with its stderr when it fails.
pub fn kubectl(kubeconfig: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("kubectl")
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .expect("kubectl runs (apt-get install kubernetes-client)");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("kubectl prints UTF-8")
}

/// A kubeconfig for the reference server's `viewer` user, who has no RBAC rules at all.
fn viewer_kubeconfig(server: &RefServer, dir: &Path) -> PathBuf {
    let admin = std::fs::read_to_string(server.kubeconfig()).expect("the admin kubeconfig");
    assert!(admin.contains("token: admin-token"), "{admin}");
    let path = dir.join("viewer.kubeconfig");
    std::fs::write(
        &path,
        admin.replace("token: admin-token", "token: viewer-token"),
    )
    .unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_rbac_rule_is_diagnosed_by_verb_and_resource_against_kube_apiserver() {
    let server = RefServer::shared();
    let ns = server.namespace("tap-rbac");
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = viewer_kubeconfig(&server, dir.path());
    let file = dir.path().join("tap.jsonl");
    let args = [
        "-kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-namespace",
        &ns,
    ];
    let lines = tapped(
        &[&args[..], &["-not-synced-after", "2s"]].concat(),
        &file,
        "not-synced diagnosis",
        |lines| !having(lines, "diagnosis", "not-synced").is_empty(),
    )
    .await;
    let diagnosis = having(&lines, "diagnosis", "not-synced")[0];
    assert_eq!(diagnosis["code"], 403, "{diagnosis}");
    assert_eq!(diagnosis["resource"], "configmaps", "{diagnosis}");
    // client-go 1.37 asks a watch-list first and falls back to a LIST when it fails
    // (reflector.go v0.37.2 ListAndWatchWithContext): either verb is the one denied last
    let verb = diagnosis["verb"].as_str().unwrap();
    assert!(["list", "watch"].contains(&verb), "{diagnosis}");
    let cause = diagnosis["cause"].as_str().unwrap();
    assert!(
        cause.contains(&format!(
            "lack verb \"{verb}\" on resource \"configmaps\" in namespace {ns}"
        )) && cause.contains("User \"viewer\" cannot"),
        "{cause}"
    );
    assert!(having(&lines, "informer", "synced").is_empty());
    let page = dir.path().join("page.html");
    let report = run(kinformer(&[
        "report",
        file.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(report.code, 0, "{}", report.stderr);
    let page = std::fs::read_to_string(page).unwrap();
    assert!(
        page.contains("not-synced") && page.contains("User \\\"viewer\\\" cannot"),
        "the diagnosis is on the page"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_handlers_growing_backlog_and_every_write_are_seen_from_inside_against_kube_apiserver()
 {
    let server = RefServer::shared();
    let ns = server.namespace("tap-slow");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tap.jsonl");
    let kubeconfig = server.kubeconfig();
    let created = 120;
    let args = [
        "-kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-namespace",
        &ns,
        "-create",
        "120",
        "-rate",
        "60",
        "-delay",
        "60ms",
        "-backlog-window",
        "300ms",
    ];
    let lines = tapped(
        &args,
        &file,
        "every create seen by fast and slow's backlog diagnosed",
        |lines| {
            adds(lines, "fast").len() == created
                && having(lines, "diagnosis", "backlog-growing")
                    .iter()
                    .any(|d| d["handler"] == "slow")
        },
    )
    .await;
    // What fast was told is what the server holds: every ConfigMap at its resourceVersion.
    let held = configmaps(
        &server.kubectl(&["get", "cm", "-n", &ns, "-o", "json"]),
        &ns,
    );
    assert_eq!(adds(&lines, "fast"), held);
    // The wire lines agree: every write came as a watch event at the same resourceVersion.
    let events: BTreeSet<String> = having(&lines, "reflector", "watch-event")
        .into_iter()
        .map(|v| {
            format!(
                "{} {}",
                v["key"].as_str().unwrap(),
                v["rv"].as_str().unwrap()
            )
        })
        .collect();
    assert!(events.is_superset(&held), "watch events {events:?}");
    let backlog = having(&lines, "diagnosis", "backlog-growing")
        .into_iter()
        .find(|d| d["handler"] == "slow")
        .unwrap();
    let (rate_in, rate_out) = (
        backlog["rate_in_per_s"].as_f64().unwrap(),
        backlog["rate_out_per_s"].as_f64().unwrap(),
    );
    assert!(
        rate_in > rate_out && backlog["pending"].as_u64().unwrap() > 3,
        "{backlog}"
    );
    // slow's calls took its 60 ms; the later ones waited in its backlog first.
    let slow: Vec<&Value> = having(&lines, "handler", "handled")
        .into_iter()
        .filter(|v| v["handler"] == "slow" && v["queue_us"].is_u64())
        .collect();
    assert!(
        slow.iter()
            .all(|v| v["call_us"].as_u64().unwrap() >= 60_000),
        "{slow:?}"
    );
    assert!(
        slow.iter()
            .any(|v| v["queue_us"].as_u64().unwrap() > 200_000),
        "{slow:?}"
    );

    let key = format!("{ns}/tap-3");
    let explain = run(kinformer(&["explain", &key, file.to_str().unwrap()])).await;
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert!(
        explain.stdout.contains("queued for `slow`") && explain.stdout.contains("in the handler)"),
        "{}",
        explain.stdout
    );
    assert!(
        explain.stderr.is_empty(),
        "no partial-trace warning for a tap: {}",
        explain.stderr
    );
    let page = dir.path().join("page.html");
    let report = run(kinformer(&[
        "report",
        file.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(report.code, 0, "{}", report.stderr);
    let page = std::fs::read_to_string(page).unwrap();
    assert!(
        page.contains("backlog-growing") && page.contains("\"mean_call_us\":"),
        "the page"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_taps_notifications_agree_with_the_embedded_servers_writes() {
    let cluster = Cluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tap.jsonl");
    let record = dir.path().join("record.jsonl");
    let kubeconfig = cluster.kubeconfig();
    kubectl(&kubeconfig, &["create", "namespace", "tapped"]);
    let args = [
        "-kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-namespace",
        "tapped",
        "-create",
        "30",
        "-rate",
        "200",
        "-delay",
        "1ms",
        "-tap-record",
        record.to_str().unwrap(),
    ];
    let lines = tapped(&args, &file, "30 creates seen by both handlers", |lines| {
        adds(lines, "fast").len() == 30 && adds(lines, "slow").len() == 30
    })
    .await;
    let listed = kubectl(&kubeconfig, &["get", "cm", "-n", "tapped", "-o", "json"]);
    let held = configmaps(&listed, "tapped");
    assert_eq!(adds(&lines, "fast"), held);
    assert_eq!(adds(&lines, "slow"), held);
    let synced = having(&lines, "informer", "handler-synced");
    assert_eq!(synced.len(), 2, "{synced:?}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["dropped_lines"], 0, "{summary}");
    assert_eq!(
        summary["handlers"].as_array().unwrap().len(),
        2,
        "{summary}"
    );
    // Replay beside reality: the tap's record of the traffic, through kinformer's model, gives
    // each handler the notifications the real client-go gave it.
    let replayed = run(kinformer(&[
        "replay",
        record.to_str().unwrap(),
        "--handler",
        "fast",
        "--handler",
        "slow",
        "-o",
        "jsonl",
        "--show",
        "notifications",
        "--speed",
        "max",
    ]))
    .await;
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    let model = parse_jsonl(&replayed.stdout);
    for handler in ["fast", "slow"] {
        assert_eq!(
            notifications(&model, handler),
            notifications(&lines, handler),
            "{handler}: the model's notifications against the real ones"
        );
    }
}

/// `handler`'s notifications as `kind key rv initial`, sorted (a watch-list's initial objects
/// reach client-go's store in Go map order).
fn notifications(lines: &[Value], handler: &str) -> Vec<String> {
    let mut found: Vec<String> = having(lines, "handler", "notify")
        .into_iter()
        .filter(|v| v["handler"] == handler)
        .map(|v| format!("{} {} {} {}", v["kind"], v["key"], v["rv"], v["initial"]))
        .collect();
    found.sort();
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn a_controller_runtime_reconcilers_informer_is_tapped_by_crtap_against_kube_apiserver() {
    let server = RefServer::shared();
    let ns = server.namespace("tap-crtap");
    let deployments: String = (0..3)
        .map(|i| {
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d-{i}, namespace: {ns}}}\n\
                 spec:\n  replicas: 1\n  selector: {{matchLabels: {{app: d-{i}}}}}\n  template:\n    \
                 metadata: {{labels: {{app: d-{i}}}}}\n    spec: {{containers: [{{name: c, image: pause}}]}}\n---\n"
            )
        })
        .collect();
    server.apply(&deployments);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tap.jsonl");
    let kubeconfig = server.kubeconfig();
    let args = [
        "-kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-namespace",
        &ns,
        "-delay",
        "1ms",
    ];
    let lines = tapped_example(
        "reconciler",
        &args,
        &file,
        "the Deployments' adds handled",
        |lines| {
            having(lines, "handler", "handled")
                .iter()
                .filter(|v| v["resource"] == "deployments.apps")
                .count()
                >= 3
                && !having(lines, "informer", "handler-synced").is_empty()
        },
    )
    .await;
    // crtap names the informer by its resource, and controller-runtime's Kind source
    // registered its handler through the tapped informer.
    let started = having(&lines, "informer", "started");
    assert!(
        started.iter().any(|v| v["resource"] == "deployments.apps"),
        "{started:?}"
    );
    let keys: BTreeSet<String> = having(&lines, "handler", "notify")
        .into_iter()
        .filter(|v| v["resource"] == "deployments.apps" && v["kind"] == "add")
        .map(|v| v["key"].as_str().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = (0..3).map(|i| format!("{ns}/d-{i}")).collect();
    assert_eq!(keys, expected);
    assert!(
        having(&lines, "reflector", "watch-start")
            .iter()
            .any(|v| v["resource"] == "deployments.apps"),
        "crtap.Manager wrapped the manager's REST config"
    );
}
