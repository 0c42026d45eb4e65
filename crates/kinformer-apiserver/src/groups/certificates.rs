//! certificates.k8s.io/v1 CertificateSigningRequests' `approval` subresource,
//! which writes only `status.conditions` (`approvalStrategy`). Signing is a controller's work:
//! nothing here issues a certificate.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::Method;
use serde_json::{Value, json};

use super::without_subresource;
use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::status::ApiError;

/// `certificatesigningrequests/{name}/approval`: GET answers the CSR; PUT (or a PATCH of the
/// stored CSR: discovery advertises `get,patch,update`) writes the given
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
        "PUT" | "PATCH" => {
            let stored = app
                .store
                .get(&request.resource.key(), &object_key("", name))
                .ok_or_else(|| ApiError::not_found(&request.resource, name))?
                .to_value()?;
            let given: Value = if method == Method::PATCH {
                super::patched(&stored, request, name, body)?
            } else {
                serde_json::from_slice(body)
                    .map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))?
            };
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
