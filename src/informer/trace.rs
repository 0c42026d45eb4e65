//! `TraceEvent`: the only thing the pipeline tells the outside world.
//!
//! Every stage calls [`Tracer::emit`]; the tracer counts every event (the exit summary is built
//! from those counts, whatever is shown), stamps the ones whose stage is shown with a strictly
//! increasing `seq` and a wall-clock `ts`, and hands them to one [`TraceSink`].
//!
//! Slow output: the CLI's sink is an unbounded channel drained by a writer task, so observing
//! never blocks or reorders the pipeline; when the terminal is slower than the informer the
//! backlog grows in memory instead (a pipe to `jq` catches up once the initial LIST is done).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::queue::Delta;
// What trace events carry, for renderers: `output` depends on this module only.
pub use super::notification::{Notification, NotifyKind};
pub use super::object::{CachedObject, ObjectRef};
pub use super::queue::{DeltaObject, DeltaType, Tombstone};

/// The pipeline stage an event comes from (the `stage` field of a JSONL line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Reflector,
    Fifo,
    Indexer,
    Handler,
    Resync,
    Informer,
    Summary,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Reflector => "reflector",
            Stage::Fifo => "fifo",
            Stage::Indexer => "indexer",
            Stage::Handler => "handler",
            Stage::Resync => "resync",
            Stage::Informer => "informer",
            Stage::Summary => "summary",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The set of stages whose events reach the sink. `informer` and `summary` always do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageSet(u8);

impl StageSet {
    pub const ALL: StageSet = StageSet(0x7f);

    /// Only the stages that are always shown.
    pub fn minimal() -> Self {
        StageSet(Stage::Informer.bit() | Stage::Summary.bit())
    }

    pub fn with(self, stage: Stage) -> Self {
        StageSet(self.0 | stage.bit())
    }

    pub fn contains(self, stage: Stage) -> bool {
        self.0 & stage.bit() != 0
    }
}

/// The type of a WATCH event as the server sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
}

impl WatchEventType {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
        }
    }
}

/// What happened, with the fields its JSONL line carries.
#[derive(Debug, Clone)]
pub enum Event {
    /// Reflector: a LIST (or watch-list) begins, with the parameters actually sent:
    /// `resource_version` ("" = consistent read, "0" = any cached state, "N" = not older than
    /// N), `resourceVersionMatch`, and `limit`.
    ListStart {
        resource_version: String,
        resource_version_match: Option<String>,
        limit: Option<u32>,
        watch_list: bool,
    },
    ListPage {
        page: u32,
        items: usize,
        more: bool,
    },
    ListDone {
        items: usize,
        pages: u32,
        resource_version: String,
    },
    WatchStart {
        resource_version: String,
        timeout_seconds: u64,
        watch_list: bool,
    },
    WatchEvent {
        event_type: WatchEventType,
        key: String,
        resource_version: String,
    },
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    WatchEnd {
        resource_version: String,
        events: u64,
        reason: String,
    },
    WatchError {
        code: Option<u16>,
        reason: String,
        message: String,
    },
    Relist {
        reason: String,
    },
    Backoff {
        reason: String,
        delay_ms: u64,
        attempt: u32,
    },
    /// DeltaFIFO / RealFIFO: a delta entered the queue; `depth` is the queue length after it.
    Delta {
        delta_type: DeltaType,
        key: String,
        resource_version: String,
        depth: usize,
        tombstone: bool,
    },
    /// The process loop popped an entry: a key's `deltas` (DeltaFIFO), one delta (RealFIFO),
    /// or, with PopBatch, `batch` deltas for distinct keys (`key` is the first).
    Pop {
        key: String,
        deltas: usize,
        depth: usize,
        initial: bool,
        batch: Option<usize>,
    },
    IndexerAdd {
        key: String,
        resource_version: String,
    },
    IndexerUpdate {
        key: String,
        resource_version: String,
        old_resource_version: String,
    },
    IndexerDelete {
        key: String,
        resource_version: String,
        tombstone: bool,
    },
    /// A notification was queued for a handler; `pending` is its backlog including this one.
    Notify {
        handler: Arc<str>,
        notification: Notification,
        pending: usize,
    },
    /// A handler finished a notification.
    Handled {
        handler: Arc<str>,
        kind: NotifyKind,
        key: String,
        resource_version: String,
        sync: bool,
        pending: usize,
        latency: Duration,
        panicked: bool,
    },
    /// The resync check period elapsed; `due` names the handlers whose resync is due.
    ResyncTick {
        due: Vec<Arc<str>>,
        check_period: Duration,
    },
    SyncQueued {
        count: usize,
    },
    /// The informer starts: which client-go release profile it models and what that chose;
    /// `overrides` names the settings an explicit flag changed.
    Started {
        profile: Option<String>,
        queue: String,
        pop_batch: bool,
        atomic_fifo: bool,
        unlock_while_processing: bool,
        watch_list: bool,
        overrides: Vec<String>,
    },
    Synced {
        objects: usize,
    },
    HandlerAdded {
        handler: Arc<str>,
        requested_resync: Duration,
        effective_resync: Duration,
        check_period: Duration,
        after_start: bool,
        adjustment: Option<String>,
    },
    HandlerRemoved {
        handler: Arc<str>,
    },
    /// A handler's resync period was recomputed because the check period changed (Rule P2).
    ResyncPeriodChanged {
        handler: Arc<str>,
        effective_resync: Duration,
        check_period: Duration,
    },
    Stopped {
        reason: String,
    },
    Summary(Box<Summary>),
}

