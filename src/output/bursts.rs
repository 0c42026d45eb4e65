//! The table's story view: a burst of notifications of one kind to one handler — an initial
//! list's adds, a resync's sync updates, a relist's storm — becomes one row ("100 adds to
//! `fast` (initial list)") instead of a hundred. JSONL, the documents and `--show` given
//! explicitly keep every row.
//!
//! Notifications are held back until the stream has been idle for [`QUIET`] or another shown
//! event comes; then each group of [`MIN_BURST`] or more becomes a [`Burst`] row, and the rest
//! are written one row per change (one object's change notified to several handlers at once
//! is one row naming them all, as `kubectl get -w` shows one line per change), in `seq` order.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::sync_cause::{SyncCause, SyncCauses};
use crate::informer::trace::{Event, Notification, NotifyKind, TraceEvent};

/// The fewest notifications of one kind to one handler that make one summary row.
pub const MIN_BURST: usize = 5;

/// How long held notifications wait, when the stream is idle, for more of their burst.
pub const QUIET: Duration = Duration::from_millis(100);

/// What a group of notifications has in common.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GroupKey {
    resource: Option<Arc<str>>,
    handler: Arc<str>,
    kind: NotifyKind,
    initial: bool,
    sync: bool,
    /// Deletes of tombstones: deletes the informer missed, found by a relist.
    tombstone: bool,
    cause: Option<SyncCause>,
}

impl GroupKey {
    /// The group of a notification to `handler` of `resource`.
    /// `cause`: what last sent sync updates to it (only a sync update's group keeps it).
    fn of(
        resource: Option<&Arc<str>>,
        handler: &Arc<str>,
        notification: &Notification,
        cause: Option<&SyncCause>,
    ) -> Self {
        Self {
            resource: resource.cloned(),
            handler: Arc::clone(handler),
            kind: notification.kind(),
            initial: notification.is_initial(),
            sync: notification.is_sync(),
            tombstone: notification.is_tombstone(),
            cause: cause.filter(|_| notification.is_sync()).cloned(),
        }
    }
}

/// One summary row: `count` notifications of `kind` to `handler`.
#[derive(Debug, Clone, PartialEq)]
pub struct Burst {
    /// The first notification's seq and time.
    pub seq: u64,
    pub ts: jiff::Timestamp,
    pub resource: Option<Arc<str>>,
    pub handler: Arc<str>,
    pub kind: NotifyKind,
    pub initial: bool,
    pub sync: bool,
    /// Tombstones (`DeletedFinalStateUnknown`): deletes missed while the watch was down.
    pub tombstone: bool,
    /// What sent these sync updates, when the stream told.
    pub cause: Option<SyncCause>,
    pub count: usize,
    pub first_key: String,
    pub last_key: String,
    /// The handler's backlog after the last one.
    pub pending: usize,
    /// Its backlog after the first one, and the highest it reached.
    pub first_pending: usize,
    pub peak_pending: usize,
}

impl Burst {
    /// The handler's backlog over the burst: after its first notification, then the highest
    /// it reached (`3→57`), so a climb folded into one row stays visible.
    pub fn pending_text(&self) -> String {
        format!("{}→{}", self.first_pending, self.peak_pending)
    }

    /// `100 adds to fast (initial list)`; `5 missed deletes (tombstones) to slow`.
    pub fn sentence(&self) -> String {
        let kind = match (self.kind, self.sync, self.tombstone) {
            (NotifyKind::Add, _, _) => "adds",
            (NotifyKind::Update, true, _) => "sync updates",
            (NotifyKind::Update, false, _) => "updates",
            (NotifyKind::Delete, _, true) => "missed deletes (tombstones)",
            (NotifyKind::Delete, _, false) => "deletes",
        };
        let why = match (&self.cause, self.initial) {
            (_, true) => " (initial list)".to_owned(),
            _ if self.tombstone => {
                " (DeletedFinalStateUnknown: gone while the watch was down, found by the relist)"
                    .to_owned()
            }
            (Some(cause), false) => format!(" ({})", cause.text()),
            (None, false) => String::new(),
        };
        format!("{} {kind} to {}{why}", self.count, self.handler)
    }
}

/// What a flush writes, in `seq` order.
#[derive(Debug)]
pub enum Row {
    /// Notifications of one change of one object to one or more handlers, in a row: one row
    /// naming every handler (`kubectl get -w` shows one line per change).
    Change(Vec<TraceEvent>),
    Burst(Burst),
}

impl Row {
    fn seq(&self) -> u64 {
        match self {
            Row::Change(events) => events.first().map_or(0, |e| e.seq),
            Row::Burst(burst) => burst.seq,
        }
    }
}

/// The notifications held back, grouped.
#[derive(Debug, Default)]
pub struct Bursts {
    groups: Vec<Group>,
    /// What sent each handler's sync updates.
    causes: SyncCauses,
    /// When the last notification was held.
    last_held: Option<Instant>,
}

