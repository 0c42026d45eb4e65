//! sharedProcessor and processorListener: fan-out of notifications to every handler.
//!
//! Each listener owns an unbounded buffer (a channel) drained by its own task, so a slow
//! handler never blocks the process loop or any other handler (Rule P1). The processor keeps
//! the resync bookkeeping: which listeners are due (Rule P5), their effective periods (P2–P4),
//! and the "syncing" set resync notifications go to (Rule H2: a listener starts in it). A
//! panicking handler crashes the informer or is skipped (Rule P8); when the processor stops,
//! every listener finishes the notification in hand, drops and counts the rest, and ends.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::notification::{Notification, NotifyKind};
use super::trace::{Event, EventKind, HandlerSummary, Tracer};

/// A boxed future a handler returns.
pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// A registered event handler (client-go's ResourceEventHandler, as one async method).
///
/// Contract: `handle` is called for one notification at a time, in the order the informer
/// queued them for this handler, never concurrently with itself; the cache already holds the
/// notified state (Rule H4). A slow future delays only this handler (Rule P1). A panic, while
/// building the future or running it, follows the informer's [`PanicPolicy`] (Rule P8).
pub trait EventHandler: Send + Sync + 'static {
    /// Handles one notification (the listener awaits it before the next).
    fn handle<'a>(&'a self, notification: &'a Notification) -> HandlerFuture<'a>;
}

/// A handler from a plain closure.
pub struct FnHandler<F>(pub F);

impl<F: Fn(&Notification) + Send + Sync + 'static> EventHandler for FnHandler<F> {
    fn handle<'a>(&'a self, notification: &'a Notification) -> HandlerFuture<'a> {
        (self.0)(notification);
        Box::pin(std::future::ready(()))
    }
}

/// A simulated handler as a user describes it (`--handler NAME[:resync=DUR][:delay=DUR]
/// [:panic-every=N]`, or a scenario's `handlers:` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerSpec {
    /// The handler's name in the trace and the summary.
    pub name: String,
    /// The handler's own resync period; `None` = the informer's default.
    pub resync: Option<Duration>,
    /// Simulated processing time per notification.
    pub delay: Duration,
    /// Panic on every Nth notification (to see Rule P8 at work).
    pub panic_every: Option<u64>,
}

impl HandlerSpec {
    /// A handler with no delay, no panics and the informer's resync period.
    pub fn named(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            resync: None,
            delay: Duration::ZERO,
            panic_every: None,
        }
    }
}

/// kinformer's own handlers: they only take `delay` per notification, so a user can watch a
/// slow handler's backlog grow while a fast one stays current; `panic_every` makes every Nth
/// notification panic, to see Rule P8 at work.
pub struct SimulatedHandler {
    delay: Duration,
    panic_every: Option<u64>,
    /// Cuts a pretend delay short when the session stops (there is no real work to finish).
    stop: CancellationToken,
    seen: AtomicU64,
}

impl SimulatedHandler {
    /// A handler that takes `delay` per notification.
    pub fn new(delay: Duration) -> Self {
        Self {
            delay,
            panic_every: None,
            stop: CancellationToken::new(),
            seen: AtomicU64::new(0),
        }
    }

    /// Panics on every `n`th notification.
    pub fn panic_every(mut self, n: Option<u64>) -> Self {
        self.panic_every = n.filter(|n| *n > 0);
        self
    }

    /// Ends delays early once `stop` fires.
    pub fn stopped_by(mut self, stop: CancellationToken) -> Self {
        self.stop = stop;
        self
    }
}

impl EventHandler for SimulatedHandler {
    fn handle<'a>(&'a self, _: &'a Notification) -> HandlerFuture<'a> {
        let n = self.seen.fetch_add(1, Ordering::Relaxed) + 1;
        if self
            .panic_every
            .is_some_and(|every| n.is_multiple_of(every))
        {
            panic!("simulated handler panic on notification {n}");
        }
        let delay = self.delay;
        Box::pin(async move {
            if !delay.is_zero() {
                tokio::select! {
                    _ = self.stop.cancelled() => {}
                    _ = tokio::time::sleep(delay) => {}
                }
            }
        })
    }
}

