//! Protobuf answers (`application/vnd.kubernetes.protobuf`, and its `;stream=watch` frames)
//! in a canonical form the conformance table compares: the wire format read field by field,
//! with no descriptor, into a JSON array per message of `{"<field number>": value}` in wire
//! order — a varint as a number, a fixed64 as `"fixed64:…"`, a length-delimited field as a
//! nested message when its bytes read as one to their end, else as its text (or
//! `"bytes:<base64>"`). The form keeps every field, its order, wire type and value, so two
//! answers are equal exactly when their bytes are, but for the masked values and the lengths
//! that hold them.
//!
//! Masked (by position, as the JSON masks go by name): in an object's `ObjectMeta` (field 1
//! of the object in the `runtime.Unknown` envelope's `raw`, of each list item, of a watch
//! event's object) `uid` (5), `resourceVersion` (6), `creationTimestamp` (8),
//! `deletionTimestamp` (9) and each `managedFields` entry's `time` (17 → 4); in a list's
//! `ListMeta` `resourceVersion` (2) and `continue` (3); in a `Status`'s details (5) the
//! `uid` (6); the random suffix of a pod's
//! `kube-api-access-XXXXX` token volume anywhere.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use serde_json::{Value, json};

const MAGIC: &[u8] = b"k8s\0";

/// A protobuf body (a watch's: its frames) in canonical form; None when it does not read.
pub fn canonical(bytes: &[u8], watch: bool) -> Option<Value> {
    if watch {
        return frames(bytes);
    }
    let mut object = envelope(bytes)?;
    mask_object(&mut object);
    mask_token_volume(&mut object);
    Some(object)
}

/// The random suffix of a pod's `kube-api-access-XXXXX` token volume, wherever it is.
fn mask_token_volume(value: &mut Value) {
    match value {
        Value::String(text)
            if text
                .strip_prefix("kube-api-access-")
                .is_some_and(|suffix| suffix.len() == 5) =>
        {
            *text = "kube-api-access-MASKED".into();
        }
        Value::Array(items) => items.iter_mut().for_each(mask_token_volume),
        Value::Object(fields) => fields.values_mut().for_each(mask_token_volume),
        _ => {}
    }
}

/// A `k8s\0` + `runtime.Unknown` body as a message.
fn envelope(bytes: &[u8]) -> Option<Value> {
    message(bytes.strip_prefix(MAGIC)?)
}

/// Each length-prefixed `WatchEvent` of a watch stream; its object (field 2, a
/// `RawExtension` whose field 1 is an enveloped object) read and masked.
fn frames(mut bytes: &[u8]) -> Option<Value> {
    let mut events = Vec::new();
    while !bytes.is_empty() {
        let (length, rest) = bytes.split_first_chunk::<4>()?;
        let length = u32::from_be_bytes(*length) as usize;
        if rest.len() < length {
            return None;
        }
        let (frame, rest) = rest.split_at(length);
        bytes = rest;
        let mut event = message(frame)?;
        let object = field_mut(&mut event, 2).and_then(|raw| {
            raw.as_array_mut()?
                .first_mut()?
                .get_mut("1")?
                .get_mut("enveloped")
        });
        if let Some(object) = object {
            mask_object(object);
        }
        mask_token_volume(&mut event);
        events.push(event);
    }
    Some(Value::Array(events))
}

/// Masks what differs between servers in an enveloped object (field 2 of the envelope: the
/// object's message): its metadata, or a list's and its items'.
fn mask_object(envelope: &mut Value) {
    let kind = kind(envelope);
    let is_list = kind.ends_with("List");
    let Some(raw) = field_mut(envelope, 2) else {
        return;
    };
    if kind == "Status" {
        // StatusDetails (5) uid (6).
        for details in fields_mut(raw, 5) {
            mask(details, &[6]);
        }
        return;
    }
    if is_list {
        if let Some(meta) = field_mut(raw, 1) {
            mask(meta, &[2, 3]);
        }
        for item in fields_mut(raw, 2) {
            if let Some(meta) = field_mut(item, 1) {
                mask_object_meta(meta);
            }
        }
    } else if let Some(meta) = field_mut(raw, 1) {
        mask_object_meta(meta);
    }
}

