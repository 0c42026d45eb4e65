//! ListerWatcher: where a Reflector's LIST pages and WATCH frames come from.
//!
//! [`KubeSource`] talks to an API server for any GVR through kube's client (auth, kubeconfig,
//! TLS and request building are kube's) and decodes bodies itself so that objects stay raw
//! JSON bytes. [`MemorySource`] is an in-process collection with the same semantics (paged
//! lists, watch from a resourceVersion, bookmarks, 410 for trimmed history, injected failures)
//! for unit tests and replay.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::stream::{BoxStream, StreamExt};
use http_body_util::BodyExt;
use kube::core::params::{ListParams, WatchParams};
use kube::core::{ApiResource, DynamicObject, Request, Resource};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::json_scan;

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
    pub limit: Option<u32>,
    pub continue_token: Option<String>,
}

/// Options of one WATCH request (bookmarks are always allowed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchOptions {
    pub resource_version: String,
    pub timeout_seconds: u64,
    /// Watch-list: initial ADDED events, then a bookmark marking their end.
    pub send_initial_events: bool,
}

/// One page of a LIST: the items' raw JSON.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    pub items: Vec<Bytes>,
    pub resource_version: String,
    pub continue_token: Option<String>,
}

/// A metav1.Status the server answered with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiStatus {
    pub code: Option<u16>,
    pub reason: String,
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
    Added(Bytes),
    Modified(Bytes),
    Deleted(Bytes),
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    Error(ApiStatus),
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
    /// Any other failure to reach the server or to read its answer.
    #[error("{0}")]
    Transport(String),
    /// The answer is not what the protocol allows.
    #[error("malformed response: {0}")]
    Decode(String),
}

impl SourceError {
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

    /// The server refused the request for good: 400, 401, 403, 404 (what `kubectl get`
    /// exits on; an informer retries it, Rule R8).
    pub fn is_refusal(&self) -> bool {
        matches!(self.status_code(), Some(400 | 401 | 403 | 404))
    }

    pub fn status_code(&self) -> Option<u16> {
        match self {
            SourceError::Api(s) => s.code,
            _ => None,
        }
    }

    pub fn reason(&self) -> String {
        match self {
            SourceError::Api(s) => s.reason.clone(),
            SourceError::ConnectionRefused(_) => "ConnectionRefused".into(),
            SourceError::Transport(_) => "Transport".into(),
            SourceError::Decode(_) => "Decode".into(),
        }
    }
}

/// client-go's ListerWatcher.
pub trait ListerWatcher: Send + Sync + 'static {
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage>;
    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream>;
}

/// What a [`KubeSource`] lists and watches.
#[derive(Debug, Clone)]
pub struct KubeTarget {
    pub resource: ApiResource,
    /// None: all namespaces (or a cluster-scoped resource).
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// Ask for PartialObjectMetadata only.
    pub metadata_only: bool,
}

/// A ListerWatcher over kube's client for any GVR.
pub struct KubeSource {
    client: kube::Client,
    target: KubeTarget,
    request: Request,
}

impl KubeSource {
    pub fn new(client: kube::Client, target: KubeTarget) -> Self {
        let url = DynamicObject::url_path(&target.resource, target.namespace.as_deref());
        Self {
            client,
            target,
            request: Request::new(url),
        }
    }

    /// The LIST request with exactly client-go's pager parameters: kube's `ListParams` leaves
    /// `resourceVersion=0` out when a `limit` is set, which would turn the reflector's first
    /// LIST (Rule R1) into a consistent read, so resourceVersion, limit and continue are added
    /// here.
    fn list_request(&self, opts: &ListOptions) -> Result<http::Request<Vec<u8>>, SourceError> {
        let lp = ListParams {
            label_selector: self.target.label_selector.clone(),
            field_selector: self.target.field_selector.clone(),
            ..ListParams::default()
        };
        let built = if self.target.metadata_only {
            self.request.list_metadata(&lp)
        } else {
            self.request.list(&lp)
        };
        let mut request = built.map_err(|e| SourceError::Transport(e.to_string()))?;
        let uri = format!("{}{}", request.uri(), list_query(opts));
        *request.uri_mut() = uri
            .parse()
            .map_err(|e| SourceError::Transport(format!("list URL {uri}: {e}")))?;
        Ok(request)
    }

