//! The table's periodic handler status: every few seconds, one `status` row per handler that
//! has a backlog (`handler=slow pending=37 handled/s=4.0`), so the default view shows a slow
//! handler falling behind without a line per `handled`. Fed by every handler event, shown or
//! not; time is the events' own timestamps.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::trace::{Event, TraceEvent};

/// How often status rows are written (while some handler has a backlog).
pub const INTERVAL: Duration = Duration::from_secs(2);

/// One handler's status row.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusRow {
    pub handler: Arc<str>,
    /// Notifications queued for it and not yet handled.
    pub pending: usize,
    /// Notifications handled per second since the last status.
    pub handled_per_second: f64,
}

/// Per handler: the last known backlog and what it handled since the last status.
#[derive(Debug, Default)]
pub struct Backlog {
    handlers: BTreeMap<Arc<str>, (usize, u64)>,
    last: Option<jiff::Timestamp>,
}

impl Backlog {
    /// Takes in one event; returns the status rows due at it (none most of the time).
    pub fn observe(&mut self, event: &TraceEvent) -> Vec<StatusRow> {
        match &event.event {
            Event::Notify {
                handler, pending, ..
            } => self.entry(handler).0 = *pending,
            Event::Handled {
                handler, pending, ..
            } => {
                let entry = self.entry(handler);
                entry.0 = *pending;
                entry.1 += 1;
            }
            _ => {}
        }
        let last = *self.last.get_or_insert(event.ts);
        let elapsed = Duration::try_from(event.ts.duration_since(last)).unwrap_or_default();
        if elapsed < INTERVAL {
            return Vec::new();
        }
        self.last = Some(event.ts);
        let seconds = elapsed.as_secs_f64();
        self.handlers
            .iter_mut()
            .filter_map(|(name, (pending, handled))| {
                let rate = std::mem::take(handled) as f64 / seconds;
                (*pending > 0).then(|| StatusRow {
                    handler: Arc::clone(name),
                    pending: *pending,
                    handled_per_second: rate,
                })
            })
            .collect()
    }

    fn entry(&mut self, handler: &Arc<str>) -> &mut (usize, u64) {
        self.handlers.entry(Arc::clone(handler)).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::trace::NotifyKind;

    fn handled(handler: &str, pending: usize, at_ms: i64) -> TraceEvent {
        TraceEvent {
            seq: 1,
            ts: jiff::Timestamp::from_millisecond(at_ms).unwrap(),
            resource: None,
            event: Event::Handled {
                handler: handler.into(),
                kind: NotifyKind::Add,
                key: "default/a".into(),
                resource_version: "1".into(),
                sync: false,
                pending,
                latency: Duration::ZERO,
                panicked: false,
            },
        }
    }

    #[test]
    fn a_row_every_interval_for_handlers_with_a_backlog_only() {
        let mut backlog = Backlog::default();
        assert!(backlog.observe(&handled("slow", 30, 0)).is_empty());
        assert!(backlog.observe(&handled("fast", 0, 500)).is_empty());
        for ms in [1000, 1500, 1999] {
            assert!(backlog.observe(&handled("slow", 29, ms)).is_empty());
        }
        let rows = backlog.observe(&handled("slow", 25, 2000));
        assert_eq!(rows.len(), 1, "fast has no backlog: {rows:?}");
        assert_eq!((&*rows[0].handler, rows[0].pending), ("slow", 25));
        assert!((rows[0].handled_per_second - 2.5).abs() < 1e-9, "{rows:?}");
        assert!(
            backlog.observe(&handled("slow", 0, 4100)).is_empty(),
            "no backlog left"
        );
    }
}
