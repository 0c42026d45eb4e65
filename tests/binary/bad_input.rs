//! Bad input, table-driven: each case is one stderr line `error: …` naming the problem (plus,
//! for an unreachable server, one `retrying in …` line per attempt), its documented exit code,
//! no panic and nothing on stdout.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kinformer_apiserver::{EmbeddedServer, Fault, ServerConfig};
use tokio::process::Command;

const DEADLINE: Duration = Duration::from_secs(60);

/// One bad input and what must come of it.
struct Case {
    name: &'static str,
    args: Vec<String>,
    code: i32,
    /// The error line contains this.
    names: String,
    /// Extra stderr lines allowed before the error (`retrying in` lines).
    retries: bool,
}

fn case(name: &'static str, args: &[&str], code: i32, names: &str) -> Case {
    Case {
        name,
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        code,
        names: names.to_owned(),
        retries: false,
    }
}

fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A duration past Go's maximum (and past what a clock can add).
const HUGE: &str = "9223372036854775807s";

const UNREACHABLE_KUBECONFIG: &str = r#"apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]
users: [{name: u, user: {token: abc}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
"#;

async fn check(case: &Case) {
    let output = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(&case.args)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(DEADLINE, output)
        .await
        .unwrap_or_else(|_| panic!("{}: no exit within {DEADLINE:?}", case.name))
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let name = case.name;
    assert_eq!(output.status.code(), Some(case.code), "{name}: {stderr}");
    assert!(output.stdout.is_empty(), "{name}: stdout not empty");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{name}: {stderr}");
    assert!(
        errors[0].contains(&case.names),
        "{name}: {:?} lacks {:?}",
        errors[0],
        case.names
    );
    // Besides the error: clap's hint after usage errors, and the unreachable retries.
    let others: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("error: ") && !l.is_empty())
        .filter(|l| !l.starts_with("For more information, try '--help'"))
        .collect();
    if case.retries {
        assert!(!others.is_empty(), "{name}: no retry line");
        assert!(
            others.iter().all(|l| l.starts_with("retrying in ")),
            "{name}: {stderr}"
        );
    } else {
        assert!(others.is_empty(), "{name}: more than one line: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_one_line_with_its_exit_code() {
    let server = EmbeddedServer::start(ServerConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("config");
    server.write_kubeconfig(&good).unwrap();
    let token = server.token().unwrap().to_owned();
    let wrong = write(
        dir.path(),
        "wrong",
        &std::fs::read_to_string(&good)
            .unwrap()
            .replace(&token, "wrong-token"),
    );
    let garbled = write(dir.path(), "garbled", "{{ not yaml");
    let unreachable = write(dir.path(), "unreachable", UNREACHABLE_KUBECONFIG);
    let bad_scenario = write(
        dir.path(),
        "bad.yaml",
        "steps:\n  - {at: 1s, create: {count: 1}}\n  - {at: 2s, explode: now}\n",
    );
    let huge_scenario = write(
        dir.path(),
        "huge.yaml",
        &format!("steps:\n  - {{at: {HUGE}, end: true}}\n"),
    );
    let huge_scenario = path_arg(&huge_scenario);
    let huge_handler = format!("x:resync={HUGE}");
    let (good, wrong, garbled, unreachable, bad_scenario) = (
        path_arg(&good),
        path_arg(&wrong),
        path_arg(&garbled),
        path_arg(&unreachable),
        path_arg(&bad_scenario),
    );
    let with = |args: &[&str], kubeconfig: &str| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--kubeconfig", kubeconfig]);
        all.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()
    };
    let mut cases = vec![
        case(
            "missing kubeconfig",
            &["dump", "pods", "--kubeconfig", "/nonexistent/kc"],
            3,
            "error: cannot read kubeconfig /nonexistent/kc: No such file or directory",
        ),
        Case {
            args: with(&["dump", "pods"], &garbled),
            ..case("garbled kubeconfig", &[], 3, "kubeconfig")
        },
        Case {
            args: with(&["dump", "pods", "--context", "nope"], &good),
            ..case(
                "unknown context",
                &[],
                3,
                &format!("context \"nope\" not found in {good}"),
            )
        },
        Case {
            args: with(
                &["dump", "pods", "--retry-connect", "--retry-timeout", "2s"],
                &unreachable,
            ),
            retries: true,
            ..case(
                "unreachable server",
                &[],
                5,
                "unable to connect to the server: Get \"http://127.0.0.1:9/api\": dial tcp 127.0.0.1:9: connect: connection refused",
            )
        },
        Case {
            args: with(&["dump", "pods"], &wrong),
            ..case("401", &[], 4, "Unauthorized")
        },
        Case {
            args: with(&["watch", "podz"], &good),
            ..case("unknown resource", &[], 4, "\"podz\"")
        },
        Case {
            args: with(&["watch", "pods", "-l", "app in (web"], &good),
            ..case("invalid label selector", &[], 2, "app in (web")
        },
        Case {
            args: with(
                &["watch", "pods", "--field-selector", "metadata.name"],
                &good,
            ),
            ..case("invalid field selector", &[], 2, "metadata.name")
        },
        Case {
            args: with(&["watch", "pods", "--resync", "5x"], &good),
            ..case("invalid duration", &[], 2, "5x")
        },
        Case {
            args: with(&["watch", "pods", "--timeout", HUGE], &good),
            ..case("overflowing --timeout", &[], 2, "too large")
        },
        Case {
            args: with(&["watch", "pods", "--resync", HUGE], &good),
            ..case("overflowing --resync", &[], 2, "too large")
        },
        Case {
            args: with(&["watch", "pods", "--handler", &huge_handler], &good),
            ..case("overflowing handler resync", &[], 2, "too large")
        },
        Case {
            args: with(&["resync", "pods", "--duration", HUGE], &good),
            ..case("overflowing resync --duration", &[], 2, "too large")
        },
        case(
            "overflowing demo --duration",
            &["demo", "--duration", HUGE],
            2,
            "too large",
        ),
        case(
            "overflowing scenario time",
            &["demo", "--scenario", &huge_scenario],
            3,
            "too large",
        ),
        Case {
            args: with(
                &["watch", "pods", "--index", "by-node=fields:spec.nodeName"],
                &good,
            ),
            ..case("invalid index expression", &[], 2, "fields:spec.nodeName")
        },
        Case {
            args: with(
                &["watch", "pods", "--index", "node=field:spec.[nodeName"],
                &good,
            ),
            ..case("malformed index path", &[], 2, "\"[nodeName\" in path")
        },
        Case {
            args: with(&["dump", "pods"], &unreachable),
            ..case(
                "unreachable server, no --retry-connect",
                &[],
                5,
                "connect: connection refused (--retry-connect retries it)",
            )
        },
        case(
            "scenario with an unknown step",
            &["demo", "--scenario", &bad_scenario],
            3,
            "step 2: unknown step kind \"explode\"",
        ),
        case(
            "missing scenario",
            &["demo", "--scenario", "/nonexistent/s.yaml"],
            3,
            "/nonexistent/s.yaml",
        ),
        case(
            "man into a directory that cannot be made",
            &["man", "--out-dir", "/proc/kinformer-man"],
            1,
            "/proc/kinformer-man",
        ),
        case(
            "serve with a missing seed file",
            &["serve", "--seed", "/nonexistent/seed.yaml"],
            3,
            "/nonexistent/seed.yaml",
        ),
        case(
            "serve with a malformed seed file",
            &["serve", "--seed", &garbled],
            3,
            "invalid seed file",
        ),
        case(
            "serve with a seed document that is no object",
            &["serve", "--seed", &bad_scenario],
            3,
            "document 1",
        ),
        case(
            "serve with a bad scenario",
            &["serve", "--scenario", &bad_scenario],
            3,
            "step 2",
        ),
    ];
    for case in &cases {
        check(case).await;
    }
    // 403 last: it arms a fault that fails every pods request from now on.
    server
        .inject(&Fault::FailRequests {
            count: None,
            fraction: None,
            status: Some(403),
            retry_after_seconds: None,
            path: Some("/pods".into()),
        })
        .unwrap();
    cases.clear();
    cases.push(Case {
        args: with(&["dump", "pods"], &good),
        ..case("403", &[], 4, "Forbidden: cannot list resource \"pods\"")
    });
    for case in &cases {
        check(case).await;
    }
    // A 401 on the LIST itself (discovery passed) names the verb and resource as well.
    server
        .inject(&Fault::FailRequests {
            count: None,
            fraction: None,
            status: Some(401),
            retry_after_seconds: None,
            path: Some("/pods".into()),
        })
        .unwrap();
    check(&Case {
        args: with(&["dump", "pods"], &good),
        ..case("401 on list", &[], 4, "(list pods: Unauthorized")
    })
    .await;
    server.shutdown().await;
}

/// Issue 49 item 10: a YAML error in a scenario or a kubeconfig is one clean line — the
/// message and where — without serde-saphyr's snippet flattened into it (it repeated the
/// offending text); an empty scenario file, or one without steps, is refused (exit 3) instead
/// of running until `--timeout`.
#[tokio::test]
async fn yaml_errors_are_one_clean_line_and_an_empty_scenario_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let unclosed = write(
        dir.path(),
        "unclosed.yaml",
        "steps:\n  - at: 0s\n    create: {count: [\n",
    );
    let empty = write(dir.path(), "empty.yaml", "");
    let stepless = write(
        dir.path(),
        "stepless.yaml",
        "description: nothing happens\n",
    );
    let kubeconfig = write(
        dir.path(),
        "kubeconfig",
        "apiVersion: v1\nclusters: [\n  - name: x\n",
    );
    let scenario = |path: &Path| {
        let path = path_arg(path);
        vec![
            "demo".to_owned(),
            "--scenario".into(),
            path,
            "--timeout".into(),
            "20s".into(),
        ]
    };
    let cases = [
        (
            scenario(&unclosed),
            "invalid scenario",
            "at line 3, column",
            "count: [",
        ),
        (scenario(&empty), "the file is empty", "", "\n\n"),
        (scenario(&stepless), "no steps", "", "description"),
        (
            vec![
                "watch".into(),
                "pods".into(),
                "--kubeconfig".into(),
                path_arg(&kubeconfig),
            ],
            "failed to parse kubeconfig YAML",
            "at line 3, column",
            "name: x",
        ),
    ];
    for (args, names, location, snippet) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        check(&case("a YAML problem", &args, 3, names)).await;
        let output = Command::new(env!("CARGO_BIN_EXE_kinformer"))
            .args(&args)
            .env_remove("KUBECONFIG")
            .output()
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(location), "{args:?}: {stderr}");
        assert!(!stderr.contains(snippet), "{args:?}: the snippet: {stderr}");
    }
}