/// What a panicking handler does to the informer (Rule P8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PanicPolicy {
    /// client-go's default (`utilruntime.ReallyCrash`): the panic ends the informer, and the
    /// program with it.
    #[default]
    Crash,
    /// client-go with crashing off: the notification is lost and the listener pauses
    /// [`PANIC_PAUSE`] before the next one (`wait.Until`'s period).
    Skip,
}

/// How long a listener pauses after a skipped panic (client-go's `wait.Until(…, 1*time.Second)`).
pub const PANIC_PAUSE: Duration = Duration::from_secs(1);

/// client-go's `initialBufferSize` (shared_informer.go v0.36:372): above this many pending
/// notifications a listener traces its handler calls.
pub const SLOW_HANDLER_PENDING: usize = 1024;

/// The handler call a traced listener logs as slow (shared_informer.go v0.36:1353,
/// `trace.LogIfLong(100 * time.Millisecond)`).
pub const SLOW_HANDLER_CALL: Duration = Duration::from_millis(100);

/// A handler's panic that ended the informer ([`PanicPolicy::Crash`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerPanic {
    /// The handler that panicked.
    pub handler: Arc<str>,
    /// Its panic message.
    pub message: String,
}

/// client-go's `determineResyncPeriod`: 0 stays 0, no check period means no resync, and a
/// period below the check period is raised to it.
pub fn determine_resync_period(desired: Duration, check: Duration) -> Duration {
    if desired.is_zero() || check.is_zero() {
        Duration::ZERO
    } else {
        desired.max(check)
    }
}

/// A listener's resync periods as registration settled them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResyncPlan {
    /// What the handler asked for.
    pub requested: Duration,
    /// The request after the minimum and already-started rules: what the effective period is
    /// recomputed from when the check period changes (client-go's requestedResyncPeriod).
    pub adjusted: Duration,
    /// What it gets (Rules P2–P4).
    pub effective: Duration,
    pub adjustment: Option<String>,
}

struct Queued {
    notification: Notification,
    queued_at: Instant,
}

struct ResyncState {
    period: Duration,
    next_resync: Instant,
}

#[derive(Default)]
struct ListenerStats {
    notifications: AtomicU64,
    adds: AtomicU64,
    updates: AtomicU64,
    deletes: AtomicU64,
    syncs: AtomicU64,
    handled: AtomicU64,
    panics: AtomicU64,
    dropped: AtomicU64,
    max_pending: AtomicU64,
    latency_total_us: AtomicU64,
}

/// client-go's processorListener.
pub struct Listener {
    name: Arc<str>,
    requested_resync: Duration,
    adjusted_resync: Duration,
    /// Why the effective period differs from the requested one, if it does.
    adjustment: Option<String>,
    resync: Mutex<ResyncState>,
    /// In the processor's syncing set: resync notifications reach it (Rule H2). True from
    /// registration until a resync check finds it not due (client-go's `addListener`).
    syncing: AtomicBool,
    removed: AtomicBool,
    on_panic: PanicPolicy,
    /// Cancelled when the listener is removed or the informer stops: the worker ends.
    stopped: CancellationToken,
    /// Cancelled once the worker has ended, or at the stop of a listener never started
    /// (client-go 1.37's processorListener `runFinished`).
    run_finished: CancellationToken,
    pending: Arc<AtomicUsize>,
    initial_pending: Arc<AtomicUsize>,
    stats: Arc<ListenerStats>,
    tx: mpsc::UnboundedSender<Queued>,
    worker: Mutex<Option<Worker>>,
    tracer: Tracer,
}

/// The half of a listener that runs the handler; spawned when the processor starts.
struct Worker {
    rx: mpsc::UnboundedReceiver<Queued>,
    handler: Arc<dyn EventHandler>,
}

impl Listener {
    pub fn new(
        name: &str,
        handler: Arc<dyn EventHandler>,
        resync: ResyncPlan,
        on_panic: PanicPolicy,
        tracer: Tracer,
    ) -> Arc<Self> {
        let (tx, rx) = mpsc::unbounded_channel();
        let effective_resync = resync.effective;
        Arc::new(Self {
            name: Arc::from(name),
            requested_resync: resync.requested,
            adjusted_resync: resync.adjusted,
            adjustment: resync.adjustment,
            resync: Mutex::new(ResyncState {
                period: effective_resync,
                next_resync: Instant::now() + effective_resync,
            }),
            syncing: AtomicBool::new(true),
            removed: AtomicBool::new(false),
            on_panic,
            stopped: CancellationToken::new(),
            run_finished: CancellationToken::new(),
            pending: Arc::default(),
            initial_pending: Arc::default(),
            stats: Arc::default(),
            tx,
            worker: Mutex::new(Some(Worker { rx, handler })),
            tracer,
        })
    }

