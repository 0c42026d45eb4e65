//! The invariants of `x-kubernetes-list-type: set` and `map` (apiextensions-apiserver
//! `pkg/apiserver/schema/listtype/validation.go` v0.37.2): a set's items and a map list's keys
//! are unique. Each repeated item or key is a `Duplicate value` at its second occurrence
//! (`spec.tags[2]: Duplicate value: "a"`; a map list's key as an object,
//! `{"name":"a"}`); an item of a map list that is no object is `must be an object for an
//! array of list-type map`.

use serde_json::{Map, Value};

use super::field_error::{BadValue, ErrorType, FieldError};
use super::node::{ListType, Node};
use super::openapi::child_path;

/// Walks `value` at `path` under `node` and reports every broken set or map-list invariant.
pub fn validate(node: &Node, path: &str, value: &Value, errors: &mut Vec<FieldError>) {
    match value {
        Value::Array(items) => validate_array(node, path, items, errors),
        Value::Object(members) => validate_object(node, path, members, errors),
        _ => {}
    }
}

fn validate_object(
    node: &Node,
    path: &str,
    members: &Map<String, Value>,
    errors: &mut Vec<FieldError>,
) {
    for (key, value) in members {
        let Some(schema) = node.child(key) else {
            continue;
        };
        validate(schema, &child_path(path, key), value, errors);
    }
}

fn validate_array(node: &Node, path: &str, items: &[Value], errors: &mut Vec<FieldError>) {
    match &node.list_type {
        ListType::Set => duplicates(path, items, |item| item.clone(), errors),
        ListType::Map(keys) => validate_map_list(path, keys, items, errors),
        ListType::Atomic => {}
    }
    if let Some(item_schema) = &node.items {
        for (i, item) in items.iter().enumerate() {
            validate(item_schema, &format!("{path}[{i}]"), item, errors);
        }
    }
}

fn validate_map_list(path: &str, keys: &[String], items: &[Value], errors: &mut Vec<FieldError>) {
    if let Some((i, item)) = items
        .iter()
        .enumerate()
        .find(|(_, item)| !item.is_object() && !item.is_null())
    {
        errors.push(FieldError::invalid(
            format!("{path}[{i}]"),
            BadValue::Json(item.clone()),
            "must be an object for an array of list-type map".into(),
        ));
        return;
    }
    let key_of = |item: &Value| -> Value {
        let mut key = Map::new();
        for name in keys {
            if let Some(v) = item.get(name) {
                key.insert(name.clone(), v.clone());
            }
        }
        Value::Object(key)
    };
    duplicates(path, items, key_of, errors);
}

/// A `Duplicate value` for each item whose key (`key_of`) was seen exactly once before.
fn duplicates(
    path: &str,
    items: &[Value],
    key_of: impl Fn(&Value) -> Value,
    errors: &mut Vec<FieldError>,
) {
    if items.len() <= 1 {
        return;
    }
    let keys: Vec<Value> = items.iter().map(key_of).collect();
    for (i, key) in keys.iter().enumerate() {
        let before = keys[..i].iter().filter(|k| same(k, key)).count();
        if before == 1 {
            errors.push(FieldError::new(
                format!("{path}[{i}]"),
                ErrorType::Duplicate,
                BadValue::Json(key.clone()),
                String::new(),
            ));
        }
    }
}

/// Go compares scalars as decoded (an int64 and a float64 differ) and compounds by their JSON.
fn same(a: &Value, b: &Value) -> bool {
    a == b
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn errors_of(schema: Value, value: Value) -> Vec<String> {
        let node = Node::compile(&schema);
        let mut errors = Vec::new();
        validate(&node, "", &value, &mut errors);
        errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.body()))
            .collect()
    }

    #[test]
    fn a_set_reports_each_repeated_item_once() {
        let schema = json!({"type": "object", "properties": {"tags": {"type": "array",
            "x-kubernetes-list-type": "set", "items": {"type": "string"}}}});
        assert_eq!(
            errors_of(schema, json!({"tags": ["a", "b", "a", "a", "b"]})),
            [
                r#"tags[2]: Duplicate value: "a""#,
                r#"tags[4]: Duplicate value: "b""#
            ]
        );
    }

    #[test]
    fn a_map_list_reports_its_repeated_keys_as_objects() {
        let schema = json!({"type": "object", "properties": {"ports": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object"}}}});
        assert_eq!(
            errors_of(
                schema,
                json!({"ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]})
            ),
            [r#"ports[1]: Duplicate value: {"name":"a"}"#]
        );
    }
}
