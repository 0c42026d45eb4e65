//! One object's story, told from a run's trace: each server state (resourceVersion) it had,
//! each delta, each indexer write, each notification per handler with why it was sent (or why
//! a handler did not get one), each tombstone, and its final cached state.
//!
//! [`stories`] tells every object's story in one pass over the trace. `kinformer explain`
//! prints one of them; the report page embeds all of them and its search only looks them up,
//! so both say the same words.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::trace::{Trace, TraceLine};
use crate::duration::format_duration;

/// What a step of a story is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// A state of the object on the server (a watch event, or a LIST that held it).
    Server,
    /// A delta entered the queue (DeltaFIFO / RealFIFO).
    Delta,
    /// The process loop popped the object's deltas.
    Pop,
    /// The indexer (the local cache) was written.
    Indexer,
    /// A notification was queued for a handler (and, later, handled).
    Notify,
    /// A handler did not get a notification the others got, and why.
    NotDelivered,
    /// The object's state in the cache when the trace ends.
    Final,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Server => "server",
            StepKind::Delta => "delta",
            StepKind::Pop => "pop",
            StepKind::Indexer => "indexer",
            StepKind::Notify => "notify",
            StepKind::NotDelivered => "not-delivered",
            StepKind::Final => "final",
        }
    }
}

/// One step: when, what, for which handler, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The `seq` of the trace line it comes from.
    pub seq: u64,
    /// µs since the epoch.
    pub ts: i64,
    pub kind: StepKind,
    pub handler: Option<String>,
    pub text: String,
}

/// One object's story in one informer (a key may exist in several resources).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Story {
    pub resource: String,
    pub key: String,
    pub steps: Vec<Step>,
}

/// Every object's story, ordered by key then resource.
pub fn stories(trace: &Trace) -> Vec<Story> {
    let mut teller = Teller::default();
    for line in &trace.lines {
        teller.read(line);
    }
    teller.finish()
}

/// `ts` as `HH:MM:SS.mmm` (UTC).
pub fn clock(ts: i64) -> String {
    let Ok(t) = jiff::Timestamp::from_microsecond(ts) else {
        return "?".into();
    };
    let dt = jiff::tz::Offset::UTC.to_datetime(t);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1_000_000
    )
}

/// Why an update with equal resourceVersions was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SyncCause {
    /// A resync tick (its time, the handlers due).
    Resync { at: i64, due: Vec<String> },
    /// A relist (or the initial list) brought the object back unchanged.
    Relist { at: Option<i64> },
}

/// The sync notifications one cause sent for one object, until the next step of it.
#[derive(Debug)]
struct Round {
    cause: SyncCause,
    notified: Vec<String>,
    /// Handlers registered after this seq did not exist when the round began.
    since: u64,
}

/// What the teller knows of one object.
#[derive(Debug, Default)]
struct ObjectState {
    steps: Vec<Step>,
    server_rv: Option<String>,
    /// The type and seq of the last delta queued for the key.
    last_delta: Option<(String, u64)>,
    /// The seq of the last indexer write, the resourceVersion it left and whether it removed.
    last_write: Option<(u64, String, bool, i64)>,
    old_rv: Option<String>,
    round: Option<Round>,
}

/// A registered handler.
#[derive(Debug, Clone)]
struct Registered {
    name: String,
    added_seq: u64,
    added_at: i64,
    after_start: bool,
}

/// What the teller knows of one informer.
#[derive(Debug, Default)]
struct InformerState {
    handlers: Vec<Registered>,
    /// The last relist (its time).
    relist_at: Option<i64>,
    /// Whether a watch-list is sending its initial events (until its `initial-events-end`
    /// bookmark).
    watch_list_initial: bool,
    /// The last resync check: its time and the handlers due (client-go's syncing set).
    last_tick: Option<(i64, Vec<String>)>,
    /// The last delta for the whole queue (ReplacedAll, SyncAll): type, seq, time.
    queue_wide: Option<(String, u64, i64)>,
    /// Per handler, the notify steps not handled yet: (object id, step index).
    outstanding: HashMap<String, VecDeque<(usize, usize)>>,
}

