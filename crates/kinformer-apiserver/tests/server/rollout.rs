//! `serve --controllers` as a small cluster (issue 49, item 9): a rolling update keeps the
//! Deployment's availability within `maxUnavailable` and its size within `maxSurge`
//! (kube-controller-manager `pkg/controller/deployment/rolling.go`, `reconcileNewReplicaSet`
//! and `reconcileOldReplicaSets`), the components record their Events (`ScalingReplicaSet`,
//! `Scheduled`, `Pulled`, `Created`, `Started`, `Killing`), and the node a kubelet would register
//! exists, with its `nodeInfo`, before the first workload.

use std::time::{Duration, Instant};

use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::{Value, json};

use crate::support::{JSON, MERGE, TestResult, call};

/// Every wait ends well within this.
const DEADLINE: Duration = Duration::from_secs(60);

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

async fn with_controllers() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        controllers: true,
        ..ServerConfig::default()
    })
    .await?)
}

/// A Deployment of four pods rolled one at a time: at most one unavailable, at most one extra.
fn deployment(image: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": image}]}}}})
}

fn number(v: &Value, pointer: &str) -> i64 {
    v.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The Deployment once `done` holds of it, checking `each` on every state seen on the way.
async fn follow(
    server: &EmbeddedServer,
    done: impl Fn(&Value) -> bool,
    mut each: impl FnMut(&Value, &Value),
) -> Result<Value, Box<dyn std::error::Error>> {
    let start = Instant::now();
    loop {
        let (_, deployment) = call(server, "GET", &format!("{DEPLOYMENTS}/web"), None).await?;
        let (_, pods) = call(
            server,
            "GET",
            "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb",
            None,
        )
        .await?;
        each(&deployment, &pods);
        if done(&deployment) {
            return Ok(deployment);
        }
        if start.elapsed() > DEADLINE {
            return Err(format!("the rollout did not finish: {deployment}").into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn rolled_out(image: &'static str) -> impl Fn(&Value) -> bool {
    move |d: &Value| {
        d["spec"]["template"]["spec"]["containers"][0]["image"] == image
            && number(d, "/status/observedGeneration") == number(d, "/metadata/generation")
            && number(d, "/status/updatedReplicas") == 4
            && number(d, "/status/availableReplicas") == 4
            && number(d, "/status/replicas") == 4
    }
}

#[tokio::test]
async fn a_rolling_update_stays_within_max_unavailable_and_max_surge() -> TestResult {
    let server = with_controllers().await?;
    let (code, _) = call(
        &server,
        "POST",
        DEPLOYMENTS,
        Some((JSON, deployment("nginx:1"))),
    )
    .await?;
    assert_eq!(code, 201);
    follow(&server, rolled_out("nginx:1"), |_, _| {}).await?;

    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}});
    let (code, _) = call(
        &server,
        "PATCH",
        &format!("{DEPLOYMENTS}/web"),
        Some((MERGE, patch)),
    )
    .await?;
    assert_eq!(code, 200);
    let (mut least_available, mut most_pods) = (i64::MAX, 0);
    follow(&server, rolled_out("nginx:2"), |deployment, pods| {
        if number(deployment, "/status/observedGeneration")
            == number(deployment, "/metadata/generation")
        {
            least_available = least_available.min(number(deployment, "/status/availableReplicas"));
        }
        let items = pods["items"].as_array().cloned().unwrap_or_default();
        let live = items
            .iter()
            .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
            .count();
        most_pods = most_pods.max(live);
    })
    .await?;
    assert!(
        least_available >= 3,
        "availability fell to {least_available} (maxUnavailable 1 of 4)"
    );
    assert!(
        most_pods <= 5,
        "{most_pods} pods at once (maxSurge 1 over 4)"
    );

    let (_, events) = call(&server, "GET", "/api/v1/namespaces/default/events", None).await?;
    let reasons: Vec<&str> = events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["reason"].as_str())
        .collect();
    for reason in [
        "ScalingReplicaSet",
        "Scheduled",
        "Pulled",
        "Created",
        "Started",
        "Killing",
    ] {
        assert!(
            reasons.contains(&reason),
            "no {reason} Event among {reasons:?}"
        );
    }
    Ok(())
}

#[tokio::test]
async fn the_node_exists_with_its_node_info_before_the_first_workload() -> TestResult {
    let server = with_controllers().await?;
    let start = Instant::now();
    let nodes = loop {
        let (_, nodes) = call(&server, "GET", "/api/v1/nodes", None).await?;
        if nodes["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty())
        {
            break nodes;
        }
        assert!(start.elapsed() < DEADLINE, "no Node registered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let info = &nodes["items"][0]["status"]["nodeInfo"];
    assert_eq!(info["kubeletVersion"], "v1.37.0", "{info}");
    assert_eq!(info["operatingSystem"], "linux", "{info}");
    assert!(
        info["containerRuntimeVersion"]
            .as_str()
            .is_some_and(|v| v.starts_with("containerd://")),
        "{info}"
    );
    Ok(())
}
