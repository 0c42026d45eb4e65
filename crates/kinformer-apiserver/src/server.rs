//! The HTTP front: bearer-token authentication, URL routing (discovery paths and
//! `/api[s]/.../namespaces/{ns}/{resource}/{name}/{subresource}`) and dispatch to the handlers.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::request::Parts;
use http::{Method, header};
use http_body_util::BodyExt;

use super::app::{App, Media, Representation, ResourceRequest, accept, field_manager};
use super::discovery::DiscoveryFormat;
use super::faults::{FAULTS_PATH, Fault};
use super::field_validation::{self, Body};
use super::listener::ConnectionId;
use super::negotiation;
use super::status::{ApiError, json_response};
use super::{discovery, faults, list, openapi, protobuf, scale, watch as watch_handler, write};

/// Largest accepted request body (kube-apiserver's limit: 3 MiB).
const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The axum router serving everything.
pub fn router(app: Arc<App>) -> Router {
    Router::new().fallback(handle).with_state(app)
}

/// Paths anyone may read (kubectl's dispatcher reads `/version` before authenticating).
fn is_public(path: &str) -> bool {
    matches!(path, "/version" | "/healthz" | "/livez" | "/readyz")
}

/// Serves one request and logs it (method, path, status, duration; at debug level, never a
/// header: no credentials reach the log).
async fn handle(State(app): State<Arc<App>>, request: Request) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = respond(&app, request).await;
    tracing::debug!(
        method = %method,
        path = uri.path(),
        query = uri.query().unwrap_or_default(),
        status = response.status().as_u16(),
        duration_ms = started.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    response
}

/// How much of an oversized body the server still reads (and drops) before it answers 413:
/// a client writes its whole body before it reads (Go's transport does), and a connection
/// closed on unread bytes is reset, so the client would see "broken pipe" instead of the
/// Status. A larger body is cut off.
const MAX_DRAINED_BYTES: u64 = 32 * 1024 * 1024;

/// The request's body, at most [`MAX_BODY_BYTES`], read within the server's read timeout.
async fn read_body(app: &App, parts: &Parts, body: axum::body::Body) -> Result<Bytes, ApiError> {
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limit = MAX_BODY_BYTES as u64;
    // A client waiting for `100 Continue` sends nothing more: answer at once.
    let waits = parts.headers.contains_key(header::EXPECT);
    if declared.is_some_and(|length| length > limit && (waits || length > MAX_DRAINED_BYTES)) {
        return Err(too_large());
    }
    match tokio::time::timeout(app.request_read_timeout, read_limited(body)).await {
        Err(_) => Err(ApiError::new(
            408,
            "Timeout",
            "the request body was not received in time",
        )),
        Ok(Ok(Some(body))) => Ok(body),
        Ok(Ok(None)) => Err(too_large()),
        Ok(Err(e)) => Err(ApiError::bad_request(format!("cannot read body: {e}"))),
    }
}

/// kube-apiserver's answer to a body over [`MAX_BODY_BYTES`].
fn too_large() -> ApiError {
    ApiError::new(
        413,
        "RequestEntityTooLarge",
        format!("Request entity too large: limit is {MAX_BODY_BYTES}"),
    )
}

/// The body when it holds at most [`MAX_BODY_BYTES`]; `None` for a larger one, which is read
/// on to its end (at most [`MAX_DRAINED_BYTES`]) and dropped.
async fn read_limited(mut body: axum::body::Body) -> Result<Option<Bytes>, axum::Error> {
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut total = 0u64;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        total += data.len() as u64;
        if total > MAX_DRAINED_BYTES {
            break;
        }
        if total > MAX_BODY_BYTES as u64 {
            chunks.clear();
        } else {
            chunks.push(data);
        }
    }
    if total > MAX_BODY_BYTES as u64 {
        return Ok(None);
    }
    Ok(Some(match chunks.len() {
        1 => chunks.swap_remove(0),
        _ => chunks.concat().into(),
    }))
}

