//! DELETE of one object (with DeleteOptions preconditions) and of a collection (honouring
//! selectors), after kube-apiserver's `handlers/delete.go`.

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::get::respond;
use super::meta::{parse_object, str_at};
use super::registry::delete_in;
use super::target::Target;
use crate::apiserver::app::{App, ResourceRequest};
use crate::apiserver::list::render_list;
use crate::apiserver::objects::StoredObject;
use crate::apiserver::selector::Selection;
use crate::apiserver::status::{ApiError, json_response};

/// Serves DELETE of one object.
pub fn delete(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let preconditions = Preconditions::from_body(body)?;
    let target = Target::of(request, name);
    let object = app.store.write(|txn| {
        let current = txn
            .get(&target.resource.key(), &target.key())
            .ok_or_else(|| ApiError::not_found(target.resource, name))?;
        preconditions.check(&current, &target)?;
        delete_in(txn, target.resource, &current)
    })?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// Serves DELETE of a collection (honouring selectors).
pub fn delete_collection(app: &App, request: &ResourceRequest) -> Result<Response, ApiError> {
    let selection = Selection::from_request(request)?;
    let resource = &request.resource;
    let (deleted, rv) = app.store.write(|txn| {
        let mut deleted = Vec::new();
        for object in txn.objects(&resource.key()) {
            if selection.matches(&object) {
                deleted.push(delete_in(txn, resource, &object)?);
            }
        }
        let rv = deleted.last().map_or(0, |o| o.rv);
        Ok((deleted, rv))
    })?;
    let rv = if rv == 0 {
        app.store.resource_version()
    } else {
        rv
    };
    let body = render_list(resource, request.representation, deleted, rv, None);
    Ok(json_response(StatusCode::OK, body))
}

/// DeleteOptions preconditions.
struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

impl Preconditions {
    fn from_body(body: &[u8]) -> Result<Self, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Preconditions {
                uid: None,
                resource_version: None,
            });
        }
        let options = parse_object(body)?;
        let text = |pointer: &str| {
            options
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(Preconditions {
            uid: text("/preconditions/uid"),
            resource_version: text("/preconditions/resourceVersion"),
        })
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
