//! A run's trace as the report reads it: every JSONL line (the contract of docs/DESIGN.md) as a
//! [`TraceLine`] holding the fields the report and `explain` use, objects left out.
//!
//! Everything the report knows comes through [`TraceReader::push_line`]: lines of a JSONL file,
//! lines a replay renders, lines a live run's `--report` capture renders. One reader, one
//! meaning of every field.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One trace line: the common fields and those of any stage the report uses (absent ones are
/// empty). Objects (`object`, `old`, `diff`) are skipped while parsing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TraceLine {
    pub seq: u64,
    /// `ts` as microseconds since the Unix epoch.
    #[serde(deserialize_with = "micros_since_epoch")]
    pub ts: i64,
    pub stage: String,
    pub event: String,
    pub resource: Option<String>,
    pub key: Option<String>,
    pub rv: Option<String>,
    pub old_rv: Option<String>,
    #[serde(rename = "type")]
    pub kind_of_delta: Option<String>,
    pub handler: Option<String>,
    /// A notification's kind: add, update, delete.
    pub kind: Option<String>,
    pub initial: bool,
    pub sync: bool,
    pub tombstone: bool,
    pub after_start: bool,
    pub pending: Option<u64>,
    pub depth: Option<u64>,
    pub batch: Option<u64>,
    pub deltas: Option<u64>,
    pub latency_us: Option<u64>,
    /// A Go tap's `handled`: the handler call's own time, and the time the notification
    /// waited from entering the queue to the call's start.
    pub call_us: Option<u64>,
    pub queue_us: Option<u64>,
    /// A `diagnosis` line's words.
    pub cause: Option<String>,
    /// An `informer started` line's source: `tap` for a Go tap inside a controller.
    pub source: Option<String>,
    pub code: Option<u64>,
    pub delay_ms: Option<u64>,
    pub attempt: Option<u64>,
    pub items: Option<u64>,
    pub objects: Option<u64>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub client_go: Option<String>,
    pub queue: Option<String>,
    pub due: Vec<String>,
    /// A watch-start's or list-start's watch-list (streaming list).
    pub watch_list: bool,
    /// A bookmark that ends a watch-list's initial events.
    pub initial_events_end: bool,
    /// An indexer line's values of each `--index` (`{"node":["node-a"]}`).
    pub indices: IndexValues,
}

/// An indexer line's values of each index; the summary's `indices` (counts per value, another
/// shape) reads as none.
#[derive(Debug, Clone, Default)]
pub struct IndexValues(pub BTreeMap<String, Vec<String>>);

impl<'de> Deserialize<'de> for IndexValues {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Values(BTreeMap<String, Vec<String>>),
            Other(serde::de::IgnoredAny),
        }
        Ok(match Shape::deserialize(deserializer)? {
            Shape::Values(values) => IndexValues(values),
            Shape::Other(_) => IndexValues::default(),
        })
    }
}

impl TraceLine {
    /// `stage/event`, as the summary counts name it.
    pub fn is(&self, stage: &str, event: &str) -> bool {
        self.stage == stage && self.event == event
    }

    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or("")
    }

    pub fn rv(&self) -> &str {
        self.rv.as_deref().unwrap_or("")
    }

    pub fn resource(&self) -> &str {
        self.resource.as_deref().unwrap_or("")
    }

    pub fn handler(&self) -> &str {
        self.handler.as_deref().unwrap_or("")
    }
}

impl Trace {
    /// Whether the trace is a Go tap's (docs/debug-go-controller.md): an informer inside a
    /// controller, seen from its wire and its handlers, with no queue or indexer lines.
    pub fn from_go_tap(&self) -> bool {
        self.lines
            .iter()
            .any(|l| l.is("informer", "started") && l.source.as_deref() == Some("tap"))
    }
}

fn micros_since_epoch<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    let ts: jiff::Timestamp = text.parse().map_err(serde::de::Error::custom)?;
    Ok(ts.as_microsecond())
}

/// A whole run: its lines in order, and its exit summaries as written.
#[derive(Debug, Default)]
pub struct Trace {
    pub lines: Vec<TraceLine>,
    /// The `summary` line (`counts`, `handlers`, `duration_ms`, …), when the run wrote one.
    pub summary: Option<serde_json::Value>,
    /// `kinformer proxy`'s `proxy-summary` lines.
    pub proxy_summaries: Vec<serde_json::Value>,
}

impl Trace {
    /// The resources the run's lines name, in order of first appearance.
    pub fn resources(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for line in &self.lines {
            if let Some(r) = &line.resource
                && !seen.contains(r)
            {
                seen.push(r.clone());
            }
        }
        seen
    }

    /// The time of the first and last line (µs since the epoch); (0, 0) when empty.
    pub fn span(&self) -> (i64, i64) {
        match (self.lines.first(), self.lines.last()) {
            (Some(first), Some(last)) => (first.ts, last.ts.max(first.ts)),
            _ => (0, 0),
        }
    }

    /// How many lines of each `stage/event` the trace holds.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for line in &self.lines {
            *counts
                .entry(format!("{}/{}", line.stage, line.event))
                .or_default() += 1;
        }
        counts
    }
}

/// What is wrong with a line that is not a trace line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// Builds a [`Trace`] line by line.
#[derive(Debug, Default)]
pub struct TraceReader {
    trace: Trace,
    read: usize,
}

