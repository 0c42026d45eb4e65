//! POST (kube-apiserver's `handlers/create.go`): CreateOptions (`dryRun=All`), the
//! NamespaceLifecycle admission check that the namespace of a new object exists and is not
//! Terminating, the status a
//! create may not set, and the storage's refusal of an object that carries a resourceVersion.

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::get::respond;
use super::managed::{Writer, record_update};
use super::meta::{parse_body, str_at};
use super::options::{WriteKind, WriteOptions};
use super::registry::{Ownership, create_in};
use super::strategy::{reset_status_on_create, resolve_namespace};
use super::zero_value::{decode, zero_value};
use crate::app::{App, ResourceRequest};
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusCause};
use crate::store::Txn;

/// Serves POST.
pub fn create(app: &App, request: &ResourceRequest, body: &[u8]) -> Result<Response, ApiError> {
    let options = WriteOptions::of(request, WriteKind::Create, &[])?;
    let mut value = parse_body(body, &request.resource.kind)?;
    reset_status_on_create(&mut value, &request.resource);
    let namespace = request.namespace.as_deref();
    let object = app.store.transaction(options.dry_run, |txn| {
        require_namespace(txn, &request.resource, namespace, &value)?;
        if !options.dry_run {
            refuse_resource_version(&value)?;
        }
        create_in(
            txn,
            &request.resource,
            namespace,
            value,
            Ownership::Update(Writer {
                manager: &request.field_manager,
                subresource: "",
            }),
        )
    })?;
    Ok(respond(StatusCode::CREATED, request, &object))
}

/// What kube-apiserver's create handler does to a body before any storage sees it, for a
/// create-only resource that stores nothing (a TokenReview): decoding fills in the type's zero
/// value, and the field manager records `manager` owning the fields sent
/// (`endpoints/handlers/create.go:199`, `FieldManager.UpdateNoErrors`).
pub fn record_creation(resource: &ResourceType, value: &mut Value, manager: &str) {
    let zero = zero_value(resource);
    decode(value, resource);
    let writer = Writer {
        manager,
        subresource: "",
    };
    record_update(resource, zero, value, writer);
}

/// kube-apiserver's storage refuses to create an object that carries a resourceVersion with a
/// plain error, which its handlers answer `500` with no reason
/// (`apiserver/pkg/storage/errors.go` `ErrResourceVersionSetOnCreate`, returned by the etcd3
/// store's `Create`; a dry run never reaches the storage, so it passes). The store refuses only
/// a version that parses and is not 0 (`ObjectResourceVersion(obj); err == nil && version != 0`);
/// any other is dropped, as the store replaces it anyway.
fn refuse_resource_version(value: &Value) -> Result<(), ApiError> {
    match parse_uint(str_at(value, "/metadata/resourceVersion")) {
        Some(version) if version != 0 => Err(ApiError::unknown(
            "resourceVersion should not be set on objects to be created",
        )),
        _ => Ok(()),
    }
}

/// Go's `strconv.ParseUint(s, 10, 64)`: ASCII digits only (Rust's `u64::from_str` also takes a
/// leading `+`), `""` is the versioner's 0.
fn parse_uint(text: &str) -> Option<u64> {
    if text.is_empty() {
        return Some(0);
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// 404 `namespaces "x" not found` when a namespaced object is created in a namespace that does
/// not exist (API requests only: the library's seeding and churn do not ask).
pub fn require_namespace(
    txn: &Txn<'_>,
    resource: &ResourceType,
    path_namespace: Option<&str>,
    value: &Value,
) -> Result<(), ApiError> {
    if !resource.namespaced {
        return Ok(());
    }
    let namespace = resolve_namespace(value, resource, path_namespace)?;
    let namespaces = txn
        .registry()
        .find("", "v1", "namespaces")
        .ok_or_else(ApiError::no_route)?;
    match txn.get(&namespaces.key(), &namespace) {
        Some(stored) if stored.metadata_value(b"deletionTimestamp").is_some() => {
            Err(terminating(resource, &namespace, value))
        }
        Some(_) => Ok(()),
        None => Err(ApiError::not_found(&namespaces, &namespace)),
    }
}

/// The NamespaceLifecycle admission plugin's refusal of a create in a Terminating namespace
/// (apiserver `pkg/admission/plugin/namespace/lifecycle/admission.go:179-186`): 403, with a
/// `NamespaceTerminating` cause.
fn terminating(resource: &ResourceType, namespace: &str, value: &Value) -> ApiError {
    let name = str_at(value, "/metadata/name");
    let mut error = ApiError::forbidden(
        resource,
        name,
        &format!(
            "unable to create new content in namespace {namespace} because it is being terminated"
        ),
    );
    if let Some(details) = error.details.as_mut() {
        details.causes.push(StatusCause {
            reason: "NamespaceTerminating".into(),
            message: format!("namespace {namespace} is being terminated"),
            field: "metadata.namespace".into(),
        });
    }
    error
}
