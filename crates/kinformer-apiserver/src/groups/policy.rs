//! policy/v1 PodDisruptionBudgets and the `pods/eviction` subresource
//! (`pkg/registry/core/pod/storage/eviction.go`): an Eviction deletes its pod when no
//! PodDisruptionBudget selects it, when the pod is not running (Pending, Succeeded, Failed:
//! `canIgnorePDB`), or when its budget allows a disruption, which the eviction then uses up
//! (`disruptionsAllowed` one less, the pod in `disruptedPods`); otherwise it answers 429.
//!
//! kube-apiserver reads the budget's status, which the disruption controller of
//! kube-controller-manager keeps. This server runs no such controller, so for a budget whose
//! status no one has observed (`status.observedGeneration` below `metadata.generation`) it
//! computes that status itself from the pods it stores, as the disruption controller would:
//! expected pods are the pods the selector matches, healthy ones those Running and Ready.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use serde_json::{Map, Value, json};

use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusCause, StatusDetails, json_response};
use crate::store::Txn;
use crate::write::Target;

/// What kube-apiserver answers when a budget refuses an eviction.
const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

/// Whether a `metav1.LabelSelector` (JSON) selects `labels`; an empty selector selects every
/// pod (policy/v1's meaning).
fn selects(selector: Option<&Value>, labels: &Map<String, Value>) -> bool {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return true;
    };
    let label = |key: &str| labels.get(key).and_then(Value::as_str);
    let match_labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k) == v.as_str());
    let expressions = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .all(|e| {
            let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
            let values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match e.get("operator").and_then(Value::as_str) {
                Some("In") => label(key).is_some_and(|v| values.contains(&v)),
                Some("NotIn") => label(key).is_none_or(|v| !values.contains(&v)),
                Some("Exists") => label(key).is_some(),
                Some("DoesNotExist") => label(key).is_none(),
                _ => false,
            }
        });
    match_labels && expressions
}

/// The labels of an object.
fn labels_of(object: &Value) -> Map<String, Value> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// Whether a pod is Running with its `Ready` condition true.
fn healthy(pod: &Value) -> bool {
    let running = pod.pointer("/status/phase").and_then(Value::as_str) == Some("Running");
    let ready = pod
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c.get("type") == Some(&json!("Ready")) && c.get("status") == Some(&json!("True")));
    running && ready && pod.pointer("/metadata/deletionTimestamp").is_none()
}

/// An `IntOrString` of a budget against `expected` pods: an integer, or a percentage rounded
/// up (`intstr.GetScaledValueFromIntOrPercent(..., true)`).
fn scaled(value: &Value, expected: i64) -> i64 {
    match value {
        Value::String(text) => text
            .strip_suffix('%')
            .and_then(|p| p.parse::<i64>().ok())
            .map_or(0, |percent| (percent * expected + 99) / 100),
        other => other.as_i64().unwrap_or(0),
    }
}

/// The status the disruption controller would give `pdb` over `pods` (the pods of its
/// namespace): expected, healthy and desired pods, allowed disruptions, observed generation.
fn computed_status(pdb: &Value, pods: &[Value]) -> Map<String, Value> {
    let selector = pdb.pointer("/spec/selector");
    let selected: Vec<&Value> = pods
        .iter()
        .filter(|p| selects(selector, &labels_of(p)))
        .collect();
    let expected = selected.len() as i64;
    let current = selected.iter().filter(|p| healthy(p)).count() as i64;
    let desired = match (
        pdb.pointer("/spec/minAvailable"),
        pdb.pointer("/spec/maxUnavailable"),
    ) {
        (Some(min), _) if !min.is_null() => scaled(min, expected),
        (_, Some(max)) if !max.is_null() => (expected - scaled(max, expected)).max(0),
        _ => expected,
    };
    let mut status = pdb
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    status.insert("currentHealthy".into(), current.into());
    status.insert("desiredHealthy".into(), desired.into());
    status.insert("expectedPods".into(), expected.into());
    status.insert(
        "disruptionsAllowed".into(),
        (current - desired).max(0).into(),
    );
    let generation = pdb
        .pointer("/metadata/generation")
        .cloned()
        .unwrap_or(json!(1));
    status.insert("observedGeneration".into(), generation);
    status
}

/// Whether a budget's status was observed at its current generation (a controller keeps it).
fn observed(pdb: &Value) -> bool {
    let generation = pdb.pointer("/metadata/generation").and_then(Value::as_i64);
    let seen = pdb
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64);
    matches!((seen, generation), (Some(seen), Some(generation)) if seen >= generation)
}

