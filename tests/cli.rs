//! The built binary against the embedded API server (started in-process on 127.0.0.1:0, its
//! kubeconfig written to a temp dir): every command and output mode, the JSONL contract, the
//! resync debugger's schedule, exit codes, signals and pipes, bad input, kubectl plugin use.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use kinformer::apiserver::{EmbeddedServer, Seed, ServerConfig};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const DEADLINE: Duration = Duration::from_secs(60);

struct Cluster {
    server: EmbeddedServer,
    dir: tempfile::TempDir,
}

impl Cluster {
    async fn start() -> Self {
        let server = EmbeddedServer::start(ServerConfig {
            seed: vec![Seed::Builtin],
            ..ServerConfig::default()
        })
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        server.write_kubeconfig(&dir.path().join("config")).unwrap();
        Self { server, dir }
    }

    fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// `kinformer ARGS --kubeconfig K`.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = kinformer(args);
        c.arg("--kubeconfig").arg(self.kubeconfig());
        c
    }
}

fn kinformer(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    c.args(args)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true);
    c
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn run(mut c: Command) -> Run {
    let out = tokio::time::timeout(DEADLINE, c.output())
        .await
        .expect("command timed out")
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Parses every JSONL line, checks the common contract, returns the objects.
fn parse_jsonl(stdout: &str) -> Vec<Value> {
    let mut last_seq = 0;
    stdout
        .lines()
        .map(|line| {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            let seq = v["seq"].as_u64().expect("seq");
            assert!(seq > last_seq, "seq not strictly increasing: {line}");
            last_seq = seq;
            let ts = v["ts"].as_str().expect("ts");
            assert!(
                ts.parse::<jiff::Timestamp>().is_ok() && ts.ends_with('Z') && ts.len() == 27,
                "ts: {ts}"
            );
            assert!(v["stage"].is_string() && v["event"].is_string(), "{line}");
            v
        })
        .collect()
}

fn events<'a>(lines: &'a [Value], stage: &str, event: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|v| v["stage"] == stage && v["event"] == event)
        .collect()
}

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
        ("reflector", "list-page"),
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
    assert_eq!(lines.len(), 4, "three events and the summary");
    let name = run(c.cmd(&["watch", "nodes", "node-1", "-o", "jsonl", "--until-synced"])).await;
    let synced = parse_jsonl(&name.stdout);
    assert_eq!(
        events(&synced, "informer", "synced")[0]["objects"],
        1,
        "NAME selects one object"
    );
    let timed = run(c.cmd(&["watch", "nodes", "-o", "jsonl", "--timeout", "1s"])).await;
    assert_eq!(timed.code, 0);
    assert_eq!(
        parse_jsonl(&timed.stdout).last().unwrap()["stage"],
        "summary"
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
    assert!(table.stdout.contains("INDEX by-node") && table.stdout.contains("ReplicaSet/"));

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
    assert_eq!(lines.last().unwrap()["stage"], "summary");
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
