//! One node of a CRD version's structural schema, compiled once when the CRD is registered:
//! the value validations kube-openapi's `SchemaValidator` reads (`type`, `format`, bounds,
//! lengths, `pattern` as a compiled regular expression, `enum`, `required`, item and property
//! counts), the Kubernetes extensions (`nullable`, `x-kubernetes-int-or-string`,
//! `x-kubernetes-embedded-resource`, `x-kubernetes-preserve-unknown-fields`,
//! `x-kubernetes-list-type` and its map keys) and its children (`properties`,
//! `additionalProperties`, `items`). Formats kube-apiserver strips
//! (apiextensions-apiserver `pkg/apiserver/validation/formats.go` v0.37.2:
//! `StripUnsupportedFormatsPostProcessorForVersion`) are dropped here the same way.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

use super::formats::Format;

/// What `x-kubernetes-list-type` says of an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    /// No type, or `atomic`.
    Atomic,
    /// `set`: every item unique.
    Set,
    /// `map`, keyed by `x-kubernetes-list-map-keys`.
    Map(Vec<String>),
}

/// `additionalProperties`: absent, a boolean or a schema.
#[derive(Debug)]
pub enum Additional {
    /// Not declared.
    Absent,
    /// `false`: only the declared properties are allowed.
    Forbidden,
    /// `true`, or a schema every other property's value follows.
    Allowed(Option<Box<Node>>),
}

