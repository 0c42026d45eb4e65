//! Field-level diff of two raw JSON objects, for `--diff`: the changed leaf paths with their
//! old and new values. `metadata.resourceVersion` and `metadata.managedFields` are ignored.
//!
//! Paths are dotted (`metadata.labels.app`), array elements are `[i]`, and keys that contain
//! `.`, `[` or `"` are written as `["app.kubernetes.io/name"]`.

use serde_json::Value;

/// One changed leaf. `old` is `None` when the field was added, `new` when it was removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub path: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
    /// A Secret datum whose values are hidden (see [`super::redact::redact_change`]).
    pub redacted: bool,
}

/// The paths (from the top of the object) that a diff never reports.
const IGNORED: [&str; 2] = ["metadata.resourceVersion", "metadata.managedFields"];

/// Diffs two raw JSON documents. Unparseable input is compared as a whole: if either side is
/// not JSON, the result is one change at the root path `""` when the bytes differ.
pub fn diff_raw(old: &[u8], new: &[u8]) -> Vec<Change> {
    match (
        serde_json::from_slice::<Value>(old),
        serde_json::from_slice::<Value>(new),
    ) {
        (Ok(o), Ok(n)) => diff_values(&o, &n),
        _ if old == new => Vec::new(),
        _ => vec![Change {
            path: String::new(),
            old: Some(Value::String(String::from_utf8_lossy(old).into_owned())),
            new: Some(Value::String(String::from_utf8_lossy(new).into_owned())),
            redacted: false,
        }],
    }
}

/// Diffs two parsed JSON values.
pub fn diff_values(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    walk(String::new(), Some(old), Some(new), &mut out);
    out
}

fn walk(path: String, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    if IGNORED.contains(&path.as_str()) {
        return;
    }
    match (old, new) {
        (Some(Value::Object(_)) | None, Some(Value::Object(_)) | None)
            if is_nonempty_object(old) || is_nonempty_object(new) =>
        {
            walk_object(&path, old, new, out);
        }
        (Some(Value::Array(_)) | None, Some(Value::Array(_)) | None)
            if is_nonempty_array(old) || is_nonempty_array(new) =>
        {
            walk_array(&path, old, new, out);
        }
        _ if old == new => {}
        _ => out.push(Change {
            path,
            old: old.cloned(),
            new: new.cloned(),
            redacted: false,
        }),
    }
}

fn is_nonempty_object(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Object(m)) if !m.is_empty())
}

fn is_nonempty_array(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Array(a)) if !a.is_empty())
}

fn walk_object(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    let (o, n) = (
        old.and_then(Value::as_object),
        new.and_then(Value::as_object),
    );
    let mut keys: Vec<&String> = o.into_iter().chain(n).flat_map(|m| m.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let child = child_path(path, key);
        walk(
            child,
            o.and_then(|m| m.get(key)),
            n.and_then(|m| m.get(key)),
            out,
        );
    }
}

fn walk_array(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    let (o, n) = (old.and_then(Value::as_array), new.and_then(Value::as_array));
    let len = o.map_or(0, Vec::len).max(n.map_or(0, Vec::len));
    for i in 0..len {
        walk(
            format!("{path}[{i}]"),
            o.and_then(|a| a.get(i)),
            n.and_then(|a| a.get(i)),
            out,
        );
    }
}

fn child_path(parent: &str, key: &str) -> String {
    if key.contains(['.', '[', ']', '"']) || key.is_empty() {
        let quoted = serde_json::to_string(key).unwrap_or_default();
        format!("{parent}[{quoted}]")
    } else if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(changes: &[Change]) -> Vec<&str> {
        changes.iter().map(|c| c.path.as_str()).collect()
    }

    #[test]
    fn reports_changed_added_and_removed_leaves_ignoring_rv_and_managed_fields() {
        let old = br#"{"metadata":{"name":"a","resourceVersion":"1","managedFields":[{"x":1}],"labels":{"app":"web","gone":"x"}},"spec":{"replicas":1}}"#;
        let new = br#"{"metadata":{"name":"a","resourceVersion":"2","managedFields":[{"x":2}],"labels":{"app":"api","new":"y"}},"spec":{"replicas":1}}"#;
        let changes = diff_raw(old, new);
        assert_eq!(
            paths(&changes),
            [
                "metadata.labels.app",
                "metadata.labels.gone",
                "metadata.labels.new"
            ]
        );
        assert_eq!(changes[0].old, Some(json!("web")));
        assert_eq!(changes[0].new, Some(json!("api")));
        assert_eq!(changes[1].new, None);
        assert_eq!(changes[2].old, None);
    }

    #[test]
    fn array_elements_are_indexed_and_dotted_keys_quoted() {
        let old = json!({"spec":{"containers":[{"image":"a"}]},"metadata":{"labels":{"app.kubernetes.io/name":"x"}}});
        let new = json!({"spec":{"containers":[{"image":"b"},{"image":"c"}]},"metadata":{"labels":{"app.kubernetes.io/name":"y"}}});
        let changes = diff_values(&old, &new);
        assert_eq!(
            paths(&changes),
            [
                r#"metadata.labels["app.kubernetes.io/name"]"#,
                "spec.containers[0].image",
                "spec.containers[1].image"
            ]
        );
    }

    #[test]
    fn identical_objects_and_type_changes() {
        assert!(diff_raw(b"{}", b"{}").is_empty());
        let changes = diff_values(&json!({"a":{"b":1}}), &json!({"a":5}));
        assert_eq!(paths(&changes), ["a"]);
        let changes = diff_values(&json!({"a":{}}), &json!({}));
        assert_eq!(paths(&changes), ["a"]);
        assert_eq!(diff_raw(b"x", b"y").len(), 1);
    }
}
