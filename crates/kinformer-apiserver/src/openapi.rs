//! The OpenAPI surface, as kube-apiserver serves it: `/openapi/v2` ([`v2`]: the captured
//! document with the CRDs merged in, JSON or protobuf) and `/openapi/v3` (the
//! index of documents with their hashes) and one document per path of that index. Built-in
//! group versions are answered with the real kube-apiserver's documents ([`openapi_data`],
//! captured from the release the crate embeds), so `kubectl explain` and kubectl's own
//! validation see real schemas. A custom resource's group version gets a document built from
//! its CRDs' `openAPIV3Schema`s, as the apiextensions-apiserver's builder makes one: the
//! schema with `metadata` referring to ObjectMeta, a list schema referring to ListMeta, and
//! `x-kubernetes-group-version-kind`. A group version served here but missing from the capture
//! gets a minimal document declaring each resource's PATCH operation with `fieldValidation`
//! (what kubectl's apply checks before leaving validation to the server).
//!
//! Headers follow kube-apiserver: the index is `text/plain; charset=utf-8`, a document is
//! `application/json` with its hash as `ETag`, `Cache-Control: public, immutable` (and a year's
//! `Expires`) when asked for with `?hash=` and `no-cache, private` otherwise; a matching
//! `If-None-Match` answers `304 Not Modified`.
//!
//! [`openapi_data`]: crate::openapi_data

use std::collections::BTreeSet;

use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Map, Value, json};

mod crd_v2;
mod gnostic;
mod ordered;
mod schema_v2;
mod splice;
mod v2;
mod yaml;

use super::discovery::git_version;
use super::openapi_data;
use super::resources::{Registry, ResourceType};
use super::status::ApiError;

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

/// A document's hash as kube-openapi's handler3 computes it (`computeETag`,
/// `pkg/handler3/handler.go`): the SHA-512 of its bytes in upper-case hex.
fn hash(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA512, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02X}")).collect()
}

/// `/openapi/v2`: the captured document with the custom resources merged in, JSON or
/// protobuf ([`v2`]).
pub fn v2(registry: &Registry, headers: &HeaderMap) -> Response {
    v2::serve(registry, headers)
}

/// `/openapi/v3`: the index of documents — the captured server-wide ones (`api`, `apis`,
/// `version`, …), each served group and each served group version.
pub fn index(registry: &Registry) -> Response {
    let mut paths = Map::new();
    let mut add = |path: &str, digest: &str| {
        let url = format!("/openapi/v3/{path}?hash={digest}");
        paths.insert(path.to_owned(), json!({ "serverRelativeURL": url }));
    };
    for (path, digest) in openapi_data::v3_other_paths() {
        add(path, digest);
    }
    let mut groups = BTreeSet::new();
    for (group, version) in group_versions(registry) {
        let path = gv_path(&group, &version);
        if let Some((digest, _)) = gv_document(registry, &group, &version) {
            add(&path, &digest);
        }
        if !group.is_empty() {
            groups.insert(group);
        }
    }
    for group in groups {
        let path = format!("apis/{group}");
        if let Some((digest, _)) = openapi_data::v3(&path) {
            add(&path, digest);
        }
    }
    let body = serde_json::to_vec(&json!({ "paths": paths })).unwrap_or_default();
    respond(
        Bytes::from(body),
        "text/plain; charset=utf-8",
        "no-cache, private",
        None,
    )
}

/// `/openapi/v3/<path>`: a group version's document, a group's, or a captured server-wide one.
pub fn document(
    registry: &Registry,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let (digest, bytes) = match path.split('/').collect::<Vec<_>>().as_slice() {
        ["api", version] => gv_document(registry, "", version),
        ["apis", group, version] => gv_document(registry, group, version),
        ["apis", group] if registry.groups().iter().any(|(g, _)| g == group) => {
            openapi_data::v3(path).map(|(d, b)| (d.to_owned(), b))
        }
        ["api" | "apis", ..] => None,
        _ => openapi_data::v3(path).map(|(d, b)| (d.to_owned(), b)),
    }
    .ok_or_else(ApiError::no_route)?;
    let etag = format!("\"{digest}\"");
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        let mut response = respond(Bytes::new(), "application/json", "no-cache, private", None);
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        return Ok(response);
    }
    let immutable = query.is_some_and(|q| q.split('&').any(|p| p.starts_with("hash=")));
    let cache = if immutable {
        "public, immutable"
    } else {
        "no-cache, private"
    };
    let mut response = respond(bytes, "application/json", cache, Some(&etag));
    if immutable {
        let expires = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24 * 365);
        let text = expires.strftime("%a, %d %b %Y %H:%M:%S UTC").to_string();
        if let Ok(value) = HeaderValue::from_str(&text) {
            response.headers_mut().insert(header::EXPIRES, value);
        }
    }
    Ok(response)
}

/// A served group version's document and its hash: custom resources' built from their CRDs,
/// built-ins' captured, else minimal. None when the group version is not served.
fn gv_document(registry: &Registry, group: &str, version: &str) -> Option<(String, Bytes)> {
    let resources = registry.in_group_version(group, version);
    if resources.is_empty() {
        return None;
    }
    if resources.iter().all(|r| !r.custom)
        && let Some((digest, bytes)) = openapi_data::v3(&gv_path(group, version))
    {
        return Some((digest.to_owned(), bytes));
    }
    let document = if resources.iter().any(|r| r.custom) {
        custom_document(&resources, group, version)
    } else {
        minimal_document(&resources, group, version)
    };
    let bytes = serde_json::to_vec(&document).unwrap_or_default();
    Some((hash(&bytes), Bytes::from(bytes)))
}

