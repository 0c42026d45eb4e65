//! GET of one object (kube-apiserver's `handlers/get.go`), and the one-object response every
//! write handler answers with, in the representation the request asked for.

use axum::response::Response;
use http::StatusCode;

use crate::app::{App, Representation, ResourceRequest};
use crate::list::object_bytes;
use crate::objects::{StoredObject, object_key};
use crate::status::{ApiError, json_response};
use crate::table;

/// Serves GET of one object.
pub fn get(app: &App, request: &ResourceRequest, name: &str) -> Result<Response, ApiError> {
    table::Options::of(request)?;
    let key = object_key(request.namespace.as_deref().unwrap_or(""), name);
    let object = app
        .store
        .get(&request.resource.key(), &key)
        .ok_or_else(|| ApiError::not_found(&request.resource, name))?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// The response for one object in the requested representation.
pub fn respond(code: StatusCode, request: &ResourceRequest, object: &StoredObject) -> Response {
    let body = match request.representation {
        Representation::Table => table::render(
            &request.resource,
            // A write's answer: an includeObject kube-apiserver rejects reads as Metadata.
            &table::Options::of(request).unwrap_or_else(|_| table::Options {
                version: request.version.clone(),
                include: table::Include::Metadata,
            }),
            &[object],
            object.rv,
            None,
        ),
        representation => object_bytes(representation, object),
    };
    json_response(code, body)
}
