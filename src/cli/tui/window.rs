//! Sliding windows for `kinformer top`: how many things happened per second, and their mean,
//! over the last few seconds. Counts go into 100 ms buckets, so a burst of thousands of
//! events costs a few buckets, not one entry each.

use std::collections::VecDeque;

/// The window a rate or mean covers.
pub const WINDOW_MS: i64 = 5_000;
const BUCKET_MS: i64 = 100;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    id: i64,
    count: u64,
    sum: u64,
}

/// Events (with an optional value each, e.g. a latency) over the last [`WINDOW_MS`].
#[derive(Debug, Clone, Default)]
pub struct Window {
    buckets: VecDeque<Bucket>,
    /// When counting started: before a whole window has passed, rates divide by the time
    /// since then (at least a second), not by the full window.
    start_ms: Option<i64>,
}

impl Window {
    /// A window counting from `at_ms`.
    pub fn starting(at_ms: i64) -> Self {
        Self {
            buckets: VecDeque::new(),
            start_ms: Some(at_ms),
        }
    }

    /// Starts counting at `at_ms` unless it already did.
    pub fn start(&mut self, at_ms: i64) {
        self.start_ms.get_or_insert(at_ms);
    }

    /// One event at `at_ms` (milliseconds since the epoch).
    pub fn record(&mut self, at_ms: i64) {
        self.record_value(at_ms, 0);
    }

    /// One event at `at_ms` carrying `value` (for [`Window::mean`]).
    pub fn record_value(&mut self, at_ms: i64, value: u64) {
        self.start(at_ms);
        let id = at_ms.div_euclid(BUCKET_MS);
        match self.buckets.back_mut() {
            // Events arrive in time order; one stamped a hair earlier joins the newest bucket.
            Some(last) if last.id >= id => {
                last.count += 1;
                last.sum = last.sum.saturating_add(value);
            }
            _ => self.buckets.push_back(Bucket {
                id,
                count: 1,
                sum: value,
            }),
        }
    }

    /// Forgets buckets older than the window ending at `now_ms`.
    pub fn prune(&mut self, now_ms: i64) {
        let oldest = Self::oldest_id(now_ms);
        while self.buckets.front().is_some_and(|b| b.id < oldest) {
            self.buckets.pop_front();
        }
    }

    /// Events per second over the window ending at `now_ms`.
    pub fn per_second(&self, now_ms: i64) -> f64 {
        let Some(start) = self.start_ms else {
            return 0.0;
        };
        let span_ms = (now_ms - start).clamp(1_000, WINDOW_MS);
        count_as_f64(self.totals(now_ms).0) * 1_000.0 / span_ms as f64
    }

    /// The mean value of the events in the window ending at `now_ms`; None without any.
    pub fn mean(&self, now_ms: i64) -> Option<u64> {
        let (count, sum) = self.totals(now_ms);
        sum.checked_div(count)
    }

    fn totals(&self, now_ms: i64) -> (u64, u64) {
        let oldest = Self::oldest_id(now_ms);
        self.buckets
            .iter()
            .filter(|b| b.id >= oldest)
            .fold((0, 0), |(count, sum), b| {
                (count + b.count, sum.saturating_add(b.sum))
            })
    }

    fn oldest_id(now_ms: i64) -> i64 {
        (now_ms - WINDOW_MS).div_euclid(BUCKET_MS) + 1
    }
}

/// A count as a float for a rate (exact up to 2^53, far beyond any window's count).
#[allow(clippy::cast_precision_loss)]
fn count_as_f64(n: u64) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_counts_the_last_five_seconds_only() {
        let mut w = Window::default();
        for i in 0..50 {
            w.record(i * 100); // 10/s for 5 s
        }
        assert!((w.per_second(5_000) - 10.0).abs() < 0.5);
        // 10 s later nothing is left in the window.
        w.prune(15_000);
        assert!(w.per_second(15_000).abs() < f64::EPSILON);
        assert!(w.buckets.is_empty());
    }

    #[test]
    fn a_young_window_divides_by_the_time_since_it_started() {
        let mut w = Window::starting(9_000);
        for i in 0..20 {
            w.record(10_000 + i * 100); // 20 events 1 to 3 s after the start
        }
        assert!((w.per_second(12_000) - 20.0 / 3.0).abs() < 0.01);
        let mut unstarted = Window::default();
        unstarted.record(10_000);
        assert!(
            (unstarted.per_second(10_500) - 1.0).abs() < 0.01,
            "at least a second"
        );
    }

    #[test]
    fn the_mean_covers_the_window_and_is_none_when_empty() {
        let mut w = Window::default();
        assert_eq!(w.mean(0), None);
        w.record_value(0, 100);
        w.record_value(50, 300);
        w.record_value(4_000, 200);
        assert_eq!(w.mean(4_000), Some(200));
        assert_eq!(w.mean(5_100), Some(200), "the first two left the window");
    }
}