/// The document of a group version with no captured schemas: PATCH operations only.
fn minimal_document(
    resources: &[std::sync::Arc<ResourceType>],
    group: &str,
    version: &str,
) -> Value {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": git_version(openapi_minor())},
        "paths": patch_paths(resources, group, version),
        "components": {"schemas": {}}
    })
}

/// The minor release of the captured documents (`v1.37.2` → 37).
fn openapi_minor() -> u32 {
    openapi_data::RELEASE
        .split('.')
        .nth(1)
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// The PATCH operation of each resource, by object path.
fn patch_paths(resources: &[std::sync::Arc<ResourceType>], group: &str, version: &str) -> Value {
    let mut paths = Map::new();
    for resource in resources {
        let (path, operation) = patch_operation(resource, group, version);
        paths.insert(path, json!({ "patch": operation }));
    }
    Value::Object(paths)
}

/// A custom resources' group version document, as the apiextensions-apiserver's builder makes
/// it: per kind its `openAPIV3Schema` with `apiVersion`, `kind` and `metadata` (ObjectMeta)
/// declared, a `<Kind>List` schema, the meta schemas they refer to, and PATCH operations.
fn custom_document(
    resources: &[std::sync::Arc<ResourceType>],
    group: &str,
    version: &str,
) -> Value {
    let mut schemas = Map::new();
    let prefix = reversed_group(group);
    for resource in resources {
        let schema = resource
            .schema_for(&super::resources::group_version(group, version))
            .cloned()
            .unwrap_or_else(
                || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            );
        let name = format!("{prefix}.{version}.{}", resource.kind);
        schemas.insert(
            name.clone(),
            object_schema(schema, group, version, &resource.kind),
        );
        schemas.insert(
            format!("{name}List"),
            list_schema(&name, group, version, &resource.list_kind),
        );
    }
    for (name, schema) in meta_schemas() {
        schemas.insert(name, schema);
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": patch_paths(resources, group, version),
        "components": {"schemas": schemas}
    })
}

/// `conformance.example.com` → `com.example.conformance` (the builder's schema name prefix).
fn reversed_group(group: &str) -> String {
    group.split('.').rev().collect::<Vec<_>>().join(".")
}

/// The `$ref` to a schema of the document, wrapped as kube-apiserver's v3 documents wrap one.
fn reference(name: &str) -> Value {
    json!({"allOf": [{"$ref": format!("#/components/schemas/{name}")}]})
}

/// A kind's schema: its declared schema plus `apiVersion`, `kind`, `metadata`.
fn object_schema(mut schema: Value, group: &str, version: &str, kind: &str) -> Value {
    let Some(object) = schema.as_object_mut() else {
        return schema;
    };
    let properties = object
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(properties) = properties {
        properties.insert(
            "apiVersion".into(),
            type_meta_field(
                "APIVersion defines the versioned schema of this representation of an object.",
            ),
        );
        properties.insert(
            "kind".into(),
            type_meta_field(
                "Kind is a string value representing the REST resource this object represents.",
            ),
        );
        let mut metadata = reference("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        metadata["description"] = json!(
            "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
        );
        properties.insert("metadata".into(), metadata);
    }
    object.insert("type".into(), json!("object"));
    object.insert(
        "x-kubernetes-group-version-kind".into(),
        json!([{"group": group, "kind": kind, "version": version}]),
    );
    schema
}

/// A `string` TypeMeta field.
fn type_meta_field(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// A kind's list schema: `items` of the kind, `metadata` ListMeta.
fn list_schema(item: &str, group: &str, version: &str, list_kind: &str) -> Value {
    json!({
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": type_meta_field("APIVersion defines the versioned schema of this representation of an object."),
            "kind": type_meta_field("Kind is a string value representing the REST resource this object represents."),
            "items": {"type": "array", "items": reference(item)},
            "metadata": reference("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta")
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": list_kind, "version": version}]
    })
}

/// ObjectMeta, ListMeta and every schema they refer to, from the captured core document.
fn meta_schemas() -> Vec<(String, Value)> {
    let Some(core) = openapi_data::v3_parsed("api/v1") else {
        return Vec::new();
    };
    let all = &core["components"]["schemas"];
    let mut pending = vec![
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".to_owned(),
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta".to_owned(),
    ];
    let mut found: Vec<(String, Value)> = Vec::new();
    while let Some(name) = pending.pop() {
        if found.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let Some(schema) = all.get(&name) else {
            continue;
        };
        collect_refs(schema, &mut pending);
        found.push((name, schema.clone()));
    }
    found
}

/// Pushes the schema names every `$ref` inside `value` points at.
fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == "$ref"
                    && let Some(name) = child
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    into.push(name.to_owned());
                } else {
                    collect_refs(child, into);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
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

/// A `200` with kube-apiserver's OpenAPI headers.
fn respond(
    body: Bytes,
    content_type: &'static str,
    cache: &'static str,
    etag: Option<&str>,
) -> Response {
    let mut response = Response::new(axum::body::Body::from(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    if let Some(value) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
        headers.insert(header::ETAG, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_kind_refers_to_object_meta_and_names_its_kind() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object"}}});
        let schema = object_schema(schema, "example.com", "v1", "Gadget");
        assert_eq!(
            schema["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        assert_eq!(
            schema["x-kubernetes-group-version-kind"][0]["kind"],
            "Gadget"
        );
        assert_eq!(
            reversed_group("conformance.example.com"),
            "com.example.conformance"
        );
    }

    #[test]
    fn meta_schemas_include_what_object_meta_refers_to() {
        let names: Vec<String> = meta_schemas().into_iter().map(|(n, _)| n).collect();
        assert!(
            names
                .iter()
                .any(|n| n.ends_with("meta.v1.ManagedFieldsEntry"))
        );
        assert!(names.iter().any(|n| n.ends_with("meta.v1.OwnerReference")));
    }
}