impl TraceReader {
    /// Reads one JSONL line (without or with its newline); blank lines are skipped.
    pub fn push_line(&mut self, bytes: &[u8]) -> Result<(), LineError> {
        self.read += 1;
        let bytes = bytes.trim_ascii();
        if bytes.is_empty() {
            return Ok(());
        }
        let bad = |message: String| LineError {
            line: self.read,
            message,
        };
        let line: TraceLine = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("not a trace line (JSON: {e})")))?;
        if line.stage.is_empty() || line.event.is_empty() || line.seq == 0 {
            return Err(bad(
                "not a trace line: no seq, stage or event (expected `-o jsonl` output)".into(),
            ));
        }
        if matches!(line.event.as_str(), "summary" | "proxy-summary") {
            let value: serde_json::Value =
                serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
            if line.event == "summary" {
                self.trace.summary = Some(value);
            } else {
                self.trace.proxy_summaries.push(value);
            }
        }
        self.trace.lines.push(line);
        Ok(())
    }

    /// Reads every line of a JSONL text.
    pub fn push_text(&mut self, bytes: &[u8]) -> Result<(), LineError> {
        bytes.split(|b| *b == b'\n').try_for_each(|l| {
            if l.is_empty() {
                self.read += 1;
                Ok(())
            } else {
                self.push_line(l)
            }
        })
    }

    pub fn finish(self) -> Trace {
        self.trace
    }
}

/// Reads a whole JSONL trace.
pub fn parse_jsonl(bytes: &[u8]) -> Result<Trace, LineError> {
    let mut reader = TraceReader::default();
    reader.push_text(bytes)?;
    Ok(reader.finish())
}

/// An `io::Write` that reads whole JSONL lines into a [`TraceReader`] (a replay rendered as
/// JSONL); a line that does not parse is an `InvalidData` error.
#[derive(Debug, Default)]
pub struct TraceWriter {
    reader: TraceReader,
    partial: Vec<u8>,
}

impl TraceWriter {
    pub fn finish(mut self) -> Result<Trace, LineError> {
        let rest = std::mem::take(&mut self.partial);
        self.reader.push_line(&rest)?;
        Ok(self.reader.finish())
    }
}

impl std::io::Write for TraceWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = memchr::memchr(b'\n', &self.partial) {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.reader
                .push_line(&line)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_keeps_its_fields_and_drops_its_object() {
        let trace = parse_jsonl(
            br#"{"seq":3,"ts":"2026-11-22T10:00:01.000002Z","stage":"handler","event":"notify","resource":"pods","handler":"fast","kind":"update","key":"default/a","rv":"7","initial":false,"sync":true,"pending":4,"object":{"metadata":{"name":"a"}}}
"#,
        )
        .unwrap();
        let line = &trace.lines[0];
        assert!(line.is("handler", "notify"));
        assert_eq!(
            (line.key(), line.rv(), line.handler()),
            ("default/a", "7", "fast")
        );
        assert!(line.sync);
        assert_eq!(line.pending, Some(4));
        assert_eq!(line.ts % 1_000_000, 2);
    }

    #[test]
    fn a_go_taps_lines_keep_their_call_time_queue_time_and_diagnosis() {
        let trace = parse_jsonl(
            br#"{"seq":1,"ts":"2026-11-22T10:00:01Z","stage":"informer","event":"started","resource":"configmaps","name":"configmaps","client_go":"v0.37.2","source":"tap"}
{"seq":2,"ts":"2026-11-22T10:00:02Z","stage":"handler","event":"handled","resource":"configmaps","handler":"slow","kind":"add","key":"ns/a","rv":"5","sync":false,"pending":3,"latency_us":900,"call_us":100,"queue_us":800}
{"seq":3,"ts":"2026-11-22T10:00:03Z","stage":"diagnosis","event":"not-synced","resource":"configmaps","after_ms":10000,"cause":"403 Forbidden: the RBAC rules lack verb \"list\"","code":403}
"#,
        )
        .unwrap();
        assert!(trace.from_go_tap());
        let handled = &trace.lines[1];
        assert_eq!((handled.call_us, handled.queue_us), (Some(100), Some(800)));
        assert!(
            trace.lines[2]
                .cause
                .as_deref()
                .unwrap()
                .starts_with("403 Forbidden")
        );
        assert!(!parse_jsonl(b"").unwrap().from_go_tap());
    }

    #[test]
    fn a_line_that_is_not_a_trace_line_names_its_number() {
        let e = parse_jsonl(b"{\"seq\":1,\"ts\":\"2026-11-22T10:00:01Z\",\"stage\":\"informer\",\"event\":\"started\"}\nhello\n")
            .unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse_jsonl(b"{\"a\":1}\n").unwrap_err();
        assert!(e.message.contains("no seq, stage or event"), "{e}");
    }

    #[test]
    fn the_writer_reads_lines_split_across_writes() {
        use std::io::Write as _;
        let mut w = TraceWriter::default();
        let line = b"{\"seq\":1,\"ts\":\"2026-11-22T10:00:01Z\",\"stage\":\"summary\",\"event\":\"summary\",\"counts\":{}}\n";
        w.write_all(&line[..10]).unwrap();
        w.write_all(&line[10..]).unwrap();
        let trace = w.finish().unwrap();
        assert_eq!(trace.lines.len(), 1);
        assert!(trace.summary.is_some());
    }
}
