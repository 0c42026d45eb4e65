//! Faults on demand: the failures a real API server shows now and then, caused on purpose so a
//! user can watch the informer react. Requests can be answered with 500/429 (+ `Retry-After`)
//! or delayed; the next watch event can be cut mid-frame or preceded by a malformed line; a
//! restart aborts every open watch and every delayed request (the store is kept). Armed through
//! [`super::EmbeddedServer::inject`] or `POST /kinformer/v1/faults` (authenticated like every
//! other request). With nothing armed the request and watch paths cost one atomic load each.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};
use rand::Rng;
use serde::Deserialize;
use tokio::sync::watch;

use super::listener::{ConnectionId, Restart};
use super::status::ApiError;

/// The admin endpoint's path.
pub const FAULTS_PATH: &str = "/kinformer/v1/faults";

/// Largest accepted delay (a typo must not hang a server for days).
const MAX_DELAY: Duration = Duration::from_secs(300);

/// One fault to cause, as the admin endpoint and scenario files spell it
/// (`{"fault":"fail-requests","count":5,"status":429,"retryAfterSeconds":1}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "fault", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Fault {
    /// End every open watch cleanly now (clients re-watch from their last RV).
    CloseWatches,
    /// Forget the kept events: resuming from an older resourceVersion gets 410.
    TrimHistory,
    /// Every resumed watch gets 410, even from the current resourceVersion (which advances by
    /// one, so that the relist's resourceVersion is watchable).
    ExpireAll,
    /// Answer requests with an error status.
    #[serde(rename_all = "camelCase")]
    FailRequests {
        /// How many requests fail (absent: every one until `clear`).
        #[serde(default)]
        count: Option<u64>,
        /// Probability that a request fails (default 1).
        #[serde(default)]
        fraction: Option<f64>,
        /// 500 (default), 429 or 503.
        #[serde(default)]
        status: Option<u16>,
        /// `Retry-After` seconds sent with 429/503 (default 1).
        #[serde(default)]
        retry_after_seconds: Option<u64>,
        /// Only requests whose path contains this (e.g. `/pods`; default every request).
        #[serde(default)]
        path: Option<String>,
    },
    /// Hold each response back before answering.
    #[serde(rename_all = "camelCase")]
    Delay {
        /// How long, in milliseconds.
        delay_ms: u64,
        /// How many requests are delayed (absent: every one until `clear`).
        #[serde(default)]
        count: Option<u64>,
    },
    /// The next watch event written is cut in the middle of its JSON and the stream aborted.
    CutWatch,
    /// The next watch event written is preceded by one line that is not JSON.
    MalformedEvent,
    /// Drop every open watch connection without a clean end and abort the requests a `delay`
    /// holds back; the objects are kept.
    Restart,
    /// Disarm every request and watch fault.
    Clear,
}

