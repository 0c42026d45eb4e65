//! The record file: what `kinformer record` writes and `kinformer replay` reads — JSONL,
//! version 1, optionally zstd-compressed (told by its magic bytes).
//!
//! Line 1 is the header; every other line is one entry of one resource's ListerWatcher
//! traffic, `t` milliseconds after the recording started:
//!
//! ```text
//! {"kinformer-record":1,"created":"2026-11-22T10:00:00Z","server_version":"v1.32.0","client_go":"1.36","resources":["pods"]}
//! {"t":0,"r":"pods","list":{"rv":"0","limit":500}}                    a LIST request
//! {"t":41,"r":"pods","page":{"rv":"4711","continue":null,"items":[…]}} its page (raw items)
//! {"t":42,"r":"pods","watch":{"rv":"4711","timeout_s":412,"initial_events":false}}
//! {"t":900,"r":"pods","frame":{"type":"MODIFIED","object":{…}}}       a watch frame (raw object)
//! {"t":950,"r":"pods","frame":{"type":"BOOKMARK","rv":"4800","initial_events_end":false}}
//! {"t":960,"r":"pods","frame":{"type":"ERROR","status":{"code":410,"reason":"Expired","message":"…"}}}
//! {"t":990,"r":"pods","error":{"kind":"api","code":429,"reason":"TooManyRequests","message":"…"}}
//! {"t":999,"r":"pods","stream_error":{"kind":"transport","message":"…"}}
//! {"t":1000,"r":"pods","end":true}                                     the server closed the watch
//! {"t":8000,"stopped":true}                                            the recording stopped
//! ```
//!
//! `error` answers the LIST or WATCH request before it (the request failed); `stream_error`
//! and `end` close the open watch (broken, or ended cleanly). A request while a watch is open
//! means the client dropped that watch. The last line, `stopped` (no resource), says when the
//! recording stopped, so a replay keeps the quiet time after the last entry (a file without it
//! ends at its last entry). Objects are embedded verbatim, except the values of
//! core/v1 Secrets (resource `secrets`): their `data`/`stringData` values, also inside the
//! last-applied annotation, are written `"REDACTED"` unless the recording keeps them
//! ([`SecretData::Keep`], `--show-secret-data`), as every other output does.
//!
//! A page or frame that came in protobuf (`kinformer proxy` in front of a typed client-go
//! client) is written decoded, as the JSON answer would have held it, plus the bytes as sent
//! (`"protobuf"`: base64; left out of a redacted Secret stream) and, when a kind had no
//! message, `"metadata_only":"APIVERSION KIND"` (its objects are their metadata alone).

use std::io::Read;
use std::time::Duration;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{ApiStatus, ListOptions, ListPage, SourceError, WatchFrame, WatchOptions};
use crate::json_scan::single_line;
use crate::redact::{SECRETS_RESOURCE, redact_secret};

/// The version this kinformer writes and reads.
pub const VERSION: u64 = 1;

/// The header's version key.
pub const HEADER_KEY: &str = "kinformer-record";

/// The header's `client_go` of a recording of clients kinformer only observed (a proxy's).
pub const OBSERVED: &str = "observed";

/// zstd's frame magic number, as the file's first bytes.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether `bytes` look like a record file (zstd-compressed, or a first line naming the
/// format) rather than anything else, e.g. a JSONL trace.
pub fn looks_like_record(bytes: &[u8]) -> bool {
    let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    bytes.starts_with(&ZSTD_MAGIC)
        || memchr::memmem::find(first_line, b"\"kinformer-record\"").is_some()
}

/// The first line of a record file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    #[serde(rename = "kinformer-record")]
    pub version: u64,
    /// When the recording started (RFC 3339, UTC).
    pub created: String,
    /// The API server's `gitVersion`, when it told.
    pub server_version: Option<String>,
    /// The `--client-go` release the recording ran with.
    pub client_go: String,
    /// The resources recorded, as trace lines name them (`kinformer proxy`: the streams).
    pub resources: Vec<String>,
    /// `kinformer proxy`: the clients whose informer streams the file holds, each naming its
    /// streams (`CLIENT/RESOURCE…`, as `resources` does). Absent in other recordings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<RecordedClient>,
}

