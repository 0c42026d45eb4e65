//! The Reflector: LIST (paged, or watch-list), then WATCH from the list's resourceVersion,
//! feeding the queue; resyncs on a timer; backs off on failure (Rules R1–R9).
//!
//! Mirrors client-go's `Reflector.ListAndWatch` run under `wait.BackoffUntil` (≤ 1.35) or
//! `DelayFunc.Until` (1.36): every return of ListAndWatch (a failed list, a 410, an error
//! event, a very short watch) is followed by a jittered exponential backoff and a relist; a
//! watch that ends — cleanly, or with the connection ending under it (EOF, reset, timeout:
//! Rule R10) — is re-opened at once from the last resourceVersion without relisting, and a
//! watch that cannot be opened is retried in place only for connection refused and 429. Every
//! request goes through client-go's request-layer retries first ([`RestRetry`], Rule R11). The first LIST asks for `resourceVersion="0"` (any cached
//! state), a relist for the last synced resourceVersion, and `""` (a consistent read) only once
//! a LIST answered Expired or "too large resource version" — client-go's
//! `relistResourceVersion`.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::ingest::Ingest;
use super::object::{DecodeError, ObjectMeta, ObjectRef};
use super::queue::Queue;
use super::rest_retry::RestRetry;
use super::source::{
    ApiStatus, ListOptions, ListPage, ListerWatcher, SourceError, WatchFrame, WatchObject,
    WatchOptions, WatchStream,
};
use super::store::KeyMap;
use super::trace::{Event, EventKind, Tracer, WatchEventType};

/// client-go's pager default page size (`pager.defaultPageSize`).
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// The `resourceVersionMatch` a watch-list sends (client-go: NotOlderThan).
const WATCH_LIST_MATCH: &str = "NotOlderThan";

/// When the backoff ladder starts again at its initial delay (Rule R12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackoffReset {
    /// ≤ 1.35, `wait.NewExponentialBackoffManager` (apimachinery wait/backoff.go
    /// `getNextBackoff`): after `reset_after` without any backoff — never during a
    /// continuous outage, whose delays are at most 60 s apart.
    AfterQuietPeriod,
    /// 1.36, `wait.Backoff.DelayWithReset` (wait/backoff.go:135, `backoffManager.Step`
    /// :292-304): every `reset_after` counted from the last reset (or the reflector's start),
    /// even in the middle of an outage: the delays cycle 0.8 s … 30–60 s, 0.8 s ….
    Interval,
}

/// client-go's backoff for reflectors (reflector.go v0.36:62-67): 800 ms doubling to 30 s,
/// full jitter (so a delay at the cap is 30–60 s), reset after 2 min as the release does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackoffConfig {
    /// The first delay.
    pub initial: Duration,
    /// The cap on the doubling base (client-go's `Cap`); jitter is added on top.
    pub max: Duration,
    /// A hard ceiling on every delay, jitter included (`--max-backoff`); client-go has none.
    pub ceiling: Option<Duration>,
    /// Quiet time after which the delay starts over (≤1.35).
    pub reset_after: Duration,
    /// How the delay starts over (per release).
    pub reset: BackoffReset,
    /// Growth factor per failure.
    pub factor: f64,
    /// Random jitter, as a fraction of the delay.
    pub jitter: f64,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            ceiling: None,
            reset_after: Duration::from_secs(120),
            reset: BackoffReset::Interval,
            factor: 2.0,
            jitter: 1.0,
        }
    }
}

/// How a reflector lists and watches.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// client-go's `WatchListPageSize`: a `limit` for every LIST, whatever its
    /// resourceVersion; `Some(0)` lists unpaged. `None` follows client-go's pager: `limit=500`
    /// for the first LIST (a watch cache ignores it) and for consistent reads, no limit for a
    /// relist at a resourceVersion unless the server paged the first LIST.
    pub page_size: Option<u32>,
    /// Use the watch-list strategy (Rules R6, R9) instead of LIST.
    pub watch_list: bool,
    /// Watch timeouts are drawn from [min, 2·min) in whole seconds (client-go: 5 min,
    /// reflector.go v0.36:588).
    pub min_watch_timeout: Duration,
    /// The backoff between failed ListAndWatch attempts.
    pub backoff: BackoffConfig,
    /// Seeds the reflector's randomness (backoff jitter, watch timeouts) so that every run
    /// draws the same numbers (a virtual-clock replay); None draws from the thread's generator.
    pub jitter_seed: Option<u64>,
    /// client-go 1.36+ (`propagateRVFromStart`, reflector.go v0.36:586-636): a WATCH opened at
    /// resourceVersion "" or "0" starts with the server's synthetic ADDED events, in no RV
    /// order, so it moves the last synced RV only from its first non-ADDED event on (Rule R2).
    pub hold_rv_through_synthetic_adds: bool,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self {
            page_size: None,
            watch_list: false,
            min_watch_timeout: Duration::from_secs(300),
            backoff: BackoffConfig::default(),
            jitter_seed: None,
            hold_rv_through_synthetic_adds: false,
        }
    }
}

