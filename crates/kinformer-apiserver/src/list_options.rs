//! ListOptions validation: the 422 kube-apiserver answers when a LIST or WATCH combines
//! `resourceVersionMatch`, `resourceVersion`, `continue` and `sendInitialEvents` in a way
//! apimachinery's `ValidateListOptions` refuses (validation.go apimachinery v0.37.2:28-76):
//! every field error, in its order, in the message and as a cause of the Status's details.

use super::app::ResourceRequest;
use super::status::{ApiError, StatusCause, StatusDetails};

/// One field error, as apimachinery's `field.Error` words it.
struct FieldError {
    field: &'static str,
    /// `FieldValueForbidden` or `FieldValueNotSupported`.
    reason: &'static str,
    /// The error without its field (`Forbidden: …`, `Unsupported value: …`).
    detail: String,
}

impl FieldError {
    fn forbidden(field: &'static str, why: &str) -> Self {
        FieldError {
            field,
            reason: "FieldValueForbidden",
            detail: format!("Forbidden: {why}"),
        }
    }

    fn not_supported(field: &'static str, value: &str, supported: &[&str]) -> Self {
        let supported: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        FieldError {
            field,
            reason: "FieldValueNotSupported",
            detail: format!(
                "Unsupported value: {value:?}: supported values: {}",
                supported.join(", ")
            ),
        }
    }
}

/// The request's options checked as kube-apiserver checks a LIST's (`watch` false) or a
/// WATCH's; `422 Invalid` with every error found.
pub fn validate(request: &ResourceRequest, watch: bool) -> Result<(), ApiError> {
    let errors = if watch {
        watch_errors(request)
    } else {
        list_errors(request)
    };
    if errors.is_empty() {
        return Ok(());
    }
    let messages: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.field, e.detail))
        .collect();
    let mut error = ApiError::invalid_options("ListOptions", &messages);
    error.details = Some(Box::new(StatusDetails {
        group: "meta.k8s.io".into(),
        kind: "ListOptions".into(),
        causes: errors
            .into_iter()
            .map(|e| StatusCause {
                reason: e.reason.into(),
                message: e.detail,
                field: e.field.into(),
            })
            .collect(),
        ..StatusDetails::default()
    }));
    Err(error)
}

/// `ValidateListOptions` for a LIST (validation.go apimachinery v0.37.2:32-50).
fn list_errors(request: &ResourceRequest) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(matching) = request.param("resourceVersionMatch") {
        let rv = request.param("resourceVersion");
        if rv.is_none() {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if request.param("continue").is_some() {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if !matches!(matching, "Exact" | "NotOlderThan") {
            errors.push(FieldError::not_supported(
                "resourceVersionMatch",
                matching,
                &["Exact", "NotOlderThan", ""],
            ));
        }
        if matching == "Exact" && rv == Some("0") {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if request.param("sendInitialEvents").is_some() {
        errors.push(FieldError::forbidden(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for list",
        ));
    }
    errors
}

/// `validateWatchOptions` (validation.go apimachinery v0.37.2:53-76; the WatchList feature
/// is on in 1.37).
fn watch_errors(request: &ResourceRequest) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let matching = request.param("resourceVersionMatch");
    let send_initial_events = request.param("sendInitialEvents").is_some();
    if send_initial_events && matching != Some("NotOlderThan") {
        errors.push(FieldError::forbidden(
            "resourceVersionMatch",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if let Some(matching) = matching {
        if !send_initial_events {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        if matching != "NotOlderThan" {
            errors.push(FieldError::not_supported(
                "resourceVersionMatch",
                matching,
                &["NotOlderThan"],
            ));
        }
        if request.param("continue").is_some() {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
    }
    errors
}
