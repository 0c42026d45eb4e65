//! A CRD version's `openAPIV3Schema` as `/openapi/v2` publishes it: the apiextensions-apiserver
//! builder's `buildKubeNative` (pkg/controller/openapi/builder/builder.go:383-464) after the v2
//! conversion `ToStructuralOpenAPIV2` (pkg/controller/openapi/v2/conversion.go:178-261) and
//! kube-openapi's `PruneDefaults` (pkg/handler/default_pruning.go), written in the member order
//! kube-openapi marshals a `spec.Schema` in (pkg/validation/spec/schema.go:162-198 and 521-544:
//! schema properties in declaration order, then `$ref`, then the extensions sorted).

use serde_json::{Map, Value, json};

use super::ordered::Node;
use super::splice::DocumentIndex;

/// The meta kinds a custom resource's definitions refer to.
pub const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
pub const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/// metav1beta1.PartialObjectMetadata{}.SwaggerDoc()["metadata"] and
/// PartialObjectMetadataList's (apimachinery pkg/apis/meta/v1beta1/types_swagger_doc_generated.go).
const OBJECT_META_DESCRIPTION: &str = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
pub const LIST_META_DESCRIPTION: &str = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// An embedded resource's `apiVersion` and `kind` descriptions (builder.go:448-453).
const EMBEDDED_API_VERSION: &str = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const EMBEDDED_KIND: &str = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// Texts the builder takes from the generated built-in definitions and routes, read from the
/// captured document (so they are the release's own): TypeMeta's `apiVersion` and `kind`
/// descriptions and the inline `dryRun` and `fieldValidation` query parameters.
#[derive(Debug)]
pub struct Texts {
    api_version: String,
    kind: String,
    pub dry_run: Node,
    pub field_validation: Node,
}

impl Texts {
    /// Reads the texts from the captured document (None when it lacks them).
    pub fn from_document(document: &[u8], index: &DocumentIndex) -> Option<Texts> {
        let config_map: Value = serde_json::from_slice(
            index
                .definitions
                .value_of(document, "io.k8s.api.core.v1.ConfigMap")?,
        )
        .ok()?;
        let description = |field: &str| {
            config_map["properties"][field]["description"]
                .as_str()
                .map(str::to_owned)
        };
        let path: Node = serde_json::from_slice(
            index
                .paths
                .value_of(document, "/api/v1/namespaces/{namespace}/configmaps")?,
        )
        .ok()?;
        let Some(Node::Array(params)) = path.get("post").and_then(|op| op.get("parameters")) else {
            return None;
        };
        let inline = |name: &str| {
            params
                .iter()
                .find(|p| p.get("name").and_then(Node::as_str) == Some(name))
                .cloned()
        };
        Some(Texts {
            api_version: description("apiVersion")?,
            kind: description("kind")?,
            dry_run: inline("dryRun")?,
            field_validation: inline("fieldValidation")?,
        })
    }

    /// TypeMeta's `apiVersion` property.
    pub fn api_version(&self) -> Node {
        string_property(&self.api_version)
    }

    /// TypeMeta's `kind` property.
    pub fn kind(&self) -> Node {
        string_property(&self.kind)
    }
}

/// `{"description": …, "type": "string"}`.
fn string_property(description: &str) -> Node {
    Node::object([
        ("description", Node::str(description)),
        ("type", Node::str("string")),
    ])
}

