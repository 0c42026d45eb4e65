//! JSONL: one [`TraceEvent`] as exactly one JSON line, its fields as
//! [`Event::visit_fields`](crate::informer::trace::Event::visit_fields) describes them.
//!
//! Lines are written straight into a byte buffer; serde_json is used only to escape strings and
//! to print `--diff` values. Object bytes are embedded verbatim (secrets redacted), with any
//! raw newline bytes (which JSON only allows as whitespace) dropped so a line is never split.

use std::io::Write as _;
use std::time::Duration;

use crate::informer::trace::{FieldVisitor, Notification, Summary, TraceEvent, duration_in_unit};

use super::diff::Change;
use super::options::{ExtraLine, NotificationMember, RenderOptions};
use crate::json_scan::single_line;
use crate::redact::write_json_str;

/// Appends `event` as one JSON line, newline included, to `buf`.
pub fn write_event(buf: &mut Vec<u8>, event: &TraceEvent, opts: &RenderOptions) {
    let mut line = Line::open(buf, opts);
    line.u64("seq", event.seq);
    line.timestamp("ts", event.ts);
    line.str("stage", event.event.stage().as_str());
    line.str("event", event.event.name());
    line.opt_str("resource", event.resource.as_deref());
    event.event.visit_fields(&mut line);
    line.close();
}

/// Appends an [`ExtraLine`] stamped `seq`/`ts` as one JSON line, newline included.
pub fn write_extra(
    buf: &mut Vec<u8>,
    seq: u64,
    ts: jiff::Timestamp,
    extra: &ExtraLine,
    opts: &RenderOptions,
) {
    let mut line = Line::open(buf, opts);
    line.u64("seq", seq);
    line.timestamp("ts", ts);
    line.str("stage", extra.stage);
    line.str("event", extra.event);
    for (key, value) in &extra.fields {
        line.key(key);
        let _ = serde_json::to_writer(&mut *line.buf, value);
    }
    line.close();
}

impl Line<'_> {
    /// The summary's `indices`: `{"INDEX":{"VALUE":COUNT,…},…}` (absent without `--index`).
    fn index_counts(&mut self, indices: &[(String, Vec<(String, usize)>)]) {
        if indices.is_empty() {
            return;
        }
        self.key("indices");
        self.buf.push(b'{');
        for (i, (name, counts)) in indices.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            write_json_str(self.buf, name);
            self.buf.extend_from_slice(b":{");
            for (j, (value, n)) in counts.iter().enumerate() {
                if j > 0 {
                    self.buf.push(b',');
                }
                write_json_str(self.buf, value);
                let _ = write!(self.buf, ":{n}");
            }
            self.buf.push(b'}');
        }
        self.buf.push(b'}');
    }
}

impl FieldVisitor for Line<'_> {
    fn indices(&mut self, indices: &[(String, Vec<String>)]) {
        if indices.is_empty() {
            return;
        }
        self.key("indices");
        self.buf.push(b'{');
        for (i, (name, values)) in indices.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            write_json_str(self.buf, name);
            self.buf.push(b':');
            let shown = self.opts.index_values(name, values);
            let _ = serde_json::to_writer(&mut *self.buf, &*shown);
        }
        self.buf.push(b'}');
    }

    fn str(&mut self, key: &'static str, value: &str) {
        self.key(key);
        write_json_str(self.buf, value);
    }

    fn u64(&mut self, key: &'static str, value: u64) {
        self.key(key);
        let _ = write!(self.buf, "{value}");
    }

    fn bool(&mut self, key: &'static str, value: bool) {
        self.key(key);
        self.buf
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn strs(&mut self, key: &'static str, values: &[&str]) {
        self.key(key);
        self.buf.push(b'[');
        for (i, item) in values.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            write_json_str(self.buf, item);
        }
        self.buf.push(b']');
    }

    fn duration(&mut self, key: &'static str, value: Duration) {
        self.u64(key, duration_in_unit(key, value));
    }

    fn notification(&mut self, notification: &Notification) {
        for member in NotificationMember::of(notification, self.opts) {
            match member {
                NotificationMember::Object(key, raw) => self.object(key, &raw),
                NotificationMember::Diff(changes) => {
                    self.key("diff");
                    write_changes(self.buf, &changes, self.opts);
                }
            }
        }
    }

    fn summary(&mut self, summary: &Summary) {
        self.key("counts");
        self.buf.push(b'{');
        for (i, (name, n)) in summary.counts.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            write_json_str(self.buf, name);
            let _ = write!(self.buf, ":{n}");
        }
        self.buf.push(b'}');
        self.key("handlers");
        self.buf.push(b'[');
        for (i, h) in summary.handlers.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            let mut obj = Line::open(&mut *self.buf, self.opts);
            h.visit_fields(&mut obj);
            obj.buf.push(b'}');
        }
        self.buf.push(b']');
        if !summary.metrics.is_empty() {
            self.key("metrics");
            self.buf.push(b'[');
            for (i, m) in summary.metrics.iter().enumerate() {
                if i > 0 {
                    self.buf.push(b',');
                }
                let mut obj = Line::open(&mut *self.buf, self.opts);
                m.visit_fields(&mut obj);
                obj.buf.push(b'}');
            }
            self.buf.push(b']');
        }
        self.duration("duration_ms", summary.duration);
        self.index_counts(&self.opts.shown_summary(summary).indices);
        if !summary.stop_reason.is_empty() {
            self.str("stop_reason", &summary.stop_reason);
        }
    }
}

/// Writes `--diff` changes as a JSON array of `{"path","old","new"}`.
fn write_changes(buf: &mut Vec<u8>, changes: &[Change], opts: &RenderOptions) {
    buf.push(b'[');
    for (i, c) in changes.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let mut obj = Line::open(buf, opts);
        obj.str("path", &c.path);
        obj.flag("redacted", c.redacted);
        for (name, value) in [("old", &c.old), ("new", &c.new)] {
            if let Some(v) = value {
                obj.key(name);
                let _ = serde_json::to_writer(&mut *obj.buf, v);
            }
        }
        obj.buf.push(b'}');
    }
    buf.push(b']');
}

/// A JSON object being written member by member.
struct Line<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
    opts: &'a RenderOptions,
}

impl<'a> Line<'a> {
    fn open(buf: &'a mut Vec<u8>, opts: &'a RenderOptions) -> Self {
        buf.push(b'{');
        Self {
            buf,
            first: true,
            opts,
        }
    }

    fn close(self) {
        self.buf.extend_from_slice(b"}\n");
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\":");
    }

    /// Embeds raw JSON bytes, dropping raw CR/LF (only ever whitespace in valid JSON).
    fn object(&mut self, key: &str, raw: &[u8]) {
        self.key(key);
        if raw.is_empty() {
            self.buf.extend_from_slice(b"null");
        } else {
            self.buf.extend_from_slice(&single_line(raw));
        }
    }

    fn timestamp(&mut self, key: &str, ts: jiff::Timestamp) {
        self.key(key);
        write_timestamp(self.buf, ts);
    }
}

/// Writes `ts` as a JSON string, `"2026-11-22T10:00:01.234567Z"` (UTC, microseconds).
pub(crate) fn write_timestamp(buf: &mut Vec<u8>, ts: jiff::Timestamp) {
    let dt = jiff::tz::Offset::UTC.to_datetime(ts);
    let _ = write!(
        buf,
        "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z\"",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1000
    );
}
