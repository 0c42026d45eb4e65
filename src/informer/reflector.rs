//! The Reflector: LIST (paged, or watch-list), then WATCH from the list's resourceVersion,
//! feeding the queue; resyncs on a timer; backs off on failure (Rules R1–R7).
//!
//! Mirrors client-go's `Reflector.ListAndWatch` run under `wait.BackoffUntil`: every return of
//! ListAndWatch (a failed list, a 410, a broken watch) is followed by a jittered exponential
//! backoff and a relist; a watch that ends cleanly is re-opened from the last resourceVersion
//! without relisting. All LISTs are consistent reads (`resourceVersion=""`) so paging works.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use rand::Rng;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::delta_fifo::Queue;
use super::object::{DecodeError, Ingest, ObjectRef};
use super::source::{
    ApiStatus, ListOptions, ListerWatcher, SourceError, WatchFrame, WatchOptions, WatchStream,
};
use super::trace::{Event, EventKind, Tracer, WatchEventType};

/// client-go's backoff for reflectors: 800 ms doubling to 30 s, full jitter, reset after 2 min.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackoffConfig {
    pub initial: Duration,
    pub max: Duration,
    pub reset_after: Duration,
    pub factor: f64,
    pub jitter: f64,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            reset_after: Duration::from_secs(120),
            factor: 2.0,
            jitter: 1.0,
        }
    }
}

/// How a reflector lists and watches.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// LIST page size (`limit`); None lists in one request.
    pub page_size: Option<u32>,
    /// Use the watch-list strategy (Rule R6) instead of LIST.
    pub watch_list: bool,
    /// Watch timeouts are drawn from [min, 2·min] (client-go: 5 min).
    pub min_watch_timeout: Duration,
    pub backoff: BackoffConfig,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self {
            page_size: Some(500),
            watch_list: false,
            min_watch_timeout: Duration::from_secs(300),
            backoff: BackoffConfig::default(),
        }
    }
}

/// client-go's ExponentialBackoffManager.
#[derive(Debug)]
pub struct Backoff {
    config: BackoffConfig,
    next: Duration,
    last_start: Option<Instant>,
    attempt: u32,
}

impl Backoff {
    pub fn new(config: BackoffConfig) -> Self {
        Self {
            config,
            next: config.initial,
            last_start: None,
            attempt: 0,
        }
    }

    /// The next delay and the attempt number it belongs to.
    pub fn step(&mut self, now: Instant) -> (Duration, u32) {
        if self
            .last_start
            .is_some_and(|t| now.duration_since(t) > self.config.reset_after)
        {
            self.next = self.config.initial;
            self.attempt = 0;
        }
        self.last_start = Some(now);
        let base = self.next;
        self.next = base.mul_f64(self.config.factor).min(self.config.max);
        self.attempt += 1;
        let jitter = rand::rng().random::<f64>() * self.config.jitter;
        (base + base.mul_f64(jitter), self.attempt)
    }
}

/// Called every resync check period; returns the handlers now due (empty: no resync).
pub type ShouldResync = Arc<dyn Fn() -> Vec<Arc<str>> + Send + Sync>;

/// Called after each Replace, so the informer can notice it synced on an empty list.
pub type AfterReplace = Arc<dyn Fn() + Send + Sync>;

/// client-go's WatchErrorHandler: told why each ListAndWatch attempt failed.
pub type WatchErrorHandler = Arc<dyn Fn(&str) + Send + Sync>;

/// Why one ListAndWatch ended.
#[derive(Debug)]
enum Ended {
    Stopped,
    Failed(String),
}

/// client-go's Reflector.
pub struct Reflector {
    lw: Arc<dyn ListerWatcher>,
    queue: Arc<Queue>,
    ingest: Ingest,
    config: ReflectorConfig,
    resync_check_period: Duration,
    should_resync: ShouldResync,
    after_replace: AfterReplace,
    watch_error_handler: Option<WatchErrorHandler>,
    tracer: Tracer,
    last_sync_rv: Arc<Mutex<String>>,
    /// The server's last `Retry-After`: the next backoff waits at least that long.
    retry_after: Mutex<Option<Duration>>,
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

impl Reflector {
    pub fn new(lw: Arc<dyn ListerWatcher>, queue: Arc<Queue>, parts: ReflectorParts) -> Self {
        Self {
            lw,
            queue,
            ingest: parts.ingest,
            config: parts.config,
            resync_check_period: parts.resync_check_period,
            should_resync: parts.should_resync,
            after_replace: parts.after_replace,
            watch_error_handler: parts.watch_error_handler,
            tracer: parts.tracer,
            last_sync_rv: parts.last_sync_rv,
            retry_after: Mutex::new(None),
        }
    }