/// A client seen by `kinformer proxy`, as the record header names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedClient {
    pub name: String,
    pub user_agent: String,
    pub streams: Vec<String>,
}

/// One recorded event of one resource's traffic, with its line number in the file.
#[derive(Debug, Clone)]
pub struct Entry {
    pub line: usize,
    /// Milliseconds after the recording started.
    pub t: u64,
    pub resource: String,
    pub kind: EntryKind,
    /// A page or frame that came in protobuf: the bytes as the server sent them.
    pub protobuf: Option<ProtobufWire>,
}

/// A protobuf answer (`kinformer proxy` in front of a typed client-go client) as recorded
/// beside its decoded JSON: the bytes the server sent (a LIST body; a watch frame without its
/// length prefix), and the `apiVersion kind` whose objects could only be decoded as metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtobufWire {
    /// The bytes as sent; empty in a Secret stream written redacted (they hold the values).
    pub bytes: Bytes,
    pub metadata_only: Option<String>,
}

/// What an entry records.
#[derive(Debug, Clone)]
pub enum EntryKind {
    List(ListOptions),
    Page(ListPage),
    Watch(WatchOptions),
    Frame(WatchFrame),
    /// The request before it failed.
    Error(SourceError),
    /// The open watch broke.
    StreamError(SourceError),
    /// The open watch ended cleanly.
    End,
}

/// The LIST request as recorded.
#[derive(Debug, Serialize, Deserialize)]
struct ListRec {
    rv: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limit: Option<u32>,
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    continue_token: Option<String>,
}

/// The WATCH request as recorded.
#[derive(Debug, Serialize, Deserialize)]
struct WatchRec {
    rv: String,
    timeout_s: u64,
    initial_events: bool,
}

/// A failure as recorded.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ErrorRec {
    /// `api`, `refused`, `eof` (probable EOF), `timeout`, `transport` or `decode`.
    kind: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    code: Option<u16>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    too_large_rv: bool,
}

impl From<&SourceError> for ErrorRec {
    fn from(e: &SourceError) -> Self {
        let plain = |kind: &str, message: &str| ErrorRec {
            kind: kind.into(),
            message: message.into(),
            ..ErrorRec::default()
        };
        match e {
            SourceError::Api(s) => ErrorRec {
                kind: "api".into(),
                message: s.message.clone(),
                code: s.code,
                reason: s.reason.clone(),
                retry_after_ms: s.retry_after.map(millis),
                too_large_rv: s.too_large_resource_version,
            },
            SourceError::ConnectionRefused(m) => plain("refused", m),
            SourceError::ProbableEof(m) => plain("eof", m),
            SourceError::Timeout(m) => plain("timeout", m),
            SourceError::Transport(m) => plain("transport", m),
            SourceError::Decode(m) => plain("decode", m),
        }
    }
}

impl ErrorRec {
    fn into_error(self) -> Result<SourceError, String> {
        Ok(match self.kind.as_str() {
            "api" => SourceError::Api(self.status()),
            "refused" => SourceError::ConnectionRefused(self.message),
            "eof" => SourceError::ProbableEof(self.message),
            "timeout" => SourceError::Timeout(self.message),
            "transport" => SourceError::Transport(self.message),
            "decode" => SourceError::Decode(self.message),
            other => return Err(format!("unknown error kind {other:?}")),
        })
    }

