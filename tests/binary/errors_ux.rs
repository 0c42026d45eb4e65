//! The error paths a new user meets (issue 39, items 4 and 9): each one line on stderr, the
//! documented exit code, at once — a refused first LIST, a non-Kubernetes endpoint, a server
//! that is not there, an empty result, a misspelt `--index` path (refused from the server's
//! OpenAPI schema with a did-you-mean) — and kubectl's global flags (`--server`, `--token`,
//! `--as`, `--as-group`, `--request-timeout`, `--insecure-skip-tls-verify`), each against a
//! server that checks it: the embedded server, the real kube-apiserver, or a socket of the
//! test's own.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::binary::{Cluster, DEADLINE, kinformer, run};
use crate::refserver_fixture::RefServer;

/// The non-empty stderr lines.
fn lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| !l.is_empty()).collect()
}

/// A kubeconfig for `server` (no CA) with token `token`.
fn kubeconfig_for(dir: &Path, name: &str, server: &str, token: &str) -> PathBuf {
    let path = dir.join(name);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"{server}\"}}}}]\n\
         users: [{{name: u, user: {{token: {token}}}}}]\n\
         contexts: [{{name: c, context: {{cluster: c, user: u}}}}]\ncurrent-context: c\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// An address nothing listens on (a port bound, then released).
async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    drop(listener);
    addr
}

/// An HTTP server that answers every request with `status` and a long HTML page.
async fn html_server(status: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let _ = socket.read(&mut buf).await;
                let filler = "<p>Lorem ipsum dolor sit amet.</p>\n".repeat(200);
                let body = format!(
                    "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\
                     <body><h1>Welcome</h1>{filler}</body></html>\n"
                );
                let response = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    addr
}

/// A server that accepts connections and never answers.
async fn silent_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    addr
}

#[tokio::test]
async fn a_refused_first_list_prints_its_error_line_and_no_summary() {
    let c = Cluster::start().await;
    for format in ["table", "wide"] {
        let r = run(c.cmd(&[
            "watch",
            "pods",
            "--field-selector",
            "spec.foo=bar",
            "-o",
            format,
        ]))
        .await;
        assert_eq!(r.code, 4, "{}", r.stderr);
        let errors = lines(&r.stderr);
        assert_eq!(errors.len(), 1, "{format}: one line only: {}", r.stderr);
        assert!(errors[0].starts_with("error: "), "{}", r.stderr);
        assert!(!r.stdout.contains("Summary"), "{}", r.stdout);
    }
}

#[tokio::test]
async fn a_non_kubernetes_endpoint_is_one_short_line() {
    for status in ["404 Not Found", "200 OK"] {
        let addr = html_server(status).await;
        let r = run(kinformer(&[
            "dump",
            "pods",
            "--server",
            &format!("http://{addr}"),
        ]))
        .await;
        assert_eq!(r.code, 5, "{status}: {}", r.stderr);
        let errors = lines(&r.stderr);
        assert_eq!(errors.len(), 1, "{status}: {}", r.stderr);
        let line = errors[0];
        assert!(
            line.starts_with("error: ")
                && line.contains(status)
                && line.contains("text/html")
                && line.contains("Welcome to nginx!")
                && !line.contains("<html")
                && line.len() < 300,
            "{line}"
        );
        assert!(r.stdout.is_empty());
    }
}

