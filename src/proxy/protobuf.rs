//! Protobuf answers (`application/vnd.kubernetes.protobuf`, what Go controllers ask for), read
//! for the trace and the record — the client gets them untouched. Only metadata is decoded,
//! whatever the type: every Kubernetes list message holds its `ListMeta` in field 1 and its
//! items in field 2, every object its `ObjectMeta` in field 1 (k8s-pb decodes those two). An
//! object becomes `{"apiVersion","kind","metadata":{name, namespace, uid, resourceVersion,
//! labels, annotations}}`, so a replay's cache holds metadata-only objects.
//!
//! Bodies carry the `k8s\0` magic and a `runtime.Unknown` envelope; a watch stream is frames of
//! a 4-byte big-endian length and a `metav1.WatchEvent` (with or without the envelope), whose
//! object is an enveloped object or a `Status` (ERROR).

use bytes::{Buf, Bytes, BytesMut};
use k8s_pb::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta, Status, WatchEvent};
use k8s_pb::apimachinery::pkg::runtime::Unknown;
use prost::Message;
use serde_json::{Map, Value, json};

use crate::informer::source::{ApiStatus, INITIAL_EVENTS_END, ListPage, SourceError, WatchFrame};

/// The prefix of every enveloped protobuf body.
const MAGIC: &[u8] = b"k8s\0";

/// Frames larger than this are not read (kube-apiserver's objects stay far below).
const MAX_FRAME: usize = 64 * 1024 * 1024;

fn bad(what: &str) -> SourceError {
    SourceError::Decode(format!("cannot read the protobuf {what}"))
}

/// `body` without its envelope, and the envelope's `apiVersion` and `kind`.
fn unwrap(body: &[u8]) -> Option<(Vec<u8>, String, String)> {
    let inner = body.strip_prefix(MAGIC)?;
    let unknown = Unknown::decode(inner).ok()?;
    let type_meta = unknown.type_meta.unwrap_or_default();
    Some((
        unknown.raw.unwrap_or_default(),
        type_meta.api_version.unwrap_or_default(),
        type_meta.kind.unwrap_or_default(),
    ))
}

/// A LIST body as a page of metadata-only objects.
pub fn list_page(body: &[u8]) -> Result<ListPage, SourceError> {
    let (raw, api_version, kind) = unwrap(body).ok_or_else(|| bad("list"))?;
    let item_kind = kind.strip_suffix("List").unwrap_or(&kind);
    let mut meta = ListMeta::default();
    let mut items = Vec::new();
    for (tag, field) in fields(&raw).ok_or_else(|| bad("list"))? {
        match tag {
            1 => meta = ListMeta::decode(field).map_err(|_| bad("list metadata"))?,
            2 => items.push(object_json(field, &api_version, item_kind)?),
            _ => {}
        }
    }
    Ok(ListPage {
        items,
        resource_version: meta.resource_version.unwrap_or_default(),
        continue_token: meta.r#continue.filter(|c| !c.is_empty()),
    })
}

/// Takes every whole watch frame (length-prefixed) off the front of `buffer`.
pub fn split_frames(buffer: &mut BytesMut) -> Vec<Bytes> {
    let mut frames = Vec::new();
    while buffer.len() >= 4 {
        let length = u32::from_be_bytes([buffer[0], buffer[1], buffer[2], buffer[3]]) as usize;
        if length > MAX_FRAME {
            buffer.clear();
            break;
        }
        if buffer.len() < 4 + length {
            break;
        }
        buffer.advance(4);
        frames.push(buffer.split_to(length).freeze());
    }
    frames
}

/// One watch frame's event.
pub fn watch_frame(frame: &[u8]) -> Result<WatchFrame, SourceError> {
    let event = match unwrap(frame) {
        Some((raw, _, _)) => WatchEvent::decode(raw.as_slice()),
        None => WatchEvent::decode(frame),
    }
    .map_err(|_| bad("watch event"))?;
    let raw = event.object.and_then(|o| o.raw).unwrap_or_default();
    let (object, api_version, kind) = unwrap(&raw).unwrap_or((raw, String::new(), String::new()));
    let json = || object_json(&object, &api_version, &kind);
    Ok(match event.r#type.as_deref().unwrap_or_default() {
        "ADDED" => WatchFrame::Added(json()?.into()),
        "MODIFIED" => WatchFrame::Modified(json()?.into()),
        "DELETED" => WatchFrame::Deleted(json()?.into()),
        "BOOKMARK" => {
            let meta = object_meta(&object)?;
            let end = meta.annotations.get(INITIAL_EVENTS_END).map(String::as_str);
            WatchFrame::Bookmark {
                resource_version: meta.resource_version.unwrap_or_default(),
                initial_events_end: end == Some("true"),
            }
        }
        "ERROR" => WatchFrame::Error(status(&object)?),
        other => {
            return Err(SourceError::Decode(format!(
                "unknown watch event type {other:?}"
            )));
        }
    })
}

fn status(object: &[u8]) -> Result<ApiStatus, SourceError> {
    let status = Status::decode(object).map_err(|_| bad("status"))?;
    Ok(ApiStatus {
        code: status.code.and_then(|c| u16::try_from(c).ok()),
        reason: status.reason.unwrap_or_default(),
        message: status.message.unwrap_or_default(),
        ..ApiStatus::default()
    })
}

