//! certificates.k8s.io/v1 CertificateSigningRequests: the requester recorded on create
//! (`pkg/registry/certificates/certificates/strategy.go`, `PrepareForCreate`: here the user of
//! the server's bearer token) and the fields validation requires.

use serde_json::{Map, Value, json};

use super::Cause;

/// A new CSR: its status empty, its requester the server's user (as the TokenReview of its
/// bearer token answers).
pub fn prepare_for_create(object: &mut Map<String, Value>) {
    object.insert("status".into(), json!({}));
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        let user = crate::issuer::admin_user();
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
