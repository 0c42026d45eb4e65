//! WATCH: newline-delimited JSON events after a resourceVersion (or the current state replayed
//! as ADDED first), BOOKMARKs, the watch-list initial-events-end bookmark, 410 ERROR events for
//! resourceVersions older than the kept history, per-watcher selector filtering, timeouts, and
//! clean ends on `close_watches`/shutdown. Each event's line is rendered once and shared by
//! every watcher; watchers wake once per write transaction, for all of its events.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use http::StatusCode;
use serde_json::json;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use super::app::{App, Representation, ResourceRequest};
use super::faults::{MALFORMED_LINE, WatchFault};
use super::list::{parse_watch_rv, wait_until_fresh};
use super::list_options;
use super::objects::StoredObject;
use super::resources::{ResourceKey, ResourceType};
use super::selector::Selection;
use super::status::{ApiError, json_response};
use super::store::{
    EventBatch, EventType, StateSubscription, StoreEvent, Subscription, watch_line,
};
use super::table;

/// Bounds on the bookmark interval (a zero interval would spin, a huge one overflow).
const MIN_BOOKMARK_INTERVAL: Duration = Duration::from_millis(10);
const MAX_BOOKMARK_INTERVAL: Duration = Duration::from_secs(86_400);

/// How many initial ADDED events go into one write.
const INITIAL_BATCH: usize = 256;

/// Where a watch starts.
enum Start {
    /// Replay the current state as ADDED (optionally ending with the initial-events-end
    /// bookmark), then follow.
    State(StateSubscription, bool),
    /// Replay kept events after a resourceVersion, then follow.
    After(u64, Subscription),
    /// The resourceVersion is too old (410), or a watch-list's is too new (504): one ERROR
    /// event.
    Failed(ApiError),
}

/// One open watch.
struct Watcher {
    app: Arc<App>,
    resource: Arc<ResourceType>,
    key: ResourceKey,
    selection: Selection,
    representation: Representation,
    /// How Table events render their rows.
    table: table::Options,
    bookmarks: bool,
    timeout: Option<Duration>,
    out: mpsc::Sender<Bytes>,
    /// `close_watches` generation when the watch was opened; any later one ends it.
    generation: u64,
    /// Restart generation when the watch was opened; a later one aborts the stream.
    restarts: u64,
    /// Set when the stream must end without a clean close (restart, cut-watch fault).
    aborted: Arc<AtomicBool>,
}

/// Serves a WATCH request.
pub async fn serve(app: &Arc<App>, request: &ResourceRequest) -> Result<Response, ApiError> {
    let selection = Selection::from_request(request)?;
    let timeout = match request.integer("timeoutSeconds")? {
        Some(t) if t < 0 => {
            return Err(ApiError::bad_request(format!("invalid timeoutSeconds {t}")));
        }
        t => t.map(|t| Duration::from_secs(t.unsigned_abs())),
    };
    let start = start(app, request).await?;
    let (out, receiver) = mpsc::channel::<Bytes>(64);
    let aborted = Arc::new(AtomicBool::new(false));
    let watcher = Watcher {
        app: Arc::clone(app),
        key: request.resource.key(),
        resource: Arc::clone(&request.resource),
        selection,
        representation: request.representation,
        table: table::Options::of(request)?,
        bookmarks: request.flag("allowWatchBookmarks"),
        timeout,
        out,
        generation: *app.closer.borrow(),
        restarts: app.faults.restarts(),
        aborted: Arc::clone(&aborted),
    };
    tokio::spawn(watcher.run_until_end(start));
    let body = stream::unfold((receiver, aborted), |(mut receiver, aborted)| async move {
        match receiver.recv().await {
            Some(chunk) => Some((Ok(chunk), (receiver, aborted))),
            // An error item makes hyper drop the connection: no clean end of the stream.
            None if aborted.swap(false, Ordering::AcqRel) => {
                let cut = std::io::Error::other("watch aborted by an injected fault");
                Some((Err(cut), (receiver, aborted)))
            }
            None => None,
        }
    });
    Ok(json_response(StatusCode::OK, Body::from_stream(body)))
}