/// The kind's definition: `{type: object}` for a version without a schema or one preserving
/// unknown fields at its root, else the converted schema with `apiVersion`, `kind` and
/// `metadata` declared; `x-kubernetes-group-version-kind` always, and
/// `x-kubernetes-selectable-fields` when the version declares some.
pub fn object_definition(
    schema: Option<&Value>,
    gvk: Value,
    selectable: Option<Value>,
    texts: &Texts,
) -> Node {
    let mut root = match schema.and_then(Value::as_object) {
        Some(schema) if !is_true(schema, "x-kubernetes-preserve-unknown-fields") => {
            let mut root = schema.clone();
            to_v2(&mut root);
            let properties = properties_of(&mut root);
            properties.insert("metadata".into(), metadata_reference());
            properties.insert(
                "apiVersion".into(),
                json!({"description": texts.api_version, "type": "string"}),
            );
            properties.insert(
                "kind".into(),
                json!({"description": texts.kind, "type": "string"}),
            );
            add_embedded_properties(&mut root);
            root
        }
        _ => Map::from_iter([("type".to_owned(), json!("object"))]),
    };
    root.insert("x-kubernetes-group-version-kind".into(), json!([gvk]));
    if let Some(fields) = selectable {
        root.insert("x-kubernetes-selectable-fields".into(), fields);
    }
    write(&root)
}

/// `metadata` as a reference to ObjectMeta.
fn metadata_reference() -> Value {
    json!({"description": OBJECT_META_DESCRIPTION, "$ref": format!("#/definitions/{OBJECT_META}")})
}

fn is_true(schema: &Map<String, Value>, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

/// The schema's `properties`, created when missing.
fn properties_of(schema: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let entry = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    match entry {
        Value::Object(map) => map,
        _ => unreachable!("just made an object"),
    }
}

/// The v2 conversion and default pruning, each node before its children (the structural
/// visitor's order, apiserver/schema/visitor.go:42-60).
fn to_v2(schema: &mut Map<String, Value>) {
    for key in ["default", "allOf", "oneOf", "anyOf", "not"] {
        schema.remove(key);
    }
    if is_true(schema, "nullable") {
        for key in ["type", "items", "properties"] {
            schema.remove(key);
        }
    }
    schema.remove("nullable");
    let preserve = is_true(schema, "x-kubernetes-preserve-unknown-fields");
    if preserve {
        schema.remove("items");
        schema.remove("properties");
    }
    let type_is = |schema: &Map<String, Value>, t: &str| schema.get("type") == Some(&json!(t));
    if !schema.contains_key("items") && type_is(schema, "array") {
        schema.remove("type");
    }
    if preserve && type_is(schema, "object") {
        schema.remove("type");
    }
    let nullable_children: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter(|(_, p)| p.get("nullable") == Some(&json!(true)))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    let nullable_values = schema
        .get("additionalProperties")
        .is_some_and(|a| a.get("nullable") == Some(&json!(true)));
    if nullable_values {
        schema.remove("required");
    } else if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| {
            !r.as_str()
                .is_some_and(|r| nullable_children.iter().any(|n| n == r))
        });
        if required.is_empty() {
            schema.remove("required");
        }
    }
    for_children(schema, to_v2);
}

/// Calls `f` on `items`, every property and `additionalProperties` that is a schema.
fn for_children(schema: &mut Map<String, Value>, f: fn(&mut Map<String, Value>)) {
    if let Some(Value::Object(items)) = schema.get_mut("items") {
        f(items);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                f(property);
            }
        }
    }
    if let Some(Value::Object(values)) = schema.get_mut("additionalProperties") {
        f(values);
    }
}

/// `apiVersion`, `kind` and `metadata` declared in every embedded resource that does not
/// preserve unknown fields (builder.go:425-464), children first.
fn add_embedded_properties(schema: &mut Map<String, Value>) {
    for_children(schema, add_embedded_properties);
    if is_true(schema, "x-kubernetes-preserve-unknown-fields")
        || !is_true(schema, "x-kubernetes-embedded-resource")
    {
        return;
    }
    let properties = properties_of(schema);
    properties.insert(
        "apiVersion".into(),
        json!({"description": EMBEDDED_API_VERSION, "type": "string"}),
    );
    properties.insert(
        "kind".into(),
        json!({"description": EMBEDDED_KIND, "type": "string"}),
    );
    properties.insert("metadata".into(), metadata_reference());
    let required = schema
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(required) = required {
        for field in ["kind", "apiVersion"] {
            if !required.iter().any(|r| r == field) {
                required.push(json!(field));
            }
        }
    }
}

