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

/// The request a REST-layer retry repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestVerb {
    List,
    Watch,
}

impl RequestVerb {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestVerb::List => "list",
            RequestVerb::Watch => "watch",
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
    /// A WATCH request or stream failed (an HTTP error, an ERROR event, an undecodable
    /// event); a watch-list's initial phase is a WATCH too.
    WatchError {
        code: Option<u16>,
        reason: String,
        message: String,
    },
    /// A LIST request failed, or answered what is not a list.
    ListError {
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
    /// client-go's request layer repeats a failed LIST or WATCH request after `delay_ms`
    /// before the reflector sees the failure (Rule R11); client-go does this silently.
    Retry {
        verb: RequestVerb,
        attempt: u32,
        delay_ms: u64,
        reason: String,
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
    /// `indices`: the object's values of every `--index` (empty without one).
    IndexerAdd {
        key: String,
        resource_version: String,
        indices: IndexValues,
    },
    IndexerUpdate {
        key: String,
        resource_version: String,
        old_resource_version: String,
        indices: IndexValues,
    },
    IndexerDelete {
        key: String,
        resource_version: String,
        tombstone: bool,
        indices: IndexValues,
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
    /// A handler call took over 100 ms while more than 1024 notifications waited behind it
    /// (client-go's processorListener logs it: Rule P9).
    SlowHandler {
        handler: Arc<str>,
        pending: usize,
        call: Duration,
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
        /// The informer's name (`--name`; client-go 1.36's informer identity).
        name: Option<String>,
        /// Why this configuration is one client-go's release cannot have (Rule Q2).
        what_if: Option<String>,
        profile: Option<String>,
        queue: String,
        pop_batch: bool,
        atomic_fifo: bool,
        unlock_while_processing: bool,
        watch_list: bool,
        overrides: Vec<String>,
    },
    /// The informer synced; `store_rv` is client-go 1.36's LastStoreSyncResourceVersion
    /// (AtomicFIFO only).
    Synced {
        objects: usize,
        store_rv: Option<String>,
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

/// An object's values per `--index`: (index name, values), in index order.
pub type IndexValues = Vec<(String, Vec<String>)>;

/// Per `--index`, each value and how many objects it holds: (index name, [(value, count)]),
/// values sorted.
pub type IndexCounts = Vec<(String, Vec<(String, usize)>)>;

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
    /// One entry per informer.
    pub metrics: Vec<InformerMetrics>,
    pub duration: Duration,
    /// Each `--index`'s values and how many objects each holds at the end (an index of one of
    /// several resources is named `resource/index`).
    pub indices: IndexCounts,
    /// Why the run ended (`timeout 30s reached`, `interrupted (SIGINT)`, …); empty if unsaid.
    pub stop_reason: String,
}

/// client-go 1.36's informer metrics (tools/cache/fifo_metrics.go `InformerMetricsProvider`),
/// named as it names them, as they stood when the informer stopped. client-go publishes them
/// only for a named informer; kinformer always keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InformerMetrics {
    /// The informer's resource, as trace lines name it.
    pub resource: Option<String>,
    /// `--name`, when given.
    pub name: Option<String>,
    /// `informer_queued_items`: DeltaFIFO's queued keys, RealFIFO's queued entries.
    pub queued_items: u64,
    /// `informer_processing_latency_seconds`: how many popped entries were processed, and
    /// the mean and largest time their processing took (indexer writes and distribution).
    pub processed: u64,
    pub mean_processing: Duration,
    pub max_processing: Duration,
    /// `informer_store_resource_version` (AtomicFIFO only, parsed as client-go does).
    pub store_resource_version: Option<u64>,
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
    Retry => Reflector, "retry";
    ListError => Reflector, "list-error";
    SlowHandler => Handler, "slow-handler";
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
