//! The page's timeline, computed from the trace: one lane per stage (reflector, queue,
//! indexer) and one per handler of every informer, each with a tick per event; markers for the
//! reflector's lifecycle, resync ticks, handler changes, syncs and sync storms; and the plots
//! (queue depth, PopBatch sizes, each handler's pending and handling latency).
//!
//! Times are microseconds after the trace's first line. The page's script only draws this.

use std::collections::HashMap;

use serde::Serialize;

use super::trace::{Trace, TraceLine};
use crate::output::sync_cause::{SyncCause, SyncCauses};

/// The tick styles, by index: a lane's `c` values point here (the page colours them by name).
pub const STYLES: [&str; 14] = [
    "watch-event",
    "list-page",
    "delta",
    "delta-replaced",
    "delta-deleted",
    "delta-sync",
    "pop",
    "indexer-add",
    "indexer-update",
    "indexer-delete",
    "notify-add",
    "notify-update",
    "notify-delete",
    "notify-sync",
];

/// Sync notifications to one handler closer together than this are one burst.
const STORM_GAP_US: i64 = 250_000;

/// A burst of at least this many sync notifications is marked (a resync or relist of that
/// many objects to one handler).
const BURST_SIZE: usize = 3;

/// A burst of at least this many is a sync storm.
const STORM_SIZE: usize = 50;

#[derive(Debug, Serialize)]
pub struct Timeline {
    /// The first line's time, µs since the epoch.
    pub t0: i64,
    /// How long the trace lasts (µs).
    pub span: i64,
    pub styles: &'static [&'static str],
    pub lanes: Vec<Lane>,
    pub markers: Vec<Marker>,
    pub plots: Vec<Plot>,
}

/// One row of the timeline.
#[derive(Debug, Serialize)]
pub struct Lane {
    pub label: String,
    /// `reflector`, `queue`, `indexer` or `handler`.
    pub stage: &'static str,
    /// The handler's name (handler lanes).
    pub handler: Option<String>,
    /// Each tick's time and style (an index into [`STYLES`]).
    pub t: Vec<i64>,
    pub c: Vec<u8>,
}

/// Something worth a flag on a lane.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Marker {
    pub t: i64,
    pub lane: usize,
    pub kind: &'static str,
    pub label: String,
}

/// A step plot over time.
#[derive(Debug, Serialize)]
pub struct Plot {
    pub title: String,
    /// `count` or `us`.
    pub unit: &'static str,
    /// What it plots: `queue-depth`, `batch`, `pending`, `latency`.
    pub what: &'static str,
    pub handler: Option<String>,
    pub t: Vec<i64>,
    pub v: Vec<u64>,
    pub max: u64,
}

impl Plot {
    fn new(title: String, what: &'static str, unit: &'static str, handler: Option<&str>) -> Self {
        Self {
            title,
            unit,
            what,
            handler: handler.map(str::to_owned),
            t: Vec::new(),
            v: Vec::new(),
            max: 0,
        }
    }

    fn push(&mut self, t: i64, v: u64) {
        self.t.push(t);
        self.v.push(v);
        self.max = self.max.max(v);
    }
}

/// The lanes and plots of one informer.
#[derive(Debug, Default)]
struct InformerLanes {
    reflector: usize,
    queue: usize,
    indexer: usize,
    depth: usize,
    batch: usize,
    handlers: HashMap<String, HandlerLanes>,
}

#[derive(Debug, Clone, Copy)]
struct HandlerLanes {
    lane: usize,
    pending: usize,
    latency: usize,
    /// The open burst of sync notifications: first time, last time, count.
    burst: Option<(i64, i64, usize)>,
}

struct Builder {
    t0: i64,
    several: bool,
    lanes: Vec<Lane>,
    markers: Vec<Marker>,
    plots: Vec<Plot>,
    informers: HashMap<String, InformerLanes>,
    /// What sent each handler's sync updates, and what sent each open burst (by lane).
    causes: SyncCauses,
    burst_causes: HashMap<usize, SyncCause>,
}

