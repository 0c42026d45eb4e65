//! JSON into the protobuf kube-apiserver writes (`application/vnd.kubernetes.protobuf`), walked
//! by the same message descriptors the request decoder reads (`table`): the `k8s\0` magic and
//! a `runtime.Unknown` envelope naming apiVersion and kind around the object's message, lists
//! and `Status` the same way, watch events as length-prefixed `metav1.WatchEvent` frames.
//!
//! The bytes are gogo-protobuf's, as k8s.io/api's `generated.pb.go` writes them: fields in
//! field-number order, map entries in key order with key and value always written; a Go
//! field that is no pointer is always written, its zero value too (a JSON field Go's
//! `omitempty` or `omitzero` left out is that zero), a pointer only when set. The messages
//! whose Go types write their own JSON (`special.rs` reads them) are written from that JSON.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use bytes::Bytes;
use serde_json::{Map, Value};

use super::MAGIC;
use super::table::{self, F, Ty};

const META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1";
const EXTENSIONS: &str = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions";

/// The message a `Status` (whatever apiVersion names it) is written as.
const STATUS: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.Status";

/// How deep messages may nest (JSONSchemaProps nests itself).
const MAX_DEPTH: usize = 100;

/// Why a JSON value could not be written as protobuf.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum EncodeError {
    /// A kind with no protobuf message (a custom resource): kube-apiserver answers such a kind
    /// in JSON.
    #[error("no protobuf message for {0}")]
    UnsupportedKind(String),
    /// A value that is not of its field's type.
    #[error("cannot write {0} as protobuf")]
    Invalid(String),
}

fn invalid(what: impl Into<String>) -> EncodeError {
    EncodeError::Invalid(what.into())
}

/// The message that writes objects of `kind` in `api_version`, if any.
pub fn message_of(api_version: &str, kind: &str) -> Option<&'static str> {
    if kind == "Status" {
        return Some(STATUS);
    }
    table::kind(api_version, kind).map(|m| m.name)
}

/// An object (a list, a `Status`) whose JSON names its `apiVersion` and `kind`, enveloped.
pub fn object(value: &Value) -> Result<Vec<u8>, EncodeError> {
    let api_version = value["apiVersion"].as_str().unwrap_or_default();
    let kind = value["kind"].as_str().unwrap_or_default();
    let name = message_of(api_version, kind)
        .ok_or_else(|| EncodeError::UnsupportedKind(format!("{api_version}/{kind}")))?;
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(MAGIC);
    // runtime.Unknown: typeMeta 1, raw 2, contentEncoding 3, contentType 4 (always written).
    nested(&mut out, 1, |out| {
        string(out, 1, api_version);
        string(out, 2, kind);
        Ok(())
    })?;
    nested(&mut out, 2, |out| message(name, value, out, 0))?;
    string(&mut out, 3, "");
    string(&mut out, 4, "");
    Ok(out)
}

/// An object's message without the envelope (a list item), from its JSON bytes; None when
/// they are no object of a kind with a message.
pub fn item(json: &[u8]) -> Option<Vec<u8>> {
    let value: Value = serde_json::from_slice(json).ok()?;
    let api_version = value["apiVersion"].as_str()?;
    let name = message_of(api_version, value["kind"].as_str()?)?;
    let mut out = Vec::with_capacity(json.len() / 2);
    message(name, &value, &mut out, 0).ok()?;
    Some(out)
}

