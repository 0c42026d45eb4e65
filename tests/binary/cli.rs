//! The built binary against the embedded API server (started in-process on 127.0.0.1:0, its
//! kubeconfig written to a temp dir): every command and output mode, the JSONL contract, the
//! resync debugger's schedule, exit codes, signals and pipes, bad input, kubectl plugin use.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

use crate::binary;
use binary::*;

#[tokio::test]
async fn watch_jsonl_every_line_parses_and_carries_every_stage() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&[
        "watch",
        "pods",
        "-A",
        "--show",
        "all",
        "-o",
        "jsonl",
        "--until-synced",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    for (stage, event) in [
        ("reflector", "list-start"),
        ("reflector", "list-done"),
        ("fifo", "delta"),
        ("fifo", "pop"),
        ("indexer", "add"),
        ("handler", "notify"),
        ("informer", "synced"),
    ] {
        assert!(
            !events(&lines, stage, event).is_empty(),
            "no {stage} {event}"
        );
    }
    let notify = events(&lines, "handler", "notify")[0];
    assert_eq!(notify["kind"], "add");
    assert_eq!(notify["initial"], true);
    assert!(
        notify["object"]["metadata"]["name"].is_string(),
        "notify carries the object"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["stage"], "summary");
    let synced = events(&lines, "informer", "synced")[0]["objects"]
        .as_u64()
        .unwrap();
    let deltas = events(&lines, "fifo", "delta").len() as u64;
    assert_eq!(last["counts"]["fifo/delta"].as_u64(), Some(deltas));
    assert!(synced > 50, "the builtin seed has ~100 pods");
}

#[tokio::test]
async fn watch_table_prints_a_header_once_then_aligned_rows() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&["watch", "deploy", "-n", "default", "--until-synced"])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    for col in ["SEQ", "TIME", "STAGE", "EVENT", "KEY", "RV", "DETAIL"] {
        assert!(lines[0].contains(col), "header: {}", lines[0]);
    }
    assert_eq!(lines.iter().filter(|l| l.starts_with("SEQ")).count(), 1);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("notify") && l.contains("default/")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains('\u{1b}'), "no colour without a TTY");
    assert!(
        r.stderr.contains("HANDLER"),
        "summary tables go to stderr: {}",
        r.stderr
    );
    let no_headers = run(c.cmd(&[
        "watch",
        "deploy",
        "-n",
        "default",
        "--until-synced",
        "--no-headers",
    ]))
    .await;
    assert!(!no_headers.stdout.contains("SEQ"));
}

#[tokio::test]
async fn watch_json_yaml_and_wide_modes_render() {
    let c = Cluster::start().await;
    let json = run(c.cmd(&["watch", "ns", "-o", "json", "--until-synced"])).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&json.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(docs.len() > 3);
    assert_eq!(docs.last().unwrap()["stage"], "summary");
    let yaml = run(c.cmd(&["watch", "ns", "-o", "yaml", "--until-synced"])).await;
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    assert!(yaml.stdout.starts_with("---\n") && yaml.stdout.contains("stage: informer"));
    let wide = run(c.cmd(&["watch", "ns", "-o", "wide", "--until-synced"])).await;
    assert_eq!(wide.code, 0, "{}", wide.stderr);
    assert!(wide.stdout.lines().next().unwrap().contains("DETAIL"));
}

#[tokio::test]
async fn watch_name_count_and_timeout_stop_the_stream() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&["watch", "nodes", "-o", "jsonl", "--count", "3"])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    assert_eq!(
        events(&lines, "handler", "notify").len(),
        3,
        "--count counts notifications: {}",
        r.stdout
    );
    assert_stopped_because(&lines, "count of 3 notifications reached");
    // Counted whether shown or not: no notification shown, the run still stops.
    let hidden = [
        "watch",
        "nodes",
        "-o",
        "jsonl",
        "--count",
        "2",
        "--show",
        "lifecycle",
    ];
    let hidden = parse_jsonl(&run(c.cmd(&hidden)).await.stdout);
    assert!(events(&hidden, "handler", "notify").is_empty());
    assert_stopped_because(&hidden, "count of 2 notifications reached");
    let name = run(c.cmd(&["watch", "nodes", "node-1", "-o", "jsonl", "--until-synced"])).await;
    let synced = parse_jsonl(&name.stdout);
    assert_stopped_because(&synced, "synced (--until-synced)");
    assert_eq!(
        events(&synced, "informer", "synced")[0]["objects"],
        1,
        "NAME selects one object"
    );
    let timed = run(c.cmd(&["watch", "nodes", "-o", "jsonl", "--timeout", "1s"])).await;
    assert_eq!(timed.code, 0);
    assert_stopped_because(&parse_jsonl(&timed.stdout), "timeout reached");
    let table = run(c.cmd(&["watch", "nodes", "--until-synced"])).await;
    assert!(
        table
            .stderr
            .contains("elapsed; stopped: synced (--until-synced))"),
        "the table summary says why: {}",
        table.stderr
    );
}

/// The `informer stopped` line and the summary (the last line) both say `reason`.
fn assert_stopped_because(lines: &[Value], reason: &str) {
    let stopped = events(lines, "informer", "stopped");
    assert_eq!(stopped.len(), 1, "one stopped line: {lines:?}");
    assert_eq!(stopped[0]["reason"], reason);
    let summary = lines.last().unwrap();
    assert_eq!(
        (&summary["stage"], &summary["stop_reason"]),
        (&Value::from("summary"), &Value::from(reason))
    );
}

#[tokio::test]
async fn dump_prints_the_cache_and_every_index_in_each_mode() {
    let c = Cluster::start().await;
    let index = [
        "--index",
        "by-node=field:spec.nodeName",
        "--index",
        "owner=owner",
    ];
    let mut args = vec!["dump", "pods", "-n", "default"];
    args.extend(index);
    let table = run(c.cmd(&args)).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    let first = table.stdout.lines().next().unwrap();
    for col in ["KEY", "RV", "AGE", "BY-NODE", "OWNER"] {
        assert!(first.contains(col), "{first}");
    }
    assert!(table.stdout.contains("INDEX by-node") && table.stdout.contains("default/ReplicaSet/"));

    args.extend(["-o", "json"]);
    let json = run(c.cmd(&args)).await;
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    let api: kube::Api<kube::core::DynamicObject> = kube::Api::namespaced_with(
        c.server.client(),
        "default",
        &kube::core::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
    );
    let server_pods = api.list(&Default::default()).await.unwrap().items.len();
    assert_eq!(
        items.len(),
        server_pods,
        "C1: the dump is the server's collection"
    );
    assert!(v["indices"]["by-node"].as_object().unwrap().len() >= 2);

    let jsonl = run(c.cmd(&["dump", "pods", "-n", "default", "-o", "jsonl"])).await;
    assert_eq!(jsonl.stdout.lines().count(), server_pods);
    let yaml = run(c.cmd(&["dump", "cm", "-A", "-o", "yaml"])).await;
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    assert!(yaml.stdout.contains("items:"));
}

