//! core v1 ComponentStatuses (deprecated since 1.19): read-only, computed on each request
//! (`pkg/registry/core/componentstatus/rest.go`). kube-apiserver probes the scheduler, the
//! controller manager and each etcd server; this server has none of them apart from its own
//! store, which it reports as the one etcd member `etcd-0`, healthy. The scheduler and the
//! controller manager are not reported: with `--controllers` their work is done inside this
//! process, and without it nothing runs them.

use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::app::ResourceRequest;
use crate::status::{ApiError, json_response};

/// The components this server reports.
fn components() -> Vec<Value> {
    vec![json!({
        "kind": "ComponentStatus",
        "apiVersion": "v1",
        "metadata": {"name": "etcd-0"},
        "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}],
    })]
}

/// GET of the list or of one component.
pub fn serve(request: &ResourceRequest, name: Option<&str>) -> Result<Response, ApiError> {
    let all = components();
    let body = match name {
        Some(name) => all
            .into_iter()
            .find(|c| c.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
            .ok_or_else(|| ApiError::not_found(&request.resource, name))?,
        None => json!({"kind": "ComponentStatusList", "apiVersion": "v1",
            "metadata": {}, "items": all}),
    };
    let mut response = json_response(StatusCode::OK, body.to_string());
    if let Ok(warning) =
        http::HeaderValue::from_str("299 - \"v1 ComponentStatus is deprecated in v1.19+\"")
    {
        response.headers_mut().insert("Warning", warning);
    }
    Ok(response)
}