    pub fn name(&self) -> &Arc<str> {
        &self.name
    }

    pub fn requested_resync(&self) -> Duration {
        self.requested_resync
    }

    /// Why the effective resync period differs from the requested one.
    pub fn adjustment(&self) -> Option<&str> {
        self.adjustment.as_deref()
    }

    pub fn resync_period(&self) -> Duration {
        self.resync_state().period
    }

    pub fn next_resync(&self) -> Instant {
        self.resync_state().next_resync
    }

    /// Notifications queued and not yet handled.
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    /// Initial-list adds queued and not yet handled (Rule P7).
    pub fn initial_pending(&self) -> usize {
        self.initial_pending.load(Ordering::Acquire)
    }

    fn resync_state(&self) -> std::sync::MutexGuard<'_, ResyncState> {
        self.resync.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_resync_period(&self, period: Duration) {
        self.resync_state().period = period;
    }

    /// Rule P5: due when the period is set and now ≥ nextResync; due listeners move on.
    fn check_resync(&self, now: Instant) -> bool {
        let mut state = self.resync_state();
        let due = !state.period.is_zero() && now >= state.next_resync;
        if due {
            state.next_resync = now + state.period;
        }
        self.syncing.store(due, Ordering::Release);
        due
    }

    /// Queues `notification` in this listener's unbounded buffer.
    pub fn add(&self, notification: Notification) {
        if self.removed.load(Ordering::Acquire) {
            return;
        }
        let pending = self.pending.fetch_add(1, Ordering::AcqRel) + 1;
        if notification.is_initial() {
            self.initial_pending.fetch_add(1, Ordering::AcqRel);
        }
        self.count(&notification, pending);
        self.tracer.emit_with(EventKind::Notify, || Event::Notify {
            handler: self.name.clone(),
            notification: notification.clone(),
            pending,
        });
        let queued = Queued {
            notification,
            queued_at: Instant::now(),
        };
        // The worker is gone only after removal or stop; nothing is owed to it then.
        let _ = self.tx.send(queued);
    }

    fn count(&self, notification: &Notification, pending: usize) {
        let s = &self.stats;
        s.notifications.fetch_add(1, Ordering::Relaxed);
        match notification.kind() {
            NotifyKind::Add => &s.adds,
            NotifyKind::Update => &s.updates,
            NotifyKind::Delete => &s.deletes,
        }
        .fetch_add(1, Ordering::Relaxed);
        if notification.is_sync() {
            s.syncs.fetch_add(1, Ordering::Relaxed);
        }
        s.max_pending.fetch_max(pending as u64, Ordering::Relaxed);
    }

    /// Spawns the task that hands buffered notifications to the handler, in order; `crash`
    /// hears of a panic under [`PanicPolicy::Crash`]. One wake-up takes every notification
    /// queued by then (each `recv` of a non-empty buffer is ready at once), and the trace
    /// events of one wake-up go out as one batch.
    fn start(
        self: &Arc<Self>,
        crash: &watch::Sender<Option<HandlerPanic>>,
    ) -> Option<JoinHandle<()>> {
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        let tracer = self.tracer.clone();
        let run = self.clone().run(worker, crash.clone());
        Some(tokio::spawn(async move { tracer.batched(run).await }))
    }

    async fn run(self: Arc<Self>, mut worker: Worker, crash: watch::Sender<Option<HandlerPanic>>) {
        let stopped = self.stopped.clone();
        loop {
            let queued = tokio::select! {
                biased;
                _ = stopped.cancelled() => break,
                queued = worker.rx.recv() => match queued {
                    Some(queued) => queued,
                    None => break,
                },
            };
            // The notification in hand is finished even when a stop arrives meanwhile, as
            // client-go's run loop finishes the item it took from nextCh.
            let behind = self.pending.load(Ordering::Acquire).saturating_sub(1);
            let started = Instant::now();
            let panic = deliver(worker.handler.as_ref(), &queued.notification).await;
            self.trace_if_slow(behind, started.elapsed());
            self.finish(&queued, panic.is_some());
            let Some(message) = panic else { continue };
            match self.on_panic {
                PanicPolicy::Crash => {
                    crash.send_replace(Some(HandlerPanic {
                        handler: self.name.clone(),
                        message,
                    }));
                    break;
                }
                PanicPolicy::Skip => tokio::select! {
                    _ = stopped.cancelled() => break,
                    _ = tokio::time::sleep(PANIC_PAUSE) => {}
                },
            }
        }
        self.drop_pending(&mut worker.rx);
        self.run_finished.cancel();
    }