#[derive(Debug, Default)]
struct Teller {
    /// Whether the trace has `handled` and `indexer` lines at all (a narrower `--show` than
    /// `all` leaves them out, and then their absence says nothing).
    saw_handled: bool,
    saw_indexer: bool,
    ids: HashMap<(String, String), usize>,
    objects: Vec<((String, String), ObjectState)>,
    informers: HashMap<String, InformerState>,
}

impl Teller {
    fn read(&mut self, line: &TraceLine) {
        self.saw_handled |= line.is("handler", "handled");
        self.saw_indexer |= line.stage == "indexer";
        match (line.stage.as_str(), line.event.as_str()) {
            ("reflector", "watch-event") => self.watch_event(line),
            ("reflector", "relist") => self.informer(line).relist_at = Some(line.ts),
            ("reflector", "watch-start") => {
                self.informer(line).watch_list_initial = line.watch_list
            }
            ("reflector", "bookmark" | "watch-end" | "watch-error") => {
                let informer = self.informer(line);
                informer.watch_list_initial &= !line.initial_events_end && line.event == "bookmark";
            }
            ("fifo", "delta") => self.delta(line),
            ("fifo", "pop") => self.pop(line),
            ("indexer", _) => self.indexer_write(line),
            ("handler", "notify") => self.notify(line),
            ("handler", "handled") => self.handled(line),
            ("resync", "tick") => self.informer(line).last_tick = Some((line.ts, line.due.clone())),
            ("informer", "handler-added") => self.handler_added(line),
            ("informer", "handler-removed") => {
                let handler = line.handler().to_owned();
                self.informer(line).handlers.retain(|h| h.name != handler);
            }
            _ => {}
        }
    }

    fn informer(&mut self, line: &TraceLine) -> &mut InformerState {
        self.informers
            .entry(line.resource().to_owned())
            .or_default()
    }

    fn id(&mut self, line: &TraceLine) -> usize {
        let key = (line.resource().to_owned(), line.key().to_owned());
        let next = self.objects.len();
        let id = *self.ids.entry(key.clone()).or_insert(next);
        if id == next {
            self.objects.push((key, ObjectState::default()));
        }
        id
    }

    /// Adds a step to the object's story; any other step than a sync notification ends the
    /// current round of them.
    fn push(&mut self, id: usize, line: &TraceLine, kind: StepKind, text: String) -> usize {
        if kind != StepKind::Notify {
            self.close_round(id, line.resource());
        }
        let steps = &mut self.objects[id].1.steps;
        steps.push(Step {
            seq: line.seq,
            ts: line.ts,
            kind,
            handler: line.handler.clone().filter(|_| kind == StepKind::Notify),
            text,
        });
        steps.len() - 1
    }

    fn handler_added(&mut self, line: &TraceLine) {
        let registered = Registered {
            name: line.handler().to_owned(),
            added_seq: line.seq,
            added_at: line.ts,
            after_start: line.after_start,
        };
        self.informer(line).handlers.push(registered);
    }

    fn watch_event(&mut self, line: &TraceLine) {
        let id = self.id(line);
        let kind = line.kind_of_delta.as_deref().unwrap_or("?");
        let informer = self.informer(line);
        let what = match (informer.watch_list_initial, informer.relist_at) {
            (true, Some(at)) => {
                format!(
                    "an initial event of the watch-list of the relist at {}",
                    clock(at)
                )
            }
            (true, None) => "an initial event of the initial watch-list".into(),
            (false, _) => "watch event".into(),
        };
        let text = format!("{kind} at rv {} ({what})", line.rv());
        self.objects[id].1.server_rv = Some(line.rv().to_owned());
        self.push(id, line, StepKind::Server, text);
    }

