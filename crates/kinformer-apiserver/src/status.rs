//! metav1.Status errors: every failure the server reports is one of these, with the HTTP code and
//! `reason` kube-apiserver would use, written byte for byte as kube-apiserver writes a `Status`
//! (Go field order, `omitempty` members left out, HTML characters escaped as Go's encoder
//! escapes them, a closing newline).

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;

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
    /// Optional `details` (name, group, kind, causes).
    pub details: Option<Box<StatusDetails>>,
    /// The Status's `metadata.continue`: the fresh token of an expired continue's 410.
    pub continue_token: Option<String>,
}

impl ApiError {
    /// A Status with no details.
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
            continue_token: None,
        }
    }

    /// Attaches `details` naming the object concerned: its name, group and resource, which
    /// kube-apiserver writes as `kind` (`apimachinery/pkg/api/errors/errors.go`, `NewNotFound`).
    fn about(mut self, resource: &ResourceType, name: &str) -> Self {
        self.details = Some(Box::new(StatusDetails {
            name: name.to_owned(),
            group: resource.group.clone(),
            kind: resource.plural.clone(),
            ..StatusDetails::default()
        }));
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

    /// 405 MethodNotAllowed, for a method no route of the path serves: go-restful's error,
    /// which kube-apiserver writes through `NewGenericServerResponse` with no resource or name
    /// (apiserver `pkg/server/handler.go:176` `serviceErrorHandler`; apimachinery
    /// `pkg/api/errors/errors.go:473`): a fixed message and empty, present `details`.
    pub fn method_not_allowed() -> Self {
        let mut error = ApiError::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        );
        error.details = Some(Box::default());
        error
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
    /// reached within its wait (`ResourceVersionTooLarge`; clients retry after a second), its
    /// message prefixed as apimachinery's `NewTimeoutError` prefixes it (errors.go
    /// apimachinery v0.37.2:401-411, from storage/errors.go apiserver v0.37.2:234).
    pub fn too_large_resource_version(requested: u64, current: u64) -> Self {
        let mut error = ApiError::new(
            504,
            "Timeout",
            format!("Timeout: Too large resource version: {requested}, current: {current}"),
        );
        error.details = Some(Box::new(StatusDetails {
            causes: vec![StatusCause {
                reason: "ResourceVersionTooLarge".into(),
                message: "Too large resource version".into(),
                field: String::new(),
            }],
            retry_after_seconds: 1,
            ..StatusDetails::default()
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

    /// 422 Invalid: the message names the kind qualified by its group (`Deployment.apps`), and
    /// so do the details (`NewInvalid` takes a GroupKind, not a resource).
    pub fn invalid(resource: &ResourceType, name: &str, cause: &str) -> Self {
        let what = if resource.group.is_empty() {
            resource.kind.clone()
        } else {
            format!("{}.{}", resource.kind, resource.group)
        };
        let mut error = ApiError::new(
            422,
            "Invalid",
            format!("{what} \"{name}\" is invalid: {cause}"),
        );
        error.details = Some(Box::new(StatusDetails {
            name: name.to_owned(),
            group: resource.group.clone(),
            kind: resource.kind.clone(),
            ..StatusDetails::default()
        }));
        error
    }

    /// The `Status` object as a JSON value (its members in the map's order: write
    /// [`ApiError::status_json`] for kube-apiserver's bytes).
    pub fn to_status(&self) -> serde_json::Value {
        serde_json::from_str(&self.status_json()).unwrap_or_default()
    }

    /// The `Status` object's JSON text, as kube-apiserver encodes it but for the closing
    /// newline (a watch's ERROR event embeds it).
    pub fn status_json(&self) -> String {
        StatusBody {
            status: "Failure",
            message: &self.message,
            reason: self.reason,
            details: self.details.as_deref(),
            code: self.code,
        }
        .to_json(self.continue_token.as_deref())
    }
}

/// A `Status` as kube-apiserver writes one: `metav1.Status`'s members in its Go field order
/// (`kind, apiVersion, metadata, status, message, reason, details, code`), each `omitempty` one
/// left out when empty (`apimachinery/pkg/apis/meta/v1/types.go`); `kind`, `apiVersion` and
/// the empty `metadata` are written by [`StatusBody::to_json`].
#[derive(Debug, Serialize)]
struct StatusBody<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    status: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    message: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a StatusDetails>,
    #[serde(skip_serializing_if = "is_zero")]
    code: u16,
}

impl StatusBody<'_> {
    /// `{"kind":"Status","apiVersion":"v1","metadata":{},…}` (`metadata` holding `continue`
    /// when there is one), escaped as Go's encoder escapes.
    fn to_json(&self, continue_token: Option<&str>) -> String {
        let members = serde_json::to_string(self).unwrap_or_default();
        let rest = members.strip_prefix('{').unwrap_or("}");
        let comma = if rest == "}" { "" } else { "," };
        let metadata = continue_token.map_or_else(
            || "{}".to_owned(),
            |token| serde_json::json!({ "continue": token }).to_string(),
        );
        let text =
            format!(r#"{{"kind":"Status","apiVersion":"v1","metadata":{metadata}{comma}{rest}"#);
        go_escaped(&text)
    }
}

/// Whether a number is zero (Go's `omitempty`).
fn is_zero<T: Default + PartialEq>(number: &T) -> bool {
    *number == T::default()
}

/// `text` with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's `json.Encoder` escapes them by
/// default (`SetEscapeHTML`); in JSON text they can only stand inside strings.
fn go_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `metav1.StatusDetails`, in its Go field order, empty members left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusDetails {
    /// The object's name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Its API group (empty for the core group).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// Its resource (kube-apiserver writes the plural here), or, for `Invalid`, its kind.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Its uid.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// What caused the failure, field by field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
    /// When the client may try again.
    #[serde(skip_serializing_if = "is_zero")]
    pub retry_after_seconds: i32,
}

/// `metav1.StatusCause`: its `Type` is written as `reason`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatusCause {
    /// The cause's type (`FieldValueInvalid`, `FieldManagerConflict`…).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// What is wrong.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The field concerned.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub field: String,
}

/// The Success `Status` a DELETE answers for an object its resource's storage does not return
/// (`apiserver/pkg/registry/generic/registry/store.go`, `finalizeDelete`): no code, details
/// naming the object, its group, its resource (in `kind`) and its uid.
pub fn deleted_status(resource: &ResourceType, name: &str, uid: &str) -> Vec<u8> {
    let details = StatusDetails {
        name: name.to_owned(),
        group: resource.group.clone(),
        kind: resource.plural.clone(),
        uid: uid.to_owned(),
        ..StatusDetails::default()
    };
    let body = StatusBody {
        status: "Success",
        message: "",
        reason: "",
        details: Some(&details),
        code: 0,
    };
    format!("{}\n", body.to_json(None)).into_bytes()
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
        json_response(code, format!("{}\n", self.status_json()).into_bytes())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_escape_html_and_leave_out_empty_members() {
        let error = ApiError::new(400, "BadRequest", "a <b> & c");
        assert_eq!(
            error.status_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"a \u003cb\u003e \u0026 c","reason":"BadRequest","code":400}"#
        );
        assert_eq!(error.to_status()["message"], "a <b> & c");
        assert_eq!(
            ApiError::unknown("boom").status_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"boom","code":500}"#
        );
    }
}
