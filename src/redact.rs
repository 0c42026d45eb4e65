//! Secret redaction on raw JSON bytes, the one implementation every output uses (the
//! renderers in `output/`, `dump`, and the record file writer in `informer/source/`): every
//! value under the top-level `data` and `stringData` maps becomes `"REDACTED"` (keys kept), and
//! so does every such value inside the `kubectl.kubernetes.io/last-applied-configuration`
//! annotation (the manifest `kubectl apply` stores, as a JSON string). Only secrets are parsed;
//! everything else in the object is copied back byte for byte, in its original order.
//! `--diff` changes are redacted by `output::redact`, with the pieces exported here.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The trace label of core/v1 Secrets, the one resource whose values are redacted.
pub const SECRETS_RESOURCE: &str = "secrets";

/// The value every secret datum is replaced with.
pub const REDACTED: &str = "REDACTED";

/// The top-level fields whose values are secret.
pub const SECRET_FIELDS: [&str; 2] = ["data", "stringData"];

/// The annotation in which `kubectl apply` keeps the whole manifest, secret values included.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A JSON object's members in their original order, values kept raw.
struct OrderedObject<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for OrderedObject<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedVisitor(std::marker::PhantomData))
    }
}

struct OrderedVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for OrderedVisitor<'a> {
    type Value = OrderedObject<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<Cow<'a, str>, &'a RawValue>()? {
            members.push((k, v));
        }
        Ok(OrderedObject(members))
    }
}

/// Returns `raw` with secret values redacted. Input that is not a JSON object, or holds
/// nothing secret, is returned unchanged (borrowed).
pub fn redact_secret(raw: &[u8]) -> Cow<'_, [u8]> {
    match redacted_object(raw) {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(raw),
    }
}

/// The object with its secret values redacted; `None` when there is nothing to redact.
pub(crate) fn redacted_object(raw: &[u8]) -> Option<Vec<u8>> {
    rewrite_members(raw, |key, value| match key {
        "data" | "stringData" => Some(redacted_map(value)),
        "metadata" => redacted_metadata(value.get().as_bytes()),
        _ => None,
    })
}

/// `metadata` with the last-applied annotation's secret values redacted.
pub(crate) fn redacted_metadata(raw: &[u8]) -> Option<Vec<u8>> {
    rewrite_members(raw, |key, annotations| {
        (key == "annotations").then_some(())?;
        redacted_annotations(annotations.get().as_bytes())
    })
}

pub(crate) fn redacted_annotations(raw: &[u8]) -> Option<Vec<u8>> {
    rewrite_members(raw, |key, value| {
        (key == LAST_APPLIED).then_some(())?;
        redacted_manifest(value.get().as_bytes())
    })
}

/// A JSON string holding a manifest, with the manifest's secret values redacted.
pub(crate) fn redacted_manifest(raw: &[u8]) -> Option<Vec<u8>> {
    let manifest: String = serde_json::from_slice(raw).ok()?;
    let redacted = redacted_object(manifest.as_bytes())?;
    serde_json::to_vec(&String::from_utf8_lossy(&redacted)).ok()
}

/// Rewrites a JSON object member by member: `replace(key, value)` returns a member's new raw
/// value, or `None` to keep it. `None` when the input is no object or nothing was replaced.
fn rewrite_members(
    raw: &[u8],
    mut replace: impl FnMut(&str, &RawValue) -> Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    let object = serde_json::from_slice::<OrderedObject<'_>>(raw).ok()?;
    let replaced: Vec<Option<Vec<u8>>> = object.0.iter().map(|(k, v)| replace(k, v)).collect();
    if replaced.iter().all(Option::is_none) {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    out.push(b'{');
    for (i, ((key, value), new)) in object.0.iter().zip(&replaced).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(&mut out, key);
        out.push(b':');
        match new {
            Some(bytes) => out.extend_from_slice(bytes),
            None => out.extend_from_slice(value.get().as_bytes()),
        }
    }
    out.push(b'}');
    Some(out)
}

/// A `data`/`stringData` map with every value `"REDACTED"`; `null` or a non-object as is.
pub(crate) fn redacted_map(value: &RawValue) -> Vec<u8> {
    let Ok(map) = serde_json::from_str::<OrderedObject<'_>>(value.get()) else {
        return value.get().as_bytes().to_vec();
    };
    let mut out = vec![b'{'];
    for (i, (key, _)) in map.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(&mut out, key);
        out.push(b':');
        write_json_str(&mut out, REDACTED);
    }
    out.push(b'}');
    out
}

/// Writes `s` as a JSON string literal.
pub(crate) fn write_json_str(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail, and serialising a &str has no other failure mode.
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn redacts_data_and_string_data_values_keeping_keys_and_order() {
        let raw = br#"{"kind":"Secret","data":{"password":"aHVudGVyMg==","user":"YQ=="},"metadata":{"name":"s"},"stringData":{"token":"t"},"type":"Opaque"}"#;
        let out = redact_secret(raw);
        let text = std::str::from_utf8(&out).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"Secret","data":{"password":"REDACTED","user":"REDACTED"},"metadata":{"name":"s"},"stringData":{"token":"REDACTED"},"type":"Opaque"}"#
        );
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["metadata"]["name"], "s");
    }

    #[test]
    fn objects_without_secret_fields_are_borrowed_unchanged() {
        let raw = br#"{"kind":"Secret","metadata":{"name":"s","data":{"x":"y"}}}"#;
        assert!(matches!(redact_secret(raw), Cow::Borrowed(_)));
    }

    #[test]
    fn malformed_input_or_null_data_never_panics() {
        assert_eq!(&*redact_secret(b"{not json"), b"{not json");
        assert_eq!(&*redact_secret(b"[1]"), b"[1]");
        assert_eq!(
            &*redact_secret(br#"{"data":null}"#),
            br#"{"data":null}"#.as_slice()
        );
    }

    #[test]
    fn the_last_applied_annotation_is_redacted_inside() {
        let manifest = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"password":"hunter2"},"data":{"token":"c2VjcmV0"}}"#;
        let raw = serde_json::to_vec(&serde_json::json!({
            "kind": "Secret",
            "metadata": {"name": "s", "annotations": {LAST_APPLIED: manifest, "other": "kept"}},
            "data": {"token": "c2VjcmV0"}
        }))
        .unwrap();
        let out = redact_secret(&raw);
        let text = std::str::from_utf8(&out).unwrap();
        assert!(
            !text.contains("hunter2") && !text.contains("c2VjcmV0"),
            "{text}"
        );
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["metadata"]["annotations"]["other"], "kept");
        let inner: Value =
            serde_json::from_str(v["metadata"]["annotations"][LAST_APPLIED].as_str().unwrap())
                .unwrap();
        assert_eq!(inner["stringData"]["password"], REDACTED);
        assert_eq!(inner["metadata"]["name"], "s");
    }

    #[test]
    fn escaped_keys_survive() {
        let out = redact_secret(br#"{"data":{"a\"b":"c"}}"#);
        assert_eq!(&*out, br#"{"data":{"a\"b":"REDACTED"}}"#.as_slice());
    }
}