/// The reflector's backoff: client-go's ExponentialBackoffManager (≤ 1.35) or
/// `wait.Backoff` with `DelayWithReset` (1.36), as [`BackoffConfig::reset`] says.
#[derive(Debug)]
pub struct Backoff {
    config: BackoffConfig,
    next: Duration,
    /// ≤ 1.35: the last backoff's start; 1.36: the last reset. Both start at creation.
    last: Instant,
    attempt: u32,
    random: Randomness,
}

impl Backoff {
    /// A backoff created at `now` (the reflector's start), jittered from the thread's
    /// generator.
    pub fn new(config: BackoffConfig, now: Instant) -> Self {
        Self::seeded(config, now, None)
    }

    /// A backoff whose jitter comes from a generator seeded with `seed` (None: the thread's).
    pub fn seeded(config: BackoffConfig, now: Instant, seed: Option<u64>) -> Self {
        Self {
            config,
            next: config.initial,
            last: now,
            attempt: 0,
            random: Randomness::new(seed),
        }
    }

    /// The next delay (jittered, never above the ceiling) and the attempt number it belongs
    /// to.
    pub fn step(&mut self, now: Instant) -> (Duration, u32) {
        let reset = now.duration_since(self.last) > self.config.reset_after;
        if reset {
            self.next = self.config.initial;
            self.attempt = 0;
        }
        if reset || self.config.reset == BackoffReset::AfterQuietPeriod {
            self.last = now;
        }
        let ceiling = self.config.ceiling.unwrap_or(Duration::MAX);
        let base = self.next.min(ceiling);
        self.next = base.mul_f64(self.config.factor).min(self.config.max);
        self.attempt = self.attempt.saturating_add(1);
        let jitter = self.random.fraction() * self.config.jitter;
        let delay = base.saturating_add(base.mul_f64(jitter));
        (delay.min(ceiling), self.attempt)
    }
}

/// Called every resync check period; returns the handlers now due (empty: no resync).
pub type ShouldResync = Arc<dyn Fn() -> Vec<Arc<str>> + Send + Sync>;

/// Called after each Replace, so the informer can notice it synced on an empty list.
pub type AfterReplace = Arc<dyn Fn() + Send + Sync>;

/// client-go's WatchErrorHandler: told why each ListAndWatch attempt failed.
pub type WatchErrorHandler = Arc<dyn Fn(&ReflectorError) + Send + Sync>;

/// Why one ListAndWatch attempt failed (client-go hands these to the WatchErrorHandler; the
/// reflector backs off and relists after each).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReflectorError {
    /// The LIST failed; `initial` when nothing was ever listed (the informer has no data).
    #[error("failed to list: {source}")]
    List {
        /// Why.
        #[source]
        source: SourceError,
        /// Whether it was the informer's first LIST.
        initial: bool,
    },
    /// A listed object could not be decoded.
    #[error("unable to understand list result: {source}")]
    ListDecode {
        /// Why.
        #[source]
        source: DecodeError,
        /// Whether it was the informer's first LIST.
        initial: bool,
    },
    /// The WATCH request was refused or failed (not connection refused or 429, which are
    /// retried in place, Rule R8).
    #[error("failed to watch: {source}")]
    Watch {
        /// Why.
        #[source]
        source: SourceError,
    },
}

impl ReflectorError {
    /// A failure of the very first LIST: the informer has never had data.
    pub fn is_initial_list(&self) -> bool {
        matches!(
            self,
            ReflectorError::List { initial: true, .. }
                | ReflectorError::ListDecode { initial: true, .. }
        )
    }

    /// The server's answer, when it gave one.
    pub fn source_error(&self) -> Option<&SourceError> {
        match self {
            ReflectorError::List { source, .. } | ReflectorError::Watch { source } => Some(source),
            ReflectorError::ListDecode { .. } => None,
        }
    }
}

/// How one ListAndWatch ended when it did not fail.
#[derive(Debug)]
enum Ended {
    Stopped,
    /// The watch ended in a way that calls for a relist after the backoff (410, an ERROR
    /// event, a broken stream, a very short watch); client-go returns nil here, so the
    /// WatchErrorHandler is not told.
    Restart(String),
}

/// How a watch stream ended.
enum WatchOutcome {
    /// Closed by the server or by its timeout, or the connection ended under it (Rule R10):
    /// re-watch from the last resourceVersion. Says how.
    Closed(String),
    /// An ERROR event or a broken stream: relist (or, for 429, re-watch after a backoff).
    Failed(SourceError),
}