    /// Runs ListAndWatch until `stop`, backing off between attempts (Rule R5).
    pub async fn run(&self, stop: CancellationToken) {
        let mut backoff = Backoff::new(self.config.backoff);
        loop {
            let reason = match self.list_and_watch(&stop).await {
                Ended::Stopped => return,
                Ended::Failed(reason) => reason,
            };
            if let Some(handler) = &self.watch_error_handler {
                handler(&reason);
            }
            let (delay, attempt) = self.next_delay(&mut backoff);
            self.tracer.emit(Event::Backoff {
                reason: reason.clone(),
                delay_ms: delay.as_millis() as u64,
                attempt,
            });
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
            self.tracer.emit(Event::Relist { reason });
        }
    }

    pub fn last_sync_resource_version(&self) -> String {
        self.last_sync_rv
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_last_sync_rv(&self, rv: &str) {
        if rv.is_empty() {
            return;
        }
        *self
            .last_sync_rv
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = rv.to_owned();
    }

    async fn list_and_watch(&self, stop: &CancellationToken) -> Ended {
        let initial_stream = if self.config.watch_list {
            match self.watch_list().await {
                Ok(stream) => Some(stream),
                Err(reason) => return Ended::Failed(reason),
            }
        } else {
            if let Err(reason) = self.list().await {
                return Ended::Failed(reason);
            }
            None
        };
        tokio::select! {
            _ = stop.cancelled() => Ended::Stopped,
            ended = self.watch_loop(initial_stream) => ended,
            never = self.resync_loop() => match never {},
        }
    }

    /// LIST in pages, then one Replace (Rule R1). An expired continue token falls back to a
    /// full, unpaged list (client-go's pager).
    async fn list(&self) -> Result<(), String> {
        let mut limit = self.config.page_size;
        'restart: loop {
            self.tracer.emit(Event::ListStart {
                resource_version: String::new(),
                limit,
                watch_list: false,
            });
            let mut items = Vec::new();
            let mut opts = ListOptions {
                limit,
                ..ListOptions::default()
            };
            let mut pages = 0;
            loop {
                let page = match self.lw.list(&opts).await {
                    Ok(page) => page,
                    Err(e) if e.is_expired() && pages > 0 => {
                        self.trace_error(&e);
                        limit = None;
                        continue 'restart;
                    }
                    Err(e) => return Err(self.trace_error(&e)),
                };
                pages += 1;
                self.tracer.emit(Event::ListPage {
                    page: pages,
                    items: page.items.len(),
                    more: page.continue_token.is_some(),
                });
                for raw in &page.items {
                    items.push(self.decode(raw).map_err(|e| self.trace_decode_error(&e))?);
                }
                match page.continue_token {
                    Some(token) => opts.continue_token = Some(token),
                    None => {
                        self.replace(items, &page.resource_version, pages);
                        return Ok(());
                    }
                }
            }
        }
    }

    fn replace(&self, items: Vec<ObjectRef>, rv: &str, pages: u32) {
        let count = items.len();
        self.queue.replace(items);
        self.set_last_sync_rv(rv);
        self.tracer.emit(Event::ListDone {
            items: count,
            pages,
            resource_version: rv.to_owned(),
        });
        (self.after_replace)();
    }

    /// Watch-list (Rule R6): collect the initial ADDED events until the bookmark annotated
    /// `k8s.io/initial-events-end`, Replace with them, and keep the stream for watching.
    async fn watch_list(&self) -> Result<WatchStream, String> {
        self.tracer.emit(Event::ListStart {
            resource_version: self.last_sync_resource_version(),
            limit: None,
            watch_list: true,
        });
        let mut stream = self
            .open_watch(true)
            .await
            .map_err(|e| self.trace_error(&e))?;
        let mut items = Vec::new();
        while let Some(frame) = stream.next().await {
            match frame {
                Ok(WatchFrame::Added(raw)) => {
                    items.push(self.decode(&raw).map_err(|e| self.trace_decode_error(&e))?)
                }
                Ok(WatchFrame::Bookmark {
                    resource_version,
                    initial_events_end,
                }) => {
                    self.trace_bookmark(&resource_version, initial_events_end);
                    if initial_events_end {
                        self.replace(items, &resource_version, 1);
                        return Ok(stream);
                    }
                }
                Ok(WatchFrame::Error(status)) => {
                    return Err(self.trace_error(&SourceError::Api(status)));
                }
                Ok(other) => {
                    let e = SourceError::Decode(format!(
                        "unexpected {other:?} before initial-events-end"
                    ));
                    return Err(self.trace_error(&e));
                }
                Err(e) => return Err(self.trace_error(&e)),
            }
        }
        let e = SourceError::Transport("watch-list ended before initial-events-end".into());
        Err(self.trace_error(&e))
    }

    async fn open_watch(&self, send_initial_events: bool) -> Result<WatchStream, SourceError> {
        let min = self.config.min_watch_timeout.as_secs().max(1);
        let timeout_seconds = rand::rng().random_range(min..=2 * min);
        let resource_version = self.last_sync_resource_version();
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
        self.lw.watch(&opts).await
    }