/// The kind an envelope names (its `typeMeta`'s field 2).
fn kind(envelope: &Value) -> String {
    envelope
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|f| f.get("1"))
        .and_then(|meta| meta.as_array())
        .into_iter()
        .flatten()
        .find_map(|f| f.get("2"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn mask_object_meta(meta: &mut Value) {
    mask(meta, &[5, 6, 8, 9]);
    for entry in fields_mut(meta, 17) {
        mask(entry, &[4]);
    }
}

/// Replaces the values of fields `numbers` of a message by `MASKED`.
fn mask(message: &mut Value, numbers: &[u32]) {
    for field in message.as_array_mut().into_iter().flatten() {
        for number in numbers {
            if let Some(value) = field.get_mut(number.to_string()) {
                *value = json!("MASKED");
            }
        }
    }
}

fn fields_mut(message: &mut Value, number: u32) -> impl Iterator<Item = &mut Value> {
    let key = number.to_string();
    message
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter_map(move |field| field.get_mut(&key))
        .filter(|value| value.is_array())
}

fn field_mut(message: &mut Value, number: u32) -> Option<&mut Value> {
    fields_mut(message, number).next()
}

/// A message's fields, or None when the bytes are no message.
fn message(mut bytes: &[u8]) -> Option<Value> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let key = varint(&mut bytes)?;
        let number = key >> 3;
        if number == 0 || number > 536_870_911 {
            return None;
        }
        let value = match key & 7 {
            0 => json!(varint(&mut bytes)?),
            1 => {
                let (value, rest) = bytes.split_first_chunk::<8>()?;
                bytes = rest;
                json!(format!("fixed64:{}", u64::from_le_bytes(*value)))
            }
            2 => {
                let length = usize::try_from(varint(&mut bytes)?).ok()?;
                if bytes.len() < length {
                    return None;
                }
                let (value, rest) = bytes.split_at(length);
                bytes = rest;
                length_delimited(value)
            }
            _ => return None,
        };
        out.push(json!({ number.to_string(): value }));
    }
    Some(Value::Array(out))
}

/// A length-delimited value: a nested message (an enveloped object too), else text or bytes.
fn length_delimited(bytes: &[u8]) -> Value {
    if let Some(object) = envelope(bytes) {
        return json!({ "enveloped": object });
    }
    if !bytes.is_empty()
        && let Some(nested) = message(bytes)
    {
        return nested;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => json!(text),
        Err(_) => json!(format!("bytes:{}", BASE64_STANDARD.encode(bytes))),
    }
}

fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short length as its one-byte varint.
    fn len(bytes: &[u8]) -> u8 {
        u8::try_from(bytes.len())
            .ok()
            .filter(|l| *l < 0x80)
            .unwrap()
    }

    /// An enveloped ConfigMap named `c` whose ObjectMeta has uid `u` and resourceVersion `rv`.
    fn config_map(uid: &str, rv: &str) -> Vec<u8> {
        let mut meta = vec![0x0a, 1, b'c', 0x2a, len(uid.as_bytes())];
        meta.extend(uid.as_bytes());
        meta.extend([0x32, len(rv.as_bytes())]);
        meta.extend(rv.as_bytes());
        let mut raw = vec![0x0a, len(&meta)];
        raw.extend(meta);
        let mut body = MAGIC.to_vec();
        body.extend([0x0a, 15, 0x0a, 2, b'v', b'1', 0x12, 9]);
        body.extend(b"ConfigMap");
        body.extend([0x12, len(&raw)]);
        body.extend(raw);
        body.extend([0x1a, 0, 0x22, 0]);
        body
    }

    #[test]
    fn masked_fields_differ_freely_and_any_other_byte_shows() {
        let a = canonical(&config_map("uid-1", "10"), false).unwrap();
        let b = canonical(&config_map("another-uid", "2"), false).unwrap();
        assert_eq!(a, b);
        let mut c = config_map("uid-1", "10");
        let name = c.iter().position(|b| *b == b'c').unwrap();
        c[name] = b'd';
        assert_ne!(a, canonical(&c, false).unwrap());
    }

    #[test]
    fn watch_frames_are_read_one_by_one() {
        let object = config_map("u", "1");
        let mut event = vec![0x0a, 5];
        event.extend(b"ADDED");
        event.extend([0x12, len(&object) + 2, 0x0a, len(&object)]);
        event.extend(&object);
        let mut stream = u32::from(len(&event)).to_be_bytes().to_vec();
        stream.extend(&event);
        let events = canonical(&stream, true).unwrap();
        assert_eq!(events.as_array().map(Vec::len), Some(1));
        assert_eq!(events[0][0], json!({"1": "ADDED"}));
        stream.push(0);
        assert_eq!(canonical(&stream, true), None, "a truncated frame");
    }
}
