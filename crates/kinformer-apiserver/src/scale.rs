//! The `scale` subresource of deployments, replicasets, statefulsets and the custom resources
//! whose CRD declares one (`kubectl scale`): an
//! autoscaling/v1 `Scale` read from the object (its desired and observed replicas, the
//! selector as a string, where the resource's [`ScalePaths`] say) and written back to the
//! desired replicas by PUT or PATCH (`dryRun=All` honoured).

use std::sync::Arc;

use axum::response::Response;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use super::app::{App, ResourceRequest};
use super::json::type_meta::serialise;
use super::objects::StoredObject;
use super::resources::{ResourceType, ScalePaths, ScaleSelector};
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
    paths: &ScalePaths,
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
                    _ => patched(request, &value, body, name, paths)?,
                };
                let scaled = with_replicas(value, &requested, resource, name, paths)?;
                update_in(txn, &target, scaled)
            })?;
            stored.to_value()?
        }
        _ => return Err(ApiError::method_not_allowed()),
    };
    let scale = scale_of(&object, paths);
    // Written in Go's field order (kind, apiVersion, metadata, spec, status), as built-ins are.
    let (body, _) = serialise(&scale, false);
    Ok(json_response(StatusCode::OK, body))
}

/// The Scale a PATCH makes of the object's current one.
fn patched(
    request: &ResourceRequest,
    object: &Value,
    body: &[u8],
    name: &str,
    paths: &ScalePaths,
) -> Result<Value, ApiError> {
    let kind = PatchKind::from_content_type(&request.content_type)?;
    let patch = kind.parse(body)?;
    let mut scale = scale_of(object, paths);
    kind.apply(&mut scale, &patch, &request.resource, name)?;
    Ok(scale)
}

/// `object` with the Scale's `spec.replicas` at its desired-replicas path, guarded by the
/// Scale's resourceVersion.
fn with_replicas(
    mut object: Value,
    scale: &Value,
    resource: &ResourceType,
    name: &str,
    paths: &ScalePaths,
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
    set_at(&mut object, &paths.spec_replicas, replicas.into())?;
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        match precondition {
            Some(rv) => metadata.insert("resourceVersion".into(), rv),
            None => metadata.remove("resourceVersion"),
        };
    }
    Ok(object)
}

/// Sets the member a JSON `pointer` names, making the objects on the way
/// (`unstructured.SetNestedField`); 422 where a step is not an object.
fn set_at(object: &mut Value, pointer: &str, value: Value) -> Result<(), ApiError> {
    let steps: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|step| step.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, parents)) = steps.split_last() else {
        return Err(ApiError::bad_request("an empty replicas path"));
    };
    let mut at = object;
    for step in parents {
        at = at
            .as_object_mut()
            .ok_or_else(|| not_an_object(pointer))?
            .entry(step.as_str())
            .or_insert_with(|| json!({}));
    }
    at.as_object_mut()
        .ok_or_else(|| not_an_object(pointer))?
        .insert(last.clone(), value);
    Ok(())
}

/// The answer to a replicas path that crosses something other than an object.
fn not_an_object(pointer: &str) -> ApiError {
    ApiError::new(
        422,
        "Invalid",
        format!("the object has no object at {pointer} to write the replicas in"),
    )
}

/// The autoscaling/v1 Scale of an object: the metadata kube-apiserver copies, the replicas at
/// `paths`, and the selector as text.
fn scale_of(object: &Value, paths: &ScalePaths) -> Value {
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
    let mut status = json!({"replicas": number(&paths.status_replicas)});
    // `selector` is `omitempty`: a custom resource without one at its labelSelectorPath has none.
    let selector = selector(object, &paths.selector);
    if !selector.is_empty() {
        status["selector"] = selector.into();
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": meta,
        "spec": {"replicas": number(&paths.spec_replicas)},
        "status": status,
    })
}

/// The Scale's `status.selector`.
fn selector(object: &Value, source: &ScaleSelector) -> String {
    match source {
        ScaleSelector::Workload => object
            .pointer("/spec/selector/matchLabels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        ScaleSelector::Labels => object
            .pointer("/spec/selector")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        ScaleSelector::Text(pointer) => pointer
            .as_deref()
            .and_then(|pointer| object.pointer(pointer))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    }
}