    fn status(self) -> ApiStatus {
        ApiStatus {
            code: self.code,
            reason: self.reason,
            message: self.message,
            retry_after: self.retry_after_ms.map(Duration::from_millis),
            too_large_resource_version: self.too_large_rv,
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What the writer does with the values of a Secret (`data`, `stringData`, and both inside the
/// last-applied annotation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SecretData {
    /// Written as `"REDACTED"`, keys kept (the default, as every other output).
    #[default]
    Redact,
    /// Written as received (`--show-secret-data`).
    Keep,
}

impl SecretData {
    /// `--show-secret-data`: keep the values, else redact them.
    pub fn shown(show_secret_data: bool) -> Self {
        if show_secret_data {
            Self::Keep
        } else {
            Self::Redact
        }
    }

    /// Whether `resource`'s objects are written redacted.
    fn redacts(self, resource: &str) -> bool {
        self == Self::Redact && resource == SECRETS_RESOURCE
    }
}

/// Appends one entry as one line (newline included) to `out`, Secret values as `secrets` says.
pub fn write_entry_with(
    out: &mut Vec<u8>,
    t: u64,
    resource: &str,
    kind: &EntryKind,
    secrets: SecretData,
) {
    write_entry_redacting(out, t, resource, kind, secrets.redacts(resource));
}

/// Appends one entry of `resource` (newline included) to `out`, its objects' Secret values
/// redacted when `redact` (`kinformer proxy`: its streams of secrets are named after the client).
pub fn write_entry_redacting(
    out: &mut Vec<u8>,
    t: u64,
    resource: &str,
    kind: &EntryKind,
    redact: bool,
) {
    write_entry_with_wire(out, t, resource, kind, redact, None);
}

/// [`write_entry_redacting`] of a page or frame that came in protobuf: its bytes (base64) and
/// what was decoded metadata only go into the page or frame object (`protobuf`,
/// `metadata_only`); the bytes are left out when `redact` (they hold the Secret values).
pub fn write_entry_with_wire(
    out: &mut Vec<u8>,
    t: u64,
    resource: &str,
    kind: &EntryKind,
    redact: bool,
    wire: Option<&ProtobufWire>,
) {
    out.extend_from_slice(format!("{{\"t\":{t},\"r\":").as_bytes());
    json(out, &resource);
    let key = match kind {
        EntryKind::List(_) => "list",
        EntryKind::Page(_) => "page",
        EntryKind::Watch(_) => "watch",
        EntryKind::Frame(_) => "frame",
        EntryKind::Error(_) => "error",
        EntryKind::StreamError(_) => "stream_error",
        EntryKind::End => "end",
    };
    out.extend_from_slice(format!(",\"{key}\":").as_bytes());
    match kind {
        EntryKind::List(o) => json(out, &list_rec(o)),
        EntryKind::Page(page) => {
            write_page(out, page, redact);
            write_wire(out, wire, redact);
        }
        EntryKind::Watch(o) => json(
            out,
            &WatchRec {
                rv: o.resource_version.clone(),
                timeout_s: o.timeout_seconds,
                initial_events: o.send_initial_events,
            },
        ),
        EntryKind::Frame(frame) => {
            write_frame(out, frame, redact);
            write_wire(out, wire, redact);
        }
        EntryKind::Error(e) | EntryKind::StreamError(e) => json(out, &ErrorRec::from(e)),
        EntryKind::End => out.extend_from_slice(b"true"),
    }
    out.extend_from_slice(b"}\n");
}

/// Adds `protobuf` and `metadata_only` to the page or frame object just written.
fn write_wire(out: &mut Vec<u8>, wire: Option<&ProtobufWire>, redact: bool) {
    let Some(wire) = wire else {
        return;
    };
    if out.pop() != Some(b'}') {
        return;
    }
    if !redact {
        out.extend_from_slice(b",\"protobuf\":\"");
        out.extend_from_slice(BASE64_STANDARD.encode(&wire.bytes).as_bytes());
        out.push(b'"');
    }
    if let Some(kind) = &wire.metadata_only {
        out.extend_from_slice(b",\"metadata_only\":");
        json(out, kind);
    }
    out.push(b'}');
}

fn list_rec(o: &ListOptions) -> ListRec {
    ListRec {
        rv: o.resource_version.clone(),
        limit: o.limit,
        continue_token: o.continue_token.clone(),
    }
}

/// Appends the last line: the recording stopped `t` milliseconds after it started.
pub fn write_stopped(out: &mut Vec<u8>, t: u64) {
    out.extend_from_slice(format!("{{\"t\":{t},\"stopped\":true}}\n").as_bytes());
}

/// Serialises a value that cannot fail to serialise (plain data) into `out`.
fn json(out: &mut Vec<u8>, value: &impl Serialize) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Writes an object on one line, its Secret values redacted when `redact`.
fn write_object(out: &mut Vec<u8>, raw: &[u8], redact: bool) {
    let line = single_line(raw);
    if redact {
        out.extend_from_slice(&redact_secret(&line));
    } else {
        out.extend_from_slice(&line);
    }
}

fn write_page(out: &mut Vec<u8>, page: &ListPage, redact: bool) {
    out.extend_from_slice(b"{\"rv\":");
    json(out, &page.resource_version);
    out.extend_from_slice(b",\"continue\":");
    json(out, &page.continue_token);
    out.extend_from_slice(b",\"items\":[");
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_object(out, item, redact);
    }
    out.extend_from_slice(b"]}");
}

fn write_frame(out: &mut Vec<u8>, frame: &WatchFrame, redact: bool) {
    let object = |out: &mut Vec<u8>, kind: &str, raw: &Bytes| {
        out.extend_from_slice(format!("{{\"type\":\"{kind}\",\"object\":").as_bytes());
        write_object(out, raw, redact);
        out.push(b'}');
    };
    match frame {
        WatchFrame::Added(raw) => object(out, "ADDED", raw),
        WatchFrame::Modified(raw) => object(out, "MODIFIED", raw),
        WatchFrame::Deleted(raw) => object(out, "DELETED", raw),
        WatchFrame::Bookmark {
            resource_version,
            initial_events_end,
        } => {
            out.extend_from_slice(b"{\"type\":\"BOOKMARK\",\"rv\":");
            json(out, resource_version);
            out.extend_from_slice(
                format!(",\"initial_events_end\":{initial_events_end}}}").as_bytes(),
            );
        }
        WatchFrame::Error(status) => {
            out.extend_from_slice(b"{\"type\":\"ERROR\",\"status\":");
            json(out, &ErrorRec::from(&SourceError::Api(status.clone())));
            out.push(b'}');
        }
    }
}

/// An entry line as read: `t`, `r` and exactly one kind.
#[derive(Deserialize)]
struct EntryRec<'a> {
    t: u64,
    /// Absent on the `stopped` line only.
    #[serde(default)]
    r: Option<String>,
    #[serde(default)]
    stopped: bool,
    list: Option<ListRec>,
    #[serde(borrow)]
    page: Option<PageRec<'a>>,
    watch: Option<WatchRec>,
    #[serde(borrow)]
    frame: Option<FrameRec<'a>>,
    error: Option<ErrorRec>,
    stream_error: Option<ErrorRec>,
    end: Option<bool>,
}

#[derive(Deserialize)]
struct PageRec<'a> {
    rv: String,
    #[serde(rename = "continue")]
    continue_token: Option<String>,
    #[serde(borrow)]
    items: Vec<&'a RawValue>,
    #[serde(default)]
    protobuf: Option<String>,
    #[serde(default)]
    metadata_only: Option<String>,
}

