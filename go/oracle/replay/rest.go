package replay

import (
	"flag"
	"time"

	"kinformer.dev/oracle/out"
	"kinformer.dev/oracle/record"
)

// A stand-in for client-go's REST layer, which the oracle has no HTTP for: before the reflector
// sees a failed LIST or WATCH, client-go's Request retries it silently up to 10 times
// (rest/request.go v0.37.2 `maxRetries: 10`; rest/with_retry.go `IsNextRetry`):
//
//   - a GET whose connection was reset or ended early (IsProbableEOF), and a WATCH open that
//     ended so or timed out, each after a synthetic Retry-After of 1 s (with_retry.go
//     `retryAfterResponse`);
//   - a request answered 429 or 5xx with a Retry-After header, after waiting it out
//     (with_retry.go `checkWait`).
//
// A WATCH whose retries ran out on an EOF-like failure is answered with an empty watch
// (request.go `watch.NewEmptyWatch()`). Each retry is the request sent again: the call takes
// the recording's next exchange, released never before the wait is over. kinformer models the
// same layer as Rule R11 (src/informer/rest_retry.rs).

// restRetry switches the stand-in off (-rest-retry=false: every failure reaches the reflector).
var restRetry = flag.Bool("rest-retry", true, "stand in for client-go's REST-layer retries (R11)")

// maxRetries is client-go's Request default.
const maxRetries = 10

// transportRetryAfter is the wait client-go puts behind a retryable transport error.
const transportRetryAfter = time.Second

// eofLike says whether the REST layer retries f as a broken connection on a GET (watch: a
// WATCH open, which also retries a timeout).
func eofLike(f *record.Failure, watch bool) bool {
	return f.Kind == "eof" || (watch && f.Kind == "timeout")
}

// retryWait is how long client-go waits before retry number attempt of a request answered f,
// and false when it does not retry.
func retryWait(f *record.Failure, watch bool, attempt int) (time.Duration, bool) {
	if f == nil || attempt > maxRetries {
		return 0, false
	}
	if eofLike(f, watch) {
		return transportRetryAfter, true
	}
	if f.Kind == "api" && (f.Code == 429 || f.Code >= 500) && f.RetryAfterMs != nil {
		return time.Duration(*f.RetryAfterMs) * time.Millisecond, true
	}
	return 0, false
}

// retried waits out a retry of a request answered f and says whether the REST layer sends it
// again; a `retry` line records the decision (as kinformer's trace does, before the wait), the
// request line of the next attempt says `attempt`.
func (src *source) retried(f *record.Failure, watch bool, attempt int) bool {
	if !*restRetry {
		return false
	}
	wait, ok := retryWait(f, watch, attempt)
	if !ok {
		return false
	}
	verb := "list"
	if watch {
		verb = "watch"
	}
	src.s.log.Emit(out.Fields{"event": "retry", "resource": src.resource, "verb": verb,
		"attempt": attempt, "delay_ms": wait.Milliseconds()})
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-src.s.ctx.Done():
		return false
	}
}
