//! The ListerWatcher contract: the options of a LIST or WATCH, what each answers (pages, watch
//! frames, metav1.Status) and the errors a source reports.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::BoxStream;

use crate::informer::object::ObjectMeta;

/// A boxed future returned by [`ListerWatcher`] methods.
pub type SourceFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SourceError>> + Send + 'a>>;

/// A stream of decoded watch frames.
pub type WatchStream = BoxStream<'static, Result<WatchFrame, SourceError>>;

/// Options of one LIST request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// `""`: a consistent read; `"0"`: any state (a watch cache may ignore `limit`); `"N"`:
    /// not older than N.
    pub resource_version: String,
    /// Page size (`limit`).
    pub limit: Option<u32>,
    /// The previous page's `continue` token.
    pub continue_token: Option<String>,
}

/// Options of one WATCH request (bookmarks are always allowed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchOptions {
    /// Watch from this resourceVersion.
    pub resource_version: String,
    /// `timeoutSeconds`: the server ends the watch then.
    pub timeout_seconds: u64,
    /// Watch-list: initial ADDED events, then a bookmark marking their end.
    pub send_initial_events: bool,
}

/// One page of a LIST: the items' raw JSON.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    /// The items' raw JSON.
    pub items: Vec<Bytes>,
    /// The list's resourceVersion.
    pub resource_version: String,
    /// The token for the next page, if any.
    pub continue_token: Option<String>,
}

/// A metav1.Status the server answered with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiStatus {
    /// HTTP status code.
    pub code: Option<u16>,
    /// Machine-readable reason (`Expired`, `Gone`, …).
    pub reason: String,
    /// Human-readable message.
    pub message: String,
    /// The `Retry-After` the server asked for (429, 503).
    pub retry_after: Option<Duration>,
    /// A cause `ResourceVersionTooLarge` (or the older servers' message for it): the
    /// resourceVersion asked for is newer than the server has.
    pub too_large_resource_version: bool,
}

impl ApiStatus {
    /// 410 Gone / reason Expired or Gone: the resourceVersion is too old (Rule R3).
    pub fn is_expired(&self) -> bool {
        self.code == Some(410) || self.reason == "Expired" || self.reason == "Gone"
    }
}

/// One frame of a watch stream.
#[derive(Debug, Clone)]
pub enum WatchFrame {
    /// ADDED, with the object.
    Added(WatchObject),
    /// MODIFIED, with the object.
    Modified(WatchObject),
    /// DELETED, with the object's last state.
    Deleted(WatchObject),
    /// BOOKMARK.
    Bookmark {
        /// The bookmark's resourceVersion.
        resource_version: String,
        /// It ends a watch-list's initial events.
        initial_events_end: bool,
    },
    /// ERROR: a Status in the stream (410 Expired, …).
    Error(ApiStatus),
}

/// A watch event's object: its raw JSON and, when the frame parser read it while validating
/// the frame, its metadata (the informer then does not walk the object's bytes again). It
/// dereferences to the raw JSON.
#[derive(Debug, Clone)]
pub struct WatchObject {
    raw: Bytes,
    meta: Option<ObjectMeta>,
}

impl WatchObject {
    /// `raw` with the metadata read from it while it was validated (spans from its first byte).
    pub(crate) fn scanned(raw: Bytes, meta: Option<ObjectMeta>) -> Self {
        let meta = meta.map(|m| m.describing(raw.clone()));
        Self { raw, meta }
    }

    /// The metadata read with the raw JSON, if any.
    pub fn meta(&self) -> Option<&ObjectMeta> {
        self.meta.as_ref()
    }

    /// The raw JSON and the metadata read with it, if any.
    pub fn into_parts(self) -> (Bytes, Option<ObjectMeta>) {
        (self.raw, self.meta)
    }
}

impl From<Bytes> for WatchObject {
    /// An object whose metadata is read when it is ingested.
    fn from(raw: Bytes) -> Self {
        Self { raw, meta: None }
    }
}

impl From<Vec<u8>> for WatchObject {
    /// An object whose metadata is read when it is ingested.
    fn from(raw: Vec<u8>) -> Self {
        Bytes::from(raw).into()
    }
}

impl From<WatchObject> for Bytes {
    fn from(object: WatchObject) -> Self {
        object.raw
    }
}

impl std::ops::Deref for WatchObject {
    type Target = Bytes;

    fn deref(&self) -> &Bytes {
        &self.raw
    }
}

