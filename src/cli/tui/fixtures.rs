//! Trace events for the model and render tests, stamped at known instants.

use std::sync::Arc;
use std::time::Duration;

use crate::informer::trace::{Event, NotifyKind, TraceEvent};

/// `event` stamped `ms` milliseconds after the epoch (its `seq` is `ms` too).
pub fn at(ms: i64, event: Event) -> TraceEvent {
    TraceEvent {
        seq: u64::try_from(ms).unwrap_or(0),
        ts: jiff::Timestamp::from_millisecond(ms).unwrap(),
        resource: Some(Arc::from("pods")),
        event,
    }
}

/// The informer started as client-go 1.36 with its RealFIFO.
pub fn started() -> Event {
    Event::Started {
        name: None,
        what_if: None,
        profile: Some("1.36".into()),
        queue: "real-fifo".into(),
        pop_batch: true,
        atomic_fifo: true,
        unlock_while_processing: true,
        watch_list: false,
        overrides: vec![],
    }
}

/// Handler `name` registered before start with an effective resync of `resync`.
pub fn added(name: &str, resync: Duration) -> Event {
    Event::HandlerAdded {
        handler: Arc::from(name),
        requested_resync: resync,
        effective_resync: resync,
        check_period: resync,
        after_start: false,
        adjustment: None,
    }
}

/// Handler `name` finished an update of default/web-1 after `latency_ms`, `pending` left.
pub fn handled(name: &str, pending: usize, latency_ms: u64) -> Event {
    Event::Handled {
        handler: Arc::from(name),
        kind: NotifyKind::Update,
        key: "default/web-1".into(),
        resource_version: "4711".into(),
        sync: false,
        pending,
        latency: Duration::from_millis(latency_ms),
        panicked: false,
    }
}
