//! The subresources kube-apiserver answers by reaching a kubelet or an endpoint: `pods/log`,
//! `exec`, `attach`, `portforward`, `proxy`, `nodes/proxy` and `services/proxy`. This server
//! runs no kubelet, so it answers what kube-apiserver answers before it would connect: a pod
//! with no node (`pkg/registry/core/pod/strategy.go`, `LogLocation`: no content;
//! `streamLocation`: 400 `pod p does not have a host assigned`; `ResourceLocation`: 400
//! `address not allowed` for a pod with no IP), a node or pod not found (404), a Service
//! (`pkg/registry/core/service/storage/storage.go`, `ResourceLocation`: 503 `no endpoints
//! available`, as this server keeps no ready endpoints). Where kube-apiserver would connect,
//! it answers 503 ServiceUnavailable saying no kubelet runs here.

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusDetails};

/// `pods/{name}/log`: 204 for a pod with no node; the container checks of `LogLocation`.
pub fn log(app: &Arc<App>, request: &ResourceRequest, name: &str) -> Result<Response, ApiError> {
    let pod = stored(app, &request.resource, request, name)?;
    check_container(&pod, name, request.param("container"))?;
    match node_of(&pod) {
        None => Ok(no_content()),
        Some(node) => unreachable_node(app, node),
    }
}

/// `pods/{name}/exec`, `attach`, `portforward` (`streamLocation`, `PortForwardLocation`).
pub fn stream(app: &Arc<App>, request: &ResourceRequest, name: &str) -> Result<Response, ApiError> {
    let pod = stored(app, &request.resource, request, name)?;
    if request.subresource.as_deref() != Some("portforward") {
        check_container(&pod, name, request.param("container"))?;
    }
    match node_of(&pod) {
        None => Err(ApiError::bad_request(format!(
            "pod {name} does not have a host assigned"
        ))),
        Some(node) => unreachable_node(app, node),
    }
}

/// `pods/{name}/proxy`: 400 `address not allowed` for a pod with no IP.
pub fn pod_proxy(
    app: &Arc<App>,
    request: &ResourceRequest,
    name: &str,
) -> Result<Response, ApiError> {
    let pod = stored(app, &request.resource, request, name)?;
    match pod.pointer("/status/podIP").and_then(Value::as_str) {
        Some(ip) if !ip.is_empty() => Err(no_kubelet(&format!("pod {name} at {ip}"))),
        _ => Err(ApiError::bad_request("address not allowed")),
    }
}

/// `nodes/{name}/proxy`: 404 for a node not stored, else no kubelet to reach.
pub fn node_proxy(
    app: &Arc<App>,
    request: &ResourceRequest,
    name: &str,
) -> Result<Response, ApiError> {
    stored(app, &request.resource, request, name)?;
    Err(no_kubelet(&format!("node {name}")))
}

/// `services/{name}/proxy`: kube-apiserver looks up the ready endpoints, not the Service.
pub fn service_proxy(name: &str) -> Result<Response, ApiError> {
    Err(ApiError::new(
        503,
        "ServiceUnavailable",
        format!("no endpoints available for service {name:?}"),
    ))
}

/// The object `name` in the request's namespace; 404 when absent.
fn stored(
    app: &App,
    resource: &ResourceType,
    request: &ResourceRequest,
    name: &str,
) -> Result<Value, ApiError> {
    let key = object_key(request.namespace.as_deref().unwrap_or(""), name);
    app.store
        .get(&resource.key(), &key)
        .ok_or_else(|| ApiError::not_found(resource, name))?
        .to_value()
}

/// The pod's node, when it has one.
fn node_of(pod: &Value) -> Option<&str> {
    pod.pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
}

/// `LogLocation`'s and `streamLocation`'s checks of the `container` parameter.
fn check_container(pod: &Value, name: &str, container: Option<&str>) -> Result<(), ApiError> {
    let names: Vec<&str> = ["containers", "initContainers", "ephemeralContainers"]
        .iter()
        .filter_map(|list| pod.pointer(&format!("/spec/{list}")))
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .collect();
    match container.filter(|c| !c.is_empty()) {
        Some(wanted) if !names.contains(&wanted) => Err(ApiError::bad_request(format!(
            "container {wanted} is not valid for pod {name}"
        ))),
        Some(_) => Ok(()),
        None => {
            let main: Vec<&str> = pod
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("name").and_then(Value::as_str))
                .collect();
            if main.len() > 1 {
                return Err(ApiError::bad_request(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    main.join(" ")
                )));
            }
            Ok(())
        }
    }
}

/// A pod on `node`: 404 as kube-apiserver answers when the node is not stored (it names it a
/// pod), else 503, no kubelet to reach.
fn unreachable_node(app: &App, node: &str) -> Result<Response, ApiError> {
    let nodes = app.store.registry().find("", "v1", "nodes");
    let exists = nodes
        .as_ref()
        .is_some_and(|n| app.store.get(&n.key(), &object_key("", node)).is_some());
    if !exists {
        let mut error = ApiError::new(404, "NotFound", format!("pods {node:?} not found"));
        error.details = Some(Box::new(StatusDetails {
            name: node.to_owned(),
            kind: "pods".into(),
            ..StatusDetails::default()
        }));
        return Err(error);
    }
    Err(no_kubelet(&format!("node {node}")))
}

/// 503: what kube-apiserver would connect to cannot be reached here.
fn no_kubelet(what: &str) -> ApiError {
    ApiError::new(
        503,
        "ServiceUnavailable",
        format!("{what} cannot be reached: this server runs no kubelet"),
    )
}

/// 204 with no body, as kube-apiserver answers the log of a pod with no node.
fn no_content() -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}