    fn watch_request(&self, opts: &WatchOptions) -> Result<http::Request<Vec<u8>>, SourceError> {
        let wp = WatchParams {
            label_selector: self.target.label_selector.clone(),
            field_selector: self.target.field_selector.clone(),
            timeout: Some(u32::try_from(opts.timeout_seconds).unwrap_or(u32::MAX)),
            bookmarks: true,
            send_initial_events: opts.send_initial_events,
        };
        let rv = &opts.resource_version;
        let built = if self.target.metadata_only {
            self.request.watch_metadata(&wp, rv)
        } else {
            self.request.watch(&wp, rv)
        };
        built.map_err(|e| SourceError::Transport(e.to_string()))
    }

    async fn send(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<kube::client::Body>, SourceError> {
        let response = self
            .client
            .send(request.map(kube::client::Body::from))
            .await
            .map_err(|e| transport_error(&e))?;
        if response.status().is_success() {
            return Ok(response);
        }
        let code = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = response.into_body().collect().await.map(|b| b.to_bytes());
        let status = status_from_body(code, &body.unwrap_or_default());
        Err(SourceError::Api(ApiStatus {
            retry_after,
            ..status
        }))
    }
}

impl ListerWatcher for KubeSource {
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage> {
        Box::pin(async move {
            let response = self.send(self.list_request(opts)?).await?;
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| SourceError::Transport(e.to_string()))?
                .to_bytes();
            parse_list(&body)
        })
    }

    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream> {
        Box::pin(async move {
            let response = self.send(self.watch_request(opts)?).await?;
            let chunks = response
                .into_body()
                .into_data_stream()
                .map(|r| r.map_err(|e| SourceError::Transport(e.to_string())));
            Ok(frames(chunks).boxed())
        })
    }
}

/// `&resourceVersion=…&limit=…&continue=…` as client-go's pager sends them (the URL kube built
/// already ends in `?` or a parameter).
fn list_query(opts: &ListOptions) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    match &opts.continue_token {
        // A continue token carries its own resourceVersion.
        Some(token) => {
            query.append_pair("continue", token);
        }
        None if !opts.resource_version.is_empty() => {
            query.append_pair("resourceVersion", &opts.resource_version);
        }
        None => {}
    }
    if let Some(limit) = opts.limit {
        query.append_pair("limit", &limit.to_string());
    }
    let query = query.finish();
    if query.is_empty() {
        query
    } else {
        format!("&{query}")
    }
}

/// A kube client error as a [`SourceError`]: connection refused is told apart (Rule R8).
fn transport_error(e: &kube::Error) -> SourceError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        {
            return SourceError::ConnectionRefused(e.to_string());
        }
        cause = c.source();
    }
    SourceError::Transport(e.to_string())
}

/// Splits a byte-chunk stream into newline-delimited watch frames and decodes each.
pub fn frames(
    chunks: impl futures_util::Stream<Item = Result<Bytes, SourceError>> + Send + 'static,
) -> impl futures_util::Stream<Item = Result<WatchFrame, SourceError>> + Send + 'static {
    let state = LineSplitter {
        chunks: Box::pin(chunks),
        buf: BytesMut::new(),
        scanned: 0,
        done: false,
    };
    futures_util::stream::unfold(state, |mut lines| async move {
        let frame = match lines.next_line().await? {
            Ok((line, true)) => parse_watch_frame(&line),
            // client-go's StreamWatcher: an unexpected EOF inside a frame ends the watch (the
            // reflector re-watches from its last resourceVersion); it is not a decode error.
            Ok((line, false)) => parse_watch_frame(&line).map_err(|_| {
                SourceError::Transport("unexpected EOF during watch stream event decoding".into())
            }),
            Err(e) => Err(e),
        };
        Some((frame, lines))
    })
}

