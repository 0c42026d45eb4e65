//! The protobuf form of `/openapi/v2`: the document as gnostic's `openapi_v2.Document`
//! (github.com/google/gnostic-models v0.7.0, openapiv2/OpenAPIv2.proto), which kube-openapi
//! makes by parsing the JSON and marshalling the message (k8s.io/kube-openapi/pkg/handler/
//! handler.go:111-117). protobuf-go writes fields in field-number order, and gnostic keeps a
//! JSON object's members in document order (its `Named*` lists, `vendor_extension`), so the
//! encoding here walks the order-keeping [`Node`] and writes each message's fields by number.
//! A vendor extension's value is gnostic's `Any` holding the value as YAML
//! (compiler/extensions.go:55, `yaml.Marshal`).

use prost::encoding::{WireType, encode_key, encode_varint};

use super::ordered::Node;

/// The protobuf encoding of a JSON OpenAPI v2 document (None when it is no JSON).
pub fn encode_json(json: &[u8]) -> Option<Vec<u8>> {
    let document: Node = serde_json::from_slice(json).ok()?;
    Some(document_message(&document))
}

/// What a JSON member becomes in a message.
#[derive(Clone, Copy)]
enum Kind {
    Str,
    Bool,
    Int,
    Double,
    Strs,
    /// A message made from the member's value.
    Msg(fn(&Node) -> Vec<u8>),
    /// A repeated message, one per array element.
    Msgs(fn(&Node) -> Vec<u8>),
    /// gnostic's `Any` (the value as YAML).
    Any,
    /// A repeated `Any`, one per array element.
    Anys,
}

/// One field: the JSON key, the field number, the kind.
type Field = (&'static str, u32, Kind);

/// A message of `fields`, `x-` members as `NamedAny`s at `vendor` (when it has them).
fn message(node: &Node, fields: &[Field], vendor: Option<u32>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut numbered: Vec<&Field> = fields.iter().collect();
    numbered.sort_by_key(|(_, number, _)| *number);
    for (key, number, kind) in numbered {
        if let Some(value) = node.get(key) {
            field(&mut out, *number, *kind, value);
        }
    }
    if let (Some(number), Node::Object(members)) = (vendor, node) {
        for (key, value) in members.iter().filter(|(k, _)| k.starts_with("x-")) {
            bytes_field(&mut out, number, &named_any(key, value));
        }
    }
    out
}

/// Writes one member as field `number`.
fn field(out: &mut Vec<u8>, number: u32, kind: Kind, value: &Node) {
    match (kind, value) {
        (Kind::Str, Node::String(text)) if !text.is_empty() => {
            bytes_field(out, number, text.as_bytes());
        }
        (Kind::Bool, Node::Bool(true)) => {
            encode_key(number, WireType::Varint, out);
            encode_varint(1, out);
        }
        (Kind::Int, Node::Number(n)) => {
            let n = n.as_i64().unwrap_or(0);
            if n != 0 {
                encode_key(number, WireType::Varint, out);
                encode_varint(n.cast_unsigned(), out);
            }
        }
        (Kind::Double, Node::Number(n)) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f != 0.0 {
                encode_key(number, WireType::SixtyFourBit, out);
                out.extend_from_slice(&f.to_le_bytes());
            }
        }
        (Kind::Strs, Node::Array(items)) => {
            for text in items.iter().filter_map(Node::as_str) {
                bytes_field(out, number, text.as_bytes());
            }
        }
        (Kind::Msg(f), _) => bytes_field(out, number, &f(value)),
        (Kind::Msgs(f), Node::Array(items)) => {
            for item in items {
                bytes_field(out, number, &f(item));
            }
        }
        (Kind::Any, _) => bytes_field(out, number, &any(value)),
        (Kind::Anys, Node::Array(items)) => {
            for item in items {
                bytes_field(out, number, &any(item));
            }
        }
        _ => {}
    }
}

