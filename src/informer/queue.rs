//! What the reflector feeds and the process loop drains: the [`Queue`] contract both FIFOs
//! implement (client-go's `Queue` interface over `Store`), the deltas they carry (client-go's
//! `Delta`, `DeltaType`, `DeletedFinalStateUnknown`), and the process function `pop` hands
//! them to.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::Notify;

use super::object::ObjectRef;

/// Why a delta was queued (client-go's `DeltaType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    /// An object the watch or a late handler's replay added.
    Added,
    /// An object that changed.
    Updated,
    /// An object that was deleted (or found gone by a relist).
    Deleted,
    /// An object a relist listed again (Replace).
    Replaced,
    /// An object a resync queued again.
    Sync,
    /// AtomicFIFO (client-go ≥ 1.36): one entry for a whole LIST.
    ReplacedAll,
    /// AtomicFIFO: one entry for a whole resync.
    SyncAll,
    /// AtomicFIFO: a watch bookmark's resourceVersion, passed through the queue.
    Bookmark,
}

impl DeltaType {
    /// client-go's name (`Added`, `Updated`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DeltaType::Added => "Added",
            DeltaType::Updated => "Updated",
            DeltaType::Deleted => "Deleted",
            DeltaType::Replaced => "Replaced",
            DeltaType::Sync => "Sync",
            DeltaType::ReplacedAll => "ReplacedAll",
            DeltaType::SyncAll => "SyncAll",
            DeltaType::Bookmark => "Bookmark",
        }
    }
}

/// client-go's `DeletedFinalStateUnknown`: the object was deleted while we were not watching;
/// `obj` is the last state we knew.
#[derive(Debug, Clone)]
pub struct Tombstone {
    /// The deleted object's key.
    pub key: String,
    /// The last state the informer knew.
    pub obj: ObjectRef,
}

/// The payload of a delta: an object, or a tombstone for a deletion we only inferred.
#[derive(Debug, Clone)]
pub enum DeltaObject {
    /// The object itself.
    Object(ObjectRef),
    /// client-go's DeletedFinalStateUnknown: the delete was missed.
    Tombstone(Tombstone),
}

impl DeltaObject {
    /// The object's key.
    pub fn key(&self) -> &str {
        match self {
            DeltaObject::Object(o) => o.key(),
            DeltaObject::Tombstone(t) => &t.key,
        }
    }

    /// The object, or the last known state inside the tombstone.
    pub fn object(&self) -> &ObjectRef {
        match self {
            DeltaObject::Object(o) => o,
            DeltaObject::Tombstone(t) => &t.obj,
        }
    }

    /// Whether this is a tombstone.
    pub fn is_tombstone(&self) -> bool {
        matches!(self, DeltaObject::Tombstone(_))
    }
}

/// One change to one object.
#[derive(Debug, Clone)]
pub struct Delta {
    /// What happened.
    pub delta_type: DeltaType,
    /// To what.
    pub object: DeltaObject,
}

impl Delta {
    /// A delta of `delta_type` about `obj`.
    pub fn new(delta_type: DeltaType, obj: ObjectRef) -> Self {
        Self {
            delta_type,
            object: DeltaObject::Object(obj),
        }
    }

    /// A Deleted delta carrying a tombstone of `obj` under `key`.
    pub fn tombstone(key: String, obj: ObjectRef) -> Self {
        Self {
            delta_type: DeltaType::Deleted,
            object: DeltaObject::Tombstone(Tombstone { key, obj }),
        }
    }
}

/// The error a process function returns to have the deltas re-queued (Rule F8).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProcessError(pub String);

/// Returned by pop once the queue is closed and drained of waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("queue closed")]
pub struct QueueClosed;

/// client-go's `ReplacedAllInfo`: the objects of one LIST and its resourceVersion, queued as
/// one entry by an atomic RealFIFO.
#[derive(Debug, Clone)]
pub struct ReplacedAll {
    /// The LIST's resourceVersion.
    pub resource_version: String,
    /// Every listed object.
    pub objects: Vec<ObjectRef>,
}