#[tokio::test]
async fn dump_by_index_prints_only_the_objects_under_one_index_value() {
    let c = Cluster::start().await;
    let all = run(c.cmd(&["dump", "cm", "-A", "-o", "json"])).await;
    let all: Value = serde_json::from_str(&all.stdout).unwrap();
    let one = run(c.cmd(&[
        "dump",
        "cm",
        "-A",
        "-o",
        "json",
        "--by-index",
        "namespace=default",
    ]))
    .await;
    assert_eq!(one.code, 0, "{}", one.stderr);
    let v: Value = serde_json::from_str(&one.stdout).unwrap();
    let namespaces: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["metadata"]["namespace"].as_str().unwrap_or_default())
        .collect();
    assert!(
        !namespaces.is_empty() && namespaces.iter().all(|n| *n == "default"),
        "{namespaces:?}"
    );
    assert!(namespaces.len() < all["items"].as_array().unwrap().len());
    // Issue 49 item 10: only the index asked for is printed, not every index table.
    let tables = run(c.cmd(&[
        "dump",
        "cm",
        "-A",
        "-o",
        "json",
        "--index",
        "app=label:app",
        "--by-index",
        "namespace=default",
    ]))
    .await;
    assert_eq!(tables.code, 0, "{}", tables.stderr);
    let v: Value = serde_json::from_str(&tables.stdout).unwrap();
    let indices: Vec<&String> = v["indices"].as_object().unwrap().keys().collect();
    assert_eq!(indices, ["namespace"], "{}", tables.stdout);
    let table = run(c.cmd(&[
        "dump",
        "cm",
        "-A",
        "--index",
        "app=label:app",
        "--by-index",
        "namespace=default",
    ]))
    .await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.contains("INDEX namespace") && !table.stdout.contains("INDEX app"),
        "{}",
        table.stdout
    );
    let unknown = run(c.cmd(&["dump", "cm", "-A", "--by-index", "owner=x"])).await;
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stdout.is_empty() && unknown.stderr.starts_with("error: --by-index"),
        "{}",
        unknown.stderr
    );
}

#[tokio::test]
async fn dump_redacts_secret_data_unless_asked() {
    let c = Cluster::start().await;
    let hidden = run(c.cmd(&["dump", "secrets", "-A", "-o", "json"])).await;
    assert_eq!(hidden.code, 0, "{}", hidden.stderr);
    let v: Value = serde_json::from_str(&hidden.stdout).unwrap();
    let with_data: Vec<&Value> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["data"].is_object())
        .collect();
    assert!(!with_data.is_empty());
    for s in &with_data {
        assert!(
            s["data"]
                .as_object()
                .unwrap()
                .values()
                .all(|d| d == "REDACTED")
        );
    }
    let shown = run(c.cmd(&["dump", "secrets", "-A", "-o", "json", "--show-secret-data"])).await;
    assert!(!shown.stdout.contains("REDACTED"));
}

