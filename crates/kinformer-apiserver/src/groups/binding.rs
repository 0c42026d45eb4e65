//! core/v1 Bindings, posted to `bindings` or a pod's `binding` subresource
//! (`pkg/registry/core/pod/storage/storage.go`, `BindingREST` and `setPodHostAndAnnotations`):
//! the pod gets the target node as `spec.nodeName`, the Binding's annotations, and the
//! `PodScheduled` condition; a pod already on a node is 409. The answer is a Success Status,
//! 201. The pod's managedFields do not change (kube-apiserver writes the pod through its
//! storage, not a request's field manager).

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use serde_json::{Map, Value, json};

use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::status::{ApiError, StatusDetails, json_response};
use crate::write::Target;
use crate::write::registry::{Ownership, update_owned};

/// POST of a Binding; `name` is the path's pod for `pods/{name}/binding`, else the Binding's.
pub fn bind(
    app: &Arc<App>,
    request: &ResourceRequest,
    name: Option<&str>,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let binding: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not a Binding: {e}")))?;
    let named = binding
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let pod_name = name.unwrap_or(named).to_owned();
    let node = binding
        .pointer("/target/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if node.is_empty() {
        return Err(ApiError::new(
            422,
            "Invalid",
            format!("Binding {pod_name:?} is invalid: target.name: Required value"),
        ));
    }
    let namespace = request.namespace.clone().unwrap_or_default();
    let registry = app.store.registry();
    let pods = registry
        .find("", "v1", "pods")
        .ok_or_else(ApiError::no_route)?;
    app.store.write(|txn| {
        let pod = txn
            .get(&pods.key(), &object_key(&namespace, &pod_name))
            .ok_or_else(|| ApiError::not_found(&pods, &pod_name))?
            .to_value()?;
        if let Some(assigned) = pod
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        {
            return Err(already_assigned(&pod_name, assigned));
        }
        let bound = bound(pod, &node, binding.pointer("/metadata/annotations"));
        let target = Target::object(&pods, &namespace, &pod_name);
        update_owned(txn, &target, bound, Ownership::Applied)
    })?;
    let status =
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}"#;
    Ok(json_response(StatusCode::CREATED, format!("{status}\n")))
}

/// The pod on `node`: its node name, the Binding's annotations, `PodScheduled` true.
fn bound(mut pod: Value, node: &str, annotations: Option<&Value>) -> Value {
    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("nodeName".into(), node.into());
    }
    if let (Some(given), Some(metadata)) = (
        annotations.and_then(Value::as_object),
        pod.get_mut("metadata").and_then(Value::as_object_mut),
    ) {
        let own = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(own) = own.as_object_mut() {
            own.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    let scheduled = json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null,
        "lastTransitionTime": super::now()});
    if let Some(object) = pod.as_object_mut() {
        let status = object.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            let conditions = status
                .entry("conditions")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Some(conditions) = conditions.as_array_mut() {
                conditions
                    .retain(|c| c.get("type").and_then(Value::as_str) != Some("PodScheduled"));
                conditions.push(scheduled);
            }
        }
    }
    pod
}

/// 409: `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node
/// "n"`.
fn already_assigned(pod: &str, node: &str) -> ApiError {
    let mut error = ApiError::new(
        409,
        "Conflict",
        format!(
            "Operation cannot be fulfilled on pods/binding {pod:?}: pod {pod} is already assigned to node {node:?}"
        ),
    );
    error.details = Some(Box::new(StatusDetails {
        name: pod.to_owned(),
        kind: "pods/binding".into(),
        ..StatusDetails::default()
    }));
    error
}
