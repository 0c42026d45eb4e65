//! SharedIndexInformer: owns the Indexer, the queue, the Reflector and the sharedProcessor;
//! `handle_deltas` is client-go's HandleDeltas/processDeltas (Rules H1–H4); handler
//! registration follows AddEventHandlerWithResyncPeriod (Rules P2–P4, P6, P7, I3). `run`
//! ends when its stop token fires or a handler panics under [`PanicPolicy::Crash`]
//! (Rule P8); either way the processor stops and every listener task has ended when it returns.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::delta_fifo::DeltaFifo;
use super::ingest::{Ingest, Transform};
use super::notification::Notification;
use super::processor::{
    EventHandler, HandlerPanic, Listener, PanicPolicy, ResyncPlan, SharedProcessor,
    determine_resync_period,
};
use super::profile::Profile;
use super::queue::{Delta, DeltaType, PopProcess, ProcessError, Queue, QueueKind, ReplacedAll};
use super::real_fifo::{RealFifo, RealFifoOptions};
use super::reflector::{Reflector, ReflectorConfig, ReflectorParts, WatchErrorHandler};
use super::source::ListerWatcher;
use super::store::{Cache, IndexFunc, KeySet, Store, Transaction};
use super::trace::{Event, EventKind, HandlerSummary, InformerMetrics, Summary, Tracer};

/// client-go's minimumResyncPeriod.
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// How an informer is built.
#[derive(Clone, Default)]
pub struct InformerConfig {
    /// The default handler resync period, and the initial resync check period.
    pub resync: Duration,
    /// DeltaFIFO or RealFIFO.
    pub queue: QueueKind,
    /// The later releases' RealFIFO behaviours (PopBatch, atomic events, unlocking).
    pub real_fifo: RealFifoOptions,
    /// The Reflector's settings (paging, watch-list, timeouts, backoff).
    pub reflector: ReflectorConfig,
    /// A transform run once on every object before it is queued.
    pub transform: Option<Transform>,
    /// What a panicking handler does (Rule P8; client-go's default crashes).
    pub on_panic: PanicPolicy,
    /// The client-go release the queue and list settings come from, and which of them an
    /// explicit choice overrode (told in the `started` trace line).
    pub profile: Option<&'static str>,
    /// The settings given explicitly over the profile's.
    pub overrides: Vec<&'static str>,
    /// Told why each failed ListAndWatch attempt failed (client-go's SetWatchErrorHandler).
    pub watch_error_handler: Option<WatchErrorHandler>,
    /// The informer's name (client-go 1.36's InformerName; told in the `started` line).
    pub name: Option<String>,
    /// Why whoever cancels the stop token stopped the informer (the `stopped` line's reason).
    pub stop_reason: StopReason,
    /// Handlers kinformer removes are shut down (client-go ≥ 1.37's ShutDownEventHandler,
    /// waiting for the callback in hand) rather than removed (RemoveEventHandler).
    pub shut_down_removes: bool,
}

/// Why an informer was stopped, set by whoever cancels its stop token before cancelling it
/// (the first reason set wins); the `stopped` trace line says it. Unset: "stop requested".
#[derive(Clone, Default)]
pub struct StopReason(Arc<Mutex<Option<String>>>);

impl StopReason {
    /// Records `reason` unless one was recorded already.
    pub fn set(&self, reason: impl Into<String>) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert_with(|| reason.into());
    }

    /// The recorded reason, else "stop requested".
    fn reason(&self) -> String {
        let slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.clone().unwrap_or_else(|| "stop requested".to_owned())
    }
}

/// client-go 1.36 added `propagateRVFromStart` (reflector.go v0.36:586-636; unchanged in
/// v0.37): releases from 1.36 on hold the RV through a watch's synthetic ADDEDs.
fn propagates_rv_from_start(profile: &Profile) -> bool {
    let minor = profile
        .version
        .strip_prefix("1.")
        .and_then(|m| m.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 36)
}