impl Fault {
    /// The fault's name (`fail-requests`).
    pub fn name(&self) -> &'static str {
        match self {
            Fault::CloseWatches => "close-watches",
            Fault::TrimHistory => "trim-history",
            Fault::ExpireAll => "expire-all",
            Fault::FailRequests { .. } => "fail-requests",
            Fault::Delay { .. } => "delay",
            Fault::CutWatch => "cut-watch",
            Fault::MalformedEvent => "malformed-event",
            Fault::Restart => "restart",
            Fault::Clear => "clear",
        }
    }

    /// Rejects values no server could honour.
    pub fn validate(&self) -> Result<(), FaultError> {
        match self {
            Fault::FailRequests {
                fraction, status, ..
            } => {
                if fraction.is_some_and(|f| !(0.0..=1.0).contains(&f)) {
                    return Err(FaultError::Fraction);
                }
                if status.is_some_and(|s| !matches!(s, 401 | 403 | 404 | 429 | 500 | 503)) {
                    return Err(FaultError::Status);
                }
                Ok(())
            }
            Fault::Delay { delay_ms, .. } if Duration::from_millis(*delay_ms) > MAX_DELAY => {
                Err(FaultError::Delay {
                    max: MAX_DELAY.as_millis(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// A fault that cannot be caused as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    /// `fail-requests` with a `fraction` outside 0..=1.
    #[error("fail-requests: fraction must be between 0 and 1")]
    Fraction,
    /// `fail-requests` with a status the server does not fake.
    #[error("fail-requests: status must be 401, 403, 404, 429, 500 or 503")]
    Status,
    /// A `delay` longer than the server allows.
    #[error("delay: at most {max}ms")]
    Delay {
        /// The longest delay, in milliseconds.
        max: u128,
    },
}

/// Failing requests while armed.
#[derive(Debug, Clone)]
struct Failing {
    path: Option<String>,
    remaining: Option<u64>,
    fraction: f64,
    status: u16,
    retry_after: u64,
}

/// Delaying requests while armed.
#[derive(Debug, Clone, Copy)]
struct Delaying {
    remaining: Option<u64>,
    delay: Duration,
}

/// What a request must suffer before (or instead of) being served.
#[derive(Debug, Default)]
pub struct RequestFault {
    /// Wait this long first.
    pub delay: Option<Duration>,
    /// Then answer this instead of serving.
    pub failure: Option<Response>,
}

/// What the next watch write must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchFault {
    /// Write half the bytes, then abort the stream.
    Cut,
    /// Write a line that is not JSON first, then the bytes.
    Malformed,
}

/// The armed faults of one server.
#[derive(Debug, Default)]
pub struct Faults {
    /// Any request fault armed (the request path's one load).
    requests_armed: AtomicBool,
    /// Any watch fault armed (the watch path's one load).
    watch_armed: AtomicBool,
    /// Bumped by every restart: watches opened and requests delayed before it are aborted.
    restarts: watch::Sender<Restart>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    failing: Option<Failing>,
    delaying: Option<Delaying>,
    cut: bool,
    malformed: bool,
}

impl Faults {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere; the fault flags stay meaningful.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arms a request or watch fault (the store and watch faults are the server's to apply).
    pub fn arm(&self, fault: &Fault) {
        let mut state = self.state();
        match fault {
            Fault::FailRequests {
                count,
                fraction,
                status,
                retry_after_seconds,
                path,
            } => {
                state.failing = Some(Failing {
                    path: path.clone(),
                    remaining: *count,
                    fraction: fraction.unwrap_or(1.0),
                    status: status.unwrap_or(500),
                    retry_after: retry_after_seconds.unwrap_or(1),
                });
            }
            Fault::Delay { delay_ms, count } => {
                state.delaying = Some(Delaying {
                    remaining: *count,
                    delay: Duration::from_millis(*delay_ms).min(MAX_DELAY),
                });
            }
            Fault::CutWatch => state.cut = true,
            Fault::MalformedEvent => state.malformed = true,
            Fault::Clear => {
                state.failing = None;
                state.delaying = None;
                state.cut = false;
                state.malformed = false;
            }
            Fault::Restart | Fault::CloseWatches | Fault::TrimHistory | Fault::ExpireAll => {}
        }
        self.publish(&state);
    }

    fn publish(&self, state: &State) {
        let requests = state.failing.is_some() || state.delaying.is_some();
        self.requests_armed.store(requests, Ordering::Release);
        self.watch_armed
            .store(state.cut || state.malformed, Ordering::Release);
    }

    /// Restarts: every open connection but `spared` (the caller's, which still carries the
    /// answer) is reset, and every delayed request aborted.
    pub fn restart(&self, spared: Option<ConnectionId>) {
        self.restarts.send_modify(|restart| {
            restart.generation += 1;
            restart.spared = spared;
        });
    }

    /// The restart generation (a watch remembers it when opened).
    pub fn restarts(&self) -> u64 {
        self.restarts.borrow().generation
    }

    /// A receiver that changes at every restart (each connection holds one).
    pub fn subscribe_restarts(&self) -> watch::Receiver<Restart> {
        self.restarts.subscribe()
    }

    /// Waits `delay`; false when a restart came first (the request must then be aborted).
    pub async fn delay_unless_restarted(&self, delay: Duration) -> bool {
        let mut restarts = self.restarts.subscribe();
        tokio::select! {
            () = tokio::time::sleep(delay) => true,
            _ = restarts.changed() => false,
        }
    }

    /// What the request for `path` must suffer; `None` (one atomic load) when nothing is armed.
    pub fn next_request(&self, path: &str) -> Option<RequestFault> {
        if !self.requests_armed.load(Ordering::Acquire) {
            return None;
        }
        let mut state = self.state();
        let delay = take_delay(&mut state.delaying);
        let failure = take_failure(&mut state.failing, path).map(failure_response);
        self.publish(&state);
        Some(RequestFault { delay, failure })
    }

    /// What the next watch write must do; `None` (one atomic load) when nothing is armed.
    pub fn next_watch_write(&self) -> Option<WatchFault> {
        if !self.watch_armed.load(Ordering::Acquire) {
            return None;
        }
        let mut state = self.state();
        let fault = if std::mem::take(&mut state.cut) {
            Some(WatchFault::Cut)
        } else if std::mem::take(&mut state.malformed) {
            Some(WatchFault::Malformed)
        } else {
            None
        };
        self.publish(&state);
        fault
    }
}

/// Counts one use of an armed fault; false (and disarmed) once used up.
fn use_once(remaining: &mut Option<u64>) -> bool {
    match remaining {
        Some(0) => false,
        Some(n) => {
            *n -= 1;
            true
        }
        None => true,
    }
}

fn take_delay(delaying: &mut Option<Delaying>) -> Option<Duration> {
    let active = delaying.as_mut()?;
    let delay = active.delay;
    let used = use_once(&mut active.remaining);
    if active.remaining == Some(0) || !used {
        *delaying = None;
    }
    used.then_some(delay)
}

fn take_failure(failing: &mut Option<Failing>, path: &str) -> Option<Failing> {
    let active = failing.as_mut()?;
    if active.path.as_deref().is_some_and(|p| !path.contains(p)) {
        return None;
    }
    if active.fraction < 1.0 && !rand::rng().random_bool(active.fraction.max(0.0)) {
        return None;
    }
    let chosen = active.clone();
    let used = use_once(&mut active.remaining);
    if active.remaining == Some(0) || !used {
        *failing = None;
    }
    used.then_some(chosen)
}

/// The Status response of a failed request, with `Retry-After` for 429 and 503.
fn failure_response(failing: Failing) -> Response {
    let error = match failing.status {
        401 => ApiError::unauthorized(),
        403 => ApiError::new(403, "Forbidden", "forbidden: injected fault"),
        404 => ApiError::no_route(),
        429 => ApiError::new(
            429,
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later",
        ),
        503 => ApiError::new(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
        ),
        _ => ApiError::new(
            500,
            "InternalError",
            "an error on the server (\"injected fault\") has prevented the request from succeeding",
        ),
    };
    let mut response = error.into_response();
    if matches!(failing.status, 429 | 503) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(failing.retry_after));
    }
    response
}

/// A response whose body fails at once: hyper drops the connection, as a restarting server
/// would.
pub fn aborted_response() -> Response {
    let failing = futures_util::stream::once(async {
        Err::<bytes::Bytes, _>(std::io::Error::other("the server restarted"))
    });
    Response::new(Body::from_stream(failing))
}

/// The frame a malformed-event fault writes.
pub const MALFORMED_LINE: &[u8] = b"{\"type\":\"MODIFIED\",\"object\":{\"kind\": garbage\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Fault, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn faults_parse_from_admin_json() {
        let fault =
            parse(r#"{"fault":"fail-requests","count":5,"status":429,"retryAfterSeconds":2}"#);
        assert!(matches!(
            fault,
            Ok(Fault::FailRequests {
                count: Some(5),
                status: Some(429),
                retry_after_seconds: Some(2),
                fraction: None,
                path: None,
            })
        ));
        assert!(matches!(
            parse(r#"{"fault":"restart"}"#),
            Ok(Fault::Restart)
        ));
        assert!(parse(r#"{"fault":"reboot"}"#).is_err());
        assert!(parse(r#"{"fault":"delay"}"#).is_err());
    }

    #[test]
    fn failing_counts_down_then_disarms() {
        let faults = Faults::default();
        assert!(faults.next_request("/").is_none());
        faults.arm(&Fault::FailRequests {
            count: Some(2),
            fraction: None,
            status: Some(429),
            retry_after_seconds: None,
            path: None,
        });
        for _ in 0..2 {
            let fault = faults.next_request("/api/v1/pods");
            let failure = fault.and_then(|f| f.failure);
            assert!(failure.is_some_and(
                |r| r.status() == 429 && r.headers().get(header::RETRY_AFTER).is_some()
            ));
        }
        assert!(faults.next_request("/api/v1/pods").is_none());
    }

    #[test]
    fn a_path_filter_spares_other_requests() {
        let faults = Faults::default();
        faults.arm(&Fault::FailRequests {
            count: Some(1),
            fraction: None,
            status: Some(403),
            retry_after_seconds: None,
            path: Some("/pods".into()),
        });
        let spared = faults.next_request("/api/v1");
        assert!(spared.is_some_and(|f| f.failure.is_none()));
        let failed = faults.next_request("/api/v1/pods").and_then(|f| f.failure);
        assert!(failed.is_some_and(|r| r.status() == 403));
    }

    #[test]
    fn watch_faults_fire_once() {
        let faults = Faults::default();
        faults.arm(&Fault::CutWatch);
        faults.arm(&Fault::MalformedEvent);
        assert_eq!(faults.next_watch_write(), Some(WatchFault::Cut));
        assert_eq!(faults.next_watch_write(), Some(WatchFault::Malformed));
        assert_eq!(faults.next_watch_write(), None);
    }

    #[test]
    fn invalid_values_are_rejected() {
        let bad = Fault::FailRequests {
            count: None,
            fraction: Some(2.0),
            status: None,
            retry_after_seconds: None,
            path: None,
        };
        assert!(bad.validate().is_err());
        assert!(
            Fault::Delay {
                delay_ms: 10_000_000,
                count: None
            }
            .validate()
            .is_err()
        );
    }
}
