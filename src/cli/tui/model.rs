//! The state `kinformer top` draws: what the informer's trace events and a clock tick say
//! about each box of the pipeline. Pure: events and ticks in, numbers out; no terminal, no
//! informer (the indexer figures arrive as a [`IndexerSnapshot`] with each tick).
//!
//! - Reflector: listing / watching / backoff, the last resourceVersion seen, watch events per
//!   second, lists, relists and errors.
//! - Queue: its depth (from `delta` and `pop` events), a depth history for the sparkline (one
//!   sample per tick: the deepest the queue was since the previous tick), pops per second.
//! - Indexer: objects and per-index value counts (read from the cache), writes per second.
//! - One lane per handler, in order of registration: pending, handled per second, mean
//!   latency, and when its next resync is due, derived as client-go's processorListener
//!   schedules it (added: now + period; due at a tick: that tick + period).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::store::Cache;
use crate::informer::trace::{Event, InformerMetrics, TraceEvent};

use super::window::Window;

/// Depth samples kept for the sparkline (wider than any terminal shows).
const HISTORY: usize = 512;
/// Lines kept for the last-events panel.
const RECENT: usize = 200;

/// What the reflector is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReflectorState {
    /// Nothing heard yet.
    Starting,
    /// A LIST (or a watch-list's initial events) is under way.
    Listing {
        relist: bool,
    },
    Watching,
    /// Waiting before the next attempt.
    Backoff {
        until_ms: i64,
        attempt: u32,
        reason: String,
    },
}

/// The Reflector box.
#[derive(Debug, Clone)]
pub struct ReflectorView {
    pub state: ReflectorState,
    /// The newest resourceVersion the reflector saw (list, watch event or bookmark).
    pub resource_version: String,
    /// Watch events (ADDED/MODIFIED/DELETED).
    pub events: Window,
    pub lists: u64,
    pub relists: u64,
    pub errors: u64,
    pub last_error: Option<String>,
}

/// The queue box (DeltaFIFO or RealFIFO).
#[derive(Debug, Clone, Default)]
pub struct QueueView {
    pub depth: usize,
    /// One sample per tick, oldest first.
    pub history: VecDeque<u64>,
    pub pops: Window,
    /// The deepest the queue was since the last tick.
    peak: usize,
}

/// One index as the cache holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexCount {
    pub name: String,
    /// Distinct values (client-go's `ListIndexFuncValues`).
    pub values: usize,
    /// The value holding the most objects, and how many.
    pub largest: Option<(String, usize)>,
}

/// The Indexer's contents at one tick, with the informer metrics client-go 1.36 publishes
/// that the view shows: the store's resourceVersion and the mean time a pop took to process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexerSnapshot {
    pub objects: usize,
    pub indices: Vec<IndexCount>,
    /// `informer_store_resource_version` (AtomicFIFO only).
    pub store_resource_version: Option<u64>,
    /// `informer_processing_latency_seconds`' mean, once anything was processed.
    pub mean_processing: Option<Duration>,
}

impl IndexerSnapshot {
    /// Reads the informer's cache: object count, and per index its values and largest bucket.
    pub fn of(cache: &Cache) -> Self {
        let indexers = cache.indexers();
        let indices = indexers
            .names()
            .map(|name| {
                let values = cache.list_index_func_values(name).unwrap_or_default();
                let largest = values
                    .iter()
                    .map(|v| (v, cache.by_index(name, v).map_or(0, |objs| objs.len())))
                    .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(v, n)| (v.clone(), n));
                IndexCount {
                    name: name.to_owned(),
                    values: values.len(),
                    largest,
                }
            })
            .collect();
        Self {
            objects: cache.len(),
            indices,
            ..Self::default()
        }
    }

    /// This snapshot with the informer's metrics.
    pub fn with_metrics(self, metrics: &InformerMetrics) -> Self {
        Self {
            store_resource_version: metrics.store_resource_version,
            mean_processing: (metrics.processed > 0).then_some(metrics.mean_processing),
            ..self
        }
    }
}

/// The Indexer box.
#[derive(Debug, Clone, Default)]
pub struct IndexerView {
    pub snapshot: IndexerSnapshot,
    /// Indexer adds, updates and deletes.
    pub writes: Window,
}

