//! Deterministic, realistic pods (~3 KB of JSON each as served): labels, ownerReferences, managedFields,
//! two containers with env and resources, and a status with conditions and container states;
//! and their updates, rendered from a per-pod template so that writing one costs a few copies.

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
        .map(|i| {
            let pick = (seed >> (i * 6)) % ALPHABET.len() as u64;
            ALPHABET[usize::try_from(pick).unwrap_or(0)] as char
        })
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
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}
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
    let state = |name: &str, image: &str| json!({"name": name, "image": image, "imageID": format!("docker.io/library/{image}@sha256:4c0fdaa8b6341bfdeca5f18f"), "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:04Z"}}});
    json!({
        "phase": phase,
        "conditions": [condition("Initialized"), condition("Ready"), condition("ContainersReady"), condition("PodScheduled")],
        "hostIP": format!("10.0.{}.{}", index / 250 % 250, index % 250),
        "podIP": format!("10.244.{}.{}", index / 250 % 250, index % 250),
        "startTime": "2026-01-01T00:00:03Z", "qosClass": "Burstable",
        "containerStatuses": [state("app", "nginx:1.27"), state("sidecar", "envoy:1.31")]
    })
}

/// Pod number `index`, deterministic, about 3 KB of JSON as served.
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
            "containers": [container("app", "nginx:1.27", index), container("sidecar", "envoy:1.31", index)],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default", "schedulerName": "default-scheduler",
            // What DefaultTolerationSeconds admission gives every pod on a cluster (the server
            // re-admits a pod stored without them on its first update).
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}]
        },
        "status": status(index, "Running")
    })
}

/// Update number `step` of `base` (a pod): a new label value, so every update is a real
/// change — the write a controller makes most, which the embedded server takes on its fast path
/// when `base` is the pod as stored.
pub fn updated(base: &Value, step: usize) -> Value {
    with_step(base, &step.to_string())
}

/// `base` with label `bench-step` set.
fn with_step(base: &Value, step: &str) -> Value {
    let mut pod = base.clone();
    if let Some(labels) = pod
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.insert("bench-step".into(), step.into());
    }
    pod
}

/// A stand-in for the step label's value in a template.
const STEP_MARK: &str = "bench-step-mark";

/// The updates of one pod, each the JSON of [`updated`] as serde_json writes it, rendered from a
/// template: that JSON cut where the step label's value goes.
pub struct Updates {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// Up to the step label's value, and after it.
    pieces: [Vec<u8>; 2],
}

impl Updates {
    /// The template of `base`'s updates, checked against [`updated`].
    pub fn new(base: &Value) -> Result<Updates, String> {
        let text = |pointer: &str| base.pointer(pointer).and_then(Value::as_str);
        let template =
            serde_json::to_vec(&with_step(base, STEP_MARK)).map_err(|e| e.to_string())?;
        let Some(step) = template
            .windows(STEP_MARK.len())
            .position(|w| w == STEP_MARK.as_bytes())
        else {
            return Err("a pod without labels".into());
        };
        let updates = Updates {
            namespace: text("/metadata/namespace").unwrap_or_default().to_owned(),
            name: text("/metadata/name").unwrap_or_default().to_owned(),
            pieces: [template.get(..step), template.get(step + STEP_MARK.len()..)]
                .map(|piece| piece.unwrap_or_default().to_vec()),
        };
        let expected = serde_json::to_vec(&updated(base, 1)).map_err(|e| e.to_string())?;
        if updates.body(1) != expected {
            return Err(format!("the template of {} renders wrong", updates.name));
        }
        Ok(updates)
    }

    /// The body of update number `step`.
    pub fn body(&self, step: usize) -> Vec<u8> {
        let [head, tail] = &self.pieces;
        let mut body = Vec::with_capacity(head.len() + tail.len() + 20);
        body.extend_from_slice(head);
        body.extend_from_slice(step.to_string().as_bytes());
        body.extend_from_slice(tail);
        body
    }
}
