//! Deterministic, realistic pods (~2.5 KB of JSON each): labels, ownerReferences, managedFields,
//! three containers with env and resources, and a status with conditions and container states.

use serde_json::{Value, json};

/// Namespaces the pods are spread over.
const NAMESPACES: usize = 20;

/// Workloads (deployments) per namespace.
const APPS: [&str; 8] = [
    "web", "api", "cart", "search", "auth", "billing", "ingest", "report",
];

/// The namespace of pod `index`.
fn namespace(index: usize) -> String {
    format!("ns-{:02}", index % NAMESPACES)
}

/// A deterministic 5-character suffix in Kubernetes' name alphabet.
fn suffix(mut seed: u64) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17);
    (0..5)
        .map(|i| ALPHABET[((seed >> (i * 6)) % ALPHABET.len() as u64) as usize] as char)
        .collect()
}

/// A container with env and resources.
fn container(name: &str, image: &str, index: usize) -> Value {
    json!({
        "name": name, "image": image, "imagePullPolicy": "IfNotPresent",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [
            {"name": "POD_INDEX", "value": index.to_string()},
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}
        ],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"
    })
}

/// The managedFields of a pod written by the replicaset controller and the kubelet.
fn managed_fields() -> Value {
    json!([
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
         "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                      "f:ownerReferences": {".": {}, "k:{\"uid\":\"0\"}": {}}},
                      "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:env": {}, "f:image": {}, "f:resources": {}}}}}},
        {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "subresource": "status",
         "time": "2026-01-01T00:00:05Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}}}
    ])
}

/// The status of a running pod.
fn status(index: usize, phase: &str) -> Value {
    let condition = |kind: &str| json!({"type": kind, "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:05Z"});
    let state = |name: &str, image: &str| json!({"name": name, "image": image, "imageID": format!("docker.io/library/{image}@sha256:4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac"), "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:04Z"}}});
    json!({
        "phase": phase,
        "conditions": [condition("Initialized"), condition("Ready"), condition("ContainersReady"), condition("PodScheduled")],
        "hostIP": format!("10.0.{}.{}", index / 250 % 250, index % 250),
        "podIP": format!("10.244.{}.{}", index / 250 % 250, index % 250),
        "startTime": "2026-01-01T00:00:03Z", "qosClass": "Burstable",
        "containerStatuses": [state("app", "nginx:1.27"), state("sidecar", "envoy:1.31"), state("metrics", "exporter:0.15")]
    })
}

/// Pod number `index`, deterministic, about 2.5 KB of JSON.
pub fn pod(index: usize) -> Value {
    let app = APPS[index / NAMESPACES % APPS.len()];
    let hash = suffix(index as u64 / 160);
    let name = format!("{app}-{hash}-{}", suffix(index as u64));
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("{name}-{index}"), "namespace": namespace(index),
            "generateName": format!("{app}-{hash}-"),
            "labels": {"app": app, "pod-template-hash": hash, "tier": "backend"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-{hash}"),
                                 "uid": format!("6f1f3b0e-0000-4000-8000-{:012}", index / 160),
                                 "controller": true, "blockOwnerDeletion": true}],
            "managedFields": managed_fields()
        },
        "spec": {
            "nodeName": format!("node-{}", index % 50),
            "containers": [container("app", "nginx:1.27", index), container("sidecar", "envoy:1.31", index), container("metrics", "exporter:0.15", index)],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
        },
        "status": status(index, "Running")
    })
}

/// Update number `step` of `base` (a pod as generated by [`pod`]): a new label value and a
/// status change, so every update is a real change.
pub fn updated(base: &Value, step: usize) -> Value {
    let mut pod = base.clone();
    if let Some(labels) = pod
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.insert("bench-step".into(), step.to_string().into());
    }
    if let Some(status) = pod.get_mut("status").and_then(Value::as_object_mut) {
        let phase = if step % 2 == 0 { "Running" } else { "Pending" };
        status.insert("phase".into(), phase.into());
    }
    pod
}
