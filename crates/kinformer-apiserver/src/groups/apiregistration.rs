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
use crate::json::go_order::{Inner, object_shape, write_inner};
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

/// The managedFields entry kube-apiserver's autoregister controller leaves on a local
/// APIService it creates (the core group's has no `spec.group`).
fn managed_fields(group: &str, created: &str) -> Value {
    let mut spec = json!({"f:groupPriorityMinimum": {}, "f:version": {}, "f:versionPriority": {}});
    if !group.is_empty() {
        spec["f:group"] = json!({});
    }
    json!([{"manager": "kube-apiserver", "operation": "Update",
        "apiVersion": "apiregistration.k8s.io/v1", "time": created, "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {".": {},
            "f:kube-aggregator.kubernetes.io/automanaged": {}}}, "f:spec": spec}}])
}

/// The local APIService of `group`/`version`.
fn local(group: &str, version: &str, started: &Started) -> Value {
    let (group_priority, version_priority) = priorities(group, version);
    let created = started.time.as_str();
    let name = format!("{version}.{group}");
    json!({
        "kind": "APIService",
        "apiVersion": "apiregistration.k8s.io/v1",
        "metadata": {"name": name, "uid": uid(&name),
            "resourceVersion": started.resource_version, "creationTimestamp": created,
            "labels": {"kube-aggregator.kubernetes.io/automanaged": "onstart"},
            "managedFields": managed_fields(group, created)},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": group_priority,
            "versionPriority": version_priority},
        "status": {"conditions": [{"type": "Available", "status": "True",
            "lastTransitionTime": created, "reason": "Local",
            "message": "Local APIServices are always available"}]},
    })
}

/// Every local APIService, by name (kube-aggregator serves no APIService for its own group).
fn locals(registry: &Registry, started: &Started) -> Vec<Value> {
    let mut all = vec![local("", "v1", started)];
    for (group, versions) in registry.groups() {
        if group == "apiregistration.k8s.io" {
            continue;
        }
        all.extend(versions.iter().map(|v| local(&group, v, started)));
    }
    all.sort_by(|a, b| {
        a["metadata"]["name"]
            .as_str()
            .cmp(&b["metadata"]["name"].as_str())
    });
    all
}

/// When the local APIServices were made: the `default` namespace's creation time and
/// resourceVersion (kube-apiserver makes both at start).
struct Started {
    time: String,
    resource_version: String,
}

/// The [`Started`] of this server.
fn started(app: &App) -> Started {
    let registry = app.store.registry();
    let namespace = registry
        .find("", "v1", "namespaces")
        .and_then(|ns| app.store.get(&ns.key(), &object_key("", "default")))
        .and_then(|o| o.to_value().ok());
    let text = |pointer: &str| {
        namespace
            .as_ref()
            .and_then(|v| v.pointer(pointer))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Started {
        time: text("/metadata/creationTimestamp").unwrap_or_else(super::now),
        resource_version: text("/metadata/resourceVersion").unwrap_or_else(|| "1".into()),
    }
}

/// A stable uid for the local APIService `name`, in the UUID form kube-apiserver writes.
fn uid(name: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, name.as_bytes());
    let hex: String = digest.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// `value` as JSON, `kind`, `apiVersion` and `metadata` first, as kube-apiserver writes them.
fn in_go_order(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_inner(
        &mut out,
        value,
        Inner::Object(object_shape("apiregistration.k8s.io/v1", "APIService")),
    );
    out
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
            Some(Ok(json_response(StatusCode::OK, in_go_order(&found))))
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
            Some(Ok(json_response(StatusCode::OK, in_go_order(&list))))
        }
    }
}
