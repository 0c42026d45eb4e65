//! The body relayed to the client, read on the way: every chunk goes to the client as it
//! arrives (a watch or a chunked LIST is never held back) and to a [`Tap`], which splits watch
//! lines, keeps a LIST's body (or an error's Status) until its end, and tells the registry.
//! When the client goes away first, the tap is told so on drop.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::Instant;

use crate::informer::source::{SourceError, status_from_body};
use crate::informer::trace::Event;

use super::decode::{Encoding, list_page, protobuf_frame, watch_frame};
use super::streams::{ClientId, Ending, Registry, StreamId};
use crate::informer::source::protobuf;

/// How much of an error answer is kept to read its Status.
const STATUS_LIMIT: usize = 64 * 1024;

/// What the relayed body is, and what is kept of it.
pub enum Reading {
    /// A LIST page answered 2xx.
    List { stream: StreamId, body: BytesMut },
    /// A WATCH answered 2xx: the part of a line not yet ended.
    Watch { stream: StreamId, line: BytesMut },
    /// A LIST or WATCH answered with an error status.
    Failed {
        stream: StreamId,
        code: u16,
        retry_after: Option<Duration>,
        body: BytesMut,
    },
    /// Any other request: counted, one `request` line at its end.
    Other {
        client: ClientId,
        verb: String,
        path: String,
        resource: Option<String>,
        code: u16,
    },
}

/// See the module documentation.
pub struct Tap {
    registry: std::sync::Arc<Registry>,
    reading: Reading,
    encoding: Encoding,
    bytes: u64,
    started: Instant,
}

impl Tap {
    pub fn new(
        registry: std::sync::Arc<Registry>,
        reading: Reading,
        encoding: Encoding,
        started: Instant,
    ) -> Self {
        Self {
            registry,
            reading,
            encoding,
            bytes: 0,
            started,
        }
    }

    fn chunk(&mut self, data: &Bytes) {
        self.bytes += data.len() as u64;
        match &mut self.reading {
            Reading::List { body, .. } => {
                if self.encoding != Encoding::Opaque {
                    body.extend_from_slice(data);
                }
            }
            Reading::Failed { body, .. } => {
                let room = STATUS_LIMIT.saturating_sub(body.len());
                body.extend_from_slice(&data[..room.min(data.len())]);
            }
            Reading::Watch { stream, line } if self.encoding == Encoding::Protobuf => {
                line.extend_from_slice(data);
                let frames = protobuf::split_frames(line).unwrap_or_else(|e| {
                    self.registry.failed(*stream, e, 0);
                    Vec::new()
                });
                for frame in frames {
                    let bytes = frame.len() as u64 + 4;
                    match protobuf_frame(frame) {
                        Ok((frame, wire)) => self.registry.frame(*stream, frame, bytes, Some(wire)),
                        Err(e) => self.registry.failed(*stream, e, bytes),
                    }
                }
            }
            Reading::Watch { stream, line } => {
                line.extend_from_slice(data);
                while let Some(end) = memchr::memchr(b'\n', line) {
                    let whole = line.split_to(end + 1).freeze();
                    watch_line(&self.registry, self.encoding, *stream, whole);
                }
            }
            Reading::Other { .. } => {}
        }
    }

    /// The body ended (`ending`); tells the registry what it was.
    fn finish(self, ending: Ending) {
        let Tap {
            registry,
            reading,
            encoding,
            bytes,
            started,
        } = self;
        match reading {
            // CBOR and the like are relayed, not read (docs/proxy.md, "What is not supported").
            Reading::List { stream, .. } if encoding == Encoding::Opaque => {
                registry.ended(stream, ending);
            }
            Reading::List { stream, body } => {
                let body = body.freeze();
                match (&ending, list_page(&body, encoding)) {
                    (Ending::Complete, Ok((page, wire))) => {
                        registry.list_answered(stream, page, bytes, wire);
                    }
                    (Ending::Complete, Err(e)) => registry.failed(stream, e, bytes),
                    (Ending::Broken(why), _) => {
                        registry.failed(stream, SourceError::Transport(why.clone()), bytes);
                    }
                    (Ending::ClientGone, _) => registry.ended(stream, ending),
                }
            }
            Reading::Watch { stream, .. } => registry.ended(stream, ending),
            Reading::Failed {
                stream,
                code,
                retry_after,
                body,
            } => {
                let mut status = status_from_body(code, &body);
                status.retry_after = status.retry_after.or(retry_after);
                registry.failed(stream, SourceError::Api(status), bytes);
            }
            Reading::Other {
                client,
                verb,
                path,
                resource,
                code,
            } => {
                let request = Event::Request {
                    client: registry.client_name(client),
                    verb,
                    path,
                    code,
                    bytes,
                    duration: started.elapsed(),
                };
                registry.request(client, request, resource.as_deref());
            }
        }
    }
}

/// One whole watch line (newline included), told to the registry as a frame.
fn watch_line(registry: &Registry, encoding: Encoding, stream: StreamId, line: Bytes) {
    let text = line.slice(..line.len().saturating_sub(1));
    if text.iter().all(u8::is_ascii_whitespace) || encoding == Encoding::Opaque {
        return;
    }
    let bytes = line.len() as u64;
    match watch_frame(&text, encoding) {
        Ok(frame) => registry.frame(stream, frame, bytes, None),
        Err(e) => registry.failed(stream, e, bytes),
    }
}

/// The upstream's body, relayed frame by frame, read by a [`Tap`].
pub struct TapBody<B> {
    inner: B,
    tap: Option<Tap>,
}

impl<B> TapBody<B> {
    pub fn new(inner: B, tap: Tap) -> Self {
        Self {
            inner,
            tap: Some(tap),
        }
    }
}

impl<B> Body for TapBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(data), Some(tap)) = (frame.data_ref(), this.tap.as_mut()) {
                    tap.chunk(data);
                }
                // HTTP/2 stops polling a body that says it ended.
                if this.inner.is_end_stream()
                    && let Some(tap) = this.tap.take()
                {
                    tap.finish(Ending::Complete);
                }
            }
            Poll::Ready(Some(Err(e))) => {
                if let Some(tap) = this.tap.take() {
                    tap.finish(Ending::Broken(e.to_string()));
                }
            }
            Poll::Ready(None) => {
                if let Some(tap) = this.tap.take() {
                    tap.finish(Ending::Complete);
                }
            }
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B> Drop for TapBody<B> {
    fn drop(&mut self) {
        if let Some(tap) = self.tap.take() {
            tap.finish(Ending::ClientGone);
        }
    }
}