/// A protobuf page's or frame's `protobuf` (base64) and `metadata_only`.
struct WireRec {
    protobuf: Option<String>,
    metadata_only: Option<String>,
}

impl WireRec {
    fn into_wire(self) -> Result<Option<ProtobufWire>, String> {
        if self.protobuf.is_none() && self.metadata_only.is_none() {
            return Ok(None);
        }
        let bytes = match self.protobuf {
            Some(text) => BASE64_STANDARD
                .decode(text)
                .map_err(|e| format!("protobuf is not base64: {e}"))?,
            None => Vec::new(),
        };
        Ok(Some(ProtobufWire {
            bytes: bytes.into(),
            metadata_only: self.metadata_only,
        }))
    }
}

#[derive(Deserialize)]
struct FrameRec<'a> {
    #[serde(rename = "type")]
    frame_type: String,
    #[serde(borrow)]
    object: Option<&'a RawValue>,
    rv: Option<String>,
    #[serde(default)]
    initial_events_end: bool,
    status: Option<ErrorRec>,
    #[serde(default)]
    protobuf: Option<String>,
    #[serde(default)]
    metadata_only: Option<String>,
}

impl EntryRec<'_> {
    fn into_kind(self) -> Result<(EntryKind, Option<ProtobufWire>), String> {
        let mut kinds = Vec::new();
        let mut wire = None;
        if let Some(l) = self.list {
            kinds.push(EntryKind::List(ListOptions {
                resource_version: l.rv,
                limit: l.limit,
                continue_token: l.continue_token,
            }));
        }
        if let Some(p) = self.page {
            wire = WireRec {
                protobuf: p.protobuf,
                metadata_only: p.metadata_only,
            }
            .into_wire()?;
            kinds.push(EntryKind::Page(ListPage {
                items: p.items.iter().map(|i| raw_bytes(i)).collect(),
                resource_version: p.rv,
                continue_token: p.continue_token,
            }));
        }
        if let Some(w) = self.watch {
            kinds.push(EntryKind::Watch(WatchOptions {
                resource_version: w.rv,
                timeout_seconds: w.timeout_s,
                send_initial_events: w.initial_events,
            }));
        }
        if let Some(mut f) = self.frame {
            wire = WireRec {
                protobuf: f.protobuf.take(),
                metadata_only: f.metadata_only.take(),
            }
            .into_wire()?;
            kinds.push(EntryKind::Frame(f.into_frame()?));
        }
        if let Some(e) = self.error {
            kinds.push(EntryKind::Error(e.into_error()?));
        }
        if let Some(e) = self.stream_error {
            kinds.push(EntryKind::StreamError(e.into_error()?));
        }
        if self.end == Some(true) {
            kinds.push(EntryKind::End);
        }
        match kinds.len() {
            1 => Ok((kinds.remove(0), wire)),
            0 => Err(
                "an entry with none of list, page, watch, frame, error, stream_error, end".into(),
            ),
            _ => Err(
                "an entry with more than one of list, page, watch, frame, error, stream_error, end"
                    .into(),
            ),
        }
    }
}