    /// Resolves once the listener's worker has ended: its last callback has returned and
    /// none will follow (client-go 1.37's `<-listener.runFinished`, shared_informer.go
    /// v0.37.0-beta.0:1040). A stopped listener that never started is finished at once.
    pub async fn finished(&self) {
        self.run_finished.cancelled().await;
    }

    /// Counts what was still buffered when the listener ended: dropped, as client-go's
    /// processor drops a stopped listener's pendingNotifications.
    fn drop_pending(&self, rx: &mut mpsc::UnboundedReceiver<Queued>) {
        rx.close();
        let mut dropped = 0u64;
        while let Ok(queued) = rx.try_recv() {
            dropped += 1;
            self.pending.fetch_sub(1, Ordering::AcqRel);
            if queued.notification.is_initial() {
                self.initial_pending.fetch_sub(1, Ordering::AcqRel);
            }
        }
        self.stats.dropped.fetch_add(dropped, Ordering::Relaxed);
    }

    /// Ends this listener: nothing more is queued; the worker finishes the notification in
    /// hand and drops the rest.
    fn stop(&self) {
        self.removed.store(true, Ordering::Release);
        self.stopped.cancel();
        // Never started: no worker will end, so the listener is finished now (client-go 1.37's
        // removeListener closes runFinished itself then, shared_informer.go v0.37.0-beta.0:1117).
        let never_started = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .is_some();
        if never_started {
            self.run_finished.cancel();
        }
    }

    /// Rule P9 (processorListener.run, shared_informer.go v0.36:1347-1354): with more than
    /// 1024 notifications behind the one in hand (`pending`, client-go's
    /// pendingNotificationsLength), a handler call over 100 ms is logged.
    fn trace_if_slow(&self, pending: usize, call: Duration) {
        if pending > SLOW_HANDLER_PENDING && call > SLOW_HANDLER_CALL {
            self.tracer.emit(Event::SlowHandler {
                handler: self.name.clone(),
                pending,
                call,
            });
        }
    }

    fn finish(&self, queued: &Queued, panicked: bool) {
        let n = &queued.notification;
        let latency = queued.queued_at.elapsed();
        let pending = self.pending.fetch_sub(1, Ordering::AcqRel) - 1;
        if n.is_initial() {
            self.initial_pending.fetch_sub(1, Ordering::AcqRel);
        }
        let s = &self.stats;
        s.handled.fetch_add(1, Ordering::Relaxed);
        s.panics.fetch_add(u64::from(panicked), Ordering::Relaxed);
        s.latency_total_us.fetch_add(
            u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        self.tracer
            .emit_with(EventKind::Handled, || Event::Handled {
                handler: self.name.clone(),
                kind: n.kind(),
                key: n.key().to_owned(),
                resource_version: n.object().resource_version().to_owned(),
                sync: n.is_sync(),
                pending,
                latency,
                panicked,
            });
    }

    /// This handler's figures for the exit summary.
    pub fn summary(&self) -> HandlerSummary {
        let s = &self.stats;
        let handled = s.handled.load(Ordering::Relaxed);
        let total_us = s.latency_total_us.load(Ordering::Relaxed);
        HandlerSummary {
            name: self.name.to_string(),
            resource: None,
            notifications: s.notifications.load(Ordering::Relaxed),
            adds: s.adds.load(Ordering::Relaxed),
            updates: s.updates.load(Ordering::Relaxed),
            deletes: s.deletes.load(Ordering::Relaxed),
            syncs: s.syncs.load(Ordering::Relaxed),
            handled,
            panics: s.panics.load(Ordering::Relaxed),
            dropped: s.dropped.load(Ordering::Relaxed),
            max_pending: s.max_pending.load(Ordering::Relaxed),
            mean_latency: Duration::from_micros(total_us.checked_div(handled).unwrap_or(0)),
        }
    }
}

/// Hands one notification to `handler`; the panic message if it panicked (Rule P8), whether
/// while building its future or running it.
async fn deliver(handler: &dyn EventHandler, n: &Notification) -> Option<String> {
    let payload = match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(n))) {
        Ok(work) => AssertUnwindSafe(work).catch_unwind().await.err()?,
        Err(payload) => payload,
    };
    Some(panic_message(payload.as_ref()))
}