/// A list of `kind` in `api_version` whose `ListMeta` is `meta` (its JSON) and whose items'
/// messages are `items`, enveloped: the parts to write one after the other (the items' bytes
/// shared, not copied).
pub fn list(
    api_version: &str,
    kind: &str,
    meta: &Value,
    items: &[Bytes],
) -> Result<Vec<Bytes>, EncodeError> {
    let mut list_meta = Vec::new();
    nested(&mut list_meta, 1, |out| {
        message(&format!("{META}.ListMeta"), meta, out, 1)
    })?;
    let items_length: usize = items
        .iter()
        .map(|item| 1 + varint_length(item.len()) + item.len())
        .sum();
    let mut head = Vec::with_capacity(64 + list_meta.len());
    head.extend_from_slice(MAGIC);
    nested(&mut head, 1, |out| {
        string(out, 1, api_version);
        string(out, 2, kind);
        Ok(())
    })?;
    key(&mut head, 2, 2);
    varint(&mut head, (list_meta.len() + items_length) as u64);
    head.extend(list_meta);
    let mut parts = Vec::with_capacity(2 * items.len() + 2);
    parts.push(Bytes::from(head));
    for item in items {
        let mut prefix = Vec::with_capacity(6);
        key(&mut prefix, 2, 2);
        varint(&mut prefix, item.len() as u64);
        parts.push(Bytes::from(prefix));
        parts.push(item.clone());
    }
    let mut tail = Vec::with_capacity(4);
    string(&mut tail, 3, "");
    string(&mut tail, 4, "");
    parts.push(Bytes::from(tail));
    Ok(parts)
}

fn varint_length(value: usize) -> usize {
    let mut out = Vec::with_capacity(10);
    varint(&mut out, value as u64);
    out.len()
}

/// A watch frame: the 4-byte big-endian length of a `metav1.WatchEvent` (type 1, object 2: a
/// `RawExtension` holding the enveloped object), then the event.
pub fn watch_frame(event_type: &str, enveloped: &[u8]) -> Vec<u8> {
    let mut event = Vec::with_capacity(enveloped.len() + event_type.len() + 16);
    string(&mut event, 1, event_type);
    let mut raw = Vec::with_capacity(enveloped.len() + 4);
    bytes(&mut raw, 1, enveloped);
    bytes(&mut event, 2, &raw);
    let mut frame = Vec::with_capacity(event.len() + 4);
    let length = u32::try_from(event.len()).unwrap_or(u32::MAX);
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(&event);
    frame
}

/// The message `name` of `value`, `depth` messages deep, appended to `out`.
pub fn message(
    name: &str,
    value: &Value,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    if depth > MAX_DEPTH {
        return Err(invalid(format!("messages nested deeper than {MAX_DEPTH}")));
    }
    if special(name, value, out, depth)? {
        return Ok(());
    }
    let descriptor =
        table::message(name).ok_or_else(|| invalid(format!("{name}: no descriptor")))?;
    if descriptor.items_wrapper {
        // A Go slice type (`ExtraValue`): its JSON is the array of field 1.
        if let (Some(field), Value::Array(items)) = (descriptor.fields.first(), value) {
            for item in items {
                single(&field.ty, field.number, item, out, depth)?;
            }
        }
        return Ok(());
    }
    let empty = Map::new();
    let fields = match value {
        Value::Object(fields) => fields,
        Value::Null => &empty,
        other => return Err(invalid(format!("{name} from {}", kind_of(other)))),
    };
    let mut order: Vec<&F> = descriptor.fields.iter().collect();
    order.sort_unstable_by_key(|f| f.number);
    for field in order {
        self::field(field, value, fields, out, depth)?;
    }
    Ok(())
}

/// One field of a message whose JSON is `whole` (its members `fields`).
fn field(
    field: &F,
    whole: &Value,
    fields: &Map<String, Value>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    if field.json.is_empty() {
        // An embedded Go struct: its fields are the parent's members.
        if let Ty::Message(name) = field.ty {
            return nested(out, field.number, |out| {
                message(name, whole, out, depth + 1)
            });
        }
    }
    let value = fields.get(field.json);
    match (&field.ty, field.repeated, value) {
        (Ty::Map(value_ty), _, Some(Value::Object(map))) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            for key in keys {
                nested(out, field.number, |out| {
                    string(out, 1, key);
                    single(value_ty, 2, &map[key], out, depth)
                })?;
            }
            Ok(())
        }
        (ty, true, Some(Value::Array(items))) => {
            for item in items {
                single(ty, field.number, item, out, depth)?;
            }
            Ok(())
        }
        (Ty::Map(_), ..) | (_, true, _) => Ok(()),
        (ty, false, Some(Value::Null)) => match ty {
            // Go writes a zero `Time` (a struct, not a pointer) as null; protobuf as empty.
            Ty::Message(name) if !field.keep_zero || writes_null(name) => {
                nested(out, field.number, |_| Ok(()))
            }
            _ => Ok(()),
        },
        (ty, false, Some(value)) => single(ty, field.number, value, out, depth),
        // A field Go's JSON left out: a struct's zero value is written, a pointer's nil not.
        (ty, false, None) if !field.keep_zero || field.omitzero => {
            single(ty, field.number, &Value::Null, out, depth)
        }
        (_, false, None) => Ok(()),
    }
}

