//! Server-side apply's list and map types for a custom resource, read from its CRD's
//! structural schema as kube-apiserver's field manager reads them: `x-kubernetes-list-type`
//! (`atomic`, `set`, `map` with `x-kubernetes-list-map-keys`) and `x-kubernetes-map-type`
//! (`atomic` or `granular`). A list the schema leaves untyped is atomic and a map granular
//! (structural schemas' defaults); a path the schema does not describe (inside
//! `x-kubernetes-preserve-unknown-fields`) is treated the same way.

use serde_json::Value;

use super::list_types::ListType;

/// The list type of the list at `path` (field names from the object's root, list elements not
/// counted) in `schema` (the version's `openAPIV3Schema`).
pub fn list_type<'s>(schema: &'s Value, path: &[&str]) -> ListType<'s> {
    let Some(node) = node_at(schema, path) else {
        return ListType::Atomic;
    };
    match extension(node, "x-kubernetes-list-type") {
        Some("set") => ListType::Set,
        Some("map") => {
            let keys: Vec<&str> = node
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            match keys.is_empty() {
                true => ListType::Atomic,
                false => ListType::Map(keys),
            }
        }
        _ => ListType::Atomic,
    }
}

/// Whether the map at `path` is `x-kubernetes-map-type: atomic` in `schema`.
pub fn is_atomic_map(schema: &Value, path: &[&str]) -> bool {
    node_at(schema, path)
        .is_some_and(|node| extension(node, "x-kubernetes-map-type") == Some("atomic"))
}

/// The schema of the value at `path`: each name a property (or the `additionalProperties`
/// schema) of the object before it, through the `items` of any list on the way.
fn node_at<'s>(schema: &'s Value, path: &[&str]) -> Option<&'s Value> {
    let mut node = schema;
    for name in path {
        node = element_schema(node);
        node = node
            .get("properties")
            .and_then(|p| p.get(*name))
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))?;
    }
    Some(node)
}

/// The schema of a list's elements (of the innermost list, for lists of lists); `node` itself
/// when it is not a list.
fn element_schema(mut node: &Value) -> &Value {
    while extension(node, "type") == Some("array") {
        match node.get("items") {
            Some(items) => node = items,
            None => break,
        }
    }
    node
}

fn extension<'s>(node: &'s Value, name: &str) -> Option<&'s str> {
    node.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A schema shaped like a typical operator's CRD (kubebuilder markers `+listType=map`,
    /// `+listMapKey=type` on `status.conditions`, `+listType=set` on a string list,
    /// `+mapType=atomic` on a selector).
    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "ports": {"type": "array", "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["port", "protocol"],
                        "items": {"type": "object", "properties": {
                            "port": {"type": "integer"}, "protocol": {"type": "string"},
                            "hosts": {"type": "array", "x-kubernetes-list-type": "set",
                                "items": {"type": "string"}}}}},
                    "tags": {"type": "array", "x-kubernetes-list-type": "set",
                        "items": {"type": "string"}},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                        "additionalProperties": {"type": "string"}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "byZone": {"type": "object", "additionalProperties": {"type": "array",
                        "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
                "status": {"type": "object", "properties": {
                    "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["type"],
                        "items": {"type": "object"}}}}
            }
        })
    }

    #[test]
    fn lists_follow_the_schema_s_list_type_and_keys() {
        let s = schema();
        assert_eq!(
            list_type(&s, &["status", "conditions"]),
            ListType::Map(vec!["type"])
        );
        assert_eq!(
            list_type(&s, &["spec", "ports"]),
            ListType::Map(vec!["port", "protocol"])
        );
        assert_eq!(list_type(&s, &["spec", "tags"]), ListType::Set);
        // Inside a list's elements, and under additionalProperties.
        assert_eq!(list_type(&s, &["spec", "ports", "hosts"]), ListType::Set);
        assert_eq!(list_type(&s, &["spec", "byZone", "a"]), ListType::Set);
    }

    #[test]
    fn untyped_and_undescribed_lists_are_atomic() {
        let s = schema();
        assert_eq!(list_type(&s, &["spec", "args"]), ListType::Atomic);
        assert_eq!(list_type(&s, &["spec", "free", "list"]), ListType::Atomic);
        assert_eq!(list_type(&s, &["spec", "missing"]), ListType::Atomic);
    }

    #[test]
    fn only_maps_marked_atomic_are_atomic() {
        let s = schema();
        assert!(is_atomic_map(&s, &["spec", "selector"]));
        assert!(!is_atomic_map(&s, &["spec", "labels"]));
        assert!(!is_atomic_map(&s, &["spec"]));
        assert!(!is_atomic_map(&s, &["spec", "free", "x"]));
    }
}