/// Where the watch starts. A resourceVersion the server has not reached yet is waited for
/// only by a watch-list (`sendInitialEvents=true`), which gets 504 "Too large resource
/// version" as an ERROR event when the wait ends first; any other watch starts at once and
/// sends what comes after it, as kube-apiserver's watch cache does
/// (`waitUntilWatchCacheFreshAndForceAllEvents`, cacher.go apiserver v0.37.2:621-624 and
/// 1325-1351).
async fn start(app: &App, request: &ResourceRequest) -> Result<Start, ApiError> {
    list_options::validate(request, true)?;
    let rv = request
        .param("resourceVersion")
        .map(parse_watch_rv)
        .transpose()?;
    if let Some(rv) = rv.filter(|rv| *rv > 0)
        && request.flag("sendInitialEvents")
        && let Err(too_large) = wait_until_fresh(app, rv).await
    {
        return Ok(Start::Failed(too_large));
    }
    if request.flag("sendInitialEvents") {
        // The initial-events-end bookmark only to a watch that allows bookmarks
        // (setInitialEventsEndBookmarkIfRequested, cacher.go apiserver v0.37.2:1359-1376).
        return Ok(Start::State(
            app.store.subscribe_with_state(&request.resource.key()),
            request.flag("allowWatchBookmarks"),
        ));
    }
    match rv {
        None | Some(0) => Ok(Start::State(
            app.store.subscribe_with_state(&request.resource.key()),
            false,
        )),
        Some(rv) => Ok(match app.store.subscribe_after(rv) {
            Ok(subscription) => Start::After(rv, subscription),
            Err(expired) => Start::Failed(expired),
        }),
    }
}

/// How long before its deadline a watch gets its last BOOKMARK.
const BOOKMARK_BEFORE_DEADLINE: Duration = Duration::from_secs(2);

/// When a watch's next BOOKMARK goes out, as kube-apiserver's `cacheWatcher.nextBookmarkTime`
/// (cache_watcher.go apiserver v0.37.2:233-269) schedules it: a bookmark interval from now, or 2 s
/// before the watch's deadline when that comes first; none once that moment has passed (a
/// watch shorter than 2 s gets none, one that had its last gets no more).
fn next_bookmark_time(
    now: Instant,
    interval: Duration,
    deadline: Option<Instant>,
) -> Option<Instant> {
    let heartbeat = now.checked_add(interval)?;
    let Some(deadline) = deadline else {
        return Some(heartbeat);
    };
    let at = heartbeat.min(deadline.checked_sub(BOOKMARK_BEFORE_DEADLINE)?);
    (at >= now).then_some(at)
}