/// The members of a `spec.Schema`, in kube-openapi's order.
const SCHEMA_ORDER: &[&str] = &[
    "description",
    "type",
    "format",
    "title",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "externalDocs",
    "example",
    "$ref",
];

/// A schema node in kube-openapi's member order; booleans that are false left out (Go's
/// `omitzero`), extensions sorted at the end, members a structural schema cannot have dropped.
fn write(schema: &Map<String, Value>) -> Node {
    let mut members: Vec<(String, Node)> = Vec::new();
    for key in SCHEMA_ORDER {
        let Some(value) = schema.get(*key) else {
            continue;
        };
        let node = match (*key, value) {
            (_, Value::Bool(false)) => continue,
            ("items", Value::Object(items)) => write(items),
            ("additionalProperties", Value::Object(values)) => write(values),
            ("properties", Value::Object(properties)) => Node::Object(
                properties
                    .iter()
                    .filter_map(|(k, v)| v.as_object().map(|v| (k.clone(), write(v))))
                    .collect(),
            ),
            ("externalDocs", Value::Object(docs)) => Node::Object(
                ["description", "url"]
                    .iter()
                    .filter_map(|k| docs.get(*k).map(|v| ((*k).to_owned(), Node::from_value(v))))
                    .collect(),
            ),
            _ => Node::from_value(value),
        };
        members.push(((*key).to_owned(), node));
    }
    for (key, value) in schema.iter().filter(|(k, _)| k.starts_with("x-")) {
        let node = match (key.as_str(), value) {
            (_, Value::Bool(false)) => continue,
            ("x-kubernetes-validations", Value::Array(rules)) => {
                Node::Array(rules.iter().map(validation_rule).collect())
            }
            _ => Node::from_value(value),
        };
        members.push((key.clone(), node));
    }
    Node::Object(members)
}

/// A `x-kubernetes-validations` rule in the Go struct's member order
/// (apiextensions v1 `ValidationRule`).
fn validation_rule(rule: &Value) -> Node {
    let order = [
        "rule",
        "message",
        "messageExpression",
        "reason",
        "fieldPath",
        "optionalOldSelf",
    ];
    Node::Object(
        order
            .iter()
            .filter_map(|k| rule.get(*k).map(|v| ((*k).to_owned(), Node::from_value(v))))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(schema: Value) -> String {
        let mut schema = schema.as_object().unwrap().clone();
        to_v2(&mut schema);
        add_embedded_properties(&mut schema);
        write(&schema).to_json()
    }

    #[test]
    fn the_v2_conversion_drops_what_v2_cannot_say() {
        let schema = json!({
            "type": "object",
            "required": ["a", "b"],
            "properties": {
                "a": {"type": "string", "nullable": true, "default": "x"},
                "b": {"type": "integer", "anyOf": [{"minimum": 1}], "minimum": 0},
                "c": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"d": {"type": "string"}}},
                "e": {"type": "array", "x-kubernetes-preserve-unknown-fields": true, "items": {"type": "string"}},
                "f": {"x-kubernetes-int-or-string": true, "x-kubernetes-embedded-resource": false}
            }
        });
        assert_eq!(
            converted(schema),
            r#"{"type":"object","required":["b"],"properties":{"a":{},"b":{"type":"integer","minimum":0},"c":{"x-kubernetes-preserve-unknown-fields":true},"e":{"x-kubernetes-preserve-unknown-fields":true},"f":{"x-kubernetes-int-or-string":true}}}"#
        );
    }

    #[test]
    fn an_embedded_resource_declares_its_type_and_object_meta() {
        let schema = json!({"type": "object", "properties": {"template": {"type": "object", "x-kubernetes-embedded-resource": true, "required": ["spec"]}}});
        let text = converted(schema);
        assert!(
            text.contains(r#""required":["spec","kind","apiVersion"]"#),
            "{text}"
        );
        assert!(text.contains(r##""metadata":{"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}"##), "{text}");
    }
}
