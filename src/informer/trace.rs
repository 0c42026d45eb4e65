//! `TraceEvent`: the only thing the pipeline tells the outside world.
//!
//! Every stage calls [`Tracer::emit`]; the tracer counts every event (the exit summary is built
//! from those counts, whatever is shown), stamps the ones whose stage is shown with a strictly
//! increasing `seq` and a wall-clock `ts`, and hands them to one [`TraceSink`].
//!
//! Slow output: the CLI's sink is an unbounded channel drained by a writer task, so observing
//! never blocks or reorders the pipeline; when the terminal is slower than the informer the
//! backlog grows in memory instead (a pipe to `jq` catches up once the initial LIST is done).
//!
//! Batched hand-off: while a task runs under [`Tracer::batched`] (the informer's pipeline and
//! each listener), the events it stamps are held and reach the sink together when its poll
//! returns (or every [`BATCH_LIMIT`] events), so the reader is woken once per batch instead of
//! once per event. Stamping still happens at emit time under one lock, so seq order, sink order
//! and the order events happened in stay the same order, across tasks and threads.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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

    /// Takes a batch of events, in order (a channel sink sends them back to back, so its
    /// reader wakes once for all of them).
    fn record_all(&self, events: Vec<TraceEvent>) {
        for event in events {
            self.record(event);
        }
    }
}

/// The most events held by [`Tracer::batched`] before they are handed over anyway: the reader
/// renders one batch while the pipeline stamps the next (a 100k-object LIST is not held whole).
pub const BATCH_LIMIT: usize = 1024;

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
    stamping: Mutex<Stamping>,
    sink: Option<Box<dyn TraceSink>>,
    /// Where `ts` comes from: the wall clock, or (a replay) a virtual one.
    clock: Option<TraceClock>,
}

/// The sequence and the events stamped while a batch is held.
#[derive(Default)]
struct Stamping {
    seq: u64,
    /// Polls running under [`Tracer::batched`] right now.
    holds: usize,
    /// Stamped, not yet handed to the sink (only while `holds > 0`).
    held: Vec<TraceEvent>,
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
                stamping: Mutex::default(),
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
        let mut stamping = self.inner.stamping();
        stamping.seq += 1;
        let stamped = TraceEvent {
            seq: stamping.seq,
            ts: self
                .inner
                .clock
                .as_ref()
                .map_or_else(jiff::Timestamp::now, |clock| clock()),
            resource: self.resource.clone(),
            event,
        };
        if stamping.holds == 0 {
            sink.record(stamped);
            return;
        }
        stamping.held.push(stamped);
        if stamping.held.len() >= BATCH_LIMIT {
            sink.record_all(std::mem::take(&mut stamping.held));
        }
    }

    /// The `seq` of the newest event stamped (0 before the first).
    pub fn last_seq(&self) -> u64 {
        self.inner.stamping().seq
    }

    /// Runs `work`, handing the events stamped during each of its polls to the sink together
    /// when the poll returns (see the module doc). `work` must not block inside a poll for long:
    /// events other tasks stamp meanwhile wait with its own.
    pub async fn batched<F: Future>(&self, work: F) -> F::Output {
        let mut work = std::pin::pin!(work);
        std::future::poll_fn(|cx| {
            let _held = self.hold();
            work.as_mut().poll(cx)
        })
        .await
    }

    fn hold(&self) -> Hold<'_> {
        if self.inner.sink.is_some() {
            self.inner.stamping().holds += 1;
        }
        Hold(&self.inner)
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

impl TracerInner {
    fn stamping(&self) -> MutexGuard<'_, Stamping> {
        self.stamping.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One poll under [`Tracer::batched`]: the last one to end hands the held events over (also
/// when the poll unwinds).
struct Hold<'a>(&'a TracerInner);

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let Some(sink) = &self.0.sink else { return };
        let mut stamping = self.0.stamping();
        stamping.holds -= 1;
        if stamping.holds == 0 && !stamping.held.is_empty() {
            sink.record_all(std::mem::take(&mut stamping.held));
        }
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