    fn delta(&mut self, line: &TraceLine) {
        let kind = line.kind_of_delta.clone().unwrap_or_default();
        if line.key().is_empty() {
            self.informer(line).queue_wide = Some((kind, line.seq, line.ts));
            return;
        }
        let id = self.id(line);
        let relist_at = self.informer(line).relist_at;
        let listed = kind == "Replaced" && !line.tombstone;
        if listed && self.objects[id].1.server_rv.as_deref() != Some(line.rv()) {
            let text = format!("listed at rv {} by {}", line.rv(), list_name(relist_at));
            self.objects[id].1.server_rv = Some(line.rv().to_owned());
            self.push(id, line, StepKind::Server, text);
        }
        let text = self.delta_text(line, &kind, relist_at);
        self.objects[id].1.last_delta = Some((kind, line.seq));
        self.push(id, line, StepKind::Delta, text);
    }

    fn delta_text(&mut self, line: &TraceLine, kind: &str, relist_at: Option<i64>) -> String {
        let depth = line.depth.unwrap_or(0);
        let tick = self.informer(line).last_tick.as_ref().map(|(at, _)| *at);
        match kind {
            _ if line.tombstone => format!(
                "queued a Deleted delta holding a tombstone (DeletedFinalStateUnknown, last known rv {}): {} did not list it (queue depth {depth})",
                line.rv(),
                list_name(relist_at)
            ),
            "Replaced" => format!(
                "queued a Replaced delta, rv {} (from {}; queue depth {depth})",
                line.rv(),
                list_name(relist_at)
            ),
            "Sync" => format!(
                "queued a Sync delta, rv {} (the resync{}; queue depth {depth})",
                line.rv(),
                tick.map(|t| format!(" tick at {}", clock(t)))
                    .unwrap_or_default()
            ),
            _ => format!(
                "queued {} {kind} delta, rv {} (queue depth {depth})",
                article(kind),
                line.rv()
            ),
        }
    }

    fn pop(&mut self, line: &TraceLine) {
        if line.key().is_empty() || line.batch.unwrap_or(1) > 1 {
            return;
        }
        let id = self.id(line);
        let n = line.deltas.unwrap_or(1);
        let text = format!(
            "popped with {n} delta{} (queue depth after: {})",
            if n == 1 { "" } else { "s" },
            line.depth.unwrap_or(0)
        );
        self.push(id, line, StepKind::Pop, text);
    }

    fn indexer_write(&mut self, line: &TraceLine) {
        let id = self.id(line);
        let removed = line.event == "delete";
        if !removed
            && self.objects[id].1.server_rv.as_deref() != Some(line.rv())
            && let Some(text) = self.listed_whole_text(line)
        {
            self.objects[id].1.server_rv = Some(line.rv().to_owned());
            self.push(id, line, StepKind::Server, text);
        }
        let text = match line.event.as_str() {
            "add" => format!("added at rv {}", line.rv()),
            "update" if line.old_rv.as_deref() == Some(line.rv()) => format!(
                "rewritten at the same rv {} (an update with equal resourceVersions)",
                line.rv()
            ),
            "update" => format!(
                "updated rv {} → {}",
                line.old_rv.as_deref().unwrap_or("?"),
                line.rv()
            ),
            _ if line.tombstone => {
                format!("deleted, from a tombstone (last known rv {})", line.rv())
            }
            _ => format!("deleted (rv {})", line.rv()),
        };
        let text = text + &indices_note(line) + &self.whole_list_note(id, line);
        self.push(id, line, StepKind::Indexer, text);
        let state = &mut self.objects[id].1;
        state.old_rv = line.old_rv.clone();
        state.last_write = Some((line.seq, line.rv().to_owned(), removed, line.ts));
        if line.event == "update" && line.old_rv.as_deref() == Some(line.rv()) {
            let cause = self.sync_cause(id, line);
            self.open_round(id, cause, line.seq);
        }
    }

