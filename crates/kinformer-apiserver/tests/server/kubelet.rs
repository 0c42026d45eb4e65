//! Pods under `--controllers` as a kubelet reports them (issue 38): on a node (the server's
//! `kinformer-node` when none is stored), each with its own IP, the five conditions a kubelet
//! writes, and container statuses with an `imageID` — which the Python client requires (it
//! refused every such Pod before) — read back by the Python `kubernetes` client itself.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{JSON, TestResult, call};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};

/// How long the controllers get to run the pods.
const DEADLINE: Duration = Duration::from_secs(30);

/// The pods of `default` once `count` of them are Running (polled until [`DEADLINE`]).
async fn running_pods(
    server: &EmbeddedServer,
    count: usize,
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let started = Instant::now();
    loop {
        let (_, list) = call(server, "GET", "/api/v1/namespaces/default/pods", None).await?;
        let pods: Vec<Value> = list["items"].as_array().cloned().unwrap_or_default();
        let running = pods.iter().filter(|p| p["status"]["phase"] == "Running");
        if running.count() == count {
            return Ok(pods);
        }
        if started.elapsed() > DEADLINE {
            return Err(format!("{count} pods did not run within {DEADLINE:?}: {list}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controller_pods_look_as_a_kubelet_reports_them() -> TestResult {
    let python = std::process::Command::new("python3")
        .args(["-c", "import kubernetes"])
        .output();
    assert!(
        python.is_ok_and(|o| o.status.success()),
        "python3 with the `kubernetes` package is missing: pip install kubernetes (.ci/run does)"
    );
    let server = EmbeddedServer::start(ServerConfig {
        controllers: true,
        ..ServerConfig::default()
    })
    .await?;
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}});
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let (code, answer) = call(&server, "POST", path, Some((JSON, deployment))).await?;
    assert_eq!(code, 201, "{answer}");
    let pods = running_pods(&server, 3).await?;
    let ips: HashSet<&str> = pods
        .iter()
        .filter_map(|p| p["status"]["podIP"].as_str())
        .collect();
    assert_eq!(ips.len(), 3, "unique pod IPs");
    for pod in &pods {
        assert_eq!(pod["spec"]["nodeName"], "kinformer-node", "{pod}");
        let conditions: Vec<&str> = pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["type"].as_str())
            .collect();
        assert_eq!(
            conditions,
            [
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled"
            ]
        );
        let status = &pod["status"]["containerStatuses"][0];
        assert_eq!(status["image"], "docker.io/library/nginx:1.27", "{pod}");
        let image_id = status["imageID"].as_str().unwrap_or_default();
        assert!(
            image_id.starts_with("docker.io/library/nginx@sha256:") && image_id.len() == 95,
            "{image_id}"
        );
    }
    let (code, node) = call(&server, "GET", "/api/v1/nodes/kinformer-node", None).await?;
    assert_eq!(code, 200, "{node}");
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    server.write_kubeconfig(&kubeconfig)?;
    let script = "import sys\nfrom kubernetes import client, config\n\
        config.load_kube_config(sys.argv[1])\n\
        pods = client.CoreV1Api().list_namespaced_pod('default').items\n\
        for p in pods:\n    print(p.spec.node_name, p.status.pod_ip, p.status.container_statuses[0].image_id)\n";
    let output = tokio::process::Command::new("python3")
        .args(["-c", script])
        .arg(&kubeconfig)
        .output()
        .await?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python client read the pods: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(
        stdout
            .lines()
            .all(|l| l.starts_with("kinformer-node 10.244.")),
        "{stdout}"
    );
    Ok(())
}
