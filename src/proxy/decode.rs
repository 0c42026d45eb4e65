//! Reading the answers the proxy relays, for the trace and the record only (the client gets the
//! bytes as they came): JSON LIST bodies and watch frames through the informer's own wire
//! decoding, and the server-side `Table`s kubectl asks for (`Accept: …;as=Table;…`), whose rows
//! carry the objects; protobuf answers through the informer's protobuf decoding (whole
//! objects, as their JSON answer holds them; the bytes kept for the record). CBOR is relayed,
//! not read.

use std::borrow::Cow;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::informer::source::record_file::ProtobufWire;
use crate::informer::source::{
    ListPage, SourceError, WatchFrame, WatchObject, parse_list, parse_watch_frame, protobuf,
};

/// How an answer's body is encoded, from its Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    /// JSON asked for `as=Table`: a `meta.k8s.io` Table, if the server made one.
    Table,
    /// `application/vnd.kubernetes.protobuf`: decoded into JSON, the bytes kept.
    Protobuf,
    /// CBOR or anything else: relayed, not decoded.
    Opaque,
}

impl Encoding {
    /// The answer's encoding, from its Content-Type and the request's Accept.
    pub fn of(content_type: Option<&str>, accept: Option<&str>) -> Self {
        let content_type = content_type.map(str::to_ascii_lowercase);
        let json = content_type
            .as_deref()
            .is_none_or(|ct| ct.starts_with("application/json"));
        let protobuf = content_type
            .as_deref()
            .is_some_and(|ct| ct.starts_with("application/vnd.kubernetes.protobuf"));
        let table = |text: &str| text.to_ascii_lowercase().contains("as=table");
        if protobuf {
            Encoding::Protobuf
        } else if !json {
            Encoding::Opaque
        } else if content_type.as_deref().is_some_and(table) || accept.is_some_and(table) {
            Encoding::Table
        } else {
            Encoding::Json
        }
    }
}

/// A LIST body (or one page of it) as a page of raw objects, and the body itself when it
/// came in protobuf.
pub fn list_page(
    body: &Bytes,
    encoding: Encoding,
) -> Result<(ListPage, Option<ProtobufWire>), SourceError> {
    match encoding {
        Encoding::Json => Ok((parse_list(body)?, None)),
        Encoding::Table => Ok((table(body).map_or_else(|| parse_list(body), Ok)?, None)),
        Encoding::Protobuf => {
            let decoded = protobuf::parse_list(body)?;
            let wire = ProtobufWire {
                bytes: body.clone(),
                metadata_only: decoded.metadata_only,
            };
            Ok((decoded.value, Some(wire)))
        }
        Encoding::Opaque => Err(not_a("JSON answer")),
    }
}

/// One protobuf watch frame (its length prefix off) as a frame, and its bytes.
pub fn protobuf_frame(frame: Bytes) -> Result<(WatchFrame, ProtobufWire), SourceError> {
    let decoded = protobuf::parse_watch_frame(&frame)?;
    let wire = ProtobufWire {
        bytes: frame,
        metadata_only: decoded.metadata_only,
    };
    Ok((decoded.value, wire))
}

/// One watch line as a frame; a Table event's object is its row's object.
pub fn watch_frame(line: &Bytes, encoding: Encoding) -> Result<WatchFrame, SourceError> {
    let frame = parse_watch_frame(line)?;
    if encoding != Encoding::Table {
        return Ok(frame);
    }
    // The metadata read with the frame is the Table's, not the row's: it is read again.
    let row = |object: WatchObject| {
        let raw = Bytes::from(object);
        let row = table(&raw).and_then(|page| page.items.into_iter().next());
        WatchObject::from(row.unwrap_or(raw))
    };
    Ok(match frame {
        WatchFrame::Added(raw) => WatchFrame::Added(row(raw)),
        WatchFrame::Modified(raw) => WatchFrame::Modified(row(raw)),
        WatchFrame::Deleted(raw) => WatchFrame::Deleted(row(raw)),
        other => other,
    })
}

fn not_a(what: &str) -> SourceError {
    SourceError::Decode(format!("the answer is not a {what}"))
}