impl InformerConfig {
    /// The settings client-go `profile` chooses: its queue, RealFIFO behaviours and list
    /// strategy.
    pub fn for_profile(profile: &Profile) -> Self {
        let mut config = Self {
            queue: profile.queue(),
            real_fifo: profile.real_fifo(),
            profile: Some(profile.version),
            ..Self::default()
        };
        config.reflector.watch_list = profile.watch_list_client;
        config.reflector.backoff.reset = profile.backoff_reset;
        config.reflector.hold_rv_through_synthetic_adds = propagates_rv_from_start(profile);
        config.shut_down_removes = profile.shut_down_event_handler;
        config
    }

    /// A setting client-go's release cannot have (Rule Q2): DeltaFIFO under 1.36, where
    /// InOrderInformers is GA and locked on (features/known_features.go v0.36).
    pub fn what_if(&self) -> Option<String> {
        let release = self.profile?;
        let locked = Profile::of(release).is_ok_and(|p| p.in_order_informers_locked);
        (locked && self.queue == QueueKind::DeltaFifo).then(|| {
            format!(
                "--queue delta-fifo is a what-if under client-go {release}: InOrderInformers is \
                 GA and locked on there, so client-go always uses the RealFIFO"
            )
        })
    }

    /// The `started` trace line.
    fn started_event(&self) -> Event {
        let real = self.queue == QueueKind::RealFifo;
        Event::Started {
            name: self.name.clone(),
            what_if: self.what_if(),
            profile: self.profile.map(str::to_owned),
            queue: self.queue.as_str().to_owned(),
            pop_batch: real && self.real_fifo.pop_batch,
            atomic_fifo: real && self.real_fifo.atomic_events,
            unlock_while_processing: real && self.real_fifo.unlock_while_processing,
            watch_list: self.reflector.watch_list,
            overrides: self.overrides.iter().map(|o| (*o).to_owned()).collect(),
        }
    }
}

/// Why the informer refused a request, or why it ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InformerError {
    /// Handlers and indexers cannot be added once the informer stopped.
    #[error("the informer has stopped")]
    Stopped,
    /// An index could not be added.
    #[error(transparent)]
    Index(#[from] super::store::IndexError),
    /// A handler panicked under [`PanicPolicy::Crash`]: the informer ended (client-go's
    /// ReallyCrash takes the whole process down).
    #[error("handler {:?} panicked: {}", .0.handler, .0.message)]
    HandlerPanicked(HandlerPanic),
}

/// The queue an informer of `kind` uses, with `known` (the indexer) as its KnownObjects.
pub fn new_queue(
    kind: QueueKind,
    options: RealFifoOptions,
    known: Arc<Store>,
    tracer: Tracer,
) -> Arc<dyn Queue> {
    match kind {
        QueueKind::DeltaFifo => Arc::new(DeltaFifo::new(known, tracer)),
        QueueKind::RealFifo => Arc::new(RealFifo::with_options(known, tracer, options)),
    }
}