#[tokio::test]
async fn resync_schedule_follows_p2_to_p5() {
    let c = Cluster::start().await;
    let args = [
        "resync",
        "configmaps",
        "-A",
        "--resync",
        "3s",
        "--duration",
        "2500ms",
        "--handler",
        "a:resync=2s",
        "--handler",
        "b:resync=5s",
        "--handler",
        "c:resync=0",
        "--handler",
        "d:resync=500ms",
    ];
    let table = run(c.cmd(&args)).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    let row = |name: &str| {
        table
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name}:\n{}", table.stdout))
            .to_owned()
    };
    assert!(
        row("a").contains("2s")
            && row("a").contains("lowered the informer's check period from 3s to 2s"),
        "{}",
        row("a")
    );
    assert!(
        row("d").contains("1s") && row("d").contains("minimum"),
        "P2: {}",
        row("d")
    );
    assert!(row("c").contains("never"), "P4: {}", row("c"));
    assert!(row("b").contains("5s"));

    let mut jsonl_args = args.to_vec();
    jsonl_args.extend(["-o", "jsonl", "--show", "resync"]);
    let jsonl = run(c.cmd(&jsonl_args)).await;
    let lines = parse_jsonl(&jsonl.stdout);
    let checks: Vec<u64> = events(&lines, "informer", "handler-added")
        .iter()
        .map(|v| v["check_period_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(
        checks.last(),
        Some(&1000),
        "d lowered the check period to 1s"
    );
    let ticks = events(&lines, "resync", "tick");
    assert!(ticks.len() >= 2, "ticks at 1s and 2s: {}", jsonl.stdout);
    let due = |i: usize| {
        ticks[i]["due"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(due(0), ["d"], "P5: only d is due at 1s");
    assert_eq!(due(1), ["a", "d"], "a is due at 2s");
    assert!(ticks.iter().all(|t| t["check_period_ms"] == 1000));

    // The schedule and the timeline are in the JSONL too, before the summary.
    let schedule = events(&lines, "resync", "schedule");
    let phase = |p: &str| schedule.iter().filter(|v| v["phase"] == p).count();
    assert_eq!((phase("start"), phase("end")), (4, 4), "{}", jsonl.stdout);
    assert_eq!(lines[0]["event"], "schedule", "the schedule comes first");
    let end_a = schedule
        .iter()
        .find(|v| v["phase"] == "end" && v["handler"] == "a")
        .unwrap();
    assert_eq!(
        (end_a["resync_ms"].as_u64(), end_a["ticks_due"].as_u64()),
        (Some(2000), Some(1))
    );
    let timeline = events(&lines, "resync", "timeline");
    let of = |h: &str| timeline.iter().find(|v| v["handler"] == h).unwrap()["ticks_ms"].clone();
    assert_eq!(
        of("d").as_array().unwrap().len(),
        2,
        "d was due at 1s and 2s"
    );
    assert_eq!(of("c"), serde_json::json!([]));
    assert_eq!(lines.last().unwrap()["stage"], "summary");
    assert!(
        table.stdout.contains("TICKS DUE") && table.stdout.contains("due at 2 resync ticks: +1"),
        "{}",
        table.stdout
    );
}

#[tokio::test]
async fn serve_prints_its_url_and_a_kubeconfig_kinformer_can_use() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kc");
    let mut serve = kinformer(&[
        "serve",
        "--seed",
        "builtin",
        "--kubeconfig-out",
        kubeconfig.to_str().unwrap(),
    ]);
    serve.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = serve.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(DEADLINE, out.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let r = run(kinformer(&[
        "dump",
        "nodes",
        "-o",
        "jsonl",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stderr);
    signal(child.id().unwrap(), "-TERM").await;
    let status = tokio::time::timeout(DEADLINE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

async fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .arg(sig)
        .arg(pid.to_string())
        .status()
        .await
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn sigint_prints_the_summary_and_exits_130_with_complete_lines() {
    signal_ends_with_summary("-INT", 130).await;
}

#[tokio::test]
async fn sigterm_prints_the_summary_and_exits_143_with_complete_lines() {
    signal_ends_with_summary("-TERM", 143).await;
}

async fn signal_ends_with_summary(sig: &str, code: i32) {
    let c = Cluster::start().await;
    let mut cmd = c.cmd(&["watch", "pods", "-A", "-o", "jsonl"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    tokio::time::timeout(DEADLINE, async {
        while let Some(line) = out.next_line().await.unwrap() {
            let synced = line.contains("\"event\":\"synced\"");
            seen.push(line);
            if synced {
                break;
            }
        }
    })
    .await
    .unwrap();
    signal(child.id().unwrap(), sig).await;
    while let Some(line) = tokio::time::timeout(DEADLINE, out.next_line())
        .await
        .unwrap()
        .unwrap()
    {
        seen.push(line);
    }
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(code));
    let lines = parse_jsonl(&seen.join("\n"));
    let reason = if code == 130 {
        "interrupted (SIGINT)"
    } else {
        "terminated (SIGTERM)"
    };
    assert_stopped_because(&lines, reason);
}

#[tokio::test]
async fn a_closed_stdout_ends_quietly_with_success() {
    let c = Cluster::start().await;
    let mut cmd = c.cmd(&["watch", "pods", "-A", "-o", "jsonl", "--show", "all"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::time::timeout(DEADLINE, out.next_line())
        .await
        .unwrap()
        .unwrap();
    drop(out); // like `| head -1`
    let output = tokio::time::timeout(DEADLINE, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// `kinformer dump nodes --embedded -v 6 2>&1 >/dev/null | head -3`: the log's reader goes
/// away; the lines that can no longer be written are dropped, nothing panics (it exited 101).
#[tokio::test]
async fn a_closed_stderr_under_verbose_logs_does_not_panic() {
    let mut cmd = kinformer(&["dump", "nodes", "--embedded", "-v", "6"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::time::timeout(DEADLINE, err.next_line())
        .await
        .unwrap()
        .unwrap();
    drop(err); // like `2>&1 | head -1`
    let status = tokio::time::timeout(DEADLINE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn help_into_an_unwritable_stdout_is_a_failure() {
    for args in [&["--help"][..], &["watch", "--help"], &["--version"]] {
        let mut cmd = kinformer(args);
        cmd.stdout(std::fs::File::create("/dev/full").unwrap())
            .stderr(Stdio::piped());
        let out = tokio::time::timeout(DEADLINE, cmd.spawn().unwrap().wait_with_output())
            .await
            .unwrap()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains("No space left"),
            "{stderr}"
        );
    }
}

#[tokio::test]
async fn an_unwritable_stdout_is_one_error_line_and_a_failure() {
    let c = Cluster::start().await;
    let mut cmd = c.cmd(&["dump", "pods", "-A"]);
    // `output()` would replace stdout with a pipe: spawn with /dev/full instead.
    cmd.stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(Stdio::piped());
    let out = tokio::time::timeout(DEADLINE, cmd.spawn().unwrap().wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("No space left"),
        "{stderr}"
    );
}

#[tokio::test]
async fn bad_flag_values_fail_with_one_line_before_any_network_call() {
    // The kubeconfig does not exist: reaching it would be exit 3, not 2.
    let cases: &[&[&str]] = &[
        &["watch", "pods", "--resync", "5x"],
        &["watch", "pods", "--timeout", "-1s"],
        &["watch", "pods", "--index", "by-node=fields:spec.nodeName"],
        &["watch", "pods", "--index", "nameonly"],
        &["watch", "pods", "-l", "app in (web"],
        &["watch", "pods", "--field-selector", "metadata.name"],
        &["watch", "pods", "-o", "xml"],
        &["watch", "pods", "--show", "everything"],
        &["watch", "pods", "--handler", ":resync=1s"],
        &["watch", "pods", "--handler", "a:delay=fast"],
        &["dump", "pods", "--queue", "lifo"],
        &["watch", "pods", "--count", "many"],
    ];
    for args in cases {
        let mut c = kinformer(args);
        c.args(["--kubeconfig", "/nonexistent/kubeconfig"]);
        let r = run(c).await;
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        let error_lines = r.stderr.lines().filter(|l| l.starts_with("error:")).count();
        assert_eq!(error_lines, 1, "{args:?}: {}", r.stderr);
    }
}

#[tokio::test]
async fn configuration_and_api_errors_have_their_exit_codes() {
    let c = Cluster::start().await;
    let unknown = run(c.cmd(&["watch", "podz"])).await;
    assert_eq!(unknown.code, 4);
    assert_eq!(
        unknown.stderr.trim(),
        r#"error: the server doesn't have a resource type "podz" (did you mean "pods"?)"#
    );

    let missing = run(kinformer(&[
        "dump",
        "pods",
        "--kubeconfig",
        "/nonexistent/kubeconfig",
    ]))
    .await;
    assert_eq!(
        (missing.code, missing.stderr.lines().count()),
        (3, 1),
        "{}",
        missing.stderr
    );
    let garbled = c.dir.path().join("garbled");
    std::fs::write(&garbled, "{{ not yaml").unwrap();
    let bad = run(kinformer(&[
        "dump",
        "pods",
        "--kubeconfig",
        garbled.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(
        (bad.code, bad.stderr.lines().count()),
        (3, 1),
        "{}",
        bad.stderr
    );
    let ctx = run(c.cmd(&["dump", "pods", "--context", "nope"])).await;
    assert_eq!(
        (ctx.code, ctx.stderr.lines().count()),
        (3, 1),
        "{}",
        ctx.stderr
    );

    let wrong_token = wrong_token_kubeconfig(&c);
    let denied = run(kinformer(&[
        "dump",
        "pods",
        "--kubeconfig",
        wrong_token.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(denied.code, 4, "{}", denied.stderr);
    assert!(denied.stderr.contains("Unauthorized"), "{}", denied.stderr);
}

fn wrong_token_kubeconfig(c: &Cluster) -> PathBuf {
    let token = c.server.token().unwrap();
    let text = std::fs::read_to_string(c.kubeconfig())
        .unwrap()
        .replace(token, "wrong-token");
    let path = c.dir.path().join("wrong");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn embedded_mode_and_demo_run_without_a_cluster() {
    let r = run(kinformer(&[
        "watch",
        "pods",
        "-A",
        "--embedded",
        "-o",
        "jsonl",
        "--until-synced",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!events(&parse_jsonl(&r.stdout), "informer", "synced").is_empty());
    let demo = run(kinformer(&["demo", "--duration", "2s", "-o", "jsonl"])).await;
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    let lines = parse_jsonl(&demo.stdout);
    let handlers: std::collections::BTreeSet<&str> = events(&lines, "handler", "notify")
        .iter()
        .map(|v| v["handler"].as_str().unwrap())
        .collect();
    assert_eq!(handlers.into_iter().collect::<Vec<_>>(), ["fast", "slow"]);
    assert!(
        !events(&lines, "fifo", "delta").is_empty(),
        "the demo shows every stage"
    );
}

/// Issue 49 item 5: the tour's climax — the forced 410 and the relist 20 s after the sync —
/// is in every output format, not only the table: `demo -o jsonl` has the `watch-error` 410,
/// the `relist` and its `list-done`, and no narration on stderr (the table's only). Read as it
/// comes, until the relist's list is done (a deadline, no fixed run time: a loaded machine
/// starts the server late).
#[tokio::test]
async fn demo_as_jsonl_runs_the_same_tour_its_410_and_relist_included() {
    let mut demo = kinformer(&["demo", "-o", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(demo.stdout.take().unwrap()).lines();
    let mut seen: Vec<Value> = Vec::new();
    let relisted = |seen: &[Value]| {
        let relist = seen.iter().position(|v| v["event"] == "relist");
        relist.is_some_and(|at| seen[at..].iter().any(|v| v["event"] == "list-done"))
    };
    let read = async {
        while !relisted(&seen) {
            match lines.next_line().await.unwrap() {
                Some(line) => seen.push(serde_json::from_str(&line).unwrap()),
                None => break,
            }
        }
    };
    tokio::time::timeout(DEADLINE + DEADLINE, read)
        .await
        .unwrap_or_else(|_| panic!("no relist: {seen:?}"));
    assert!(relisted(&seen), "the demo ended without its relist");
    let gone = events(&seen, "reflector", "watch-error");
    assert!(gone.iter().any(|v| v["code"] == 410), "{gone:?}");
    // Its last lines (the summary) must find a reader, or the demo would block writing them.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let pid = demo.id().unwrap().to_string();
    let sent = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .unwrap();
    assert!(sent.success());
    let mut stderr = String::new();
    demo.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    let status = tokio::time::timeout(DEADLINE, demo.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        !stderr.contains("── "),
        "the narration is the table's: {stderr}"
    );
}

#[tokio::test]
async fn works_as_a_kubectl_plugin() {
    let c = Cluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("kubectl-informer");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kinformer"), &plugin).unwrap();
    let mut help = Command::new(&plugin);
    help.arg("--help").kill_on_drop(true);
    let help = run(help).await;
    assert!(help.stdout.contains("kubectl informer"), "{}", help.stdout);
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut kubectl = Command::new(kubectl_path());
    kubectl
        .args(["informer", "dump", "nodes", "-o", "jsonl", "--kubeconfig"])
        .arg(c.kubeconfig())
        .env("PATH", path)
        .kill_on_drop(true);
    let r = run(kubectl).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 3);
}

fn kubectl_path() -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("kubectl not found on PATH: install Debian's kubernetes-client"))
}

#[tokio::test]
async fn completions_and_man_pages_print() {
    let bash = run(kinformer(&["completions", "bash"])).await;
    assert!(bash.stdout.contains("_kinformer"), "{}", bash.stderr);
    let man = run(kinformer(&["man"])).await;
    assert!(man.stdout.contains(".TH") && man.stdout.contains("EXIT STATUS"));
}

#[tokio::test]
async fn a_crd_resolves_by_plural_short_name_and_group_like_kubectl() {
    let c = Cluster::start().await;
    c.server
        .create_object(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
                     "versions": [{"name": "v1", "served": true, "storage": true}]}
        }))
        .unwrap();
    c.server
        .create_object(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "default"}, "spec": {"size": 3}
        }))
        .unwrap();
    for name in [
        "widgets",
        "widget",
        "wd",
        "Widget",
        "widgets.example.com",
        "widgets.v1.example.com",
    ] {
        let r = run(c.cmd(&["dump", name, "-A", "-o", "jsonl"])).await;
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert!(r.stdout.contains("\"w1\""), "{name}: {}", r.stdout);
    }
}

#[tokio::test]
async fn kubectl_habits_count_empty_namespace_kubeconfig_list_and_watch_flag() {
    let c = Cluster::start().await;
    let zero = run(c.cmd(&["watch", "nodes", "-o", "jsonl", "--count", "0"])).await;
    assert_eq!(
        (zero.code, zero.stdout.as_str()),
        (2, ""),
        "{}",
        zero.stderr
    );

    // `-n ''` is the context's namespace (`default`), as in kubectl.
    let empty_ns = run(c.cmd(&["watch", "pods", "-n", "", "-o", "jsonl", "--until-synced"])).await;
    assert_eq!(empty_ns.code, 0, "{}", empty_ns.stderr);
    let api: kube::Api<kube::core::DynamicObject> = kube::Api::namespaced_with(
        c.server.client(),
        "default",
        &kube::core::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
    );
    let default_pods = api.list(&Default::default()).await.unwrap().items.len();
    let lines = parse_jsonl(&empty_ns.stdout);
    assert_eq!(
        events(&lines, "informer", "synced")[0]["objects"].as_u64(),
        Some(default_pods as u64)
    );

    // A KUBECONFIG list skips missing files, as kubectl does.
    let mut listed = kinformer(&["dump", "nodes", "-o", "jsonl"]);
    listed.env(
        "KUBECONFIG",
        format!("/nonexistent/config::{}", c.kubeconfig().display()),
    );
    let listed = run(listed).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert_eq!(listed.stdout.lines().count(), 3);

    // `kubectl get -w` habit: -w/--watch is accepted and changes nothing.
    for flag in ["-w", "--watch"] {
        let w = run(c.cmd(&["watch", "nodes", flag, "-o", "jsonl", "--until-synced"])).await;
        assert_eq!(w.code, 0, "{flag}: {}", w.stderr);
        assert_eq!(parse_jsonl(&w.stdout).last().unwrap()["stage"], "summary");
    }
}

#[tokio::test]
async fn dump_refuses_flags_it_would_ignore() {
    let c = Cluster::start().await;
    for extra in [
        &["--diff"][..],
        &["--show", "all"],
        &["--handler", "slow:delay=1s"],
    ] {
        let mut args = vec!["dump", "nodes"];
        args.extend(extra);
        let r = run(c.cmd(&args)).await;
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (2, ""),
            "{extra:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("no effect on dump"),
            "{extra:?}: {}",
            r.stderr
        );
    }
    let fine = run(c.cmd(&["dump", "nodes", "--handler", "a:resync=1m", "--no-headers"])).await;
    assert_eq!(fine.code, 0, "{}", fine.stderr);
}

#[tokio::test]
async fn embedded_churns_by_default_and_churn_0_is_static() {
    let watch = |churn: Option<&'static str>| {
        let mut args = vec![
            "watch",
            "pods",
            "-A",
            "--embedded",
            "-o",
            "jsonl",
            "--show",
            "notifications",
            "--timeout",
            "3s",
        ];
        args.extend(churn.map(|c| ["--churn", c]).iter().flatten());
        run(kinformer(&args))
    };
    let live_notifications = |r: &Run| {
        let lines = parse_jsonl(&r.stdout);
        events(&lines, "handler", "notify")
            .iter()
            .filter(|v| v["initial"] == false)
            .count()
    };
    let churning = watch(Some("5")).await;
    assert_eq!(churning.code, 0, "{}", churning.stderr);
    assert!(live_notifications(&churning) > 0, "{}", churning.stdout);
    let default = watch(None).await;
    assert!(
        live_notifications(&default) > 0,
        "--embedded churns by default"
    );
    let still = watch(Some("0")).await;
    assert_eq!(live_notifications(&still), 0, "{}", still.stdout);
    let without_embedded = run(kinformer(&["watch", "pods", "--churn", "3"])).await;
    assert_eq!(without_embedded.code, 2, "--churn needs --embedded");
}

#[tokio::test]
async fn verbosity_logs_requests_on_stderr_without_credentials() {
    let c = Cluster::start().await;
    let token = c.server.token().unwrap().to_owned();
    let at = |level: &'static str| {
        run(c.cmd(&[
            "watch",
            "nodes",
            "-o",
            "jsonl",
            "--until-synced",
            // A release that LISTs (1.35+ streams the initial list through the watch).
            "--client-go",
            "1.34",
            "-v",
            level,
        ]))
    };
    let quiet = at("0").await;
    assert_eq!(quiet.stderr, "", "no logs at -v 0");
    let requests = at("2").await;
    assert!(
        requests.stderr.contains("list nodes"),
        "{}",
        requests.stderr
    );
    assert!(
        requests.stderr.contains("watch nodes"),
        "{}",
        requests.stderr
    );
    assert!(!requests.stderr.contains("GET http"), "{}", requests.stderr);
    let urls = at("4").await;
    assert!(
        urls.stderr.contains("GET http://127.0.0.1:") && urls.stderr.contains("/api/v1/nodes?"),
        "{}",
        urls.stderr
    );
    assert!(urls.stderr.contains("200 OK"), "{}", urls.stderr);
    assert!(
        urls.stderr.contains("/api/v1/nodes?resourceVersion=0") && !urls.stderr.contains("?&"),
        "URLs as kubectl prints them: {}",
        urls.stderr
    );
    let headers = at("6").await;
    assert!(
        headers.stderr.contains("response headers: "),
        "{}",
        headers.stderr
    );
    for r in [&quiet, &requests, &urls, &headers] {
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!r.stderr.contains(&token), "the token leaked: {}", r.stderr);
        assert_eq!(parse_jsonl(&r.stdout).last().unwrap()["stage"], "summary");
    }
    let mut overridden = c.cmd(&["watch", "nodes", "-o", "jsonl", "--until-synced"]);
    overridden.env("KINFORMER_LOG", "kinformer=debug");
    let overridden = run(overridden).await;
    assert!(
        overridden.stderr.contains("GET http://"),
        "{}",
        overridden.stderr
    );
}

type StdoutLines = tokio::io::Lines<BufReader<tokio::process::ChildStdout>>;

/// Spawns `cmd` with stdout read line by line (stderr piped away).
fn spawn_with_lines(mut cmd: Command) -> (tokio::process::Child, StdoutLines) {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, out)
}

/// The next stdout line; a test failure when none comes before the deadline.
async fn next_line(out: &mut StdoutLines) -> String {
    tokio::time::timeout(DEADLINE, out.next_line())
        .await
        .expect("no line in time")
        .unwrap()
        .expect("stdout ended")
}

#[tokio::test]
async fn a_server_gone_mid_run_reads_like_kubectl() {
    let c = Cluster::start().await;
    let (mut child, mut out) =
        spawn_with_lines(c.cmd(&["watch", "nodes", "-o", "jsonl", "--show", "reflector"]));
    while !next_line(&mut out).await.contains("\"synced\"") {}
    let port = c.server.url().rsplit(':').next().unwrap().to_owned();
    c.server.shutdown().await;
    let error = loop {
        let line = next_line(&mut out).await;
        if line.contains("\"watch-error\"") || line.contains("\"list-error\"") {
            break line;
        }
    };
    assert!(
        error.contains(&format!(
            "dial tcp 127.0.0.1:{port}: connect: connection refused"
        )),
        "{error}"
    );
    assert!(
        !error.contains("ServiceError"),
        "kube's wrapper word: {error}"
    );
    child.kill().await.unwrap();
}

/// A Secret as `kubectl apply` leaves it: its manifest, plaintext `stringData` included, in the
/// last-applied annotation.
fn applied_secret(token: &str) -> Value {
    let manifest = serde_json::json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "applied", "namespace": "default"},
        "stringData": {"password": "hunter2-plaintext"},
        "data": {"token": token}
    });
    serde_json::json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "applied", "namespace": "default", "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": manifest.to_string()
        }},
        "data": {"token": token, "password": "aHVudGVyMi1wbGFpbnRleHQ="}
    })
}

async fn cluster_with_applied_secret(token: &str) -> Cluster {
    let c = Cluster::start().await;
    c.server.create_object(applied_secret(token)).unwrap();
    c
}

#[tokio::test]
async fn secret_values_never_leak_through_the_last_applied_annotation_or_indices() {
    let c = cluster_with_applied_secret("c2VjcmV0LXRva2Vu").await;
    let secrets = ["hunter2", "c2VjcmV0LXRva2Vu", "aHVudGVyMi1wbGFpbnRleHQ="];
    let runs = [
        &["dump", "secrets", "-n", "default", "-o", "json"][..],
        &["dump", "secrets", "-n", "default", "-o", "yaml"],
        &[
            "dump",
            "secrets",
            "-n",
            "default",
            "-o",
            "jsonl",
            "--metadata-only",
        ],
        &[
            "dump",
            "secrets",
            "-n",
            "default",
            "--index",
            "t=field:data.token",
        ],
        &[
            "dump",
            "secrets",
            "-n",
            "default",
            "-o",
            "json",
            "--index",
            "t=field:data.token",
        ],
        &[
            "watch",
            "secrets",
            "-n",
            "default",
            "-o",
            "jsonl",
            "--until-synced",
            "--show",
            "all",
        ],
    ];
    for args in runs {
        let r = run(c.cmd(args)).await;
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(r.stdout.contains("applied"), "{args:?}: {}", r.stdout);
        for secret in secrets {
            assert!(
                !r.stdout.contains(secret),
                "{args:?} leaked {secret}: {}",
                r.stdout
            );
        }
    }
    let shown = run(c.cmd(&[
        "dump",
        "secrets",
        "-n",
        "default",
        "-o",
        "json",
        "--show-secret-data",
    ]))
    .await;
    assert!(
        shown.stdout.contains("hunter2-plaintext"),
        "{}",
        shown.stdout
    );
}

#[tokio::test]
async fn a_secret_diff_names_the_changed_keys_without_values() {
    let c = cluster_with_applied_secret("b2xkLXRva2Vu").await;
    for (format, new_token) in [("table", "bmV3LXRva2Vu"), ("jsonl", "bmV3ZXItdG9rZW4=")] {
        let (mut child, mut out) = spawn_with_lines(c.cmd(&[
            "watch",
            "secrets",
            "applied",
            "-n",
            "default",
            "--diff",
            "--show",
            "notifications",
            "-o",
            format,
        ]));
        let mut seen = String::new();
        let mut updated = false;
        let diff = tokio::time::timeout(DEADLINE, async {
            while let Some(line) = out.next_line().await.unwrap() {
                seen.push_str(&line);
                seen.push('\n');
                if !updated && (line.contains("kind=add") || line.contains("\"kind\":\"add\"")) {
                    updated = true;
                    let mut secret = applied_secret(new_token);
                    let current = c.server.objects("secrets", Some("default")).unwrap();
                    let rv = current
                        .iter()
                        .find(|o| o["metadata"]["name"] == "applied")
                        .unwrap()["metadata"]["resourceVersion"]
                        .clone();
                    secret["metadata"]["resourceVersion"] = rv;
                    c.server.update_object("secrets", secret).unwrap();
                }
                if line.contains("data.token") {
                    return line;
                }
            }
            panic!("no diff line: {seen}");
        })
        .await
        .unwrap_or_else(|_| panic!("no diff line in time: {seen}"));
        child.kill().await.unwrap();
        match format {
            "table" => assert!(diff.contains("~ data.token: (redacted) changed"), "{diff}"),
            _ => assert!(
                diff.contains(
                    r#"{"path":"data.token","redacted":true,"old":"REDACTED","new":"REDACTED"}"#
                ),
                "{diff}"
            ),
        }
        for secret in [
            "b2xkLXRva2Vu",
            "bmV3LXRva2Vu",
            "bmV3ZXItdG9rZW4=",
            "hunter2",
        ] {
            assert!(!seen.contains(secret), "{format} leaked {secret}: {seen}");
        }
    }
}

#[tokio::test]
async fn demo_honours_flags_given_with_the_watch_defaults_and_its_help_shows_its_own() {
    let narrowed = run(kinformer(&[
        "demo",
        "--duration",
        "1s",
        "-o",
        "jsonl",
        "--show",
        "reflector,notifications,resync",
        "--resync",
        "0",
    ]))
    .await;
    assert_eq!(narrowed.code, 0, "{}", narrowed.stderr);
    let lines = parse_jsonl(&narrowed.stdout);
    assert!(
        events(&lines, "fifo", "delta").is_empty(),
        "--show was ignored"
    );
    assert!(!events(&lines, "reflector", "list-start").is_empty());
    let checks: Vec<&Value> = events(&lines, "informer", "handler-added")
        .iter()
        .map(|v| &v["check_period_ms"])
        .collect();
    assert!(
        !checks.is_empty() && checks.iter().all(|c| *c == 0),
        "--resync 0 was ignored: {checks:?}"
    );
    let help = run(kinformer(&["demo", "--help"])).await;
    for default in [
        "[default: lifecycle,notifications,resync]",
        "[default: 30s]",
        "[default: fast:resync=10s slow:delay=250ms]",
    ] {
        assert!(help.stdout.contains(default), "{default}: {}", help.stdout);
    }
}

/// A kubeconfig for a server at `addr` (plain HTTP, a token).
fn kubeconfig_for(dir: &std::path::Path, addr: &str) -> PathBuf {
    let path = dir.join(format!("kc-{}", addr.replace([':', '.'], "-")));
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"http://{addr}\"}}}}]\nusers: [{{name: u, user: {{token: t}}}}]\ncontexts: [{{name: c, context: {{cluster: c, user: u}}}}]\ncurrent-context: c\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A server that accepts connections and never answers; each accepted connection is reported.
async fn silent_server() -> (String, tokio::sync::mpsc::UnboundedReceiver<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (accepted, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
            let _ = accepted.send(());
        }
    });
    (addr, rx)
}

/// `child` exits with `code` within 5s of `sent` (the signal).
async fn exits_soon_after(child: &mut tokio::process::Child, sent: std::time::Instant, code: i32) {
    let status = tokio::time::timeout(DEADLINE, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(code));
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

#[tokio::test]
async fn ctrl_c_and_timeout_stop_at_once_while_connecting() {
    let dir = tempfile::tempdir().unwrap();
    // The first request is outstanding (the server never answers).
    let (silent, mut accepted) = silent_server().await;
    let kc = kubeconfig_for(dir.path(), &silent);
    let mut cmd = kinformer(&["watch", "pods", "-o", "jsonl", "--kubeconfig"]);
    cmd.arg(&kc);
    let (mut child, mut out) = spawn_with_lines(cmd);
    tokio::time::timeout(DEADLINE, accepted.recv())
        .await
        .unwrap();
    let sent = std::time::Instant::now();
    signal(child.id().unwrap(), "-INT").await;
    // Nothing ran: no summary of zeros, stdout stays empty.
    let end = tokio::time::timeout(DEADLINE, out.next_line())
        .await
        .unwrap();
    assert!(matches!(end, Ok(None)), "{end:?}");
    exits_soon_after(&mut child, sent, 130).await;
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    assert_eq!(
        stderr,
        "interrupted (SIGINT) while connecting to the server\n"
    );

    // In the retry loop (connection refused, --retry-connect): one line, no summary either.
    let refused = kubeconfig_for(dir.path(), "127.0.0.1:9");
    let mut cmd = kinformer(&["watch", "pods", "--retry-connect", "--kubeconfig"]);
    cmd.arg(&refused)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = tokio::time::timeout(DEADLINE, err.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(first.starts_with("retrying in "), "{first}");
    let sent = std::time::Instant::now();
    signal(child.id().unwrap(), "-INT").await;
    let mut rest = Vec::new();
    while let Some(line) = tokio::time::timeout(DEADLINE, err.next_line())
        .await
        .unwrap()
        .unwrap()
    {
        rest.push(line);
    }
    exits_soon_after(&mut child, sent, 130).await;
    assert_eq!(
        rest,
        ["interrupted (SIGINT) while connecting to the server"],
        "{rest:?}"
    );

    // --timeout counts from the start, connecting included.
    let started = std::time::Instant::now();
    let mut cmd = kinformer(&[
        "watch",
        "pods",
        "-o",
        "jsonl",
        "--timeout",
        "1s",
        "--kubeconfig",
    ]);
    cmd.arg(&kc);
    let timed = run(cmd).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(timed.code, 5, "{}", timed.stderr);
    assert_eq!(timed.stdout, "", "nothing ran: no summary");
    assert!(
        timed.stderr.contains("within the 1s limit"),
        "{}",
        timed.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_watch_shows_changes_per_handler_and_the_lifecycle_only() {
    // Three watches, each read until it has shown what it is checked for, then all three
    // interrupted together (so the default one ran at least until the others had shown watch
    // events, a bookmark and a status row): no fixed duration a loaded machine could outlast.
    let mut default = Interrupted::spawn(&["-o", "jsonl"]);
    let mut reflector = Interrupted::spawn(&["-o", "jsonl", "--show", "reflector"]);
    let mut table = Interrupted::spawn(&["--handler", "slow:delay=200ms"]);
    let shown = |stage: &'static str, event: &'static str| {
        move |line: &str| {
            serde_json::from_str::<Value>(line)
                .is_ok_and(|v| v["stage"] == stage && v["event"] == event)
        }
    };
    default
        .until("list-start", shown("reflector", "list-start"))
        .await;
    default
        .until("watch-start", shown("reflector", "watch-start"))
        .await;
    default.until("a notify", shown("handler", "notify")).await;
    reflector
        .until("a watch-event", shown("reflector", "watch-event"))
        .await;
    reflector
        .until("a bookmark", shown("reflector", "bookmark"))
        .await;
    table
        .until("a status row", |l| l.contains(" status "))
        .await;
    let (default, reflector, table) = tokio::join!(
        default.interrupt(),
        reflector.interrupt(),
        table.interrupt()
    );
    let lines = parse_jsonl(&default.stdout);
    for (stage, event) in [
        ("reflector", "list-start"),
        ("reflector", "watch-start"),
        ("handler", "notify"),
    ] {
        assert!(
            !events(&lines, stage, event).is_empty(),
            "default lacks {stage} {event}"
        );
    }
    for (stage, event) in [
        ("reflector", "watch-event"),
        ("reflector", "bookmark"),
        ("handler", "handled"),
    ] {
        assert!(
            events(&lines, stage, event).is_empty(),
            "default shows {stage} {event}"
        );
    }
    let lines = parse_jsonl(&reflector.stdout);
    for event in ["watch-event", "bookmark"] {
        assert!(
            !events(&lines, "reflector", event).is_empty(),
            "--show reflector lacks {event}"
        );
    }
    // A handler with a backlog gets a status row every 2s; nothing prints `handled` rows.
    let status: Vec<&str> = table
        .stdout
        .lines()
        .filter(|l| l.contains(" status "))
        .collect();
    assert!(!status.is_empty(), "{}", table.stdout);
    assert!(
        status
            .iter()
            .all(|l| l.contains("handler=slow pending=") && l.contains("handled/s=")),
        "{status:?}"
    );
    assert!(!table.stdout.contains(" handled "), "{}", table.stdout);
}

/// `kinformer watch pods -A --embedded ARGS`, its stdout read line by line as it comes, until
/// it is interrupted.
struct Interrupted {
    child: tokio::process::Child,
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    stdout: Vec<String>,
}

/// What an interrupted watch printed.
struct Printed {
    stdout: String,
}

impl Interrupted {
    fn spawn(extra: &[&str]) -> Interrupted {
        let mut args = vec!["watch", "pods", "-A", "--embedded"];
        args.extend(extra);
        let mut cmd = kinformer(&args);
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = out.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Interrupted {
            child,
            lines,
            stdout: Vec::new(),
        }
    }

    /// Reads lines until one satisfies `wanted` (or one read before did); a test failure when
    /// none comes before the deadline.
    async fn until(&mut self, what: &str, wanted: impl Fn(&str) -> bool) {
        if self.stdout.iter().any(|l| wanted(l)) {
            return;
        }
        let found = tokio::time::timeout(DEADLINE, async {
            while let Some(line) = self.lines.recv().await {
                let hit = wanted(&line);
                self.stdout.push(line);
                if hit {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(found, Ok(true), "no {what} in:\n{}", self.stdout.join("\n"));
    }

    /// SIGINT, then every line up to the end of stdout, and the exit (130, as documented).
    async fn interrupt(mut self) -> Printed {
        signal(self.child.id().unwrap(), "-INT").await;
        tokio::time::timeout(DEADLINE, async {
            while let Some(line) = self.lines.recv().await {
                self.stdout.push(line);
            }
        })
        .await
        .expect("stdout ends after SIGINT");
        let status = tokio::time::timeout(DEADLINE, self.child.wait())
            .await
            .expect("the watch exits after SIGINT")
            .unwrap();
        assert_eq!(status.code(), Some(130), "{}", self.stdout.join("\n"));
        Printed {
            stdout: self.stdout.join("\n"),
        }
    }
}

/// Runs kinformer with `args` on a pseudo-terminal (util-linux `script`), `TERM=term`, and
/// `NO_COLOR` when `no_color`; returns what the terminal received.
async fn on_a_terminal(args: &[&str], term: &str, no_color: bool) -> String {
    let line = std::iter::once(env!("CARGO_BIN_EXE_kinformer"))
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let mut script = Command::new("script");
    script
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", term)
        .env_remove("KUBECONFIG")
        .env_remove("NO_COLOR")
        .kill_on_drop(true);
    if no_color {
        script.env("NO_COLOR", "1");
    }
    let r = run(script).await;
    assert_eq!(r.code, 0, "script(1) is util-linux's; {line}: {}", r.stdout);
    r.stdout
}

fn spinner_frames(text: &str) -> usize {
    text.chars()
        .filter(|c| ('\u{2800}'..='\u{28ff}').contains(c))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_spinner_never_mixes_with_rows_and_dumb_terminals_get_plain_text() {
    let watch = ["watch", "pods", "-A", "--embedded", "--timeout", "2s"];
    let with = |extra: &[&'static str]| [&watch[..], extra].concat();
    let (a, b, plain) = (
        with(&["--show", "notifications"]),
        with(&["-o", "jsonl"]),
        with(&[]),
    );
    let (notifications, jsonl, dumb, no_color) = tokio::join!(
        on_a_terminal(&a, "xterm", false),
        on_a_terminal(&b, "xterm", false),
        on_a_terminal(&plain, "dumb", false),
        on_a_terminal(&plain, "xterm", true),
    );
    for (what, text, first_row) in [
        ("--show notifications", &notifications, " notify "),
        ("-o jsonl", &jsonl, "{\"seq\":"),
    ] {
        let at = text
            .find(first_row)
            .unwrap_or_else(|| panic!("{what}: no rows: {text}"));
        assert_eq!(
            spinner_frames(&text[at..]),
            0,
            "{what}: spinner after the rows: {text}"
        );
        assert!(!text[at..].contains("listing…"), "{what}: {text}");
    }
    assert!(notifications.contains("\u{1b}[3"), "colour on a terminal");
    assert_eq!(spinner_frames(&dumb), 0, "no spinner with TERM=dumb");
    for (what, text) in [("TERM=dumb", &dumb), ("NO_COLOR", &no_color)] {
        assert!(text.contains(" notify "), "{what}: {text}");
        assert!(!text.contains("\u{1b}[3"), "{what}: coloured: {text}");
    }
}

#[tokio::test]
async fn watch_index_shows_values_on_indexer_lines_and_the_index_table_in_the_summary() {
    let c = Cluster::start().await;
    let index = ["--index", "node=field:spec.nodeName", "--until-synced"];
    let mut args = vec![
        "watch", "pods", "-n", "default", "--show", "indexer", "-o", "jsonl",
    ];
    args.extend(index);
    let r = run(c.cmd(&args)).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    let adds = events(&lines, "indexer", "add");
    assert!(!adds.is_empty(), "{}", r.stdout);
    for add in &adds {
        let node = add["indices"]["node"][0].as_str().unwrap_or_default();
        assert!(node.starts_with("node-"), "{add}");
    }
    let summary = lines.last().unwrap();
    let held: u64 = summary["indices"]["node"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(held, adds.len() as u64, "{summary}");

    let mut table = vec!["watch", "pods", "-n", "default", "--show", "indexer"];
    table.extend(index);
    let table = run(c.cmd(&table)).await;
    assert!(table.stdout.contains(" node=node-"), "{}", table.stdout);
    assert!(table.stderr.contains("INDEX node"), "{}", table.stderr);

    // A Secret data index shows no value, on the lines or in the summary.
    let secrets = [
        "watch",
        "secrets",
        "-A",
        "--show",
        "indexer",
        "-o",
        "jsonl",
        "--until-synced",
        "--index",
        "pw=field:data.password",
    ];
    let r = run(c.cmd(&secrets)).await;
    assert!(
        !r.stdout.contains("czNjcjN0") && !r.stdout.contains("cmVkaXMt"),
        "{}",
        r.stdout
    );
    let lines = parse_jsonl(&r.stdout);
    assert_eq!(
        events(&lines, "indexer", "add")[0]["indices"]["pw"],
        serde_json::json!(["REDACTED"])
    );
    assert!(lines.last().unwrap()["indices"]["pw"]["REDACTED"].is_u64());
}

#[tokio::test]
async fn a_stalled_stdout_reader_is_told_once_that_events_pile_up_in_memory() {
    let mut cmd = kinformer(&[
        "watch",
        "pods",
        "-A",
        "--embedded",
        "--churn",
        "2000",
        "--show",
        "all",
        "-o",
        "jsonl",
    ]);
    // stdout is a pipe nobody reads: it fills, then every event waits in memory.
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let _unread = child.stdout.take().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let warning = tokio::time::timeout(DEADLINE, async {
        while let Some(line) = err.next_line().await.unwrap() {
            if line.starts_with("warning: stdout is read slower") {
                return line;
            }
        }
        panic!("stderr closed without the warning");
    })
    .await
    .expect("the backlog warning within the deadline");
    assert!(warning.contains("events wait in memory"), "{warning}");
    child.kill().await.unwrap();
}