    fn queued(n: u64) -> Event {
        Event::SyncQueued {
            count: usize::try_from(n).unwrap_or(usize::MAX),
        }
    }

    fn seqs(rx: &mut tokio::sync::mpsc::UnboundedReceiver<TraceEvent>) -> Vec<u64> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|e| e.seq)
            .collect()
    }

    /// Emits `n` events per poll for `polls` polls, recording before each poll's emits what
    /// the sink had received by then.
    fn emitting(
        tracer: &Tracer,
        polls: u64,
        n: u64,
        rx: Arc<Mutex<tokio::sync::mpsc::UnboundedReceiver<TraceEvent>>>,
        seen: Arc<Mutex<Vec<Vec<u64>>>>,
    ) -> impl Future<Output = ()> {
        let tracer = tracer.clone();
        let mut poll = 0;
        std::future::poll_fn(move |cx| {
            let received = seqs(&mut rx.lock().unwrap());
            seen.lock().unwrap().push(received);
            for i in 0..n {
                tracer.emit(queued(poll * n + i));
            }
            poll += 1;
            if poll == polls {
                return std::task::Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        })
    }

    #[tokio::test]
    async fn a_batched_poll_hands_its_events_over_together_when_it_returns() {
        let (sink, rx) = tokio::sync::mpsc::unbounded_channel();
        let tracer = Tracer::new(sink, StageSet::minimal().with(Stage::Resync));
        let rx = Arc::new(Mutex::new(rx));
        let seen = Arc::new(Mutex::new(Vec::new()));
        tracer
            .batched(emitting(&tracer, 3, 2, rx.clone(), seen.clone()))
            .await;
        // Each poll saw exactly the previous poll's events, none of its own.
        assert_eq!(*seen.lock().unwrap(), vec![vec![], vec![1, 2], vec![3, 4]]);
        assert_eq!(seqs(&mut rx.lock().unwrap()), vec![5, 6]);
        // Outside a batched poll an event goes at once.
        tracer.emit(queued(9));
        assert_eq!(seqs(&mut rx.lock().unwrap()), vec![7]);
    }

    #[tokio::test]
    async fn events_stamped_elsewhere_during_a_held_poll_keep_seq_order_in_the_sink() {
        let (sink, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let tracer = Tracer::new(sink, StageSet::minimal().with(Stage::Resync));
        let other = tracer.for_resource("pods");
        tracer
            .batched(async {
                tracer.emit(queued(1));
                // Another thread stamps while this poll holds: it queues behind, not ahead.
                std::thread::scope(|s| {
                    s.spawn(|| other.emit(queued(2)));
                });
                tracer.emit(queued(3));
            })
            .await;
        let received: Vec<(u64, Option<Arc<str>>)> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|e| (e.seq, e.resource))
            .collect();
        assert_eq!(
            received,
            vec![(1, None), (2, Some("pods".into())), (3, None)]
        );
    }

    #[tokio::test]
    async fn a_long_poll_hands_over_every_batch_limit_events() {
        let (sink, rx) = tokio::sync::mpsc::unbounded_channel();
        let tracer = Tracer::new(sink, StageSet::minimal().with(Stage::Resync));
        let rx = Arc::new(Mutex::new(rx));
        let limit = BATCH_LIMIT as u64;
        let received = tracer
            .batched(async {
                for i in 0..=limit {
                    tracer.emit(queued(i));
                }
                seqs(&mut rx.lock().unwrap())
            })
            .await;
        assert_eq!(received, (1..=limit).collect::<Vec<_>>());
        assert_eq!(seqs(&mut rx.lock().unwrap()), vec![limit + 1]);
    }

    #[tokio::test]
    async fn a_counting_tracer_runs_batched_work_and_still_counts() {
        let tracer = Tracer::counting_only();
        let out = tracer
            .batched(async {
                tracer.emit(queued(1));
                7
            })
            .await;
        assert_eq!(out, 7);
        assert_eq!(tracer.count_of("resync/sync-queued"), 1);
        assert_eq!(tracer.last_seq(), 0);
    }
}