/// client-go's sharedIndexInformer: it lists and watches one resource through a
/// [`ListerWatcher`], keeps the Indexer (the local cache, [`Self::indexer`]) and notifies
/// every handler added with [`Self::add_event_handler`], each behind its own buffer, with
/// periodic resyncs replaying the cache.
///
/// # The contract
///
/// What client-go promises on its `SharedInformer` interface, and what this one keeps (Rules
/// C1–C3 in `docs/DESIGN.md`; `tests/pipeline/contract.rs` and the seeded chaos test check them):
///
/// - **The cache converges**: once the server's collection stops changing, the cache
///   eventually holds exactly its objects at their latest resourceVersions, whatever was lost
///   on the way (closed watches, 410 Gone, relists).
/// - **Per object, each handler sees an ordered subsequence of its states**: notifications
///   about one object reach a handler in the order the server wrote them; states may be
///   skipped (written while the watch was down, or coalesced), never reordered. Nothing is
///   promised between objects, or between handlers.
/// - **Deletes arrive**, carrying the last state the informer knew — or, when the delete itself
///   was missed and a relist found the object gone, as a tombstone
///   ([`Notification::is_tombstone`], client-go's `DeletedFinalStateUnknown`).
/// - A handler added late first gets an add for every cached object, then the same stream as
///   the others; a resync replays the cache to a handler as updates with equal
///   resourceVersions. Each handler runs one notification at a time on its own task, so a slow
///   handler delays only itself (its buffer grows).
///
/// # Example
///
/// An informer over the in-memory ListerWatcher, with one handler:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use std::time::Duration;
///
/// use kinformer::informer::testing::{MemorySink, MemorySource};
/// use kinformer::informer::trace::{StageSet, Tracer};
/// use kinformer::informer::{FnHandler, InformerConfig, Notification, SharedIndexInformer};
/// use serde_json::json;
/// use tokio_util::sync::CancellationToken;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let pod = |rv_note: &str| json!({"apiVersion": "v1", "kind": "Pod",
///     "metadata": {"name": "web", "namespace": "default", "labels": {"v": rv_note}}});
/// let server = Arc::new(MemorySource::new());
/// server.apply(pod("1"));
///
/// let sink = MemorySink::new();
/// let tracer = Tracer::new(sink.clone(), StageSet::ALL);
/// let informer = SharedIndexInformer::new(server.clone(), InformerConfig::default(), tracer);
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// informer.add_event_handler(
///     "log",
///     Arc::new(FnHandler(move |n: &Notification| {
///         log.lock().unwrap().push(format!("{} {}", n.kind().as_str(), n.key()));
///     })),
/// )?;
/// let stop = CancellationToken::new();
/// let running = tokio::spawn({
///     let (informer, stop) = (informer.clone(), stop.clone());
///     async move { informer.run(stop).await }
/// });
/// assert!(informer.wait_for_sync(&stop).await);
///
/// server.apply(pod("2"));
/// server.delete("default/web");
/// // Wait (with a deadline) until the handler has seen the delete; the cache is then empty.
/// let deleted = || seen.lock().unwrap().iter().any(|s| s.starts_with("delete"));
/// sink.wait_until(Duration::from_secs(10), |_| deleted()).await?;
/// assert!(informer.indexer().is_empty());
/// let seen = seen.lock().unwrap().clone();
/// assert_eq!(seen, ["add default/web", "update default/web", "delete default/web"]);
///
/// stop.cancel();
/// running.await??;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct SharedIndexInformer {
    inner: Arc<Inner>,
}

struct Inner {
    lw: Arc<dyn ListerWatcher>,
    config: InformerConfig,
    tracer: Tracer,
    store: Arc<Store>,
    processor: SharedProcessor,
    queue: OnceLock<Arc<dyn Queue>>,
    state: Mutex<State>,
    /// Held while deltas are handled and while a late handler gets its synthetic adds (P3).
    block_deltas: Mutex<()>,
    last_sync_rv: Arc<Mutex<String>>,
    synced_tx: watch::Sender<bool>,
    synced_emitted: AtomicBool,
    started_at: Instant,
    /// `informer_processing_latency_seconds`, as observed around each popped entry.
    processing: ProcessingLatency,
}

/// Tells the trace that `registration`'s handler was removed.
fn tell_removed(inner: &Inner, registration: &Registration) {
    inner.tracer.emit(Event::HandlerRemoved {
        handler: registration.listener.name().clone(),
    });
}

/// How long processing popped entries took (the_real_fifo.go v0.36:464 observes it around the
/// process function).
#[derive(Default)]
struct ProcessingLatency {
    count: AtomicU64,
    total_us: AtomicU64,
    max_us: AtomicU64,
}

impl ProcessingLatency {
    fn observe(&self, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.total_us.fetch_add(us, Ordering::Relaxed);
        self.max_us.fetch_max(us, Ordering::Relaxed);
    }

    /// (count, mean, max).
    fn figures(&self) -> (u64, Duration, Duration) {
        let count = self.count.load(Ordering::Relaxed);
        let total = self.total_us.load(Ordering::Relaxed);
        let mean = Duration::from_micros(total.checked_div(count).unwrap_or(0));
        let max = Duration::from_micros(self.max_us.load(Ordering::Relaxed));
        (count, mean, max)
    }
}

