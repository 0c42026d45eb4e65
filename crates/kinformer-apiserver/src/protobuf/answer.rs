//! Protobuf answers — an enveloped object, a LIST body, a watch frame — decoded into the JSON
//! bytes kube-apiserver writes for the same answer in `application/json` (`go_json`): a list's
//! items without `kind`/`apiVersion` (as a JSON list holds them), a watch event's object with
//! them. This is what a client or proxy reading a protobuf stream shares with the JSON path.
//!
//! A kind with no message in the table (a custom resource, an aggregated API's kind) is not
//! guessed at: its objects are written with their metadata alone (`ObjectMeta` is field 1 of
//! every object) and the answer names the kind in `metadata_only`, so the caller can say so.

use std::ops::Range;

use super::compiled;
use super::go_json::{self, Writer};
use super::wire::{self, Wire};
use super::{DecodeError, Envelope, MAGIC};

const OBJECT_META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

fn malformed(why: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(why.into())
}

/// A LIST body's items as JSON, back to back in one buffer.
#[derive(Debug, Default)]
pub struct ListJson {
    /// Every item's JSON, back to back.
    pub buffer: Vec<u8>,
    /// Each item's range in `buffer`.
    pub items: Vec<Range<usize>>,
    /// `metadata.resourceVersion`.
    pub resource_version: String,
    /// `metadata.continue`, empty when the list is complete.
    pub continue_token: String,
    /// `apiVersion kind` of the items when no message is known for them: each item is its
    /// metadata alone.
    pub metadata_only: Option<String>,
}

/// One watch event as JSON.
#[derive(Debug, Default)]
pub struct EventJson {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
    pub event_type: String,
    /// The event's object (a `Status` for ERROR) with its `kind` and `apiVersion`.
    pub object: Vec<u8>,
    /// `apiVersion kind` of the object when no message is known for it: `object` is its
    /// metadata alone.
    pub metadata_only: Option<String>,
}

/// An enveloped object (`k8s\0` + `runtime.Unknown`) as JSON, with its `kind` and
/// `apiVersion`; the second value names the kind when only its metadata could be written.
pub fn object_json(body: &[u8]) -> Result<(Vec<u8>, Option<String>), DecodeError> {
    let mut writer = Writer::new(body.len() * 2);
    let missing = enveloped(&mut writer, body, 0)?;
    Ok((writer.out, missing))
}

/// A LIST body (an enveloped `…List`: `ListMeta` in field 1, the items in field 2).
pub fn list_json(body: &[u8]) -> Result<ListJson, DecodeError> {
    let unknown = envelope(body)?;
    let item_kind = unknown.kind.strip_suffix("List").unwrap_or(&unknown.kind);
    let item = compiled::kind_index(&unknown.api_version, item_kind);
    let mut list = ListJson {
        metadata_only: item
            .is_none()
            .then(|| format!("{} {item_kind}", unknown.api_version)),
        ..ListJson::default()
    };
    let mut writer = Writer::new(unknown.raw.len() * 5 / 2);
    let mut input = unknown.raw;
    while !input.is_empty() {
        match wire::field(&mut input)? {
            (1, Wire::Bytes(meta)) => list_meta(&mut list, meta)?,
            (2, Wire::Bytes(object)) => {
                let start = writer.out.len();
                match item {
                    Some(message) => writer.message(message, object, 0)?,
                    None => metadata_only(&mut writer, &unknown.api_version, item_kind, object)?,
                }
                list.items.push(start..writer.out.len());
            }
            _ => {}
        }
    }
    list.buffer = writer.out;
    Ok(list)
}

/// One watch frame's `metav1.WatchEvent` (type 1, object 2 — a `RawExtension` holding an
/// enveloped object), with or without an envelope of its own.
pub fn watch_event_json(frame: &[u8]) -> Result<EventJson, DecodeError> {
    let event = match frame.strip_prefix(MAGIC) {
        Some(_) => envelope(frame)?.raw,
        None => frame,
    };
    let (mut event_type, mut object) = (String::new(), &[][..]);
    let mut input = event;
    while !input.is_empty() {
        match wire::field(&mut input)? {
            (1, Wire::Bytes(text)) => event_type = utf8(text)?,
            (2, Wire::Bytes(raw)) => {
                object = super::special::bytes_field(raw, 1)?.unwrap_or_default()
            }
            _ => {}
        }
    }
    let mut writer = Writer::new(object.len() * 2);
    let metadata_only = enveloped(&mut writer, object, 0)?;
    Ok(EventJson {
        event_type,
        object: writer.out,
        metadata_only,
    })
}

/// An object nested in a `RawExtension` as protobuf (its magic first).
pub(super) fn nested_object<'a>(
    writer: &mut Writer<'a>,
    body: &'a [u8],
    depth: usize,
) -> Result<(), DecodeError> {
    match enveloped(writer, body, depth)? {
        None => Ok(()),
        Some(kind) => Err(DecodeError::UnsupportedKind(kind)),
    }
}

