//! The subresources kube-apiserver answers by reaching a kubelet or an endpoint: `pods/log`,
//! `exec`, `attach`, `portforward`, `proxy`, `nodes/proxy` and `services/proxy`. This server
//! runs no kubelet, so it answers what kube-apiserver answers before it would connect: a pod
//! with no node (`pkg/registry/core/pod/strategy.go`, `LogLocation`: no content;
//! `streamLocation`: 400 `pod p does not have a host assigned`; `ResourceLocation`: 400
//! `address not allowed` for a pod with no IP), a node or pod not found (404), a Service
//! (`pkg/registry/core/service/storage/storage.go`, `ResourceLocation`: 503 `no endpoints
//! available`, as this server keeps no ready endpoints). Where kube-apiserver would connect to
//! a pod's kubelet (log, exec, attach, port-forward) it answers as kube-apiserver does when
//! that kubelet does not answer: 500 with the dial's error (never a 503 a client retries);
//! the node and pod proxies answer 503 saying no kubelet runs here.

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusDetails};

/// `pods/{name}/log`: 204 for a pod with no node; the container checks of `LogLocation`; for
/// a pod on a node, the failed GET of the kubelet's `containerLogs` (500, the transport's
/// error: `pkg/registry/core/pod/rest/log.go` streams through `LocationStreamer`).
pub fn log(app: &Arc<App>, request: &ResourceRequest, name: &str) -> Result<Response, ApiError> {
    let pod = stored(app, &request.resource, request, name)?;
    check_container(&pod, name, request.param("container"))?;
    let Some(node) = node_of(&pod) else {
        return Ok(no_content());
    };
    let kubelet = kubelet_of(app, node)?;
    let container = request
        .param("container")
        .map(str::to_owned)
        .or_else(|| {
            pod.pointer("/spec/containers/0/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let namespace = request.namespace.as_deref().unwrap_or_default();
    Err(ApiError::unknown(format!(
        "Get \"https://{}/containerLogs/{namespace}/{name}/{container}\": {}",
        kubelet.host_port(),
        kubelet.dial_error()
    )))
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
        Some(node) => {
            let kubelet = kubelet_of(app, node)?;
            Err(ApiError::unknown(format!(
                "error dialing backend: {}",
                kubelet.dial_error()
            )))
        }
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

/// Where kube-apiserver would reach a node's kubelet: its first address of the preferred types
/// (`--kubelet-preferred-address-types`' default: Hostname, InternalDNS, InternalIP,
/// ExternalDNS, ExternalIP) and `status.daemonEndpoints.kubeletEndpoint.Port` (10250 when 0).
struct Kubelet {
    host: String,
    port: i64,
}

impl Kubelet {
    fn host_port(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Go's dial error for a kubelet that does not answer: refused at an IP address, unknown
    /// at a host name (no kubelet runs for this server, and no name resolves to one).
    fn dial_error(&self) -> String {
        if self.host.parse::<std::net::IpAddr>().is_ok() {
            format!("dial tcp {}: connect: connection refused", self.host_port())
        } else {
            format!("dial tcp: lookup {}: no such host", self.host)
        }
    }
}

/// The kubelet of a pod's `node`: 404 as kube-apiserver answers when the node is not stored
/// (it names it a pod), 500 when the node has no address of a preferred type.
fn kubelet_of(app: &App, node: &str) -> Result<Kubelet, ApiError> {
    let nodes = app.store.registry().find("", "v1", "nodes");
    let stored = nodes
        .as_ref()
        .and_then(|n| app.store.get(&n.key(), &object_key("", node)))
        .map(|o| o.to_value())
        .transpose()?;
    let Some(stored) = stored else {
        let mut error = ApiError::new(404, "NotFound", format!("pods {node:?} not found"));
        error.details = Some(Box::new(StatusDetails {
            name: node.to_owned(),
            kind: "pods".into(),
            ..StatusDetails::default()
        }));
        return Err(error);
    };
    let addresses: Vec<(&str, &str)> = stored
        .pointer("/status/addresses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| {
            let field = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or_default();
            (field("type"), field("address"))
        })
        .collect();
    let preferred = [
        "Hostname",
        "InternalDNS",
        "InternalIP",
        "ExternalDNS",
        "ExternalIP",
    ]
    .iter()
    .find_map(|kind| addresses.iter().find(|(t, _)| t == kind));
    let Some((_, host)) = preferred else {
        let known: Vec<String> = addresses
            .iter()
            .map(|(t, a)| format!("{{{t} {a}}}"))
            .collect();
        return Err(ApiError::unknown(format!(
            "no preferred addresses found; known addresses: [{}]",
            known.join(" ")
        )));
    };
    let port = stored
        .pointer("/status/daemonEndpoints/kubeletEndpoint/Port")
        .and_then(Value::as_i64)
        .filter(|p| *p > 0)
        .unwrap_or(10250);
    Ok(Kubelet {
        host: (*host).to_owned(),
        port,
    })
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