struct State {
    started: bool,
    stopped: bool,
    check_period: Duration,
}

/// A registered handler (client-go's ResourceEventHandlerRegistration).
#[derive(Clone)]
pub struct Registration {
    listener: Arc<Listener>,
    informer: Arc<Inner>,
}

impl Registration {
    /// The registration's handler name.
    pub fn name(&self) -> &str {
        self.listener.name()
    }

    /// The registration's listener.
    pub fn listener(&self) -> &Arc<Listener> {
        &self.listener
    }

    /// Rule P7: the informer synced and this handler processed every initial add.
    pub fn has_synced(&self) -> bool {
        self.informer.has_synced() && self.listener.initial_pending() == 0
    }
}

impl SharedIndexInformer {
    /// An informer listing and watching through `lw`, reporting to `tracer`.
    pub fn new(lw: Arc<dyn ListerWatcher>, config: InformerConfig, tracer: Tracer) -> Self {
        let check_period = config.resync;
        Self {
            inner: Arc::new(Inner {
                lw,
                tracer,
                store: Arc::new(Store::default()),
                processor: SharedProcessor::default(),
                queue: OnceLock::new(),
                state: Mutex::new(State {
                    started: false,
                    stopped: false,
                    check_period,
                }),
                block_deltas: Mutex::new(()),
                last_sync_rv: Arc::default(),
                synced_tx: watch::Sender::new(false),
                synced_emitted: AtomicBool::new(false),
                started_at: Instant::now(),
                processing: ProcessingLatency::default(),
                config,
            }),
        }
    }

    /// The Indexer, read-only: the informer's cache as a handler or lister sees it.
    pub fn indexer(&self) -> Cache {
        Cache::new(self.inner.store.clone())
    }

    /// Where the informer's events go.
    pub fn tracer(&self) -> &Tracer {
        &self.inner.tracer
    }

    /// Adds an index function, also while the informer runs: the cache is indexed at once
    /// (client-go ≥ 1.30, Rule I3); an error once it stopped.
    pub fn add_indexer(&self, name: &str, func: IndexFunc) -> Result<(), InformerError> {
        let state = self.inner.state();
        if state.stopped {
            return Err(InformerError::Stopped);
        }
        self.inner.store.add_indexer(name, func)?;
        Ok(())
    }

    /// The current resync check period.
    pub fn resync_check_period(&self) -> Duration {
        self.inner.state().check_period
    }

    /// Adds a handler with the informer's default resync period.
    pub fn add_event_handler(
        &self,
        name: &str,
        handler: Arc<dyn EventHandler>,
    ) -> Result<Registration, InformerError> {
        self.add_event_handler_with_resync(name, handler, self.inner.config.resync)
    }

    /// client-go's AddEventHandlerWithResyncPeriod (Rules P2–P4; P3 for late handlers).
    pub fn add_event_handler_with_resync(
        &self,
        name: &str,
        handler: Arc<dyn EventHandler>,
        requested: Duration,
    ) -> Result<Registration, InformerError> {
        let inner = &self.inner;
        let mut state = inner.state();
        if state.stopped {
            return Err(InformerError::Stopped);
        }
        let (resync, adjustment) = self.adjust_resync(&mut state, requested);
        let effective = determine_resync_period(resync, state.check_period);
        let adjustment = adjustment.or_else(|| {
            (effective.is_zero() && !resync.is_zero())
                .then(|| "never resyncs: the informer's resync check period is 0".to_owned())
        });
        let plan = ResyncPlan {
            requested,
            adjusted: resync,
            effective,
            adjustment: adjustment.clone(),
        };
        let listener = Listener::new(
            name,
            handler,
            plan,
            inner.config.on_panic,
            inner.tracer.clone(),
        );
        let handler_added = Event::HandlerAdded {
            handler: Arc::from(name),
            requested_resync: requested,
            effective_resync: effective,
            check_period: state.check_period,
            after_start: state.started,
            adjustment,
        };
        if state.started {
            // Rule P3: no deltas are handled while the late handler is caught up.
            let _blocked = inner.block_deltas();
            inner.processor.add_listener(listener.clone());
            inner.tracer.emit(handler_added);
            for obj in inner.store.list_sorted() {
                listener.add(Notification::Add { obj, initial: true });
            }
        } else {
            inner.processor.add_listener(listener.clone());
            inner.tracer.emit(handler_added);
        }
        Ok(Registration {
            listener,
            informer: inner.clone(),
        })
    }

