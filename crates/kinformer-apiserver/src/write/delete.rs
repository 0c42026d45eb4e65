//! DELETE of one object (with DeleteOptions preconditions; answered with the object or a
//! Success `Status` as kube-apiserver's storage of its resource answers) and of a collection
//! (honouring selectors), after kube-apiserver's `handlers/delete.go`; `dryRun=All` in the query or the
//! DeleteOptions body (where kubectl puts it) answers what would be deleted and deletes nothing.

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::get::respond;
use super::meta::{parse_object, str_at};
use super::options::{WriteKind, WriteOptions, body_dry_run};
use super::registry::{PodDeletion, delete_in};
use super::target::Target;
use crate::app::{App, ResourceRequest};
use crate::list::{ListMeta, render_list};
use crate::objects::StoredObject;
use crate::selector::Selection;
use crate::status::{ApiError, deleted_status, json_response};

/// Serves DELETE of one object.
pub fn delete(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let options = delete_options(body)?;
    let dry_run = WriteOptions::of(request, WriteKind::Delete, &body_dry_run(&options)?)?.dry_run;
    let preconditions = Preconditions::of(&options);
    let target = Target::of(request, name);
    let object = app.store.transaction(dry_run, |txn| {
        let current = txn
            .get(&target.resource.key(), &target.key())
            .ok_or_else(|| ApiError::not_found(target.resource, name))?;
        preconditions.check(&current, &target)?;
        delete_in(txn, target.resource, &current, PodDeletion::Graceful)
    })?;
    let value = object.to_value()?;
    if target.resource.returns_deleted_object() || is_pending(&value) {
        return Ok(respond(StatusCode::OK, request, &object));
    }
    let uid = str_at(&value, "/metadata/uid");
    let status = deleted_status(target.resource, name, uid);
    Ok(json_response(StatusCode::OK, status))
}

/// Whether a deleted object is still there, its finalizers not yet removed: kube-apiserver then
/// answers the object itself, whatever its storage (`registry/generic/registry/store.go`,
/// `Delete`: `out, false, err` before `finalizeDelete`).
fn is_pending(value: &Value) -> bool {
    value
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|finalizers| !finalizers.is_empty())
}

/// Serves DELETE of a collection (honouring selectors).
pub fn delete_collection(
    app: &App,
    request: &ResourceRequest,
    body: &[u8],
) -> Result<Response, ApiError> {
    let options = delete_options(body)?;
    let dry_run = WriteOptions::of(request, WriteKind::Delete, &body_dry_run(&options)?)?.dry_run;
    let selection = Selection::from_request(request)?;
    let resource = &request.resource;
    let (deleted, rv) = app.store.transaction(dry_run, |txn| {
        let mut deleted = Vec::new();
        for object in txn.objects(&resource.key()) {
            if selection.matches(&object) {
                deleted.push(delete_in(txn, resource, &object, PodDeletion::Graceful)?);
            }
        }
        let rv = deleted.last().map_or(0, |o| o.rv);
        Ok((deleted, rv))
    })?;
    let rv = if rv == 0 || dry_run {
        app.store.resource_version()
    } else {
        rv
    };
    let body = render_list(
        resource,
        request.representation,
        deleted,
        ListMeta {
            rv,
            continue_token: None,
            remaining: None,
        },
    );
    Ok(json_response(StatusCode::OK, body))
}

/// DeleteOptions preconditions.
struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

/// The DeleteOptions body (an empty object when there is none).
fn delete_options(body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    parse_object(body)
}

impl Preconditions {
    fn of(options: &Value) -> Self {
        let text = |pointer: &str| {
            options
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Preconditions {
            uid: text("/preconditions/uid"),
            resource_version: text("/preconditions/resourceVersion"),
        }
    }

    fn check(&self, current: &StoredObject, target: &Target) -> Result<(), ApiError> {
        if let Some(rv) = &self.resource_version
            && *rv != current.rv.to_string()
        {
            let why = format!(
                "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                current.rv
            );
            return Err(ApiError::conflict(target.resource, target.name, &why));
        }
        if let Some(uid) = &self.uid {
            let value = current.to_value()?;
            let actual = str_at(&value, "/metadata/uid");
            if uid != actual {
                let why = format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({actual}). The object might have been deleted and then recreated"
                );
                return Err(ApiError::conflict(target.resource, target.name, &why));
            }
        }
        Ok(())
    }
}