/// A length-delimited field.
fn bytes_field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// A wrapper of `Named*` entries (field 1 each: name 1, value 2), one per member.
fn named(node: &Node, value: fn(&Node) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Node::Object(members) = node {
        for (key, member) in members {
            bytes_field(&mut out, 1, &named_entry(key, &value(member)));
        }
    }
    out
}

/// `{name: 1, value: 2}`.
fn named_entry(name: &str, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if !name.is_empty() {
        bytes_field(&mut out, 1, name.as_bytes());
    }
    bytes_field(&mut out, 2, value);
    out
}

/// `NamedAny`.
fn named_any(name: &str, value: &Node) -> Vec<u8> {
    named_entry(name, &any(value))
}

/// `Any{yaml: 2}`.
fn any(value: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(&mut out, 2, super::yaml::to_yaml(value).as_bytes());
    out
}

fn document_message(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("swagger", 1, Kind::Str),
            ("info", 2, Kind::Msg(info)),
            ("host", 3, Kind::Str),
            ("basePath", 4, Kind::Str),
            ("schemes", 5, Kind::Strs),
            ("consumes", 6, Kind::Strs),
            ("produces", 7, Kind::Strs),
            ("paths", 8, Kind::Msg(paths)),
            ("definitions", 9, Kind::Msg(|n| named(n, schema))),
            ("parameters", 10, Kind::Msg(|n| named(n, parameter))),
            ("security", 12, Kind::Msgs(security_requirement)),
            (
                "securityDefinitions",
                13,
                Kind::Msg(|n| named(n, security_definition)),
            ),
        ],
        Some(16),
    )
}

fn info(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("title", 1, Kind::Str),
            ("version", 2, Kind::Str),
            ("description", 3, Kind::Str),
            ("termsOfService", 4, Kind::Str),
        ],
        Some(7),
    )
}

/// `Paths{vendor_extension: 1, path: 2}`.
fn paths(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    let Node::Object(members) = node else {
        return out;
    };
    for (key, value) in members.iter().filter(|(k, _)| k.starts_with("x-")) {
        bytes_field(&mut out, 1, &named_any(key, value));
    }
    for (key, value) in members.iter().filter(|(k, _)| k.starts_with('/')) {
        bytes_field(&mut out, 2, &named_entry(key, &path_item(value)));
    }
    out
}

fn path_item(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("$ref", 1, Kind::Str),
            ("get", 2, Kind::Msg(operation)),
            ("put", 3, Kind::Msg(operation)),
            ("post", 4, Kind::Msg(operation)),
            ("delete", 5, Kind::Msg(operation)),
            ("options", 6, Kind::Msg(operation)),
            ("head", 7, Kind::Msg(operation)),
            ("patch", 8, Kind::Msg(operation)),
            ("parameters", 9, Kind::Msgs(parameters_item)),
        ],
        Some(10),
    )
}

fn operation(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("tags", 1, Kind::Strs),
            ("summary", 2, Kind::Str),
            ("description", 3, Kind::Str),
            ("externalDocs", 4, Kind::Msg(external_docs)),
            ("operationId", 5, Kind::Str),
            ("produces", 6, Kind::Strs),
            ("consumes", 7, Kind::Strs),
            ("parameters", 8, Kind::Msgs(parameters_item)),
            ("responses", 9, Kind::Msg(responses)),
            ("schemes", 10, Kind::Strs),
            ("deprecated", 11, Kind::Bool),
            ("security", 12, Kind::Msgs(security_requirement)),
        ],
        Some(13),
    )
}

/// `ParametersItem`: a `JsonReference` (2) for a `$ref`, else a `Parameter` (1).
fn parameters_item(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    if node.get("$ref").is_some() {
        let reference = message(
            node,
            &[("$ref", 1, Kind::Str), ("description", 2, Kind::Str)],
            None,
        );
        bytes_field(&mut out, 2, &reference);
    } else {
        bytes_field(&mut out, 1, &parameter(node));
    }
    out
}

