//! The clients and their informer streams: each LIST/WATCH a client opens is attributed to one
//! stream (client by User-Agent, then resource, namespace and selectors; a second stream of the
//! same key busy on another connection is another informer, `NAME#2`), traced in the informer's
//! vocabulary as it happens, counted for the exit summary and, with `--record`, written to the
//! record file under the stream's name.
//!
//! What a client's reflector decided is read from what it did: a LIST after the stream's first
//! is a `relist` (its reason: the failure or watch end before it), the time between a failure
//! and the client's next request is its `backoff` as observed.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::informer::source::record_file::{
    EntryKind, Header, OBSERVED, ProtobufWire, RecordedClient, VERSION,
};
use crate::informer::source::{ApiStatus, ListPage, SourceError, WatchFrame, WatchObject};
use crate::informer::trace::{Event, ProxySummary, Tracer, WatchEventType};

use super::classify::{Collection, ListRequest, WatchRequest};
use super::decode::key_and_rv;
use super::record::{RecordWriter, Recorded};

/// A client, as [`Registry::client`] names it.
pub type ClientId = usize;
/// A stream, as [`Registry::open_list`] and [`Registry::open_watch`] hand it out.
pub type StreamId = usize;

/// How a watch's answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The server ended it (timeout, `close-watches`, after an ERROR event).
    Complete,
    /// The upstream connection broke mid-stream.
    Broken(String),
    /// The client went away before the end.
    ClientGone,
}

/// See the module documentation.
pub struct Registry {
    state: Mutex<State>,
    tracer: Tracer,
}

struct State {
    /// Every stream's tracer is made from this one (`resource` = the stream's name).
    tracer: Tracer,
    clients: Vec<Client>,
    by_agent: HashMap<String, ClientId>,
    streams: Vec<Stream>,
    recorder: Option<RecordWriter>,
    /// The first error writing the record file (the recording then stops).
    record_error: Option<std::io::Error>,
    /// The kinds whose protobuf objects were decoded metadata only (each said once).
    metadata_only: Vec<String>,
}

struct Client {
    name: String,
    user_agent: String,
    requests: u64,
    bytes: u64,
}

struct Stream {
    name: String,
    client: ClientId,
    collection: Collection,
    tracer: Tracer,
    /// The connection of the request in flight.
    busy: Option<u64>,
    counts: Counts,
    /// A LIST being paged: pages and items so far.
    paging: Option<(u32, usize)>,
    /// The open watch: events so far and the last resourceVersion.
    watching: Option<(u64, String)>,
    /// The last failure or watch end, and when, until the client's next request.
    last_end: Option<(String, Instant, bool)>,
    attempts: u32,
    recorded: bool,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    lists: u64,
    watches: u64,
    events: u64,
    relists: u64,
    errors: u64,
    bytes: u64,
}

