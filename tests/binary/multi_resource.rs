//! Several resources in one run, like a controller's SharedInformerFactory: `watch
//! pods,deploy,rs` and `dump pods deploy` against the embedded API server — one informer per
//! resource, every trace line naming its `resource`, synced once all are, a summary column per
//! resource×handler, the RESOURCE table column only for several, and any one informer's
//! failure ending the run as it would alone.

use crate::binary;

use binary::*;
use kinformer_apiserver::Fault;
use serde_json::Value;

const LABELS: [&str; 3] = ["pods", "deployments.apps", "replicasets.apps"];

/// The resources named by `lines` of `stage`/`event`, in order.
fn resources_of(lines: &[Value], stage: &str, event: &str) -> Vec<String> {
    events(lines, stage, event)
        .iter()
        .map(|v| v["resource"].as_str().unwrap_or("<none>").to_owned())
        .collect()
}

#[tokio::test]
async fn watch_comma_list_runs_one_informer_per_resource_in_one_stream() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&[
        "watch",
        "pods,deploy,rs",
        "-A",
        "-o",
        "jsonl",
        "--until-synced",
        "--handler",
        "fast",
        "--handler",
        "slow",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    let (summary, trace) = lines.split_last().unwrap();
    for line in trace {
        let resource = line["resource"].as_str().unwrap_or_default();
        assert!(LABELS.contains(&resource), "resource on every line: {line}");
    }
    let mut synced = resources_of(&lines, "informer", "synced");
    synced.sort();
    assert_eq!(synced, ["deployments.apps", "pods", "replicasets.apps"]);
    assert_eq!(
        events(trace, "informer", "synced").len(),
        3,
        "--until-synced waits for every informer"
    );
    for label in LABELS {
        let notified = trace
            .iter()
            .filter(|v| v["event"] == "notify" && v["resource"] == label)
            .count();
        assert!(notified > 0, "{label} notified its handlers");
    }
    let handlers = summary["handlers"].as_array().unwrap();
    let columns: Vec<String> = handlers
        .iter()
        .map(|h| format!("{}/{}", h["resource"].as_str().unwrap(), h["name"]))
        .collect();
    assert_eq!(columns.len(), 6, "a row per resource×handler: {columns:?}");
    assert!(
        columns.contains(&"replicasets.apps/\"slow\"".to_owned()),
        "{columns:?}"
    );
    let list_done = events(trace, "reflector", "list-done").len() as u64;
    assert_eq!(
        summary["counts"]["reflector/list-done"].as_u64(),
        Some(list_done)
    );
}

#[tokio::test]
async fn one_resource_carries_the_field_too_and_duplicates_resolve_to_one() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&[
        "watch",
        "po,pods",
        "-n",
        "default",
        "-o",
        "jsonl",
        "--until-synced",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    assert_eq!(resources_of(&lines, "informer", "synced"), ["pods"]);
    assert_eq!(
        resources_of(&lines, "informer", "started"),
        ["pods"],
        "po,pods is one"
    );
    let handlers = lines.last().unwrap()["handlers"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(handlers.len(), 1);
    assert_eq!(handlers[0]["resource"], "pods");
}

#[tokio::test]
async fn the_table_has_a_resource_column_only_for_several() {
    let c = Cluster::start().await;
    let several = run(c.cmd(&["watch", "deploy,rs", "-n", "default", "--until-synced"])).await;
    assert_eq!(several.code, 0, "{}", several.stderr);
    let header = several.stdout.lines().next().unwrap();
    assert!(header.contains("TIME          RESOURCE"), "{header}");
    assert!(
        several
            .stdout
            .lines()
            .any(|l| l.contains("replicasets.apps  handler")),
        "{}",
        several.stdout
    );
    assert!(
        several.stderr.contains("deployments.apps/default"),
        "{}",
        several.stderr
    );
    let one = run(c.cmd(&["watch", "deploy", "-n", "default", "--until-synced"])).await;
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(!one.stdout.contains("RESOURCE"), "{}", one.stdout);
    let handlers_header = one
        .stderr
        .lines()
        .find(|l| l.starts_with("PER HANDLER"))
        .unwrap_or_default();
    assert!(handlers_header.ends_with(" default"), "{}", one.stderr);
    assert!(!one.stderr.contains("/default"), "{}", one.stderr);
}

#[tokio::test]
async fn dump_of_several_resources_is_one_dump_each() {
    let c = Cluster::start().await;
    let table = run(c.cmd(&["dump", "pods", "deploy", "-n", "default"])).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.starts_with("RESOURCE pods\nKEY"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("\n\nRESOURCE deployments.apps\nKEY"),
        "{}",
        table.stdout
    );

    let json = run(c.cmd(&["dump", "pods,deploy", "-n", "default", "-o", "json"])).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&json.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap();
    let names: Vec<&str> = docs
        .iter()
        .map(|d| d["resource"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pods", "deployments.apps"]);
    let deployments = c
        .server
        .objects("deployments", Some("default"))
        .unwrap()
        .len();
    assert_eq!(docs[1]["items"].as_array().unwrap().len(), deployments);

    let one = run(c.cmd(&["dump", "deploy", "-n", "default", "-o", "json"])).await;
    let doc: Value = serde_json::from_str(&one.stdout).unwrap();
    assert!(
        doc.get("resource").is_none(),
        "one resource: the document as before"
    );
}

#[tokio::test]
async fn a_bad_name_anywhere_is_one_error_line_naming_it() {
    let c = Cluster::start().await;
    for list in [
        &["watch", "pods,podz,deploy"][..],
        &["dump", "pods", "podz"],
    ] {
        let r = run(c.cmd(list)).await;
        assert_eq!(r.code, 4, "{}", r.stderr);
        assert_eq!(
            r.stderr.trim(),
            r#"error: the server doesn't have a resource type "podz" (did you mean "pods"?)"#
        );
        assert!(r.stdout.is_empty());
    }
}

#[tokio::test]
async fn one_informer_refused_ends_the_run_as_alone() {
    let c = Cluster::start().await;
    c.server
        .inject(&Fault::FailRequests {
            count: None,
            fraction: None,
            status: Some(403),
            retry_after_seconds: None,
            path: Some("/apis/apps/v1/deployments".into()),
        })
        .unwrap();
    let r = run(c.cmd(&["watch", "pods,deploy", "-A", "-o", "jsonl"])).await;
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("deployments.apps"), "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    assert_eq!(lines.last().unwrap()["stage"], "summary");

    let panicking = run(c.cmd(&[
        "watch",
        "nodes,ns",
        "--handler",
        "boom:panic-every=1",
        "-o",
        "jsonl",
    ]))
    .await;
    assert_eq!(panicking.code, 6, "{}", panicking.stderr);
    assert!(
        panicking.stderr.contains("handler \"boom\" panicked on "),
        "{}",
        panicking.stderr
    );
}