/// `response` with `Connection: close`: the connection ends once it is sent.
fn closing(mut response: Response) -> Response {
    let close = http::HeaderValue::from_static("close");
    response.headers_mut().insert(header::CONNECTION, close);
    response
}

async fn respond(app: &Arc<App>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if !is_public(parts.uri.path()) && !app.authorized(&parts.headers) {
        if !parts.headers.contains_key(header::AUTHORIZATION) {
            let query = parts.uri.query().unwrap_or_default();
            return crate::anonymous::forbidden(&parts.method, parts.uri.path(), query)
                .into_response();
        }
        return ApiError::unauthorized().into_response();
    }
    let body = match read_body(app, &parts, body).await {
        Ok(body) => body,
        Err(e) => return closing(e.into_response()),
    };
    let path = parts.uri.path();
    if path == FAULTS_PATH {
        let caller = parts.extensions.get::<ConnectionId>().copied();
        return admin_faults(app, &parts.method, &body, caller);
    }
    if !is_public(path)
        && let Some(fault) = app.faults.next_request(path)
    {
        if let Some(delay) = fault.delay
            && !app.faults.delay_unless_restarted(delay).await
        {
            return faults::aborted_response();
        }
        if let Some(failure) = fault.failure {
            return failure;
        }
    }
    dispatch(app, &parts, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn dispatch(app: &Arc<App>, parts: &Parts, body: &Bytes) -> Result<Response, ApiError> {
    let path = parts.uri.path().to_owned();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let registry = || app.store.registry();
    let minor = app.kubernetes_minor;
    let format = || DiscoveryFormat::negotiate(accept(&parts.headers), minor);
    match segments.as_slice() {
        ["version"] => Ok(discovery::version(minor)),
        ["healthz" | "livez" | "readyz"] => Ok("ok".into_response()),
        ["api"] => Ok(discovery::core(&registry(), &app.address, format())),
        ["apis"] => Ok(discovery::groups(&registry(), format())),
        ["apis", group] => discovery::group(&registry(), group),
        ["api", version] => discovery::resource_list(&registry(), "", version),
        ["apis", group, version] => discovery::resource_list(&registry(), group, version),
        ["openapi", "v2"] => Ok(openapi::v2(&registry(), &parts.headers)),
        ["openapi", "v3"] => Ok(openapi::index(&registry())),
        ["openapi", "v3", rest @ ..] => openapi::document(
            &registry(),
            &rest.join("/"),
            parts.uri.query(),
            &parts.headers,
        ),
        ["api", version, rest @ ..] => resource(app, parts, body, "", version, rest).await,
        ["apis", group, version, rest @ ..] => {
            resource(app, parts, body, group, version, rest).await
        }
        _ => Err(ApiError::no_route()),
    }
}

/// Path segments after the group version: namespace, plural, name, subresource.
struct ResourcePath<'a> {
    namespace: Option<&'a str>,
    plural: &'a str,
    name: Option<&'a str>,
    subresource: Option<&'a str>,
}

fn parse_resource_path<'a>(group: &str, rest: &[&'a str]) -> Option<ResourcePath<'a>> {
    let namespace_subresource =
        group.is_empty() && rest.len() == 3 && matches!(rest[2], "status" | "finalize");
    let (namespace, rest) = match rest {
        ["namespaces", ns, tail @ ..] if !tail.is_empty() && !namespace_subresource => {
            (Some(*ns), tail)
        }
        _ => (None, rest),
    };
    match rest {
        [plural] => Some(ResourcePath {
            namespace,
            plural,
            name: None,
            subresource: None,
        }),
        [plural, name] => Some(ResourcePath {
            namespace,
            plural,
            name: Some(name),
            subresource: None,
        }),
        [plural, name, sub] => Some(ResourcePath {
            namespace,
            plural,
            name: Some(name),
            subresource: Some(sub),
        }),
        _ => None,
    }
}