/// One handler's lane.
#[derive(Debug, Clone)]
pub struct Lane {
    pub name: Arc<str>,
    pub pending: usize,
    /// The most this handler ever had pending (the pending bar's scale).
    pub peak_pending: usize,
    pub handled: u64,
    /// Handled notifications, each with its latency in microseconds.
    pub recent: Window,
    pub panics: u64,
    /// The effective resync period (zero: never).
    pub resync: Duration,
    /// When the next resync is due (ms since the epoch); None when it never resyncs.
    pub next_resync_ms: Option<i64>,
}

impl Lane {
    fn new(name: Arc<str>, resync: Duration, at_ms: i64) -> Self {
        Self {
            name,
            pending: 0,
            peak_pending: 0,
            handled: 0,
            recent: Window::starting(at_ms),
            panics: 0,
            resync,
            next_resync_ms: due_after(at_ms, resync),
        }
    }

    /// Handled per second at `now_ms`.
    pub fn handled_per_second(&self, now_ms: i64) -> f64 {
        self.recent.per_second(now_ms)
    }

    /// The mean latency of the notifications handled in the window.
    pub fn mean_latency(&self, now_ms: i64) -> Option<Duration> {
        self.recent.mean(now_ms).map(Duration::from_micros)
    }

    fn set_pending(&mut self, pending: usize) {
        self.pending = pending;
        self.peak_pending = self.peak_pending.max(pending);
    }
}

/// One line of the last-events panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentEvent {
    pub seq: u64,
    pub at_ms: i64,
    pub text: String,
}

/// Everything `top` shows.
#[derive(Debug, Clone)]
pub struct Model {
    /// The clock of the last tick (ms since the epoch).
    pub now_ms: i64,
    /// The client-go release profile and queue the informer models (`1.36 real-fifo`).
    pub profile: Option<String>,
    /// Objects at the informer's first sync.
    pub synced: Option<usize>,
    pub reflector: ReflectorView,
    pub queue: QueueView,
    pub indexer: IndexerView,
    pub lanes: Vec<Lane>,
    pub recent: VecDeque<RecentEvent>,
    /// Why the informer stopped, once it did.
    pub stopped: Option<String>,
}

impl Default for Model {
    fn default() -> Self {
        Self {
            now_ms: 0,
            profile: None,
            synced: None,
            reflector: ReflectorView {
                state: ReflectorState::Starting,
                resource_version: String::new(),
                events: Window::default(),
                lists: 0,
                relists: 0,
                errors: 0,
                last_error: None,
            },
            queue: QueueView::default(),
            indexer: IndexerView::default(),
            lanes: Vec::new(),
            recent: VecDeque::new(),
            stopped: None,
        }
    }
}

impl Model {
    /// Takes in one trace event.
    pub fn observe(&mut self, traced: &TraceEvent) {
        let at_ms = traced.ts.as_millisecond();
        self.start(at_ms);
        self.remember(traced, at_ms);
        match &traced.event {
            Event::ListStart { .. }
            | Event::ListPage { .. }
            | Event::ListDone { .. }
            | Event::WatchStart { .. }
            | Event::WatchEvent { .. }
            | Event::Bookmark { .. }
            | Event::WatchEnd { .. }
            | Event::WatchError { .. }
            | Event::ListError { .. }
            | Event::Relist { .. }
            | Event::Backoff { .. } => self.observe_reflector(&traced.event, at_ms),
            Event::Delta { depth, .. } => self.set_depth(*depth),
            Event::Pop { depth, .. } => {
                self.queue.pops.record(at_ms);
                self.set_depth(*depth);
            }
            Event::IndexerAdd { .. }
            | Event::IndexerUpdate { .. }
            | Event::IndexerDelete { .. } => {
                self.indexer.writes.record(at_ms);
            }
            _ => self.observe_informer(&traced.event, at_ms),
        }
    }

    /// The clock moved to `now_ms`; `indexer` is the cache as it is now.
    pub fn tick(&mut self, now_ms: i64, indexer: IndexerSnapshot) {
        self.now_ms = now_ms;
        self.indexer.snapshot = indexer;
        let queue = &mut self.queue;
        queue.history.push_back(queue.peak as u64);
        if queue.history.len() > HISTORY {
            queue.history.pop_front();
        }
        queue.peak = queue.depth;
        queue.pops.prune(now_ms);
        self.reflector.events.prune(now_ms);
        self.indexer.writes.prune(now_ms);
        for lane in &mut self.lanes {
            lane.recent.prune(now_ms);
        }
    }

