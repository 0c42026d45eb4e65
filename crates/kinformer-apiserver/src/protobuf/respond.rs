//! Answers in protobuf, for a request that negotiated it (`negotiation.rs`): the handler's JSON
//! answer — an object, a list, a `PartialObjectMetadata[List]`, a `Status` — written again by
//! [`encode`](super::encode) with `Content-Type: application/vnd.kubernetes.protobuf`, and a
//! watch's JSON lines, one event each, as length-prefixed `WatchEvent` frames with
//! `Content-Type: application/vnd.kubernetes.protobuf;stream=watch` (apimachinery
//! `runtime/serializer/protobuf` `LengthDelimitedFramer`). An answer with no protobuf
//! message (a custom resource's object) stays JSON.

use axum::body::Body;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http::{HeaderValue, header};
use serde_json::Value;

use super::MEDIA_TYPE;
use super::encode;

/// The Content-Type of a protobuf watch.
const WATCH_MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// How much of a list body the server reads before it gives up on writing it again.
const MAX_BODY: usize = 1 << 31;

/// `response` (a JSON answer) in protobuf; a successful watch's stream frame by frame.
pub async fn answer(response: Response, watch: bool) -> Response {
    if !is_json(&response) {
        return response;
    }
    if watch && response.status().is_success() {
        return stream(response);
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let encoded = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|value| encode::object(&value).ok());
    match encoded {
        Some(encoded) => {
            parts
                .headers
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(encoded))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

/// A watch's JSON lines as frames, as they come; an error of the stream (an aborted watch)
/// is passed on.
fn stream(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(WATCH_MEDIA_TYPE),
    );
    let mut pending = BytesMut::new();
    let frames = body.into_data_stream().map(move |chunk| {
        let chunk = chunk?;
        pending.extend_from_slice(&chunk);
        let mut out = Vec::new();
        while let Some(end) = memchr::memchr(b'\n', &pending) {
            let line = pending.split_to(end + 1);
            out.extend(frame(&line[..end]));
        }
        Ok::<Bytes, axum::Error>(Bytes::from(out))
    });
    Response::from_parts(parts, Body::from_stream(frames))
}

/// One watch line (`{"type":…,"object":…}`) as a frame; a line that is no event (a fault's
/// garbage) as it is.
fn frame(line: &[u8]) -> Vec<u8> {
    let Ok(event) = serde_json::from_slice::<Value>(line) else {
        return line.to_vec();
    };
    let event_type = event["type"].as_str().unwrap_or_default();
    match encode::object(&event["object"]) {
        Ok(object) => encode::watch_frame(event_type, &object),
        Err(_) => line.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    fn json(body: Body) -> Response {
        let mut response = Response::new(body);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    #[tokio::test]
    async fn an_object_is_answered_in_protobuf_and_a_custom_one_in_json() {
        let map = r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}"#;
        let config_map = answer(json(Body::from(map)), false).await;
        assert_eq!(config_map.headers()[header::CONTENT_TYPE], MEDIA_TYPE);
        let bytes = axum::body::to_bytes(config_map.into_body(), 1 << 20)
            .await
            .unwrap();
        assert!(bytes.starts_with(b"k8s\0"));
        let widget = r#"{"kind":"Widget","apiVersion":"example.com/v1"}"#;
        let custom = answer(json(Body::from(widget)), false).await;
        assert_eq!(custom.headers()[header::CONTENT_TYPE], "application/json");
    }

    #[tokio::test]
    async fn watch_lines_split_across_chunks_become_frames() {
        let lines = concat!(
            r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}"#,
            "\n",
            r#"{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b"}}}"#,
            "\n"
        );
        let (first, second) = lines.split_at(30);
        let chunks = futures_util::stream::iter([
            Ok::<_, Infallible>(Bytes::from_static(first.as_bytes())),
            Ok(Bytes::from_static(second.as_bytes())),
        ]);
        let answer = answer(json(Body::from_stream(chunks)), true).await;
        assert_eq!(answer.headers()[header::CONTENT_TYPE], WATCH_MEDIA_TYPE);
        let bytes = axum::body::to_bytes(answer.into_body(), 1 << 20)
            .await
            .unwrap();
        let length = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        assert_eq!(&bytes[4..11], b"\x0a\x05ADDED");
        assert_eq!(&bytes[8 + length..8 + length + 9], b"\x0a\x07DELETED");
        assert_eq!(
            bytes.len(),
            8 + length
                + u32::from_be_bytes([
                    bytes[4 + length],
                    bytes[5 + length],
                    bytes[6 + length],
                    bytes[7 + length],
                ]) as usize
        );
    }
}
