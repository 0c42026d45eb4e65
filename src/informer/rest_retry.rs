//! client-go's REST client retries (Rule R11): before the reflector sees a failed LIST or
//! WATCH request, client-go's request layer retries it up to 10 times (rest/request.go:166
//! `maxRetries: 10`, rest/with_retry.go:148-193 `IsNextRetry`):
//!
//! - a LIST (a GET) whose connection was reset or ended (`IsConnectionReset`,
//!   `IsProbableEOF`, `IsHTTP2ConnectionLost`, request.go:1063-1076) and a WATCH open that
//!   ended so or timed out (request.go:774-781), each after a synthetic `Retry-After: 1`
//!   (with_retry.go:356);
//! - any request answered 429 or 5xx *with* a `Retry-After` header, after waiting it out
//!   (with_retry.go:309 `checkWait`).
//!
//! When the retries run out, a WATCH open that kept ending so is answered with an empty watch
//! (request.go:817-819 `watch.NewEmptyWatch()`): the reflector sees a "very short watch".
//! client-go does all of this silently; kinformer traces each retry as a `retry` event.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;

use super::source::{ListOptions, ListPage, ListerWatcher, SourceError, WatchOptions, WatchStream};
use super::trace::{Event, RequestVerb, Tracer};

/// client-go's `maxRetries` default for every request.
pub const MAX_RETRIES: u32 = 10;

/// The wait client-go puts behind a retryable transport error (`retryAfterResponse`: 1 s).
const TRANSPORT_RETRY_AFTER: Duration = Duration::from_secs(1);

/// A ListerWatcher behind client-go's request-layer retries.
pub struct RestRetry {
    lw: Arc<dyn ListerWatcher>,
    tracer: Tracer,
}

impl RestRetry {
    pub fn new(lw: Arc<dyn ListerWatcher>, tracer: Tracer) -> Self {
        Self { lw, tracer }
    }

    /// One LIST page, retried as client-go's `Request.request` retries a GET.
    pub async fn list(&self, opts: &ListOptions) -> Result<ListPage, SourceError> {
        self.retrying(RequestVerb::List, || self.lw.list(opts))
            .await
    }

    /// A WATCH stream, opened as client-go's `Request.Watch` opens one.
    pub async fn watch(&self, opts: &WatchOptions) -> Result<WatchStream, SourceError> {
        match self
            .retrying(RequestVerb::Watch, || self.lw.watch(opts))
            .await
        {
            // The retries ran out on an EOF-like failure: client-go's empty watch.
            Err(e) if e.is_normal_watch_close() => Ok(futures_util::stream::empty().boxed()),
            other => other,
        }
    }

    /// Calls `request` until it succeeds or client-go would stop retrying it.
    async fn retrying<T, F>(
        &self,
        verb: RequestVerb,
        mut request: impl FnMut() -> F,
    ) -> Result<T, SourceError>
    where
        F: std::future::Future<Output = Result<T, SourceError>>,
    {
        let mut attempts = 0;
        loop {
            let e = match request().await {
                Ok(answer) => return Ok(answer),
                Err(e) => e,
            };
            attempts += 1;
            match retry_wait(&e, verb, attempts) {
                Some(wait) => self.wait(verb, attempts, wait, &e).await,
                None => return Err(e),
            }
        }
    }

    async fn wait(&self, verb: RequestVerb, attempt: u32, wait: Duration, e: &SourceError) {
        tracing::debug!(?verb, attempt, ?wait, "retrying: {e}");
        self.tracer.emit(Event::Retry {
            verb,
            attempt,
            delay_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            reason: e.summary(),
        });
        tokio::time::sleep(wait).await;
    }
}

/// How long client-go waits before retry number `attempts` of a request that failed with
/// `e`, or `None` when it does not retry.
fn retry_wait(e: &SourceError, verb: RequestVerb, attempts: u32) -> Option<Duration> {
    if attempts > MAX_RETRIES {
        return None;
    }
    match e {
        SourceError::ProbableEof(_) => Some(TRANSPORT_RETRY_AFTER),
        SourceError::Timeout(_) if verb == RequestVerb::Watch => Some(TRANSPORT_RETRY_AFTER),
        SourceError::Api(status) => {
            let waits = matches!(status.code, Some(429) | Some(500..));
            status.retry_after.filter(|_| waits)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::source::ApiStatus;

    fn status(code: u16, retry_after: Option<u64>) -> SourceError {
        SourceError::Api(ApiStatus {
            code: Some(code),
            retry_after: retry_after.map(Duration::from_secs),
            ..ApiStatus::default()
        })
    }

    #[test]
    fn which_failures_client_go_retries_and_how_long_it_waits() {
        use RequestVerb::{List, Watch};
        let eof = SourceError::ProbableEof("connection reset by peer".into());
        let timeout = SourceError::Timeout("i/o timeout".into());
        let one = Some(Duration::from_secs(1));
        assert_eq!(retry_wait(&eof, List, 1), one);
        assert_eq!(retry_wait(&eof, Watch, 10), one);
        assert_eq!(retry_wait(&eof, Watch, 11), None, "10 retries at most");
        assert_eq!(retry_wait(&timeout, Watch, 1), one);
        assert_eq!(
            retry_wait(&timeout, List, 1),
            None,
            "a GET is not retried on a timeout"
        );
        let seven = Some(Duration::from_secs(7));
        assert_eq!(retry_wait(&status(429, Some(7)), List, 1), seven);
        assert_eq!(retry_wait(&status(503, Some(7)), Watch, 1), seven);
        assert_eq!(retry_wait(&status(500, Some(7)), List, 1), seven);
        assert_eq!(
            retry_wait(&status(429, None), List, 1),
            None,
            "no Retry-After: no wait"
        );
        assert_eq!(retry_wait(&status(410, Some(7)), List, 1), None);
        let refused = SourceError::ConnectionRefused("connect: connection refused".into());
        assert_eq!(retry_wait(&refused, Watch, 1), None);
    }
}