/// The timeline of `trace`.
pub fn timeline(trace: &Trace) -> Timeline {
    let (t0, t1) = trace.span();
    let mut b = Builder {
        t0,
        several: trace.resources().len() > 1,
        lanes: Vec::new(),
        markers: Vec::new(),
        plots: Vec::new(),
        informers: HashMap::new(),
        causes: SyncCauses::default(),
        burst_causes: HashMap::new(),
    };
    // A proxy's own requests (`client`) and the summaries belong to no lane.
    for line in &trace.lines {
        if line.stage != "summary" && line.stage != "client" {
            b.read(line);
        }
    }
    b.end_storms();
    b.drop_empty_lanes();
    Timeline {
        t0,
        span: t1 - t0,
        styles: &STYLES,
        lanes: b.lanes,
        markers: b.markers,
        plots: b.plots,
    }
}

impl Builder {
    fn read(&mut self, line: &TraceLine) {
        let t = line.ts - self.t0;
        let lanes = self.informer(line.resource());
        let (reflector, queue, indexer) = (lanes.reflector, lanes.queue, lanes.indexer);
        match line.stage.as_str() {
            "reflector" => self.reflector(line, t, reflector),
            "fifo" => self.queue(line, t, queue),
            "indexer" => self.tick(indexer, t, indexer_style(&line.event)),
            "handler" => self.handler(line, t),
            "resync" if line.event == "tick" => {
                let handlers = line.due.iter().map(String::as_str);
                self.causes.ticked(line.resource(), handlers);
                self.mark(
                    queue,
                    t,
                    "resync-tick",
                    format!("resync (due: {})", due(line)),
                );
            }
            "informer" => self.informer_event(line, t, indexer),
            _ => {}
        }
    }

    fn informer(&mut self, resource: &str) -> &InformerLanes {
        if !self.informers.contains_key(resource) {
            let lanes = InformerLanes {
                reflector: self.lane(resource, "reflector", None),
                queue: self.lane(resource, "queue", None),
                indexer: self.lane(resource, "indexer", None),
                depth: self.plot(resource, "queue depth", "queue-depth", "count", None),
                batch: self.plot(resource, "pop batch size", "batch", "count", None),
                handlers: HashMap::new(),
            };
            self.informers.insert(resource.to_owned(), lanes);
        }
        &self.informers[resource]
    }

    fn handler_lanes(&mut self, resource: &str, handler: &str) -> HandlerLanes {
        self.informer(resource);
        if let Some(h) = self.informers[resource].handlers.get(handler) {
            return *h;
        }
        let h = HandlerLanes {
            lane: self.lane(resource, "handler", Some(handler)),
            pending: self.plot(resource, "pending", "pending", "count", Some(handler)),
            latency: self.plot(resource, "handling latency", "latency", "us", Some(handler)),
            burst: None,
        };
        if let Some(lanes) = self.informers.get_mut(resource) {
            lanes.handlers.insert(handler.to_owned(), h);
        }
        h
    }

    fn title(&self, resource: &str, what: &str, handler: Option<&str>) -> String {
        let mut title = String::new();
        if self.several && !resource.is_empty() {
            title.push_str(resource);
            title.push(' ');
        }
        if let Some(h) = handler {
            title.push_str(&format!("handler {h} "));
        }
        title.push_str(what);
        title
    }

    fn lane(&mut self, resource: &str, stage: &'static str, handler: Option<&str>) -> usize {
        let label = match handler {
            Some(h) => self.title(resource, "", Some(h)).trim_end().to_owned(),
            None => self.title(resource, stage, None),
        };
        self.lanes.push(Lane {
            label,
            stage,
            handler: handler.map(str::to_owned),
            t: Vec::new(),
            c: Vec::new(),
        });
        self.lanes.len() - 1
    }