/// Newline-delimited lines from byte chunks; each byte is scanned for `\n` once.
struct LineSplitter<S> {
    chunks: std::pin::Pin<Box<S>>,
    buf: BytesMut,
    /// `buf[..scanned]` holds no newline.
    scanned: usize,
    done: bool,
}

impl<S: futures_util::Stream<Item = Result<Bytes, SourceError>>> LineSplitter<S> {
    /// The next non-blank line and whether it was newline-terminated (a trailing line without
    /// newline comes last, when the stream ends).
    async fn next_line(&mut self) -> Option<Result<(Bytes, bool), SourceError>> {
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let line = self.buf.split_to(self.scanned + pos + 1).freeze();
                self.scanned = 0;
                if !line.trim_ascii().is_empty() {
                    return Some(Ok((line, true)));
                }
                continue;
            }
            self.scanned = self.buf.len();
            if self.done {
                self.scanned = 0;
                let rest = self.buf.split().freeze();
                return (!rest.trim_ascii().is_empty()).then_some(Ok((rest, false)));
            }
            match self.chunks.next().await {
                Some(Ok(bytes)) => self.buf.extend_from_slice(&bytes),
                Some(Err(e)) => {
                    self.done = true;
                    self.buf.clear();
                    self.scanned = 0;
                    return Some(Err(e));
                }
                None => self.done = true,
            }
        }
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

