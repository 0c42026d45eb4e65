//! The fields of every trace event, described once: [`Event::visit_fields`] walks an event's
//! fields in contract order and hands each to a [`FieldVisitor`]. The JSONL writer, the JSON/YAML
//! documents and the live table are visitors, so a field's name, type and order are spelled here
//! and nowhere else.
//!
//! A field's key is its JSONL key. Durations carry their unit as the key's suffix (`_s`, `_ms`,
//! `_us`): JSONL writes the number in that unit, a table strips the suffix and formats the
//! duration for people.

use std::time::Duration;

use super::event::{Event, HandlerSummary, InformerMetrics, Summary};
use crate::informer::notification::Notification;

/// Receives an event's fields, in order. Implemented by each output format.
pub trait FieldVisitor {
    /// A string (an identifier, a key, a resourceVersion or free text).
    fn str(&mut self, key: &'static str, value: &str);

    fn u64(&mut self, key: &'static str, value: u64);

    /// A boolean every event of its kind carries.
    fn bool(&mut self, key: &'static str, value: bool);

    /// A list of strings.
    fn strs(&mut self, key: &'static str, values: &[&str]);

    /// A duration; `key` ends in its unit (`_s`, `_ms` or `_us`).
    fn duration(&mut self, key: &'static str, value: Duration);

    /// The objects a notification carries (`object`, and `old` / `diff` when the output asks).
    fn notification(&mut self, notification: &Notification);

    /// The exit summary's `counts`, `handlers` and `duration_ms`.
    fn summary(&mut self, summary: &Summary);

    /// An `indexer` line's `indices`: each `--index`'s values for the object (nothing when
    /// there is no `--index`).
    fn indices(&mut self, indices: &[(String, Vec<String>)]);

    /// A boolean present only when true (`"tombstone":true`).
    fn flag(&mut self, key: &'static str, value: bool) {
        if value {
            self.bool(key, true);
        }
    }

    fn usize(&mut self, key: &'static str, value: usize) {
        self.u64(key, u64::try_from(value).unwrap_or(u64::MAX));
    }

    fn opt_str(&mut self, key: &'static str, value: Option<&str>) {
        if let Some(value) = value {
            self.str(key, value);
        }
    }

    fn opt_u64(&mut self, key: &'static str, value: Option<u64>) {
        if let Some(value) = value {
            self.u64(key, value);
        }
    }
}

/// How many whole `unit`s `value` holds, for a duration key ending in that unit.
pub fn duration_in_unit(key: &str, value: Duration) -> u64 {
    let n = if key.ends_with("_us") {
        value.as_micros()
    } else if key.ends_with("_ms") {
        value.as_millis()
    } else {
        u128::from(value.as_secs())
    };
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// `value` cut to the unit its key names, as JSONL writes it (a latency in whole µs).
pub fn duration_as_written(key: &str, value: Duration) -> Duration {
    let n = duration_in_unit(key, value);
    if key.ends_with("_us") {
        Duration::from_micros(n)
    } else if key.ends_with("_ms") {
        Duration::from_millis(n)
    } else {
        Duration::from_secs(n)
    }
}

/// A duration key without its unit suffix (`check_period_ms` → `check_period`).
pub fn duration_name(key: &str) -> &str {
    ["_us", "_ms", "_s"]
        .iter()
        .find_map(|unit| key.strip_suffix(unit))
        .unwrap_or(key)
}

impl Event {
    /// Hands every field of the event (after the common `seq`, `ts`, `stage`, `event`) to
    /// `v`, in the order of its JSONL line.
    pub fn visit_fields(&self, v: &mut impl FieldVisitor) {
        match self {
            Event::ListStart {
                resource_version,
                resource_version_match,
                limit,
                watch_list,
            } => {
                v.str("rv", resource_version);
                v.opt_str("rv_match", resource_version_match.as_deref());
                v.opt_u64("limit", limit.map(u64::from));
                v.bool("watch_list", *watch_list);
            }
            Event::ListPage { page, items, more } => {
                v.u64("page", u64::from(*page));
                v.usize("items", *items);
                v.bool("more", *more);
            }
            Event::ListDone {
                items,
                pages,
                resource_version,
            } => {
                v.usize("items", *items);
                v.u64("pages", u64::from(*pages));
                v.str("rv", resource_version);
            }
            Event::WatchStart {
                resource_version,
                timeout_seconds,
                watch_list,
            } => {
                v.str("rv", resource_version);
                v.duration("timeout_s", Duration::from_secs(*timeout_seconds));
                v.bool("watch_list", *watch_list);
            }
            Event::WatchEvent {
                event_type,
                key,
                resource_version,
            } => {
                v.str("type", event_type.as_str());
                v.str("key", key);
                v.str("rv", resource_version);
            }
            Event::Bookmark {
                resource_version,
                initial_events_end,
            } => {
                v.str("rv", resource_version);
                v.bool("initial_events_end", *initial_events_end);
            }
            Event::WatchEnd {
                resource_version,
                events,
                reason,
            } => {
                v.str("rv", resource_version);
                v.u64("events", *events);
                v.str("reason", reason);
            }
            Event::WatchError {
                code,
                reason,
                message,
            }
            | Event::ListError {
                code,
                reason,
                message,
            } => {
                v.opt_u64("code", code.map(u64::from));
                v.str("reason", reason);
                v.str("message", message);
            }
            Event::Relist { reason } | Event::Stopped { reason } => v.str("reason", reason),
            Event::Backoff {
                reason,
                delay_ms,
                attempt,
            } => {
                v.str("reason", reason);
                v.duration("delay_ms", Duration::from_millis(*delay_ms));
                v.u64("attempt", u64::from(*attempt));
            }
            Event::Retry {
                verb,
                attempt,
                delay_ms,
                reason,
            } => {
                v.str("verb", verb.as_str());
                v.u64("attempt", u64::from(*attempt));
                v.duration("delay_ms", Duration::from_millis(*delay_ms));
                v.str("reason", reason);
                v.bool("silent", true);
            }
            _ => self.visit_queue_fields(v),
        }
    }

    fn visit_queue_fields(&self, v: &mut impl FieldVisitor) {
        match self {
            Event::Delta {
                delta_type,
                key,
                resource_version,
                depth,
                tombstone,
            } => {
                v.str("type", delta_type.as_str());
                v.str("key", key);
                v.str("rv", resource_version);
                v.usize("depth", *depth);
                v.flag("tombstone", *tombstone);
            }
            Event::Pop {
                key,
                deltas,
                depth,
                initial,
                batch,
            } => {
                v.str("key", key);
                v.usize("deltas", *deltas);
                v.usize("depth", *depth);
                if let Some(batch) = batch {
                    v.usize("batch", *batch);
                }
                v.bool("initial", *initial);
            }
            Event::IndexerAdd {
                key,
                resource_version,
                indices,
            } => {
                v.str("key", key);
                v.str("rv", resource_version);
                v.indices(indices);
            }
            Event::IndexerUpdate {
                key,
                resource_version,
                old_resource_version,
                indices,
            } => {
                v.str("key", key);
                v.str("rv", resource_version);
                v.str("old_rv", old_resource_version);
                v.indices(indices);
            }
            Event::IndexerDelete {
                key,
                resource_version,
                tombstone,
                indices,
            } => {
                v.str("key", key);
                v.str("rv", resource_version);
                v.flag("tombstone", *tombstone);
                v.indices(indices);
            }
            _ => self.visit_handler_fields(v),
        }
    }

    fn visit_handler_fields(&self, v: &mut impl FieldVisitor) {
        match self {
            Event::Notify {
                handler,
                notification,
                pending,
            } => {
                v.str("handler", handler);
                v.str("kind", notification.kind().as_str());
                v.str("key", notification.key());
                v.str("rv", notification.object().resource_version());
                v.bool("initial", notification.is_initial());
                v.bool("sync", notification.is_sync());
                v.usize("pending", *pending);
                v.flag("tombstone", notification.is_tombstone());
                v.notification(notification);
            }
            Event::Handled {
                handler,
                kind,
                key,
                resource_version,
                sync,
                pending,
                latency,
                panicked,
            } => {
                v.str("handler", handler);
                v.str("kind", kind.as_str());
                v.str("key", key);
                v.str("rv", resource_version);
                v.bool("sync", *sync);
                v.usize("pending", *pending);
                v.duration("latency_us", *latency);
                v.flag("panicked", *panicked);
            }
            Event::ResyncTick { due, check_period } => {
                let due: Vec<&str> = due.iter().map(|n| &**n).collect();
                v.strs("due", &due);
                v.duration("check_period_ms", *check_period);
            }
            Event::SyncQueued { count } => v.usize("count", *count),
            _ => self.visit_informer_fields(v),
        }
    }

    fn visit_informer_fields(&self, v: &mut impl FieldVisitor) {
        match self {
            Event::Started {
                name,
                what_if,
                profile,
                queue,
                pop_batch,
                atomic_fifo,
                unlock_while_processing,
                watch_list,
                overrides,
            } => {
                v.opt_str("name", name.as_deref());
                v.opt_str("client_go", profile.as_deref());
                v.str("queue", queue);
                v.bool("pop_batch", *pop_batch);
                v.bool("atomic_fifo", *atomic_fifo);
                v.bool("unlock_while_processing", *unlock_while_processing);
                v.bool("watch_list", *watch_list);
                let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
                v.strs("overrides", &overrides);
                v.opt_str("what_if", what_if.as_deref());
            }
            Event::SlowHandler {
                handler,
                pending,
                call,
            } => {
                v.str("handler", handler);
                v.usize("pending", *pending);
                v.duration("call_ms", *call);
            }
            Event::Synced { objects, store_rv } => {
                v.usize("objects", *objects);
                v.opt_str("store_rv", store_rv.as_deref());
            }
            Event::HandlerAdded {
                handler,
                requested_resync,
                effective_resync,
                check_period,
                after_start,
                adjustment,
            } => {
                v.str("handler", handler);
                v.duration("requested_resync_ms", *requested_resync);
                v.duration("resync_ms", *effective_resync);
                v.duration("check_period_ms", *check_period);
                v.bool("after_start", *after_start);
                v.opt_str("adjustment", adjustment.as_deref());
            }
            Event::HandlerRemoved { handler } => v.str("handler", handler),
            Event::ResyncPeriodChanged {
                handler,
                effective_resync,
                check_period,
            } => {
                v.str("handler", handler);
                v.duration("resync_ms", *effective_resync);
                v.duration("check_period_ms", *check_period);
            }
            Event::Summary(summary) => v.summary(summary),
            _ => self.visit_proxy_fields(v),
        }
    }

    fn visit_proxy_fields(&self, v: &mut impl FieldVisitor) {
        match self {
            Event::Request {
                client,
                verb,
                path,
                code,
                bytes,
                duration,
            } => {
                v.str("client", client);
                v.str("verb", verb);
                v.str("path", path);
                v.u64("code", u64::from(*code));
                v.u64("bytes", *bytes);
                v.duration("duration_ms", *duration);
            }
            Event::ProxySummary(s) => {
                v.str("client", &s.client);
                v.opt_str("stream", s.stream.as_deref());
                v.str("user_agent", &s.user_agent);
                v.u64("lists", s.lists);
                v.u64("watches", s.watches);
                v.u64("events", s.events);
                v.u64("relists", s.relists);
                v.u64("errors", s.errors);
                v.u64("requests", s.requests);
                v.u64("bytes", s.bytes);
            }
            // Every other kind was visited by an earlier match.
            _ => {}
        }
    }
}

impl HandlerSummary {
    /// Hands the figures of one handler's summary to `v`, in the order of the JSONL object.
    pub fn visit_fields(&self, v: &mut impl FieldVisitor) {
        v.str("name", &self.name);
        v.opt_str("resource", self.resource.as_deref());
        v.u64("notifications", self.notifications);
        v.u64("adds", self.adds);
        v.u64("updates", self.updates);
        v.u64("deletes", self.deletes);
        v.u64("syncs", self.syncs);
        v.u64("handled", self.handled);
        v.u64("panics", self.panics);
        v.u64("dropped", self.dropped);
        v.u64("max_pending", self.max_pending);
        v.duration("mean_latency_us", self.mean_latency);
    }
}

impl InformerMetrics {
    /// Hands one informer's metrics to `v`, in the order of the JSONL object: client-go's
    /// metric names, the latency histogram as its count, mean and largest observation.
    pub fn visit_fields(&self, v: &mut impl FieldVisitor) {
        v.opt_str("resource", self.resource.as_deref());
        v.opt_str("name", self.name.as_deref());
        v.u64("informer_queued_items", self.queued_items);
        v.u64("informer_processing_latency_seconds_count", self.processed);
        v.duration("informer_processing_latency_mean_us", self.mean_processing);
        v.duration("informer_processing_latency_max_us", self.max_processing);
        v.opt_u64(
            "informer_store_resource_version",
            self.store_resource_version,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_key_names_its_unit() {
        let d = Duration::from_micros(2_500_300);
        assert_eq!(duration_in_unit("latency_us", d), 2_500_300);
        assert_eq!(duration_in_unit("delay_ms", d), 2_500);
        assert_eq!(duration_in_unit("timeout_s", d), 2);
        assert_eq!(
            duration_as_written("delay_ms", d),
            Duration::from_millis(2_500)
        );
        assert_eq!(duration_name("check_period_ms"), "check_period");
        assert_eq!(duration_name("timeout_s"), "timeout");
        assert_eq!(duration_name("latency_us"), "latency");
    }
}