/// A compiled schema node.
#[derive(Debug)]
pub struct Node {
    /// `type` (empty: any), or `["integer", "string"]` for `x-kubernetes-int-or-string`.
    pub types: Vec<&'static str>,
    /// `nullable`.
    pub nullable: bool,
    /// `default`.
    pub default: Option<Value>,
    /// `format`, when kube-apiserver keeps and knows it.
    pub format: Option<Format>,
    /// The format's name as written (the error names it).
    pub format_name: String,
    /// `maximum` and `exclusiveMaximum`.
    pub maximum: Option<(f64, bool)>,
    /// `minimum` and `exclusiveMinimum`.
    pub minimum: Option<(f64, bool)>,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `maxLength`.
    pub max_length: Option<i64>,
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `pattern`, as written and compiled (None when it does not compile).
    pub pattern: Option<(String, Option<Regex>)>,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// `minItems`.
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `required`.
    pub required: Vec<String>,
    /// `enum`.
    pub enumeration: Vec<Value>,
    /// `properties`.
    pub properties: BTreeMap<String, Node>,
    /// `additionalProperties`.
    pub additional: Additional,
    /// `items`.
    pub items: Option<Box<Node>>,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-list-type` (with its map keys).
    pub list_type: ListType,
    /// The node's `x-kubernetes-validations` rules, compiled.
    pub rules: Vec<super::cel::Rule>,
    /// Whether this node or any below it has rules.
    has_rules: bool,
}

impl Node {
    /// Compiles `schema` (one `openAPIV3Schema` or a node of it).
    pub fn compile(schema: &Value) -> Node {
        let int = |key: &str| schema.get(key).and_then(Value::as_i64);
        let float = |key: &str| schema.get(key).and_then(Value::as_f64);
        let flag = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
        let text = |key: &str| schema.get(key).and_then(Value::as_str).unwrap_or_default();
        let int_or_string = flag("x-kubernetes-int-or-string");
        let types = if int_or_string {
            vec!["integer", "string"]
        } else {
            type_name(text("type")).into_iter().collect()
        };
        let format_name = kept_format(&types, text("format"));
        let mut node = Node {
            format: Format::named(&format_name),
            format_name,
            nullable: flag("nullable"),
            default: schema.get("default").cloned(),
            maximum: float("maximum").map(|m| (m, flag("exclusiveMaximum"))),
            minimum: float("minimum").map(|m| (m, flag("exclusiveMinimum"))),
            multiple_of: float("multipleOf"),
            max_length: int("maxLength"),
            min_length: int("minLength"),
            pattern: schema
                .get("pattern")
                .and_then(Value::as_str)
                .map(|p| (p.to_owned(), Regex::new(p).ok())),
            max_items: int("maxItems"),
            min_items: int("minItems"),
            unique_items: flag("uniqueItems"),
            max_properties: int("maxProperties"),
            min_properties: int("minProperties"),
            required: strings(schema.get("required")),
            enumeration: schema
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            properties: schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| (k.clone(), Node::compile(v)))
                        .collect()
                })
                .unwrap_or_default(),
            additional: match schema.get("additionalProperties") {
                None | Some(Value::Null) => Additional::Absent,
                Some(Value::Bool(false)) => Additional::Forbidden,
                Some(Value::Bool(true)) => Additional::Allowed(None),
                Some(other) => Additional::Allowed(Some(Box::new(Node::compile(other)))),
            },
            items: schema
                .get("items")
                .filter(|i| i.is_object())
                .map(|i| Box::new(Node::compile(i))),
            embedded_resource: flag("x-kubernetes-embedded-resource"),
            list_type: list_type(schema),
            rules: super::cel::Rule::compile_all(schema),
            has_rules: false,
            types,
        };
        node.has_rules = !node.rules.is_empty()
            || node.properties.values().any(Node::has_rules)
            || node.items.as_ref().is_some_and(|i| i.has_rules())
            || matches!(&node.additional, Additional::Allowed(Some(s)) if s.has_rules());
        node
    }

    /// Whether this node or any below it has CEL rules.
    pub fn has_rules(&self) -> bool {
        self.has_rules
    }

    /// Removes the members of `value` (and below) that are null where their schema is neither
    /// nullable nor defaulted.
    pub fn drop_nulls(&self, value: &mut Value) {
        match value {
            Value::Object(members) => {
                members.retain(|key, member| {
                    !(member.is_null()
                        && self
                            .child(key)
                            .is_some_and(|s| !s.nullable && s.default.is_none()))
                });
                for (key, member) in members.iter_mut() {
                    if let Some(schema) = self.child(key) {
                        schema.drop_nulls(member);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(schema) = &self.items {
                    items.iter_mut().for_each(|item| schema.drop_nulls(item));
                }
            }
            _ => {}
        }
    }

    /// Sets each absent (or null, where not nullable) property of `value` and below that has a
    /// `default` to it, as kube-apiserver's structural defaulting does
    /// (apiextensions-apiserver `pkg/apiserver/schema/defaulting/algorithm.go`).
    pub fn apply_defaults(&self, value: &mut Value) {
        match value {
            Value::Object(members) => {
                for (key, schema) in &self.properties {
                    let Some(default) = &schema.default else {
                        continue;
                    };
                    match members.get(key) {
                        None => {
                            members.insert(key.clone(), default.clone());
                        }
                        Some(Value::Null) if !schema.nullable => {
                            members.insert(key.clone(), default.clone());
                        }
                        Some(_) => {}
                    }
                }
                for (key, member) in members.iter_mut() {
                    if let Some(schema) = self.child(key) {
                        schema.apply_defaults(member);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(schema) = &self.items {
                    items
                        .iter_mut()
                        .for_each(|item| schema.apply_defaults(item));
                }
            }
            _ => {}
        }
    }

    /// The schema of property `key`'s value: a declared property's, else `additionalProperties`'.
    pub fn child(&self, key: &str) -> Option<&Node> {
        self.properties.get(key).or(match &self.additional {
            Additional::Allowed(Some(schema)) => Some(schema),
            _ => None,
        })
    }
}

/// The schema's `type` as one of kube-openapi's names.
fn type_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "object" => "object",
        "array" => "array",
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        _ => return None,
    })
}

/// The `format` kube-apiserver keeps for a node of `types` (strings: the formats it supports at
/// 1.37; integers `int32`/`int64`; numbers `float`/`double`; none on other types).
fn kept_format(types: &[&str], format: &str) -> String {
    let keep = match types {
        [] | ["string"] => Format::named(format).is_some(),
        ["integer"] => matches!(format, "int32" | "int64"),
        ["number"] => matches!(format, "float" | "double"),
        _ => false,
    };
    if keep {
        format.to_owned()
    } else {
        String::new()
    }
}

fn list_type(schema: &Value) -> ListType {
    match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => ListType::Set,
        Some("map") => ListType::Map(strings(schema.get("x-kubernetes-list-map-keys"))),
        _ => ListType::Atomic,
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}
