//! [`MemorySource`]: an in-process collection behaving like one resource of an API server —
//! paged lists (with or without a watch cache), watch from a resourceVersion, bookmarks, 410
//! for trimmed history, watch-list, injected failures — for tests and replay.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use futures_util::stream::StreamExt;
use tokio::sync::mpsc;

use crate::informer::source::{
    ApiStatus, ListOptions, ListPage, ListerWatcher, SourceError, SourceFuture, WatchFrame,
    WatchOptions, WatchStream,
};

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
    /// Breaks the next watch-list's stream after its initial ADDED events, before its bookmark.
    cut_next_watch_list: Option<SourceError>,
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
            "ADDED" => WatchFrame::Added(bytes.into()),
            "MODIFIED" => WatchFrame::Modified(bytes.into()),
            _ => WatchFrame::Deleted(bytes.into()),
        };
        self.history.push_back((rv, frame.clone()));
        self.watchers.retain(|w| w.send(Ok(frame.clone())).is_ok());
        rv
    }
}

fn memory_key(obj: &serde_json::Value) -> String {
    let meta = &obj["metadata"];
    crate::informer::object::object_key(
        meta["namespace"].as_str(),
        meta["name"].as_str().unwrap_or(""),
    )
}

impl MemorySource {
    /// An empty source.
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

    /// The next watch-list's stream sends its initial ADDED events, then ends with `error`
    /// before its initial-events-end bookmark (a connection cut mid-stream).
    pub fn cut_next_watch_list(&self, error: SourceError) {
        self.lock().cut_next_watch_list = Some(error);
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

    /// The source's current resourceVersion.
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
                let _ = tx.send(Ok(WatchFrame::Added(bytes.into())));
            }
            if let Some(cut) = s.cut_next_watch_list.take() {
                let _ = tx.send(Err(cut));
                return Ok(tokio_stream_from(rx));
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