    /// Rates count from the first event the model heard of.
    fn start(&mut self, at_ms: i64) {
        self.reflector.events.start(at_ms);
        self.queue.pops.start(at_ms);
        self.indexer.writes.start(at_ms);
    }

    /// The lane of the handler called `name`.
    pub fn lane(&self, name: &str) -> Option<&Lane> {
        self.lanes.iter().find(|l| &*l.name == name)
    }

    fn set_depth(&mut self, depth: usize) {
        self.queue.depth = depth;
        self.queue.peak = self.queue.peak.max(depth);
    }

    fn observe_reflector(&mut self, event: &Event, at_ms: i64) {
        let r = &mut self.reflector;
        match event {
            Event::ListStart { .. } => {
                let relist = r.lists > 0;
                r.lists += 1;
                r.state = ReflectorState::Listing { relist };
            }
            Event::ListDone {
                resource_version, ..
            } => {
                r.resource_version.clone_from(resource_version);
                r.state = ReflectorState::Watching;
            }
            Event::WatchStart { .. } => r.state = ReflectorState::Watching,
            Event::WatchEvent {
                resource_version, ..
            }
            | Event::Bookmark {
                resource_version, ..
            } => {
                if matches!(event, Event::WatchEvent { .. }) {
                    r.events.record(at_ms);
                }
                if !resource_version.is_empty() {
                    r.resource_version.clone_from(resource_version);
                }
            }
            Event::WatchError {
                code,
                reason,
                message,
            }
            | Event::ListError {
                code,
                reason,
                message,
            } => {
                r.errors += 1;
                r.last_error = Some(match code {
                    Some(code) => format!("{code} {reason}"),
                    None => format!("{reason}: {message}"),
                });
            }
            Event::Relist { .. } => r.relists += 1,
            Event::Backoff {
                reason,
                delay_ms,
                attempt,
            } => {
                r.state = ReflectorState::Backoff {
                    until_ms: at_ms.saturating_add(i64::try_from(*delay_ms).unwrap_or(i64::MAX)),
                    attempt: *attempt,
                    reason: reason.clone(),
                };
            }
            _ => {}
        }
    }

    fn observe_informer(&mut self, event: &Event, at_ms: i64) {
        match event {
            Event::Notify {
                handler, pending, ..
            } => {
                if let Some(lane) = self.lane_mut(handler) {
                    lane.set_pending(*pending);
                }
            }
            Event::Handled {
                handler,
                pending,
                latency,
                panicked,
                ..
            } => {
                if let Some(lane) = self.lane_mut(handler) {
                    lane.set_pending(*pending);
                    lane.handled += 1;
                    lane.panics += u64::from(*panicked);
                    let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
                    lane.recent.record_value(at_ms, micros);
                }
            }
            Event::ResyncTick { due, .. } => {
                for lane in &mut self.lanes {
                    if due.contains(&lane.name) {
                        lane.next_resync_ms = due_after(at_ms, lane.resync);
                    }
                }
            }
            Event::HandlerAdded {
                handler,
                effective_resync,
                ..
            } => self
                .lanes
                .push(Lane::new(handler.clone(), *effective_resync, at_ms)),
            // The listener's schedule keeps its next due time; only the period changes.
            Event::ResyncPeriodChanged {
                handler,
                effective_resync,
                ..
            } => {
                if let Some(lane) = self.lane_mut(handler) {
                    lane.resync = *effective_resync;
                    if effective_resync.is_zero() {
                        lane.next_resync_ms = None;
                    }
                }
            }
            Event::HandlerRemoved { handler } => self.lanes.retain(|l| l.name != *handler),
            Event::Started {
                profile,
                queue,
                overrides,
                ..
            } => {
                let release = profile.as_deref().unwrap_or("custom");
                let overridden = if overrides.is_empty() { "" } else { "*" };
                self.profile = Some(format!("client-go {release}{overridden} {queue}"));
            }
            Event::Synced { objects, .. } => {
                self.synced.get_or_insert(*objects);
            }
            Event::Stopped { reason } => self.stopped = Some(reason.clone()),
            _ => {}
        }
    }