    /// Applies the minimum period and the check-period rules; returns the period to request
    /// and a note on what was changed.
    fn adjust_resync(&self, state: &mut State, requested: Duration) -> (Duration, Option<String>) {
        if requested.is_zero() {
            return (requested, None);
        }
        let mut resync = requested;
        let mut notes = Vec::new();
        if resync < MINIMUM_RESYNC_PERIOD {
            resync = MINIMUM_RESYNC_PERIOD;
            notes.push(format!("raised to the {MINIMUM_RESYNC_PERIOD:?} minimum"));
        }
        if resync < state.check_period {
            if state.started {
                notes.push(format!(
                    "raised to the check period {:?}: the informer already started",
                    state.check_period
                ));
                resync = state.check_period;
            } else {
                notes.push(format!(
                    "lowered the informer's check period from {:?} to {resync:?}",
                    state.check_period
                ));
                state.check_period = resync;
                self.check_period_changed(resync);
            }
        }
        (resync, (!notes.is_empty()).then(|| notes.join("; ")))
    }

    fn check_period_changed(&self, check: Duration) {
        for (handler, period) in self.inner.processor.resync_check_period_changed(check) {
            self.inner.tracer.emit(Event::ResyncPeriodChanged {
                handler,
                effective_resync: period,
                check_period: check,
            });
        }
    }

    /// Rule P6 (client-go's RemoveEventHandler): the handler gets nothing more; the callback
    /// in hand may still be running when this returns; removing twice is harmless.
    pub fn remove_event_handler(&self, registration: &Registration) -> bool {
        let removed = self.inner.processor.remove_listener(&registration.listener);
        if removed {
            tell_removed(&self.inner, registration);
        }
        removed
    }

    /// Rule P6 (client-go 1.37's ShutDownEventHandler, shared_informer.go
    /// v0.37.0-beta.0:1032-1042): removes the handler as [`Self::remove_event_handler`] does,
    /// then waits until its in-flight callback has returned; `handler-removed` is told after
    /// that wait. False (at once) when it was not registered.
    pub async fn shut_down_event_handler(&self, registration: &Registration) -> bool {
        let removed = self.inner.processor.remove_listener(&registration.listener);
        if removed {
            registration.listener.finished().await;
            tell_removed(&self.inner, registration);
        }
        removed
    }

    /// Removes a handler the way this informer's client-go release removes one when kinformer
    /// does (a scenario step, `top`'s `r`): ShutDownEventHandler from 1.37, its wait running
    /// in the background; RemoveEventHandler before. False when it was not registered.
    pub fn remove_handler_as_released(&self, registration: &Registration) -> bool {
        if !self.inner.config.shut_down_removes {
            return self.remove_event_handler(registration);
        }
        let removed = self.inner.processor.remove_listener(&registration.listener);
        if removed {
            let (inner, registration) = (self.inner.clone(), registration.clone());
            tokio::spawn(async move {
                registration.listener.finished().await;
                tell_removed(&inner, &registration);
            });
        }
        removed
    }

    /// Whether the initial list has been processed (client-go's HasSynced).
    pub fn has_synced(&self) -> bool {
        self.inner.has_synced()
    }

    /// Waits until the informer synced; false if `stop` fired first.
    pub async fn wait_for_sync(&self, stop: &CancellationToken) -> bool {
        let mut rx = self.inner.synced_tx.subscribe();
        tokio::select! {
            r = rx.wait_for(|synced| *synced) => r.is_ok(),
            _ = stop.cancelled() => false,
        }
    }