/// An object's `ObjectMeta` (field 1).
fn object_meta(object: &[u8]) -> Result<ObjectMeta, SourceError> {
    let fields = fields(object).ok_or_else(|| bad("object"))?;
    let meta = fields.into_iter().find(|(tag, _)| *tag == 1);
    match meta {
        Some((_, bytes)) => ObjectMeta::decode(bytes).map_err(|_| bad("object metadata")),
        None => Ok(ObjectMeta::default()),
    }
}

/// An object as metadata-only JSON.
fn object_json(object: &[u8], api_version: &str, kind: &str) -> Result<Bytes, SourceError> {
    let meta = object_meta(object)?;
    let mut m = Map::new();
    let mut put = |key: &str, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            m.insert(key.to_owned(), Value::String(v));
        }
    };
    put("name", meta.name);
    put("namespace", meta.namespace);
    put("uid", meta.uid);
    put("resourceVersion", meta.resource_version);
    if !meta.labels.is_empty() {
        m.insert("labels".into(), json!(meta.labels));
    }
    if !meta.annotations.is_empty() {
        m.insert("annotations".into(), json!(meta.annotations));
    }
    let value = json!({"apiVersion": api_version, "kind": kind, "metadata": m});
    Ok(Bytes::from(value.to_string()))
}

/// The length-delimited fields of a protobuf message (`tag`, bytes); varint and fixed fields
/// are skipped. None when the message is not well-formed.
fn fields(message: &[u8]) -> Option<Vec<(u64, &[u8])>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < message.len() {
        let key = varint(message, &mut at)?;
        match key & 7 {
            0 => {
                varint(message, &mut at)?;
            }
            1 => at = at.checked_add(8)?,
            2 => {
                let length = usize::try_from(varint(message, &mut at)?).ok()?;
                let end = at.checked_add(length)?;
                out.push((key >> 3, message.get(at..end)?));
                at = end;
            }
            5 => at = at.checked_add(4)?,
            _ => return None,
        }
    }
    (at == message.len()).then_some(out)
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
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
    use k8s_pb::api::core::v1::{Pod, PodList};
    use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta};

    fn pod(name: &str, rv: &str) -> Pod {
        Pod {
            metadata: Some(ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                resource_version: Some(rv.into()),
                labels: [("app".to_owned(), "web".to_owned())].into(),
                ..ObjectMeta::default()
            }),
            ..Pod::default()
        }
    }

    fn envelope(kind: &str, raw: Vec<u8>) -> Vec<u8> {
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("v1".into()),
                kind: Some(kind.into()),
            }),
            raw: Some(raw),
            ..Unknown::default()
        };
        [MAGIC.to_vec(), unknown.encode_to_vec()].concat()
    }

    #[test]
    fn lists_give_their_items_metadata() {
        let list = PodList {
            metadata: Some(ListMeta {
                resource_version: Some("9".into()),
                r#continue: Some("next".into()),
                ..ListMeta::default()
            }),
            items: vec![pod("a", "7"), pod("b", "8")],
        };
        let page = list_page(&envelope("PodList", list.encode_to_vec())).unwrap_or_default();
        assert_eq!(
            (
                page.resource_version.as_str(),
                page.continue_token.as_deref()
            ),
            ("9", Some("next"))
        );
        let first: Value = serde_json::from_slice(&page.items[0]).unwrap_or_default();
        assert_eq!(
            first,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata":
                {"name": "a", "namespace": "default", "resourceVersion": "7", "labels": {"app": "web"}}})
        );
        assert!(
            list_page(b"k8s\0\xff\xff").is_err(),
            "garbage is an error, not a panic"
        );
        assert!(list_page(b"{}").is_err());
    }

    #[test]
    fn watch_frames_split_and_decode() {
        let event = |kind: &str, object: Vec<u8>| {
            WatchEvent {
                r#type: Some(kind.into()),
                object: Some(RawExtension { raw: Some(object) }),
            }
            .encode_to_vec()
        };
        let added = event("ADDED", envelope("Pod", pod("a", "7").encode_to_vec()));
        let gone = Status {
            code: Some(410),
            reason: Some("Expired".into()),
            message: Some("too old".into()),
            ..Status::default()
        };
        let error = envelope("WatchEvent", event("ERROR", gone.encode_to_vec()));
        let mut stream = BytesMut::new();
        for frame in [&added, &error] {
            stream.extend_from_slice(&u32::try_from(frame.len()).unwrap_or_default().to_be_bytes());
            stream.extend_from_slice(frame);
        }
        let mut buffer = BytesMut::from(&stream[..7]);
        assert!(
            split_frames(&mut buffer).is_empty(),
            "a partial frame waits"
        );
        buffer.extend_from_slice(&stream[7..]);
        let frames = split_frames(&mut buffer);
        assert_eq!(frames.len(), 2);
        let Ok(WatchFrame::Added(raw)) = watch_frame(&frames[0]) else {
            panic!("not ADDED");
        };
        assert_eq!(
            super::super::decode::key_and_rv(&raw),
            ("default/a".into(), "7".into())
        );
        let Ok(WatchFrame::Error(status)) = watch_frame(&frames[1]) else {
            panic!("not ERROR");
        };
        assert_eq!(
            (status.code, status.reason.as_str()),
            (Some(410), "Expired")
        );
    }
}
