//! PUT of an object or its status (kube-apiserver's `handlers/update.go`), with UpdateOptions
//! (`dryRun=All`).

use axum::response::Response;
use http::StatusCode;

use super::get::respond;
use super::options::{WriteKind, WriteOptions};
use super::registry::{replace_in, replace_kept};
use super::target::Target;
use crate::app::{App, ResourceRequest};
use crate::status::ApiError;

/// Serves PUT (of the object or its status).
pub fn replace(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let options = WriteOptions::of(request, WriteKind::Update, &[])?;
    let target = Target::of(request, name);
    let object = app
        .store
        .transaction(options.dry_run, |txn| replace_in(txn, &target, body))?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// [`replace`] by a strategy that puts the stored managedFields back (a CSR's approval).
pub fn replace_keeping_managed_fields(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let options = WriteOptions::of(request, WriteKind::Update, &[])?;
    let target = Target::of(request, name);
    let object = app
        .store
        .transaction(options.dry_run, |txn| replace_kept(txn, &target, body))?;
    Ok(respond(StatusCode::OK, request, &object))
}
