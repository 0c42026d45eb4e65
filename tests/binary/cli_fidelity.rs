//! The binary behaves as a client-go informer would where the CLI meets the informer's
//! outcome (Rules R8, H2, P8): only a refused *first* LIST ends the program (exit 4, after the
//! summary, whatever `--show` prints); a refusal mid-run is retried forever, visibly; a
//! panicking handler crashes by default (exit 6) and is skipped with `--on-panic skip`.

use std::process::Stdio;

use kinformer_apiserver::Fault;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{ChildStdout, Command};

use crate::binary;
use binary::*;

/// Every request for pods fails with `status` (`count` times, or until cleared).
fn fail_pods(c: &Cluster, status: u16, count: Option<u64>) {
    c.server
        .inject(&Fault::FailRequests {
            count,
            fraction: None,
            status: Some(status),
            retry_after_seconds: None,
            path: Some("/pods".into()),
        })
        .unwrap();
}

/// Asserts that stderr holds exactly one `error:` line and that it says every one of `says`.
fn assert_one_error_line(stderr: &str, says: &[&str], context: &str) {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{context}: {stderr}");
    assert!(says.iter().all(|s| errors[0].contains(s)), "{}", errors[0]);
}

#[tokio::test]
async fn r8_a_refused_first_list_exits_4_with_one_error_line_whatever_show_prints() {
    let c = Cluster::start().await;
    fail_pods(&c, 403, None);
    for show in ["notifications", "reflector", "all"] {
        let r = run(c.cmd(&["watch", "pods", "-A", "-o", "jsonl", "--show", show])).await;
        assert_eq!(r.code, 4, "--show {show}: {}", r.stderr);
        assert_one_error_line(
            &r.stderr,
            &["Forbidden: cannot list resource \"pods\""],
            &format!("--show {show}"),
        );
        let lines = parse_jsonl(&r.stdout);
        let last = lines.last().expect("the summary line");
        assert_eq!(last["stage"], "summary", "--show {show}: {}", r.stdout);
    }
    // In table mode the error line is all of stderr: no summary tables of a run that never ran.
    let r = run(c.cmd(&["watch", "pods", "-A", "--show", "notifications"])).await;
    assert_eq!(r.code, 4, "{}", r.stderr);
    let stderr: Vec<&str> = r.stderr.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(stderr.len(), 1, "{}", r.stderr);
    assert!(stderr[0].starts_with("error: "), "{}", r.stderr);
}

#[tokio::test]
async fn r8_a_400_on_the_first_list_is_one_error_line_with_the_servers_message() {
    let c = Cluster::start().await;
    for args in [
        &["dump", "pods", "-A", "--field-selector", "spec.foo=bar"][..],
        &[
            "watch",
            "pods",
            "-A",
            "-o",
            "jsonl",
            "--field-selector",
            "spec.foo=bar",
        ][..],
    ] {
        let r = run(c.cmd(args)).await;
        assert_eq!(r.code, 4, "{args:?}: {}", r.stderr);
        assert_one_error_line(&r.stderr, &["BadRequest", "spec.foo"], &format!("{args:?}"));
    }
}

/// Reads JSONL lines until one matches `done`; every line read is kept in `seen`.
async fn read_until(
    lines: &mut Lines<BufReader<ChildStdout>>,
    seen: &mut Vec<Value>,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) {
    let found = tokio::time::timeout(DEADLINE, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(serde_json::from_str(&line).unwrap());
            if done(seen) {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "{what}: {seen:#?}");
}

fn count(lines: &[Value], stage: &str, event: &str) -> usize {
    lines
        .iter()
        .filter(|v| v["stage"] == stage && v["event"] == event)
        .count()
}

#[tokio::test]
async fn r8_h2_a_mid_run_403_is_retried_until_it_recovers_and_the_relist_is_a_sync_storm() {
    let c = Cluster::start().await;
    let mut child = c
        .cmd(&[
            "watch",
            "pods",
            "-A",
            "-o",
            "jsonl",
            "--show",
            "reflector,notifications",
            "--max-backoff",
            "200ms",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    read_until(&mut lines, &mut seen, "synced", |s| {
        count(s, "informer", "synced") == 1
    })
    .await;
    let pods = seen
        .iter()
        .filter(|v| v["event"] == "notify" && v["kind"] == "add")
        .count();
    assert!(pods > 0);
    // RBAC revoked for three requests: the re-watch, then two relists are refused.
    fail_pods(&c, 403, Some(3));
    c.server.inject(&Fault::CloseWatches).unwrap();
    read_until(&mut lines, &mut seen, "recovered", |s| {
        count(s, "reflector", "list-done") == 2
    })
    .await;
    let refused = |event: &str| {
        seen.iter()
            .filter(|v| v["event"] == event && v["code"] == 403)
            .count()
    };
    // The re-watch and the watch-list relist are WATCH requests (watch-error); the watch-list's
    // fallback LIST is a list-error.
    assert_eq!(
        refused("watch-error") + refused("list-error"),
        3,
        "every refusal is visible"
    );
    assert!(refused("list-error") >= 1, "a refused LIST says list-error");
    // A refused re-watch and a refused ListAndWatch back off (the watch-list's fallback to
    // LIST within one ListAndWatch does not).
    assert!(count(&seen, "reflector", "backoff") >= 2);
    // The relist hands every unchanged pod to the handler again, as update(old, new) with
    // equal resourceVersions: a sync (check period 0 keeps the handler syncing for ever).
    read_until(&mut lines, &mut seen, "sync storm", |s| {
        s.iter()
            .filter(|v| v["event"] == "notify" && v["sync"] == true)
            .count()
            >= pods
    })
    .await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
}

#[tokio::test]
async fn p8_a_panicking_handler_crashes_by_default_with_exit_6_after_the_summary() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&[
        "watch",
        "pods",
        "-A",
        "-o",
        "jsonl",
        "--handler",
        "boom:panic-every=3",
    ]))
    .await;
    assert_eq!(r.code, 6, "{}", r.stderr);
    assert_one_error_line(&r.stderr, &["handler \"boom\" panicked"], "panic-every=3");
    let lines = parse_jsonl(&r.stdout);
    let summary = lines.last().unwrap();
    assert_eq!(summary["stage"], "summary");
    assert_eq!(summary["handlers"][0]["panics"], 1, "{summary}");
    assert!(
        lines
            .iter()
            .any(|v| v["event"] == "stopped" && v["reason"].as_str().unwrap().contains("boom")),
        "{}",
        r.stdout
    );
}