fn raw_bytes(raw: &RawValue) -> Bytes {
    Bytes::copy_from_slice(raw.get().as_bytes())
}

impl FrameRec<'_> {
    fn into_frame(self) -> Result<WatchFrame, String> {
        let object = || {
            self.object
                .map(raw_bytes)
                .ok_or_else(|| format!("a {} frame without an object", self.frame_type))
        };
        Ok(match self.frame_type.as_str() {
            "ADDED" => WatchFrame::Added(object()?.into()),
            "MODIFIED" => WatchFrame::Modified(object()?.into()),
            "DELETED" => WatchFrame::Deleted(object()?.into()),
            "BOOKMARK" => WatchFrame::Bookmark {
                resource_version: self.rv.ok_or("a BOOKMARK frame without an rv")?,
                initial_events_end: self.initial_events_end,
            },
            "ERROR" => WatchFrame::Error(
                self.status
                    .ok_or("an ERROR frame without a status")?
                    .status(),
            ),
            other => return Err(format!("unknown frame type {other:?}")),
        })
    }
}

/// A record file, read and checked.
#[derive(Debug, Clone)]
pub struct RecordFile {
    pub header: Header,
    /// Every entry, in file order.
    pub entries: Vec<Entry>,
    /// When the recording stopped (ms after it started), if the file says (its `stopped` line).
    pub stopped: Option<u64>,
}

/// Why a record file cannot be replayed: the 1-based line and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}: {message}")]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

impl RecordError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            message: message.into(),
        }
    }
}

impl RecordFile {
    /// Reads a record file's bytes, zstd-compressed or not (told by the magic bytes).
    pub fn parse(bytes: &[u8]) -> Result<Self, RecordError> {
        if bytes.starts_with(&ZSTD_MAGIC) {
            let mut text = Vec::new();
            zstd::stream::read::Decoder::new(bytes)
                .and_then(|mut d| d.read_to_end(&mut text))
                .map_err(|e| RecordError::at(1, format!("cannot decompress (zstd): {e}")))?;
            return Self::parse_text(&text);
        }
        Self::parse_text(bytes)
    }

    fn parse_text(bytes: &[u8]) -> Result<Self, RecordError> {
        let complete = bytes.ends_with(b"\n");
        let lines: Vec<&[u8]> = bytes
            .strip_suffix(b"\n")
            .unwrap_or(bytes)
            .split(|b| *b == b'\n')
            .collect();
        let last = lines.len();
        let garbled = |n: usize, e: serde_json::Error| {
            if n == last && !complete {
                RecordError::at(
                    n,
                    format!("truncated line (the recording was cut off): {e}"),
                )
            } else {
                RecordError::at(n, format!("not a record entry: {e}"))
            }
        };
        let header = parse_header(lines.first().copied().unwrap_or_default())?;
        let mut entries = Vec::with_capacity(lines.len().saturating_sub(1));
        let mut stopped = None;
        for (i, text) in lines.iter().enumerate().skip(1) {
            let n = i + 1;
            let mut rec: EntryRec<'_> = serde_json::from_slice(text).map_err(|e| garbled(n, e))?;
            if stopped.is_some() {
                return Err(RecordError::at(n, "an entry after the \"stopped\" line"));
            }
            let Some(resource) = rec.r.take() else {
                stopped = Some(stopped_at(&rec).map_err(|m| RecordError::at(n, m))?);
                continue;
            };
            if !header.resources.contains(&resource) {
                return Err(RecordError::at(
                    n,
                    format!("resource {resource:?} is not in the header's resources"),
                ));
            }
            let t = rec.t;
            let (kind, protobuf) = rec.into_kind().map_err(|m| RecordError::at(n, m))?;
            entries.push(Entry {
                line: n,
                t,
                resource,
                kind,
                protobuf,
            });
        }
        Ok(Self {
            header,
            entries,
            stopped,
        })
    }
}

