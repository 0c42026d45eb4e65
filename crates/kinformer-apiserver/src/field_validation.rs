//! Server-side field validation (`?fieldValidation=Strict|Warn|Ignore`), as kube-apiserver
//! 1.37 does it: a written object's unknown and duplicate fields are refused (`Strict`: `400`,
//! "<Kind> in version "v1" cannot be handled as a <Kind>: strict decoding error: unknown
//! field "spec.bogus"", or `422` naming the patch), reported as `Warning: 299 - "unknown field
//! \"spec.bogus\""` headers (`Warn`, the default when the parameter is absent or empty), or
//! silently dropped (`Ignore`). Either way the unknown fields are dropped before the write, as
//! kube-apiserver's typed decoding (built-ins) and pruning (custom resources) drop them.
//!
//! "Unknown" is what the schema does not declare: a built-in kind's schema is the real
//! kube-apiserver's OpenAPI v3 document of its group version ([`openapi_data`]), walked
//! through `$ref`s, `additionalProperties` and arrays' `items` (a schema declaring neither
//! properties nor additional properties, like RawExtension, takes anything); a custom
//! resource's is its CRD's structural schema, where an object declares exactly its
//! `properties` unless it has `additionalProperties` or `x-kubernetes-preserve-unknown-fields`,
//! and `metadata` (at the root and in `x-kubernetes-embedded-resource`s) is ObjectMeta.
//! A server-side apply configuration with an unknown field is always refused (`500`, as
//! structured-merge-diff cannot type it), whatever the directive.
//! Duplicate fields are found in JSON bodies (YAML is converted before it gets here); a
//! built-in's duplicate objects are merged member by member, as Go's decoding into typed
//! structs merges them, and otherwise the last value wins.
//! JSON patches are not checked here. A JSON body is first read without a tree ([`check`]):
//! one without problems goes to the write as it came.
//!
//! [`openapi_data`]: crate::openapi_data

use std::collections::HashSet;
use std::fmt::{self, Write as _};
use std::sync::{Arc, LazyLock};

use axum::response::Response;
use http::HeaderValue;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::app::ResourceRequest;
use crate::openapi_data;
use crate::resources::{ResourceType, group_version};
use crate::status::{ApiError, StatusCause, StatusDetails};

mod check;

/// The `fieldValidation` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Ignore,
    Warn,
    Strict,
}

/// What a body is: a whole object (create, update) or a patch of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A POST or PUT body.
    Object,
    /// A JSON merge patch.
    MergePatch,
    /// A strategic merge patch (its `$`-directives are not fields).
    StrategicPatch,
    /// A server-side apply configuration (YAML or JSON): an unknown field is always an error,
    /// whatever the directive (structured-merge-diff cannot type it).
    Apply,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    Unknown(String),
    Duplicate(String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Unknown(path) => write!(f, "unknown field {path:?}"),
            Problem::Duplicate(path) => write!(f, "duplicate field {path:?}"),
        }
    }
}

/// Validates `body` as `request` asks, then runs `write` with the body, its unknown fields
/// dropped, and adds the warnings to its response. The one call of the write path.
pub fn around(
    request: &ResourceRequest,
    options_kind: &str,
    body_kind: Body,
    body: &[u8],
    write: impl FnOnce(&[u8]) -> Result<Response, ApiError>,
) -> Result<Response, ApiError> {
    let directive = directive(request, options_kind)?;
    let Some(schema) = KindSchema::of(request) else {
        return write(body);
    };
    if body_kind != Body::Apply && schema.has_problem(body_kind, body) != Some(true) {
        // Not JSON (the write answers that), or nothing to report or drop.
        return write(body);
    }
    let Some(tree) = parse(body, body_kind) else {
        return write(body);
    };
    let mut problems = Vec::new();
    let pruned = schema.walk(&tree, body_kind, &mut problems);
    if problems.is_empty() {
        return write(body);
    }
    if body_kind == Body::Apply {
        return Err(untyped_apply(request, &tree, &problems));
    }
    match directive {
        Directive::Strict => return Err(strict_error(request, body_kind, body, &problems)),
        Directive::Warn | Directive::Ignore => {}
    }
    let mut text = String::new();
    pruned.write_json(&mut text);
    let mut response = write(text.as_bytes())?;
    if directive == Directive::Warn {
        for problem in &problems {
            let quoted = serde_json::to_string(&problem.to_string()).unwrap_or_default();
            if let Ok(value) = HeaderValue::from_str(&format!("299 - {quoted}")) {
                response.headers_mut().append(http::header::WARNING, value);
            }
        }
    }
    Ok(response)
}

