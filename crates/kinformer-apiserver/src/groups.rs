//! The built-in groups beyond core, apps and apiextensions: what kube-apiserver's strategies
//! for them do that generic storage does not (and the size limits of core ConfigMaps and
//! Secrets, `size_limits.rs`). The write path calls [`apply_defaults`],
//! [`prepare_for_create`] and [`validate`]; the router calls [`serve`] first, which answers the
//! requests a strategy of its own serves (`pods/eviction`, `serviceaccounts/token`,
//! TokenReviews, a CSR's `approval`, `pods/ephemeralcontainers`, ComponentStatuses, the local
//! APIServices) and the verbs a resource does not serve.

mod apiregistration;
mod authentication;
mod batch;
mod certificates;
mod component_statuses;
mod policy;
mod rbac;
mod size_limits;

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::Method;
use serde_json::{Map, Value};

use crate::app::{App, ResourceRequest};
use crate::resources::ResourceType;
use crate::status::ApiError;

pub use self::authentication::{Issuer, KeyError};

/// Fills in the defaults kube-apiserver's defaulting functions give the objects of these groups
/// (`SetDefaults_Job`, `SetDefaults_CronJob`, a ReplicationController's, …).
pub fn apply_defaults(object: &mut Map<String, Value>, resource: &ResourceType) {
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::job_defaults(object),
        ("batch", "cronjobs") => batch::cron_job_defaults(object),
        ("", "replicationcontrollers") => batch::replication_controller_defaults(object),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
            rbac::binding_defaults(object);
        }
        _ => {}
    }
}

/// What these groups' strategies set on a new object (`PrepareForCreate`): a Job's generated
/// selector and labels, the zero status of a PDB or a ReplicationController, a CSR's username.
pub fn prepare_for_create(object: &mut Map<String, Value>, resource: &ResourceType) {
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::job_selector(object),
        ("batch", "cronjobs") => batch::empty_status(object),
        ("policy", "poddisruptionbudgets") => policy::zero_status(object),
        ("", "replicationcontrollers") => batch::replication_controller_status(object),
        ("certificates.k8s.io", "certificatesigningrequests") => {
            certificates::prepare_for_create(object);
        }
        _ => {}
    }
}

/// The required fields these groups' validation checks, as kube-apiserver's 422 Invalid.
pub fn validate(value: &Value, resource: &ResourceType) -> Result<(), ApiError> {
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let causes = match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::validate_job(value),
        ("batch", "cronjobs") => batch::validate_cron_job(value),
        ("policy", "poddisruptionbudgets") => policy::validate(value),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
            rbac::validate_binding(value)
        }
        ("rbac.authorization.k8s.io", "roles" | "clusterroles") => rbac::validate_role(value),
        ("certificates.k8s.io", "certificatesigningrequests") => certificates::validate(value),
        ("", "configmaps") => size_limits::config_map(value),
        ("", "secrets") => size_limits::secret(value),
        _ => Vec::new(),
    };
    if causes.is_empty() {
        return Ok(());
    }
    Err(invalid(resource, name, causes))
}

/// A field the validation refuses: its path and kube-apiserver's words (`Required value`, …).
pub struct Cause {
    /// `spec.template.spec.containers`.
    pub field: String,
    /// The cause's reason (`FieldValueRequired`).
    pub reason: &'static str,
    /// `Required value`.
    pub message: String,
}

impl Cause {
    /// `field: Required value`.
    pub fn required(field: &str) -> Cause {
        Cause {
            field: field.to_owned(),
            reason: "FieldValueRequired",
            message: "Required value".into(),
        }
    }

    /// `field: Unsupported value: "x": supported values: …`.
    pub fn unsupported(field: &str, value: &str, supported: &[&str]) -> Cause {
        let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        Cause {
            field: field.to_owned(),
            reason: "FieldValueNotSupported",
            message: format!(
                "Unsupported value: {value:?}: supported values: {}",
                quoted.join(", ")
            ),
        }
    }

    /// `field: Invalid value: value: why`.
    pub fn invalid(field: &str, value: &str, why: &str) -> Cause {
        Cause {
            field: field.to_owned(),
            reason: "FieldValueInvalid",
            message: format!("Invalid value: {value}: {why}"),
        }
    }
}

/// kube-apiserver's 422 for `causes`: `Kind "name" is invalid: [a, b]`.
fn invalid(resource: &ResourceType, name: &str, causes: Vec<Cause>) -> ApiError {
    let texts: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let joined = if texts.len() == 1 {
        texts[0].clone()
    } else {
        format!("[{}]", texts.join(", "))
    };
    let mut error = ApiError::invalid(resource, name, &joined);
    if let Some(details) = error.details.as_mut() {
        details.causes = causes
            .into_iter()
            .map(|c| crate::status::StatusCause {
                reason: c.reason.into(),
                message: c.message,
                field: c.field,
            })
            .collect();
    }
    error
}

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
        (("", "pods"), Some("ephemeralcontainers"), _, Some(name)) => {
            Some(ephemeral_containers(app, method, request, name, body))
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

/// `pods/ephemeralcontainers`: GET answers the pod; PUT and PATCH (merge, strategic merge
/// as a merge, JSON patch) write only its `spec.ephemeralContainers`
/// (`registry/core/pod/strategy.go`, `podEphemeralContainersStrategy`).
fn ephemeral_containers(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let plain = without_subresource(request);
    if method == Method::GET {
        return crate::write::get(app, &plain, name);
    }
    let key = crate::objects::object_key(request.namespace.as_deref().unwrap_or(""), name);
    let stored = app
        .store
        .get(&request.resource.key(), &key)
        .ok_or_else(|| ApiError::not_found(&request.resource, name))?
        .to_value()?;
    let given = match method.as_str() {
        "PUT" => parse(body)?,
        "PATCH" => patched(&stored, &request.content_type, body)?,
        _ => return Err(ApiError::method_not_allowed()),
    };
    let mut merged = stored;
    let containers = given
        .pointer("/spec/ephemeralContainers")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    if let Some(spec) = merged.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("ephemeralContainers".into(), containers);
    }
    if let Some(rv) = given.pointer("/metadata/resourceVersion")
        && let Some(meta) = merged.get_mut("metadata").and_then(Value::as_object_mut)
    {
        meta.insert("resourceVersion".into(), rv.clone());
    }
    crate::write::replace(app, &plain, name, &Bytes::from(merged.to_string()))
}

/// A request body as JSON; 400 when it is not.
fn parse(body: &Bytes) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))
}

/// `stored` with a PATCH body applied (a JSON patch, else a merge patch).
fn patched(stored: &Value, content_type: &str, body: &Bytes) -> Result<Value, ApiError> {
    let mut value = stored.clone();
    if content_type.starts_with("application/json-patch+json") {
        let patch: json_patch::Patch = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON patch: {e}")))?;
        json_patch::patch(&mut value, &patch)
            .map_err(|e| ApiError::new(422, "Invalid", e.to_string()))?;
    } else {
        json_patch::merge(&mut value, &parse(body)?);
    }
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
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