impl Registry {
    pub fn new(tracer: Tracer, recorder: Option<RecordWriter>) -> Self {
        Self {
            state: Mutex::new(State {
                tracer: tracer.clone(),
                clients: Vec::new(),
                by_agent: HashMap::new(),
                streams: Vec::new(),
                recorder,
                record_error: None,
                metadata_only: Vec::new(),
            }),
            tracer,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The client sending `user_agent` (named after its product token: `kubectl`,
    /// `OpenAPI-Generator`; `kubectl-2` for a second kubectl build).
    pub fn client(&self, user_agent: &str) -> ClientId {
        let mut state = self.state();
        if let Some(id) = state.by_agent.get(user_agent) {
            return *id;
        }
        let product = product_name(user_agent);
        let taken = |name: &str, clients: &[Client]| clients.iter().any(|c| c.name == name);
        let mut name = product.clone();
        let mut n = 1;
        while taken(&name, &state.clients) {
            n += 1;
            name = format!("{product}-{n}");
        }
        state.clients.push(Client {
            name,
            user_agent: user_agent.to_owned(),
            requests: 0,
            bytes: 0,
        });
        let id = state.clients.len() - 1;
        state.by_agent.insert(user_agent.to_owned(), id);
        id
    }

    /// A LIST (or the next page of one) of `collection` by `client` on `connection`.
    pub fn open_list(
        &self,
        client: ClientId,
        connection: u64,
        collection: &Collection,
        request: &ListRequest,
    ) -> StreamId {
        let mut state = self.state();
        let paging = request.options.continue_token.is_some();
        let id = state.stream_for(client, connection, collection, paging);
        let stream = &mut state.streams[id];
        if !paging {
            stream.begin_list(request);
        }
        state.record(id, &EntryKind::List(request.options.clone()), None);
        id
    }

    /// A WATCH of `collection` by `client` on `connection`.
    pub fn open_watch(
        &self,
        client: ClientId,
        connection: u64,
        collection: &Collection,
        request: &WatchRequest,
    ) -> StreamId {
        let mut state = self.state();
        let id = state.stream_for(client, connection, collection, false);
        state.streams[id].begin_watch(request);
        state.record(id, &EntryKind::Watch(request.options.clone()), None);
        id
    }

    /// A LIST's page arrived whole (`bytes` long); `wire`: it came in protobuf.
    pub fn list_answered(
        &self,
        id: StreamId,
        page: ListPage,
        bytes: u64,
        wire: Option<ProtobufWire>,
    ) {
        let mut state = self.state();
        state.streams[id].page(&page, bytes);
        state.record(id, &EntryKind::Page(page), wire.as_ref());
    }

    /// A LIST or WATCH was answered with an error (`bytes` of Status), or never reached the
    /// server.
    pub fn failed(&self, id: StreamId, error: SourceError, bytes: u64) {
        let mut state = self.state();
        state.streams[id].failed(&error, bytes);
        state.record(id, &EntryKind::Error(error), None);
    }

    /// A watch frame arrived; `wire`: it came in protobuf.
    pub fn frame(&self, id: StreamId, frame: WatchFrame, bytes: u64, wire: Option<ProtobufWire>) {
        let mut state = self.state();
        state.streams[id].frame(&frame, bytes);
        state.record(id, &EntryKind::Frame(frame), wire.as_ref());
    }

    /// The LIST answer that could not be read, or a watch, ended.
    pub fn ended(&self, id: StreamId, ending: Ending) {
        let mut state = self.state();
        let stream = &mut state.streams[id];
        stream.busy = None;
        let was_watch = stream.watching.is_some();
        stream.end_watch(&ending);
        if !was_watch {
            return;
        }
        match ending {
            Ending::Complete => state.record(id, &EntryKind::End, None),
            Ending::Broken(why) => {
                state.record(
                    id,
                    &EntryKind::StreamError(SourceError::Transport(why)),
                    None,
                );
            }
            // The client closed it: for its replay the watch ended there (a replaying
            // reflector cannot close a watch of its own accord).
            Ending::ClientGone => state.record(id, &EntryKind::End, None),
        }
    }

    /// The proxy stops: the recording ends now, before the proxy closes the watches still
    /// open (they stay open in the file, as they were when it stopped).
    pub fn stop_recording(&self) {
        if let Some(recorder) = self.state().recorder.as_mut() {
            recorder.stop();
        }
    }

    /// A request that is not an informer's LIST or WATCH, answered.
    pub fn request(&self, client: ClientId, request: Event, resource: Option<&str>) {
        let bytes = match &request {
            Event::Request { bytes, .. } => *bytes,
            _ => 0,
        };
        {
            let mut state = self.state();
            let c = &mut state.clients[client];
            c.requests += 1;
            c.bytes += bytes;
        }
        match resource {
            Some(resource) => self.tracer.for_resource(resource).emit(request),
            None => self.tracer.emit(request),
        }
    }

    /// The name of `client`.
    pub fn client_name(&self, client: ClientId) -> String {
        self.state().clients[client].name.clone()
    }

    /// Per client (its totals) and per stream, in the order they were first seen.
    pub fn summaries(&self) -> Vec<ProxySummary> {
        let state = self.state();
        let mut out = Vec::new();
        for (id, client) in state.clients.iter().enumerate() {
            let streams: Vec<&Stream> = state.streams.iter().filter(|s| s.client == id).collect();
            let mut total = summary_of(client, None, Counts::default());
            total.requests = client.requests;
            total.bytes = client.bytes;
            for s in &streams {
                total.lists += s.counts.lists;
                total.watches += s.counts.watches;
                total.events += s.counts.events;
                total.relists += s.counts.relists;
                total.errors += s.counts.errors;
                total.bytes += s.counts.bytes;
            }
            out.push(total);
            out.extend(
                streams
                    .iter()
                    .map(|s| summary_of(client, Some(&s.name), s.counts)),
            );
        }
        out
    }

    /// Writes the record file (its header names the clients and streams), if recording.
    pub fn finish_recording(
        &self,
        server_version: Option<String>,
    ) -> Option<Result<Recorded, std::io::Error>> {
        let mut state = self.state();
        let recorder = state.recorder.take()?;
        if let Some(e) = state.record_error.take() {
            return Some(Err(e));
        }
        let recorded: Vec<&Stream> = state.streams.iter().filter(|s| s.recorded).collect();
        let clients = state
            .clients
            .iter()
            .enumerate()
            .map(|(id, c)| RecordedClient {
                name: c.name.clone(),
                user_agent: c.user_agent.clone(),
                streams: recorded
                    .iter()
                    .filter(|s| s.client == id)
                    .map(|s| s.name.clone())
                    .collect(),
            })
            .filter(|c| !c.streams.is_empty())
            .collect();
        let header = Header {
            version: VERSION,
            created: recorder.created().to_string(),
            server_version,
            client_go: OBSERVED.into(),
            resources: recorded.iter().map(|s| s.name.clone()).collect(),
            clients,
        };
        Some(recorder.finish(&header))
    }
}

fn summary_of(client: &Client, stream: Option<&str>, counts: Counts) -> ProxySummary {
    ProxySummary {
        client: client.name.clone(),
        stream: stream.map(str::to_owned),
        user_agent: client.user_agent.clone(),
        lists: counts.lists,
        watches: counts.watches,
        events: counts.events,
        relists: counts.relists,
        errors: counts.errors,
        requests: 0,
        bytes: counts.bytes,
    }
}

impl State {
    /// The stream of `collection` by `client`: an idle one (or the one paging, for a
    /// continued LIST), else a new one.
    fn stream_for(
        &mut self,
        client: ClientId,
        connection: u64,
        collection: &Collection,
        paging: bool,
    ) -> StreamId {
        let same = |s: &Stream| s.client == client && &s.collection == collection;
        let found = self.streams.iter().position(|s| {
            same(s)
                && (s.busy.is_none() || s.busy == Some(connection))
                && (!paging || s.paging.is_some())
        });
        let id = found.unwrap_or_else(|| self.new_stream(client, collection));
        self.streams[id].busy = Some(connection);
        id
    }

    fn new_stream(&mut self, client: ClientId, collection: &Collection) -> StreamId {
        let base = format!("{}/{}", self.clients[client].name, collection.describe());
        let others = self
            .streams
            .iter()
            .filter(|s| s.client == client && &s.collection == collection)
            .count();
        let name = if others == 0 {
            base
        } else {
            format!("{base}#{}", others + 1)
        };
        self.streams.push(Stream {
            tracer: self.tracer.for_resource(&name),
            name,
            client,
            collection: collection.clone(),
            busy: None,
            counts: Counts::default(),
            paging: None,
            watching: None,
            last_end: None,
            attempts: 0,
            recorded: false,
        });
        self.streams.len() - 1
    }

    fn record(&mut self, id: StreamId, kind: &EntryKind, wire: Option<&ProtobufWire>) {
        if let Some(missing) = wire.and_then(|w| w.metadata_only.as_ref()) {
            self.metadata_only_once(id, missing);
        }
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        if self.record_error.is_some() {
            return;
        }
        let stream = &mut self.streams[id];
        stream.recorded = true;
        let secrets = stream.collection.resource == crate::redact::SECRETS_RESOURCE;
        if let Err(e) = recorder.append(&stream.name, kind, secrets, wire) {
            self.record_error = Some(e);
        }
    }

    /// Says once per kind that its protobuf objects are metadata only: kinformer has no
    /// message for it (a custom resource, an aggregated API's kind).
    fn metadata_only_once(&mut self, id: StreamId, missing: &str) {
        if self.metadata_only.iter().any(|k| k == missing) {
            return;
        }
        self.metadata_only.push(missing.to_owned());
        eprintln!(
            "warning: {}: kinformer has no protobuf message for {missing}: its objects are \
             traced and recorded with their metadata only",
            self.streams[id].name
        );
    }
}

impl Stream {
    /// Before a request: the observed wait after a failure, as a `backoff` line.
    fn after_pause(&mut self) -> Option<String> {
        let (reason, at, failure) = self.last_end.take()?;
        if failure {
            self.attempts += 1;
            self.tracer.emit(Event::Backoff {
                reason: format!("observed: {reason}"),
                delay_ms: millis(at.elapsed()),
                attempt: self.attempts,
            });
        }
        Some(reason)
    }

    fn begin_list(&mut self, request: &ListRequest) {
        self.list_starts(
            &request.options.resource_version,
            request.resource_version_match.as_deref(),
            request.options.limit,
            false,
        );
        self.paging = Some((0, 0));
    }

    /// A LIST or a watch-list: a `relist` after the stream's first, then `list-start`.
    fn list_starts(&mut self, rv: &str, rv_match: Option<&str>, limit: Option<u32>, wl: bool) {
        let before = self.after_pause();
        if self.counts.lists > 0 {
            self.counts.relists += 1;
            self.tracer.emit(Event::Relist {
                reason: before.unwrap_or_else(|| "listed again".into()),
            });
        }
        self.counts.lists += 1;
        self.tracer.emit(Event::ListStart {
            resource_version: rv.to_owned(),
            resource_version_match: rv_match.map(str::to_owned),
            limit,
            watch_list: wl,
        });
    }

    fn page(&mut self, page: &ListPage, bytes: u64) {
        self.counts.bytes += bytes;
        self.busy = None;
        let (pages, items) = self.paging.unwrap_or((0, 0));
        let (pages, items) = (pages + 1, items + page.items.len());
        let more = page.continue_token.is_some();
        self.tracer.emit(Event::ListPage {
            page: pages,
            items: page.items.len(),
            more,
        });
        if more {
            self.paging = Some((pages, items));
            return;
        }
        self.paging = None;
        self.attempts = 0;
        self.tracer.emit(Event::ListDone {
            items,
            pages,
            resource_version: page.resource_version.clone(),
        });
    }

    /// A LIST (`list-error`) or a WATCH (`watch-error`) failed.
    fn failed(&mut self, error: &SourceError, bytes: u64) {
        self.counts.bytes += bytes;
        self.counts.errors += 1;
        self.busy = None;
        let listing = self.paging.take().is_some();
        self.watching = None;
        let (code, reason, message) = match error {
            SourceError::Api(status) => {
                (status.code, status.reason.clone(), status.message.clone())
            }
            other => (None, "Transport".into(), other.to_string()),
        };
        self.last_end = Some((describe_failure(code, &reason), Instant::now(), true));
        self.tracer.emit(if listing {
            Event::ListError {
                code,
                reason,
                message,
            }
        } else {
            Event::WatchError {
                code,
                reason,
                message,
            }
        });
    }

    fn begin_watch(&mut self, request: &WatchRequest) {
        let options = &request.options;
        if options.send_initial_events {
            let rv_match = request.resource_version_match.as_deref();
            self.list_starts(&options.resource_version, rv_match, None, true);
        } else {
            self.after_pause();
        }
        self.counts.watches += 1;
        self.watching = Some((0, request.options.resource_version.clone()));
        self.tracer.emit(Event::WatchStart {
            resource_version: request.options.resource_version.clone(),
            timeout_seconds: request.options.timeout_seconds,
            watch_list: request.options.send_initial_events,
        });
    }

    fn frame(&mut self, frame: &WatchFrame, bytes: u64) {
        self.counts.bytes += bytes;
        let event = match frame {
            WatchFrame::Added(raw) => self.watch_event(WatchEventType::Added, raw),
            WatchFrame::Modified(raw) => self.watch_event(WatchEventType::Modified, raw),
            WatchFrame::Deleted(raw) => self.watch_event(WatchEventType::Deleted, raw),
            WatchFrame::Bookmark {
                resource_version,
                initial_events_end,
            } => {
                self.saw(resource_version);
                self.tracer.emit(Event::Bookmark {
                    resource_version: resource_version.clone(),
                    initial_events_end: *initial_events_end,
                });
                if !*initial_events_end {
                    return;
                }
                // A watch-list's initial events are its list.
                self.attempts = 0;
                Event::ListDone {
                    items: self.watching.as_ref().map_or(0, |(events, _)| {
                        usize::try_from(*events).unwrap_or(usize::MAX)
                    }),
                    pages: 1,
                    resource_version: resource_version.clone(),
                }
            }
            WatchFrame::Error(status) => self.error_event(status),
        };
        self.tracer.emit(event);
    }

    fn watch_event(&mut self, event_type: WatchEventType, object: &WatchObject) -> Event {
        // The frame parser read the metadata as it validated the frame; serde reads the rest.
        let (key, resource_version) = match object.meta() {
            Some(meta) => (meta.key().to_owned(), meta.resource_version().to_owned()),
            None => key_and_rv(object),
        };
        self.counts.events += 1;
        self.saw(&resource_version);
        if let Some((events, _)) = self.watching.as_mut() {
            *events += 1;
        }
        Event::WatchEvent {
            event_type,
            key,
            resource_version,
        }
    }

    fn error_event(&mut self, status: &ApiStatus) -> Event {
        self.counts.errors += 1;
        self.last_end = Some((
            describe_failure(status.code, &status.reason),
            Instant::now(),
            true,
        ));
        Event::WatchError {
            code: status.code,
            reason: status.reason.clone(),
            message: status.message.clone(),
        }
    }

    fn saw(&mut self, resource_version: &str) {
        if let Some((_, last)) = self.watching.as_mut()
            && !resource_version.is_empty()
        {
            resource_version.clone_into(last);
        }
    }

    fn end_watch(&mut self, ending: &Ending) {
        let Some((events, resource_version)) = self.watching.take() else {
            self.paging = None;
            return;
        };
        let reason = match ending {
            Ending::Complete => "server closed".to_owned(),
            Ending::Broken(why) => format!("upstream broke: {why}"),
            Ending::ClientGone => "client closed".to_owned(),
        };
        let failed_before = self
            .last_end
            .as_ref()
            .is_some_and(|(_, _, failure)| *failure);
        if !failed_before {
            self.last_end = Some((
                format!("watch ended ({reason})"),
                Instant::now(),
                matches!(ending, Ending::Broken(_)),
            ));
        }
        self.tracer.emit(Event::WatchEnd {
            resource_version,
            events,
            reason,
        });
    }
}

/// `410 Expired`, `429 TooManyRequests`, `Transport`.
fn describe_failure(code: Option<u16>, reason: &str) -> String {
    match code {
        Some(code) => format!("{code} {reason}"),
        None => reason.to_owned(),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A User-Agent's product token, as a name: `kubectl/v1.32.4 (linux/amd64) …` → `kubectl`.
fn product_name(user_agent: &str) -> String {
    let product: String = user_agent
        .split(['/', ' '])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    if product.is_empty() {
        "unknown".into()
    } else {
        product
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::source::ListOptions;
    use crate::informer::testing::MemorySink;
    use crate::informer::trace::StageSet;

    fn collection() -> Collection {
        Collection {
            resource: "pods".into(),
            namespace: Some("default".into()),
            label_selector: None,
            field_selector: None,
        }
    }

    fn list(rv: &str) -> ListRequest {
        ListRequest {
            options: ListOptions {
                resource_version: rv.into(),
                limit: None,
                continue_token: None,
            },
            resource_version_match: None,
        }
    }

    #[test]
    fn a_list_after_a_410_is_a_relist_after_an_observed_backoff() {
        let sink = MemorySink::new();
        let registry = Registry::new(Tracer::new(sink.clone(), StageSet::ALL), None);
        let client = registry.client("kubectl/v1.32.4 (linux/amd64)");
        let id = registry.open_list(client, 1, &collection(), &list("0"));
        registry.list_answered(
            id,
            ListPage {
                resource_version: "5".into(),
                ..ListPage::default()
            },
            10,
            None,
        );
        let expired = ApiStatus {
            code: Some(410),
            reason: "Expired".into(),
            ..ApiStatus::default()
        };
        registry.failed(id, SourceError::Api(expired), 5);
        let again = registry.open_list(client, 1, &collection(), &list("5"));
        assert_eq!(again, id, "one informer, one stream");
        let names: Vec<&str> = sink.events().iter().map(|e| e.event.name()).collect();
        assert_eq!(
            names,
            [
                "list-start",
                "list-page",
                "list-done",
                "watch-error",
                "backoff",
                "relist",
                "list-start"
            ]
        );
        let relist = sink
            .events()
            .into_iter()
            .find(|e| e.event.name() == "relist");
        assert!(
            matches!(relist.map(|e| e.event), Some(Event::Relist { reason }) if reason == "410 Expired")
        );
        let other = registry.open_list(client, 2, &collection(), &list("0"));
        assert_ne!(
            other, id,
            "a concurrent one on another connection is another informer"
        );
        let summaries = registry.summaries();
        assert_eq!(summaries[0].client, "kubectl");
        assert_eq!(
            (
                summaries[0].lists,
                summaries[0].relists,
                summaries[0].errors
            ),
            (3, 1, 1)
        );
        assert_eq!(summaries[1].stream.as_deref(), Some("kubectl/pods@default"));
        assert_eq!(
            summaries[2].stream.as_deref(),
            Some("kubectl/pods@default#2")
        );
    }

    #[test]
    fn a_watch_list_is_a_list_whose_initial_events_end_at_the_bookmark() {
        let sink = MemorySink::new();
        let registry = Registry::new(Tracer::new(sink.clone(), StageSet::ALL), None);
        let client = registry.client("kinformer/0.1.0");
        let request = WatchRequest {
            options: crate::informer::source::WatchOptions {
                resource_version: String::new(),
                timeout_seconds: 300,
                send_initial_events: true,
            },
            resource_version_match: Some("NotOlderThan".into()),
        };
        let id = registry.open_watch(client, 1, &collection(), &request);
        let raw = bytes::Bytes::from_static(
            br#"{"metadata":{"name":"a","namespace":"default","resourceVersion":"3"}}"#,
        );
        registry.frame(id, WatchFrame::Added(raw.into()), 60, None);
        let end = WatchFrame::Bookmark {
            resource_version: "4".into(),
            initial_events_end: true,
        };
        registry.frame(id, end, 60, None);
        let names: Vec<&str> = sink.events().iter().map(|e| e.event.name()).collect();
        assert_eq!(
            names,
            [
                "list-start",
                "watch-start",
                "watch-event",
                "bookmark",
                "list-done"
            ]
        );
        let done = sink.events().pop().map(|e| e.event);
        assert!(
            matches!(done, Some(Event::ListDone { items: 1, ref resource_version, .. }) if resource_version == "4"),
            "{done:?}"
        );
    }

    #[test]
    fn a_failed_list_is_a_list_error_and_recorded_secrets_are_redacted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("record.jsonl");
        let sink = MemorySink::new();
        let recorder = RecordWriter::create(&path).ok();
        let registry = Registry::new(Tracer::new(sink.clone(), StageSet::ALL), recorder);
        let client = registry.client("OpenAPI-Generator/31.0.0/python");
        let secrets = Collection {
            resource: "secrets".into(),
            ..collection()
        };
        let id = registry.open_list(client, 1, &secrets, &list("0"));
        let forbidden = ApiStatus {
            code: Some(403),
            reason: "Forbidden".into(),
            ..ApiStatus::default()
        };
        registry.failed(id, SourceError::Api(forbidden), 5);
        assert_eq!(
            sink.events().last().map(|e| e.event.name()),
            Some("list-error")
        );
        let id = registry.open_list(client, 1, &secrets, &list("0"));
        let secret = bytes::Bytes::from_static(
            br#"{"metadata":{"name":"s","namespace":"default","resourceVersion":"3"},"data":{"token":"c2VjcmV0"}}"#,
        );
        let page = ListPage {
            items: vec![secret],
            resource_version: "3".into(),
            continue_token: None,
        };
        registry.list_answered(id, page, 90, None);
        let recorded = registry.finish_recording(None);
        assert!(matches!(recorded, Some(Ok(_))), "{recorded:?}");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            text.contains("OpenAPI-Generator/secrets@default") && !text.contains("c2VjcmV0"),
            "{text}"
        );
    }

    #[test]
    fn the_header_says_when_the_recording_started() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("record.jsonl");
        let recorder = RecordWriter::create(&path).ok();
        let started = jiff::Timestamp::now();
        let registry = Registry::new(Tracer::counting_only(), recorder);
        let client = registry.client("kubectl/v1.32.4");
        let id = registry.open_list(client, 1, &collection(), &list("0"));
        std::thread::sleep(std::time::Duration::from_millis(50));
        let page = ListPage {
            items: Vec::new(),
            resource_version: "3".into(),
            continue_token: None,
        };
        registry.list_answered(id, page, 90, None);
        assert!(matches!(registry.finish_recording(None), Some(Ok(_))));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let header: serde_json::Value =
            serde_json::from_str(text.lines().next().unwrap_or_default()).unwrap_or_default();
        let created: jiff::Timestamp = header["created"]
            .as_str()
            .unwrap_or_default()
            .parse()
            .unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(created <= started, "created {created}, started {started}");
    }

    /// Issue 49 item 1: a watch the client closed ends in the file (a replaying reflector
    /// cannot close one of its own accord), what the proxy sees once it stops is not
    /// recorded, and the file ends with the `stopped` line of that moment.
    #[test]
    fn a_closed_watch_ends_in_the_file_and_the_file_ends_when_the_proxy_stopped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("record.jsonl");
        let registry = Registry::new(Tracer::counting_only(), RecordWriter::create(&path).ok());
        let client = registry.client("kubectl/v1.32.4");
        let request = WatchRequest {
            options: crate::informer::source::WatchOptions {
                resource_version: "3".into(),
                timeout_seconds: 300,
                send_initial_events: false,
            },
            resource_version_match: None,
        };
        let closed = registry.open_watch(client, 1, &collection(), &request);
        registry.ended(closed, Ending::ClientGone);
        let open = registry.open_watch(client, 1, &collection(), &request);
        registry.stop_recording();
        registry.ended(open, Ending::ClientGone);
        assert!(matches!(registry.finish_recording(None), Some(Ok(_))));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let kinds: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
                let keys = v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
                keys.unwrap_or_default()
                    .into_iter()
                    .find(|k| k != "t" && k != "r")
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(kinds, ["watch", "end", "watch", "stopped"], "{text}");
    }

    #[test]
    fn clients_are_named_by_product() {
        assert_eq!(
            product_name("OpenAPI-Generator/31.0.0/python"),
            "OpenAPI-Generator"
        );
        assert_eq!(product_name(""), "unknown");
        let registry = Registry::new(Tracer::counting_only(), None);
        let a = registry.client("kubectl/v1.32.4");
        let b = registry.client("kubectl/v1.31.0");
        assert_eq!(registry.client("kubectl/v1.32.4"), a);
        assert_eq!(registry.client_name(b), "kubectl-2");
    }
}
