//! The requests of the built-in groups that generic storage does not serve. The router calls
//! [`serve`] first, which answers the requests a storage of its own serves (`pods/eviction`,
//! `serviceaccounts/token`, the reviews, Bindings, a CSR's `approval`,
//! `pods/ephemeralcontainers` and `resize`, `namespaces/finalize`, the subresources a kubelet
//! would answer, ComponentStatuses, the local APIServices) and the verbs a resource does not
//! serve.

mod apiregistration;
mod authentication;
mod binding;
mod certificates;
mod component_statuses;
mod kubelet;
mod policy;
mod reviews;

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::Method;
use serde_json::Value;

use crate::app::{App, ResourceRequest};
use crate::status::ApiError;

/// Answers what a strategy of this module serves; None for what generic storage serves.
pub fn serve(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    body: &Bytes,
) -> Option<Result<Response, ApiError>> {
    let resource = &request.resource;
    let verb = verb_of(method, request);
    if request.subresource.is_none() && !resource.serves_verb(verb) {
        return Some(Err(ApiError::method_not_allowed()));
    }
    let name = request.name.as_deref();
    let key = (resource.group.as_str(), resource.plural.as_str());
    match (key, request.subresource.as_deref(), method.as_str(), name) {
        (("", "pods"), Some("eviction"), "POST", Some(name)) => {
            Some(policy::evict(app, request, name, body))
        }
        (("", "pods"), Some("eviction"), _, _) => Some(Err(ApiError::method_not_allowed())),
        (("", "pods"), Some("ephemeralcontainers"), _, Some(name)) => Some(partial_write(
            app,
            method,
            request,
            name,
            body,
            ephemeral_containers,
        )),
        (("", "pods"), Some("resize"), _, Some(name)) => Some(partial_write(
            app,
            method,
            request,
            name,
            body,
            container_resources,
        )),
        (("", "namespaces"), Some("finalize"), "PUT", Some(name)) => {
            Some(partial_write(app, method, request, name, body, finalizers))
        }
        (("", "pods"), Some("binding"), "POST", Some(name)) => {
            Some(binding::bind(app, request, Some(name), body))
        }
        (("", "bindings"), None, "POST", None) => Some(binding::bind(app, request, None, body)),
        (("", "pods"), Some("log"), "GET", Some(name)) => Some(kubelet::log(app, request, name)),
        (("", "pods"), Some("exec" | "attach" | "portforward"), "GET" | "POST", Some(name)) => {
            Some(kubelet::stream(app, request, name))
        }
        (("", "pods"), Some("proxy"), _, Some(name)) => {
            Some(kubelet::pod_proxy(app, request, name))
        }
        (("", "nodes"), Some("proxy"), _, Some(name)) => {
            Some(kubelet::node_proxy(app, request, name))
        }
        (("", "services"), Some("proxy"), _, Some(name)) => Some(kubelet::service_proxy(name)),
        (("authentication.k8s.io" | "authorization.k8s.io", _), None, "POST", None)
            if resource.plural != "tokenreviews" =>
        {
            reviews::serve(request, body)
        }
        (("", "serviceaccounts"), Some("token"), "POST", Some(name)) => {
            Some(authentication::token_request(app, request, name, body))
        }
        (("", "serviceaccounts"), Some("token"), _, _) => Some(Err(ApiError::method_not_allowed())),
        (("authentication.k8s.io", "tokenreviews"), None, "POST", None) => {
            Some(authentication::token_review(app, request, body))
        }
        (("apiregistration.k8s.io", "apiservices"), None, "GET", _) => {
            apiregistration::serve(app, request)
        }
        (("", "componentstatuses"), None, "GET", name) => {
            Some(component_statuses::serve(request, name))
        }
        (
            ("certificates.k8s.io", "certificatesigningrequests"),
            Some("approval"),
            _,
            Some(name),
        ) => Some(certificates::approval(app, method, request, name, body)),
        (_, Some(sub), _, _) if !generic_subresource(sub) => {
            Some(Err(ApiError::method_not_allowed()))
        }
        _ => None,
    }
}

/// The verb of a request as discovery names it.
fn verb_of(method: &Method, request: &ResourceRequest) -> &'static str {
    match (method.as_str(), request.name.is_some()) {
        ("GET", false) if request.flag("watch") => "watch",
        ("GET", false) => "list",
        ("GET", true) => "get",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", false) => "deletecollection",
        ("DELETE", true) => "delete",
        _ => "unknown",
    }
}

/// Whether generic storage serves the subresource (`status`, `scale`).
fn generic_subresource(name: &str) -> bool {
    matches!(name, "status" | "scale")
}

