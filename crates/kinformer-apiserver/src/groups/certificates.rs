//! certificates.k8s.io/v1 CertificateSigningRequests: the requester recorded on create
//! (`pkg/registry/certificates/certificates/strategy.go`, `PrepareForCreate`: here the user of
//! the server's bearer token), the fields validation requires, and the `approval` subresource,
//! which writes only `status.conditions` (`approvalStrategy`). Signing is a controller's work:
//! nothing here issues a certificate.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::Method;
use serde_json::{Map, Value, json};

use super::{Cause, without_subresource};
use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::status::ApiError;

/// A new CSR: its status empty, its requester the server's user (as the TokenReview of its
/// bearer token answers).
pub fn prepare_for_create(object: &mut Map<String, Value>) {
    object.insert("status".into(), json!({}));
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        let user = super::authentication::admin_user();
        for key in ["username", "uid", "groups"] {
            if let Some(value) = user.get(key) {
                spec.insert(key.into(), value.clone());
            }
        }
        spec.remove("extra");
    }
}

/// A CSR's required fields (`ValidateCertificateRequest`): the PEM request, a signer name, the
/// usages.
pub fn validate(value: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    if text("/spec/request").is_empty() {
        causes.push(Cause::invalid(
            "spec.request",
            "[]byte{}",
            "PEM block type must be CERTIFICATE REQUEST",
        ));
    }
    let signer = text("/spec/signerName");
    if signer.is_empty() {
        causes.push(Cause::required("spec.signerName"));
    } else if !signer.contains('/') {
        causes.push(Cause::invalid(
            "spec.signerName",
            &format!("{signer:?}"),
            "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        ));
    }
    if value
        .pointer("/spec/usages")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        causes.push(Cause::required("spec.usages"));
    }
    causes
}

/// `certificatesigningrequests/{name}/approval`: GET answers the CSR; PUT writes the given
/// `status.conditions` (each given its update and transition times) and nothing else, not
/// even managedFields (the approval strategy copies the old object over the new).
pub fn approval(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let plain = without_subresource(request);
    match method.as_str() {
        "GET" => crate::write::get(app, &plain, name),
        "PUT" => {
            let given: Value = serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))?;
            let stored = app
                .store
                .get(&request.resource.key(), &object_key("", name))
                .ok_or_else(|| ApiError::not_found(&request.resource, name))?
                .to_value()?;
            let merged = with_conditions(stored, &given);
            let mut status = without_subresource(request);
            status.subresource = Some("status".into());
            let merged = Bytes::from(merged.to_string());
            crate::write::replace_keeping_managed_fields(app, &status, name, &merged)
        }
        _ => Err(ApiError::method_not_allowed()),
    }
}

/// `stored` with `given`'s conditions (times filled in) and resourceVersion.
fn with_conditions(mut stored: Value, given: &Value) -> Value {
    let now = super::now();
    let mut conditions = given
        .pointer("/status/conditions")
        .cloned()
        .unwrap_or(json!([]));
    for condition in conditions.as_array_mut().into_iter().flatten() {
        if let Some(c) = condition.as_object_mut() {
            for key in ["lastUpdateTime", "lastTransitionTime"] {
                if c.get(key).is_none_or(Value::is_null) {
                    c.insert(key.into(), now.clone().into());
                }
            }
        }
    }
    if let Some(object) = stored.as_object_mut() {
        let status = object.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            status.insert("conditions".into(), conditions);
        }
        if let (Some(rv), Some(meta)) = (
            given.pointer("/metadata/resourceVersion"),
            object.get_mut("metadata").and_then(Value::as_object_mut),
        ) {
            meta.insert("resourceVersion".into(), rv.clone());
        }
    }
    stored
}
