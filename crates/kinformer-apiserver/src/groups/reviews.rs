//! The reviews that are answered, never stored: authentication.k8s.io/v1 SelfSubjectReview
//! (`pkg/registry/authentication/selfsubjectreview/rest.go`: the caller's user) and
//! authorization.k8s.io/v1 SubjectAccessReview, LocalSubjectAccessReview,
//! SelfSubjectAccessReview and SelfSubjectRulesReview (`pkg/registry/authorization/*`).
//!
//! The server has one caller, its bearer token's `admin` in `system:masters`, and no RBAC
//! authorizer: a SelfSubjectAccessReview is allowed; a (Local)SubjectAccessReview is allowed
//! when its subject is that user or in `system:masters` (kube-apiserver's privileged group,
//! which authorizes everything; it writes no reason) and otherwise not allowed (no reason, as
//! RBAC answers a subject no binding names: the server does not evaluate Roles); a
//! SelfSubjectRulesReview lists the rules the reference server lists for that user.

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use serde_json::{Value, json};

use crate::app::ResourceRequest;
use crate::issuer::admin_user;
use crate::status::{ApiError, json_response};

/// The group a review of this module's resource `plural` belongs to and its kind.
fn kind_of(plural: &str) -> Option<(&'static str, &'static str)> {
    Some(match plural {
        "selfsubjectreviews" => ("authentication.k8s.io/v1", "SelfSubjectReview"),
        "subjectaccessreviews" => ("authorization.k8s.io/v1", "SubjectAccessReview"),
        "localsubjectaccessreviews" => ("authorization.k8s.io/v1", "LocalSubjectAccessReview"),
        "selfsubjectaccessreviews" => ("authorization.k8s.io/v1", "SelfSubjectAccessReview"),
        "selfsubjectrulesreviews" => ("authorization.k8s.io/v1", "SelfSubjectRulesReview"),
        _ => return None,
    })
}

/// Answers a POST of one of the reviews (None: not one of them).
pub fn serve(request: &ResourceRequest, body: &Bytes) -> Option<Result<Response, ApiError>> {
    let (api_version, kind) = kind_of(&request.resource.plural)?;
    Some(review(request, body, api_version, kind))
}

/// The answered review, 201.
fn review(
    request: &ResourceRequest,
    body: &Bytes,
    api_version: &str,
    kind: &str,
) -> Result<Response, ApiError> {
    let given: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not a {kind}: {e}")))?;
    if kind == "SelfSubjectReview" {
        let metadata = json!({"creationTimestamp": super::now()});
        let status = json!({"userInfo": admin_user()});
        let text = ordered(api_version, kind, &metadata, None, &status);
        return Ok(json_response(StatusCode::CREATED, text));
    }
    // A SelfSubjectRulesReview is answered as a new object: no spec, no metadata (`rest.go`).
    let spec = match kind {
        "SelfSubjectRulesReview" => json!({}),
        _ => given.get("spec").cloned().unwrap_or_else(|| json!({})),
    };
    let status = match kind {
        "SelfSubjectAccessReview" => json!({"allowed": true}),
        "SelfSubjectRulesReview" => rules(),
        _ => json!({"allowed": privileged(&spec)}),
    };
    let mut metadata = json!({});
    if let Some(namespace) = request.namespace.as_deref() {
        metadata["namespace"] = namespace.into();
    }
    if kind != "SelfSubjectRulesReview" {
        metadata = with_managed_fields(request, api_version, kind, metadata, &spec);
    }
    let text = ordered(api_version, kind, &metadata, Some(&spec), &status);
    Ok(json_response(StatusCode::CREATED, text))
}

/// Whether a SubjectAccessReview's subject is the server's user or in `system:masters`.
fn privileged(spec: &Value) -> bool {
    let user = spec.get("user").and_then(Value::as_str);
    let masters = spec
        .get("groups")
        .and_then(Value::as_array)
        .is_some_and(|g| g.iter().any(|g| g == "system:masters"));
    masters || user == admin_user().get("username").and_then(Value::as_str)
}

/// The metadata with the managedFields kube-apiserver's create handler records for the body
/// (its `spec`, as the review is decoded, before it is answered).
pub(super) fn with_managed_fields(
    request: &ResourceRequest,
    api_version: &str,
    kind: &str,
    metadata: Value,
    spec: &Value,
) -> Value {
    let mut object = json!({"apiVersion": api_version, "kind": kind,
        "metadata": metadata.clone(), "spec": spec});
    crate::write::record_creation(&request.resource, &mut object, &request.field_manager);
    let mut metadata = metadata;
    if let Some(entries) = object.pointer("/metadata/managedFields") {
        metadata["managedFields"] = entries.clone();
    }
    metadata
}

/// What the reference server's SelfSubjectRulesReview answers its `admin`: `system:masters`'
/// rule, then `system:basic-user`'s, `system:discovery`'s and `system:public-info-viewer`'s.
fn rules() -> Value {
    json!({
        "resourceRules": [
            {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]},
            {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"],
                "resources": ["selfsubjectreviews"]},
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
        ],
        "nonResourceRules": [
            {"verbs": ["*"], "nonResourceURLs": ["*"]},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version",
                "/version/"]},
            {"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*",
                "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version",
                "/version/"]}
        ],
        "incomplete": false
    })
}

/// The review as JSON, its top-level members in Go's order.
pub(super) fn ordered(
    api_version: &str,
    kind: &str,
    metadata: &Value,
    spec: Option<&Value>,
    status: &Value,
) -> String {
    let spec = spec.map(|s| format!(",\"spec\":{s}")).unwrap_or_default();
    format!(
        "{{\"kind\":{},\"apiVersion\":{},\"metadata\":{metadata}{spec},\"status\":{status}}}",
        Value::from(kind),
        Value::from(api_version)
    )
}