    fn lane_mut(&mut self, name: &str) -> Option<&mut Lane> {
        self.lanes.iter_mut().find(|l| &*l.name == name)
    }

    fn remember(&mut self, traced: &TraceEvent, at_ms: i64) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(RecentEvent {
            seq: traced.seq,
            at_ms,
            text: describe(&traced.event),
        });
    }
}

/// When a handler with `period` is next due, counted from `at_ms`; None for never.
fn due_after(at_ms: i64, period: Duration) -> Option<i64> {
    (!period.is_zero())
        .then(|| at_ms.saturating_add(i64::try_from(period.as_millis()).unwrap_or(i64::MAX)))
}

/// One short line for the last-events panel: `stage event key detail`.
pub fn describe(event: &Event) -> String {
    let head = format!("{:<9} {:<14}", event.stage().as_str(), event.name());
    let tail = match event {
        Event::ListStart {
            resource_version,
            limit,
            ..
        } => format!("rv={resource_version:?} limit={}", limit.unwrap_or(0)),
        Event::ListDone {
            items,
            resource_version,
            ..
        } => format!("items={items} rv={resource_version}"),
        Event::WatchStart {
            resource_version, ..
        }
        | Event::Bookmark {
            resource_version, ..
        } => format!("rv={resource_version}"),
        Event::WatchEvent {
            event_type,
            key,
            resource_version,
        } => format!("{} {key} rv={resource_version}", event_type.as_str()),
        Event::WatchError { code, reason, .. } | Event::ListError { code, reason, .. } => {
            format!(
                "{} {reason}",
                code.map(|c| c.to_string()).unwrap_or_default()
            )
        }
        Event::Relist { reason } | Event::WatchEnd { reason, .. } => reason.clone(),
        Event::Backoff {
            delay_ms, attempt, ..
        } => format!("{delay_ms}ms attempt={attempt}"),
        Event::Delta {
            delta_type,
            key,
            depth,
            ..
        } => format!("{} {key} depth={depth}", delta_type.as_str()),
        Event::Pop { key, depth, .. } => format!("{key} depth={depth}"),
        Event::IndexerAdd { key, .. }
        | Event::IndexerUpdate { key, .. }
        | Event::IndexerDelete { key, .. } => key.clone(),
        Event::Notify {
            handler,
            notification,
            pending,
        } => format!(
            "{handler} {} {} pending={pending}",
            notification.kind().as_str(),
            notification.key()
        ),
        Event::Handled {
            handler,
            kind,
            key,
            latency,
            ..
        } => format!(
            "{handler} {} {key} {}",
            kind.as_str(),
            short_duration(*latency)
        ),
        Event::ResyncTick { due, .. } => format!("due={}", due.join(",")),
        Event::SyncQueued { count } => format!("count={count}"),
        Event::Synced { objects, .. } => format!("objects={objects}"),
        Event::HandlerAdded { handler, .. }
        | Event::HandlerRemoved { handler }
        | Event::ResyncPeriodChanged { handler, .. } => handler.to_string(),
        Event::Stopped { reason } => reason.clone(),
        _ => String::new(),
    };
    format!("{head} {tail}").trim_end().to_owned()
}