/// Writes an enveloped object; Some(`apiVersion kind`) when only its metadata was known.
fn enveloped<'a>(
    writer: &mut Writer<'a>,
    body: &'a [u8],
    depth: usize,
) -> Result<Option<String>, DecodeError> {
    let unknown = envelope(body)?;
    match compiled::kind_index(&unknown.api_version, &unknown.kind) {
        Some(message) => {
            writer.object(
                message,
                &unknown.api_version,
                &unknown.kind,
                unknown.raw,
                depth,
            )?;
            Ok(None)
        }
        None => {
            metadata_only(writer, &unknown.api_version, &unknown.kind, unknown.raw)?;
            Ok(Some(format!("{} {}", unknown.api_version, unknown.kind)))
        }
    }
}

fn envelope(body: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    let inner = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| malformed("the body does not start with the k8s protobuf magic"))?;
    Envelope::read(inner)
}

/// `{"kind":…,"apiVersion":…,"metadata":{…}}` of an object of an unknown message.
fn metadata_only<'a>(
    writer: &mut Writer<'a>,
    api_version: &str,
    kind: &str,
    object: &'a [u8],
) -> Result<(), DecodeError> {
    let meta = compiled::index_of(OBJECT_META).ok_or_else(|| malformed("no ObjectMeta"))?;
    let mut input = object;
    let mut found = &[][..];
    while !input.is_empty() {
        if let (1, Wire::Bytes(bytes)) = wire::field(&mut input)? {
            found = bytes;
        }
    }
    writer.out.extend_from_slice(b"{\"kind\":");
    go_json::string(&mut writer.out, kind.as_bytes());
    writer.out.extend_from_slice(b",\"apiVersion\":");
    go_json::string(&mut writer.out, api_version.as_bytes());
    writer.out.extend_from_slice(b",\"metadata\":");
    writer.message(meta, found, 1)?;
    writer.out.push(b'}');
    Ok(())
}

/// `ListMeta`: resourceVersion 2, continue 3.
fn list_meta(list: &mut ListJson, meta: &[u8]) -> Result<(), DecodeError> {
    let mut input = meta;
    while !input.is_empty() {
        match wire::field(&mut input)? {
            (2, Wire::Bytes(text)) => list.resource_version = utf8(text)?,
            (3, Wire::Bytes(text)) => list.continue_token = utf8(text)?,
            _ => {}
        }
    }
    Ok(())
}

