//! What the pipeline tells: every [`Event`] with its fields, the stage it comes from, and its
//! kind (declared once in `event_kinds!`), and the exit [`Summary`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::notification::{Notification, NotifyKind};
use crate::informer::queue::{Delta, DeltaType};

/// The pipeline stage an event comes from (the `stage` field of a JSONL line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Reflector,
    Fifo,
    Indexer,
    Handler,
    Resync,
    Informer,
    /// `kinformer proxy`: a client's requests other than its informers' LIST and WATCH.
    Client,
    Summary,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Reflector => "reflector",
            Stage::Fifo => "fifo",
            Stage::Indexer => "indexer",
            Stage::Handler => "handler",
            Stage::Resync => "resync",
            Stage::Informer => "informer",
            Stage::Client => "client",
            Stage::Summary => "summary",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The set of stages whose events reach the sink. `informer` and `summary` always do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageSet(u8);

impl StageSet {
    pub const ALL: StageSet = StageSet(0xff);

    /// Only the stages that are always shown.
    pub fn minimal() -> Self {
        StageSet(Stage::Informer.bit() | Stage::Summary.bit())
    }

    pub fn with(self, stage: Stage) -> Self {
        StageSet(self.0 | stage.bit())
    }

    pub fn contains(self, stage: Stage) -> bool {
        self.0 & stage.bit() != 0
    }
}

/// The type of a WATCH event as the server sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
}

impl WatchEventType {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
        }
    }
}

/// What happened, with the fields its JSONL line carries.
#[derive(Debug, Clone)]
pub enum Event {
    /// Reflector: a LIST (or watch-list) begins, with the parameters actually sent:
    /// `resource_version` ("" = consistent read, "0" = any cached state, "N" = not older than
    /// N), `resourceVersionMatch`, and `limit`.
    ListStart {
        resource_version: String,
        resource_version_match: Option<String>,
        limit: Option<u32>,
        watch_list: bool,
    },
    ListPage {
        page: u32,
        items: usize,
        more: bool,
    },
    ListDone {
        items: usize,
        pages: u32,
        resource_version: String,
    },
    WatchStart {
        resource_version: String,
        timeout_seconds: u64,
        watch_list: bool,
    },
    WatchEvent {
        event_type: WatchEventType,
        key: String,
        resource_version: String,
    },
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    WatchEnd {
        resource_version: String,
        events: u64,
        reason: String,
    },
    WatchError {
        code: Option<u16>,
        reason: String,
        message: String,
    },
    Relist {
        reason: String,
    },
    Backoff {
        reason: String,
        delay_ms: u64,
        attempt: u32,
    },
    /// DeltaFIFO / RealFIFO: a delta entered the queue; `depth` is the queue length after it.
    Delta {
        delta_type: DeltaType,
        key: String,
        resource_version: String,
        depth: usize,
        tombstone: bool,
    },
    /// The process loop popped an entry: a key's `deltas` (DeltaFIFO), one delta (RealFIFO),
    /// or, with PopBatch, `batch` deltas for distinct keys (`key` is the first).
    Pop {
        key: String,
        deltas: usize,
        depth: usize,
        initial: bool,
        batch: Option<usize>,
    },
    IndexerAdd {
        key: String,
        resource_version: String,
    },
    IndexerUpdate {
        key: String,
        resource_version: String,
        old_resource_version: String,
    },
    IndexerDelete {
        key: String,
        resource_version: String,
        tombstone: bool,
    },
    /// A notification was queued for a handler; `pending` is its backlog including this one.
    Notify {
        handler: Arc<str>,
        notification: Notification,
        pending: usize,
    },
    /// A handler finished a notification.
    Handled {
        handler: Arc<str>,
        kind: NotifyKind,
        key: String,
        resource_version: String,
        sync: bool,
        pending: usize,
        latency: Duration,
        panicked: bool,
    },
    /// The resync check period elapsed; `due` names the handlers whose resync is due.
    ResyncTick {
        due: Vec<Arc<str>>,
        check_period: Duration,
    },
    SyncQueued {
        count: usize,
    },
    /// The informer starts: which client-go release profile it models and what that chose;
    /// `overrides` names the settings an explicit flag changed.
    Started {
        profile: Option<String>,
        queue: String,
        pop_batch: bool,
        atomic_fifo: bool,
        unlock_while_processing: bool,
        watch_list: bool,
        overrides: Vec<String>,
    },
    Synced {
        objects: usize,
    },
    HandlerAdded {
        handler: Arc<str>,
        requested_resync: Duration,
        effective_resync: Duration,
        check_period: Duration,
        after_start: bool,
        adjustment: Option<String>,
    },
    HandlerRemoved {
        handler: Arc<str>,
    },
    /// A handler's resync period was recomputed because the check period changed (Rule P2).
    ResyncPeriodChanged {
        handler: Arc<str>,
        effective_resync: Duration,
        check_period: Duration,
    },
    Stopped {
        reason: String,
    },
    /// `kinformer proxy`: one request of a client that is not an informer's LIST or WATCH
    /// (a write, a GET, discovery), answered `code` with `bytes` of body after `duration`.
    Request {
        client: String,
        verb: String,
        path: String,
        code: u16,
        bytes: u64,
        duration: Duration,
    },
    /// `kinformer proxy`'s exit summary of one client (`stream` absent) or of one of its
    /// informer streams.
    ProxySummary(Box<ProxySummary>),
    Summary(Box<Summary>),
}