#[tokio::test]
async fn a_refused_first_connection_fails_at_once_unless_asked_to_retry() {
    let dir = tempfile::tempdir().unwrap();
    let addr = closed_port().await;
    let kc = kubeconfig_for(dir.path(), "kc", &format!("http://{addr}"), "t");
    let started = Instant::now();
    let r = run(kinformer(&["watch", "pods", "--kubeconfig", arg(&kc)])).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert_eq!(lines(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("connection refused") && r.stderr.contains("--retry-connect"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);

    let retried = run(kinformer(&[
        "dump",
        "pods",
        "--retry-connect",
        "--retry-timeout",
        "2s",
        "--kubeconfig",
        arg(&kc),
    ]))
    .await;
    assert_eq!(retried.code, 5, "{}", retried.stderr);
    let all = lines(&retried.stderr);
    assert!(all.len() > 1, "{}", retried.stderr);
    assert!(
        all[..all.len() - 1]
            .iter()
            .all(|l| l.starts_with("retrying in ")),
        "{}",
        retried.stderr
    );
    assert!(
        all[all.len() - 1].contains("gave up after 2s"),
        "{}",
        retried.stderr
    );
}

#[tokio::test]
async fn an_empty_dump_says_no_resources_found_like_kubectl() {
    let c = Cluster::start().await;
    for format in ["table", "wide", "jsonl"] {
        let r = run(c.cmd(&["dump", "pods", "-n", "nosuchns", "-o", format])).await;
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, "", "{format}");
        assert_eq!(r.stderr, "No resources found in nosuchns namespace.\n");
    }
    let all = run(c.cmd(&["dump", "pods", "-A", "-l", "app=nothing-has-this"])).await;
    assert_eq!((all.code, all.stdout.as_str()), (0, ""), "{}", all.stderr);
    assert_eq!(all.stderr, "No resources found\n");
    // A selector nothing matches in a namespace that has pods: kubectl says the namespace's
    // line all the same (get.go prints it whenever nothing was written: issue 49 item 10).
    assert!(
        !c.server
            .objects("pods", Some("default"))
            .unwrap()
            .is_empty()
    );
    let kubectl = crate::apiserver_http::kubectl_binary().unwrap_or_else(|e| panic!("{e}"));
    let selector = ["-n", "default", "-l", "app=nothing-has-this"];
    let ours = run(c.cmd(&[&["dump", "pods"][..], &selector[..]].concat())).await;
    let theirs = tokio::process::Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(c.kubeconfig())
        .arg("get")
        .arg("pods")
        .args(selector)
        .output()
        .await
        .unwrap();
    assert_eq!(
        ours.stderr,
        String::from_utf8_lossy(&theirs.stderr),
        "kubectl's words"
    );
    assert_eq!(ours.stderr, "No resources found in default namespace.\n");
    // JSON and YAML print the empty list, as kubectl -o json does.
    let json = run(c.cmd(&["dump", "pods", "-n", "nosuchns", "-o", "json"])).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let list: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(list["items"], serde_json::json!([]));
}

#[tokio::test]
async fn server_and_token_flags_override_the_kubeconfig() {
    let c = Cluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let nowhere = kubeconfig_for(
        dir.path(),
        "nowhere",
        &format!("http://{}", closed_port().await),
        "wrong-token",
    );
    let url = c.server.url().to_string();
    let token = c.server.token().unwrap().to_owned();
    let base = [
        "dump",
        "namespaces",
        "-o",
        "json",
        "--kubeconfig",
        arg(&nowhere),
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()
    };
    let cmd = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        kinformer(&args)
    };
    let denied = run(cmd(with(&["--server", &url]))).await;
    assert_eq!(denied.code, 4, "{}", denied.stderr);
    assert!(denied.stderr.contains("Unauthorized"), "{}", denied.stderr);
    let ok = run(cmd(with(&["-s", &url, "--token", &token]))).await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("\"default\""), "{}", ok.stdout);
    let bad = run(cmd(with(&["--server", "http://"]))).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--server"), "{}", bad.stderr);
}