#[derive(Debug)]
struct Group {
    key: GroupKey,
    /// The first [`MIN_BURST`] - 1 notifications, written one by one if no more come.
    held: Vec<TraceEvent>,
    burst: Burst,
}

impl Bursts {
    /// Notes what sends sync updates (a relist, a resync tick), shown or not.
    pub fn observe(&mut self, event: &TraceEvent) {
        let resource = event.resource.as_deref().unwrap_or_default();
        match &event.event {
            Event::Relist { reason } => self.causes.relisted(resource, reason),
            Event::ResyncTick { due, .. } => {
                self.causes.ticked(resource, due.iter().map(|h| &**h));
            }
            _ => {}
        }
    }

    /// Takes `event` if it is a notification (true), to be written at the next flush.
    pub fn hold(&mut self, event: &TraceEvent) -> bool {
        let Event::Notify {
            handler,
            notification,
            pending,
        } = &event.event
        else {
            return false;
        };
        let cause = self
            .causes
            .of(event.resource.as_deref().unwrap_or_default(), handler);
        let key = GroupKey::of(
            event.resource.as_ref(),
            handler,
            notification,
            cause.as_ref(),
        );
        self.last_held = Some(Instant::now());
        match self.groups.iter_mut().find(|g| g.key == key) {
            Some(group) => {
                group.burst.count += 1;
                notification.key().clone_into(&mut group.burst.last_key);
                group.burst.pending = *pending;
                group.burst.peak_pending = group.burst.peak_pending.max(*pending);
                if group.held.len() < MIN_BURST - 1 {
                    group.held.push(event.clone());
                }
            }
            None => self.groups.push(Group {
                burst: Burst {
                    seq: event.seq,
                    ts: event.ts,
                    resource: key.resource.clone(),
                    handler: Arc::clone(&key.handler),
                    kind: key.kind,
                    initial: key.initial,
                    sync: key.sync,
                    tombstone: key.tombstone,
                    cause: key.cause.clone(),
                    count: 1,
                    first_key: notification.key().to_owned(),
                    last_key: notification.key().to_owned(),
                    pending: *pending,
                    first_pending: *pending,
                    peak_pending: *pending,
                },
                held: vec![event.clone()],
                key,
            }),
        }
        true
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// When what is held has been quiet for [`QUIET`] (None: nothing held).
    pub fn quiet_at(&self) -> Option<Instant> {
        self.last_held
            .filter(|_| !self.is_empty())
            .map(|at| at + QUIET)
    }

    /// Everything held, as rows in `seq` order: a group of [`MIN_BURST`] or more as one
    /// [`Burst`]; the notifications of smaller ones one change per row.
    pub fn take(&mut self) -> Vec<Row> {
        let mut rows = Vec::new();
        let mut singles = Vec::new();
        for group in self.groups.drain(..) {
            if group.burst.count >= MIN_BURST {
                rows.push(Row::Burst(group.burst));
            } else {
                singles.extend(group.held);
            }
        }
        singles.sort_by_key(|e| e.seq);
        rows.extend(changes(singles).into_iter().map(Row::Change));
        rows.sort_by_key(Row::seq);
        rows
    }
}

/// `events` (in seq order) cut into runs that notify the same change — the same object,
/// resourceVersion and kind — to different handlers.
fn changes(events: Vec<TraceEvent>) -> Vec<Vec<TraceEvent>> {
    let mut runs: Vec<Vec<TraceEvent>> = Vec::new();
    for event in events {
        match runs.last_mut() {
            Some(run) if same_change(&run[0], &event) => run.push(event),
            _ => runs.push(vec![event]),
        }
    }
    runs
}

/// Whether two notifications tell the same change of the same object (to other handlers).
fn same_change(a: &TraceEvent, b: &TraceEvent) -> bool {
    let (
        Event::Notify {
            handler: ha,
            notification: na,
            ..
        },
        Event::Notify {
            handler: hb,
            notification: nb,
            ..
        },
    ) = (&a.event, &b.event)
    else {
        return false;
    };
    ha != hb
        && a.resource == b.resource
        && na.kind() == nb.kind()
        && na.is_sync() == nb.is_sync()
        && na.key() == nb.key()
        && na.object().resource_version() == nb.object().resource_version()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fixtures::{notify_add, notify_sync_update, stamp};

    fn held(events: &[TraceEvent]) -> Vec<Row> {
        let mut bursts = Bursts::default();
        for event in events {
            assert!(bursts.hold(event));
        }
        bursts.take()
    }

    #[test]
    fn an_initial_list_to_two_handlers_is_two_rows() {
        let mut events = Vec::new();
        for i in 0..100 {
            events.push(notify_add(2 * i + 1, "fast", &format!("pod-{i:03}"), true));
            events.push(notify_add(2 * i + 2, "slow", &format!("pod-{i:03}"), true));
        }
        let rows = held(&events);
        let sentences: Vec<String> = rows
            .iter()
            .map(|r| match r {
                Row::Burst(b) => format!("{} {}..{}", b.sentence(), b.first_key, b.last_key),
                Row::Change(e) => format!("change {}", e[0].seq),
            })
            .collect();
        assert_eq!(
            sentences,
            [
                "100 adds to fast (initial list) default/pod-000..default/pod-099",
                "100 adds to slow (initial list) default/pod-000..default/pod-099",
            ]
        );
    }

    #[test]
    fn a_few_notifications_stay_one_row_per_change_in_seq_order() {
        let events = [
            notify_add(1, "fast", "a", false),
            notify_add(2, "slow", "a", false),
            notify_sync_update(3, "fast", "b"),
            notify_add(4, "fast", "c", false),
            notify_add(5, "slow", "d", false),
        ];
        let seqs: Vec<Vec<u64>> = held(&events)
            .iter()
            .map(|r| match r {
                Row::Change(events) => events.iter().map(|e| e.seq).collect(),
                Row::Burst(b) => panic!("no burst expected: {}", b.sentence()),
            })
            .collect();
        assert_eq!(seqs, [vec![1, 2], vec![3], vec![4], vec![5]]);
    }

    #[test]
    fn a_resync_storm_is_one_row_and_says_so() {
        let mut events = vec![tick(1, &["fast"])];
        events.extend((0..24).map(|i| notify_sync_update(i + 2, "fast", &format!("pod-{i}"))));
        assert_eq!(
            sentence_of(&events),
            "24 sync updates to fast (resync tick)"
        );
    }

    fn relist(seq: u64, reason: &str) -> TraceEvent {
        stamp(
            seq,
            Event::Relist {
                reason: reason.into(),
            },
        )
    }

    fn tick(seq: u64, due: &[&str]) -> TraceEvent {
        stamp(
            seq,
            Event::ResyncTick {
                due: due.iter().map(|&h| Arc::from(h)).collect(),
                check_period: Duration::from_secs(1),
            },
        )
    }

    /// The sentence of the one burst `events` make, each first observed.
    fn sentence_of(events: &[TraceEvent]) -> String {
        let mut bursts = Bursts::default();
        for event in events {
            bursts.observe(event);
            bursts.hold(event);
        }
        match bursts.take().as_slice() {
            [Row::Burst(b)] => b.sentence(),
            other => panic!("one burst expected, got {other:?}"),
        }
    }

    #[test]
    fn deletes_a_relist_found_are_called_missed_deletes() {
        let mut events = vec![relist(1, "410 Expired")];
        events.extend((0..5).map(|i| {
            stamp(
                i + 2,
                crate::output::fixtures::notify(
                    "slow",
                    crate::output::fixtures::tombstone_delete(),
                    1,
                ),
            )
        }));
        assert_eq!(
            sentence_of(&events),
            "5 missed deletes (tombstones) to slow (DeletedFinalStateUnknown: gone while the watch was down, found by the relist)"
        );
    }

    #[test]
    fn a_relist_storm_names_the_relist_and_its_reason() {
        let mut events = vec![relist(1, "410 Expired")];
        events.extend((0..10).map(|i| notify_sync_update(i + 2, "fast", &format!("pod-{i}"))));
        assert_eq!(
            sentence_of(&events),
            "10 sync updates to fast (relist after 410 Expired)"
        );
    }

    #[test]
    fn a_resync_tick_after_a_relist_is_the_cause_of_what_follows_it() {
        let mut events = vec![relist(1, "410 Expired"), tick(2, &["fast"])];
        events.extend((0..10).map(|i| notify_sync_update(i + 3, "fast", &format!("pod-{i}"))));
        assert_eq!(
            sentence_of(&events),
            "10 sync updates to fast (resync tick)"
        );
    }

    #[test]
    fn a_folded_row_shows_the_backlog_climb_and_its_peak() {
        let mut bursts = Bursts::default();
        for (i, pending) in [3, 20, 57, 40, 41].into_iter().enumerate() {
            let mut event = notify_add(i as u64 + 1, "slow", &format!("pod-{i}"), false);
            if let Event::Notify { pending: p, .. } = &mut event.event {
                *p = pending;
            }
            bursts.hold(&event);
        }
        match bursts.take().as_slice() {
            [Row::Burst(b)] => assert_eq!((b.pending_text(), b.pending), ("3→57".into(), 41)),
            other => panic!("one burst expected, got {other:?}"),
        }
    }

    #[test]
    fn other_events_are_not_held() {
        let mut bursts = Bursts::default();
        let synced = TraceEvent {
            seq: 1,
            ts: jiff::Timestamp::UNIX_EPOCH,
            resource: None,
            event: Event::Synced {
                objects: 3,
                store_rv: None,
            },
        };
        assert!(!bursts.hold(&synced));
        assert!(bursts.is_empty());
    }
}
