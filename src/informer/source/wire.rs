//! The wire format: LIST bodies and newline-delimited WATCH frames decoded with one validating
//! scan, objects sliced out as raw bytes; metav1.Status bodies read into [`ApiStatus`].

use std::borrow::Cow;
use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use futures_util::stream::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::lister_watcher::{ApiStatus, ListPage, SourceError, WatchFrame, WatchObject};
use crate::informer::object::validate_with_meta;
use crate::json_scan;

/// Splits a byte-chunk stream into newline-delimited watch frames and decodes each.
pub fn frames(
    chunks: impl futures_util::Stream<Item = Result<Bytes, SourceError>> + Send + 'static,
) -> impl futures_util::Stream<Item = Result<WatchFrame, SourceError>> + Send + 'static {
    let state = LineSplitter {
        chunks: Box::pin(chunks),
        chunk: Bytes::new(),
        carry: BytesMut::new(),
        done: false,
    };
    futures_util::stream::unfold(state, |mut lines| async move {
        let frame = match lines.next_line().await? {
            Ok((line, true)) => parse_watch_frame(&line),
            // client-go's StreamWatcher: an unexpected EOF inside a frame ends the watch quietly
            // (streamwatcher.go:119, Rule R10); it is not a decode error.
            Ok((line, false)) => parse_watch_frame(&line).map_err(|_| {
                SourceError::ProbableEof("unexpected EOF during watch stream event decoding".into())
            }),
            Err(e) => Err(e),
        };
        Some((frame, lines))
    })
}

/// Newline-delimited lines from byte chunks; each byte is scanned for `\n` once. A line that
/// lies inside one chunk is a zero-copy slice of it; only a line split across chunks is copied
/// (into `carry`).
struct LineSplitter<S> {
    chunks: std::pin::Pin<Box<S>>,
    /// The unread rest of the last chunk: no newline was looked for in it yet.
    chunk: Bytes,
    /// The start of a line whose newline is in a later chunk (no newline in it).
    carry: BytesMut,
    done: bool,
}

impl<S: futures_util::Stream<Item = Result<Bytes, SourceError>>> LineSplitter<S> {
    /// The next non-blank line and whether it was newline-terminated (a trailing line without
    /// newline comes last, when the stream ends).
    async fn next_line(&mut self) -> Option<Result<(Bytes, bool), SourceError>> {
        loop {
            if let Some(line) = self.line_in_chunk() {
                if !line.trim_ascii().is_empty() {
                    return Some(Ok((line, true)));
                }
                continue;
            }
            if self.done {
                let rest = self.carry.split().freeze();
                return (!rest.trim_ascii().is_empty()).then_some(Ok((rest, false)));
            }
            match self.chunks.next().await {
                Some(Ok(bytes)) => self.chunk = bytes,
                Some(Err(e)) => {
                    self.done = true;
                    self.carry.clear();
                    return Some(Err(e));
                }
                None => self.done = true,
            }
        }
    }

    /// The line ending at the chunk's first newline, carried start included; None (the chunk
    /// moved into `carry`) when the chunk has no newline.
    fn line_in_chunk(&mut self) -> Option<Bytes> {
        let Some(pos) = memchr::memchr(b'\n', &self.chunk) else {
            self.carry.extend_from_slice(&self.chunk);
            self.chunk.clear();
            return None;
        };
        let end = self.chunk.split_to(pos + 1);
        if self.carry.is_empty() {
            return Some(end);
        }
        self.carry.extend_from_slice(&end);
        Some(self.carry.split().freeze())
    }
}

