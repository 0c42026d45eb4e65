//! `--diff` changes of a Secret with their secret values redacted (the object bytes
//! themselves are redacted by `crate::redact`, shared with the record file writer).

use serde_json::Value;
use serde_json::value::RawValue;

use super::diff::Change;
use crate::redact::{
    LAST_APPLIED, REDACTED, SECRET_FIELDS, redacted_annotations, redacted_manifest, redacted_map,
    redacted_metadata, redacted_object,
};

/// A `--diff` change of a Secret with its secret values redacted: a changed datum keeps its
/// path (so the diff says which key changed) and loses its values; a change that holds secret
/// values deeper down (a whole `data` map, the last-applied annotation) has them redacted.
pub fn redact_change(change: Change) -> Change {
    let top = change.path.split(['.', '[']).next().unwrap_or_default();
    if SECRET_FIELDS.contains(&top) && change.path != top {
        let hide = |v: Option<Value>| v.map(|_| Value::String(REDACTED.to_owned()));
        return Change {
            old: hide(change.old),
            new: hide(change.new),
            redacted: true,
            ..change
        };
    }
    let wrap = wrapper_of(&change.path);
    let redact = |v: Option<Value>| v.map(|v| redact_value(v, wrap));
    Change {
        old: redact(change.old),
        new: redact(change.new),
        ..change
    }
}

/// How a changed value sits in a Secret: the whole object, under a top-level key, in
/// `metadata`, in `metadata.annotations`, or as the last-applied annotation itself.
#[derive(Clone, Copy)]
enum Wrapper<'a> {
    Root,
    Top(&'a str),
    Metadata,
    Annotations,
    LastApplied,
}

fn wrapper_of(path: &str) -> Wrapper<'_> {
    match path {
        "" => Wrapper::Root,
        "metadata" => Wrapper::Metadata,
        "metadata.annotations" => Wrapper::Annotations,
        p if p.starts_with("metadata.annotations[") && p.contains(LAST_APPLIED) => {
            Wrapper::LastApplied
        }
        p => Wrapper::Top(p),
    }
}

fn redact_value(value: Value, wrap: Wrapper<'_>) -> Value {
    let bytes = serde_json::to_vec(&value).unwrap_or_default();
    let redacted = match wrap {
        Wrapper::Root => redacted_object(&bytes),
        Wrapper::Top(key) if SECRET_FIELDS.contains(&key) => {
            serde_json::from_slice::<&RawValue>(&bytes)
                .ok()
                .map(redacted_map)
        }
        Wrapper::Top(_) => None,
        Wrapper::Metadata => redacted_metadata(&bytes),
        Wrapper::Annotations => redacted_annotations(&bytes),
        Wrapper::LastApplied => redacted_manifest(&bytes),
    };
    redacted
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_changes_say_which_key_changed_without_values() {
        let change = |path: &str, old: Option<Value>, new: Option<Value>| {
            redact_change(Change {
                path: path.into(),
                old,
                new,
                redacted: false,
            })
        };
        let token = change("data.token", Some("YQ==".into()), Some("Yg==".into()));
        assert!(token.redacted);
        assert_eq!(token.new, Some(Value::String(REDACTED.into())));
        let added = change("data", None, Some(serde_json::json!({"k": "c2VjcmV0"})));
        assert_eq!(added.new, Some(serde_json::json!({"k": REDACTED})));
        let manifest = r#"{"data":{"k":"c2VjcmV0"}}"#;
        let path = format!(
            "metadata.annotations[{}]",
            serde_json::to_string(LAST_APPLIED).unwrap()
        );
        let applied = change(&path, None, Some(manifest.into()));
        assert!(!applied.new.unwrap().to_string().contains("c2VjcmV0"));
        let label = change("metadata.labels.app", Some("a".into()), Some("b".into()));
        assert_eq!((label.redacted, label.new), (false, Some("b".into())));
    }
}