#[tokio::test]
async fn request_timeout_gives_up_on_a_server_that_stalls() {
    let dir = tempfile::tempdir().unwrap();
    let addr = silent_server().await;
    let kc = kubeconfig_for(dir.path(), "kc", &format!("http://{addr}"), "t");
    let started = Instant::now();
    let r = run(kinformer(&[
        "dump",
        "pods",
        "--request-timeout",
        "1s",
        "--kubeconfig",
        arg(&kc),
    ]))
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert_eq!(lines(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("timeout"), "{}", r.stderr);
}

#[tokio::test]
async fn insecure_skip_tls_verify_token_and_server_reach_the_real_kube_apiserver() {
    let server = RefServer::shared();
    let dir = tempfile::tempdir().unwrap();
    let nowhere = kubeconfig_for(
        dir.path(),
        "nowhere",
        &format!("http://{}", closed_port().await),
        "wrong-token",
    );
    let args = |extra: &[&str]| {
        let mut all = vec![
            "dump",
            "namespaces",
            "-o",
            "json",
            "--kubeconfig",
            arg(&nowhere),
            "--server",
            &server.url,
            "--token",
            "admin-token",
        ];
        all.extend_from_slice(extra);
        kinformer(&all)
    };
    let unverified = run(args(&[])).await;
    assert_eq!(unverified.code, 5, "{}", unverified.stderr);
    assert!(
        unverified
            .stderr
            .contains("x509: certificate signed by unknown authority"),
        "{}",
        unverified.stderr
    );
    let insecure = run(args(&["--insecure-skip-tls-verify"])).await;
    assert_eq!(insecure.code, 0, "{}", insecure.stderr);
    assert!(
        insecure.stdout.contains("kube-system"),
        "{}",
        insecure.stdout
    );
}

#[tokio::test]
async fn as_and_as_group_impersonate_under_the_real_servers_rbac() {
    let server = RefServer::shared();
    let ns = server.namespace("as");
    let dump = |extra: &[&str]| {
        let mut args = vec!["dump", "configmaps", "-n", ns.as_str(), "-o", "json"];
        args.extend_from_slice(extra);
        let mut c = kinformer(&args);
        c.arg("--kubeconfig").arg(server.kubeconfig());
        c
    };
    let forbidden = run(dump(&["--as", "nobody"])).await;
    assert_eq!(forbidden.code, 4, "{}", forbidden.stderr);
    assert_eq!(lines(&forbidden.stderr).len(), 1, "{}", forbidden.stderr);
    assert!(
        forbidden.stderr.contains("Forbidden") && forbidden.stderr.contains("\"nobody\""),
        "{}",
        forbidden.stderr
    );
    let masters = run(dump(&["--as", "nobody", "--as-group", "system:masters"])).await;
    assert_eq!(masters.code, 0, "{}", masters.stderr);
    // A role of its own: the aggregated `view` is empty without kube-controller-manager.
    server.kubectl(&[
        "create",
        "role",
        "configmap-reader",
        "--verb=get,list,watch",
        "--resource=configmaps",
        "-n",
        &ns,
    ]);
    server.kubectl(&[
        "create",
        "rolebinding",
        "nobody-reads",
        "--role=configmap-reader",
        "--user=nobody",
        "-n",
        &ns,
    ]);
    // The authorizer sees the new binding once its informer has it.
    let bound = Instant::now();
    while !can_list_configmaps(&server, &ns, "nobody") {
        assert!(
            bound.elapsed() < DEADLINE,
            "the role binding never took effect"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let viewer = run(dump(&["--as", "nobody"])).await;
    assert_eq!(viewer.code, 0, "{}", viewer.stderr);
    let groupless = run(kinformer(&["dump", "pods", "--as-group", "g"])).await;
    assert_eq!(
        groupless.code, 2,
        "--as-group needs --as: {}",
        groupless.stderr
    );
}

/// `kubectl auth can-i list configmaps -n NS --as USER`.
fn can_list_configmaps(server: &RefServer, ns: &str, user: &str) -> bool {
    let out = std::process::Command::new("kubectl")
        .args([
            "auth",
            "can-i",
            "list",
            "configmaps",
            "-n",
            ns,
            "--as",
            user,
        ])
        .env("KUBECONFIG", server.kubeconfig())
        .output()
        .expect("kubectl runs");
    String::from_utf8_lossy(&out.stdout).trim() == "yes"
}

#[tokio::test]
async fn a_malformed_index_path_is_refused_before_connecting() {
    for (expr, why) in [
        ("node=field:spec.[nodeName", "\"[nodeName\""),
        ("node=field:spec..nodeName", "empty segment"),
        ("img=field:spec.containers[*].image", "arrays fan out"),
    ] {
        // Nothing listens at the server: the refusal comes before any connection.
        let r = run(kinformer(&[
            "watch",
            "pods",
            "--server",
            "http://127.0.0.1:9",
            "--index",
            expr,
        ]))
        .await;
        assert_eq!(r.code, 2, "{expr}: {}", r.stderr);
        let error = lines(&r.stderr)[0];
        let field = expr.split_once('=').unwrap().1;
        assert!(
            error.contains(field) && error.contains(why),
            "{expr}: {error}"
        );
    }
}

/// `kinformer dump pods -n NS --index EXPR` against the real server.
async fn dump_with_index(
    server: &RefServer,
    resource: &str,
    ns: &str,
    index: &str,
) -> crate::binary::Run {
    let mut c = kinformer(&["dump", resource, "-n", ns, "--index", index]);
    c.arg("--kubeconfig").arg(server.kubeconfig());
    run(c).await
}

#[tokio::test]
async fn an_index_path_the_schema_lacks_is_refused_with_a_did_you_mean() {
    let server = RefServer::shared();
    let ns = server.namespace("index-schema");
    let wrong = dump_with_index(&server, "pods", &ns, "node=field:spec.nodename").await;
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
    assert_eq!(
        lines(&wrong.stderr),
        [
            "error: --index node=field:spec.nodename: pods have no field spec.nodename (did you mean spec.nodeName?)"
        ]
    );
    for good in [
        "node=field:spec.nodeName",
        "image=field:spec.containers.image",
        "app=field:metadata.labels.app",
    ] {
        let r = dump_with_index(&server, "pods", &ns, good).await;
        assert_eq!(r.code, 0, "{good}: {}", r.stderr);
    }
    let deploy = dump_with_index(&server, "deploy", &ns, "r=field:spec.replica").await;
    assert_eq!(deploy.code, 2, "{}", deploy.stderr);
    assert!(
        deploy
            .stderr
            .contains("deployments.apps have no field spec.replica (did you mean spec.replicas?)"),
        "{}",
        deploy.stderr
    );
}

#[tokio::test]
async fn a_crds_index_paths_are_checked_against_its_published_schema() {
    let server = RefServer::shared();
    let ns = server.namespace("index-crd");
    server.apply(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: gizmos.errors.kinformer.dev\nspec:\n  group: errors.kinformer.dev\n  names:\n    \
         kind: Gizmo\n    plural: gizmos\n    singular: gizmo\n  scope: Namespaced\n  \
         versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      \
         openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            \
         type: object\n            properties:\n              size:\n                type: integer\n              \
         extra:\n                type: object\n                x-kubernetes-preserve-unknown-fields: true\n",
    );
    server.kubectl(&[
        "wait",
        "--for=condition=Established",
        "crd/gizmos.errors.kinformer.dev",
        "--timeout=60s",
    ]);
    // kube-apiserver publishes a CRD's schema shortly after it is established.
    let published = Instant::now();
    while !server
        .kubectl(&["get", "--raw", "/openapi/v3"])
        .contains("apis/errors.kinformer.dev/v1")
    {
        assert!(
            published.elapsed() < DEADLINE,
            "no OpenAPI v3 document for the CRD"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let wrong = dump_with_index(&server, "gizmos", &ns, "s=field:spec.sise").await;
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
    assert!(
        wrong.stderr.contains(
            "--index s=field:spec.sise: gizmos.errors.kinformer.dev have no field spec.sise (did you mean spec.size?)"
        ),
        "{}",
        wrong.stderr
    );
    for good in ["s=field:spec.size", "x=field:spec.extra.any.thing"] {
        let r = dump_with_index(&server, "gizmos", &ns, good).await;
        assert_eq!(r.code, 0, "{good}: {}", r.stderr);
    }
}

#[tokio::test]
async fn the_embedded_server_publishes_kube_apiservers_schemas_so_its_paths_are_checked_too() {
    // `kinformer serve` serves kube-apiserver 1.37's OpenAPI v3 documents: the same refusal as
    // against the real server (the fallback without a schema: `index_schema`'s unit tests).
    let c = Cluster::start().await;
    let r = run(c.cmd(&["dump", "pods", "-A", "--index", "node=field:spec.nodename"])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("did you mean spec.nodeName?"),
        "{}",
        r.stderr
    );
    let ok = run(c.cmd(&["dump", "pods", "-A", "--index", "node=field:spec.nodeName"])).await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}
