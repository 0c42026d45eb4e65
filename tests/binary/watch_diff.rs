//! The golden corpus through `kinformer watch --diff`: kubectl writes to a 2-container
//! Deployment on an in-process embedded server, and the diff of each update notification is
//! what a cluster would show — exactly the fields the command changes, the generation when the
//! spec changed, no patch directive (`$setElementOrder/…`), no defaulted field appearing or
//! vanishing. (`metadata.resourceVersion` and `metadata.managedFields` are never diffed.)
//!
//! Expectations: kube-apiserver merges `kubectl set image`'s strategic merge patch by
//! container name and stores no directive (`strategicpatch`), bumps `metadata.generation` on a
//! spec change only (the Deployment strategy's `PrepareForUpdate`), and defaults what the
//! manifest leaves out on create, so later writes never add or drop those fields.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{ChildStdout, Command};

use crate::binary::*;

use crate::apiserver_http::kubectl_binary;

/// The Deployment the commands write.
const SHOP: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, labels: {app: shop}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80, name: http}]
        env: [{name: MODE, value: fast}]
      - name: sidecar
        image: busybox:1.37
        args: [sleep, infinity]
";

/// Runs kubectl against the cluster; panics with its stderr when it fails.
async fn kubectl(c: &Cluster, args: &[&str]) {
    let output = Command::new(kubectl_binary().expect("kubectl on PATH"))
        .arg("--kubeconfig")
        .arg(c.kubeconfig())
        .arg("--cache-dir")
        .arg(c.dir.path().join("cache"))
        .args(args)
        .stdin(Stdio::null())
        .output();
    let output = tokio::time::timeout(DEADLINE, output)
        .await
        .expect("kubectl timed out")
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The next handler notification of `kind` (`add`, `update`) on the watch's stdout.
async fn next_notification(out: &mut Lines<BufReader<ChildStdout>>, kind: &str) -> Value {
    let found = tokio::time::timeout(DEADLINE, async {
        while let Some(line) = out.next_line().await.expect("stdout readable") {
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if value["event"] == "notify" && value["kind"] == kind {
                return Some(value);
            }
        }
        None
    })
    .await
    .expect("no notification in time");
    found.unwrap_or_else(|| panic!("the watch ended before a {kind} notification"))
}

/// The changed paths of a notification's diff, sorted.
fn paths(notification: &Value) -> Vec<String> {
    let mut paths: Vec<String> = notification["diff"]
        .as_array()
        .unwrap_or_else(|| panic!("no diff: {notification}"))
        .iter()
        .map(|change| change["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    paths.sort();
    paths
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_diff_of_each_kubectl_write_is_what_a_cluster_shows() {
    let c = Cluster::start().await;
    let manifest = c.dir.path().join("shop.yaml");
    std::fs::write(&manifest, SHOP).unwrap();
    let manifest = manifest.to_str().unwrap().to_owned();
    kubectl(&c, &["apply", "-f", &manifest]).await;

    let mut watch = c.cmd(&[
        "watch",
        "deployments",
        "shop",
        "-n",
        "default",
        "--diff",
        "--show",
        "notifications",
        "-o",
        "jsonl",
    ]);
    watch.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = watch.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    next_notification(&mut out, "add").await;

    let template = "spec.template.spec.containers";
    let changed = SHOP
        .replace("image: nginx:1.25", "image: nginx:1.26")
        .replace("        env: [{name: MODE, value: fast}]\n", "");
    let changed_path = c.dir.path().join("shop2.yaml");
    std::fs::write(&changed_path, changed).unwrap();
    let changed_path = changed_path.to_str().unwrap().to_owned();
    let steps: Vec<(Vec<&str>, Vec<String>)> = vec![
        (
            vec!["set", "image", "deployment/shop", "nginx=nginx:1.27"],
            vec!["metadata.generation".into(), format!("{template}[0].image")],
        ),
        (
            vec!["scale", "deployment", "shop", "--replicas=4"],
            vec!["metadata.generation".into(), "spec.replicas".into()],
        ),
        (
            vec!["label", "deployment", "shop", "tier=frontend"],
            vec!["metadata.labels.tier".into()],
        ),
        (
            // The three-way patch: the new image, MODE dropped (it left the manifest), the
            // last-applied annotation rewritten, and replicas back to the manifest's 2 (the
            // patch sets every field of the manifest that differs from the live object:
            // `kubectl apply` after `kubectl scale` undoes the scale on a cluster too).
            vec!["apply", "-f", &changed_path],
            vec![
                "metadata.annotations[\"kubectl.kubernetes.io/last-applied-configuration\"]".into(),
                "metadata.generation".into(),
                "spec.replicas".into(),
                format!("{template}[0].env[0].name"),
                format!("{template}[0].env[0].value"),
                format!("{template}[0].image"),
            ],
        ),
    ];
    for (args, expected) in steps {
        kubectl(&c, &args).await;
        let update = next_notification(&mut out, "update").await;
        assert_eq!(paths(&update), expected, "kubectl {args:?}: {update}");
        assert!(
            !update.to_string().contains("$setElementOrder"),
            "a directive was stored: {update}"
        );
    }
    child.kill().await.unwrap();
}
