//! client-go's typed informer syncs from the embedded server over protobuf: client-go 1.37.2's
//! pod informer of a `SharedInformerFactory` whose clientset asks for
//! `application/vnd.kubernetes.protobuf,application/json` (the sync benchmark's client,
//! `go/oracle/v1.37/bench_test.go` in its `typed-protobuf` mode, built by
//! `scripts/bench-client-go`) against the built-in seed. It decodes every pod from protobuf —
//! a pod it could not decode would fail its sync — and reports the Content-Type of the
//! server's first answer, which must be protobuf. A missing Go toolchain fails the test.

use std::path::PathBuf;

use crate::binary::{Cluster, run};

/// `scripts/bench-client-go`: builds (or keeps) the client and prints its path.
async fn bench_client() -> PathBuf {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench-client-go");
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_kinformer"));
    let target = exe.parent().and_then(std::path::Path::parent).unwrap();
    let mut cmd = tokio::process::Command::new(script);
    cmd.env("CARGO_TARGET_DIR", target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .kill_on_drop(true);
    let built = run(cmd).await;
    assert_eq!(
        built.code, 0,
        "scripts/bench-client-go (needs Go >= 1.25):\n{}",
        built.stderr
    );
    PathBuf::from(built.stdout.trim())
}

#[tokio::test]
async fn client_go_typed_informer_syncs_from_the_embedded_server_in_protobuf() {
    let client = bench_client().await;
    let cluster = Cluster::start().await;
    let pods = cluster.server.objects("pods", None).unwrap().len();
    let mut cmd = tokio::process::Command::new(&client);
    cmd.args(["-test.run", "TestBench", "-bench-mode", "typed-protobuf"])
        .arg("-bench-kubeconfig")
        .arg(cluster.kubeconfig())
        .args(["-bench-timeout", "60s"])
        .kill_on_drop(true);
    let r = run(cmd).await;
    assert_eq!(r.code, 0, "client-go:\n{}\n{}", r.stdout, r.stderr);
    let marker = |key: &str| {
        r.stdout
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no `{key}` line:\n{}", r.stdout))
            .to_owned()
    };
    assert_eq!(marker("items"), pods.to_string(), "every pod synced");
    assert!(
        marker("content_type").starts_with("application/vnd.kubernetes.protobuf"),
        "{}",
        r.stdout
    );
}