/// What the reflector remembers between LISTs (client-go's lastSyncResourceVersion,
/// isLastSyncResourceVersionUnavailable and paginatedResult).
#[derive(Debug, Default)]
struct ListState {
    /// The last LIST answered Expired or too-large: relist with a consistent read.
    rv_unavailable: bool,
    /// The first LIST (at "0") came back in pages: the server has no watch cache, keep paging.
    paginated_result: bool,
    /// A LIST has succeeded.
    listed: bool,
}

/// client-go's Reflector.
pub struct Reflector {
    /// The ListerWatcher behind client-go's request-layer retries.
    rest: RestRetry,
    queue: Arc<dyn Queue>,
    ingest: Ingest,
    config: ReflectorConfig,
    resync_check_period: Duration,
    should_resync: ShouldResync,
    after_replace: AfterReplace,
    watch_error_handler: Option<WatchErrorHandler>,
    tracer: Tracer,
    last_sync_rv: Arc<Mutex<String>>,
    list_state: Mutex<ListState>,
    /// One backoff for the outer loop and in-place watch retries (client-go's backoffManager,
    /// 1.36's delayHandler).
    backoff: Mutex<Backoff>,
    /// Draws the watch timeouts.
    random: Randomness,
}

/// What a Reflector needs besides its source and queue.
pub struct ReflectorParts {
    pub ingest: Ingest,
    pub config: ReflectorConfig,
    pub resync_check_period: Duration,
    pub should_resync: ShouldResync,
    pub after_replace: AfterReplace,
    pub watch_error_handler: Option<WatchErrorHandler>,
    pub tracer: Tracer,
    pub last_sync_rv: Arc<Mutex<String>>,
}

/// Where a reflector's randomness comes from: the thread's generator, or one seeded from its
/// configuration so that every run draws the same numbers.
#[derive(Debug)]
enum Randomness {
    Thread,
    Seeded(Box<Mutex<StdRng>>),
}

impl Randomness {
    fn new(seed: Option<u64>) -> Self {
        match seed {
            Some(seed) => Randomness::Seeded(Box::new(Mutex::new(StdRng::seed_from_u64(seed)))),
            None => Randomness::Thread,
        }
    }

    /// A number in [0, 1).
    fn fraction(&self) -> f64 {
        match self {
            Randomness::Seeded(rng) => lock(rng).random(),
            Randomness::Thread => rand::rng().random(),
        }
    }