/// Why a LIST or WATCH failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The server answered with a metav1.Status (an HTTP error or a watch ERROR event).
    #[error("{} ({})", .0.message, .0.reason)]
    Api(ApiStatus),
    /// Nothing listens at the server's address: the one transport failure client-go retries
    /// a watch for in place (`utilnet.IsConnectionRefused`).
    #[error("{0}")]
    ConnectionRefused(String),
    /// The connection ended under the request or the stream: EOF, unexpected EOF, connection
    /// reset, broken pipe, a closed connection, HTTP/2 GOAWAY — apimachinery's
    /// `net.IsProbableEOF` (util/net/http.go:79) and `net.IsConnectionReset`. A watch stream
    /// that ends so is a normal close (Rule R10); the REST client retries a GET or a WATCH
    /// open that fails so (Rule R11).
    #[error("{0}")]
    ProbableEof(String),
    /// A dial or read timed out (apimachinery's `net.IsTimeout`, util/net/http.go:65): like
    /// [`SourceError::ProbableEof`] for a watch stream and a WATCH open.
    #[error("{0}")]
    Timeout(String),
    /// Any other failure to reach the server or to read its answer.
    #[error("{0}")]
    Transport(String),
    /// The answer is not what the protocol allows.
    #[error("malformed response: {0}")]
    Decode(String),
}

impl SourceError {
    /// Whether it is a 410 Expired/Gone (the Reflector relists).
    pub fn is_expired(&self) -> bool {
        matches!(self, SourceError::Api(s) if s.is_expired())
    }

    /// client-go's `isTooLargeResourceVersionError`.
    pub fn is_too_large_resource_version(&self) -> bool {
        matches!(self, SourceError::Api(s) if s.too_large_resource_version)
    }

    /// 429 Too Many Requests.
    pub fn is_too_many_requests(&self) -> bool {
        self.status_code() == Some(429)
    }

    /// client-go's `isWatchErrorRetriable`: connection refused or 429 — a watch worth
    /// re-opening in place rather than relisting (Rule R8).
    pub fn is_watch_retriable(&self) -> bool {
        matches!(self, SourceError::ConnectionRefused(_)) || self.is_too_many_requests()
    }

    /// client-go's StreamWatcher ends a watch quietly on these (streamwatcher.go:117-124):
    /// EOF-like or a timeout — a normal close, not an error event (Rule R10).
    pub fn is_normal_watch_close(&self) -> bool {
        matches!(self, SourceError::ProbableEof(_) | SourceError::Timeout(_))
    }

    /// The server refused the request for good: 400, 401, 403, 404 (what `kubectl get`
    /// exits on; an informer retries it, Rule R8).
    pub fn is_refusal(&self) -> bool {
        matches!(self.status_code(), Some(400 | 401 | 403 | 404))
    }

    /// The short reason a retry, relist or backoff line gives: `410 Expired`, or the message
    /// of a failure the server did not answer.
    pub fn summary(&self) -> String {
        match self.status_code() {
            Some(code) => format!("{code} {}", self.reason()),
            None => self.to_string(),
        }
    }

    /// The HTTP status of an API error.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            SourceError::Api(s) => s.code,
            _ => None,
        }
    }

    /// A short machine-readable reason (the Status reason, or the transport kind).
    pub fn reason(&self) -> String {
        match self {
            SourceError::Api(s) => s.reason.clone(),
            SourceError::ConnectionRefused(_) => "ConnectionRefused".into(),
            SourceError::ProbableEof(_) => "ProbableEOF".into(),
            SourceError::Timeout(_) => "Timeout".into(),
            SourceError::Transport(_) => "Transport".into(),
            SourceError::Decode(_) => "Decode".into(),
        }
    }
}

/// client-go's ListerWatcher: one resource's LIST and WATCH.
///
/// Contract: `list` answers one page — its items' raw JSON, the collection's resourceVersion
/// and a continue token when more pages follow — for exactly the options given (a source never
/// retries by itself; every failure reaches the reflector as a [`SourceError`]). `watch` opens
/// a stream of frames that starts after `resource_version` ("" with `send_initial_events`:
/// a consistent snapshot first); the stream ends cleanly when the server closes it, and
/// yields an `Err` for a broken stream or a frame that cannot be decoded.
pub trait ListerWatcher: Send + Sync + 'static {
    /// One LIST page.
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage>;
    /// A WATCH stream.
    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream>;
}