/// `Parameter`: a body parameter (1) or a non-body one (2) by `in`.
fn parameter(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    match node.get("in").and_then(Node::as_str) {
        Some("body") => {
            let body = message(
                node,
                &[
                    ("description", 1, Kind::Str),
                    ("name", 2, Kind::Str),
                    ("in", 3, Kind::Str),
                    ("required", 4, Kind::Bool),
                    ("schema", 5, Kind::Msg(schema)),
                ],
                Some(6),
            );
            bytes_field(&mut out, 1, &body);
        }
        location => {
            let (number, sub) = match location {
                Some("header") => (1, non_body(node, false)),
                Some("formData") => (2, non_body(node, true)),
                Some("path") => (4, non_body(node, false)),
                _ => (3, non_body(node, true)),
            };
            let mut wrapper = Vec::new();
            bytes_field(&mut wrapper, number, &sub);
            bytes_field(&mut out, 2, &wrapper);
        }
    }
    out
}

/// A query, form data, path or header parameter sub-schema: `required`, `in`,
/// `description`, `name`, then (`allowEmptyValue` for query and form data) the primitive's
/// fields and the vendor extensions.
fn non_body(node: &Node, allow_empty: bool) -> Vec<u8> {
    let mut fields: Vec<Field> = vec![
        ("required", 1, Kind::Bool),
        ("in", 2, Kind::Str),
        ("description", 3, Kind::Str),
        ("name", 4, Kind::Str),
    ];
    let mut next = 5;
    if allow_empty {
        fields.push(("allowEmptyValue", 5, Kind::Bool));
        next = 6;
    }
    for (key, kind) in PRIMITIVE {
        fields.push((key, next, *kind));
        next += 1;
    }
    message(node, &fields, Some(next))
}

/// The primitive fields every non-body parameter, header and `PrimitivesItems` shares, in
/// their relative order.
const PRIMITIVE: &[(&str, Kind)] = &[
    ("type", Kind::Str),
    ("format", Kind::Str),
    ("items", Kind::Msg(primitives_items)),
    ("collectionFormat", Kind::Str),
    ("default", Kind::Any),
    ("maximum", Kind::Double),
    ("exclusiveMaximum", Kind::Bool),
    ("minimum", Kind::Double),
    ("exclusiveMinimum", Kind::Bool),
    ("maxLength", Kind::Int),
    ("minLength", Kind::Int),
    ("pattern", Kind::Str),
    ("maxItems", Kind::Int),
    ("minItems", Kind::Int),
    ("uniqueItems", Kind::Bool),
    ("enum", Kind::Anys),
    ("multipleOf", Kind::Double),
];

fn primitives_items(node: &Node) -> Vec<u8> {
    let fields: Vec<Field> = PRIMITIVE
        .iter()
        .zip(1..)
        .map(|((key, kind), number)| (*key, number, *kind))
        .collect();
    message(node, &fields, Some(18))
}

/// `Responses{response_code: 1, vendor_extension: 2}`.
fn responses(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    let Node::Object(members) = node else {
        return out;
    };
    for (code, value) in members.iter().filter(|(k, _)| !k.starts_with("x-")) {
        let mut response_value = Vec::new();
        if value.get("$ref").is_some() {
            let reference = message(value, &[("$ref", 1, Kind::Str)], None);
            bytes_field(&mut response_value, 2, &reference);
        } else {
            bytes_field(&mut response_value, 1, &response(value));
        }
        bytes_field(&mut out, 1, &named_entry(code, &response_value));
    }
    for (key, value) in members.iter().filter(|(k, _)| k.starts_with("x-")) {
        bytes_field(&mut out, 2, &named_any(key, value));
    }
    out
}

fn response(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("description", 1, Kind::Str),
            ("schema", 2, Kind::Msg(schema_item)),
        ],
        Some(5),
    )
}

