//! metav1.Status errors: every failure the server reports is one of these, with the HTTP code and
//! `reason` kube-apiserver would use.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use super::resources::ResourceType;

/// A failed request, rendered as a `Status` object.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// Machine-readable reason (`NotFound`, `Conflict`, ...).
    pub reason: &'static str,
    /// Human-readable message.
    pub message: String,
    /// Optional `details` (name, group, kind).
    pub details: Option<Value>,
}

impl ApiError {
    /// A Status with no details.
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    /// Attaches `details` naming the object concerned.
    fn about(mut self, resource: &ResourceType, name: &str) -> Self {
        self.details =
            Some(json!({"name": name, "group": resource.group, "kind": resource.plural}));
        self
    }

    /// 500 with no reason (`StatusReasonUnknown`): how kube-apiserver answers an error that is
    /// not a Status (`apimachinery/pkg/api/errors` via `responsewriters.ErrorToAPIStatus`).
    pub fn unknown(message: impl Into<String>) -> Self {
        ApiError::new(500, "", message)
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    /// 401 Unauthorized.
    pub fn unauthorized() -> Self {
        ApiError::new(401, "Unauthorized", "Unauthorized")
    }

    /// 404 NotFound for an object.
    pub fn not_found(resource: &ResourceType, name: &str) -> Self {
        let what = qualified(resource);
        ApiError::new(404, "NotFound", format!("{what} \"{name}\" not found")).about(resource, name)
    }

    /// 404 NotFound for a path no resource is served at.
    pub fn no_route() -> Self {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    /// 405 MethodNotAllowed.
    pub fn method_not_allowed(method: &str) -> Self {
        ApiError::new(
            405,
            "MethodNotAllowed",
            format!("the server does not allow this method on the requested resource: {method}"),
        )
    }

    /// 409 AlreadyExists.
    pub fn already_exists(resource: &ResourceType, name: &str) -> Self {
        let what = qualified(resource);
        ApiError::new(
            409,
            "AlreadyExists",
            format!("{what} \"{name}\" already exists"),
        )
        .about(resource, name)
    }

    /// 403 Forbidden, as an admission plugin refuses a write (`admission.NewForbidden`).
    pub fn forbidden(resource: &ResourceType, name: &str, why: &str) -> Self {
        let what = qualified(resource);
        ApiError::new(
            403,
            "Forbidden",
            format!("{what} \"{name}\" is forbidden: {why}"),
        )
        .about(resource, name)
    }

    /// 409 Conflict on a stale resourceVersion (or failed precondition).
    pub fn conflict(resource: &ResourceType, name: &str, why: &str) -> Self {
        let what = qualified(resource);
        ApiError::new(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on {what} \"{name}\": {why}"),
        )
        .about(resource, name)
    }

    /// 410 Expired.
    pub fn expired(message: impl Into<String>) -> Self {
        ApiError::new(410, "Expired", message)
    }

    /// 504 Timeout: kube-apiserver's answer to a request for a resourceVersion it has not
    /// reached within its wait (`ResourceVersionTooLarge`; clients retry after a second).
    pub fn too_large_resource_version(requested: u64, current: u64) -> Self {
        let mut error = ApiError::new(
            504,
            "Timeout",
            format!("Too large resource version: {requested}, current: {current}"),
        );
        error.details = Some(json!({
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        }));
        error
    }

    /// 422 Invalid for query options (`ListOptions.meta.k8s.io "" is invalid: ...`), one
    /// field error or a bracketed list of them.
    pub fn invalid_options(kind: &str, errors: &[String]) -> Self {
        let causes = match errors {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        ApiError::new(
            422,
            "Invalid",
            format!("{kind}.meta.k8s.io \"\" is invalid: {causes}"),
        )
    }

    /// 415 UnsupportedMediaType.
    pub fn unsupported_media_type(content_type: &str) -> Self {
        ApiError::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got {content_type:?})"
            ),
        )
    }

    /// 422 Invalid.
    pub fn invalid(resource: &ResourceType, name: &str, cause: &str) -> Self {
        ApiError::new(
            422,
            "Invalid",
            format!("{} \"{name}\" is invalid: {cause}", resource.kind),
        )
        .about(resource, name)
    }

    /// The `Status` object.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(map) = status.as_object_mut() {
            if self.reason.is_empty() {
                // `reason` is omitempty.
                map.remove("reason");
            }
            if let Some(details) = &self.details {
                map.insert("details".into(), details.clone());
            }
        }
        status
    }
}

/// The Success `Status` a DELETE answers for an object its resource's storage does not return
/// (`apiserver/pkg/registry/generic/registry/store.go`, `finalizeDelete`): no code, details
/// naming the object, its group, its resource (in `kind`) and its uid.
pub fn deleted_status(resource: &ResourceType, name: &str, uid: &str) -> Vec<u8> {
    let mut details = json!({"name": name, "kind": resource.plural, "uid": uid});
    if !resource.group.is_empty() {
        details["group"] = resource.group.clone().into();
    }
    let status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    });
    status.to_string().into_bytes()
}

/// `pods` or `deployments.apps`, as kube-apiserver names resources in messages.
fn qualified(resource: &ResourceType) -> String {
    if resource.group.is_empty() {
        resource.plural.clone()
    } else {
        format!("{}.{}", resource.plural, resource.group)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        json_response(code, self.to_status().to_string().into_bytes())
    }
}

/// A JSON response with the given status and body.
pub fn json_response(code: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = code;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
