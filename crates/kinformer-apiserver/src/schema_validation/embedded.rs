//! `x-kubernetes-embedded-resource` objects checked as kube-apiserver checks them
//! (apiextensions-apiserver `pkg/apiserver/schema/objectmeta/validation.go` v0.37.2,
//! `validateEmbeddedResource`): `apiVersion` and `kind` are required, strings, not empty, and
//! `apiVersion` a group version; the embedded `metadata.name` may not be `.` or `..` nor
//! contain `/` or `%`. The rest of the embedded ObjectMeta's validation (labels, annotations,
//! the kind's DNS-1035 shape) is not done here.

use serde_json::{Map, Value};

use super::field_error::{BadValue, FieldError};
use super::node::Node;
use super::openapi::child_path;

/// Walks `value` at `path` under `node`, checking every embedded resource.
pub fn validate(node: &Node, path: &str, value: &Value, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(members) => {
            if node.embedded_resource {
                check_resource(path, members, errors);
            }
            for (key, member) in members {
                let Some(schema) = node.child(key) else {
                    continue;
                };
                validate(schema, &child_path(path, key), member, errors);
            }
        }
        Value::Array(items) => {
            if let Some(schema) = &node.items {
                for (i, item) in items.iter().enumerate() {
                    validate(schema, &format!("{path}[{i}]"), item, errors);
                }
            }
        }
        _ => {}
    }
}

fn check_resource(path: &str, members: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    for key in ["apiVersion", "kind"] {
        if !members.contains_key(key) {
            errors.push(FieldError::required(child_path(path, key)));
        }
    }
    for (key, value) in members {
        let at = child_path(path, key);
        let why = match (key.as_str(), value) {
            ("apiVersion" | "kind", Value::String(text)) if text.is_empty() => {
                Some("must not be empty".to_owned())
            }
            ("apiVersion" | "kind", Value::String(_)) if key == "kind" => None,
            ("apiVersion", Value::String(text)) if text.matches('/').count() > 1 => {
                Some(format!("unexpected GroupVersion string: {text}"))
            }
            ("apiVersion" | "kind", Value::String(_)) => None,
            ("apiVersion" | "kind", _) => Some("must be a string".to_owned()),
            ("metadata", Value::Object(meta)) => {
                check_name(&at, meta, errors);
                None
            }
            _ => None,
        };
        if let Some(why) = why {
            errors.push(FieldError::invalid(at, BadValue::Json(value.clone()), why));
        }
    }
}

/// The embedded object's name as a path segment (`content.IsPathSegmentName`).
fn check_name(path: &str, meta: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    let Some(Value::String(name)) = meta.get("name") else {
        return;
    };
    let mut why = Vec::new();
    if name == "." || name == ".." {
        why.push(format!("may not be '{name}'"));
    }
    for bad in ["/", "%"] {
        if name.contains(bad) {
            why.push(format!("may not contain '{bad}'"));
        }
    }
    for reason in why {
        errors.push(FieldError::invalid(
            child_path(path, "name"),
            BadValue::Text(name.clone()),
            reason,
        ));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_embedded_resource_needs_its_type_meta() {
        let node = Node::compile(&json!({"type": "object", "properties": {"template": {
            "type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true}}}));
        let mut errors = Vec::new();
        validate(&node, "", &json!({"template": {"kind": ""}}), &mut errors);
        let texts: Vec<String> = errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.body()))
            .collect();
        assert_eq!(
            texts,
            [
                "template.apiVersion: Required value",
                r#"template.kind: Invalid value: "": must not be empty"#
            ]
        );
    }
}