    /// A number in [low, high].
    fn between(&self, low: u64, high: u64) -> u64 {
        match self {
            Randomness::Seeded(rng) => lock(rng).random_range(low..=high),
            Randomness::Thread => rand::rng().random_range(low..=high),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Reflector {
    pub fn new(lw: Arc<dyn ListerWatcher>, queue: Arc<dyn Queue>, parts: ReflectorParts) -> Self {
        Self {
            rest: RestRetry::new(lw, parts.tracer.clone()),
            queue,
            ingest: parts.ingest,
            backoff: Mutex::new(Backoff::seeded(
                parts.config.backoff,
                Instant::now(),
                parts.config.jitter_seed,
            )),
            random: Randomness::new(parts.config.jitter_seed.map(|s| s.wrapping_add(1))),
            config: parts.config,
            resync_check_period: parts.resync_check_period,
            should_resync: parts.should_resync,
            after_replace: parts.after_replace,
            watch_error_handler: parts.watch_error_handler,
            tracer: parts.tracer,
            last_sync_rv: parts.last_sync_rv,
            list_state: Mutex::default(),
        }
    }

    /// Runs ListAndWatch until `stop`, backing off between attempts (Rule R5).
    pub async fn run(&self, stop: CancellationToken) {
        loop {
            let reason = match self.list_and_watch(&stop).await {
                Ok(Ended::Stopped) => return,
                Ok(Ended::Restart(reason)) => reason,
                Err(e) => {
                    tracing::info!("{e}");
                    if let Some(handler) = &self.watch_error_handler {
                        handler(&e);
                    }
                    e.to_string()
                }
            };
            tokio::select! {
                _ = stop.cancelled() => return,
                () = self.sleep_backoff(&reason) => {}
            }
            self.tracer.emit(Event::Relist { reason });
        }
    }

    pub fn last_sync_resource_version(&self) -> String {
        lock(&self.last_sync_rv).clone()
    }

    /// Records `rv` in place (no allocation once the string has grown to an RV's length).
    fn set_last_sync_rv(&self, rv: &str) {
        if !rv.is_empty() {
            let mut last = lock(&self.last_sync_rv);
            last.clear();
            last.push_str(rv);
        }
    }

    /// client-go's `relistResourceVersion`: "" after an Expired/too-large answer, "0" before
    /// anything was listed, else the last synced resourceVersion.
    fn relist_resource_version(&self) -> String {
        if lock(&self.list_state).rv_unavailable {
            return String::new();
        }
        match self.last_sync_resource_version() {
            rv if rv.is_empty() => "0".to_owned(),
            rv => rv,
        }
    }

    /// client-go's `rewatchResourceVersion` (watch-list): "" after an Expired/too-large
    /// answer, else the last synced resourceVersion ("" before anything was listed).
    fn rewatch_resource_version(&self) -> String {
        if lock(&self.list_state).rv_unavailable {
            return String::new();
        }
        self.last_sync_resource_version()
    }

    fn set_rv_unavailable(&self, unavailable: bool) {
        lock(&self.list_state).rv_unavailable = unavailable;
    }

    fn is_initial(&self) -> bool {
        !lock(&self.list_state).listed
    }

    async fn list_and_watch(&self, stop: &CancellationToken) -> Result<Ended, ReflectorError> {
        let mut initial_stream = None;
        if self.config.watch_list {
            match self.watch_list(stop).await {
                Ok(Some(stream)) => initial_stream = Some(stream),
                Ok(None) => return Ok(Ended::Stopped),
                // Rule R9: making progress beats deadlocking — fall back to LIST.
                Err(e) => self.tracer.emit(Event::Relist {
                    reason: format!("watch-list failed, falling back to LIST: {e}"),
                }),
            }
        }
        if initial_stream.is_none() {
            tokio::select! {
                _ = stop.cancelled() => return Ok(Ended::Stopped),
                listed = self.list() => listed?,
            }
        }
        // Biased: when a watch frame and a resync tick are ready at the same instant (a
        // virtual-clock replay), the frame goes first, every time.
        tokio::select! {
            biased;
            _ = stop.cancelled() => Ok(Ended::Stopped),
            ended = self.watch_loop(initial_stream, stop) => ended,
            never = self.resync_loop() => match never {},
        }
    }

    /// The page size client-go's pager uses for a LIST at `rv` (see
    /// [`ReflectorConfig::page_size`]).
    fn page_size_for(&self, rv: &str) -> Option<u32> {
        match self.config.page_size {
            Some(0) => None,
            Some(n) => Some(n),
            None if lock(&self.list_state).paginated_result => Some(DEFAULT_PAGE_SIZE),
            None if !rv.is_empty() && rv != "0" => None,
            None => Some(DEFAULT_PAGE_SIZE),
        }
    }

    /// LIST (Rule R1) then one Replace. An Expired or too-large answer is retried at once as a
    /// consistent read, as client-go's `list` does.
    async fn list(&self) -> Result<(), ReflectorError> {
        let initial = self.is_initial();
        let rv = self.relist_resource_version();
        let limit = self.page_size_for(&rv);
        let mut listed = self.list_pages(&rv, limit).await;
        if let Err(ListFailure::Source(e)) = &listed
            && (e.is_expired() || e.is_too_large_resource_version())
        {
            self.set_rv_unavailable(true);
            listed = self
                .list_pages(&self.relist_resource_version(), limit)
                .await;
        }
        let listed = listed.map_err(|f| f.into_error(initial))?;
        {
            let mut state = lock(&self.list_state);
            if rv == "0" && listed.pages > 1 {
                state.paginated_result = true;
            }
            state.rv_unavailable = false;
            state.listed = true;
        }
        self.replace(listed.items, &listed.resource_version, listed.pages);
        Ok(())
    }

    /// One LIST in pages of `limit`; an expired continue token falls back to one full list at
    /// the same resourceVersion (client-go's pager, `FullListIfExpired`).
    async fn list_pages(&self, rv: &str, limit: Option<u32>) -> Result<Listed, ListFailure> {
        let mut limit = limit;
        'restart: loop {
            self.trace_list_start(rv, None, limit, false);
            let mut listed = Listed::default();
            let mut opts = ListOptions {
                resource_version: rv.to_owned(),
                limit,
                continue_token: None,
            };
            loop {
                let page = match self.rest.list(&opts).await {
                    Ok(page) => page,
                    Err(e) if e.is_expired() && listed.pages > 0 => {
                        self.trace_list_error(&e);
                        limit = None;
                        continue 'restart;
                    }
                    Err(e) => {
                        self.trace_list_error(&e);
                        return Err(ListFailure::Source(e));
                    }
                };
                listed.pages += 1;
                self.tracer.emit(Event::ListPage {
                    page: listed.pages,
                    items: page.items.len(),
                    more: page.continue_token.is_some(),
                });
                let ListPage {
                    items,
                    resource_version,
                    continue_token,
                } = page;
                for raw in items {
                    listed.items.push(self.decode(raw).map_err(|e| {
                        self.trace_list_error(&SourceError::Decode(e.to_string()));
                        ListFailure::Decode(e)
                    })?);
                }
                match continue_token {
                    // client-go's pager asks for the next page with the token alone: the
                    // resourceVersion goes (tools/pager/pager.go v0.36.6:159-164, Rule R1).
                    Some(token) => {
                        opts.continue_token = Some(token);
                        opts.resource_version.clear();
                    }
                    None => {
                        listed.resource_version = resource_version;
                        return Ok(listed);
                    }
                }
            }
        }
    }

    fn trace_list_start(&self, rv: &str, rv_match: Option<&str>, limit: Option<u32>, wl: bool) {
        tracing::debug!(resource_version = rv, ?limit, watch_list = wl, "list");
        self.tracer.emit(Event::ListStart {
            resource_version: rv.to_owned(),
            resource_version_match: rv_match.map(str::to_owned),
            limit,
            watch_list: wl,
        });
    }

    fn replace(&self, items: Vec<ObjectRef>, rv: &str, pages: u32) {
        let count = items.len();
        self.queue.replace_at(items, rv);
        self.set_last_sync_rv(rv);
        self.tracer.emit(Event::ListDone {
            items: count,
            pages,
            resource_version: rv.to_owned(),
        });
        (self.after_replace)();
    }

    /// Watch-list (Rules R6, R9): stream the initial state into a temporary store until the
    /// bookmark annotated `k8s.io/initial-events-end`, Replace with it, and keep the stream for
    /// watching. Connection refused and 429 back off and retry; Expired and too-large retry at
    /// once at resourceVersion ""; anything else is returned for the fallback to LIST. `None`:
    /// stopped.
    async fn watch_list(
        &self,
        stop: &CancellationToken,
    ) -> Result<Option<WatchStream>, ReflectorError> {
        loop {
            let rv = self.rewatch_resource_version();
            self.trace_list_start(&rv, Some(WATCH_LIST_MATCH), None, true);
            let attempt = tokio::select! {
                _ = stop.cancelled() => return Ok(None),
                attempt = self.watch_list_once(rv) => attempt,
            };
            let e = match attempt {
                Ok(Some((stream, temporary, rv))) => {
                    lock(&self.list_state).listed = true;
                    self.set_rv_unavailable(false);
                    self.replace(temporary.into_items(), &rv, 1);
                    return Ok(Some(stream));
                }
                // The stream ended before the bookmark: open a new one (client-go loops).
                Ok(None) => continue,
                Err(e) => e,
            };
            if e.is_watch_retriable() {
                let reason = e.summary();
                tokio::select! {
                    _ = stop.cancelled() => return Ok(None),
                    () = self.sleep_backoff(&reason) => {}
                }
            } else if e.is_expired() || e.is_too_large_resource_version() {
                self.set_rv_unavailable(true);
            } else {
                return Err(ReflectorError::List {
                    initial: self.is_initial(),
                    source: e,
                });
            }
        }
    }

    /// One watch-list stream up to its initial-events-end bookmark: the stream, the state it
    /// sent and the bookmark's resourceVersion; `None` when the stream ended without the
    /// bookmark after sending something (a `watch-end` at `rv`, which it is opened again from).
    async fn watch_list_once(
        &self,
        rv: String,
    ) -> Result<Option<(WatchStream, TemporaryStore, String)>, SourceError> {
        let started = Instant::now();
        let mut stream = self
            .open_watch(rv.clone(), true)
            .await
            .inspect_err(|e| self.trace_error(e))?;
        let mut temporary = TemporaryStore::default();
        let mut events = 0u64;
        let closed = loop {
            let frame = match stream.next().await {
                None => break "closed by server".to_owned(),
                Some(Ok(frame)) => frame,
                // Rule R10: the connection ended under the stream — a close, not an error.
                Some(Err(e)) if e.is_normal_watch_close() => break e.to_string(),
                Some(Err(e)) => {
                    let e = internal_error(&e);
                    self.trace_error(&e);
                    return Err(e);
                }
            };
            events += 1;
            let (event_type, object) = match frame {
                WatchFrame::Added(object) => (WatchEventType::Added, object),
                WatchFrame::Modified(object) => (WatchEventType::Modified, object),
                WatchFrame::Deleted(object) => (WatchEventType::Deleted, object),
                WatchFrame::Bookmark {
                    resource_version,
                    initial_events_end,
                } => {
                    self.trace_bookmark(&resource_version, initial_events_end);
                    if initial_events_end {
                        return Ok(Some((stream, temporary, resource_version)));
                    }
                    continue;
                }
                WatchFrame::Error(status) => {
                    let e = SourceError::Api(status);
                    self.trace_error(&e);
                    return Err(e);
                }
            };
            let (raw, meta) = object.into_parts();
            let obj = match self.decode_watched(&raw, meta) {
                Ok(obj) => obj,
                Err(DecodeError::Transform(why)) => {
                    let rv = self.drop_untransformable(&raw, &why);
                    self.set_last_sync_rv(&rv);
                    continue;
                }
                Err(e) => {
                    let e = internal_error(&SourceError::Decode(e.to_string()));
                    self.trace_error(&e);
                    return Err(e);
                }
            };
            self.trace_watch_event(event_type, &obj);
            temporary.apply(event_type, obj);
        };
        if events == 0 && started.elapsed() < Duration::from_secs(1) {
            let e = SourceError::Transport(
                "very short watch: watch-list closed within a second with no events".into(),
            );
            self.trace_error(&e);
            return Err(e);
        }
        // client-go logs "Watch close" and opens the watch-list again from the same
        // resourceVersion (reflector.go v0.37.2:1093-1094, :887-889): the trace says so.
        self.tracer.emit(Event::WatchEnd {
            resource_version: rv,
            events,
            reason: closed,
        });
        Ok(None)
    }

    async fn open_watch(
        &self,
        resource_version: String,
        send_initial_events: bool,
    ) -> Result<WatchStream, SourceError> {
        let min = self.config.min_watch_timeout.as_secs().max(1);
        // client-go: min + rand·(max − min) seconds, truncated — never 2·min itself.
        let timeout_seconds = self
            .random
            .between(min, min.saturating_mul(2).saturating_sub(1).max(min));
        tracing::debug!(%resource_version, timeout_seconds, send_initial_events, "watch");
        self.tracer.emit(Event::WatchStart {
            resource_version: resource_version.clone(),
            timeout_seconds,
            watch_list: send_initial_events,
        });
        let opts = WatchOptions {
            resource_version,
            timeout_seconds,
            send_initial_events,
        };
        self.rest.watch(&opts).await
    }

    /// client-go's `watch`: WATCH from the last resourceVersion; a clean end re-watches without
    /// relisting (Rule R2); connection refused and 429 — on opening or as an ERROR event —
    /// back off and re-watch (Rule R8); Expired and every other failure end ListAndWatch
    /// (Rule R3).
    async fn watch_loop(
        &self,
        mut initial: Option<WatchStream>,
        stop: &CancellationToken,
    ) -> Result<Ended, ReflectorError> {
        loop {
            if stop.is_cancelled() {
                return Ok(Ended::Stopped);
            }
            // client-go takes the watch's start before the WATCH call, so the request layer's
            // silent retries count towards the very-short-watch second (Rule R10).
            let started = Instant::now();
            let (stream, ordered) = match initial.take() {
                Some(stream) => (stream, true),
                None => match self.open_watch_from_last_rv().await {
                    Ok(opened) => opened,
                    Err(e) => {
                        self.trace_error(&e);
                        if e.is_watch_retriable() {
                            self.sleep_backoff(&e.summary()).await;
                            continue;
                        }
                        return Err(ReflectorError::Watch { source: e });
                    }
                },
            };
            match self.handle_watch(stream, ordered, started).await {
                Ok(()) => {}
                Err(WatchEnd::Failed(e)) if e.is_too_many_requests() => {
                    self.sleep_backoff(&e.summary()).await;
                }
                Err(WatchEnd::Failed(e)) => return Ok(Ended::Restart(e.summary())),
                Err(WatchEnd::VeryShort(reason)) => return Ok(Ended::Restart(reason)),
            }
        }
    }

    /// A WATCH from the last synced RV, and whether its events come in RV order from the start
    /// (see [`ReflectorConfig::hold_rv_through_synthetic_adds`]).
    async fn open_watch_from_last_rv(&self) -> Result<(WatchStream, bool), SourceError> {
        let rv = self.last_sync_resource_version();
        let synthetic_adds = rv.is_empty() || rv == "0";
        let ordered = !(self.config.hold_rv_through_synthetic_adds && synthetic_adds);
        Ok((self.open_watch(rv, false).await?, ordered))
    }

    /// Sleeps the shared backoff's next delay, tracing it. client-go's backoff does not read
    /// `Retry-After`: the request layer already waited it out (Rule R11).
    async fn sleep_backoff(&self, reason: &str) {
        let (delay, attempt) = lock(&self.backoff).step(Instant::now());
        tracing::info!("backing off {delay:?} (attempt {attempt}): {reason}");
        self.tracer.emit(Event::Backoff {
            reason: reason.to_owned(),
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            attempt,
        });
        tokio::time::sleep(delay).await;
    }

    /// Applies one watch stream's frames to the queue until it ends; each moves the last synced
    /// RV once the stream is `ordered` (from the start, or since its first non-ADDED event).
    /// `started` is when the WATCH was asked for, request-layer retries included.
    async fn handle_watch(
        &self,
        mut stream: WatchStream,
        mut ordered: bool,
        started: Instant,
    ) -> Result<(), WatchEnd> {
        let mut events = 0u64;
        let outcome = loop {
            let frame = match stream.next().await {
                None => break WatchOutcome::Closed("closed by server".to_owned()),
                Some(Err(e)) if e.is_normal_watch_close() => {
                    break WatchOutcome::Closed(e.to_string());
                }
                Some(Err(e)) => {
                    let e = internal_error(&e);
                    self.trace_error(&e);
                    break WatchOutcome::Failed(e);
                }
                Some(Ok(frame)) => frame,
            };
            ordered |= !matches!(frame, WatchFrame::Added(_));
            let applied = match frame {
                WatchFrame::Added(object) => self.apply(WatchEventType::Added, object, ordered),
                WatchFrame::Modified(object) => {
                    self.apply(WatchEventType::Modified, object, ordered)
                }
                WatchFrame::Deleted(object) => self.apply(WatchEventType::Deleted, object, ordered),
                WatchFrame::Bookmark {
                    resource_version,
                    initial_events_end,
                } => {
                    // Rule R4: a bookmark moves the RV and queues no delta (an atomic
                    // RealFIFO passes it on as a Bookmark entry).
                    self.trace_bookmark(&resource_version, initial_events_end);
                    self.set_last_sync_rv(&resource_version);
                    self.queue.bookmark(&resource_version);
                    Ok(())
                }
                WatchFrame::Error(status) => {
                    let e = SourceError::Api(status);
                    self.trace_error(&e);
                    Err(e)
                }
            };
            if let Err(e) = applied {
                break WatchOutcome::Failed(e);
            }
            events += 1;
        };
        let reason = match &outcome {
            WatchOutcome::Closed(how) => how.clone(),
            WatchOutcome::Failed(e) => e.summary(),
        };
        self.tracer.emit(Event::WatchEnd {
            resource_version: self.last_sync_resource_version(),
            events,
            reason,
        });
        match outcome {
            WatchOutcome::Failed(e) => Err(WatchEnd::Failed(e)),
            // client-go's guard against a hot loop on a server that closes every watch.
            WatchOutcome::Closed(_)
                if events == 0 && started.elapsed() < Duration::from_secs(1) =>
            {
                Err(WatchEnd::VeryShort(
                    "very short watch: closed within a second with no events".into(),
                ))
            }
            WatchOutcome::Closed(_) => Ok(()),
        }
    }

    /// Queues one watched object and, when the stream is `ordered`, records its resourceVersion
    /// as the last synced one (Rule R2). An object that cannot be decoded is client-go's
    /// StreamWatcher decode failure (an InternalError event: relist); one the transform
    /// rejects is lost and the watch goes on, its resourceVersion still recorded (client-go's
    /// watchHandler logs the failed store write and continues, reflector.go v0.36 handleWatch).
    fn apply(
        &self,
        event_type: WatchEventType,
        object: WatchObject,
        ordered: bool,
    ) -> Result<(), SourceError> {
        let (raw, meta) = object.into_parts();
        let obj = match self.decode_watched(&raw, meta) {
            Ok(obj) => obj,
            Err(DecodeError::Transform(why)) => {
                let rv = self.drop_untransformable(&raw, &why);
                if ordered {
                    self.set_last_sync_rv(&rv);
                }
                return Ok(());
            }
            Err(e) => {
                let e = internal_error(&SourceError::Decode(e.to_string()));
                self.trace_error(&e);
                return Err(e);
            }
        };
        self.trace_watch_event(event_type, &obj);
        let queued = obj.clone();
        match event_type {
            WatchEventType::Added => self.queue.add(queued),
            WatchEventType::Modified => self.queue.update(queued),
            WatchEventType::Deleted => self.queue.delete(queued),
        }
        if ordered {
            self.set_last_sync_rv(obj.resource_version());
        }
        Ok(())
    }

    /// A watched object the transform failed on: traced, not queued; its resourceVersion is
    /// returned, as it still advances the reflector's.
    fn drop_untransformable(&self, raw: &[u8], why: &str) -> String {
        let untransformed = super::object::CachedObject::from_json(Bytes::copy_from_slice(raw));
        let rv = untransformed
            .as_ref()
            .map(|o| o.resource_version().to_owned())
            .unwrap_or_default();
        self.tracer.emit(Event::WatchError {
            code: None,
            reason: "Transform".into(),
            message: format!("transform failed, event dropped, watch continues: {why}"),
        });
        rv
    }

    fn trace_watch_event(&self, event_type: WatchEventType, obj: &ObjectRef) {
        self.tracer
            .emit_with(EventKind::WatchEvent, || Event::WatchEvent {
                event_type,
                key: obj.key().to_owned(),
                resource_version: obj.resource_version().to_owned(),
            });
    }

    /// Every check period, ask which handlers are due and queue a resync if any (Rule R7).
    async fn resync_loop(&self) -> std::convert::Infallible {
        if self.resync_check_period.is_zero() {
            return std::future::pending().await;
        }
        loop {
            tokio::time::sleep(self.resync_check_period).await;
            let due = (self.should_resync)();
            let any_due = !due.is_empty();
            self.tracer.emit(Event::ResyncTick {
                due,
                check_period: self.resync_check_period,
            });
            if any_due {
                let count = self.queue.resync();
                self.tracer.emit(Event::SyncQueued { count });
            }
        }
    }

    /// A LIST item: the cached object keeps a slice of the page, so the page's buffer is the
    /// cache (no copy; the buffer is freed once every object listed from it was replaced).
    fn decode(&self, raw: Bytes) -> Result<ObjectRef, DecodeError> {
        self.ingest.decode(raw)
    }

    /// A watched object is copied out of the socket chunk it came in, which a slice would keep
    /// alive whole (with the frames around it) for as long as the object is cached; the
    /// metadata the frame parser read describes the copy as well.
    fn decode_watched(
        &self,
        raw: &[u8],
        meta: Option<ObjectMeta>,
    ) -> Result<ObjectRef, DecodeError> {
        self.ingest
            .decode_scanned(Bytes::copy_from_slice(raw), meta)
    }

    fn trace_bookmark(&self, rv: &str, initial_events_end: bool) {
        self.tracer.emit(Event::Bookmark {
            resource_version: rv.to_owned(),
            initial_events_end,
        });
    }

    /// Emits a `watch-error` line for `e`.
    fn trace_error(&self, e: &SourceError) {
        tracing::info!("{}", e.summary());
        self.tracer.emit(Event::WatchError {
            code: e.status_code(),
            reason: e.reason(),
            message: e.to_string(),
        });
    }

    /// Emits a `list-error` line for a LIST that failed (or answered what is not a list).
    fn trace_list_error(&self, e: &SourceError) {
        tracing::info!("{}", e.summary());
        self.tracer.emit(Event::ListError {
            code: e.status_code(),
            reason: e.reason(),
            message: e.to_string(),
        });
    }
}

/// client-go's StreamWatcher turns a failure to read the stream, other than the connection
/// ending, into an ERROR event with an InternalError Status (streamwatcher.go v0.36:125-131,
/// `NewClientErrorReporter(500, …)`, api/errors AsObject): the reflector relists on it.
fn internal_error(e: &SourceError) -> SourceError {
    if let SourceError::Api(_) = e {
        return e.clone();
    }
    SourceError::Api(ApiStatus {
        code: Some(500),
        reason: "InternalError".into(),
        message: format!(
            "an error on the server (\"unable to decode an event from the watch stream: {e}\") \
             has prevented the request from succeeding"
        ),
        ..ApiStatus::default()
    })
}

/// Why a watch stream ended other than cleanly.
enum WatchEnd {
    Failed(SourceError),
    VeryShort(String),
}

/// A LIST that did not complete.
enum ListFailure {
    Source(SourceError),
    Decode(DecodeError),
}

impl ListFailure {
    fn into_error(self, initial: bool) -> ReflectorError {
        match self {
            ListFailure::Source(source) => ReflectorError::List { source, initial },
            ListFailure::Decode(source) => ReflectorError::ListDecode { source, initial },
        }
    }
}

/// The objects of one complete LIST.
#[derive(Default)]
struct Listed {
    items: Vec<ObjectRef>,
    resource_version: String,
    pages: u32,
}

/// The watch-list's temporary store (client-go's `NewStore` in `watchList`): ADDED and
/// MODIFIED upsert, DELETED removes, until the initial-events-end bookmark.
#[derive(Default)]
struct TemporaryStore {
    objects: KeyMap<String, (u64, ObjectRef)>,
    next: u64,
}

impl TemporaryStore {
    fn apply(&mut self, event_type: WatchEventType, obj: ObjectRef) {
        let key = obj.key().to_owned();
        if event_type == WatchEventType::Deleted {
            self.objects.remove(&key);
            return;
        }
        let order = self.objects.get(&key).map_or(self.next, |(n, _)| *n);
        self.next += 1;
        self.objects.insert(key, (order, obj));
    }

    /// The objects in the order their keys first arrived.
    fn into_items(self) -> Vec<ObjectRef> {
        let mut items: Vec<(u64, ObjectRef)> = self.objects.into_values().collect();
        items.sort_unstable_by_key(|(n, _)| *n);
        items.into_iter().map(|(_, o)| o).collect()
    }
}
