//! `--report FILE` on a live run: every trace event the run emits, rendered as its JSONL line
//! and read back by [`TraceReader`], so the page of a live run reads exactly what
//! `-o jsonl --show all` would have printed.

use std::sync::{Arc, Mutex, PoisonError};

use crate::informer::trace::TraceEvent;
use crate::output::{OutputFormat, RenderOptions, jsonl};

use super::trace::{Trace, TraceReader};

/// Collects a run's events; cheap to clone (the clones share one trace).
#[derive(Clone, Default)]
pub struct Capture {
    inner: Arc<Mutex<Captured>>,
}

#[derive(Default)]
struct Captured {
    reader: TraceReader,
    line: Vec<u8>,
}

impl Capture {
    /// Reads one event as its JSONL line.
    pub fn observe(&self, event: &TraceEvent) {
        let mut captured = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Captured { reader, line } = &mut *captured;
        line.clear();
        jsonl::write_event(line, event, &RenderOptions::new(OutputFormat::Jsonl));
        // A line this program wrote always parses; were it not to, the page lacks that line.
        let _ = reader.push_line(line);
    }

    /// The trace read so far.
    pub fn take(&self) -> Trace {
        let mut captured = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut captured.reader).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::trace::Event;

    #[test]
    fn an_event_is_read_as_its_jsonl_line() {
        let capture = Capture::default();
        capture.observe(&TraceEvent {
            seq: 1,
            ts: jiff::Timestamp::UNIX_EPOCH,
            resource: Some("pods".into()),
            event: Event::Relist {
                reason: "410 Expired".into(),
            },
        });
        let trace = capture.take();
        assert!(trace.lines[0].is("reflector", "relist"));
        assert_eq!(trace.lines[0].reason.as_deref(), Some("410 Expired"));
    }
}