    /// WATCH from the last RV; a clean end re-watches without relisting (Rule R2).
    async fn watch_loop(&self, mut initial: Option<WatchStream>) -> Ended {
        let mut watch_backoff = Backoff::new(self.config.backoff);
        loop {
            let stream = match initial.take() {
                Some(stream) => stream,
                None => match self.open_watch(false).await {
                    Ok(stream) => stream,
                    Err(e) if is_retriable(&e) => {
                        let reason = self.trace_error(&e);
                        self.sleep_backoff(&mut watch_backoff, reason).await;
                        continue;
                    }
                    Err(e) => return Ended::Failed(self.trace_error(&e)),
                },
            };
            if let Err(reason) = self.handle_watch(stream).await {
                return Ended::Failed(reason);
            }
        }
    }

    /// The backoff's next delay, but never shorter than the server's `Retry-After`.
    fn next_delay(&self, backoff: &mut Backoff) -> (Duration, u32) {
        let (delay, attempt) = backoff.step(Instant::now());
        let asked = self
            .retry_after
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        (asked.map_or(delay, |a| delay.max(a)), attempt)
    }

    async fn sleep_backoff(&self, backoff: &mut Backoff, reason: String) {
        let (delay, attempt) = self.next_delay(backoff);
        self.tracer.emit(Event::Backoff {
            reason,
            delay_ms: delay.as_millis() as u64,
            attempt,
        });
        tokio::time::sleep(delay).await;
    }

    /// Applies one watch stream's frames to the queue until it ends.
    async fn handle_watch(&self, mut stream: WatchStream) -> Result<(), String> {
        let started = Instant::now();
        let mut events = 0u64;
        let end_reason = loop {
            let frame = match stream.next().await {
                None => break "closed by server".to_owned(),
                Some(Err(SourceError::Decode(msg))) => {
                    return Err(self.trace_error(&SourceError::Decode(msg)));
                }
                Some(Err(e)) => break format!("stream error: {e}"),
                Some(Ok(frame)) => frame,
            };
            match frame {
                WatchFrame::Added(raw) => self.apply(WatchEventType::Added, &raw)?,
                WatchFrame::Modified(raw) => self.apply(WatchEventType::Modified, &raw)?,
                WatchFrame::Deleted(raw) => self.apply(WatchEventType::Deleted, &raw)?,
                WatchFrame::Bookmark {
                    resource_version,
                    initial_events_end,
                } => {
                    // Rule R4: a bookmark moves the RV and queues nothing.
                    self.trace_bookmark(&resource_version, initial_events_end);
                    self.set_last_sync_rv(&resource_version);
                }
                WatchFrame::Error(status) => {
                    // Rule R3: a 410 (like any watch error) ends ListAndWatch: relist.
                    return Err(self.trace_error(&SourceError::Api(status)));
                }
            }
            events += 1;
        };
        self.tracer.emit(Event::WatchEnd {
            resource_version: self.last_sync_resource_version(),
            events,
            reason: end_reason,
        });
        if events == 0 && started.elapsed() < Duration::from_secs(1) {
            // client-go's guard against a hot loop on a server that closes every watch.
            return Err("very short watch: closed within a second with no events".into());
        }
        Ok(())
    }

    fn apply(&self, event_type: WatchEventType, raw: &[u8]) -> Result<(), String> {
        let obj = self.decode(raw).map_err(|e| self.trace_decode_error(&e))?;
        self.tracer
            .emit_with(EventKind::WatchEvent, || Event::WatchEvent {
                event_type,
                key: obj.key().to_owned(),
                resource_version: obj.resource_version().to_owned(),
            });
        let rv = obj.resource_version().to_owned();
        match event_type {
            WatchEventType::Added => self.queue.add(obj),
            WatchEventType::Modified => self.queue.update(obj),
            WatchEventType::Deleted => self.queue.delete(obj),
        }
        self.set_last_sync_rv(&rv);
        Ok(())
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

    fn decode(&self, raw: &[u8]) -> Result<ObjectRef, DecodeError> {
        self.ingest.decode(raw)
    }

    fn trace_bookmark(&self, rv: &str, initial_events_end: bool) {
        self.tracer.emit(Event::Bookmark {
            resource_version: rv.to_owned(),
            initial_events_end,
        });
    }

    /// Emits a `watch-error` line for `e` and returns the reason text for the relist.
    fn trace_error(&self, e: &SourceError) -> String {
        if let SourceError::Api(ApiStatus {
            retry_after: Some(after),
            ..
        }) = e
        {
            *self
                .retry_after
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(*after);
        }
        self.tracer.emit(Event::WatchError {
            code: e.status_code(),
            reason: e.reason(),
            message: e.to_string(),
        });
        match e.status_code() {
            Some(code) => format!("{code} {}", e.reason()),
            None => e.to_string(),
        }
    }

    fn trace_decode_error(&self, e: &DecodeError) -> String {
        self.trace_error(&SourceError::Decode(e.to_string()))
    }
}

/// Watch-open failures worth retrying in place (client-go: connection refused, 429, 5xx);
/// anything else ends ListAndWatch.
fn is_retriable(e: &SourceError) -> bool {
    match e {
        SourceError::Transport(_) => true,
        SourceError::Api(s) => matches!(s.code, Some(429) | Some(500..=599)),
        SourceError::Decode(_) => false,
    }
}