/// Counts gathered over the whole run, printed at exit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// `stage/event` → how many were emitted (shown or not).
    pub counts: BTreeMap<String, u64>,
    pub handlers: Vec<HandlerSummary>,
    pub duration: Duration,
}

/// One handler's figures in the exit summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HandlerSummary {
    pub name: String,
    /// The resource of the informer the handler is registered with (as in trace events).
    pub resource: Option<String>,
    pub notifications: u64,
    pub adds: u64,
    pub updates: u64,
    pub deletes: u64,
    pub syncs: u64,
    pub handled: u64,
    pub panics: u64,
    /// Notifications still buffered when the informer stopped: dropped, never handled.
    pub dropped: u64,
    pub max_pending: u64,
    pub mean_latency: Duration,
}

/// Declares every event kind once: its [`Event`] variant (same name), its stage and its JSONL
/// `event` name. Generates [`EventKind`], its stage and name, and [`Event::kind`].
macro_rules! event_kinds {
    ($($variant:ident => $stage:ident, $name:literal;)+) => {
        /// An event's kind without its fields: what the tracer counts, and what hot paths name
        /// before deciding whether to build the event at all.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum EventKind {
            $($variant,)+
        }

        impl EventKind {
            /// Every kind, in declaration order (the tracer's counter slots).
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)+];

            pub fn stage(self) -> Stage {
                match self {
                    $(EventKind::$variant => Stage::$stage,)+
                }
            }

            /// The `event` field of the JSONL line.
            pub fn name(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)+
                }
            }
        }

        impl Event {
            pub fn kind(&self) -> EventKind {
                match self {
                    $(Event::$variant { .. } => EventKind::$variant,)+
                }
            }
        }
    };
}

event_kinds! {
    ListStart => Reflector, "list-start";
    ListPage => Reflector, "list-page";
    ListDone => Reflector, "list-done";
    WatchStart => Reflector, "watch-start";
    WatchEvent => Reflector, "watch-event";
    Bookmark => Reflector, "bookmark";
    WatchEnd => Reflector, "watch-end";
    WatchError => Reflector, "watch-error";
    Relist => Reflector, "relist";
    Backoff => Reflector, "backoff";
    Delta => Fifo, "delta";
    Pop => Fifo, "pop";
    IndexerAdd => Indexer, "add";
    IndexerUpdate => Indexer, "update";
    IndexerDelete => Indexer, "delete";
    Notify => Handler, "notify";
    Handled => Handler, "handled";
    ResyncTick => Resync, "tick";
    SyncQueued => Resync, "sync-queued";
    Started => Informer, "started";
    Synced => Informer, "synced";
    HandlerAdded => Informer, "handler-added";
    HandlerRemoved => Informer, "handler-removed";
    ResyncPeriodChanged => Informer, "resync-period-changed";
    Stopped => Informer, "stopped";
    Summary => Summary, "summary";
}

impl Event {
    /// The `fifo delta` event for `delta`, the queue `depth` long after it.
    pub fn delta(delta: &Delta, depth: usize) -> Self {
        Event::Delta {
            delta_type: delta.delta_type,
            key: delta.object.key().to_owned(),
            resource_version: delta.object.object().resource_version().to_owned(),
            depth,
            tombstone: delta.object.is_tombstone(),
        }
    }

    pub fn stage(&self) -> Stage {
        self.kind().stage()
    }

    /// The `event` field of the JSONL line.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

/// One stamped event.
#[derive(Debug, Clone)]
pub struct TraceEvent {
    /// Strictly increasing from 1 over the events that reached the sink.
    pub seq: u64,
    pub ts: jiff::Timestamp,
    /// The informer's resource (`pods`, `deployments.apps`) when its tracer was made with
    /// [`Tracer::for_resource`]; `None` for events of no one resource (the exit summary).
    pub resource: Option<Arc<str>>,
    pub event: Event,
}

/// Where stamped events go.
pub trait TraceSink: Send + Sync + 'static {
    fn record(&self, event: TraceEvent);
}

impl TraceSink for tokio::sync::mpsc::UnboundedSender<TraceEvent> {
    fn record(&self, event: TraceEvent) {
        // A closed receiver means the output is gone (e.g. a closed pipe); the pipeline goes on.
        let _ = self.send(event);
    }
}

