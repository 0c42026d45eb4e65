//! JSONL: one [`TraceEvent`] as exactly one JSON line.
//!
//! Lines are written straight into a byte buffer; serde_json is used only to escape strings and
//! to print `--diff` values. Object bytes are embedded verbatim (secrets redacted), with any
//! raw newline bytes (which JSON only allows as whitespace) dropped so a line is never split.

use std::io::Write as _;
use std::time::Duration;

use crate::informer::trace::Notification;
use crate::informer::trace::{Event, HandlerSummary, Summary, TraceEvent};

use super::diff::Change;
use super::redact::write_json_str;
use super::{ExtraLine, RenderOptions};

/// Appends `event` as one JSON line, newline included, to `buf`.
pub fn write_event(buf: &mut Vec<u8>, event: &TraceEvent, opts: &RenderOptions) {
    let mut line = Line::open(buf);
    line.u64("seq", event.seq);
    line.timestamp("ts", event.ts);
    line.str("stage", event.event.stage().as_str());
    line.str("event", event.event.name());
    if let Some(resource) = &event.resource {
        line.str("resource", resource);
    }
    write_fields(&mut line, &event.event, opts);
    line.close();
}

/// Appends an [`ExtraLine`] stamped `seq`/`ts` as one JSON line, newline included.
pub fn write_extra(buf: &mut Vec<u8>, seq: u64, ts: jiff::Timestamp, extra: &ExtraLine) {
    let mut line = Line::open(buf);
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

/// Appends the fields of a summary (`counts`, `handlers`, `duration_ms`) to an open line.
fn write_summary(line: &mut Line<'_>, summary: &Summary) {
    line.key("counts");
    line.buf.push(b'{');
    for (i, (name, n)) in summary.counts.iter().enumerate() {
        if i > 0 {
            line.buf.push(b',');
        }
        write_json_str(line.buf, name);
        let _ = write!(line.buf, ":{n}");
    }
    line.buf.push(b'}');
    line.key("handlers");
    line.buf.push(b'[');
    for (i, h) in summary.handlers.iter().enumerate() {
        if i > 0 {
            line.buf.push(b',');
        }
        write_handler_summary(line.buf, h);
    }
    line.buf.push(b']');
    line.u64("duration_ms", millis(summary.duration));
}

fn write_handler_summary(buf: &mut Vec<u8>, h: &HandlerSummary) {
    let mut obj = Line::open(buf);
    obj.str("name", &h.name);
    if let Some(resource) = &h.resource {
        obj.str("resource", resource);
    }
    obj.u64("notifications", h.notifications);
    obj.u64("adds", h.adds);
    obj.u64("updates", h.updates);
    obj.u64("deletes", h.deletes);
    obj.u64("syncs", h.syncs);
    obj.u64("handled", h.handled);
    obj.u64("panics", h.panics);
    obj.u64("dropped", h.dropped);
    obj.u64("max_pending", h.max_pending);
    obj.u64("mean_latency_us", micros(h.mean_latency));
    obj.buf.push(b'}');
}

fn write_fields(line: &mut Line<'_>, event: &Event, opts: &RenderOptions) {
    use Event::*;
    match event {
        ListStart {
            resource_version,
            resource_version_match,
            limit,
            watch_list,
        } => {
            line.str("rv", resource_version);
            if let Some(rv_match) = resource_version_match {
                line.str("rv_match", rv_match);
            }
            if let Some(limit) = limit {
                line.u64("limit", u64::from(*limit));
            }
            line.bool("watch_list", *watch_list);
        }
        ListPage { page, items, more } => {
            line.u64("page", u64::from(*page));
            line.usize("items", *items);
            line.bool("more", *more);
        }
        ListDone {
            items,
            pages,
            resource_version,
        } => {
            line.usize("items", *items);
            line.u64("pages", u64::from(*pages));
            line.str("rv", resource_version);
        }
        WatchStart {
            resource_version,
            timeout_seconds,
            watch_list,
        } => {
            line.str("rv", resource_version);
            line.u64("timeout_s", *timeout_seconds);
            line.bool("watch_list", *watch_list);
        }
        WatchEvent {
            event_type,
            key,
            resource_version,
        } => {
            line.str("type", event_type.as_str());
            line.str("key", key);
            line.str("rv", resource_version);
        }
        Bookmark {
            resource_version,
            initial_events_end,
        } => {
            line.str("rv", resource_version);
            line.bool("initial_events_end", *initial_events_end);
        }
        WatchEnd {
            resource_version,
            events,
            reason,
        } => {
            line.str("rv", resource_version);
            line.u64("events", *events);
            line.str("reason", reason);
        }
        WatchError {
            code,
            reason,
            message,
        } => {
            if let Some(code) = code {
                line.u64("code", u64::from(*code));
            }
            line.str("reason", reason);
            line.str("message", message);
        }
        Relist { reason } => line.str("reason", reason),
        Backoff {
            reason,
            delay_ms,
            attempt,
        } => {
            line.str("reason", reason);
            line.u64("delay_ms", *delay_ms);
            line.u64("attempt", u64::from(*attempt));
        }
        _ => write_queue_fields(line, event, opts),
    }
}

fn write_queue_fields(line: &mut Line<'_>, event: &Event, opts: &RenderOptions) {
    use Event::*;
    match event {
        Delta {
            delta_type,
            key,
            resource_version,
            depth,
            tombstone,
        } => {
            line.str("type", delta_type.as_str());
            line.str("key", key);
            line.str("rv", resource_version);
            line.usize("depth", *depth);
            line.flag("tombstone", *tombstone);
        }
        Pop {
            key,
            deltas,
            depth,
            initial,
            batch,
        } => {
            line.str("key", key);
            line.usize("deltas", *deltas);
            line.usize("depth", *depth);
            if let Some(batch) = batch {
                line.usize("batch", *batch);
            }
            line.bool("initial", *initial);
        }
        IndexerAdd {
            key,
            resource_version,
        } => {
            line.str("key", key);
            line.str("rv", resource_version);
        }
        IndexerUpdate {
            key,
            resource_version,
            old_resource_version,
        } => {
            line.str("key", key);
            line.str("rv", resource_version);
            line.str("old_rv", old_resource_version);
        }
        IndexerDelete {
            key,
            resource_version,
            tombstone,
        } => {
            line.str("key", key);
            line.str("rv", resource_version);
            line.flag("tombstone", *tombstone);
        }
        Notify {
            handler,
            notification,
            pending,
        } => write_notify(line, handler, notification, *pending, opts),
        _ => write_other_fields(line, event),
    }
}

fn write_notify(
    line: &mut Line<'_>,
    handler: &str,
    notification: &Notification,
    pending: usize,
    opts: &RenderOptions,
) {
    let obj = notification.object();
    line.str("handler", handler);
    line.str("kind", notification.kind().as_str());
    line.str("key", notification.key());
    line.str("rv", obj.resource_version());
    line.bool("initial", notification.is_initial());
    line.bool("sync", notification.is_sync());
    line.usize("pending", pending);
    line.flag("tombstone", notification.is_tombstone());
    line.object("object", &opts.object_bytes(obj.raw()));
    if let Notification::Update { old, new, .. } = notification {
        if opts.show_old {
            line.object("old", &opts.object_bytes(old.raw()));
        }
        if opts.diff {
            let changes = opts.changes(old.raw(), new.raw());
            line.key("diff");
            write_changes(line.buf, &changes);
        }
    }
}

/// Writes `--diff` changes as a JSON array of `{"path","old","new"}`.
pub(crate) fn write_changes(buf: &mut Vec<u8>, changes: &[Change]) {
    buf.push(b'[');
    for (i, c) in changes.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let mut obj = Line::open(buf);
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

fn write_other_fields(line: &mut Line<'_>, event: &Event) {
    use Event::*;
    match event {
        Handled {
            handler,
            kind,
            key,
            resource_version,
            sync,
            pending,
            latency,
            panicked,
        } => {
            line.str("handler", handler);
            line.str("kind", kind.as_str());
            line.str("key", key);
            line.str("rv", resource_version);
            line.bool("sync", *sync);
            line.usize("pending", *pending);
            line.u64("latency_us", micros(*latency));
            line.flag("panicked", *panicked);
        }
        ResyncTick { due, check_period } => {
            line.str_array("due", due.iter().map(|n| &**n));
            line.u64("check_period_ms", millis(*check_period));
        }
        SyncQueued { count } => line.usize("count", *count),
        Started {
            profile,
            queue,
            pop_batch,
            atomic_fifo,
            unlock_while_processing,
            watch_list,
            overrides,
        } => {
            if let Some(profile) = profile {
                line.str("client_go", profile);
            }
            line.str("queue", queue);
            line.bool("pop_batch", *pop_batch);
            line.bool("atomic_fifo", *atomic_fifo);
            line.bool("unlock_while_processing", *unlock_while_processing);
            line.bool("watch_list", *watch_list);
            line.str_array("overrides", overrides.iter().map(String::as_str));
        }
        Synced { objects } => line.usize("objects", *objects),
        _ => write_informer_fields(line, event),
    }
}

fn write_informer_fields(line: &mut Line<'_>, event: &Event) {
    use Event::*;
    match event {
        HandlerAdded {
            handler,
            requested_resync,
            effective_resync,
            check_period,
            after_start,
            adjustment,
        } => {
            line.str("handler", handler);
            line.u64("requested_resync_ms", millis(*requested_resync));
            line.u64("resync_ms", millis(*effective_resync));
            line.u64("check_period_ms", millis(*check_period));
            line.bool("after_start", *after_start);
            if let Some(adjustment) = adjustment {
                line.str("adjustment", adjustment);
            }
        }
        HandlerRemoved { handler } => line.str("handler", handler),
        ResyncPeriodChanged {
            handler,
            effective_resync,
            check_period,
        } => {
            line.str("handler", handler);
            line.u64("resync_ms", millis(*effective_resync));
            line.u64("check_period_ms", millis(*check_period));
        }
        Stopped { reason } => line.str("reason", reason),
        Summary(summary) => write_summary(line, summary),
        // Every other kind was written by an earlier match.
        _ => {}
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// A JSON object being written member by member.
struct Line<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Line<'a> {
    fn open(buf: &'a mut Vec<u8>) -> Self {
        buf.push(b'{');
        Self { buf, first: true }
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

    fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        write_json_str(self.buf, value);
    }

    fn u64(&mut self, key: &str, value: u64) {
        self.key(key);
        let _ = write!(self.buf, "{value}");
    }

    fn usize(&mut self, key: &str, value: usize) {
        self.u64(key, u64::try_from(value).unwrap_or(u64::MAX));
    }

    fn str_array<'s>(&mut self, key: &str, items: impl Iterator<Item = &'s str>) {
        self.key(key);
        self.buf.push(b'[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            write_json_str(self.buf, item);
        }
        self.buf.push(b']');
    }

    fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.buf
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    /// Writes `"key":true` only when `value` is set.
    fn flag(&mut self, key: &str, value: bool) {
        if value {
            self.bool(key, true);
        }
    }

    /// Embeds raw JSON bytes, dropping raw CR/LF (only ever whitespace in valid JSON).
    fn object(&mut self, key: &str, raw: &[u8]) {
        self.key(key);
        if raw.is_empty() {
            self.buf.extend_from_slice(b"null");
        } else {
            self.buf.extend_from_slice(&super::single_line(raw));
        }
    }

    /// `2026-11-22T10:00:01.234567Z`.
    fn timestamp(&mut self, key: &str, ts: jiff::Timestamp) {
        self.key(key);
        let dt = jiff::tz::Offset::UTC.to_datetime(ts);
        let _ = write!(
            self.buf,
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
}