/// The text of a panic payload (`panic!("…")` carries a `&str` or a `String`).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// client-go's sharedProcessor.
pub struct SharedProcessor {
    listeners: RwLock<Vec<Arc<Listener>>>,
    started: AtomicBool,
    /// Every listener task spawned, awaited when the processor stops.
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Set by a listener whose handler panicked under [`PanicPolicy::Crash`].
    crash: watch::Sender<Option<HandlerPanic>>,
}

impl Default for SharedProcessor {
    fn default() -> Self {
        Self {
            listeners: RwLock::new(Vec::new()),
            started: AtomicBool::new(false),
            workers: Mutex::default(),
            crash: watch::Sender::new(None),
        }
    }
}

impl SharedProcessor {
    /// Registers `listener`, in the syncing set (Rule H2); started at once when the processor
    /// runs.
    pub fn add_listener(&self, listener: Arc<Listener>) {
        let mut listeners = self.write();
        if self.started.load(Ordering::Acquire) {
            self.spawn(&listener);
        }
        listeners.push(listener);
    }

    fn spawn(&self, listener: &Arc<Listener>) {
        if let Some(task) = listener.start(&self.crash) {
            self.workers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(task);
        }
    }

    /// Rule P6: stops the listener's notifications; false when it was not registered.
    pub fn remove_listener(&self, listener: &Arc<Listener>) -> bool {
        let mut listeners = self.write();
        let before = listeners.len();
        listeners.retain(|l| !Arc::ptr_eq(l, listener));
        let removed = listeners.len() != before;
        if removed {
            listener.stop();
        }
        removed
    }

    /// Stops every listener and waits for every worker to end (client-go's processor.run
    /// after its context is done: close each addCh, then `wg.Wait()`). Pending notifications
    /// are dropped and counted per handler.
    pub async fn stop(&self) {
        self.started.store(false, Ordering::Release);
        for l in self.read().iter() {
            l.stop();
        }
        let workers =
            std::mem::take(&mut *self.workers.lock().unwrap_or_else(PoisonError::into_inner));
        for worker in workers {
            let _ = worker.await;
        }
    }

    /// Resolves with the first handler panic under [`PanicPolicy::Crash`].
    pub async fn crashed(&self) -> HandlerPanic {
        let mut rx = self.crash.subscribe();
        let first = rx
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|p| p.clone());
        match first {
            Some(panic) => panic,
            // The sender lives as long as the processor: no panic can come any more.
            None => std::future::pending().await,
        }
    }

    pub fn listeners(&self) -> Vec<Arc<Listener>> {
        self.read().clone()
    }

    /// Starts every listener's worker; later listeners start as they are added.
    pub fn run(&self) {
        let listeners = self.read();
        self.started.store(true, Ordering::Release);
        for l in listeners.iter() {
            self.spawn(l);
        }
    }

    /// Sends `notification` to every listener, or only to the syncing ones when it is a
    /// resync (Rule H2).
    pub fn distribute(&self, notification: &Notification) {
        let sync = notification.is_sync();
        for l in self.read().iter() {
            if !sync || l.syncing.load(Ordering::Acquire) {
                l.add(notification.clone());
            }
        }
    }

    /// Marks the listeners due for resync at `now` and returns their names (Rule P5).
    pub fn should_resync(&self, now: Instant) -> Vec<Arc<str>> {
        self.read()
            .iter()
            .filter(|l| l.check_resync(now))
            .map(|l| l.name.clone())
            .collect()
    }

    /// Recomputes every listener's effective period after the check period changed (Rule P2).
    pub fn resync_check_period_changed(&self, check: Duration) -> Vec<(Arc<str>, Duration)> {
        self.read()
            .iter()
            .map(|l| {
                let period = determine_resync_period(l.adjusted_resync, check);
                l.set_resync_period(period);
                (l.name.clone(), period)
            })
            .collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Listener>>> {
        self.listeners
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Listener>>> {
        self.listeners
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