/// What `pop` hands a queue entry to, with `isInInitialList` (client-go's PopProcessFunc,
/// ProcessBatchFunc and the atomic entries processDeltas knows). A closure over
/// `(&[Delta], bool)` is one: it sees every delta and ignores atomic entries.
pub trait PopProcess {
    /// A key's deltas (DeltaFIFO) or one delta (RealFIFO).
    fn deltas(&mut self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError>;

    /// A PopBatch of deltas for distinct keys (client-go ≥ 1.35): applied to the store as one
    /// transaction, then notified.
    fn batch(&mut self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        self.deltas(deltas, initial)
    }

    /// An atomic ReplacedAll: reconcile the store with the whole list.
    fn replaced_all(&mut self, _list: &ReplacedAll, _initial: bool) {}

    /// An atomic SyncAll: every cached object is resynced.
    fn sync_all(&mut self) {}

    /// An atomic Bookmark: the store has seen `resource_version`.
    fn bookmark(&mut self, _resource_version: &str) {}
}

impl<F: FnMut(&[Delta], bool) -> Result<(), ProcessError>> PopProcess for F {
    fn deltas(&mut self, deltas: &[Delta], initial: bool) -> Result<(), ProcessError> {
        self(deltas, initial)
    }
}

/// The process function `pop` takes.
pub type ProcessFn<'a> = dyn PopProcess + Send + 'a;

/// Which queue an informer uses (`--queue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueKind {
    /// client-go ≤1.32's DeltaFIFO (deltas per key, compressed).
    #[default]
    DeltaFifo,
    /// client-go ≥1.33's RealFIFO (one entry per event, in order).
    RealFifo,
}

impl QueueKind {
    /// The name `--queue` and the trace use.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueKind::DeltaFifo => "delta-fifo",
            QueueKind::RealFifo => "real-fifo",
        }
    }
}

/// The future [`Queue::pop`] returns.
pub type PopFuture<'a> = Pin<Box<dyn Future<Output = Result<(), QueueClosed>> + Send + 'a>>;

/// client-go's `cache.Queue`: the reflector's writes go in, the informer's process loop pops.
///
/// Contract (both FIFOs):
/// - `add`/`update`/`delete` queue one delta for the object's key; `replace` queues the result
///   of a LIST: a `Replaced` delta per listed object and a tombstone deletion
///   ([`DeltaObject::Tombstone`]) for every queued or known key missing from the list.
/// - `resync` queues a `Sync` delta for every known object with nothing queued, and says how
///   many.
/// - `pop` waits for an entry and hands it to the process function together with
///   `isInInitialList`, under the queue lock: no write interleaves with processing.
/// - `has_synced` is true once the first `replace` and everything it queued were popped (or an
///   `add`/`update`/`delete` came first).
/// - `close` wakes every blocked `pop`, which then returns [`QueueClosed`].
pub trait Queue: Send + Sync {
    /// Queues one watch event's delta (`Added`, `Updated` or `Deleted`).
    fn queue_event(&self, delta_type: DeltaType, obj: ObjectRef);

    /// Queues an Added delta.
    fn add(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Added, obj);
    }

    /// Queues an Updated delta.
    fn update(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Updated, obj);
    }

    /// Queues a Deleted delta.
    fn delete(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Deleted, obj);
    }

    /// A relist's objects: Replaced deltas, and deletions for known objects missing from it.
    fn replace(&self, list: Vec<ObjectRef>);

    /// [`Queue::replace`] with the LIST's resourceVersion, which an atomic RealFIFO carries in
    /// its `ReplacedAll` entry.
    fn replace_at(&self, list: Vec<ObjectRef>, _resource_version: &str) {
        self.replace(list);
    }
    /// Queues a Sync delta per known object (DeltaFIFO skips keys already queued); how many.
    fn resync(&self) -> usize;

    /// A watch bookmark's resourceVersion: queued as a `Bookmark` entry by an atomic RealFIFO,
    /// ignored otherwise.
    fn bookmark(&self, _resource_version: &str) {}
    /// Waits for the next entry (or batch) and runs `process` on it.
    fn pop<'a, 'p: 'a>(&'a self, process: &'a mut ProcessFn<'p>) -> PopFuture<'a>;
    /// Whether the first Replace's entries have all been popped.
    fn has_synced(&self) -> bool;
    /// client-go's `informer_queued_items` gauge (fifo_metrics.go v0.36): DeltaFIFO's queued
    /// keys, RealFIFO's queued entries.
    fn queued_items(&self) -> usize;
    /// Closes the queue: a waiting pop returns.
    fn close(&self);
}

/// A FIFO's blocking pop: runs `try_pop` (which takes the lock, processes an entry or sees the
/// queue closed) until it answers, waiting for `notify` in between. The wake-up is registered
/// before each try, so neither a queued delta nor `close()` can slip between try and wait.
pub(crate) async fn blocking_pop<T>(notify: &Notify, mut try_pop: impl FnMut() -> Option<T>) -> T {
    loop {
        let woken = notify.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        if let Some(answer) = try_pop() {
            return answer;
        }
        woken.await;
    }
}