/// `SchemaItem{schema: 1}`.
fn schema_item(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(&mut out, 1, &schema(node));
    out
}

fn schema(node: &Node) -> Vec<u8> {
    message(
        node,
        &[
            ("$ref", 1, Kind::Str),
            ("format", 2, Kind::Str),
            ("title", 3, Kind::Str),
            ("description", 4, Kind::Str),
            ("default", 5, Kind::Any),
            ("multipleOf", 6, Kind::Double),
            ("maximum", 7, Kind::Double),
            ("exclusiveMaximum", 8, Kind::Bool),
            ("minimum", 9, Kind::Double),
            ("exclusiveMinimum", 10, Kind::Bool),
            ("maxLength", 11, Kind::Int),
            ("minLength", 12, Kind::Int),
            ("pattern", 13, Kind::Str),
            ("maxItems", 14, Kind::Int),
            ("minItems", 15, Kind::Int),
            ("uniqueItems", 16, Kind::Bool),
            ("maxProperties", 17, Kind::Int),
            ("minProperties", 18, Kind::Int),
            ("required", 19, Kind::Strs),
            ("enum", 20, Kind::Anys),
            ("additionalProperties", 21, Kind::Msg(additional_properties)),
            ("type", 22, Kind::Msg(type_item)),
            ("items", 23, Kind::Msg(items_item)),
            ("allOf", 24, Kind::Msgs(schema)),
            ("properties", 25, Kind::Msg(|n| named(n, schema))),
            ("discriminator", 26, Kind::Str),
            ("readOnly", 27, Kind::Bool),
            ("externalDocs", 29, Kind::Msg(external_docs)),
            ("example", 30, Kind::Any),
        ],
        Some(31),
    )
}

/// `AdditionalPropertiesItem`: a schema (1) or a boolean (2).
fn additional_properties(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    match node {
        Node::Bool(b) => {
            encode_key(2, WireType::Varint, &mut out);
            encode_varint(u64::from(*b), &mut out);
        }
        _ => bytes_field(&mut out, 1, &schema(node)),
    }
    out
}

/// `TypeItem{value: 1}`: one type or several.
fn type_item(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    match node {
        Node::String(text) => bytes_field(&mut out, 1, text.as_bytes()),
        _ => field(&mut out, 1, Kind::Strs, node),
    }
    out
}

/// `ItemsItem{schema: 1}`: one schema or several.
fn items_item(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    match node {
        Node::Array(items) => items
            .iter()
            .for_each(|item| bytes_field(&mut out, 1, &schema(item))),
        _ => bytes_field(&mut out, 1, &schema(node)),
    }
    out
}

fn external_docs(node: &Node) -> Vec<u8> {
    message(
        node,
        &[("description", 1, Kind::Str), ("url", 2, Kind::Str)],
        Some(3),
    )
}

/// `SecurityRequirement{additional_properties: NamedStringArray}`.
fn security_requirement(node: &Node) -> Vec<u8> {
    named(node, |scopes| {
        let mut out = Vec::new();
        field(&mut out, 1, Kind::Strs, scopes);
        out
    })
}

/// `SecurityDefinitionsItem`: kube-apiserver declares an API key (`api_key_security`: 2)
/// or basic authentication (1).
fn security_definition(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    if node.get("type").and_then(Node::as_str) == Some("basic") {
        let basic = message(
            node,
            &[("type", 1, Kind::Str), ("description", 2, Kind::Str)],
            Some(3),
        );
        bytes_field(&mut out, 1, &basic);
    } else {
        let key = message(
            node,
            &[
                ("type", 1, Kind::Str),
                ("name", 2, Kind::Str),
                ("in", 3, Kind::Str),
                ("description", 4, Kind::Str),
            ],
            Some(5),
        );
        bytes_field(&mut out, 2, &key);
    }
    out
}