    fn plot(
        &mut self,
        resource: &str,
        what_title: &str,
        what: &'static str,
        unit: &'static str,
        handler: Option<&str>,
    ) -> usize {
        let title = self.title(resource, what_title, handler);
        self.plots.push(Plot::new(title, what, unit, handler));
        self.plots.len() - 1
    }

    fn tick(&mut self, lane: usize, t: i64, style: u8) {
        self.lanes[lane].t.push(t);
        self.lanes[lane].c.push(style);
    }

    fn mark(&mut self, lane: usize, t: i64, kind: &'static str, label: String) {
        self.markers.push(Marker {
            t,
            lane,
            kind,
            label,
        });
    }

    fn reflector(&mut self, line: &TraceLine, t: i64, lane: usize) {
        let kind: &'static str = match line.event.as_str() {
            "watch-event" => return self.tick(lane, t, 0),
            "list-page" => return self.tick(lane, t, 1),
            "watch-error" if line.code == Some(410) => "watch-error-410",
            "list-start" => "list-start",
            "list-done" => "list-done",
            "watch-start" => "watch-start",
            "watch-end" => "watch-end",
            "watch-error" => "watch-error",
            "list-error" => "list-error",
            "backoff" => "backoff",
            "relist" => {
                let reason = line.reason.as_deref().unwrap_or_default();
                self.causes.relisted(line.resource(), reason);
                "relist"
            }
            "bookmark" => "bookmark",
            "retry" => "retry",
            _ => return,
        };
        let label = reflector_label(line);
        self.mark(lane, t, kind, label);
    }

    fn queue(&mut self, line: &TraceLine, t: i64, lane: usize) {
        let plots = &self.informers[line.resource()];
        let (depth, batch) = (plots.depth, plots.batch);
        if let Some(d) = line.depth {
            self.plots[depth].push(t, d);
        }
        if line.event == "pop" {
            self.plots[batch].push(t, line.batch.or(line.deltas).unwrap_or(1));
            return self.tick(lane, t, 6);
        }
        let style = match line.kind_of_delta.as_deref() {
            _ if line.tombstone => 4,
            Some("Replaced" | "ReplacedAll") => 3,
            Some("Deleted") => 4,
            Some("Sync" | "SyncAll") => 5,
            _ => 2,
        };
        self.tick(lane, t, style);
    }

    fn handler(&mut self, line: &TraceLine, t: i64) {
        let h = self.handler_lanes(line.resource(), line.handler());
        if let Some(p) = line.pending {
            self.plots[h.pending].push(t, p);
        }
        match line.event.as_str() {
            "handled" => {
                if let Some(us) = line.latency_us {
                    self.plots[h.latency].push(t, us);
                }
            }
            "notify" => {
                let style = match line.kind.as_deref() {
                    _ if line.sync => 13,
                    Some("add") => 10,
                    Some("delete") => 12,
                    _ => 11,
                };
                self.tick(h.lane, t, style);
                if line.sync {
                    self.sync_notified(line, t);
                }
            }
            "slow-handler" => self.mark(h.lane, t, "slow-handler", "slow handler call".into()),
            _ => {}
        }
    }

    /// Counts a sync notification into its handler's burst; a gap ends the burst.
    fn sync_notified(&mut self, line: &TraceLine, t: i64) {
        let Some(h) = self
            .informers
            .get_mut(line.resource())
            .and_then(|i| i.handlers.get_mut(line.handler()))
        else {
            return;
        };
        let ended = match h.burst {
            Some((first, last, n)) if t - last <= STORM_GAP_US => {
                h.burst = Some((first, t, n + 1));
                None
            }
            previous => {
                h.burst = Some((t, t, 1));
                previous
            }
        };
        let (lane, opened) = (h.lane, h.burst.is_some_and(|(_, _, n)| n == 1));
        if let Some(burst) = ended {
            self.storm(lane, burst);
        }
        if opened && let Some(cause) = self.causes.of(line.resource(), line.handler()) {
            self.burst_causes.insert(lane, cause);
        }
    }

    fn end_storms(&mut self) {
        let open: Vec<(usize, (i64, i64, usize))> = self
            .informers
            .values_mut()
            .flat_map(|i| i.handlers.values_mut())
            .filter_map(|h| h.burst.take().map(|b| (h.lane, b)))
            .collect();
        for (lane, burst) in open {
            self.storm(lane, burst);
        }
        self.markers.sort_by_key(|m| (m.t, m.lane));
    }

    /// Leaves out the lanes nothing happened on (a proxy's informers have no queue or
    /// indexer the proxy can see).
    fn drop_empty_lanes(&mut self) {
        let marked: Vec<bool> = (0..self.lanes.len())
            .map(|i| self.markers.iter().any(|m| m.lane == i))
            .collect();
        let mut moved_to = Vec::with_capacity(self.lanes.len());
        let mut kept = 0;
        for (lane, marked) in self.lanes.iter().zip(&marked) {
            moved_to.push(kept);
            kept += usize::from(!lane.t.is_empty() || *marked);
        }
        let mut index = 0;
        self.lanes.retain(|lane| {
            index += 1;
            !lane.t.is_empty() || marked[index - 1]
        });
        for marker in &mut self.markers {
            marker.lane = moved_to[marker.lane];
        }
    }

    /// Marks the burst that ended on `lane`, when it has [`BURST_SIZE`] notifications or
    /// more, with what sent it and its size: `resync: 3 objects to slow`; a burst of
    /// [`STORM_SIZE`] or more is a sync storm.
    fn storm(&mut self, lane: usize, (first, _, n): (i64, i64, usize)) {
        let cause = self.burst_causes.remove(&lane);
        if n < BURST_SIZE {
            return;
        }
        let what = cause.map_or_else(|| "sync updates".to_owned(), |c| c.text());
        let what = what.strip_suffix(" tick").unwrap_or(&what).to_owned();
        let handler = self.lanes[lane].handler.clone().unwrap_or_default();
        let (kind, label) = if n >= STORM_SIZE {
            let label = format!(
                "sync storm: {n} objects to {handler} ({what}; a storm is {STORM_SIZE} or more)"
            );
            ("sync-storm", label)
        } else {
            ("sync-burst", format!("{what}: {n} objects to {handler}"))
        };
        self.mark(lane, first, kind, label);
    }

    fn informer_event(&mut self, line: &TraceLine, t: i64, indexer: usize) {
        match line.event.as_str() {
            "synced" => {
                let label = format!("synced ({} objects)", line.objects.unwrap_or(0));
                self.mark(indexer, t, "synced", label);
            }
            "handler-added" | "handler-removed" => {
                let h = self.handler_lanes(line.resource(), line.handler());
                let kind = if line.event == "handler-added" {
                    "handler-added"
                } else {
                    "handler-removed"
                };
                self.mark(
                    h.lane,
                    t,
                    kind,
                    format!("{} {}", line.event, line.handler()),
                );
            }
            "stopped" => {
                let reflector = self.informers[line.resource()].reflector;
                let label = format!("stopped: {}", line.reason.as_deref().unwrap_or(""));
                self.mark(reflector, t, "stopped", label);
            }
            _ => {}
        }
    }
}