    /// client-go 1.36's `LastStoreSyncResourceVersion`: the resourceVersion the cache is at —
    /// the last written object's, the last Replace's or the last bookmark's — under
    /// AtomicFIFO; "" otherwise, as client-go answers without the gate
    /// (thread_safe_store.go v0.36:436-444).
    pub fn last_store_resource_version(&self) -> String {
        self.inner.store_resource_version().unwrap_or_default()
    }

    /// The resourceVersion of the last LIST or watch event the Reflector saw.
    pub fn last_sync_resource_version(&self) -> String {
        self.inner
            .last_sync_rv
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every handler's registration-time listener, in order of registration.
    pub fn listeners(&self) -> Vec<Arc<Listener>> {
        self.inner.processor.listeners()
    }

    /// The exit summary: counts of every event emitted and every handler's figures.
    pub fn summary(&self) -> Summary {
        Summary {
            counts: self.inner.tracer.counts(),
            handlers: self
                .listeners()
                .iter()
                .map(|l| HandlerSummary {
                    resource: self.inner.tracer.resource().map(|r| r.to_string()),
                    ..l.summary()
                })
                .collect(),
            metrics: vec![self.metrics()],
            duration: self.inner.started_at.elapsed(),
            indices: self.inner.store.index_counts(),
            stop_reason: String::new(),
        }
    }

    /// client-go 1.36's informer metrics as they stand now.
    pub fn metrics(&self) -> InformerMetrics {
        let inner = &self.inner;
        let (processed, mean_processing, max_processing) = inner.processing.figures();
        InformerMetrics {
            resource: inner.tracer.resource().map(|r| r.to_string()),
            name: inner.config.name.clone(),
            queued_items: inner
                .queue
                .get()
                .map_or(0, |q| u64::try_from(q.queued_items()).unwrap_or(u64::MAX)),
            processed,
            mean_processing,
            max_processing,
            store_resource_version: inner
                .store_resource_version()
                .and_then(|rv| rv.parse().ok()),
        }
    }

    /// Runs the reflector, the process loop and the listeners until `stop`, or until a
    /// handler panics under [`PanicPolicy::Crash`] (then the panic is the error). When it
    /// returns the queue is closed, the processor stopped, and no listener task is left.
    pub async fn run(&self, stop: CancellationToken) -> Result<(), InformerError> {
        let inner = &self.inner;
        let check_period = {
            let mut state = inner.state();
            if state.started {
                return Ok(());
            }
            state.started = true;
            state.check_period
        };
        inner.tracer.emit(inner.config.started_event());
        let queue = new_queue(
            inner.config.queue,
            inner.config.real_fifo,
            inner.store.clone(),
            inner.tracer.clone(),
        );
        let _ = inner.queue.set(queue.clone());
        let reflector = self.reflector(queue.clone(), check_period);
        inner.processor.run();
        // The Reflector and the process loop share one task: a delta is handed over without
        // waking a thread, and the trace events of one poll reach the sink as one batch.
        let pipeline = inner.tracer.batched(async {
            tokio::join!(
                reflector.run(stop.clone()),
                self.process_loop(queue.as_ref(), &stop)
            )
        });
        let crashed = tokio::select! {
            _ = pipeline => None,
            panic = inner.processor.crashed() => Some(panic),
        };
        queue.close();
        inner.state().stopped = true;
        inner.processor.stop().await;
        let (reason, outcome) = match crashed {
            Some(panic) => (
                format!("handler {:?} panicked", panic.handler),
                Err(InformerError::HandlerPanicked(panic)),
            ),
            None => (inner.config.stop_reason.reason(), Ok(())),
        };
        inner.tracer.emit(Event::Stopped { reason });
        outcome
    }

    fn reflector(&self, queue: Arc<dyn Queue>, check_period: Duration) -> Reflector {
        let inner = &self.inner;
        let for_resync = inner.clone();
        let for_sync = inner.clone();
        Reflector::new(
            inner.lw.clone(),
            queue,
            ReflectorParts {
                ingest: Ingest::new(inner.store.indexers(), inner.config.transform.clone()),
                config: inner.config.reflector.clone(),
                resync_check_period: check_period,
                should_resync: Arc::new(move || for_resync.processor.should_resync(Instant::now())),
                after_replace: Arc::new(move || for_sync.check_synced()),
                watch_error_handler: inner.config.watch_error_handler.clone(),
                tracer: inner.tracer.clone(),
                last_sync_rv: inner.last_sync_rv.clone(),
            },
        )
    }

    async fn process_loop(&self, queue: &dyn Queue, stop: &CancellationToken) {
        let inner = &self.inner;
        let mut process = Processing(inner);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                popped = queue.pop(&mut process) => if popped.is_err() { return },
            }
            inner.check_synced();
        }
    }
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn block_deltas(&self) -> MutexGuard<'_, ()> {
        self.block_deltas
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn has_synced(&self) -> bool {
        self.queue.get().is_some_and(|q| q.has_synced())
    }

    /// The store's resourceVersion under AtomicFIFO (client-go 1.36); None otherwise.
    fn store_resource_version(&self) -> Option<String> {
        let atomic =
            self.config.queue == QueueKind::RealFifo && self.config.real_fifo.atomic_events;
        atomic.then(|| self.store.resource_version())
    }

    fn check_synced(&self) {
        if self.synced_emitted.load(Ordering::Acquire) || !self.has_synced() {
            return;
        }
        if !self.synced_emitted.swap(true, Ordering::AcqRel) {
            self.tracer.emit(Event::Synced {
                objects: self.store.len(),
                store_rv: self.store_resource_version(),
            });
            self.synced_tx.send_replace(true);
        }
    }

    /// client-go's HandleDeltas (processDeltas, controller.go v0.36:607-666): each delta
    /// written to the indexer on its own, then notified (Rules H1–H4).
    fn handle_deltas(&self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        let _blocked = self.block_deltas();
        for delta in deltas {
            let notification = self.write(&mut self.store.transaction(), delta, initial);
            self.processor.distribute(&notification);
        }
        Ok(())
    }

    /// client-go's HandleBatchDeltas (PopBatch, ≥ 1.35; processDeltasInBatch, controller.go
    /// v0.36:676-754): the batch's indexer writes as one transaction — a reader of the cache
    /// sees the whole batch or none of it — then every notification in order.
    fn handle_batch(&self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        let _blocked = self.block_deltas();
        let notifications: Vec<Notification> = {
            let mut txn = self.store.transaction();
            deltas
                .iter()
                .map(|d| self.write(&mut txn, d, initial))
                .collect()
        };
        for notification in &notifications {
            self.processor.distribute(notification);
        }
        Ok(())
    }

    /// client-go's processReplacedAllInfo (AtomicFIFO, ≥ 1.36; controller.go v0.36:756-803):
    /// the indexer takes the whole list under one lock (`clientState.Replace`); cached keys
    /// missing from it are deleted as tombstones. Handlers hear the deletions first, then an
    /// add or update per listed object, in list order.
    fn handle_replaced_all(&self, list: &ReplacedAll, initial: bool) {
        let _blocked = self.block_deltas();
        let notifications: Vec<Notification> = {
            let mut txn = self.store.transaction();
            let listed: KeySet<&str> = list.objects.iter().map(|o| o.key()).collect();
            let gone: Vec<Delta> = txn
                .list_sorted()
                .into_iter()
                .filter(|o| !listed.contains(o.key()))
                .map(|o| Delta::tombstone(o.key().to_owned(), o))
                .collect();
            let replaced = list
                .objects
                .iter()
                .map(|o| Delta::new(DeltaType::Replaced, o.clone()));
            let mut written = Vec::with_capacity(gone.len() + list.objects.len());
            for delta in gone.into_iter().chain(replaced) {
                written.push(self.write(&mut txn, &delta, initial));
            }
            txn.set_resource_version(&list.resource_version);
            written
        };
        for notification in &notifications {
            self.processor.distribute(notification);
        }
    }

    /// SyncAll (AtomicFIFO): every cached object reaches the syncing handlers as
    /// update(obj, obj).
    fn handle_sync_all(&self) {
        let _blocked = self.block_deltas();
        for obj in self.store.list_sorted() {
            self.processor.distribute(&Notification::Update {
                old: obj.clone(),
                new: obj,
                sync: true,
            });
        }
    }

    /// Writes one delta to the indexer (traced) and returns what handlers are told.
    fn write(&self, txn: &mut Transaction<'_>, delta: &Delta, initial: bool) -> Notification {
        match delta.delta_type {
            DeltaType::Deleted => self.write_delete(txn, delta),
            _ => self.write_upsert(txn, delta, initial),
        }
    }

    fn write_upsert(
        &self,
        txn: &mut Transaction<'_>,
        delta: &Delta,
        initial: bool,
    ) -> Notification {
        let obj = delta.object.object().clone();
        match txn.upsert(obj.clone()) {
            Some(old) => {
                self.tracer
                    .emit_with(EventKind::IndexerUpdate, || Event::IndexerUpdate {
                        key: obj.key().to_owned(),
                        resource_version: obj.resource_version().to_owned(),
                        old_resource_version: old.resource_version().to_owned(),
                        indices: txn.index_values_of(&obj),
                    });
                // Rule H2 (client-go's OnUpdate): an update that did not change the
                // resourceVersion is a resync, whatever the delta type.
                let sync = old.resource_version() == obj.resource_version();
                Notification::Update {
                    old,
                    new: obj,
                    sync,
                }
            }
            None => {
                self.tracer
                    .emit_with(EventKind::IndexerAdd, || Event::IndexerAdd {
                        key: obj.key().to_owned(),
                        resource_version: obj.resource_version().to_owned(),
                        indices: txn.index_values_of(&obj),
                    });
                Notification::Add { obj, initial }
            }
        }
    }

    /// A tombstone leaves the store's resourceVersion alone: client-go's `rvFromObject` cannot
    /// read one from a DeletedFinalStateUnknown.
    fn write_delete(&self, txn: &mut Transaction<'_>, delta: &Delta) -> Notification {
        let key = delta.object.key();
        let rv = (!delta.object.is_tombstone()).then(|| delta.object.object().resource_version());
        txn.delete(key, rv);
        self.tracer
            .emit_with(EventKind::IndexerDelete, || Event::IndexerDelete {
                key: key.to_owned(),
                resource_version: delta.object.object().resource_version().to_owned(),
                tombstone: delta.object.is_tombstone(),
                indices: txn.index_values_of(delta.object.object()),
            });
        Notification::Delete {
            obj: delta.object.clone(),
        }
    }
}

/// The process loop's handling of each popped entry.
struct Processing<'a>(&'a Inner);

impl Processing<'_> {
    /// Runs `process`, observing how long it took (`informer_processing_latency_seconds`).
    fn timed<T>(&self, process: impl FnOnce(&Inner) -> T) -> T {
        let started = Instant::now();
        let result = process(self.0);
        self.0.processing.observe(started.elapsed());
        result
    }
}

impl PopProcess for Processing<'_> {
    fn deltas(&mut self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        self.timed(|inner| inner.handle_deltas(deltas, initial))
    }

    fn batch(&mut self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        self.timed(|inner| inner.handle_batch(deltas, initial))
    }

    fn replaced_all(&mut self, list: &ReplacedAll, initial: bool) {
        self.timed(|inner| inner.handle_replaced_all(list, initial));
    }

    fn sync_all(&mut self) {
        self.timed(Inner::handle_sync_all);
    }

    /// client-go's `clientState.Bookmark(rv)`: the store's resourceVersion moves on.
    fn bookmark(&mut self, resource_version: &str) {
        self.0.store.bookmark(resource_version);
    }
}