async fn resource(
    app: &Arc<App>,
    parts: &Parts,
    body: &Bytes,
    group: &str,
    version: &str,
    rest: &[&str],
) -> Result<Response, ApiError> {
    let path = parse_resource_path(group, rest).ok_or_else(ApiError::no_route)?;
    let resource = app
        .store
        .registry()
        .find(group, version, path.plural)
        .ok_or_else(ApiError::no_route)?;
    if path.namespace.is_some() && !resource.namespaced {
        return Err(ApiError::no_route());
    }
    if path
        .subresource
        .is_some_and(|s| !resource.serves_subresource(version, s))
    {
        return Err(ApiError::no_route());
    }
    let Query(params) = Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
        .map_err(|e| ApiError::bad_request(format!("invalid query: {e}")))?;
    let accept = accept(&parts.headers);
    let negotiated = negotiation::negotiate(accept, resource.custom);
    let request = ResourceRequest {
        namespace: path.namespace.map(str::to_owned),
        name: path.name.map(str::to_owned),
        subresource: path.subresource.map(str::to_owned),
        representation: negotiated
            .as_ref()
            .map_or(Representation::Object, |n| n.representation),
        media: negotiated.as_ref().map_or(Media::Json, |n| n.media),
        content_type: parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_owned(),
        field_manager: field_manager(&params, &parts.headers),
        params,
        resource,
        version: version.to_owned(),
    };
    let watch = parts.method == Method::GET && request.name.is_none() && request.flag("watch");
    let answer = match &negotiated {
        Ok(negotiated) => route_method(app, &parts.method, &request, body)
            .await
            .and_then(|answer| {
                // What was read is then converted, as kube-apiserver's transformResponseObject
                // does: a GET's 404 comes first.
                if parts.method == Method::GET && !watch {
                    let list = request.name.is_none();
                    negotiation::check_metadata_target(negotiated, list, &request.resource)?;
                }
                Ok(answer)
            }),
        Err(not_acceptable) => Err(not_acceptable.clone()),
    }
    .unwrap_or_else(IntoResponse::into_response);
    let media = match (answer.status().is_success(), negotiated) {
        (true, Ok(negotiated)) => negotiated.media,
        _ => negotiation::for_error(accept),
    };
    Ok(match media {
        Media::Protobuf => protobuf::respond::answer(answer, watch).await,
        Media::Json => answer,
    })
}

async fn route_method(
    app: &Arc<App>,
    method: &Method,
    request: &ResourceRequest,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let needs_namespace = request.resource.namespaced && request.namespace.is_none();
    if let Some(answer) = crate::groups::serve(app, method, request, body) {
        return answer;
    }
    if let (Some("scale"), Some(name)) = (request.subresource.as_deref(), &request.name) {
        let paths = request
            .resource
            .scale_paths(&request.version)
            .ok_or_else(ApiError::no_route)?;
        return scale::serve(app, method, request, name, body, paths);
    }
    match (method.as_str(), &request.name) {
        ("GET", None) if request.flag("watch") => watch_handler::serve(app, request).await,
        ("GET", None) => list::serve(app, request).await,
        (_, Some(_)) if needs_namespace => Err(ApiError::no_route()),
        ("GET", Some(name)) => {
            if let Some(rv) = request.param("resourceVersion") {
                list::wait_until_fresh(app, list::parse_rv(rv)?).await?;
            }
            write::get(app, request, name)
        }
        ("POST", None) if needs_namespace => Err(ApiError::method_not_allowed()),
        ("POST", None) => {
            let body = decode_body(request, body)?;
            field_validation::around(request, "CreateOptions", Body::Object, &body, |body| {
                write::create(app, request, body)
            })
        }
        ("PUT", Some(name)) => {
            let body = decode_body(request, body)?;
            field_validation::around(request, "UpdateOptions", Body::Object, &body, |body| {
                write::replace(app, request, name, body)
            })
        }
        ("PATCH", Some(name)) => match patch_body(request) {
            Some(kind) => field_validation::around(request, "PatchOptions", kind, body, |body| {
                write::patch(app, request, name, body)
            }),
            None => write::patch(app, request, name, body),
        },
        ("DELETE", Some(name)) => write::delete(app, request, name, body),
        ("DELETE", None) => write::delete_collection(app, request, body),
        (_, _) => Err(ApiError::method_not_allowed()),
    }
}