/// `POST .../pods/{name}/eviction`.
pub fn evict(
    app: &Arc<App>,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let eviction: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not an Eviction: {e}")))?;
    let named = eviction
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !named.is_empty() && named != name {
        return Err(ApiError::bad_request(format!(
            "name in URL does not match name in Eviction object: {name} vs {named}"
        )));
    }
    let namespace = request.namespace.clone().unwrap_or_default();
    let registry = app.store.registry();
    let pdbs = registry
        .find("policy", "v1", "poddisruptionbudgets")
        .ok_or_else(ApiError::no_route)?;
    app.store.write(|txn| {
        let pod = txn
            .get(&request.resource.key(), &object_key(&namespace, name))
            .ok_or_else(|| ApiError::not_found(&request.resource, name))?;
        let pod_value = pod.to_value()?;
        if !ignores_budgets(&pod_value) {
            spend_disruption(txn, &request.resource, &pdbs, &namespace, &pod_value)?;
        }
        crate::write::registry::delete_in(
            txn,
            &request.resource,
            &pod,
            &crate::write::DeleteOptions::default(),
        )
    })?;
    let status =
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}"#;
    Ok(json_response(StatusCode::CREATED, format!("{status}\n")))
}

/// Whether an eviction deletes the pod without asking its budget (`canIgnorePDB`): it is not
/// running yet or any more, or it is being deleted.
fn ignores_budgets(pod: &Value) -> bool {
    let phase = pod.pointer("/status/phase").and_then(Value::as_str);
    matches!(phase, Some("Succeeded" | "Failed" | "Pending") | None)
        || pod.pointer("/metadata/deletionTimestamp").is_some()
}

/// Checks the budget that selects `pod` and uses up one of its disruptions; 429 when it allows
/// none, 500 when more than one budget selects the pod.
fn spend_disruption(
    txn: &mut Txn<'_>,
    pods: &Arc<ResourceType>,
    pdbs: &Arc<ResourceType>,
    namespace: &str,
    pod: &Value,
) -> Result<(), ApiError> {
    let labels = labels_of(pod);
    let in_namespace = |value: &Value| {
        value.pointer("/metadata/namespace").and_then(Value::as_str) == Some(namespace)
    };
    let budgets: Vec<Value> = txn
        .objects(&pdbs.key())
        .iter()
        .filter_map(|o| o.to_value().ok())
        .filter(|b| in_namespace(b) && selects(b.pointer("/spec/selector"), &labels))
        .collect();
    let pdb = match budgets.as_slice() {
        [] => return Ok(()),
        [one] => one.clone(),
        _ => {
            return Err(ApiError::new(
                500,
                "InternalError",
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ));
        }
    };
    let mut status = if observed(&pdb) {
        pdb.get("status")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    } else {
        let namespace_pods: Vec<Value> = txn
            .objects(&pods.key())
            .iter()
            .filter_map(|o| o.to_value().ok())
            .filter(|p| in_namespace(p))
            .collect();
        computed_status(&pdb, &namespace_pods)
    };
    let number = |status: &Map<String, Value>, key: &str| {
        status.get(key).and_then(Value::as_i64).unwrap_or(0)
    };
    let allowed = number(&status, "disruptionsAllowed");
    let pdb_name = pdb
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if allowed <= 0 {
        let why = format!(
            "The disruption budget {pdb_name} needs {} healthy pods and has {} currently",
            number(&status, "desiredHealthy"),
            number(&status, "currentHealthy")
        );
        return Err(refused(&why));
    }
    status.insert("disruptionsAllowed".into(), (allowed - 1).into());
    let pod_name = pod.pointer("/metadata/name").cloned().unwrap_or_default();
    let disrupted = status.entry("disruptedPods").or_insert_with(|| json!({}));
    if let (Some(map), Some(pod_name)) = (disrupted.as_object_mut(), pod_name.as_str()) {
        map.insert(pod_name.to_owned(), super::now().into());
    }
    let mut updated = pdb;
    if let Some(object) = updated.as_object_mut() {
        object.insert("status".into(), Value::Object(status));
    }
    let mut target = Target::object(pdbs, namespace, &pdb_name);
    target.status_only = true;
    crate::write::update_in(txn, &target, updated)?;
    Ok(())
}

/// The 429 of a refused eviction, the budget's reason as its cause.
fn refused(why: &str) -> ApiError {
    let mut error = ApiError::new(429, "TooManyRequests", REFUSED);
    error.details = Some(Box::new(StatusDetails {
        causes: vec![StatusCause {
            reason: "DisruptionBudget".into(),
            message: why.to_owned(),
            field: String::new(),
        }],
        ..StatusDetails::default()
    }));
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_computed_from_the_pods_it_selects() {
        let pdb = json!({"metadata": {"generation": 1},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}});
        let ready = json!({"metadata": {"labels": {"app": "web"}},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
        let other = json!({"metadata": {"labels": {"app": "db"}}, "status": {"phase": "Running"}});
        let status = computed_status(&pdb, &[ready.clone(), ready, other]);
        assert_eq!(status["expectedPods"], 2);
        assert_eq!(status["currentHealthy"], 2);
        assert_eq!(status["desiredHealthy"], 1);
        assert_eq!(status["disruptionsAllowed"], 1);
        let half = json!({"spec": {"maxUnavailable": "50%"}});
        assert_eq!(
            computed_status(&half, &[json!({}), json!({}), json!({})])["desiredHealthy"],
            1
        );
    }
}
