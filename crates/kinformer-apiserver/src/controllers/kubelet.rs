//! What a kubelet writes about the pods of its node beyond starting them: readiness probes
//! (a container with a `readinessProbe` becomes ready `initialDelaySeconds` after it started,
//! `pkg/kubelet/prober`), the pod's conditions that follow, and a graceful deletion's end
//! (`pkg/kubelet/status/status_manager.go`, `canBeDeleted`, then a DELETE with grace 0 and the
//! pod's uid as precondition): a pod on a node marked for deletion gets its containers stopped
//! (a `Killing` event, the containers terminated and unready) and stays Terminating while they
//! stop — here [`STOP_TIME`], counted from the marking's second — and is then removed.

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::events::{self, Source};
use crate::resources::ResourceType;
use crate::store::Store;
use crate::write::{DeleteOptions, delete_object_with, update_object};

/// How long the simulated containers take to stop after the kubelet sees the deletion.
pub const STOP_TIME: SignedDuration = SignedDuration::from_secs(2);

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn stamp(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Seconds after its start before a container's readiness probe first succeeds (0: no probe,
/// ready at once).
pub fn readiness_delay(container: &Value) -> i64 {
    container
        .pointer("/readinessProbe")
        .map(|probe| {
            probe
                .get("initialDelaySeconds")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

/// The five conditions a kubelet writes for a running pod, in its order; `Ready` and
/// `ContainersReady` False (`ContainersNotReady`) while a container is not ready.
pub fn pod_conditions(at: &str, ready: bool, statuses: &[Value]) -> Vec<Value> {
    let unready: Vec<&str> = statuses
        .iter()
        .filter(|c| c["ready"] != true)
        .map(|c| text(c, "/name"))
        .collect();
    [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    .into_iter()
    .map(|kind| {
        let mut condition = json!({"type": kind, "status": "True", "lastProbeTime": null,
                "lastTransitionTime": at});
        if !ready && matches!(kind, "Ready" | "ContainersReady") {
            condition["status"] = "False".into();
            condition["reason"] = "ContainersNotReady".into();
            condition["message"] =
                format!("containers with unready status: [{}]", unready.join(" ")).into();
        }
        condition
    })
    .collect()
}

/// Whether a pod is Running with its `Ready` condition True (what a ReplicaSet counts).
pub fn is_ready(pod: &Value) -> bool {
    text(pod, "/status/phase") == "Running"
        && pod
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|all| {
                all.iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
            })
}

/// Marks ready the containers whose readiness probe is now due; whether others still wait.
pub fn probe_readiness(store: &Store, pods: &Arc<ResourceType>, all: &[Value]) -> bool {
    let now = Timestamp::now();
    let mut waiting = false;
    for pod in all.iter().filter(|p| text(p, "/status/phase") == "Running") {
        if pod.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let specs: Vec<&Value> = pod
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        let mut updated = pod.clone();
        let Some(statuses) = updated
            .pointer_mut("/status/containerStatuses")
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        let mut changed = false;
        for status in statuses.iter_mut().filter(|s| s["ready"] == false) {
            let Some(spec) = specs.iter().find(|c| c["name"] == status["name"]) else {
                continue;
            };
            let started: Option<Timestamp> = text(status, "/state/running/startedAt").parse().ok();
            let Some(started) = started else { continue };
            if now >= started + SignedDuration::from_secs(readiness_delay(spec)) {
                status["ready"] = true.into();
                changed = true;
            } else {
                waiting = true;
            }
        }
        if !changed {
            continue;
        }
        let statuses = statuses.clone();
        let ready = statuses.iter().all(|c| c["ready"] == true);
        let at = stamp(now);
        let fresh = pod_conditions(&at, ready, &statuses);
        let kept = pod
            .pointer("/status/conditions")
            .cloned()
            .unwrap_or_default();
        let conditions: Vec<Value> = fresh
            .into_iter()
            .map(|c| {
                let before = kept
                    .as_array()
                    .and_then(|k| k.iter().find(|o| o["type"] == c["type"]))
                    .filter(|o| o["status"] == c["status"]);
                before.cloned().unwrap_or(c)
            })
            .collect();
        updated["status"]["conditions"] = conditions.into();
        if let Err(e) = update_object(store, pods, updated) {
            tracing::debug!("kubelet readiness update skipped: {}", e.message);
        }
    }
    waiting
}

/// Stops the containers of pods marked for a graceful deletion and removes the pods whose
/// containers have had [`STOP_TIME`] to stop; whether others still wait.
pub fn finish_terminating(store: &Store, pods: &Arc<ResourceType>, all: &[Value]) -> bool {
    let now = Timestamp::now();
    let mut waiting = false;
    for pod in all {
        let Some(marked) = marked_at(pod) else {
            continue;
        };
        if text(pod, "/spec/nodeName").is_empty() {
            continue;
        }
        if now < marked + STOP_TIME {
            waiting = true;
            stop_containers(store, pods, pod);
            continue;
        }
        let options = DeleteOptions {
            grace_period: Some(0),
            uid: Some(text(pod, "/metadata/uid").to_owned()),
            ..DeleteOptions::default()
        };
        let (namespace, name) = (
            text(pod, "/metadata/namespace"),
            text(pod, "/metadata/name"),
        );
        if let Err(e) = delete_object_with(store, pods, namespace, name, &options) {
            tracing::debug!("kubelet delete skipped: {}", e.message);
        }
    }
    waiting
}

/// A `Killing` event per running container, then the containers terminated and unready (once:
/// a pod whose containers are stopped is left alone).
fn stop_containers(store: &Store, pods: &Arc<ResourceType>, pod: &Value) {
    let mut updated = pod.clone();
    let Some(statuses) = updated
        .pointer_mut("/status/containerStatuses")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let running: Vec<String> = statuses
        .iter()
        .filter(|s| s.pointer("/state/running").is_some())
        .map(|s| text(s, "/name").to_owned())
        .collect();
    if running.is_empty() {
        return;
    }
    let at = stamp(Timestamp::now());
    for status in statuses.iter_mut() {
        let started = text(status, "/state/running/startedAt").to_owned();
        let container_id = status["containerID"].clone();
        let terminated = json!({"terminated": {"exitCode": 0, "reason": "Completed",
            "startedAt": started, "finishedAt": at, "containerID": container_id}});
        status["state"] = terminated;
        status["ready"] = false.into();
        status["started"] = false.into();
    }
    let statuses = statuses.clone();
    updated["status"]["conditions"] = pod_conditions(&at, false, &statuses).into();
    if update_object(store, pods, updated).is_err() {
        return;
    }
    let node = text(pod, "/spec/nodeName");
    for name in running {
        let path = format!("spec.containers{{{name}}}");
        let message = format!("Stopping container {name}");
        events::record(
            store,
            pod,
            Some(&path),
            "Killing",
            &message,
            Source::Kubelet(node),
        );
    }
}

/// When a pod was marked for a graceful deletion (its `deletionTimestamp` less its grace);
/// None when it is not, or its grace is already 0.
fn marked_at(pod: &Value) -> Option<Timestamp> {
    let grace = pod
        .pointer("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_i64)
        .filter(|g| *g > 0)?;
    let at: Timestamp = text(pod, "/metadata/deletionTimestamp").parse().ok()?;
    at.checked_sub(SignedDuration::from_secs(grace)).ok()
}
