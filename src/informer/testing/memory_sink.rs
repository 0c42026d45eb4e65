//! [`MemorySink`]: a trace sink that keeps every event in memory and lets a test wait for a
//! condition on them with a deadline.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::informer::trace::{TraceEvent, TraceSink};

/// A sink that keeps every event in memory, for tests and for `dump`'s bookkeeping.
#[derive(Clone, Default)]
pub struct MemorySink {
    events: Arc<Mutex<Vec<TraceEvent>>>,
    changed: Arc<tokio::sync::Notify>,
}

impl MemorySink {
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every event recorded so far.
    pub fn events(&self) -> Vec<TraceEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until `done` holds for the recorded events, or `deadline` passes.
    pub async fn wait_until(
        &self,
        deadline: Duration,
        mut done: impl FnMut(&[TraceEvent]) -> bool,
    ) -> Result<(), String> {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                {
                    let events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
                    if done(&events) {
                        return;
                    }
                }
                notified.await;
            }
        };
        tokio::time::timeout(deadline, wait)
            .await
            .map_err(|_| format!("condition not met within {deadline:?}"))
    }
}

impl TraceSink for MemorySink {
    fn record(&self, event: TraceEvent) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
        self.changed.notify_waiters();
    }

    fn record_all(&self, events: Vec<TraceEvent>) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(events);
        self.changed.notify_waiters();
    }
}