impl RecordFile {
    /// Each kind whose protobuf objects were recorded metadata only, once: the first line
    /// that says so, the resource, and `APIVERSION KIND`.
    pub fn metadata_only(&self) -> Vec<(usize, &str, &str)> {
        let mut found: Vec<(usize, &str, &str)> = Vec::new();
        for entry in &self.entries {
            let Some(kind) = entry
                .protobuf
                .as_ref()
                .and_then(|w| w.metadata_only.as_deref())
            else {
                continue;
            };
            if !found.iter().any(|(_, _, k)| *k == kind) {
                found.push((entry.line, &entry.resource, kind));
            }
        }
        found
    }
}

/// The offset of a line without a resource: it must be the `stopped` line.
fn stopped_at(rec: &EntryRec<'_>) -> Result<u64, String> {
    if rec.stopped {
        Ok(rec.t)
    } else {
        Err("an entry without a resource (\"r\")".into())
    }
}

/// `replay --stream NAME` names a stream the recording does not hold.
#[derive(Debug, thiserror::Error)]
#[error("no stream {stream:?} in this recording (it has: {})", streams.join(", "))]
pub struct NoSuchStream {
    pub stream: String,
    /// The streams the recording holds (its header's `resources`).
    pub streams: Vec<String>,
}

impl RecordFile {
    /// Keeps only `stream`'s entries (`replay --stream`); Err names the streams there are.
    pub fn select_stream(&mut self, stream: &str) -> Result<(), NoSuchStream> {
        if !self.header.resources.iter().any(|r| r == stream) {
            return Err(NoSuchStream {
                stream: stream.to_owned(),
                streams: self.header.resources.clone(),
            });
        }
        self.header.resources = vec![stream.to_owned()];
        self.entries.retain(|e| e.resource == stream);
        Ok(())
    }
}