#[derive(Deserialize)]
struct RawFrame<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BookmarkObject {
    #[serde(default)]
    metadata: BookmarkMeta,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BookmarkMeta {
    #[serde(default)]
    resource_version: String,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
struct StatusBody {
    #[serde(default)]
    code: Option<u16>,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<StatusDetails>,
}

#[derive(Deserialize, Default)]
struct StatusDetails {
    #[serde(default)]
    causes: Vec<StatusCause>,
}

#[derive(Deserialize, Default)]
struct StatusCause {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

impl StatusBody {
    /// client-go's `isTooLargeResourceVersionError`: the cause type, or (servers 1.17–1.18) a
    /// Timeout whose cause says so, or (older) the message.
    fn too_large_resource_version(&self) -> bool {
        let causes = self.details.as_ref().map_or(&[][..], |d| &d.causes[..]);
        causes.iter().any(|c| c.reason == "ResourceVersionTooLarge")
            || (self.reason == "Timeout"
                && (causes
                    .iter()
                    .any(|c| c.message == "Too large resource version")
                    || self
                        .message
                        .contains("Too large non-consistent resource version")))
    }
}

/// The annotation on the bookmark that ends a watch-list's initial events (Rule R6).
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Decodes one `{"type":..,"object":..}` line; the object is a zero-copy slice of `line`,
/// with its metadata when the scan read it. The line is scanned once ([`json_scan`], the
/// object's metadata read on the way); serde_json reads lines of unusual shape and words the
/// errors.
pub fn parse_watch_frame(line: &Bytes) -> Result<WatchFrame, SourceError> {
    let (kind, object) = match scan_frame(line) {
        Some(found) => found,
        None => {
            let (kind, raw) = serde_frame(line)?;
            (kind, WatchObject::from(raw))
        }
    };
    watch_frame(&kind, object)
}

/// The frame a watch event of type `kind` with `object` is, whatever the wire it came on (JSON
/// lines here, protobuf frames in `protobuf.rs`).
pub(super) fn watch_frame(kind: &str, object: WatchObject) -> Result<WatchFrame, SourceError> {
    Ok(match kind {
        "ADDED" => WatchFrame::Added(object),
        "MODIFIED" => WatchFrame::Modified(object),
        "DELETED" => WatchFrame::Deleted(object),
        "BOOKMARK" => {
            let b: BookmarkObject = serde_json::from_slice(&object)
                .map_err(|e| SourceError::Decode(format!("bookmark: {e}")))?;
            WatchFrame::Bookmark {
                initial_events_end: b.metadata.annotations.get(INITIAL_EVENTS_END)
                    == Some(&"true".to_owned()),
                resource_version: b.metadata.resource_version,
            }
        }
        "ERROR" => WatchFrame::Error(status_from_body(0, &object)),
        other => {
            return Err(SourceError::Decode(format!(
                "unknown watch event type {other:?}"
            )));
        }
    })
}

/// The event type and object of a valid frame with plain (unescaped) keys, in one pass.
fn scan_frame(line: &Bytes) -> Option<(Cow<'_, str>, WatchObject)> {
    std::str::from_utf8(line).ok()?;
    let (mut kind, mut object) = (None, None);
    let end = json_scan::for_each_member(line, 0, |key, at| match key {
        b"type" => {
            let (text, end) = json_scan::string_at(line, at)?;
            kind = Some(text?);
            Some(end)
        }
        b"object" => {
            let (end, meta) = validate_with_meta(line, at)
                .or_else(|| Some((json_scan::value_end(line, at)?, None)))?;
            object = Some(WatchObject::scanned(line.slice(at..end), meta));
            Some(end)
        }
        _ if key.contains(&b'\\') => None,
        _ => json_scan::value_end(line, at),
    })?;
    (json_scan::skip_whitespace(line, end) == line.len()).then_some(())?;
    Some((kind?, object?))
}

/// [`scan_frame`] by serde_json: any shape it accepts, and its error messages.
fn serde_frame(line: &Bytes) -> Result<(Cow<'_, str>, Bytes), SourceError> {
    let frame: RawFrame<'_> = serde_json::from_slice(line)
        .map_err(|e| SourceError::Decode(format!("watch event: {e}")))?;
    Ok((
        Cow::Borrowed(frame.kind),
        line.slice_ref(frame.object.get().as_bytes()),
    ))
}

pub fn status_from_body(http_code: u16, body: &[u8]) -> ApiStatus {
    let status: StatusBody = serde_json::from_slice(body).unwrap_or_default();
    let code = status.code.or(Some(http_code)).filter(|c| *c != 0);
    ApiStatus {
        code,
        retry_after: None,
        too_large_resource_version: status.too_large_resource_version(),
        reason: if status.reason.is_empty() {
            code.map(|c| format!("HTTP {c}")).unwrap_or_default()
        } else {
            status.reason
        },
        message: if status.message.is_empty() {
            String::from_utf8_lossy(body).chars().take(200).collect()
        } else {
            status.message
        },
    }
}

#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(default)]
    metadata: ListMeta,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListMeta {
    #[serde(default)]
    resource_version: String,
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
}

/// Decodes a LIST response body into raw items, zero-copy slices of `body`. The body is scanned
/// once ([`json_scan`]); serde_json reads bodies of unusual shape and words the errors.
pub fn parse_list(body: &Bytes) -> Result<ListPage, SourceError> {
    if let Some(page) = scan_list(body) {
        return Ok(page);
    }
    let list: RawList<'_> =
        serde_json::from_slice(body).map_err(|e| SourceError::Decode(format!("list: {e}")))?;
    Ok(ListPage {
        items: list
            .items
            .unwrap_or_default()
            .into_iter()
            .map(|v| body.slice_ref(v.get().as_bytes()))
            .collect(),
        resource_version: list.metadata.resource_version,
        continue_token: list.metadata.continue_token.filter(|c| !c.is_empty()),
    })
}

/// [`parse_list`] for a valid body with plain (unescaped) keys, in one pass.
fn scan_list(body: &Bytes) -> Option<ListPage> {
    std::str::from_utf8(body).ok()?;
    let mut page = ListPage::default();
    let end = json_scan::for_each_member(body, 0, |key, at| match key {
        b"items" if body.get(at) == Some(&b'n') => json_scan::value_end(body, at),
        b"items" => json_scan::for_each_element(body, at, |item| {
            let end = json_scan::value_end(body, item)?;
            page.items.push(body.slice(item..end));
            Some(end)
        }),
        b"metadata" => {
            let end = json_scan::value_end(body, at)?;
            let meta: ListMeta = serde_json::from_slice(&body[at..end]).ok()?;
            page.resource_version = meta.resource_version;
            page.continue_token = meta.continue_token.filter(|c| !c.is_empty());
            Some(end)
        }
        _ if key.contains(&b'\\') => None,
        _ => json_scan::value_end(body, at),
    })?;
    (json_scan::skip_whitespace(body, end) == body.len()).then_some(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_object_comes_with_the_metadata_its_frame_scan_read() {
        let line = Bytes::from_static(
            br#"{"type":"MODIFIED","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"5","managedFields":[{"manager":"m"}]}}}"#,
        );
        let Ok(WatchFrame::Modified(object)) = parse_watch_frame(&line) else {
            panic!("not a MODIFIED frame");
        };
        let (raw, meta) = object.into_parts();
        let meta = meta.expect("the metadata is read with the frame");
        assert_eq!((meta.key(), meta.resource_version()), ("n/a", "5"));
        assert_eq!(&raw[..], &line[28..line.len() - 1]);
        // serde_json's reading of an unusual frame leaves the metadata to the informer.
        let unusual =
            Bytes::from_static(br#"{"obj\u0065ct":{"metadata":{"name":"a"}},"type":"ADDED"}"#);
        let Ok(WatchFrame::Added(object)) = parse_watch_frame(&unusual) else {
            panic!("not an ADDED frame");
        };
        assert!(object.into_parts().1.is_none());
    }

    #[test]
    fn watch_frames_decode_every_type_and_reject_garbage() {
        let added = parse_watch_frame(&Bytes::from_static(
            br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
        ));
        assert!(
            matches!(added, Ok(WatchFrame::Added(b)) if &b[..] == br#"{"metadata":{"name":"a"}}"#)
        );
        let bm = parse_watch_frame(&Bytes::from_static(
            br#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}"#,
        ));
        assert!(
            matches!(bm, Ok(WatchFrame::Bookmark { resource_version, initial_events_end: true }) if resource_version == "12")
        );
        let err = parse_watch_frame(&Bytes::from_static(
            br#"{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}"#,
        ));
        assert!(matches!(err, Ok(WatchFrame::Error(s)) if s.is_expired()));
        for bad in [
            &b"{"[..],
            b"[]",
            br#"{"type":"NOPE","object":{}}"#,
            br#"{"type":"ADDED"}"#,
        ] {
            assert!(matches!(
                parse_watch_frame(&Bytes::from_static(bad)),
                Err(SourceError::Decode(_))
            ));
        }
    }

    #[tokio::test]
    async fn frames_split_lines_across_chunk_boundaries() {
        let chunks: Vec<Result<Bytes, SourceError>> = vec![
            Ok(Bytes::from_static(
                b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"na",
            )),
            Ok(Bytes::from_static(
                b"me\":\"a\"}}}\n{\"type\":\"DELETED\",\"object\":{}}\n",
            )),
        ];
        let got: Vec<_> = frames(futures_util::stream::iter(chunks)).collect().await;
        assert_eq!(got.len(), 2);
        assert!(matches!(got[0], Ok(WatchFrame::Added(_))));
        assert!(matches!(got[1], Ok(WatchFrame::Deleted(_))));
    }

    #[tokio::test]
    async fn lines_inside_a_chunk_are_sliced_and_a_line_may_span_several_chunks() {
        let chunks: Vec<Result<Bytes, SourceError>> = vec![
            Ok(Bytes::from_static(
                b"{\"type\":\"DELETED\",\"object\":{}}\n\n{\"type\":\"ADDED\",\"object\":{}}\n{\"ty",
            )),
            Ok(Bytes::from_static(b"pe\":\"MODIFIED\",")),
            Ok(Bytes::from_static(b"\"object\":{}}\n")),
        ];
        let got: Vec<_> = frames(futures_util::stream::iter(chunks)).collect().await;
        assert_eq!(got.len(), 3, "the blank line is skipped");
        assert!(matches!(got[0], Ok(WatchFrame::Deleted(_))));
        assert!(matches!(got[1], Ok(WatchFrame::Added(_))));
        assert!(matches!(got[2], Ok(WatchFrame::Modified(_))));
    }

    #[tokio::test]
    async fn a_stream_cut_inside_a_frame_ends_the_watch_but_a_bad_line_is_a_decode_error() {
        let cut: Vec<Result<Bytes, SourceError>> = vec![Ok(Bytes::from_static(
            b"{\"type\":\"DELETED\",\"object\":{}}\n{\"type\":\"ADD",
        ))];
        let got: Vec<_> = frames(futures_util::stream::iter(cut)).collect().await;
        assert!(matches!(got[0], Ok(WatchFrame::Deleted(_))));
        assert!(
            matches!(&got[1], Err(SourceError::ProbableEof(m)) if m.contains("unexpected EOF"))
        );
        let bad: Vec<Result<Bytes, SourceError>> = vec![Ok(Bytes::from_static(
            b"not json\n{\"type\":\"DELETED\",\"object\":{}}",
        ))];
        let got: Vec<_> = frames(futures_util::stream::iter(bad)).collect().await;
        assert!(matches!(got[0], Err(SourceError::Decode(_))));
        assert!(
            matches!(got[1], Ok(WatchFrame::Deleted(_))),
            "a complete last line parses"
        );
    }

    #[test]
    fn list_bodies_keep_items_raw_and_read_continue() {
        let page = parse_list(&Bytes::from_static(
            br#"{"kind":"PodList","metadata":{"resourceVersion":"9","continue":"abc"},"items":[{"metadata":{"name":"x"}}]}"#,
        ))
        .unwrap();
        assert_eq!(page.resource_version, "9");
        assert_eq!(page.continue_token.as_deref(), Some("abc"));
        assert_eq!(&page.items[0][..], br#"{"metadata":{"name":"x"}}"#);
        assert!(parse_list(&Bytes::from_static(b"<html>")).is_err());
    }
}