/// Counts, stamps and forwards events. Cheap to clone; all clones share one sequence and
/// one set of counters; [`Tracer::for_resource`] makes one with its own counters and label
/// that shares the sequence and sink (one informer per resource, one stream).
#[derive(Clone)]
pub struct Tracer {
    inner: Arc<TracerInner>,
    counts: Arc<[AtomicU64]>,
    resource: Option<Arc<str>>,
}

struct TracerInner {
    shown: StageSet,
    seq: Mutex<u64>,
    sink: Option<Box<dyn TraceSink>>,
    /// Where `ts` comes from: the wall clock, or (a replay) a virtual one.
    clock: Option<TraceClock>,
}

/// A clock for `ts` other than the wall clock (`replay --clock virtual`).
pub type TraceClock = Arc<dyn Fn() -> jiff::Timestamp + Send + Sync>;

impl Tracer {
    /// A tracer forwarding the events of the `shown` stages to `sink`.
    pub fn new(sink: impl TraceSink, shown: StageSet) -> Self {
        Self::build(Some(Box::new(sink)), shown, None)
    }

    /// [`Tracer::new`] stamping `ts` from `clock`.
    pub fn with_clock(sink: impl TraceSink, shown: StageSet, clock: TraceClock) -> Self {
        Self::build(Some(Box::new(sink)), shown, Some(clock))
    }

    /// A tracer that only counts.
    pub fn counting_only() -> Self {
        Self::build(None, StageSet::minimal(), None)
    }

    fn build(sink: Option<Box<dyn TraceSink>>, shown: StageSet, clock: Option<TraceClock>) -> Self {
        Self {
            inner: Arc::new(TracerInner {
                shown,
                seq: Mutex::new(0),
                sink,
                clock,
            }),
            counts: new_counters(),
            resource: None,
        }
    }

    /// A tracer into the same sequence and sink whose events carry `resource` and whose
    /// counts are its own (each informer's summary counts its own events).
    pub fn for_resource(&self, resource: &str) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            counts: new_counters(),
            resource: Some(resource.into()),
        }
    }

    /// The resource this tracer's events carry.
    pub fn resource(&self) -> Option<&Arc<str>> {
        self.resource.as_ref()
    }

    /// Counts `event` and, when its stage is shown, stamps and records it.
    pub fn emit(&self, event: Event) {
        if self.count(event.kind()) {
            self.record(event);
        }
    }

    /// Counts an event of `kind` and builds it with `make` only when its stage is shown: the
    /// hot paths (deltas, pops, indexer writes, notifications) cost a counter increment when
    /// nobody looks.
    pub fn emit_with(&self, kind: EventKind, make: impl FnOnce() -> Event) {
        if self.count(kind) {
            self.record(make());
        }
    }

    /// Counts `kind`; true when its events reach the sink.
    fn count(&self, kind: EventKind) -> bool {
        self.counts[kind as usize].fetch_add(1, Ordering::Relaxed);
        self.inner.sink.is_some() && self.inner.shown.contains(kind.stage())
    }

    fn record(&self, event: Event) {
        let Some(sink) = &self.inner.sink else { return };
        // The lock makes seq order and sink order the same order.
        let mut seq = self
            .inner
            .seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *seq += 1;
        sink.record(TraceEvent {
            seq: *seq,
            ts: self
                .inner
                .clock
                .as_ref()
                .map_or_else(jiff::Timestamp::now, |clock| clock()),
            resource: self.resource.clone(),
            event,
        });
    }

    /// `stage/event` → count, for every event kind emitted at least once.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for (kind, count) in EventKind::ALL.iter().zip(self.counts.iter()) {
            let n = count.load(Ordering::Relaxed);
            if n > 0 {
                out.insert(format!("{}/{}", kind.stage().as_str(), kind.name()), n);
            }
        }
        out
    }

    /// How many events of the kind named `stage/event` were emitted.
    pub fn count_of(&self, stage_event: &str) -> u64 {
        self.counts().get(stage_event).copied().unwrap_or(0)
    }
}

/// One zeroed counter per event kind.
fn new_counters() -> Arc<[AtomicU64]> {
    EventKind::ALL.iter().map(|_| AtomicU64::new(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::testing::MemorySink;

    #[test]
    fn seq_is_strictly_increasing_over_shown_events_and_hidden_ones_are_still_counted() {
        let sink = MemorySink::new();
        let tracer = Tracer::new(sink.clone(), StageSet::minimal().with(Stage::Resync));
        tracer.emit(Event::SyncQueued { count: 1 });
        tracer.emit(Event::IndexerAdd {
            key: "a".into(),
            resource_version: "1".into(),
        });
        tracer.emit(Event::SyncQueued { count: 2 });
        let seqs: Vec<u64> = sink.events().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![1, 2]);
        assert_eq!(tracer.count_of("indexer/add"), 1);
        assert_eq!(tracer.count_of("resync/sync-queued"), 2);
    }
}