#[tokio::test]
async fn p8_with_on_panic_skip_the_notification_is_lost_and_the_handler_goes_on() {
    let c = Cluster::start().await;
    let r = run(c.cmd(&[
        "watch",
        "pods",
        "-A",
        "-o",
        "jsonl",
        "--show",
        "handlers",
        "--handler",
        "boom:panic-every=40",
        "--on-panic",
        "skip",
        "--timeout",
        "4s",
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = parse_jsonl(&r.stdout);
    let panicked = lines
        .iter()
        .filter(|v| v["event"] == "handled" && v["panicked"] == true)
        .count();
    assert!(panicked >= 1, "{}", r.stdout);
    let handled = lines.iter().filter(|v| v["event"] == "handled").count();
    assert!(
        handled > 40,
        "the handler went on after the panic: {handled}"
    );
}

/// A server that answers discovery for pods, then garbage to every LIST.
async fn garbage_server() -> (String, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let path = path.split('?').next().unwrap_or(path);
                let body = match path {
                    "/version" => r#"{"major":"1","minor":"32","gitVersion":"v1.32.4"}"#,
                    "/api" => {
                        r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#
                    }
                    "/apis" => r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[]}"#,
                    "/api/v1" => {
                        r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["list","watch"],"shortNames":["po"]}]}"#
                    }
                    _ => "<html>this is not a Kubernetes list</html>",
                };
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(response.as_bytes()).await;
            });
        }
    });
    (url, task)
}

#[tokio::test]
async fn r1_a_server_answering_garbage_to_the_first_list_is_one_error_line() {
    let (url, server) = garbage_server().await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"{url}\"}}}}]\nusers: [{{name: u, user: {{token: t}}}}]\ncontexts: [{{name: c, context: {{cluster: c, user: u, namespace: default}}}}]\ncurrent-context: c\n"
        ),
    )
    .unwrap();
    for args in [&["dump", "pods"][..], &["watch", "pods", "-o", "jsonl"][..]] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kinformer"));
        c.args(args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env_remove("KUBECONFIG")
            .kill_on_drop(true);
        let r = run(c).await;
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert_one_error_line(
            &r.stderr,
            &["list pods", "malformed response"],
            &format!("{args:?}"),
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    server.abort();
}

/// Rules R10 and R8 through the binary's own client stack (its request log rewrites dial
/// errors kubectl's way and must keep the io error's kind): the server is killed under an
/// open watch; the stream's end re-watches at once from the same resourceVersion, the refused
/// connection is retried in place after a backoff, and nothing relists — client-go
/// reflector.go v0.36 `watch` (:561-668) and `isWatchErrorRetriable` (:1195).
#[tokio::test]
async fn r10_r8_a_killed_server_is_rewatched_in_place_without_a_relist() {
    let Cluster { server, dir } = Cluster::start().await;
    let mut child = kinformer(&[
        "watch",
        "configmaps",
        "-A",
        "-o",
        "jsonl",
        "--show",
        "reflector",
        "--max-backoff",
        "300ms",
        "--kubeconfig",
    ])
    .arg(dir.path().join("config"))
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    read_until(&mut lines, &mut seen, "synced", |s| {
        count(s, "informer", "synced") == 1
    })
    .await;
    server
        .create_object(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "before-the-crash", "namespace": "default"}
        }))
        .unwrap();
    read_until(&mut lines, &mut seen, "watched", |s| {
        count(s, "reflector", "watch-event") >= 1
    })
    .await;
    server.shutdown().await;
    read_until(&mut lines, &mut seen, "retried in place", |s| {
        count(s, "reflector", "watch-start") >= 3
    })
    .await;
    let refused = seen
        .iter()
        .filter(|v| v["event"] == "watch-error" && v["reason"] == "ConnectionRefused")
        .count();
    assert!(refused >= 1, "{seen:#?}");
    assert!(
        seen.iter().any(|v| v["event"] == "watch-error"
            && v["message"]
                .as_str()
                .is_some_and(|m| m.contains("connect: connection refused"))),
        "kubectl's words stay: {seen:#?}"
    );
    assert_eq!(count(&seen, "reflector", "relist"), 0, "{seen:#?}");
    assert_eq!(count(&seen, "reflector", "list-start"), 1, "{seen:#?}");
    let watch_rvs: Vec<&Value> = seen
        .iter()
        .filter(|v| v["event"] == "watch-start")
        .map(|v| &v["rv"])
        .skip(1)
        .collect();
    let last_rv = seen
        .iter()
        .rev()
        .find(|v| v["event"] == "watch-event")
        .map(|v| &v["rv"]);
    assert!(watch_rvs.iter().all(|rv| Some(*rv) == last_rv), "{seen:#?}");
    child.start_kill().unwrap();
    let _ = child.wait().await;
}

