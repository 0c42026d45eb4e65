//! Discovery: `/version`, `/api`, `/apis`, `/apis/{group}` and the per-group-version resource
//! lists, in the legacy (unaggregated) JSON form, which kubectl and kube-rs both accept.

use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use super::resources::{Registry, ResourceType, Subresource, group_version};
use super::status::{ApiError, json_response};

/// Verbs every served resource supports.
const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn ok(value: &Value) -> Response {
    json_response(StatusCode::OK, value.to_string())
}

/// `/version`: `v1.{minor}.4` (32 by default, so kubectl's dispatcher runs kubectl 1.32).
pub fn version(minor: u32) -> Response {
    ok(&json!({
        "major": "1",
        "minor": minor.to_string(),
        "gitVersion": format!("v1.{minor}.4"),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-04-22T00:00:00Z",
        "goVersion": "go1.23.8",
        "compiler": "gc",
        "platform": "linux/amd64",
        "emulationMajor": "1",
        "emulationMinor": minor.to_string()
    }))
}

/// `/api`: the core group's versions.
pub fn core_versions(address: &str) -> Response {
    ok(&json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}]
    }))
}

/// One APIGroup object.
fn api_group(name: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": group_version(name, v), "version": v}))
        .collect();
    let preferred = versions.first().cloned().unwrap_or(Value::Null);
    json!({"name": name, "versions": versions, "preferredVersion": preferred})
}

/// `/apis`: every non-core group.
pub fn group_list(registry: &Registry) -> Response {
    let groups: Vec<Value> = registry
        .groups()
        .iter()
        .map(|(name, versions)| api_group(name, versions))
        .collect();
    ok(&json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
}

/// `/apis/{group}`.
pub fn group(registry: &Registry, name: &str) -> Result<Response, ApiError> {
    let groups = registry.groups();
    let (_, versions) = groups
        .iter()
        .find(|(g, _)| g == name)
        .ok_or_else(ApiError::no_route)?;
    let mut group = api_group(name, versions);
    if let Some(map) = group.as_object_mut() {
        map.insert("kind".into(), "APIGroup".into());
        map.insert("apiVersion".into(), "v1".into());
    }
    Ok(ok(&group))
}

/// One APIResource object.
fn api_resource(resource: &ResourceType) -> Value {
    let mut value = json!({
        "name": resource.plural,
        "singularName": resource.singular,
        "namespaced": resource.namespaced,
        "kind": resource.kind,
        "verbs": VERBS,
    });
    if let Some(map) = value.as_object_mut() {
        if !resource.short_names.is_empty() {
            map.insert("shortNames".into(), json!(resource.short_names));
        }
        if !resource.categories.is_empty() {
            map.insert("categories".into(), json!(resource.categories));
        }
    }
    value
}

/// Verbs of the `status` and `scale` subresources (their storages are getters, updaters and
/// patchers).
const SUBRESOURCE_VERBS: [&str; 3] = ["get", "patch", "update"];

/// One subresource's APIResource, as kube-apiserver's installer lists it
/// (`apiserver/pkg/endpoints/installer.go`, `registerResourceHandlers`): `plural/sub`, no
/// singular name, the parent's scope, the kind it answers (the parent's for `status`,
/// autoscaling/v1 `Scale` for `scale`, which kubectl's scale client looks up here).
fn subresource_entry(resource: &ResourceType, subresource: Subresource) -> Value {
    let mut entry = json!({
        "name": format!("{}/{}", resource.plural, subresource.name()),
        "singularName": "",
        "namespaced": resource.namespaced,
        "kind": resource.kind,
        "verbs": SUBRESOURCE_VERBS,
    });
    if let (Subresource::Scale, Some(map)) = (subresource, entry.as_object_mut()) {
        map.insert("group".into(), "autoscaling".into());
        map.insert("version".into(), "v1".into());
        map.insert("kind".into(), "Scale".into());
    }
    entry
}

/// `/api/v1` and `/apis/{group}/{version}`: each resource followed by its subresources (the
/// resources come by plural, so this is kube-apiserver's order, sorted by path).
pub fn resource_list(
    registry: &Registry,
    group: &str,
    version: &str,
) -> Result<Response, ApiError> {
    let resources = registry.in_group_version(group, version);
    if resources.is_empty() {
        return Err(ApiError::no_route());
    }
    let resources: Vec<Value> = resources
        .iter()
        .flat_map(|r| {
            let subresources = r.subresources_of(version).into_iter();
            std::iter::once(api_resource(r)).chain(subresources.map(|s| subresource_entry(r, s)))
        })
        .collect();
    Ok(ok(&json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version(group, version),
        "resources": resources
    })))
}