fn indexer_style(event: &str) -> u8 {
    match event {
        "add" => 7,
        "delete" => 9,
        _ => 8,
    }
}

fn due(line: &TraceLine) -> String {
    if line.due.is_empty() {
        "none".into()
    } else {
        line.due.join(", ")
    }
}

/// A reflector marker's words.
fn reflector_label(line: &TraceLine) -> String {
    let reason = line.reason.as_deref().unwrap_or("");
    match line.event.as_str() {
        "list-start" => format!("LIST from rv {:?}", line.rv()),
        "list-done" => format!(
            "LIST done: {} items, rv {}",
            line.items.unwrap_or(0),
            line.rv()
        ),
        "watch-start" => format!("WATCH from rv {:?}", line.rv()),
        "watch-end" => format!("watch ended: {reason}"),
        "watch-error" | "list-error" => {
            let code = line.code.map(|c| format!(" {c}")).unwrap_or_default();
            let message = line.message.as_deref().unwrap_or("");
            format!("{}{code} {reason}: {message}", line.event)
        }
        "backoff" => format!(
            "backoff {}ms (attempt {}): {reason}",
            line.delay_ms.unwrap_or(0),
            line.attempt.unwrap_or(0)
        ),
        "relist" => format!("relist: {reason}"),
        "bookmark" => format!("bookmark rv {}", line.rv()),
        other => format!("{other} {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::trace::parse_jsonl;

    fn line(n: u64, ms: u32, body: &str) -> String {
        format!(
            "{{\"seq\":{n},\"ts\":\"2026-11-22T12:00:00.{ms:03}000Z\",\"resource\":\"pods\",{body}}}\n"
        )
    }

    /// The sync markers of a resync tick due for `slow`, then `n` sync updates to it.
    fn resync_of(n: u64) -> Vec<(&'static str, String)> {
        let mut text = line(
            1,
            0,
            r#""stage":"informer","event":"handler-added","handler":"slow""#,
        );
        text += &line(2, 1, r#""stage":"resync","event":"tick","due":["slow"]"#);
        for i in 0..n {
            let body = format!(
                r#""stage":"handler","event":"notify","handler":"slow","kind":"update","key":"p{i}","sync":true,"pending":1"#
            );
            text += &line(3 + i, 2, &body);
        }
        let tl = timeline(&parse_jsonl(text.as_bytes()).unwrap());
        tl.markers
            .into_iter()
            .filter(|m| m.kind.starts_with("sync-"))
            .map(|m| (m.kind, m.label))
            .collect()
    }

    #[test]
    fn a_small_resync_says_what_it_is_and_only_a_large_one_is_a_storm() {
        assert_eq!(
            resync_of(3),
            [("sync-burst", "resync: 3 objects to slow".to_owned())]
        );
        assert_eq!(
            resync_of(60),
            [(
                "sync-storm",
                "sync storm: 60 objects to slow (resync; a storm is 50 or more)".to_owned()
            )]
        );
    }

    #[test]
    fn a_relist_and_a_burst_of_syncs_are_marked() {
        let mut text = line(
            1,
            0,
            r#""stage":"informer","event":"handler-added","handler":"fast""#,
        );
        text += &line(
            2,
            10,
            r#""stage":"reflector","event":"watch-error","code":410,"reason":"Expired""#,
        );
        text += &line(
            3,
            11,
            r#""stage":"reflector","event":"relist","reason":"410 Expired""#,
        );
        for n in 0..4 {
            text += &line(
                4 + n,
                20 + u32::try_from(n).unwrap(),
                r#""stage":"handler","event":"notify","handler":"fast","kind":"update","key":"a","sync":true,"pending":3"#,
            );
        }
        let tl = timeline(&parse_jsonl(text.as_bytes()).unwrap());
        let kinds: Vec<&str> = tl.markers.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            ["handler-added", "watch-error-410", "relist", "sync-burst"]
        );
        let labels: Vec<&str> = tl.lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(
            labels,
            ["reflector", "handler fast"],
            "empty lanes left out"
        );
        assert_eq!(
            tl.markers[3].label,
            "relist after 410 Expired: 4 objects to fast"
        );
        let lanes: Vec<usize> = tl.markers.iter().map(|m| m.lane).collect();
        assert_eq!(lanes, [1, 0, 0, 1], "markers follow their lanes");
        let pending = tl.plots.iter().find(|p| p.what == "pending").unwrap();
        assert_eq!((pending.max, pending.t[0]), (3, 20_000));
    }
}