/// What field validation checks of a PATCH body (None: a JSON patch, not checked).
fn patch_body(request: &ResourceRequest) -> Option<field_validation::Body> {
    match request.content_type.split(';').next().unwrap_or("").trim() {
        "application/merge-patch+json" => Some(field_validation::Body::MergePatch),
        "application/strategic-merge-patch+json" => Some(field_validation::Body::StrategicPatch),
        "application/apply-patch+yaml" => Some(field_validation::Body::Apply),
        _ => None,
    }
}

/// A POST or PUT body as JSON: JSON as it is, YAML and protobuf converted; 415 for other
/// media types.
fn decode_body(request: &ResourceRequest, body: &Bytes) -> Result<Bytes, ApiError> {
    let media = request.content_type.split(';').next().unwrap_or("").trim();
    match media {
        "" | "*/*" | "application/json" => Ok(body.clone()),
        "application/yaml" => {
            let value = write::parse_yaml_body(body, &request.resource.kind)?;
            Ok(Bytes::from(value.to_string()))
        }
        protobuf::MEDIA_TYPE => match protobuf::decode(body) {
            Ok(value) => Ok(Bytes::from(value.to_string())),
            Err(protobuf::DecodeError::Malformed(why)) => Err(ApiError::bad_request(format!(
                "the protobuf request body cannot be decoded: {why}"
            ))),
            Err(protobuf::DecodeError::UnsupportedKind(kind)) => Err(ApiError::new(
                415,
                "UnsupportedMediaType",
                format!("the server has no protobuf serialization for {kind}: send JSON"),
            )),
        },
        other => Err(ApiError::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got {other:?})"
            ),
        )),
    }
}

/// `POST /kinformer/v1/faults` with a [`Fault`] as JSON: causes it, answers a Success Status.
/// A restart spares the caller's connection for the answer, which then closes it.
fn admin_faults(
    app: &App,
    method: &http::Method,
    body: &[u8],
    caller: Option<ConnectionId>,
) -> Response {
    if method != http::Method::POST {
        return ApiError::method_not_allowed().into_response();
    }
    let fault = match serde_json::from_slice::<Fault>(body) {
        Ok(fault) => fault,
        Err(e) => return ApiError::bad_request(format!("invalid fault: {e}")).into_response(),
    };
    if let Err(e) = fault.validate() {
        return ApiError::bad_request(e.to_string()).into_response();
    }
    app.inject(&fault, caller);
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "message": format!("fault {} injected", fault.name()), "code": 200,
    });
    let response = json_response(http::StatusCode::OK, status.to_string().into_bytes());
    match fault {
        Fault::Restart => closing(response),
        _ => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_paths() {
        let p = parse_resource_path("", &["namespaces", "ns1", "pods", "p", "status"]);
        assert!(p.is_some_and(|p| p.namespace == Some("ns1")
            && p.plural == "pods"
            && p.name == Some("p")
            && p.subresource == Some("status")));
        let p = parse_resource_path("", &["namespaces", "ns1"]);
        assert!(p.is_some_and(|p| p.namespace.is_none() && p.name == Some("ns1")));
        let p = parse_resource_path("", &["namespaces", "ns1", "status"]);
        assert!(p.is_some_and(|p| p.plural == "namespaces" && p.subresource == Some("status")));
        assert!(parse_resource_path("", &["a", "b", "c", "d"]).is_none());
    }
}