/// Issue 25 item 4: a server certificate that fails verification is permanent — kubectl fails
/// at once with Go's x509 words, and so does kinformer (no retry loop, no "dial tcp").
#[tokio::test]
async fn a_certificate_signed_by_an_unknown_authority_fails_at_once_with_its_cause() {
    use kinformer_apiserver::{EmbeddedServer, ServerConfig};
    let server = EmbeddedServer::start(ServerConfig {
        tls: true,
        ..ServerConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The server's own kubeconfig without its CA: the system roots do not know it.
    let kubeconfig = serde_json::json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server.url()}}],
        "users": [{"name": "u", "user": {"token": server.token()}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    })
    .to_string();
    let path = dir.path().join("config");
    std::fs::write(&path, kubeconfig).unwrap();
    let mut command = kinformer(&["watch", "pods", "-o", "jsonl", "--kubeconfig"]);
    command.arg(&path);
    let out = run(command).await;
    assert_eq!(out.code, 5, "{}", out.stderr);
    let errors: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stderr);
    assert!(
        errors[0].contains(
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        ),
        "{}",
        out.stderr
    );
    assert!(!errors[0].contains("dial tcp"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("retrying in"),
        "not retried: {}",
        out.stderr
    );
}

/// Issue 49 item 10: a server certificate not valid for the name asked for reads as Go's
/// crypto/x509 `HostnameError` (verify.go), word for word what kubectl prints for the same
/// kubeconfig — for a DNS name and for an IP address (`tls-server-name`), not rustls' debug
/// struct.
#[tokio::test]
async fn a_certificate_for_another_name_fails_in_kubectls_x509_words() {
    use kinformer_apiserver::{EmbeddedServer, ServerConfig};
    let server = EmbeddedServer::start(ServerConfig {
        tls: true,
        ..ServerConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("own");
    server.write_kubeconfig(&own).unwrap();
    let text = std::fs::read_to_string(&own).unwrap();
    let kubectl = crate::apiserver_http::kubectl_binary().unwrap_or_else(|e| panic!("{e}"));
    for name in ["kubernetes.example", "10.0.0.1"] {
        let mut config: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        config["clusters"][0]["cluster"]["tls-server-name"] = serde_json::json!(name);
        let path = dir.path().join(name);
        std::fs::write(&path, config.to_string()).unwrap();
        let mut watch = kinformer(&["watch", "pods", "-o", "jsonl", "--kubeconfig"]);
        watch.arg(&path);
        let ours = run(watch).await;
        assert_eq!(ours.code, 5, "{}", ours.stderr);
        let theirs = tokio::process::Command::new(&kubectl)
            .arg("--kubeconfig")
            .arg(&path)
            .args(["get", "pods"])
            .output()
            .await
            .unwrap();
        let theirs = String::from_utf8_lossy(&theirs.stderr);
        let x509 = |text: &str| {
            text.lines()
                .rev()
                .find_map(|l| l.find("x509: ").map(|at| l[at..].to_owned()))
                .unwrap_or_else(|| panic!("no x509 words: {text}"))
        };
        assert_eq!(x509(&ours.stderr), x509(&theirs), "{name}");
        assert!(
            x509(&ours.stderr).contains(&format!(", not {name}")),
            "{}",
            ours.stderr
        );
    }
}