    /// For a write that comes from client-go 1.36's whole-list ReplacedAll (no delta of the
    /// object's own since), where it came from.
    fn whole_list_note(&mut self, id: usize, line: &TraceLine) -> String {
        let own = self.objects[id].1.last_delta.as_ref().map_or(0, |d| d.1);
        match &self.informer(line).queue_wide {
            Some((kind, seq, at)) if kind == "ReplacedAll" && *seq > own => format!(
                " (from the ReplacedAll delta queued at {}: the whole list as one queue entry)",
                clock(*at)
            ),
            _ => String::new(),
        }
    }

    /// A state the object's story first meets at an indexer write: a whole-queue list
    /// (client-go 1.36's ReplacedAll) held it.
    fn listed_whole_text(&mut self, line: &TraceLine) -> Option<String> {
        let informer = self.informer(line);
        let relist_at = informer.relist_at;
        match &informer.queue_wide {
            Some((kind, _, _)) if kind == "ReplacedAll" => Some(format!(
                "listed at rv {} by {} (one ReplacedAll delta for the whole list)",
                line.rv(),
                list_name(relist_at)
            )),
            _ => None,
        }
    }

    /// Why an update with equal resourceVersions reached handlers now: the newest of the
    /// object's last delta and the queue's last whole-queue delta says.
    fn sync_cause(&mut self, id: usize, line: &TraceLine) -> SyncCause {
        let own = self.objects[id].1.last_delta.clone();
        let informer = self.informer(line);
        let whole = informer
            .queue_wide
            .as_ref()
            .map(|(kind, seq, _)| (kind.clone(), *seq));
        let newest = match (own, whole) {
            (Some(a), Some(b)) => Some(if a.1 > b.1 { a } else { b }),
            (a, b) => a.or(b),
        };
        let resync = newest.is_some_and(|(kind, _)| kind == "Sync" || kind == "SyncAll");
        match (&informer.last_tick, resync) {
            (Some((at, due)), true) => SyncCause::Resync {
                at: *at,
                due: due.clone(),
            },
            _ => SyncCause::Relist {
                at: informer.relist_at,
            },
        }
    }

    fn notify(&mut self, line: &TraceLine) {
        let id = self.id(line);
        let text = if line.sync {
            let cause = self.sync_cause(id, line);
            let text = sync_text(&cause, line);
            self.join_round(id, cause, line);
            text
        } else {
            self.close_round(id, line.resource());
            self.change_text(id, line)
        };
        let text = format!(
            "{text} — queued for `{}` (pending {})",
            line.handler(),
            line.pending.unwrap_or(0)
        );
        let step = self.push(id, line, StepKind::Notify, text);
        self.informer(line)
            .outstanding
            .entry(line.handler().to_owned())
            .or_default()
            .push_back((id, step));
    }

    /// Why a notification that is not a sync was sent.
    fn change_text(&mut self, id: usize, line: &TraceLine) -> String {
        let state = &self.objects[id].1;
        let written_at = state.last_write.as_ref().map_or(0, |w| w.0);
        let old_rv = state.old_rv.clone().unwrap_or_else(|| "?".into());
        let late = self
            .informer(line)
            .handlers
            .iter()
            .find(|h| h.name == line.handler() && h.after_start && h.added_seq > written_at)
            .map(|h| h.added_at);
        match line.kind.as_deref().unwrap_or("") {
            "add" => match late {
                Some(at) => format!(
                    "add at rv {}: `{}` was added after start (at {}) and is given the cache's contents",
                    line.rv(),
                    line.handler(),
                    clock(at)
                ),
                None if line.initial => format!("add at rv {}: in the initial list", line.rv()),
                None => format!("add at rv {}: the key was not in the indexer", line.rv()),
            },
            "update" => format!("update rv {old_rv} → {}: the object changed", line.rv()),
            "delete" if line.tombstone => format!(
                "delete of a tombstone (DeletedFinalStateUnknown, last known rv {}): the informer missed the delete itself",
                line.rv()
            ),
            "delete" => format!("delete at rv {}", line.rv()),
            other => format!("{other} at rv {}", line.rv()),
        }
    }

    fn open_round(&mut self, id: usize, cause: SyncCause, since: u64) {
        self.objects[id].1.round = Some(Round {
            cause,
            notified: Vec::new(),
            since,
        });
    }