fn utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| malformed("a string is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_pb::api::core::v1 as core;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta, Unknown};
    use prost::Message;

    use super::*;

    fn envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some(api_version.into()),
                kind: Some(kind.into()),
            }),
            raw: Some(raw),
            content_encoding: Some(String::new()),
            content_type: Some(String::new()),
        };
        [MAGIC.to_vec(), unknown.encode_to_vec()].concat()
    }

    /// A pod as kube-apiserver's gogo marshaller writes it: every non-pointer field present,
    /// fields in number order (not the Go struct's).
    fn pod(name: &str) -> core::Pod {
        core::Pod {
            metadata: Some(meta::ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                uid: Some("u-1".into()),
                resource_version: Some("7".into()),
                generation: Some(0),
                creation_timestamp: Some(meta::Time {
                    seconds: Some(1_764_000_000),
                    nanos: Some(0),
                }),
                labels: BTreeMap::from([("z".into(), "1".into()), ("a".into(), "<&>".into())]),
                managed_fields: vec![meta::ManagedFieldsEntry {
                    manager: Some("kubectl".into()),
                    operation: Some("Apply".into()),
                    api_version: Some("v1".into()),
                    fields_type: Some("FieldsV1".into()),
                    fields_v1: Some(meta::FieldsV1 {
                        raw: Some(br#"{"f:spec":{"f:nodeName":{}}}"#.to_vec()),
                    }),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            spec: Some(core::PodSpec {
                containers: vec![core::Container {
                    name: Some("c".into()),
                    image: Some("nginx".into()),
                    ..Default::default()
                }],
                restart_policy: Some("Always".into()),
                node_name: Some("node-a".into()),
                host_network: Some(false),
                termination_grace_period_seconds: Some(30),
                ..Default::default()
            }),
            status: Some(core::PodStatus {
                phase: Some("Pending".into()),
                ..Default::default()
            }),
        }
    }

    const POD_JSON: &str = concat!(
        r#"{"metadata":{"name":"p","namespace":"default","uid":"u-1","resourceVersion":"7","#,
        r#""creationTimestamp":"2025-11-24T16:00:00Z","labels":{"a":"\u003c\u0026\u003e","z":"1"},"#,
        r#""managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","#,
        r#""fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:nodeName":{}}}}]},"#,
        r#""spec":{"containers":[{"name":"c","image":"nginx"}],"restartPolicy":"Always","#,
        r#""terminationGracePeriodSeconds":30,"nodeName":"node-a"},"#,
        r#""status":{"phase":"Pending"}}"#,
    );

    #[test]
    fn a_list_gives_its_items_as_the_json_list_holds_them() {
        let list = core::PodList {
            metadata: Some(meta::ListMeta {
                resource_version: Some("9".into()),
                r#continue: Some("next".into()),
                ..Default::default()
            }),
            items: vec![pod("p"), pod("q")],
        };
        let decoded = list_json(&envelope("v1", "PodList", list.encode_to_vec()));
        let list = decoded.unwrap_or_default();
        assert_eq!(
            (list.resource_version.as_str(), list.continue_token.as_str()),
            ("9", "next")
        );
        assert_eq!(list.metadata_only, None);
        assert_eq!(list.items.len(), 2);
        let first = String::from_utf8_lossy(&list.buffer[list.items[0].clone()]);
        assert_eq!(first, POD_JSON);
        let second = String::from_utf8_lossy(&list.buffer[list.items[1].clone()]);
        assert_eq!(second, POD_JSON.replace(r#""name":"p""#, r#""name":"q""#));
    }

    #[test]
    fn a_watch_event_object_has_kind_and_api_version_first() {
        let event = meta::WatchEvent {
            r#type: Some("MODIFIED".into()),
            object: Some(RawExtension {
                raw: Some(envelope("v1", "Pod", pod("p").encode_to_vec())),
            }),
        };
        let decoded = watch_event_json(&event.encode_to_vec()).unwrap_or_default();
        assert_eq!(decoded.event_type, "MODIFIED");
        assert_eq!(
            String::from_utf8_lossy(&decoded.object),
            format!(r#"{{"kind":"Pod","apiVersion":"v1",{}"#, &POD_JSON[1..])
        );
        let gone = meta::Status {
            // gogo writes a non-pointer struct always, empty or not.
            metadata: Some(meta::ListMeta::default()),
            code: Some(410),
            reason: Some("Expired".into()),
            ..Default::default()
        };
        let error = meta::WatchEvent {
            r#type: Some("ERROR".into()),
            object: Some(RawExtension {
                raw: Some(envelope("v1", "Status", gone.encode_to_vec())),
            }),
        };
        let framed = envelope("v1", "WatchEvent", error.encode_to_vec());
        let decoded = watch_event_json(&framed).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&decoded.object),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"reason":"Expired","code":410}"#
        );
    }

    #[test]
    fn nil_slices_and_pointers_without_omitempty_are_null_as_go_writes_them() {
        // PodSpec.containers has no omitempty; TypedLocalObjectReference.apiGroup is a
        // pointer without omitempty (types.go v0.37.2:633).
        let claim = core::PersistentVolumeClaim {
            spec: Some(core::PersistentVolumeClaimSpec {
                data_source: Some(core::TypedLocalObjectReference {
                    kind: Some("VolumeSnapshot".into()),
                    name: Some("s".into()),
                    api_group: None,
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (json, missing) = object_json(&envelope(
            "v1",
            "PersistentVolumeClaim",
            claim.encode_to_vec(),
        ))
        .unwrap_or_default();
        assert_eq!(missing, None);
        assert_eq!(
            String::from_utf8_lossy(&json),
            r#"{"kind":"PersistentVolumeClaim","apiVersion":"v1","spec":{"dataSource":{"apiGroup":null,"kind":"VolumeSnapshot","name":"s"}}}"#
        );
        let empty = core::Pod {
            spec: Some(core::PodSpec::default()),
            ..Default::default()
        };
        let (json, _) =
            object_json(&envelope("v1", "Pod", empty.encode_to_vec())).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&json),
            r#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":null}}"#
        );
    }

    #[test]
    fn an_unknown_kind_is_its_metadata_and_named() {
        let widget = core::Pod {
            metadata: Some(meta::ObjectMeta {
                name: Some("w".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let list = meta::WatchEvent {
            r#type: Some("ADDED".into()),
            object: Some(RawExtension {
                raw: Some(envelope("example.com/v1", "Widget", widget.encode_to_vec())),
            }),
        };
        let decoded = watch_event_json(&list.encode_to_vec()).unwrap_or_default();
        assert_eq!(
            decoded.metadata_only.as_deref(),
            Some("example.com/v1 Widget")
        );
        assert_eq!(
            String::from_utf8_lossy(&decoded.object),
            r#"{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"}}"#
        );
        assert!(list_json(b"not protobuf").is_err());
        assert!(
            watch_event_json(b"\x0a\xff").is_err(),
            "truncated is an error"
        );
    }
}