/// Messages whose Go zero value marshals to JSON `null`.
fn writes_null(name: &str) -> bool {
    matches!(
        name.rsplit_once('.'),
        Some((META, "Time" | "MicroTime" | "FieldsV1"))
            | Some(("k8s.io.apimachinery.pkg.runtime", "RawExtension"))
    )
}

/// One value of type `ty` as field `number` (null: the type's zero value).
fn single(
    ty: &Ty,
    number: u32,
    value: &Value,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    match (ty, value) {
        (Ty::String, Value::String(text)) => string(out, number, text),
        (Ty::String, Value::Null) => string(out, number, ""),
        (Ty::Bytes, Value::String(text)) => {
            let decoded = BASE64_STANDARD
                .decode(text)
                .map_err(|_| invalid(format!("field {number}: not base64")))?;
            bytes(out, number, &decoded);
        }
        (Ty::Bytes, Value::Null) => bytes(out, number, &[]),
        (Ty::Bool, Value::Bool(flag)) => varint_field(out, number, u64::from(*flag)),
        (Ty::Bool, Value::Null) => varint_field(out, number, 0),
        (Ty::Int32 | Ty::Int64, Value::Number(n)) => {
            let n = n
                .as_i64()
                .ok_or_else(|| invalid(format!("field {number}: {n} is no integer")))?;
            let n = match ty {
                Ty::Int32 => i64::from(low_i32(n)),
                _ => n,
            };
            varint_field(out, number, n.cast_unsigned());
        }
        (Ty::Int32 | Ty::Int64, Value::Null) => varint_field(out, number, 0),
        (Ty::Double, Value::Number(n)) => {
            key(out, number, 1);
            out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
        }
        (Ty::Double, Value::Null) => {
            key(out, number, 1);
            out.extend_from_slice(&[0; 8]);
        }
        (Ty::Message(name), value) => {
            nested(out, number, |out| message(name, value, out, depth + 1))?
        }
        (ty, value) => {
            return Err(invalid(format!(
                "field {number}: {ty:?} from {}",
                kind_of(value)
            )));
        }
    }
    Ok(())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Writes the messages whose Go types marshal their own JSON; false for the others.
fn special(
    name: &str,
    value: &Value,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<bool, EncodeError> {
    let Some((package, short)) = name.rsplit_once('.') else {
        return Ok(false);
    };
    match (package, short) {
        (META, "Time" | "MicroTime") => time(value, out)?,
        (META, "Duration") => {
            let text = value.as_str().unwrap_or("0s");
            let nanos = go_duration(text).ok_or_else(|| invalid(format!("duration {text:?}")))?;
            varint_field(out, 1, nanos.cast_unsigned());
        }
        (META, "FieldsV1") | ("k8s.io.apimachinery.pkg.runtime", "RawExtension") => {
            raw_json(value, out)?
        }
        (p, "JSON") if p.starts_with(EXTENSIONS) => raw_json(value, out)?,
        ("k8s.io.apimachinery.pkg.api.resource", "Quantity") => match value {
            Value::String(text) => string(out, 1, text),
            Value::Number(n) => string(out, 1, &n.to_string()),
            _ => string(out, 1, "0"),
        },
        ("k8s.io.apimachinery.pkg.util.intstr", "IntOrString") => {
            let (kind, int, text) = match value {
                Value::String(text) => (1, 0, text.as_str()),
                Value::Number(n) => (0, n.as_i64().unwrap_or(0), ""),
                _ => (0, 0, ""),
            };
            varint_field(out, 1, kind);
            varint_field(out, 2, i64::from(low_i32(int)).cast_unsigned());
            string(out, 3, text);
        }
        (p, "JSONSchemaPropsOrBool") if p.starts_with(EXTENSIONS) => {
            let schema = name.replace("OrBool", "");
            match value {
                Value::Object(_) => {
                    varint_field(out, 1, 1);
                    nested(out, 2, |out| message(&schema, value, out, depth + 1))?;
                }
                other => varint_field(out, 1, u64::from(other.as_bool().unwrap_or(false))),
            }
        }
        (p, "JSONSchemaPropsOrArray" | "JSONSchemaPropsOrStringArray")
            if p.starts_with(EXTENSIONS) =>
        {
            let schema = format!("{p}.JSONSchemaProps");
            match value {
                Value::Array(items) if short.ends_with("StringArray") => {
                    for item in items {
                        single(&Ty::String, 2, item, out, depth)?;
                    }
                }
                Value::Array(items) => {
                    for item in items {
                        nested(out, 2, |out| message(&schema, item, out, depth + 1))?;
                    }
                }
                Value::Object(_) => nested(out, 1, |out| message(&schema, value, out, depth + 1))?,
                _ => {}
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `Time` / `MicroTime` (seconds 1, nanos 2) from RFC 3339; null is Go's zero time, an empty
/// message.
fn time(value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let Some(text) = value.as_str() else {
        return Ok(());
    };
    let stamp: jiff::Timestamp = text
        .parse()
        .map_err(|e| invalid(format!("time {text:?}: {e}")))?;
    varint_field(out, 1, stamp.as_second().cast_unsigned());
    varint_field(out, 2, i64::from(stamp.subsec_nanosecond()).cast_unsigned());
    Ok(())
}

/// Raw JSON (`RawExtension`, `FieldsV1`, apiextensions' `JSON`) in field 1; null is none.
fn raw_json(value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    if value.is_null() {
        return Ok(());
    }
    let text = serde_json::to_vec(value).map_err(|e| invalid(e.to_string()))?;
    bytes(out, 1, &text);
    Ok(())
}

/// Go's `time.ParseDuration` of the forms Go's `Duration.String` writes (`1h0m0s`, `1.5s`,
/// `300ms`, `2µs`), in nanoseconds.
fn go_duration(text: &str) -> Option<i64> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (whole, fraction) = rest[..digits]
            .split_once('.')
            .unwrap_or((&rest[..digits], ""));
        rest = &rest[digits..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale: i64 = match &rest[..unit_end] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_end..];
        let whole: i64 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        let mut part = whole.checked_mul(scale)?;
        let mut unit = scale;
        for digit in fraction.chars() {
            unit /= 10;
            part += i64::from(digit.to_digit(10)?) * unit;
        }
        total = total.checked_add(part)?;
    }
    Some(if negative { -total } else { total })
}

/// The low 32 bits of `n`, as Go's `int32(n)` keeps them.
fn low_i32(n: i64) -> i32 {
    let [a, b, c, d, ..] = n.to_le_bytes();
    i32::from_le_bytes([a, b, c, d])
}

/// A field's key: its number and wire type.
fn key(out: &mut Vec<u8>, number: u32, wire_type: u8) {
    varint(out, (u64::from(number) << 3) | u64::from(wire_type));
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value.to_le_bytes()[0] & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value.to_le_bytes()[0]);
}

fn varint_field(out: &mut Vec<u8>, number: u32, value: u64) {
    key(out, number, 0);
    varint(out, value);
}

fn bytes(out: &mut Vec<u8>, number: u32, value: &[u8]) {
    key(out, number, 2);
    varint(out, value.len() as u64);
    out.extend_from_slice(value);
}

fn string(out: &mut Vec<u8>, number: u32, value: &str) {
    bytes(out, number, value.as_bytes());
}

/// A length-delimited field `number` whose content `write` appends; its length is written
/// before it once known (one byte reserved, moved over when the length needs more).
fn nested(
    out: &mut Vec<u8>,
    number: u32,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    key(out, number, 2);
    let at = out.len();
    out.push(0);
    write(out)?;
    let length = out.len() - at - 1;
    if let Ok(byte @ 0..0x80) = u8::try_from(length) {
        out[at] = byte;
    } else {
        let mut prefix = Vec::with_capacity(4);
        varint(&mut prefix, length as u64);
        out.splice(at..=at, prefix);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Encoded, then decoded by the request decoder: the same JSON.
    fn round_trip(value: Value) -> Value {
        let bytes = object(&value).expect("encodes");
        super::super::decode(&bytes).expect("decodes")
    }

    #[test]
    fn a_config_map_round_trips_through_the_decoder() {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "n", "labels": {"b": "2", "a": "1"},
                "creationTimestamp": "2026-11-28T10:00:00Z"},
            "data": {"k": "v"}, "binaryData": {"b": "AP8="}});
        assert_eq!(round_trip(map.clone()), map);
    }

    #[test]
    fn fields_are_written_in_number_order_and_go_zero_values_are_written() {
        // OwnerReference: kind 1, name 3, uid 4, apiVersion 5 (declared first), controller 6.
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",
            "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u",
                "controller": true}]}});
        let bytes = object(&pod).unwrap();
        let reference: &[u8] = b"\x6a\x0f\x0a\x01K\x1a\x01n\x22\x01u\x2a\x02v1\x30\x01";
        assert!(
            bytes.windows(reference.len()).any(|w| w == reference),
            "{bytes:x?}"
        );
        // ObjectMeta writes every string (empty ones too) and a zero creationTimestamp.
        let meta = json!({"name": "p"});
        let mut out = Vec::new();
        message(
            "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
            &meta,
            &mut out,
            0,
        )
        .unwrap();
        assert_eq!(
            out,
            b"\x0a\x01p\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00"
        );
    }

    #[test]
    fn special_messages_are_written_from_their_json() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"a": "b"}},
                "strategy": {"type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
                "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c",
                    "image": "i", "resources": {"limits": {"cpu": "100m"}}}]}}},
            "status": {}});
        let decoded = round_trip(deployment);
        assert_eq!(
            decoded["spec"]["strategy"]["rollingUpdate"],
            json!({"maxSurge": "25%", "maxUnavailable": 1})
        );
        assert_eq!(
            decoded["spec"]["template"]["spec"]["containers"][0]["resources"],
            json!({"limits": {"cpu": "100m"}})
        );
        assert_eq!(go_duration("1h0m0s"), Some(3_600_000_000_000));
        assert_eq!(go_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(go_duration("300ms"), Some(300_000_000));
        assert_eq!(go_duration("x"), None);
    }

    #[test]
    fn a_custom_kind_has_no_message_and_a_status_has_one() {
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget"});
        assert_eq!(
            object(&widget),
            Err(EncodeError::UnsupportedKind("example.com/v1/Widget".into()))
        );
        let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": "m", "reason": "NotFound",
            "details": {"name": "x", "kind": "pods"}, "code": 404});
        let bytes = object(&status).unwrap();
        let body: &[u8] =
            b"\x0a\x06\x0a\x00\x12\x00\x1a\x00\x12\x07Failure\x1a\x01m\x22\x08NotFound";
        assert!(bytes.windows(body.len()).any(|w| w == body), "{bytes:x?}");
        assert!(
            bytes.ends_with(b"\x30\x94\x03\x1a\x00\x22\x00"),
            "{bytes:x?}"
        );
    }

    #[test]
    fn a_list_of_kept_item_messages_is_the_list_written_whole() {
        let item = |name: &str| {
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name}, "data": {"k": name}})
        };
        let items: Vec<Bytes> = ["a", "b"]
            .iter()
            .map(|name| Bytes::from(super::item(item(name).to_string().as_bytes()).unwrap()))
            .collect();
        let meta = json!({"resourceVersion": "7", "continue": "t", "remainingItemCount": 1});
        let parts = list("v1", "ConfigMapList", &meta, &items).unwrap();
        let whole = json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": meta,
            "items": [item("a"), item("b")]});
        assert_eq!(parts.concat(), object(&whole).unwrap());
    }

    #[test]
    fn a_watch_frame_is_length_prefixed() {
        let frame = watch_frame("ADDED", b"k8s\0x");
        assert_eq!(&frame[..4], &[0, 0, 0, 16]);
        assert_eq!(&frame[4..], b"\x0a\x05ADDED\x12\x07\x0a\x05k8s\0x");
    }

    #[test]
    fn long_messages_get_multi_byte_lengths() {
        let long = "x".repeat(300);
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c"}, "data": {"k": long}});
        assert_eq!(round_trip(map.clone()), map);
    }
}