/// What `kinformer proxy` saw of one client or one client-side informer stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxySummary {
    pub client: String,
    /// The stream's name (`CLIENT/RESOURCE…`); None for the client's totals.
    pub stream: Option<String>,
    pub user_agent: String,
    pub lists: u64,
    pub watches: u64,
    pub events: u64,
    pub relists: u64,
    pub errors: u64,
    /// Requests that were neither a LIST nor a WATCH.
    pub requests: u64,
    /// Response body bytes relayed to the client.
    pub bytes: u64,
}

/// Counts gathered over the whole run, printed at exit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// `stage/event` → how many were emitted (shown or not).
    pub counts: BTreeMap<String, u64>,
    pub handlers: Vec<HandlerSummary>,
    pub duration: Duration,
}

/// One handler's figures in the exit summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HandlerSummary {
    pub name: String,
    /// The resource of the informer the handler is registered with (as in trace events).
    pub resource: Option<String>,
    pub notifications: u64,
    pub adds: u64,
    pub updates: u64,
    pub deletes: u64,
    pub syncs: u64,
    pub handled: u64,
    pub panics: u64,
    /// Notifications still buffered when the informer stopped: dropped, never handled.
    pub dropped: u64,
    pub max_pending: u64,
    pub mean_latency: Duration,
}

/// Declares every event kind once: its [`Event`] variant (same name), its stage and its JSONL
/// `event` name. Generates [`EventKind`], its stage and name, and [`Event::kind`].
macro_rules! event_kinds {
    ($($variant:ident => $stage:ident, $name:literal;)+) => {
        /// An event's kind without its fields: what the tracer counts, and what hot paths name
        /// before deciding whether to build the event at all.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum EventKind {
            $($variant,)+
        }

        impl EventKind {
            /// Every kind, in declaration order (the tracer's counter slots).
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)+];

            pub fn stage(self) -> Stage {
                match self {
                    $(EventKind::$variant => Stage::$stage,)+
                }
            }

            /// The `event` field of the JSONL line.
            pub fn name(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)+
                }
            }
        }

        impl Event {
            pub fn kind(&self) -> EventKind {
                match self {
                    $(Event::$variant { .. } => EventKind::$variant,)+
                }
            }
        }
    };
}

event_kinds! {
    ListStart => Reflector, "list-start";
    ListPage => Reflector, "list-page";
    ListDone => Reflector, "list-done";
    WatchStart => Reflector, "watch-start";
    WatchEvent => Reflector, "watch-event";
    Bookmark => Reflector, "bookmark";
    WatchEnd => Reflector, "watch-end";
    WatchError => Reflector, "watch-error";
    Relist => Reflector, "relist";
    Backoff => Reflector, "backoff";
    Delta => Fifo, "delta";
    Pop => Fifo, "pop";
    IndexerAdd => Indexer, "add";
    IndexerUpdate => Indexer, "update";
    IndexerDelete => Indexer, "delete";
    Notify => Handler, "notify";
    Handled => Handler, "handled";
    ResyncTick => Resync, "tick";
    SyncQueued => Resync, "sync-queued";
    Started => Informer, "started";
    Synced => Informer, "synced";
    HandlerAdded => Informer, "handler-added";
    HandlerRemoved => Informer, "handler-removed";
    ResyncPeriodChanged => Informer, "resync-period-changed";
    Stopped => Informer, "stopped";
    Request => Client, "request";
    ProxySummary => Summary, "proxy-summary";
    Summary => Summary, "summary";
}

impl Event {
    /// The `fifo delta` event for `delta`, the queue `depth` long after it.
    pub fn delta(delta: &Delta, depth: usize) -> Self {
        Event::Delta {
            delta_type: delta.delta_type,
            key: delta.object.key().to_owned(),
            resource_version: delta.object.object().resource_version().to_owned(),
            depth,
            tombstone: delta.object.is_tombstone(),
        }
    }

    pub fn stage(&self) -> Stage {
        self.kind().stage()
    }

    /// The `event` field of the JSONL line.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}