#[derive(Deserialize)]
struct TableRec<'a> {
    #[serde(default, borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    metadata: ListMeta<'a>,
    #[serde(default, borrow)]
    rows: Vec<RowRec<'a>>,
}

#[derive(Deserialize, Default)]
struct ListMeta<'a> {
    #[serde(default, borrow, rename = "resourceVersion")]
    resource_version: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "continue")]
    continue_token: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct RowRec<'a> {
    #[serde(default, borrow)]
    object: Option<&'a RawValue>,
}

/// A Table's rows' objects, resourceVersion and continue token; None when `body` is not a
/// Table.
fn table(body: &Bytes) -> Option<ListPage> {
    let rec: TableRec<'_> = serde_json::from_slice(body).ok()?;
    if rec.kind != "Table" {
        return None;
    }
    Some(ListPage {
        items: rec
            .rows
            .iter()
            .filter_map(|r| r.object)
            .map(|o| body.slice_ref(o.get().as_bytes()))
            .collect(),
        resource_version: rec
            .metadata
            .resource_version
            .map(Cow::into_owned)
            .unwrap_or_default(),
        continue_token: rec
            .metadata
            .continue_token
            .filter(|c| !c.is_empty())
            .map(Cow::into_owned),
    })
}

#[derive(Deserialize)]
struct ObjectRec<'a> {
    #[serde(default, borrow)]
    metadata: MetaRec<'a>,
}

#[derive(Deserialize, Default)]
struct MetaRec<'a> {
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    namespace: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "resourceVersion")]
    resource_version: Cow<'a, str>,
}

/// An object's key (`namespace/name` or `name`) and resourceVersion.
pub fn key_and_rv(raw: &[u8]) -> (String, String) {
    let Ok(rec) = serde_json::from_slice::<ObjectRec<'_>>(raw) else {
        return (String::new(), String::new());
    };
    let meta = rec.metadata;
    let key = match meta.namespace.filter(|ns| !ns.is_empty()) {
        Some(ns) => format!("{ns}/{}", meta.name),
        None => meta.name.into_owned(),
    };
    (key, meta.resource_version.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_give_their_rows_objects() {
        let body = Bytes::from_static(
            br#"{"kind":"Table","metadata":{"resourceVersion":"9","continue":"c"},"columnDefinitions":[],"rows":[{"cells":["a"],"object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"7"}}}]}"#,
        );
        let (page, _) = list_page(&body, Encoding::Table).unwrap_or_default();
        assert_eq!(page.resource_version, "9");
        assert_eq!(page.continue_token.as_deref(), Some("c"));
        assert_eq!(page.items.len(), 1);
        assert_eq!(key_and_rv(&page.items[0]), ("n/a".into(), "7".into()));
        let line = Bytes::from(format!(
            "{{\"type\":\"MODIFIED\",\"object\":{}}}",
            String::from_utf8_lossy(&body)
        ));
        let Ok(WatchFrame::Modified(raw)) = watch_frame(&line, Encoding::Table) else {
            panic!("not a frame");
        };
        assert_eq!(key_and_rv(&raw), ("n/a".into(), "7".into()));
    }

    #[test]
    fn encodings_come_from_the_content_type() {
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(Encoding::of(None, None), Encoding::Json);
        assert_eq!(Encoding::of(Some("application/json"), None), Encoding::Json);
        assert_eq!(
            Encoding::of(Some("application/json"), Some(table)),
            Encoding::Table
        );
        assert_eq!(
            Encoding::of(
                Some("application/vnd.kubernetes.protobuf;stream=watch"),
                None
            ),
            Encoding::Protobuf
        );
        assert_eq!(
            Encoding::of(Some("application/vnd.kubernetes.protobuf"), None),
            Encoding::Protobuf
        );
        assert_eq!(
            Encoding::of(Some("application/cbor"), None),
            Encoding::Opaque
        );
        let list = Bytes::from_static(br#"{"kind":"PodList","metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}]}"#);
        let (page, _) = list_page(&list, Encoding::Table).unwrap_or_default();
        assert_eq!(
            (page.items.len(), page.resource_version.as_str()),
            (1, "3"),
            "not a Table after all"
        );
        assert_eq!(key_and_rv(b"not json"), (String::new(), String::new()));
    }
}