    /// Counts a sync notification into the object's round of its cause (a new round when the
    /// cause differs).
    fn join_round(&mut self, id: usize, cause: SyncCause, line: &TraceLine) {
        let same = self.objects[id]
            .1
            .round
            .as_ref()
            .is_some_and(|r| r.cause == cause);
        if !same {
            self.close_round(id, line.resource());
            self.open_round(id, cause, line.seq);
        }
        if let Some(round) = &mut self.objects[id].1.round {
            round.notified.push(line.handler().to_owned());
        }
    }

    /// Ends the object's round of sync notifications: every handler registered then that got
    /// none is told, with why.
    fn close_round(&mut self, id: usize, resource: &str) {
        let Some(round) = self.objects[id].1.round.take() else {
            return;
        };
        let Some(last) = self.objects[id].1.steps.last().cloned() else {
            return;
        };
        let missed: Vec<String> = self
            .informers
            .get(resource)
            .map(|i| {
                i.handlers
                    .iter()
                    .filter(|h| h.added_seq < round.since && !round.notified.contains(&h.name))
                    .map(|h| h.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let tick = self
            .informers
            .get(resource)
            .and_then(|i| i.last_tick.clone());
        for handler in missed {
            self.objects[id].1.steps.push(Step {
                seq: last.seq,
                ts: last.ts,
                kind: StepKind::NotDelivered,
                handler: Some(handler.clone()),
                text: not_delivered_text(&round.cause, &handler, tick.as_ref()),
            });
        }
    }

    fn handled(&mut self, line: &TraceLine) {
        let informer = self.informer(line);
        let Some(queue) = informer.outstanding.get_mut(line.handler()) else {
            return;
        };
        // A handler works through its notifications in order: this one is the oldest.
        let Some((id, step)) = queue.pop_front() else {
            return;
        };
        let latency = format_duration(std::time::Duration::from_micros(
            line.latency_us.unwrap_or(0),
        ));
        let step = &mut self.objects[id].1.steps[step];
        step.text.push_str(&format!(
            ", handled at {} after {latency}{}{}",
            clock(line.ts),
            if line.latency_us.is_some() { "" } else { "?" },
            measured_inside(line)
        ));
    }

    fn finish(mut self) -> Vec<Story> {
        for id in 0..self.objects.len() {
            let resource = self.objects[id].0.0.clone();
            self.close_round(id, &resource);
        }
        let unhandled: Vec<(usize, usize)> = self
            .informers
            .values()
            .flat_map(|i| i.outstanding.values().flatten().copied())
            .collect();
        for (id, step) in unhandled.into_iter().filter(|_| self.saw_handled) {
            self.objects[id].1.steps[step]
                .text
                .push_str(", never handled: still pending when the trace ends");
        }
        let mut stories: BTreeMap<(String, String), Story> = BTreeMap::new();
        for ((resource, key), mut state) in self.objects {
            state.steps.push(final_step(&state, self.saw_indexer));
            stories.insert(
                (key.clone(), resource.clone()),
                Story {
                    resource,
                    key,
                    steps: state.steps,
                },
            );
        }
        stories.into_values().collect()
    }
}

/// "an" before a vowel ("an Added delta"), else "a".
fn article(word: &str) -> &'static str {
    if word.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

/// "the initial LIST" or "the relist at 12:00:03.120".
fn list_name(relist_at: Option<i64>) -> String {
    match relist_at {
        Some(at) => format!("the relist at {}", clock(at)),
        None => "the initial LIST".into(),
    }
}

fn sync_text(cause: &SyncCause, line: &TraceLine) -> String {
    match cause {
        SyncCause::Resync { at, .. } => format!(
            "sync update (equal resourceVersions, rv {}) from the resync tick at {}: `{}` was due",
            line.rv(),
            clock(*at),
            line.handler()
        ),
        SyncCause::Relist { at } => format!(
            "update with equal resourceVersions (rv {}) after {}: listener `{}` was in the syncing set",
            line.rv(),
            list_name(*at),
            line.handler()
        ),
    }
}

fn not_delivered_text(
    cause: &SyncCause,
    handler: &str,
    tick: Option<&(i64, Vec<String>)>,
) -> String {
    match cause {
        SyncCause::Resync { at, due } => format!(
            "not delivered to `{handler}`: not due for resync at the tick at {} (due: {})",
            clock(*at),
            if due.is_empty() {
                "none".into()
            } else {
                due.join(", ")
            }
        ),
        SyncCause::Relist { .. } => match tick {
            Some((at, _)) => format!(
                "not delivered to `{handler}`: not in the syncing set (the resync check at {} found it not due)",
                clock(*at)
            ),
            None => format!("not delivered to `{handler}`: not in the syncing set"),
        },
    }
}

/// An indexer write's index values, ` (index node=node-a)`, when `--index` asked for some.
fn indices_note(line: &TraceLine) -> String {
    if line.indices.0.is_empty() {
        return String::new();
    }
    let values: Vec<String> = line
        .indices
        .0
        .iter()
        .map(|(name, values)| format!("{name}={}", values.join(",")))
        .collect();
    format!(" (index {})", values.join(" "))
}

fn final_step(state: &ObjectState, saw_indexer: bool) -> Step {
    let (seq, ts) = state.steps.last().map_or((0, 0), |s| (s.seq, s.ts));
    let text = match &state.last_write {
        None if !saw_indexer => {
            "final cached state: unknown (the trace has no indexer lines)".into()
        }
        Some((_, rv, false, at)) => {
            format!(
                "final cached state: in the cache at rv {rv} (written at {})",
                clock(*at)
            )
        }
        Some((_, _, true, at)) => {
            format!(
                "final cached state: not in the cache (deleted at {})",
                clock(*at)
            )
        }
        None => "final cached state: never written to the cache in this trace".into(),
    };
    Step {
        seq,
        ts,
        kind: StepKind::Final,
        handler: None,
        text,
    }
}

/// What a Go tap measured inside the controller around a handler call: how long the
/// notification waited after its object entered the queue, and the call itself.
fn measured_inside(line: &TraceLine) -> String {
    let Some(call) = line.call_us else {
        return String::new();
    };
    let call = format_duration(std::time::Duration::from_micros(call));
    match line.queue_us {
        Some(queued) => format!(
            " ({} from the queue to the call, {call} in the handler)",
            format_duration(std::time::Duration::from_micros(queued))
        ),
        None => format!(" ({call} in the handler)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::trace::parse_jsonl;

    const T: &str = "2026-11-22T12:00:0";

    fn line(n: u64, second: u8, body: &str) -> String {
        format!("{{\"seq\":{n},\"ts\":\"{T}{second}.000000Z\",\"resource\":\"pods\",{body}}}\n")
    }

    /// Two handlers; a 410 relist brings `default/a` back unchanged: both get an update with
    /// equal resourceVersions (they start in the syncing set).
    fn relist_trace() -> String {
        [
            line(1, 0, r#""stage":"informer","event":"handler-added","handler":"fast","after_start":false"#),
            line(2, 0, r#""stage":"informer","event":"handler-added","handler":"slow","after_start":false"#),
            line(3, 1, r#""stage":"reflector","event":"watch-event","type":"ADDED","key":"default/a","rv":"6""#),
            line(4, 1, r#""stage":"fifo","event":"delta","type":"Added","key":"default/a","rv":"6","depth":1"#),
            line(5, 1, r#""stage":"indexer","event":"add","key":"default/a","rv":"6""#),
            line(6, 1, r#""stage":"handler","event":"notify","handler":"fast","kind":"add","key":"default/a","rv":"6","initial":false,"sync":false,"pending":1"#),
            line(7, 1, r#""stage":"handler","event":"notify","handler":"slow","kind":"add","key":"default/a","rv":"6","initial":false,"sync":false,"pending":1"#),
            line(8, 1, r#""stage":"handler","event":"handled","handler":"fast","kind":"add","key":"default/a","rv":"6","latency_us":51"#),
            line(9, 3, r#""stage":"reflector","event":"relist","reason":"410""#),
            line(10, 3, r#""stage":"fifo","event":"delta","type":"Replaced","key":"default/a","rv":"6","depth":1"#),
            line(11, 3, r#""stage":"indexer","event":"update","key":"default/a","rv":"6","old_rv":"6""#),
            line(12, 3, r#""stage":"handler","event":"notify","handler":"fast","kind":"update","key":"default/a","rv":"6","sync":true,"pending":1"#),
            line(13, 3, r#""stage":"handler","event":"notify","handler":"slow","kind":"update","key":"default/a","rv":"6","sync":true,"pending":2"#),
        ]
        .concat()
    }

    fn texts(story: &Story) -> Vec<String> {
        story
            .steps
            .iter()
            .map(|s| format!("{} {}", s.kind.as_str(), s.text))
            .collect()
    }

    #[test]
    fn a_relist_sync_says_the_listener_was_in_the_syncing_set() {
        let all = stories(&parse_jsonl(relist_trace().as_bytes()).unwrap());
        assert_eq!(all.len(), 1);
        let story = texts(&all[0]);
        assert!(story[0].starts_with("server ADDED at rv 6"), "{story:#?}");
        assert!(
            story.iter().any(|s| s.starts_with("notify update with equal resourceVersions (rv 6) after the relist at 12:00:03.000: listener `fast` was in the syncing set")),
            "{story:#?}"
        );
        assert!(
            story
                .iter()
                .any(|s| s.contains("handled at 12:00:01.000 after 51us")),
            "{story:#?}"
        );
        assert!(
            story.iter().any(|s| s.contains("never handled")),
            "slow's add: {story:#?}"
        );
        assert_eq!(
            story.last().unwrap(),
            "final final cached state: in the cache at rv 6 (written at 12:00:03.000)"
        );
    }

    #[test]
    fn a_go_taps_handled_line_tells_the_queue_wait_and_the_call_measured_inside() {
        let trace = [
            line(1, 0, r#""stage":"reflector","event":"watch-event","type":"ADDED","key":"ns/a","rv":"6""#),
            line(2, 1, r#""stage":"handler","event":"notify","handler":"slow","kind":"add","key":"ns/a","rv":"6","initial":false,"sync":false,"pending":4,"queue_us":800000"#),
            line(3, 2, r#""stage":"handler","event":"handled","handler":"slow","kind":"add","key":"ns/a","rv":"6","latency_us":1000000,"call_us":200000,"queue_us":800000"#),
        ]
        .concat();
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert!(
            story.iter().any(|s| s.contains(
                "handled at 12:00:02.000 after 1s (800ms from the queue to the call, 200ms in the handler)"
            )),
            "{story:#?}"
        );
    }

    #[test]
    fn a_watch_list_relist_tells_its_added_events_as_its_initial_events() {
        let trace = [
            line(1, 0, r#""stage":"reflector","event":"relist","reason":"410 Expired""#),
            line(2, 0, r#""stage":"reflector","event":"watch-start","rv":"","watch_list":true"#),
            line(3, 0, r#""stage":"reflector","event":"watch-event","type":"ADDED","key":"default/a","rv":"6""#),
            line(4, 1, r#""stage":"reflector","event":"bookmark","rv":"7","initial_events_end":true"#),
            line(5, 2, r#""stage":"reflector","event":"watch-event","type":"ADDED","key":"default/a","rv":"8""#),
        ]
        .concat();
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert_eq!(
            story[..2],
            [
                "server ADDED at rv 6 (an initial event of the watch-list of the relist at 12:00:00.000)",
                "server ADDED at rv 8 (watch event)",
            ]
        );
    }

    #[test]
    fn a_handler_not_due_at_a_resync_tick_is_told_so() {
        let trace = [
            line(1, 0, r#""stage":"informer","event":"handler-added","handler":"fast""#),
            line(2, 0, r#""stage":"informer","event":"handler-added","handler":"slow""#),
            line(3, 0, r#""stage":"indexer","event":"add","key":"default/a","rv":"6""#),
            line(4, 2, r#""stage":"resync","event":"tick","due":["fast"],"check_period_ms":1000"#),
            line(5, 2, r#""stage":"fifo","event":"delta","type":"Sync","key":"default/a","rv":"6","depth":1"#),
            line(6, 2, r#""stage":"indexer","event":"update","key":"default/a","rv":"6","old_rv":"6""#),
            line(7, 2, r#""stage":"handler","event":"notify","handler":"fast","kind":"update","key":"default/a","rv":"6","sync":true,"pending":1"#),
            line(8, 3, r#""stage":"informer","event":"stopped","reason":"timeout""#),
        ]
        .concat();
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert!(
            story
                .iter()
                .any(|s| s.contains("from the resync tick at 12:00:02.000: `fast` was due")),
            "{story:#?}"
        );
        assert!(
            story.contains(&"not-delivered not delivered to `slow`: not due for resync at the tick at 12:00:02.000 (due: fast)".to_owned()),
            "{story:#?}"
        );
    }

    #[test]
    fn a_trace_without_handled_or_indexer_lines_claims_nothing_of_them() {
        let trace = line(
            1,
            0,
            r#""stage":"handler","event":"notify","handler":"fast","kind":"add","key":"default/a","rv":"6","initial":true,"pending":1"#,
        );
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert_eq!(
            story,
            [
                "notify add at rv 6: in the initial list — queued for `fast` (pending 1)",
                "final final cached state: unknown (the trace has no indexer lines)"
            ]
        );
    }

    #[test]
    fn an_indexer_write_tells_its_index_values() {
        let trace = line(
            1,
            0,
            r#""stage":"indexer","event":"add","key":"default/a","rv":"6","indices":{"node":["node-a"],"app":["web","db"]}"#,
        ) + &line(
            2,
            0,
            r#""stage":"summary","event":"summary","indices":{"node":{"node-a":1}}"#,
        );
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert_eq!(
            story[0],
            "indexer added at rv 6 (index app=web,db node=node-a)"
        );
    }

    #[test]
    fn a_handler_added_after_start_is_told_it_gets_the_cache() {
        let trace = [
            line(1, 0, r#""stage":"informer","event":"handler-added","handler":"early""#),
            line(2, 0, r#""stage":"indexer","event":"add","key":"default/a","rv":"6""#),
            line(3, 1, r#""stage":"informer","event":"handler-added","handler":"late","after_start":true"#),
            line(4, 1, r#""stage":"handler","event":"notify","handler":"late","kind":"add","key":"default/a","rv":"6","initial":true,"pending":1"#),
        ]
        .concat();
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert_eq!(
            story[1],
            "notify add at rv 6: `late` was added after start (at 12:00:01.000) and is given the cache's contents — queued for `late` (pending 1)"
        );
    }

    #[test]
    fn a_tombstone_is_told_as_one() {
        let trace = [
            line(1, 0, r#""stage":"indexer","event":"add","key":"default/a","rv":"6""#),
            line(2, 1, r#""stage":"reflector","event":"relist","reason":"410""#),
            line(3, 1, r#""stage":"fifo","event":"delta","type":"Deleted","key":"default/a","rv":"6","depth":1,"tombstone":true"#),
            line(4, 1, r#""stage":"indexer","event":"delete","key":"default/a","rv":"6","tombstone":true"#),
        ]
        .concat();
        let story = texts(&stories(&parse_jsonl(trace.as_bytes()).unwrap())[0]);
        assert!(story[1].contains("tombstone (DeletedFinalStateUnknown, last known rv 6): the relist at 12:00:01.000 did not list it"), "{story:#?}");
        assert!(
            story
                .last()
                .unwrap()
                .contains("not in the cache (deleted at 12:00:01.000)")
        );
    }
}
