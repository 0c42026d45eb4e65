//! DELETE of one object (with DeleteOptions preconditions; answered with the object or a
//! Success `Status` as kube-apiserver's storage of its resource answers) and of a collection
//! (honouring selectors), after kube-apiserver's `handlers/delete.go`; `dryRun=All` in the query or the
//! DeleteOptions body (where kubectl puts it) answers what would be deleted and deletes nothing.

use axum::response::Response;
use http::{HeaderValue, StatusCode};
use serde_json::Value;

use super::deletion::DeleteOptions;
use super::get::respond;
use super::meta::{parse_object, str_at};
use super::options::{WriteKind, WriteOptions, body_dry_run};
use super::registry::delete_in;
use super::target::Target;
use crate::app::{App, ResourceRequest};
use crate::list::{ListMeta, render_list};
use crate::objects::StoredObject;
use crate::selector::Selection;
use crate::status::{ApiError, deleted_status, json_response};

/// Serves DELETE of one object: 200 with the object when it stays (finalizers, a grace
/// period) or its resource answers deleted objects, else a Success `Status`; 202 when the
/// deprecated `orphanDependents: false` left it waiting (`handlers/delete.go`).
pub fn delete(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let body = delete_options(body)?;
    let dry_run = WriteOptions::of(request, WriteKind::Delete, &body_dry_run(&body)?)?.dry_run;
    let options = DeleteOptions::of(request, &body)?;
    let target = Target::of(request, name);
    let deletion = app.store.transaction(dry_run, |txn| {
        let current = txn
            .get(&target.resource.key(), &target.key())
            .ok_or_else(|| ApiError::not_found(target.resource, name))?;
        check_preconditions(&options, &current, &target)?;
        delete_in(txn, target.resource, &current, &options)
    })?;
    let code = if !deletion.deleted && options.orphan_dependents == Some(false) {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    let mut response = if target.resource.returns_deleted_object() || !deletion.deleted {
        respond(code, request, &deletion.object)
    } else {
        let value = deletion.object.to_value()?;
        let uid = str_at(&value, "/metadata/uid");
        json_response(code, deleted_status(target.resource, name, uid))
    };
    if orphans_a_jobs_pods(request, &options) {
        response
            .headers_mut()
            .append(http::header::WARNING, HeaderValue::from_static(JOB_WARNING));
    }
    Ok(response)
}

/// The warning of a Job deleted without a policy (`pkg/registry/batch/job/storage/storage.go:56`).
const JOB_WARNING: &str = "299 - \"child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning\"";

/// Whether a DELETE of a batch/v1 Job orphans its pods by default (no policy given).
fn orphans_a_jobs_pods(request: &ResourceRequest, options: &DeleteOptions) -> bool {
    request.resource.group == "batch"
        && request.resource.plural == "jobs"
        && options.propagation.is_none()
        && options.orphan_dependents.is_none()
}

/// Serves DELETE of a collection (honouring selectors).
pub fn delete_collection(
    app: &App,
    request: &ResourceRequest,
    body: &[u8],
) -> Result<Response, ApiError> {
    let body = delete_options(body)?;
    let dry_run = WriteOptions::of(request, WriteKind::Delete, &body_dry_run(&body)?)?.dry_run;
    let options = DeleteOptions::of(request, &body)?;
    let selection = Selection::from_request(request)?;
    let resource = &request.resource;
    let (deleted, rv) = app.store.transaction(dry_run, |txn| {
        let mut deleted = Vec::new();
        for object in txn.objects(&resource.key()) {
            if selection.matches(&object) {
                deleted.push(delete_in(txn, resource, &object, &options)?.object);
            }
        }
        let rv = deleted
            .last()
            .map_or(0, |o: &std::sync::Arc<StoredObject>| o.rv);
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

/// The DeleteOptions body (an empty object when there is none).
fn delete_options(body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    parse_object(body)
}

/// The preconditions' check (`rest.BeforeDelete`, `registry/rest/delete.go:84-91`; a
/// namespace's own words, `pkg/registry/core/namespace/storage/storage.go:155-169`): 409.
fn check_preconditions(
    options: &DeleteOptions,
    current: &StoredObject,
    target: &Target,
) -> Result<(), ApiError> {
    let namespace = target.resource.is_core("namespaces");
    let value = current.to_value()?;
    let actual_uid = str_at(&value, "/metadata/uid");
    if let Some(uid) = &options.uid
        && uid != actual_uid
    {
        let why = if namespace {
            format!(
                "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual_uid}"
            )
        } else {
            format!(
                "the UID in the precondition ({uid}) does not match the UID in record ({actual_uid}). The object might have been deleted and then recreated"
            )
        };
        return Err(precondition_conflict(namespace, target, &why));
    }
    if let Some(rv) = &options.resource_version
        && *rv != current.rv.to_string()
    {
        let why = if namespace {
            format!(
                "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                current.rv
            )
        } else {
            format!(
                "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                current.rv
            )
        };
        return Err(precondition_conflict(namespace, target, &why));
    }
    Ok(())
}

/// 409 for a failed precondition: `BeforeDelete` names the object by its kind
/// (`schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}`, `registry/rest/delete.go:86`),
/// the namespace strategy by its resource.
fn precondition_conflict(namespace: bool, target: &Target, why: &str) -> ApiError {
    let mut error = ApiError::conflict(target.resource, target.name, why);
    if namespace {
        return error;
    }
    let kind = &target.resource.kind;
    let qualified = match target.resource.group.as_str() {
        "" => kind.clone(),
        group => format!("{kind}.{group}"),
    };
    error.message = format!(
        "Operation cannot be fulfilled on {qualified} {:?}: {why}",
        target.name
    );
    if let Some(details) = error.details.as_mut() {
        details.kind = kind.clone();
    }
    error
}
