//! core v1 ComponentStatuses (deprecated since 1.19): read-only, computed on each request
//! (`pkg/registry/core/componentstatus/rest.go`). kube-apiserver probes the scheduler, the
//! controller manager and each etcd server; this server has none of them apart from its own
//! store, which it reports as the one etcd member `etcd-0`, healthy. The scheduler and the
//! controller manager are probed where kube-apiserver probes them (`https://127.0.0.1:10259`
//! and `:10257`, `pkg/registry/core/rest/storage_core.go:573`) and reported as kube-apiserver
//! reports them when nothing answers there: `Healthy` False with the probe's error as the
//! message (`pkg/probe/http/http.go:125`) — with `--controllers` their work is done inside this
//! process, not behind those ports.

use axum::response::Response;
use http::StatusCode;
use serde_json::json;

use crate::app::ResourceRequest;
use crate::status::{ApiError, json_response};

/// The components this server reports, by name: each name and its object, written in Go's
/// field order (`kind`, `apiVersion`, `metadata`, `conditions`).
fn components() -> Vec<(&'static str, String)> {
    let status = |name: &'static str, healthy: bool, message: &str| {
        let status = if healthy { "True" } else { "False" };
        let text = format!(
            r#"{{"kind":"ComponentStatus","apiVersion":"v1","metadata":{{"name":{}}},"conditions":[{{"type":"Healthy","status":"{status}","message":{}}}]}}"#,
            json!(name),
            json!(message)
        );
        (name, text)
    };
    let unreachable = |port: u16| {
        format!(
            "Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: connect: connection refused"
        )
    };
    vec![
        status("controller-manager", false, &unreachable(10257)),
        status("etcd-0", true, "ok"),
        status("scheduler", false, &unreachable(10259)),
    ]
}

/// GET of the list or of one component.
pub fn serve(request: &ResourceRequest, name: Option<&str>) -> Result<Response, ApiError> {
    let all = components();
    let body = match name {
        Some(name) => all
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| text)
            .ok_or_else(|| ApiError::not_found(&request.resource, name))?,
        None => {
            let items: Vec<String> = all.into_iter().map(|(_, text)| text).collect();
            format!(
                r#"{{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{{}},"items":[{}]}}"#,
                items.join(",")
            )
        }
    };
    let mut response = json_response(StatusCode::OK, body);
    if let Ok(warning) =
        http::HeaderValue::from_str("299 - \"v1 ComponentStatus is deprecated in v1.19+\"")
    {
        response.headers_mut().insert("Warning", warning);
    }
    Ok(response)
}
