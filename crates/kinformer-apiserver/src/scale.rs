//! The `scale` subresource of deployments, replicasets and statefulsets (`kubectl scale`): an
//! autoscaling/v1 `Scale` read from the object (`spec.replicas`, `status.replicas`, the
//! selector as a string) and written back to `spec.replicas` by PUT or PATCH (`dryRun=All`
//! honoured).

use std::sync::Arc;

use axum::response::Response;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use super::app::{App, ResourceRequest};
use super::objects::StoredObject;
use super::resources::ResourceType;
use super::status::{ApiError, json_response};
use super::validation::invalid_field;
use super::write::{PatchKind, Target, WriteKind, WriteOptions, parse_object, update_in};

/// Serves GET, PUT and PATCH of `.../{name}/scale`.
pub fn serve(
    app: &App,
    method: &Method,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let target = Target::of(request, name);
    let resource = target.resource;
    let found = |object: Option<Arc<StoredObject>>| {
        object
            .ok_or_else(|| ApiError::not_found(resource, name))?
            .to_value()
    };
    let object = match method.as_str() {
        "GET" => found(app.store.get(&resource.key(), &target.key()))?,
        "PUT" | "PATCH" => {
            let kind = match method.as_str() {
                "PUT" => WriteKind::Update,
                _ => PatchKind::from_content_type(&request.content_type)?.write_kind(),
            };
            let dry_run = WriteOptions::of(request, kind, &[])?.dry_run;
            let stored = app.store.transaction(dry_run, |txn| {
                let value = found(txn.get(&resource.key(), &target.key()))?;
                let requested = match method.as_str() {
                    "PUT" => parse_object(body)?,
                    _ => patched(request, &value, body, name)?,
                };
                let scaled = with_replicas(value, &requested, resource, name)?;
                update_in(txn, &target, scaled)
            })?;
            stored.to_value()?
        }
        other => return Err(ApiError::method_not_allowed(other)),
    };
    let scale = scale_of(&object);
    Ok(json_response(StatusCode::OK, scale.to_string()))
}

/// The Scale a PATCH makes of the object's current one.
fn patched(
    request: &ResourceRequest,
    object: &Value,
    body: &[u8],
    name: &str,
) -> Result<Value, ApiError> {
    let kind = PatchKind::from_content_type(&request.content_type)?;
    let patch = kind.parse(body)?;
    let mut scale = scale_of(object);
    kind.apply(&mut scale, &patch, &request.resource, name)?;
    Ok(scale)
}

/// `object` with the Scale's `spec.replicas`, guarded by the Scale's resourceVersion.
fn with_replicas(
    mut object: Value,
    scale: &Value,
    resource: &ResourceType,
    name: &str,
) -> Result<Value, ApiError> {
    let replicas = scale
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .filter(|r| (0..=i64::from(i32::MAX)).contains(r))
        .ok_or_else(|| {
            let given = scale.pointer("/spec/replicas").map(Value::to_string);
            let given = given.as_deref().unwrap_or("null");
            invalid_field(
                resource,
                name,
                "spec.replicas",
                given,
                "must be greater than or equal to 0",
            )
        })?;
    let precondition = scale.pointer("/metadata/resourceVersion").cloned();
    let Some(fields) = object.as_object_mut() else {
        return Err(ApiError::bad_request(
            "the stored object is not a JSON object",
        ));
    };
    let spec = fields.entry("spec").or_insert_with(|| json!({}));
    spec["replicas"] = replicas.into();
    if let Some(metadata) = fields.get_mut("metadata").and_then(Value::as_object_mut) {
        match precondition {
            Some(rv) => metadata.insert("resourceVersion".into(), rv),
            None => metadata.remove("resourceVersion"),
        };
    }
    Ok(object)
}

/// The autoscaling/v1 Scale of a workload.
fn scale_of(object: &Value) -> Value {
    let metadata = |key: &str| object.pointer(&format!("/metadata/{key}")).cloned();
    let mut meta = serde_json::Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(value) = metadata(key) {
            meta.insert(key.into(), value);
        }
    }
    let number = |pointer: &str| object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0);
    let selector: Vec<String> = object
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
        .collect();
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": meta,
        "spec": {"replicas": number("/spec/replicas")},
        "status": {"replicas": number("/status/replicas"), "selector": selector.join(",")},
    })
}