/// Decodes one `{"type":..,"object":..}` line; the object is a zero-copy slice of `line`.
/// The line is scanned once ([`json_scan`]); serde_json reads lines of unusual shape and words
/// the errors.
pub fn parse_watch_frame(line: &Bytes) -> Result<WatchFrame, SourceError> {
    let (kind, object) = match scan_frame(line) {
        Some(found) => found,
        None => serde_frame(line)?,
    };
    Ok(match &*kind {
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
fn scan_frame(line: &Bytes) -> Option<(Cow<'_, str>, Bytes)> {
    std::str::from_utf8(line).ok()?;
    let (mut kind, mut object) = (None, None);
    let end = json_scan::for_each_member(line, 0, |key, at| match key {
        b"type" => {
            let (text, end) = json_scan::string_at(line, at)?;
            kind = Some(text?);
            Some(end)
        }
        b"object" => {
            let end = json_scan::value_end(line, at)?;
            object = Some(line.slice(at..end));
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

fn status_from_body(http_code: u16, body: &[u8]) -> ApiStatus {
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

/// An in-memory collection behaving like one resource of an API server.
#[derive(Default)]
pub struct MemorySource {
    state: Mutex<MemoryState>,
}

#[derive(Default)]
struct MemoryState {
    rv: u64,
    objects: BTreeMap<String, (u64, serde_json::Value)>,
    history: VecDeque<(u64, WatchFrame)>,
    /// Events at or below this RV are gone: watching from an older RV gets 410.
    compacted: u64,
    watchers: Vec<mpsc::UnboundedSender<Result<WatchFrame, SourceError>>>,
    /// Injected failures: each lets its count of calls succeed first.
    failures: VecDeque<(usize, SourceError)>,
    calls: Vec<String>,
    /// `resourceVersion="0"` LISTs ignore `limit` ([`MemorySource::serve_from_watch_cache`]).
    watch_cache: bool,
    /// Sent by the next watch-list before its bookmark.
    before_initial_events_end: Vec<WatchFrame>,
}

impl MemoryState {
    /// The injected failure for this call, if its turn has come.
    fn next_failure(&mut self) -> Option<SourceError> {
        let (skip, _) = self.failures.front_mut()?;
        if *skip > 0 {
            *skip -= 1;
            return None;
        }
        self.failures.pop_front().map(|(_, e)| e)
    }

    fn write(&mut self, kind: &'static str, mut obj: serde_json::Value) -> u64 {
        self.rv += 1;
        let rv = self.rv;
        obj["metadata"]["resourceVersion"] = serde_json::Value::String(rv.to_string());
        let key = memory_key(&obj);
        let bytes = Bytes::from(serde_json::to_vec(&obj).unwrap_or_default());
        if kind == "DELETED" {
            self.objects.remove(&key);
        } else {
            self.objects.insert(key, (rv, obj));
        }
        let frame = match kind {
            "ADDED" => WatchFrame::Added(bytes),
            "MODIFIED" => WatchFrame::Modified(bytes),
            _ => WatchFrame::Deleted(bytes),
        };
        self.history.push_back((rv, frame.clone()));
        self.watchers.retain(|w| w.send(Ok(frame.clone())).is_ok());
        rv
    }
}

fn memory_key(obj: &serde_json::Value) -> String {
    let meta = &obj["metadata"];
    super::object::object_key(
        meta["namespace"].as_str(),
        meta["name"].as_str().unwrap_or(""),
    )
}

impl MemorySource {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates or replaces an object (ADDED when new, MODIFIED otherwise); returns its RV.
    pub fn apply(&self, obj: serde_json::Value) -> u64 {
        let mut s = self.lock();
        let kind = if s.objects.contains_key(&memory_key(&obj)) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        s.write(kind, obj)
    }

    /// Deletes the object under `key`, if any; returns the deletion's RV.
    pub fn delete(&self, key: &str) -> Option<u64> {
        let mut s = self.lock();
        let (_, obj) = s.objects.get(key)?.clone();
        Some(s.write("DELETED", obj))
    }

    /// Deletes without telling current watchers (as if the watch was down at that moment).
    pub fn delete_silently(&self, key: &str) {
        let mut s = self.lock();
        let watchers = std::mem::take(&mut s.watchers);
        if let Some((_, obj)) = s.objects.get(key).cloned() {
            s.write("DELETED", obj);
        }
        s.watchers = watchers;
    }

    /// Ends every open watch cleanly.
    pub fn close_watches(&self) {
        self.lock().watchers.clear();
    }

    /// Forgets the event history: a watch from an older RV now gets 410 Expired.
    pub fn trim_history(&self) {
        let mut s = self.lock();
        s.history.clear();
        s.compacted = s.rv;
    }

    /// Sends a BOOKMARK at the current RV to every watcher.
    pub fn bookmark(&self) {
        let mut s = self.lock();
        let frame = WatchFrame::Bookmark {
            resource_version: s.rv.to_string(),
            initial_events_end: false,
        };
        s.watchers.retain(|w| w.send(Ok(frame.clone())).is_ok());
    }

    /// Sends a raw frame (e.g. an ERROR) to every watcher.
    pub fn send_frame(&self, frame: Result<WatchFrame, SourceError>) {
        self.lock()
            .watchers
            .retain(|w| w.send(frame.clone()).is_ok());
    }

    /// Frames the next watch-list sends after its initial ADDED events and before its
    /// initial-events-end bookmark (e.g. a MODIFIED or DELETED that raced the stream).
    pub fn before_initial_events_end(&self, frames: Vec<WatchFrame>) {
        self.lock().before_initial_events_end = frames;
    }

    /// Makes the next LIST or WATCH call fail with `error`.
    pub fn fail_next(&self, error: SourceError) {
        self.fail_later(0, error);
    }

    /// Lets `skip` more LIST/WATCH calls succeed, then fails the next one with `error`.
    pub fn fail_later(&self, skip: usize, error: SourceError) {
        self.lock().failures.push_back((skip, error));
    }

    /// Every LIST/WATCH call so far, as `list rv= limit= continue=` / `watch rv= ...` lines.
    pub fn calls(&self) -> Vec<String> {
        self.lock().calls.clone()
    }

    pub fn resource_version(&self) -> u64 {
        self.lock().rv
    }

    /// `key → resourceVersion` of every object.
    pub fn snapshot(&self) -> BTreeMap<String, String> {
        let s = self.lock();
        s.objects
            .iter()
            .map(|(k, (rv, _))| (k.clone(), rv.to_string()))
            .collect()
    }

    /// Serve `resourceVersion="0"` LISTs as kube-apiserver's watch cache does: the whole
    /// collection in one page, `limit` ignored. Off (the default) pages every LIST, as a server
    /// without a watch cache does.
    pub fn serve_from_watch_cache(&self, on: bool) {
        self.lock().watch_cache = on;
    }

    fn list_now(&self, opts: &ListOptions) -> Result<ListPage, SourceError> {
        let mut s = self.lock();
        s.calls.push(format!(
            "list rv={} limit={:?} continue={:?}",
            opts.resource_version, opts.limit, opts.continue_token
        ));
        if let Some(e) = s.next_failure() {
            return Err(e);
        }
        let after = opts.continue_token.clone().unwrap_or_default();
        let from_cache = s.watch_cache && opts.resource_version == "0";
        let limit = opts
            .limit
            .filter(|_| !from_cache)
            .map_or(usize::MAX, |l| l as usize);
        let mut items = s
            .objects
            .range::<String, _>((std::ops::Bound::Excluded(after), std::ops::Bound::Unbounded))
            .map(|(k, (_, v))| {
                (
                    k.clone(),
                    Bytes::from(serde_json::to_vec(v).unwrap_or_default()),
                )
            });
        let page: Vec<(String, Bytes)> = items.by_ref().take(limit).collect();
        let more = items.next().is_some();
        Ok(ListPage {
            continue_token: more.then(|| page.last().map(|(k, _)| k.clone())).flatten(),
            items: page.into_iter().map(|(_, b)| b).collect(),
            resource_version: s.rv.to_string(),
        })
    }

    fn watch_now(&self, opts: &WatchOptions) -> Result<WatchStream, SourceError> {
        let mut s = self.lock();
        s.calls.push(format!(
            "watch rv={} timeout={} initial={}",
            opts.resource_version, opts.timeout_seconds, opts.send_initial_events
        ));
        if let Some(e) = s.next_failure() {
            return Err(e);
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let from: u64 = opts.resource_version.parse().unwrap_or(0);
        if opts.send_initial_events {
            for (_, v) in s.objects.values() {
                let bytes = Bytes::from(serde_json::to_vec(v).unwrap_or_default());
                let _ = tx.send(Ok(WatchFrame::Added(bytes)));
            }
            for frame in std::mem::take(&mut s.before_initial_events_end) {
                let _ = tx.send(Ok(frame));
            }
            let _ = tx.send(Ok(WatchFrame::Bookmark {
                resource_version: s.rv.to_string(),
                initial_events_end: true,
            }));
        } else if from < s.compacted {
            let _ = tx.send(Ok(WatchFrame::Error(ApiStatus {
                retry_after: None,
                code: Some(410),
                reason: "Expired".into(),
                message: format!("too old resource version: {from} ({})", s.compacted),
                ..ApiStatus::default()
            })));
            return Ok(tokio_stream_from(rx));
        } else {
            for (rv, frame) in &s.history {
                if *rv > from {
                    let _ = tx.send(Ok(frame.clone()));
                }
            }
        }
        s.watchers.push(tx);
        Ok(tokio_stream_from(rx))
    }
}

fn tokio_stream_from(
    mut rx: mpsc::UnboundedReceiver<Result<WatchFrame, SourceError>>,
) -> WatchStream {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}

impl ListerWatcher for MemorySource {
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage> {
        Box::pin(std::future::ready(self.list_now(opts)))
    }

    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream> {
        Box::pin(std::future::ready(self.watch_now(opts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    async fn a_stream_cut_inside_a_frame_ends_the_watch_but_a_bad_line_is_a_decode_error() {
        let cut: Vec<Result<Bytes, SourceError>> = vec![Ok(Bytes::from_static(
            b"{\"type\":\"DELETED\",\"object\":{}}\n{\"type\":\"ADD",
        ))];
        let got: Vec<_> = frames(futures_util::stream::iter(cut)).collect().await;
        assert!(matches!(got[0], Ok(WatchFrame::Deleted(_))));
        assert!(matches!(&got[1], Err(SourceError::Transport(m)) if m.contains("unexpected EOF")));
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
