//! POST (kube-apiserver's `handlers/create.go`): `dryRun=All`, and the NamespaceLifecycle
//! admission check that the namespace of a new object exists.

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::get::respond;
use super::meta::parse_object;
use super::registry::create_in;
use super::strategy::{prepare_create, resolve_namespace};
use crate::apiserver::app::{App, ResourceRequest};
use crate::apiserver::objects::StoredObject;
use crate::apiserver::resources::ResourceType;
use crate::apiserver::status::ApiError;
use crate::apiserver::store::Txn;

/// Serves POST.
pub fn create(app: &App, request: &ResourceRequest, body: &[u8]) -> Result<Response, ApiError> {
    let value = parse_object(body)?;
    let namespace = request.namespace.as_deref();
    let object = app.store.write(|txn| {
        require_namespace(txn, &request.resource, namespace, &value)?;
        if is_dry_run(request)? {
            let prepared = prepare_create(txn, &request.resource, namespace, value)?;
            return StoredObject::new(&prepared, &request.resource, 0).map(Arc::new);
        }
        create_in(txn, &request.resource, namespace, value)
    })?;
    Ok(respond(StatusCode::CREATED, request, &object))
}

/// `dryRun=All` (`kubectl create --dry-run=server`): validate and answer, store nothing. Any
/// other value is 400, as kube-apiserver answers.
fn is_dry_run(request: &ResourceRequest) -> Result<bool, ApiError> {
    match request.param("dryRun") {
        None => Ok(false),
        Some("All") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!(
            "dryRun: Unsupported value: {other:?}: supported values: \"All\""
        ))),
    }
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
        Some(_) => Ok(()),
        None => Err(ApiError::not_found(&namespaces, &namespace)),
    }
}
