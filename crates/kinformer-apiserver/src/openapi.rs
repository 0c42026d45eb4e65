//! A minimal OpenAPI v3 surface (`/openapi/v3` and one document per group version) that only
//! declares each resource's PATCH operation with the `fieldValidation` query parameter. That is
//! what kubectl's `apply`/`create` validation checks before leaving validation to the server;
//! without it kubectl refuses to apply ("failed to download openapi"). No schemas are served,
//! so kubectl computes strategic merge patches from its compiled-in types (or merge patches for
//! custom resources).

use axum::response::Response;
use http::StatusCode;
use serde_json::{Map, Value, json};

use super::discovery::git_version;
use super::resources::{Registry, ResourceType};
use super::status::{ApiError, json_response};

/// The URL path (without leading slash) of a group version's document.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// Every served group version.
fn group_versions(registry: &Registry) -> Vec<(String, String)> {
    let mut all = vec![(String::new(), "v1".to_owned())];
    for (group, versions) in registry.groups() {
        all.extend(versions.into_iter().map(|v| (group.clone(), v)));
    }
    all
}

/// A short content hash, so kubectl's cache notices new CRDs.
fn hash(resources: &[std::sync::Arc<ResourceType>]) -> String {
    let text: String = resources
        .iter()
        .map(|r| format!("{}/{}/{};", r.plural, r.kind, r.namespaced))
        .collect();
    let value = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{value:016X}")
}

/// `/openapi/v2`: an empty document (older kubectl, ≤ 1.28, validates with OpenAPI v2 and fails
/// when it is missing; with no definitions it leaves validation to the server). The protobuf
/// form of an empty document is zero bytes.
pub fn v2(accept: &str, minor: u32) -> Response {
    if accept.contains("protobuf") {
        let mut response = json_response(StatusCode::OK, Vec::new());
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(
                "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
            ),
        );
        return response;
    }
    let info = json!({"title": "Kubernetes", "version": git_version(minor)});
    let document = json!({"swagger": "2.0", "info": info, "paths": {}});
    json_response(StatusCode::OK, document.to_string())
}

/// `/openapi/v3`: the index of group-version documents.
pub fn index(registry: &Registry) -> Response {
    let mut paths = Map::new();
    for (group, version) in group_versions(registry) {
        let path = gv_path(&group, &version);
        let digest = hash(&registry.in_group_version(&group, &version));
        paths.insert(
            path.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{path}?hash={digest}")}),
        );
    }
    json_response(StatusCode::OK, json!({ "paths": paths }).to_string())
}

/// `/openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`.
pub fn document(
    registry: &Registry,
    group: &str,
    version: &str,
    minor: u32,
) -> Result<Response, ApiError> {
    let resources = registry.in_group_version(group, version);
    if resources.is_empty() {
        return Err(ApiError::no_route());
    }
    let mut paths = Map::new();
    for resource in &resources {
        let (path, operation) = patch_operation(resource, group, version);
        paths.insert(path, json!({ "patch": operation }));
    }
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": git_version(minor)},
        "paths": paths,
        "components": {"schemas": {}}
    });
    Ok(json_response(StatusCode::OK, document.to_string()))
}

/// The object path of a resource and its PATCH operation.
fn patch_operation(resource: &ResourceType, group: &str, version: &str) -> (String, Value) {
    let base = format!("/{}", gv_path(group, version));
    let path = if resource.namespaced {
        format!(
            "{base}/namespaces/{{namespace}}/{}/{{name}}",
            resource.plural
        )
    } else {
        format!("{base}/{}/{{name}}", resource.plural)
    };
    let operation = json!({
        "operationId": format!("patch{}", resource.kind),
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": {"group": group, "version": version, "kind": resource.kind},
        "parameters": [
            {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
            {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
            {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "OK"}}
    });
    (path, operation)
}