/// A latency in three significant places at most: `45µs`, `250ms`, `1.5s`.
pub fn short_duration(d: Duration) -> String {
    match d.as_micros() {
        us if us < 1_000 => format!("{us}µs"),
        us if us < 1_000_000 => format!("{}ms", us / 1_000),
        _ => format!("{:.1}s", d.as_secs_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::tui::fixtures::{added, at, handled, started};
    use crate::informer::notification::Notification;
    use crate::informer::object::CachedObject;
    use crate::informer::store::{IndexFunc, Indexers, Store};

    fn pod(ns: &str, name: &str, app: &str) -> CachedObject {
        let raw = format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"{ns}","resourceVersion":"1","labels":{{"app":"{app}"}}}}}}"#
        );
        CachedObject::from_json(raw.into_bytes()).unwrap()
    }

    #[test]
    fn the_reflector_goes_listing_watching_backoff_and_tracks_the_newest_rv() {
        let mut m = Model::default();
        assert_eq!(m.reflector.state, ReflectorState::Starting);
        m.observe(&at(
            0,
            Event::ListStart {
                resource_version: "0".into(),
                resource_version_match: None,
                limit: Some(500),
                watch_list: false,
            },
        ));
        assert_eq!(m.reflector.state, ReflectorState::Listing { relist: false });
        m.observe(&at(
            10,
            Event::ListDone {
                items: 3,
                pages: 1,
                resource_version: "100".into(),
            },
        ));
        m.observe(&at(
            11,
            Event::WatchStart {
                resource_version: "100".into(),
                timeout_seconds: 300,
                watch_list: false,
            },
        ));
        assert_eq!(m.reflector.state, ReflectorState::Watching);
        for (i, rv) in ["101", "102", "103"].into_iter().enumerate() {
            m.observe(&at(
                1_000 + i64::try_from(i).unwrap() * 100,
                Event::WatchEvent {
                    event_type: crate::informer::trace::WatchEventType::Modified,
                    key: "ns/a".into(),
                    resource_version: rv.into(),
                },
            ));
        }
        m.observe(&at(
            1_500,
            Event::Bookmark {
                resource_version: "150".into(),
                initial_events_end: false,
            },
        ));
        assert_eq!(m.reflector.resource_version, "150");
        m.tick(2_000, IndexerSnapshot::default());
        // 3 watch events in the first 2 s (the bookmark is no event).
        assert!((m.reflector.events.per_second(2_000) - 1.5).abs() < 0.01);
        m.observe(&at(
            3_000,
            Event::WatchError {
                code: Some(410),
                reason: "Expired".into(),
                message: "too old".into(),
            },
        ));
        m.observe(&at(
            3_000,
            Event::Backoff {
                reason: "410 Expired".into(),
                delay_ms: 800,
                attempt: 1,
            },
        ));
        assert_eq!(
            m.reflector.state,
            ReflectorState::Backoff {
                until_ms: 3_800,
                attempt: 1,
                reason: "410 Expired".into()
            }
        );
        assert_eq!(m.reflector.last_error.as_deref(), Some("410 Expired"));
        m.observe(&at(
            3_800,
            Event::Relist {
                reason: "410 Expired".into(),
            },
        ));
        m.observe(&at(
            3_801,
            Event::ListStart {
                resource_version: "150".into(),
                resource_version_match: None,
                limit: None,
                watch_list: false,
            },
        ));
        assert_eq!(m.reflector.state, ReflectorState::Listing { relist: true });
        assert_eq!(
            (m.reflector.lists, m.reflector.relists, m.reflector.errors),
            (2, 1, 1)
        );
    }

    #[test]
    fn the_queue_depth_history_keeps_the_deepest_point_between_ticks() {
        let mut m = Model::default();
        for (depth, ms) in [(1, 10), (2, 20), (3, 30)] {
            m.observe(&at(
                ms,
                Event::Delta {
                    delta_type: crate::informer::trace::DeltaType::Added,
                    key: format!("ns/p{depth}"),
                    resource_version: "1".into(),
                    depth,
                    tombstone: false,
                },
            ));
        }
        for (depth, ms) in [(2, 40), (1, 50)] {
            m.observe(&at(
                ms,
                Event::Pop {
                    key: "ns/p".into(),
                    deltas: 1,
                    depth,
                    initial: true,
                    batch: None,
                },
            ));
        }
        m.tick(100, IndexerSnapshot::default());
        m.tick(200, IndexerSnapshot::default());
        assert_eq!(m.queue.depth, 1);
        assert_eq!(
            m.queue.history.iter().copied().collect::<Vec<_>>(),
            [3, 1],
            "the burst to 3 shows although the tick saw 1"
        );
        assert!((m.queue.pops.per_second(1_000) - 2.0).abs() < 0.01);
    }

    #[test]
    fn a_lane_counts_pending_handled_per_second_and_mean_latency() {
        let mut m = Model::default();
        m.observe(&at(0, added("slow", Duration::ZERO)));
        for i in 1..=4 {
            m.observe(&at(
                0,
                Event::Notify {
                    handler: Arc::from("slow"),
                    notification: Notification::Add {
                        obj: Arc::new(pod("ns", &format!("p{i}"), "web")),
                        initial: true,
                    },
                    pending: i,
                },
            ));
        }
        m.observe(&at(250, handled("slow", 3, 250)));
        m.observe(&at(750, handled("slow", 2, 750)));
        m.tick(1_000, IndexerSnapshot::default());
        let lane = m.lane("slow").unwrap();
        assert_eq!((lane.pending, lane.peak_pending, lane.handled), (2, 4, 2));
        assert!((lane.handled_per_second(1_000) - 2.0).abs() < 0.01);
        assert_eq!(lane.mean_latency(1_000), Some(Duration::from_millis(500)));
        assert_eq!(lane.next_resync_ms, None, "period 0 never resyncs");
    }

    #[test]
    fn the_next_resync_counts_from_registration_then_from_each_tick_it_was_due_at() {
        let mut m = Model::default();
        m.observe(&at(1_000, added("fast", Duration::from_secs(10))));
        m.observe(&at(1_000, added("never", Duration::ZERO)));
        assert_eq!(m.lane("fast").unwrap().next_resync_ms, Some(11_000));
        m.observe(&at(
            11_005,
            Event::ResyncTick {
                due: vec![Arc::from("fast")],
                check_period: Duration::from_secs(10),
            },
        ));
        assert_eq!(m.lane("fast").unwrap().next_resync_ms, Some(21_005));
        assert_eq!(m.lane("never").unwrap().next_resync_ms, None);
    }

    #[test]
    fn lanes_follow_handlers_added_and_removed_at_runtime() {
        let mut m = Model::default();
        m.observe(&at(0, added("a", Duration::ZERO)));
        m.observe(&at(0, added("b", Duration::ZERO)));
        m.observe(&at(
            5,
            Event::HandlerRemoved {
                handler: Arc::from("a"),
            },
        ));
        let names: Vec<&str> = m.lanes.iter().map(|l| &*l.name).collect();
        assert_eq!(names, ["b"]);
        // Events of a removed handler still in the stream change nothing.
        m.observe(&at(6, handled("a", 0, 1)));
        assert_eq!(m.lanes.len(), 1);
    }

    #[test]
    fn the_last_events_are_kept_in_order_and_bounded() {
        let mut m = Model::default();
        for i in 0..(RECENT + 5) {
            m.observe(&at(
                i64::try_from(i).unwrap(),
                Event::SyncQueued { count: i },
            ));
        }
        assert_eq!(m.recent.len(), RECENT);
        assert_eq!(
            m.recent.front().unwrap().text,
            "resync    sync-queued    count=5"
        );
        assert_eq!(
            m.recent.back().unwrap().seq,
            u64::try_from(RECENT + 4).unwrap()
        );
    }

    #[test]
    fn the_indexer_snapshot_counts_objects_index_values_and_the_largest_bucket() {
        let mut indexers = Indexers::default();
        indexers
            .add("app", IndexFunc::parse("label:app").unwrap())
            .unwrap();
        let store = Arc::new(Store::new(indexers.clone()));
        for (ns, name, app) in [("a", "1", "web"), ("a", "2", "web"), ("b", "3", "db")] {
            let obj = pod(ns, name, app);
            let values = indexers.compute(&obj);
            store.upsert(Arc::new(obj.with_index_values(values)));
        }
        let snapshot = IndexerSnapshot::of(&Cache::new(store));
        assert_eq!(snapshot.objects, 3);
        assert_eq!(
            snapshot.indices,
            [
                IndexCount {
                    name: "namespace".into(),
                    values: 2,
                    largest: Some(("a".into(), 2)),
                },
                IndexCount {
                    name: "app".into(),
                    values: 2,
                    largest: Some(("web".into(), 2)),
                },
            ]
        );
    }

    #[test]
    fn started_names_the_release_and_queue_and_synced_the_first_sync() {
        let mut m = Model::default();
        m.observe(&at(0, started()));
        let synced = |objects| Event::Synced {
            objects,
            store_rv: None,
        };
        m.observe(&at(1, synced(7)));
        m.observe(&at(2, synced(9)));
        assert_eq!(m.profile.as_deref(), Some("client-go 1.36 real-fifo"));
        assert_eq!(m.synced, Some(7));
    }
}
