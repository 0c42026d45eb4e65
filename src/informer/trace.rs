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

mod event;
mod fields;

pub use event::{
    Event, EventKind, HandlerSummary, IndexCounts, IndexValues, InformerMetrics, ProxySummary,
    RequestVerb, Stage, StageSet, Summary, WatchEventType,
};
pub use fields::{FieldVisitor, duration_as_written, duration_in_unit, duration_name};
// What trace events carry, for renderers: `output` depends on this module only.
pub use super::notification::{Notification, NotifyKind};
pub use super::object::{CachedObject, ObjectRef};
pub use super::queue::{DeltaObject, DeltaType, Tombstone};

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

    /// The `seq` of the newest event handed to the sink (0 before the first).
    pub fn last_seq(&self) -> u64 {
        *self
            .inner
            .seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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

    #[test]
    fn seq_is_strictly_increasing_over_shown_events_and_hidden_ones_are_still_counted() {
        let (sink, mut recorded) = tokio::sync::mpsc::unbounded_channel();
        let tracer = Tracer::new(sink, StageSet::minimal().with(Stage::Resync));
        tracer.emit(Event::SyncQueued { count: 1 });
        tracer.emit(Event::IndexerAdd {
            key: "a".into(),
            resource_version: "1".into(),
            indices: Vec::new(),
        });
        tracer.emit(Event::SyncQueued { count: 2 });
        let seqs: Vec<u64> = std::iter::from_fn(|| recorded.try_recv().ok())
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, vec![1, 2]);
        assert_eq!(tracer.count_of("indexer/add"), 1);
        assert_eq!(tracer.count_of("resync/sync-queued"), 2);
    }
}