/// A subresource that answers its object on GET and writes only some of its fields on PUT and
/// PATCH (merge, strategic merge, JSON patch): `copy` takes those fields from the given object
/// into the stored one (`registry/core/pod/strategy.go`, `podEphemeralContainersStrategy`,
/// `podResizeStrategy`; `registry/core/namespace/storage/storage.go`, `FinalizeREST`). A
/// write that names no resourceVersion is unconditional: kube-apiserver's `GuaranteedUpdate`
/// retries it on a conflict with what was written meanwhile, and so does this one.
fn partial_write(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
    copy: fn(&mut Value, &Value),
) -> Result<Response, ApiError> {
    let plain = without_subresource(request);
    if method == Method::GET {
        return crate::write::get(app, &plain, name);
    }
    let mut attempts = 0;
    loop {
        let merged = partial_body(app, method, request, name, body, copy)?;
        let unconditional = merged.1;
        match crate::write::replace(app, &plain, name, &Bytes::from(merged.0.to_string())) {
            Err(e) if e.code == 409 && unconditional && attempts < UNCONDITIONAL_RETRIES => {
                attempts += 1;
            }
            answer => return answer,
        }
    }
}

/// How often an unconditional subresource write is tried again after a conflict.
const UNCONDITIONAL_RETRIES: usize = 8;

/// The stored object with the given fields copied in, at the resourceVersion given (or the
/// stored one), and whether none was given.
fn partial_body(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
    copy: fn(&mut Value, &Value),
) -> Result<(Value, bool), ApiError> {
    let key = crate::objects::object_key(request.namespace.as_deref().unwrap_or(""), name);
    let stored = app
        .store
        .get(&request.resource.key(), &key)
        .ok_or_else(|| ApiError::not_found(&request.resource, name))?
        .to_value()?;
    let given = match method.as_str() {
        "PUT" => parse(body)?,
        "PATCH" => patched(&stored, request, name, body)?,
        _ => return Err(ApiError::method_not_allowed()),
    };
    let mut merged = stored;
    copy(&mut merged, &given);
    let given_rv = given
        .pointer("/metadata/resourceVersion")
        .filter(|rv| rv.as_str().is_some_and(|rv| !rv.is_empty()));
    let unconditional = given_rv.is_none();
    if let Some(rv) = given_rv
        && let Some(meta) = merged.get_mut("metadata").and_then(Value::as_object_mut)
    {
        meta.insert("resourceVersion".into(), rv.clone());
    }
    Ok((merged, unconditional))
}

/// `pods/ephemeralcontainers`: the given `spec.ephemeralContainers`.
fn ephemeral_containers(stored: &mut Value, given: &Value) {
    let containers = given
        .pointer("/spec/ephemeralContainers")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    if let Some(spec) = stored.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("ephemeralContainers".into(), containers);
    }
}

/// `pods/resize`: each container's `resources` and `resizePolicy`, matched by name.
fn container_resources(stored: &mut Value, given: &Value) {
    let given: Vec<&Value> = given
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let Some(containers) = stored
        .pointer_mut("/spec/containers")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for container in containers.iter_mut() {
        let name = container.get("name").cloned();
        let Some(new) = given.iter().find(|c| c.get("name") == name.as_ref()) else {
            continue;
        };
        let Some(container) = container.as_object_mut() else {
            continue;
        };
        for field in ["resources", "resizePolicy"] {
            match new.get(field) {
                Some(value) => container.insert(field.into(), value.clone()),
                None => container.remove(field),
            };
        }
    }
}

/// `namespaces/finalize`: the given `spec.finalizers`.
fn finalizers(stored: &mut Value, given: &Value) {
    let list = given
        .pointer("/spec/finalizers")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    if let Some(object) = stored.as_object_mut() {
        let spec = object
            .entry("spec")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(spec) = spec.as_object_mut() {
            spec.insert("finalizers".into(), list);
        }
    }
}

/// A request body as JSON; 400 when it is not.
fn parse(body: &Bytes) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))
}

/// `stored` with a PATCH body applied in the request's patch format (a strategic merge patch
/// merges lists by their patch merge key, as `pods/ephemeralcontainers` needs); the result
/// names no resourceVersion unless the patch does.
fn patched(
    stored: &Value,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
) -> Result<Value, ApiError> {
    let kind = crate::write::PatchKind::from_content_type(&request.content_type)?;
    let patch = kind.parse(body)?;
    let mut value = stored.clone();
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
    kind.apply(&mut value, &patch, &request.resource, name)?;
    Ok(value)
}

/// `request` addressed to its object itself rather than a subresource.
pub fn without_subresource(request: &ResourceRequest) -> ResourceRequest {
    ResourceRequest {
        resource: Arc::clone(&request.resource),
        version: request.version.clone(),
        namespace: request.namespace.clone(),
        name: request.name.clone(),
        subresource: None,
        params: request.params.clone(),
        representation: request.representation,
        media: request.media,
        content_type: request.content_type.clone(),
        field_manager: request.field_manager.clone(),
    }
}

/// The current time as kube-apiserver writes a `metav1.Time` (RFC 3339, seconds, UTC).
pub fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}