/// A body as a tree (None: not JSON, or for an apply not YAML either; the write answers that).
fn parse(body: &[u8], body_kind: Body) -> Option<Tree> {
    if body_kind == Body::Apply {
        let text = std::str::from_utf8(body).ok()?;
        return serde_saphyr::from_str(text).ok();
    }
    serde_json::from_slice(body).ok()
}

/// kube-apiserver's `500` for an apply configuration with a field its schema lacks
/// ("failed to create typed patch object (ns/name; /v1, Kind=ConfigMap): .bogus: field not
/// declared in schema"; of several, structured-merge-diff names the last).
fn untyped_apply(request: &ResourceRequest, tree: &Tree, problems: &[Problem]) -> ApiError {
    let text = |key: &str| match tree.member("metadata").and_then(|m| m.member(key)) {
        Some(Tree::Scalar(Value::String(text))) => text.clone(),
        _ => String::new(),
    };
    let resource = &request.resource;
    let field = problems
        .iter()
        .filter_map(|p| match p {
            Problem::Unknown(path) => Some(path.as_str()),
            Problem::Duplicate(_) => None,
        })
        .max()
        .unwrap_or_default();
    ApiError::unknown(format!(
        "failed to create typed patch object ({}/{}; {}/{}, Kind={}): .{field}: field not declared in schema",
        text("namespace"),
        text("name"),
        resource.group,
        request.version,
        resource.kind
    ))
}

/// The request's directive; an unsupported one is the options' `422`.
fn directive(request: &ResourceRequest, options_kind: &str) -> Result<Directive, ApiError> {
    match request.params.get("fieldValidation").map(String::as_str) {
        None | Some("" | "Warn") => Ok(Directive::Warn),
        Some("Strict") => Ok(Directive::Strict),
        Some("Ignore") => Ok(Directive::Ignore),
        Some(other) => Err(unsupported_directive(options_kind, other)),
    }
}