/// The header line: a JSON object with `"kinformer-record": 1`.
fn parse_header(text: &[u8]) -> Result<Header, RecordError> {
    let missing = || {
        RecordError::at(
            1,
            format!("no {HEADER_KEY:?} header: not a kinformer record file"),
        )
    };
    let value: serde_json::Value = serde_json::from_slice(text).map_err(|_| missing())?;
    let version = value.get(HEADER_KEY).ok_or_else(missing)?;
    if version.as_u64() != Some(VERSION) {
        return Err(RecordError::at(
            1,
            format!(
                "record version {version} is not supported (this kinformer reads version {VERSION})"
            ),
        ));
    }
    let header: Header = serde_json::from_value(value)
        .map_err(|e| RecordError::at(1, format!("bad header: {e}")))?;
    if header.resources.is_empty() && header.client_go == OBSERVED {
        return Err(RecordError::at(
            1,
            "nothing to replay: no client listed or watched anything through the proxy while it recorded",
        ));
    }
    if header.resources.is_empty() {
        return Err(RecordError::at(1, "the header names no resources"));
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends one entry as one line to `out`, Secret values redacted (the default).
    fn write_entry(out: &mut Vec<u8>, t: u64, resource: &str, kind: &EntryKind) {
        write_entry_with(out, t, resource, kind, SecretData::Redact);
    }

    fn header() -> String {
        r#"{"kinformer-record":1,"created":"2026-11-22T10:00:00Z","server_version":null,"client_go":"1.36","resources":["pods"]}"#.to_owned()
    }

    #[test]
    fn selecting_a_stream_that_is_not_there_names_the_ones_that_are() {
        let text = format!("{}\n", header());
        let mut recording = RecordFile::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let e: NoSuchStream = recording.select_stream("kubectl/pods").unwrap_err();
        assert_eq!(e.streams, ["pods"]);
        assert_eq!(
            e.to_string(),
            r#"no stream "kubectl/pods" in this recording (it has: pods)"#
        );
    }

    #[test]
    fn every_entry_kind_round_trips_with_objects_verbatim() {
        let object = Bytes::from_static(br#"{"metadata": {"name":"a","resourceVersion":"7"}}"#);
        let status = ApiStatus {
            code: Some(410),
            reason: "Expired".into(),
            message: "too old".into(),
            retry_after: Some(Duration::from_secs(1)),
            too_large_resource_version: false,
        };
        let kinds = vec![
            EntryKind::List(ListOptions {
                resource_version: "0".into(),
                limit: Some(500),
                continue_token: None,
            }),
            EntryKind::Page(ListPage {
                items: vec![object.clone()],
                resource_version: "7".into(),
                continue_token: Some("c".into()),
            }),
            EntryKind::Watch(WatchOptions {
                resource_version: "7".into(),
                timeout_seconds: 300,
                send_initial_events: false,
            }),
            EntryKind::Frame(WatchFrame::Modified(object.clone().into())),
            EntryKind::Frame(WatchFrame::Bookmark {
                resource_version: "9".into(),
                initial_events_end: true,
            }),
            EntryKind::Frame(WatchFrame::Error(status.clone())),
            EntryKind::Error(SourceError::Api(status)),
            EntryKind::StreamError(SourceError::Transport("reset".into())),
            EntryKind::End,
        ];
        let mut text = format!("{}\n", header()).into_bytes();
        for (t, kind) in kinds.iter().enumerate() {
            write_entry(&mut text, t as u64, "pods", kind);
        }
        let mut ended = text.clone();
        write_stopped(&mut ended, 8000);
        assert_eq!(RecordFile::parse(&ended).unwrap().stopped, Some(8000));
        let file = RecordFile::parse(&text).unwrap();
        assert_eq!((file.entries.len(), file.stopped), (kinds.len(), None));
        let again: Vec<u8> =
            file.entries
                .iter()
                .fold(format!("{}\n", header()).into_bytes(), |mut out, e| {
                    write_entry(&mut out, e.t, &e.resource, &e.kind);
                    out
                });
        assert_eq!(
            String::from_utf8(again).unwrap(),
            String::from_utf8(text).unwrap()
        );
        let EntryKind::Frame(WatchFrame::Modified(raw)) = &file.entries[3].kind else {
            panic!("not a frame: {:?}", file.entries[3]);
        };
        assert_eq!(&**raw, &object, "objects are kept byte for byte");
    }

    #[test]
    fn a_protobuf_page_and_frame_keep_their_bytes_beside_the_decoded_json() {
        let object = Bytes::from_static(br#"{"metadata":{"name":"a","resourceVersion":"7"}}"#);
        let page = EntryKind::Page(ListPage {
            items: vec![object.clone()],
            resource_version: "7".into(),
            continue_token: None,
        });
        let frame = EntryKind::Frame(WatchFrame::Added(object.clone().into()));
        let wire = ProtobufWire {
            bytes: Bytes::from_static(b"k8s\0\x0a\x00\xff"),
            metadata_only: None,
        };
        let thinned = ProtobufWire {
            bytes: Bytes::from_static(b"k8s\0"),
            metadata_only: Some("example.com/v1 Widget".into()),
        };
        let mut text = format!("{}\n", header()).into_bytes();
        write_entry_with_wire(&mut text, 1, "pods", &page, false, Some(&wire));
        write_entry_with_wire(&mut text, 2, "pods", &frame, false, Some(&thinned));
        write_entry_with_wire(&mut text, 3, "pods", &frame, true, Some(&wire));
        let lines = String::from_utf8_lossy(&text).into_owned();
        assert!(
            lines.contains(r#""items":[{"metadata":{"name":"a","resourceVersion":"7"}}],"protobuf":"azhzAAoA/w=="}"#),
            "{lines}"
        );
        let file = RecordFile::parse(&text).unwrap();
        assert_eq!(file.entries[0].protobuf, Some(wire));
        assert_eq!(file.entries[1].protobuf, Some(thinned));
        assert!(
            matches!(&file.entries[1].kind, EntryKind::Frame(WatchFrame::Added(raw)) if **raw == object),
            "the decoded object is the frame's object"
        );
        assert_eq!(
            file.entries[2].protobuf, None,
            "a redacted stream keeps no bytes (they hold the Secret values)"
        );
        assert_eq!(file.metadata_only(), [(3, "pods", "example.com/v1 Widget")]);
    }

    #[test]
    fn secret_values_are_redacted_in_pages_and_frames_of_secrets_only() {
        let secret = Bytes::from_static(
            br#"{"metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"stringData\":{\"p\":\"plain\"}}"}},"data":{"k":"c2VjcmV0"}}"#,
        );
        let page = EntryKind::Page(ListPage {
            items: vec![secret.clone()],
            resource_version: "7".into(),
            continue_token: None,
        });
        let frame = EntryKind::Frame(WatchFrame::Modified(secret.into()));
        let line = |resource: &str, kind: &EntryKind, secrets: SecretData| {
            let mut out = Vec::new();
            write_entry_with(&mut out, 0, resource, kind, secrets);
            String::from_utf8(out).unwrap()
        };
        for kind in [&page, &frame] {
            let redacted = line("secrets", kind, SecretData::Redact);
            assert!(
                !redacted.contains("c2VjcmV0") && !redacted.contains("plain"),
                "{redacted}"
            );
            assert_eq!(redacted.matches(crate::redact::REDACTED).count(), 2);
            let mut default = Vec::new();
            write_entry(&mut default, 0, "secrets", kind);
            assert_eq!(String::from_utf8(default).unwrap(), redacted, "the default");
            let kept = line("secrets", kind, SecretData::Keep);
            assert!(
                kept.contains("c2VjcmV0") && kept.contains("plain"),
                "{kept}"
            );
            let configmap = line("configmaps", kind, SecretData::Redact);
            assert!(configmap.contains("c2VjcmV0"), "only Secrets: {configmap}");
        }
    }

    #[test]
    fn bad_files_name_the_line() {
        let cases = [
            ("", 1, "no \"kinformer-record\" header"),
            ("{\"items\":[]}\n", 1, "not a kinformer record file"),
            (
                "{\"kinformer-record\":2,\"created\":\"x\",\"client_go\":\"1.36\",\"resources\":[\"pods\"]}\n",
                1,
                "record version 2 is not supported",
            ),
        ];
        for (text, line, says) in cases {
            let e = RecordFile::parse(text.as_bytes()).unwrap_err();
            assert_eq!(e.line, line, "{text}");
            assert!(e.message.contains(says), "{e}");
        }
        let entry = r#"{"t":0,"r":"pods","list":{"rv":"0"}}"#;
        let garbled = format!("{}\n{entry}\n{{\"t\":1,\n{entry}\n", header());
        let e = RecordFile::parse(garbled.as_bytes()).unwrap_err();
        assert_eq!(
            (e.line, e.message.contains("not a record entry")),
            (3, true),
            "{e}"
        );
        let truncated = format!("{}\n{entry}\n{{\"t\":1,\"r\":\"po", header());
        let e = RecordFile::parse(truncated.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.message.contains("truncated")), (3, true), "{e}");
        let late = format!("{}\n{{\"t\":5,\"stopped\":true}}\n{entry}\n", header());
        assert_eq!(RecordFile::parse(late.as_bytes()).unwrap_err().line, 3);
        let anonymous = format!("{}\n{{\"t\":5,\"list\":{{\"rv\":\"0\"}}}}\n", header());
        assert_eq!(RecordFile::parse(anonymous.as_bytes()).unwrap_err().line, 2);
        let stranger = format!("{}\n{}\n", header(), entry.replace("pods", "nodes"));
        assert_eq!(RecordFile::parse(stranger.as_bytes()).unwrap_err().line, 2);
        let two = format!(
            "{}\n{{\"t\":0,\"r\":\"pods\",\"end\":true,\"list\":{{\"rv\":\"\"}}}}\n",
            header()
        );
        assert!(
            RecordFile::parse(two.as_bytes())
                .unwrap_err()
                .message
                .contains("more than one")
        );
    }
}
