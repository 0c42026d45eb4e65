//! `-o json` / `-o yaml`: each trace event as an order-preserving document built from
//! [`Event::visit_fields`](crate::informer::trace::Event::visit_fields) — the same fields, in the
//! same order, as its JSONL line, without writing and re-reading JSON.

use std::io;
use std::time::Duration;

use serde::Deserialize as _;

use crate::informer::trace::{FieldVisitor, Notification, Summary, TraceEvent, duration_in_unit};

use super::diff::Change;
use super::options::{ExtraLine, NotificationMember, OutputFormat, RenderOptions};
use super::ordered::OrderedValue;

/// The document of one event.
pub fn event_document(event: &TraceEvent, opts: &RenderOptions) -> OrderedValue {
    let mut doc = Members::new(opts);
    doc.u64("seq", event.seq);
    doc.push("ts", OrderedValue::String(timestamp(event.ts)));
    doc.str("stage", event.event.stage().as_str());
    doc.str("event", event.event.name());
    doc.opt_str("resource", event.resource.as_deref());
    event.event.visit_fields(&mut doc);
    doc.into_value()
}

/// The document of an [`ExtraLine`] stamped `seq`/`ts`.
pub fn extra_document(
    seq: u64,
    ts: jiff::Timestamp,
    extra: &ExtraLine,
    opts: &RenderOptions,
) -> OrderedValue {
    let mut doc = Members::new(opts);
    doc.u64("seq", seq);
    doc.push("ts", OrderedValue::String(timestamp(ts)));
    doc.str("stage", extra.stage);
    doc.str("event", extra.event);
    for (key, value) in &extra.fields {
        let value = OrderedValue::deserialize(value).unwrap_or(OrderedValue::Null);
        doc.push(key, value);
    }
    doc.into_value()
}

/// `2026-11-22T10:00:01.234567Z`, as in JSONL.
fn timestamp(ts: jiff::Timestamp) -> String {
    let mut buf = Vec::new();
    super::jsonl::write_timestamp(&mut buf, ts);
    String::from_utf8_lossy(&buf).trim_matches('"').to_owned()
}

/// An object's members being collected.
struct Members<'o> {
    members: Vec<(String, OrderedValue)>,
    opts: &'o RenderOptions,
}

impl<'o> Members<'o> {
    fn new(opts: &'o RenderOptions) -> Self {
        Self {
            members: Vec::new(),
            opts,
        }
    }

    fn push(&mut self, key: &str, value: OrderedValue) {
        self.members.push((key.to_owned(), value));
    }

    fn into_value(self) -> OrderedValue {
        OrderedValue::Object(self.members)
    }
}

impl FieldVisitor for Members<'_> {
    fn indices(&mut self, indices: &[(String, Vec<String>)]) {
        if indices.is_empty() {
            return;
        }
        let members = indices
            .iter()
            .map(|(name, values)| {
                let shown = self.opts.index_values(name, values);
                let items = shown.iter().cloned().map(OrderedValue::String).collect();
                (name.clone(), OrderedValue::Array(items))
            })
            .collect();
        self.push("indices", OrderedValue::Object(members));
    }

    fn str(&mut self, key: &'static str, value: &str) {
        self.push(key, OrderedValue::String(value.to_owned()));
    }

    fn u64(&mut self, key: &'static str, value: u64) {
        self.push(key, OrderedValue::Number(value.into()));
    }

    fn bool(&mut self, key: &'static str, value: bool) {
        self.push(key, OrderedValue::Bool(value));
    }

    fn strs(&mut self, key: &'static str, values: &[&str]) {
        let items = values
            .iter()
            .map(|v| OrderedValue::String((*v).to_owned()))
            .collect();
        self.push(key, OrderedValue::Array(items));
    }

    fn duration(&mut self, key: &'static str, value: Duration) {
        self.u64(key, duration_in_unit(key, value));
    }

    fn notification(&mut self, notification: &Notification) {
        for member in NotificationMember::of(notification, self.opts) {
            match member {
                NotificationMember::Object(key, raw) => {
                    let value = if raw.is_empty() {
                        OrderedValue::Null
                    } else {
                        OrderedValue::from_slice(&raw).unwrap_or(OrderedValue::Null)
                    };
                    self.push(key, value);
                }
                NotificationMember::Diff(changes) => self.push("diff", changes_value(&changes)),
            }
        }
    }

    fn summary(&mut self, summary: &Summary) {
        let counts = summary
            .counts
            .iter()
            .map(|(name, n)| (name.clone(), OrderedValue::Number((*n).into())))
            .collect();
        self.push("counts", OrderedValue::Object(counts));
        let handlers = summary
            .handlers
            .iter()
            .map(|h| {
                let mut figures = Members::new(self.opts);
                h.visit_fields(&mut figures);
                figures.into_value()
            })
            .collect();
        self.push("handlers", OrderedValue::Array(handlers));
        if !summary.metrics.is_empty() {
            let metrics = summary
                .metrics
                .iter()
                .map(|m| {
                    let mut figures = Members::new(self.opts);
                    m.visit_fields(&mut figures);
                    figures.into_value()
                })
                .collect();
            self.push("metrics", OrderedValue::Array(metrics));
        }
        self.duration("duration_ms", summary.duration);
        let shown = self.opts.shown_summary(summary);
        if !shown.indices.is_empty() {
            let indices = shown
                .indices
                .iter()
                .map(|(name, counts)| {
                    let values = counts
                        .iter()
                        .map(|(v, n)| (v.clone(), OrderedValue::Number((*n).into())))
                        .collect();
                    (name.clone(), OrderedValue::Object(values))
                })
                .collect();
            self.push("indices", OrderedValue::Object(indices));
        }
        if !summary.stop_reason.is_empty() {
            self.str("stop_reason", &summary.stop_reason);
        }
    }
}

/// `--diff` changes as an array of `{path, redacted?, old?, new?}`.
fn changes_value(changes: &[Change]) -> OrderedValue {
    let items = changes
        .iter()
        .map(|c| {
            let mut members = vec![("path".to_owned(), OrderedValue::String(c.path.clone()))];
            if c.redacted {
                members.push(("redacted".to_owned(), OrderedValue::Bool(true)));
            }
            for (name, value) in [("old", &c.old), ("new", &c.new)] {
                if let Some(v) = value {
                    let v = OrderedValue::deserialize(v).unwrap_or(OrderedValue::Null);
                    members.push((name.to_owned(), v));
                }
            }
            OrderedValue::Object(members)
        })
        .collect();
    OrderedValue::Array(items)
}

/// Writes one value as pretty JSON (newline-terminated) or as a `---`-led YAML document.
pub fn write_document(
    out: &mut Vec<u8>,
    value: &OrderedValue,
    format: OutputFormat,
) -> io::Result<()> {
    if format == OutputFormat::Yaml {
        let yaml = serde_saphyr::to_string(value).map_err(io::Error::other)?;
        out.extend_from_slice(b"---\n");
        out.extend_from_slice(yaml.as_bytes());
        if !yaml.ends_with('\n') {
            out.push(b'\n');
        }
    } else {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
        out.push(b'\n');
    }
    Ok(())
}
