//! Secret redaction on raw JSON bytes: every value under the top-level `data` and `stringData`
//! maps becomes `"REDACTED"` (keys kept). Only secrets are parsed; everything else in the
//! object is copied back byte for byte, in its original order.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The value every secret datum is replaced with.
pub const REDACTED: &str = "REDACTED";

/// The top-level fields whose values are secret.
const SECRET_FIELDS: [&str; 2] = ["data", "stringData"];

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

/// Returns `raw` with secret values redacted. Input that is not a JSON object, or whose
/// `data`/`stringData` is not an object, is returned unchanged (nothing to redact there).
pub fn redact_secret(raw: &[u8]) -> Cow<'_, [u8]> {
    let Ok(top) = serde_json::from_slice::<OrderedObject<'_>>(raw) else {
        return Cow::Borrowed(raw);
    };
    if !top
        .0
        .iter()
        .any(|(k, _)| SECRET_FIELDS.contains(&k.as_ref()))
    {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    out.push(b'{');
    for (i, (key, value)) in top.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(&mut out, key);
        out.push(b':');
        if SECRET_FIELDS.contains(&key.as_ref()) {
            write_redacted_map(&mut out, value);
        } else {
            out.extend_from_slice(value.get().as_bytes());
        }
    }
    out.push(b'}');
    Cow::Owned(out)
}

fn write_redacted_map(out: &mut Vec<u8>, value: &RawValue) {
    let Ok(map) = serde_json::from_str::<OrderedObject<'_>>(value.get()) else {
        // `null` or a non-object: keep as is, there are no key/value pairs to hide.
        out.extend_from_slice(value.get().as_bytes());
        return;
    };
    out.push(b'{');
    for (i, (key, _)) in map.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(out, key);
        out.push(b':');
        write_json_str(out, REDACTED);
    }
    out.push(b'}');
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
    fn escaped_keys_survive() {
        let out = redact_secret(br#"{"data":{"a\"b":"c"}}"#);
        assert_eq!(&*out, br#"{"data":{"a\"b":"REDACTED"}}"#.as_slice());
    }
}
