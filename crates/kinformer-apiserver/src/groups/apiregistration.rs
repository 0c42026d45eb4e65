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
fn priorities(group: &str) -> (i64, i64) {
    match group {
        "" => (18000, 1),
        "apps" => (17800, 15),
        "events.k8s.io" => (17750, 15),
        "authentication.k8s.io" => (17700, 15),
        "batch" => (17400, 15),
        "certificates.k8s.io" => (17300, 15),
        "policy" => (17100, 15),
        "rbac.authorization.k8s.io" => (17000, 15),
        "apiextensions.k8s.io" => (16700, 15),
        "coordination.k8s.io" => (16500, 15),
        "apiregistration.k8s.io" => (18000, 15),
        _ => (1000, 100),
    }
}

/// The local APIService of `group`/`version`, as kube-apiserver's autoregister controller
/// creates it (kube-aggregator `pkg/controllers/autoregister/autoregister_controller.go`,
/// `checkAPIService`: a create by the `kube-apiserver` loopback client, so its managedFields
/// own the label and the spec), with a uid of its own that every GET repeats (and resourceVersion
/// 1: it is computed, never stored).
fn local(group: &str, version: &str, created: &str) -> Value {
    let (group_priority, version_priority) = priorities(group);
    let name = format!("{version}.{group}");
    let owned = json!({
        "f:metadata": {"f:labels": {".": {}, "f:kube-aggregator.kubernetes.io/automanaged": {}}},
        "f:spec": {"f:group": {}, "f:groupPriorityMinimum": {}, "f:version": {},
            "f:versionPriority": {}},
    });
    json!({
        "kind": "APIService",
        "apiVersion": "apiregistration.k8s.io/v1",
        "metadata": {"name": name, "uid": stable_uid(&name), "resourceVersion": "1",
            "creationTimestamp": created,
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "onstart"},
            "managedFields": [{"manager": "kube-apiserver", "operation": "Update",
                "apiVersion": "apiregistration.k8s.io/v1", "time": created,
                "fieldsType": "FieldsV1", "fieldsV1": owned}]},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": group_priority,
            "versionPriority": version_priority},
        "status": {"conditions": [{"type": "Available", "status": "True",
            "lastTransitionTime": created, "reason": "Local",
            "message": "Local APIServices are always available"}]},
    })
}

/// A uid made from `name` (FNV-1a), formatted as a UUID: the same on every GET.
fn stable_uid(name: &str) -> String {
    let hash = |seed: u64| {
        name.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let hex = format!(
        "{:016x}{:016x}",
        hash(0xcbf2_9ce4_8422_2325),
        hash(0x8422_2325_cbf2_9ce4)
    );
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
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
            let written = crate::json::go_order::to_go_json(&found);
            Some(Ok(json_response(StatusCode::OK, written)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_api_service_is_owned_by_kube_apiserver_and_keeps_its_uid() {
        let service = local("apps", "v1", "2026-01-01T00:00:00Z");
        let entry = &service["metadata"]["managedFields"][0];
        assert_eq!(entry["manager"], "kube-apiserver");
        assert!(entry["fieldsV1"]["f:spec"]["f:versionPriority"].is_object());
        let uid = service["metadata"]["uid"].as_str().unwrap_or_default();
        assert_eq!(uid.len(), 36);
        assert_eq!(local("apps", "v1", "later")["metadata"]["uid"], uid);
        assert_ne!(local("batch", "v1", "later")["metadata"]["uid"], uid);
    }
}