/// Resolves at the deadline, or never.
async fn deadline_passed(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl Watcher {
    /// Runs the watch; a restart that happened meanwhile aborts the stream instead of ending it.
    async fn run_until_end(self, start: Start) {
        self.run(start).await;
        if self.app.faults.restarts() != self.restarts {
            self.aborted.store(true, Ordering::Release);
        }
    }

    async fn run(&self, start: Start) {
        let mut closer = self.app.closer.subscribe();
        if self.closed(&closer) {
            return;
        }
        let Some((mut receiver, mut last_rv)) = self.begin(start).await else {
            return;
        };
        let deadline = self.timeout.and_then(|t| Instant::now().checked_add(t));
        let interval = self
            .app
            .bookmark_interval
            .clamp(MIN_BOOKMARK_INTERVAL, MAX_BOOKMARK_INTERVAL);
        let mut next_bookmark = next_bookmark_time(Instant::now(), interval, deadline);
        let mut unregistered = self.app.store.subscribe_unregistered();
        loop {
            tokio::select! {
                _ = closer.changed() => return,
                _ = unregistered.changed(), if self.resource.custom => {
                    if !self.app.store.serves(&self.key) {
                        self.deliver_pending(&mut receiver, &mut last_rv).await;
                        return;
                    }
                }
                () = deadline_passed(deadline) => return,
                () = deadline_passed(next_bookmark), if self.bookmarks && next_bookmark.is_some() => {
                    if !self.send(self.bookmark(last_rv, false)).await {
                        return;
                    }
                    next_bookmark = next_bookmark_time(Instant::now(), interval, deadline);
                }
                received = receiver.recv() => {
                    let delivered = match received {
                        Ok(batch) => self.deliver(&batch, &mut last_rv).await,
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            self.catch_up(&mut receiver, &mut last_rv).await
                        }
                        Err(broadcast::error::RecvError::Closed) => false,
                    };
                    if !delivered {
                        return;
                    }
                }
            }
        }
    }

    /// Sends the initial events; returns the live receiver and the resourceVersion reached.
    async fn begin(&self, start: Start) -> Option<(broadcast::Receiver<EventBatch>, u64)> {
        match start {
            Start::State(subscription, end_bookmark) => {
                self.send_initial(&subscription.items).await?;
                if end_bookmark && !self.send(self.bookmark(subscription.rv, true)).await {
                    return None;
                }
                Some((subscription.receiver, subscription.rv))
            }
            Start::After(rv, subscription) => {
                let mut last_rv = rv;
                if !self.deliver(&subscription.backlog, &mut last_rv).await {
                    return None;
                }
                Some((subscription.receiver, last_rv))
            }
            Start::Failed(error) => {
                self.send(watch_line("ERROR", error.status_json().as_bytes()))
                    .await;
                None
            }
        }
    }

    /// The current state as ADDED events, in batches.
    async fn send_initial(&self, items: &[Arc<StoredObject>]) -> Option<()> {
        let selected: Vec<&Arc<StoredObject>> =
            items.iter().filter(|o| self.selection.matches(o)).collect();
        for batch in selected.chunks(INITIAL_BATCH) {
            let mut chunk = Vec::new();
            for object in batch {
                chunk.extend_from_slice(&self.line(EventType::Added, object));
            }
            if !self.send(Bytes::from(chunk)).await {
                return None;
            }
        }
        Some(())
    }

    /// Delivers the events already received (the last ones of a resource no longer served).
    async fn deliver_pending(
        &self,
        receiver: &mut broadcast::Receiver<EventBatch>,
        last_rv: &mut u64,
    ) {
        while let Ok(batch) = receiver.try_recv() {
            if !self.deliver(&batch, last_rv).await {
                return;
            }
        }
    }

    /// After falling behind the broadcast channel: replays from the history, or ends with 410.
    async fn catch_up(
        &self,
        receiver: &mut broadcast::Receiver<EventBatch>,
        last_rv: &mut u64,
    ) -> bool {
        match self.app.store.subscribe_after(*last_rv) {
            Ok(subscription) => {
                *receiver = subscription.receiver;
                self.deliver(&subscription.backlog, last_rv).await
            }
            Err(expired) => {
                self.send(watch_line("ERROR", expired.status_json().as_bytes()))
                    .await;
                false
            }
        }
    }

    /// Sends the events this watcher selects and has not seen yet; false once the client is
    /// gone.
    async fn deliver(&self, events: &[Arc<StoreEvent>], last_rv: &mut u64) -> bool {
        for event in events {
            if event.rv <= *last_rv {
                continue;
            }
            *last_rv = event.rv;
            if let Some(line) = self.render(event)
                && !self.send(line).await
            {
                return false;
            }
        }
        true
    }

    /// The event as this watcher sees it: objects entering the selection are ADDED, objects
    /// leaving it are DELETED, others are skipped.
    fn render(&self, event: &StoreEvent) -> Option<Bytes> {
        if *event.resource != self.key {
            return None;
        }
        let before = event
            .prev
            .as_ref()
            .is_some_and(|p| self.selection.matches(p));
        let now = self.selection.matches(&event.object);
        let seen_as = match (event.event_type, before, now) {
            (EventType::Deleted, true, _) => EventType::Deleted,
            (EventType::Deleted, false, _) | (_, false, false) => return None,
            (_, true, true) => EventType::Modified,
            (_, false, true) => EventType::Added,
            (_, true, false) => EventType::Deleted,
        };
        Some(match (seen_as == event.event_type, self.representation) {
            (true, Representation::Object) => event.line().clone(),
            (true, Representation::Metadata) => event.metadata_line().clone(),
            (false, _) if seen_as == EventType::Deleted => {
                self.line(seen_as, &self.left_selection(event))
            }
            _ => self.line(seen_as, &event.object),
        })
    }

    /// An object that left this watcher's selection as kube-apiserver's DELETED event shows
    /// it: its previous state (the last one the watcher selected) at the event's
    /// resourceVersion (cacheWatcher.convertToWatchEvent, cache_watcher.go apiserver
    /// v0.37.2:400-409).
    fn left_selection(&self, event: &StoreEvent) -> Arc<StoredObject> {
        event
            .prev
            .as_ref()
            .and_then(|prev| prev.to_value().ok())
            .and_then(|mut value| {
                let metadata = value.get_mut("metadata")?.as_object_mut()?;
                metadata.insert("resourceVersion".into(), event.rv.to_string().into());
                StoredObject::new(&value, &self.resource, event.rv).ok()
            })
            .map_or_else(|| Arc::clone(&event.object), Arc::new)
    }

    /// One event line in this watcher's representation.
    fn line(&self, event_type: EventType, object: &StoredObject) -> Bytes {
        match self.representation {
            Representation::Object => watch_line(event_type.as_str(), &object.bytes),
            Representation::Metadata => watch_line(event_type.as_str(), object.metadata_only()),
            Representation::Table => {
                let table = table::render(&self.resource, &self.table, &[object], object.rv, None);
                watch_line(event_type.as_str(), &table)
            }
        }
    }

    /// A BOOKMARK line at `rv`.
    fn bookmark(&self, rv: u64, initial_events_end: bool) -> Bytes {
        let (kind, api_version) = match self.representation {
            Representation::Metadata => (
                "PartialObjectMetadata".to_owned(),
                "meta.k8s.io/v1".to_owned(),
            ),
            _ => (self.resource.kind.clone(), self.resource.api_version()),
        };
        let mut metadata = json!({"resourceVersion": rv.to_string()});
        if let (true, Some(map)) = (initial_events_end, metadata.as_object_mut()) {
            map.insert(
                "annotations".into(),
                json!({"k8s.io/initial-events-end": "true"}),
            );
        }
        let object = json!({"kind": kind, "apiVersion": api_version, "metadata": metadata});
        watch_line("BOOKMARK", object.to_string().as_bytes())
    }

    /// Whether `close_watches` or shutdown happened since the watch was opened.
    fn closed(&self, closer: &watch::Receiver<u64>) -> bool {
        *closer.borrow() != self.generation || self.app.shutting_down.load(Ordering::SeqCst)
    }

    /// Writes to the client; false once it is gone or watches were closed meanwhile (a client
    /// that stops reading cannot hold a closing watch open).
    async fn send(&self, bytes: Bytes) -> bool {
        if let Some(fault) = self.app.faults.next_watch_write() {
            return self.send_faulty(fault, bytes).await;
        }
        self.send_now(bytes).await
    }

    /// Writes with a fault: half a frame then an aborted stream, or a non-JSON line first.
    async fn send_faulty(&self, fault: WatchFault, bytes: Bytes) -> bool {
        match fault {
            WatchFault::Cut => {
                self.send_now(bytes.slice(..bytes.len() / 2)).await;
                self.wait_flushed().await;
                self.aborted.store(true, Ordering::Release);
                false
            }
            WatchFault::Malformed => {
                self.send_now(Bytes::from_static(MALFORMED_LINE)).await
                    && self.send_now(bytes).await
            }
        }
    }

    /// Waits (briefly, bounded) until the client's writer took every queued chunk and had a
    /// moment to flush it, so a cut stream really ends after half a frame.
    async fn wait_flushed(&self) {
        for _ in 0..100 {
            if self.out.capacity() == self.out.max_capacity() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    async fn send_now(&self, bytes: Bytes) -> bool {
        let bytes = match self.out.try_send(bytes) {
            Ok(()) => return true,
            Err(mpsc::error::TrySendError::Closed(_)) => return false,
            Err(mpsc::error::TrySendError::Full(bytes)) => bytes,
        };
        let mut closer = self.app.closer.subscribe();
        if self.closed(&closer) {
            return false;
        }
        tokio::select! {
            sent = self.out.send(bytes) => sent.is_ok(),
            _ = closer.changed() => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn the_last_bookmark_comes_two_seconds_before_the_deadline() {
        // cache_watcher.go apiserver v0.37.2:233-269: min(now + bookmarkFrequency, deadline - 2 s),
        // nothing when that is already past.
        let now = Instant::now();
        let s = Duration::from_secs;
        assert_eq!(next_bookmark_time(now, MINUTE, None), Some(now + MINUTE));
        assert_eq!(
            next_bookmark_time(now, MINUTE, Some(now + s(300))),
            Some(now + MINUTE)
        );
        assert_eq!(
            next_bookmark_time(now, MINUTE, Some(now + s(5))),
            Some(now + s(3))
        );
        assert_eq!(
            next_bookmark_time(now + s(62), MINUTE, Some(now + s(64))),
            Some(now + s(62)),
            "after the minute's bookmark of a 64 s watch, the one before its deadline"
        );
        assert_eq!(next_bookmark_time(now, MINUTE, Some(now + s(1))), None);
        assert_eq!(
            next_bookmark_time(now + s(4), MINUTE, Some(now + s(5))),
            None,
            "sent once"
        );
    }
}