/// The options' `422` for an unsupported directive, with its cause.
fn unsupported_directive(options_kind: &str, value: &str) -> ApiError {
    let message = format!(
        "Unsupported value: {value:?}: supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
    let mut error =
        ApiError::invalid_options(options_kind, &[format!("fieldValidation: {message}")]);
    error.details = Some(Box::new(StatusDetails {
        group: "meta.k8s.io".into(),
        kind: options_kind.into(),
        causes: vec![StatusCause {
            reason: "FieldValueNotSupported".into(),
            message,
            field: "fieldValidation".into(),
        }],
        ..StatusDetails::default()
    }));
    error
}

/// kube-apiserver's answer to a Strict write with problems.
fn strict_error(
    request: &ResourceRequest,
    body_kind: Body,
    body: &[u8],
    problems: &[Problem],
) -> ApiError {
    let list = problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let kind = &request.resource.kind;
    match body_kind {
        Body::Object => ApiError::bad_request(format!(
            "{kind} in version {:?} cannot be handled as a {kind}: strict decoding error: {list}",
            request.version
        )),
        Body::MergePatch | Body::StrategicPatch | Body::Apply => {
            let patch = String::from_utf8_lossy(body);
            ApiError::new(
                422,
                "Invalid",
                format!(
                    " \"\" is invalid: patch: Invalid value: {patch:?}: strict decoding error: {list}"
                ),
            )
        }
    }
}

/// A JSON value with every member kept in order, duplicates included.
#[derive(Debug, Clone)]
enum Tree {
    Object(Vec<(String, Tree)>),
    Array(Vec<Tree>),
    Scalar(Value),
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::String(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Tree, E> {
        Ok(Tree::Scalar(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, Tree>()? {
            members.push(member);
        }
        Ok(Tree::Object(members))
    }
}

impl Tree {
    /// An object's member (its last value).
    fn member(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Writes the value as JSON, members in order.
    fn write_json(&self, out: &mut String) {
        match self {
            Tree::Scalar(value) => {
                let _ = write!(out, "{value}");
            }
            Tree::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Tree::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "{}:", Value::String(key.clone()));
                    value.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// ObjectMeta's schema name.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The schema a kind's objects are checked against.
struct KindSchema {
    /// The document's `components.schemas` (the core document's for custom resources: its
    /// ObjectMeta).
    document: Arc<Value>,
    /// The kind's own schema.
    root: Value,
    /// A CRD's structural schema (objects declare exactly their properties) or a built-in's.
    structural: bool,
}

impl KindSchema {
    /// The schema of the request's kind; None when there is none to check against (a scale
    /// subresource, a group version missing from the capture, a CRD version without schema).
    fn of(request: &ResourceRequest) -> Option<KindSchema> {
        let resource: &ResourceType = &request.resource;
        if request
            .subresource
            .as_deref()
            .is_some_and(|s| s != "status")
        {
            return None;
        }
        if resource.custom {
            let root = resource
                .schema_for(&group_version(&resource.group, &request.version))?
                .clone();
            let document = openapi_data::v3_parsed("api/v1")?;
            return Some(KindSchema {
                document,
                root,
                structural: true,
            });
        }
        let path = if resource.group.is_empty() {
            format!("api/{}", request.version)
        } else {
            format!("apis/{}/{}", resource.group, request.version)
        };
        let document = openapi_data::v3_parsed(&path)?;
        let root = find_kind(&document, &resource.group, &request.version, &resource.kind)?;
        Some(KindSchema {
            document,
            root,
            structural: false,
        })
    }

    /// Whether a JSON body has any problem ([`check`]); None when it is not JSON.
    fn has_problem(&self, body_kind: Body, body: &[u8]) -> Option<bool> {
        check::has_problem(&self.walker(body_kind), &self.root, self.structural, body)
    }

    /// The walk's settings for a body of `body_kind`.
    fn walker(&self, body_kind: Body) -> Walker<'_> {
        Walker {
            schemas: &self.document["components"]["schemas"],
            directives: body_kind == Body::StrategicPatch,
            keyed_paths: body_kind == Body::Apply,
        }
    }

    /// Walks a body, collecting problems; returns it with unknown fields dropped.
    fn walk(&self, tree: &Tree, body_kind: Body, problems: &mut Vec<Problem>) -> Tree {
        let walker = self.walker(body_kind);
        let at = At {
            path: "",
            resource_root: self.structural,
            structural: self.structural,
        };
        walker.node(tree, &self.root, at, problems)
    }
}

/// The schema with `x-kubernetes-group-version-kind` naming the kind.
pub(crate) fn find_kind(document: &Value, group: &str, version: &str, kind: &str) -> Option<Value> {
    let schemas = document["components"]["schemas"].as_object()?;
    schemas
        .values()
        .find(|schema| {
            schema["x-kubernetes-group-version-kind"]
                .as_array()
                .is_some_and(|gvks| {
                    gvks.iter().any(|gvk| {
                        gvk["group"] == group && gvk["version"] == version && gvk["kind"] == kind
                    })
                })
        })
        .cloned()
}

/// One walk's settings.
struct Walker<'a> {
    schemas: &'a Value,
    /// Keys starting with `$` are a strategic merge patch's directives.
    directives: bool,
    /// A list item's path names its `x-kubernetes-list-map-keys` (`[name="c"]`), as
    /// structured-merge-diff writes it, rather than its index.
    keyed_paths: bool,
}

impl Walker<'_> {
    /// Follows `$ref` and `allOf: [{$ref}]` to the schema meant; true when it followed one
    /// (into the document's schemas, which are not structural).
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> (&'s Value, bool) {
        let mut followed = false;
        for _ in 0..8 {
            let reference = schema["$ref"]
                .as_str()
                .or_else(|| schema["allOf"][0]["$ref"].as_str());
            let Some(name) = reference.and_then(|r| r.strip_prefix("#/components/schemas/")) else {
                break;
            };
            schema = &self.schemas[name];
            followed = true;
        }
        (schema, followed)
    }

    /// Walks `tree` against `schema` where `at` says.
    fn node(&self, tree: &Tree, schema: &Value, at: At<'_>, problems: &mut Vec<Problem>) -> Tree {
        let (schema, followed) = self.resolve(schema);
        let structural = at.structural && !followed;
        match tree {
            Tree::Scalar(_) => tree.clone(),
            Tree::Array(items) => Tree::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let path = format!("{}[{}]", at.path, self.item_key(schema, item, i));
                        let at = At {
                            path: &path,
                            resource_root: false,
                            structural,
                        };
                        self.node(item, &schema["items"], at, problems)
                    })
                    .collect(),
            ),
            Tree::Object(members) => {
                let embedded = at.resource_root
                    || schema["x-kubernetes-embedded-resource"] == Value::Bool(true);
                let at = At {
                    path: at.path,
                    resource_root: embedded,
                    structural,
                };
                self.object(members, schema, at, problems)
            }
        }
    }

    /// How a list item is named in a path: its index, or its list-map keys.
    fn item_key(&self, list: &Value, item: &Tree, index: usize) -> String {
        let keys = list["x-kubernetes-list-map-keys"].as_array();
        let Some(keys) = keys.filter(|_| self.keyed_paths) else {
            return index.to_string();
        };
        keys.iter()
            .filter_map(Value::as_str)
            .filter_map(|key| match item.member(key) {
                Some(Tree::Scalar(value)) => Some(format!("{key}={value}")),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn object(
        &self,
        members: &[(String, Tree)],
        schema: &Value,
        at: At<'_>,
        problems: &mut Vec<Problem>,
    ) -> Tree {
        let mut seen = HashSet::new();
        let mut kept: Vec<(String, Tree)> = Vec::with_capacity(members.len());
        for (key, value) in members {
            let field = if at.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", at.path)
            };
            if !seen.insert(key.as_str()) {
                problems.push(Problem::Duplicate(field.clone()));
            }
            match self.member_schema(schema, key, at) {
                Member::Declared(child) => {
                    let at = At {
                        path: &field,
                        resource_root: false,
                        structural: at.structural,
                    };
                    let value = self.node(value, child, at, problems);
                    keep(&mut kept, key, value, !at.structural);
                }
                Member::Anything => keep(&mut kept, key, value.clone(), !at.structural),
                Member::Unknown => problems.push(Problem::Unknown(field)),
            }
        }
        Tree::Object(kept)
    }

    /// What the schema says about an object's member `key`.
    fn member_schema<'s>(&self, schema: &'s Value, key: &str, at: At<'_>) -> Member<'s> {
        if self.directives && key.starts_with('$') {
            return Member::Anything;
        }
        if at.resource_root {
            match key {
                "apiVersion" | "kind" => return Member::Anything,
                "metadata" => return Member::Declared(&OBJECT_META_REF),
                _ => {}
            }
        }
        if let Some(child) = schema["properties"].get(key) {
            return Member::Declared(child);
        }
        let preserve = schema["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true);
        match &schema["additionalProperties"] {
            Value::Object(_) => Member::Declared(&schema["additionalProperties"]),
            Value::Bool(true) => Member::Anything,
            _ if preserve => Member::Anything,
            _ if !at.structural
                && schema.get("properties").is_none()
                && schema.get("additionalProperties").is_none() =>
            {
                Member::Anything
            }
            _ => Member::Unknown,
        }
    }
}

/// Keeps an object's member: a duplicate replaces the earlier value where it was, or, when
/// `merge` (Go's decoding into typed structs and maps) and both are objects, is merged into it
/// member by member.
fn keep(kept: &mut Vec<(String, Tree)>, key: &str, value: Tree, merge: bool) {
    let Some(index) = kept.iter().position(|(k, _)| k == key) else {
        kept.push((key.to_owned(), value));
        return;
    };
    match (&mut kept[index].1, value) {
        (Tree::Object(earlier), Tree::Object(later)) if merge => {
            for (k, v) in later {
                keep(earlier, &k, v, merge);
            }
        }
        (slot, value) => *slot = value,
    }
}

/// Where a walk is.
#[derive(Debug, Clone, Copy)]
struct At<'p> {
    /// The field path (`spec.containers[0].name`).
    path: &'p str,
    /// An object with TypeMeta and ObjectMeta (a custom resource, an embedded resource).
    resource_root: bool,
    /// In a CRD's structural schema (objects declare exactly their properties), not in a
    /// document schema reached through a `$ref`.
    structural: bool,
}

/// An object member's schema.
enum Member<'s> {
    Declared(&'s Value),
    Anything,
    Unknown,
}

/// A `$ref` to ObjectMeta's schema.
static OBJECT_META_REF: LazyLock<Value> =
    LazyLock::new(|| serde_json::json!({ "$ref": format!("#/components/schemas/{OBJECT_META}") }));

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The full walk's problems and pruned body; the first pass ([`check`]) must agree on
    /// whether there is any.
    fn problems(schema: &KindSchema, body: &str, kind: Body) -> (Vec<String>, String) {
        let tree: Tree = serde_json::from_str(body).unwrap();
        let mut found = Vec::new();
        let pruned = schema.walk(&tree, kind, &mut found);
        let any = schema.has_problem(kind, body.as_bytes());
        assert_eq!(any, Some(!found.is_empty()), "{body}");
        let mut text = String::new();
        pruned.write_json(&mut text);
        (found.iter().map(ToString::to_string).collect(), text)
    }

    fn builtin(path: &str, group: &str, kind: &str) -> KindSchema {
        let document = openapi_data::v3_parsed(path).unwrap();
        let root = find_kind(&document, group, "v1", kind).unwrap();
        KindSchema {
            document,
            root,
            structural: false,
        }
    }

    #[test]
    fn a_pods_unknown_fields_are_found_in_document_order_and_dropped() {
        let pod = builtin("api/v1", "", "Pod");
        let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","bogus2":1},"spec":{"containers":[{"name":"c","image":"i","bogus":1,"resources":{"limits":{"cpu":"1"}}}],"nodeSelector":{"x":"y"},"bogusSpec":true}}"#;
        let (found, pruned) = problems(&pod, body, Body::Object);
        assert_eq!(
            found,
            [
                r#"unknown field "metadata.bogus2""#,
                r#"unknown field "spec.containers[0].bogus""#,
                r#"unknown field "spec.bogusSpec""#
            ]
        );
        assert!(!pruned.contains("bogus"), "{pruned}");
        assert!(pruned.contains(r#""limits":{"cpu":"1"}"#), "{pruned}");
    }

    #[test]
    fn duplicates_are_found_and_merged_as_go_decodes_them() {
        let configmap = builtin("api/v1", "", "ConfigMap");
        let body = r#"{"kind":"ConfigMap","data":{"a":"1"},"data":{"b":"2"},"kind":"ConfigMap"}"#;
        let (found, pruned) = problems(&configmap, body, Body::Object);
        assert_eq!(
            found,
            [r#"duplicate field "data""#, r#"duplicate field "kind""#]
        );
        assert_eq!(pruned, r#"{"kind":"ConfigMap","data":{"a":"1","b":"2"}}"#);
    }

    #[test]
    fn a_deployments_template_and_int_or_string_fields_are_known() {
        let deployment = builtin("apis/apps/v1", "apps", "Deployment");
        let body = r#"{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}}}"#;
        assert_eq!(
            problems(&deployment, body, Body::Object).0,
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_structural_schema_declares_exactly_its_properties() {
        let root = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}}
        }}}});
        let gadget = KindSchema {
            document: openapi_data::v3_parsed("api/v1").unwrap(),
            root,
            structural: true,
        };
        let body = r#"{"apiVersion":"x/v1","kind":"Gadget","metadata":{"name":"g2","bogusm":1},"spec":{"bogus":1,"free":{"x":1},"m":{"k":{"a":"x","b":1}}},"top":1}"#;
        assert_eq!(
            problems(&gadget, body, Body::Object).0,
            [
                r#"unknown field "metadata.bogusm""#,
                r#"unknown field "spec.bogus""#,
                r#"unknown field "spec.m.k.b""#,
                r#"unknown field "top""#
            ]
        );
    }

    #[test]
    fn an_apply_names_list_items_by_their_keys() {
        let pod = builtin("api/v1", "", "Pod");
        let body = "spec:\n  containers:\n  - name: c\n    bogus: 1\n";
        let tree = parse(body.as_bytes(), Body::Apply).unwrap();
        let mut found = Vec::new();
        pod.walk(&tree, Body::Apply, &mut found);
        assert_eq!(
            found,
            [Problem::Unknown(
                r#"spec.containers[name="c"].bogus"#.into()
            )]
        );
    }

    #[test]
    fn strategic_directives_are_not_fields() {
        let configmap = builtin("api/v1", "", "ConfigMap");
        let body = r#"{"$patch":"replace","data":{"a":"1"}}"#;
        assert!(
            problems(&configmap, body, Body::StrategicPatch)
                .0
                .is_empty()
        );
        assert_eq!(problems(&configmap, body, Body::MergePatch).0.len(), 1);
    }
}
