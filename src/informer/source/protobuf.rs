//! The protobuf wire format (`application/vnd.kubernetes.protobuf`, what client-go's typed
//! clients ask for): LIST bodies and length-prefixed watch frames (`;stream=watch`, apimachinery's
//! `streaming` framer: a 4-byte big-endian length, then a `metav1.WatchEvent`), decoded by the
//! server crate's answer decoder into the same JSON bytes a JSON answer holds
//! (`kinformer_apiserver::protobuf`), so everything after the wire is the JSON path's.
//!
//! An object of a kind the decoder has no message for comes back as its metadata alone, named
//! in [`Decoded::metadata_only`]; a client asks protobuf only for kinds it has messages for,
//! and says so when a server answers otherwise.

use bytes::{Buf, Bytes, BytesMut};
use futures_util::stream::StreamExt;
use kinformer_apiserver::protobuf::{self as pb, DecodeError};

use super::lister_watcher::{ListPage, SourceError, WatchFrame, WatchObject};
use super::wire::watch_frame;

/// The media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The Accept header of client-go's typed clients (rest/request.go v0.37.2, around line 196):
/// protobuf, JSON when the server has none for the kind.
pub const ACCEPT: &str = "application/vnd.kubernetes.protobuf, application/json";

/// Frames larger than this are not read (kube-apiserver's objects stay far below).
const MAX_FRAME: usize = 64 * 1024 * 1024;

/// A decoded answer, and the `apiVersion kind` whose objects are metadata only, if any.
#[derive(Debug, Clone)]
pub struct Decoded<T> {
    pub value: T,
    pub metadata_only: Option<String>,
}

/// Whether a Content-Type is protobuf.
pub fn is_protobuf(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| ct.trim_start().to_ascii_lowercase().starts_with(MEDIA_TYPE))
}

/// Whether the decoder knows the message of a kind (`apps/v1`, `Deployment`): only then is
/// protobuf asked for.
pub fn knows_kind(api_version: &str, kind: &str) -> bool {
    pb::knows_kind(api_version, kind)
}

fn decode_error(what: &str, e: &DecodeError) -> SourceError {
    SourceError::Decode(format!("protobuf {what}: {e}"))
}

/// A protobuf LIST body as a page of JSON items (slices of one buffer).
pub fn parse_list(body: &[u8]) -> Result<Decoded<ListPage>, SourceError> {
    let list = pb::list_json(body).map_err(|e| decode_error("list", &e))?;
    let buffer = Bytes::from(list.buffer);
    Ok(Decoded {
        value: ListPage {
            items: list.items.into_iter().map(|r| buffer.slice(r)).collect(),
            resource_version: list.resource_version,
            continue_token: Some(list.continue_token).filter(|c| !c.is_empty()),
        },
        metadata_only: list.metadata_only,
    })
}

/// One watch frame (its length prefix taken off) as a [`WatchFrame`].
pub fn parse_watch_frame(frame: &[u8]) -> Result<Decoded<WatchFrame>, SourceError> {
    let event = pb::watch_event_json(frame).map_err(|e| decode_error("watch event", &e))?;
    let raw = Bytes::from(event.object);
    let value = watch_frame(&event.event_type, WatchObject::from(raw))?;
    Ok(Decoded {
        value,
        metadata_only: event.metadata_only,
    })
}

/// Takes every whole watch frame (length-prefixed) off the front of `buffer`; a length over
/// the limit is an error.
pub fn split_frames(buffer: &mut BytesMut) -> Result<Vec<Bytes>, SourceError> {
    let mut frames = Vec::new();
    while let Some(head) = buffer.first_chunk::<4>() {
        let length = u32::from_be_bytes(*head) as usize;
        if length > MAX_FRAME {
            buffer.clear();
            return Err(SourceError::Decode(format!(
                "a protobuf watch frame of {length} bytes is over the {MAX_FRAME}-byte limit"
            )));
        }
        if buffer.len() < 4 + length {
            break;
        }
        buffer.advance(4);
        frames.push(buffer.split_to(length).freeze());
    }
    Ok(frames)
}

/// Splits a byte-chunk stream into length-prefixed frames and decodes each; an object that
/// could only be read as metadata is a decode error here (a client asks protobuf only for
/// kinds it has messages for).
pub fn frames(
    chunks: impl futures_util::Stream<Item = Result<Bytes, SourceError>> + Send + 'static,
) -> impl futures_util::Stream<Item = Result<WatchFrame, SourceError>> + Send + 'static {
    let state = (
        Box::pin(chunks),
        BytesMut::new(),
        std::collections::VecDeque::new(),
    );
    futures_util::stream::unfold(state, |(mut chunks, mut buffer, mut ready)| async move {
        loop {
            if let Some(frame) = ready.pop_front() {
                let frame: Bytes = frame;
                let decoded = parse_watch_frame(&frame).and_then(whole);
                return Some((decoded, (chunks, buffer, ready)));
            }
            match chunks.next().await {
                Some(Ok(chunk)) => {
                    buffer.extend_from_slice(&chunk);
                    match split_frames(&mut buffer) {
                        Ok(frames) => ready.extend(frames),
                        Err(e) => return Some((Err(e), (chunks, buffer, ready))),
                    }
                }
                Some(Err(e)) => return Some((Err(e), (chunks, buffer, ready))),
                // client-go's StreamWatcher: an unexpected EOF inside a frame ends the watch
                // quietly (Rule R10).
                None if !buffer.is_empty() => {
                    buffer.clear();
                    let eof = "unexpected EOF during watch stream event decoding";
                    return Some((
                        Err(SourceError::ProbableEof(eof.into())),
                        (chunks, buffer, ready),
                    ));
                }
                None => return None,
            }
        }
    })
}

/// A decoded answer whose objects are whole; metadata alone is an error for a client.
pub fn whole<T>(decoded: Decoded<T>) -> Result<T, SourceError> {
    match decoded.metadata_only {
        None => Ok(decoded.value),
        Some(kind) => Err(SourceError::Decode(format!(
            "the server answered {kind} in protobuf, which kinformer has no message for; \
             use --content-type json"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_on_their_length_prefix_and_a_huge_length_is_an_error() {
        let mut buffer = BytesMut::from(&[0u8, 0, 0, 2, b'a', b'b', 0, 0, 0, 3, b'c'][..]);
        let frames = split_frames(&mut buffer).unwrap_or_default();
        assert_eq!(frames, vec![Bytes::from_static(b"ab")]);
        assert_eq!(&buffer[..], &[0, 0, 0, 3, b'c'], "a partial frame waits");
        let mut huge = BytesMut::from(&[0xffu8, 0xff, 0xff, 0xff][..]);
        assert!(split_frames(&mut huge).is_err());
    }

    #[test]
    fn content_types_are_told_apart() {
        assert!(is_protobuf(Some(
            "application/vnd.kubernetes.protobuf;stream=watch"
        )));
        assert!(!is_protobuf(Some("application/json")));
        assert!(!is_protobuf(None));
    }
}
