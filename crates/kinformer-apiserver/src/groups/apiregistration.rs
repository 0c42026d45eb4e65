//! apiregistration.k8s.io/v1 APIServices: kube-apiserver's aggregator registers a local
//! APIService for each group version it serves (`v1.apps`, `v1.`, …, labelled
//! `kube-aggregator.kubernetes.io/automanaged: onstart`, always `Available`). This server
//! computes those from the groups it serves on each GET and LIST (they change with the CRDs),
//! alongside the APIServices clients create, which generic storage keeps; the local ones are
//! not in watches.

use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, ResourceRequest};
use crate::objects::object_key;
use crate::resources::Registry;
use crate::status::{ApiError, json_response};

/// kube-apiserver's `groupPriorityMinimum` and `versionPriority` of a built-in group's local
/// APIService (`pkg/controlplane/apiserver/aggregator.go`, `apiVersionPriorities`); a CRD's
/// group gets 1000 and 100 (`crdregistration_controller.go`).
fn priorities(group: &str, version: &str) -> (i64, i64) {
    let group_priority = match group {
        "" | "apiregistration.k8s.io" => 18000,
        "apps" => 17800,
        "events.k8s.io" => 17750,
        "authentication.k8s.io" => 17700,
        "authorization.k8s.io" => 17600,
        "autoscaling" => 17500,
        "batch" => 17400,
        "certificates.k8s.io" => 17300,
        "networking.k8s.io" => 17200,
        "policy" => 17100,
        "rbac.authorization.k8s.io" => 17000,
        "storage.k8s.io" => 16800,
        "admissionregistration.k8s.io" | "apiextensions.k8s.io" => 16700,
        "scheduling.k8s.io" => 16600,
        "coordination.k8s.io" => 16500,
        "node.k8s.io" => 16300,
        "discovery.k8s.io" | "resource.k8s.io" => 16200,
        "flowcontrol.apiserver.k8s.io" => 16100,
        "storagemigration.k8s.io" => 15800,
        _ => return (1000, 100),
    };
    let version_priority = match (group, version) {
        ("", _) => 1,
        ("autoscaling", "v2") => 30,
        ("flowcontrol.apiserver.k8s.io" | "resource.k8s.io", _) => 21,
        _ => 15,
    };
    (group_priority, version_priority)
}

/// The local APIService of `group`/`version`.
fn local(group: &str, version: &str, created: &str) -> Value {
    let (group_priority, version_priority) = priorities(group, version);
    json!({
        "kind": "APIService",
        "apiVersion": "apiregistration.k8s.io/v1",
        "metadata": {"name": format!("{version}.{group}"), "creationTimestamp": created,
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "onstart"}},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": group_priority,
            "versionPriority": version_priority},
        "status": {"conditions": [{"type": "Available", "status": "True",
            "lastTransitionTime": created, "reason": "Local",
            "message": "Local APIServices are always available"}]},
    })
}

/// Every local APIService, by name (kube-aggregator serves no APIService for its own group).
fn locals(registry: &Registry, created: &str) -> Vec<Value> {
    let mut all = vec![local("", "v1", created)];
    for (group, versions) in registry.groups() {
        if group == "apiregistration.k8s.io" {
            continue;
        }
        all.extend(versions.iter().map(|v| local(&group, v, created)));
    }
    all.sort_by(|a, b| {
        a["metadata"]["name"]
            .as_str()
            .cmp(&b["metadata"]["name"].as_str())
    });
    all
}

/// When the server started, as the local APIServices' creation time (the `default` namespace's).
fn started(app: &App) -> String {
    let registry = app.store.registry();
    registry
        .find("", "v1", "namespaces")
        .and_then(|ns| app.store.get(&ns.key(), &object_key("", "default")))
        .and_then(|o| o.to_value().ok())
        .and_then(|v| v.pointer("/metadata/creationTimestamp").cloned())
        .and_then(|t| t.as_str().map(str::to_owned))
        .unwrap_or_else(super::now)
}

/// GET of a local APIService; None for any other request (generic storage serves it).
pub fn serve(app: &App, request: &ResourceRequest) -> Option<Result<Response, ApiError>> {
    if request.flag("watch") || request.representation != crate::app::Representation::Object {
        return None;
    }
    let locals = locals(&app.store.registry(), &started(app));
    match request.name.as_deref() {
        Some(name) => {
            let found = locals.into_iter().find(|s| s["metadata"]["name"] == name)?;
            Some(Ok(json_response(StatusCode::OK, found.to_string())))
        }
        None => {
            let key = request.resource.key();
            let stored: Vec<Value> = match app.store.write(|txn| Ok(txn.objects(&key))) {
                Ok(objects) => objects.iter().filter_map(|o| o.to_value().ok()).collect(),
                Err(e) => return Some(Err(e)),
            };
            let mut items: Vec<Value> = locals;
            items.extend(stored);
            let list = json!({"kind": "APIServiceList", "apiVersion": "apiregistration.k8s.io/v1",
                "metadata": {"resourceVersion": app.store.resource_version().to_string()}, "items": items});
            Some(Ok(json_response(StatusCode::OK, list.to_string())))
        }
    }
}
