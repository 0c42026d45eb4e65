//! DeltaFIFO with client-go ≤ 1.32 semantics (the seeds'), the indexer as KnownObjects and
//! `EmitDeltaTypeReplaced` on; also the delta types and the [`Queue`] both FIFOs sit behind.
//!
//! One entry per key, in order of the key's first arrival; a key's deltas accumulate until it is
//! popped (Rules F1–F8). Pop hands the whole list to the process function under the queue lock,
//! as client-go does, so a Replace or Resync never sees the indexer half-updated.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::object::ObjectRef;
use super::real_fifo::RealFifo;
use super::store::Store;
use super::trace::{Event, EventKind, Tracer};

/// Why a delta was queued (client-go's `DeltaType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    Added,
    Updated,
    Deleted,
    Replaced,
    Sync,
}

impl DeltaType {
    pub fn as_str(self) -> &'static str {
        match self {
            DeltaType::Added => "Added",
            DeltaType::Updated => "Updated",
            DeltaType::Deleted => "Deleted",
            DeltaType::Replaced => "Replaced",
            DeltaType::Sync => "Sync",
        }
    }
}

/// client-go's `DeletedFinalStateUnknown`: the object was deleted while we were not watching;
/// `obj` is the last state we knew.
#[derive(Debug, Clone)]
pub struct Tombstone {
    pub key: String,
    pub obj: ObjectRef,
}

/// The payload of a delta: an object, or a tombstone for a deletion we only inferred.
#[derive(Debug, Clone)]
pub enum DeltaObject {
    Object(ObjectRef),
    Tombstone(Tombstone),
}

impl DeltaObject {
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

    pub fn is_tombstone(&self) -> bool {
        matches!(self, DeltaObject::Tombstone(_))
    }
}

/// One change to one object.
#[derive(Debug, Clone)]
pub struct Delta {
    pub delta_type: DeltaType,
    pub object: DeltaObject,
}

impl Delta {
    pub fn new(delta_type: DeltaType, obj: ObjectRef) -> Self {
        Self {
            delta_type,
            object: DeltaObject::Object(obj),
        }
    }

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

/// The function Pop hands each key's deltas to, with `isInInitialList`.
pub type ProcessFn<'a> = dyn FnMut(&[Delta], bool) -> Result<(), ProcessError> + Send + 'a;

/// The queue between the reflector and the process loop: either FIFO, chosen per informer.
pub enum Queue {
    Delta(DeltaFifo),
    Real(RealFifo),
}

/// Which queue an informer uses (`--queue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueKind {
    #[default]
    DeltaFifo,
    RealFifo,
}

impl Queue {
    pub fn new(kind: QueueKind, known: Arc<Store>, tracer: Tracer) -> Self {
        match kind {
            QueueKind::DeltaFifo => Queue::Delta(DeltaFifo::new(known, tracer)),
            QueueKind::RealFifo => Queue::Real(RealFifo::new(known, tracer)),
        }
    }

    pub fn add(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Added, obj);
    }

    pub fn update(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Updated, obj);
    }

    pub fn delete(&self, obj: ObjectRef) {
        self.queue_event(DeltaType::Deleted, obj);
    }

    fn queue_event(&self, delta_type: DeltaType, obj: ObjectRef) {
        match self {
            Queue::Delta(q) => q.queue_event(delta_type, obj),
            Queue::Real(q) => q.queue_event(delta_type, obj),
        }
    }

    /// Replaces the queue's view with `list` (the result of a LIST).
    pub fn replace(&self, list: Vec<ObjectRef>) {
        match self {
            Queue::Delta(q) => q.replace(list),
            Queue::Real(q) => q.replace(list),
        }
    }

    /// Queues a Sync for every known object without queued deltas; returns how many.
    pub fn resync(&self) -> usize {
        match self {
            Queue::Delta(q) => q.resync(),
            Queue::Real(q) => q.resync(),
        }
    }

    /// Waits for an entry and hands it to `process` under the queue lock.
    pub async fn pop(&self, process: &mut ProcessFn<'_>) -> Result<(), QueueClosed> {
        match self {
            Queue::Delta(q) => q.pop(process).await,
            Queue::Real(q) => q.pop(process).await,
        }
    }

    /// True once the first Replace's items (and deletions) have all been popped (Rule F6).
    pub fn has_synced(&self) -> bool {
        match self {
            Queue::Delta(q) => q.lock().has_synced(),
            Queue::Real(q) => q.has_synced(),
        }
    }

    pub fn close(&self) {
        match self {
            Queue::Delta(q) => q.close(),
            Queue::Real(q) => q.close(),
        }
    }
}

/// client-go's DeltaFIFO.
pub struct DeltaFifo {
    inner: Mutex<FifoState>,
    notify: Notify,
    known: Arc<Store>,
    tracer: Tracer,
}

#[derive(Default)]
pub(crate) struct FifoState {
    items: HashMap<String, Vec<Delta>>,
    queue: VecDeque<String>,
    populated: bool,
    initial_population_count: usize,
    closed: bool,
}

impl FifoState {
    fn has_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }
}

impl DeltaFifo {
    pub fn new(known: Arc<Store>, tracer: Tracer) -> Self {
        Self {
            inner: Mutex::new(FifoState::default()),
            notify: Notify::new(),
            known,
            tracer,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, FifoState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn queue_event(&self, delta_type: DeltaType, obj: ObjectRef) {
        let mut state = self.lock();
        state.populated = true;
        if delta_type == DeltaType::Deleted {
            // Rule F3: a delete for a key neither queued nor known is dropped.
            let key = obj.key();
            if !state.items.contains_key(key) && self.known.get(key).is_none() {
                return;
            }
        }
        self.queue_action(&mut state, Delta::new(delta_type, obj));
    }

    /// Appends `delta` to its key's list, deduplicating deletions (Rules F1, F2).
    fn queue_action(&self, state: &mut FifoState, delta: Delta) {
        let key = delta.object.key().to_owned();
        self.trace_delta(state, &delta, &key);
        let deltas = state.items.entry(key.clone()).or_default();
        let is_new = deltas.is_empty();
        deltas.push(delta);
        dedup_deltas(deltas);
        if is_new {
            state.queue.push_back(key);
        }
        self.notify.notify_one();
    }

    fn trace_delta(&self, state: &FifoState, delta: &Delta, key: &str) {
        let depth = state.queue.len() + usize::from(!state.items.contains_key(key));
        self.tracer
            .emit_with(EventKind::Delta, || delta_event(delta, depth));
    }

    fn replace(&self, list: Vec<ObjectRef>) {
        let mut state = self.lock();
        let keys: HashSet<String> = list.iter().map(|o| o.key().to_owned()).collect();
        for obj in list {
            self.queue_action(&mut state, Delta::new(DeltaType::Replaced, obj));
        }
        let mut queued_deletions = 0;
        // Rule F4: queued keys missing from the list are deleted with their newest state...
        let stale_queued: Vec<(String, ObjectRef)> = state
            .queue
            .iter()
            .filter(|k| !keys.contains(*k))
            .filter_map(|k| {
                let newest = state.items.get(k)?.last()?;
                Some((k.clone(), newest.object.object().clone()))
            })
            .collect();
        for (key, obj) in stale_queued {
            queued_deletions += 1;
            self.queue_action(&mut state, Delta::tombstone(key, obj));
        }
        // ...and so are known keys missing from the list that have nothing queued.
        for obj in self.known.list_sorted() {
            let key = obj.key();
            if keys.contains(key) || state.items.get(key).is_some_and(|d| !d.is_empty()) {
                continue;
            }
            queued_deletions += 1;
            self.queue_action(&mut state, Delta::tombstone(key.to_owned(), obj.clone()));
        }
        if !state.populated {
            state.populated = true;
            state.initial_population_count = keys.len() + queued_deletions;
        }
    }

    fn resync(&self) -> usize {
        let mut state = self.lock();
        let mut queued = 0;
        for obj in self.known.list_sorted() {
            // Rule F5: only keys with nothing queued get a Sync.
            if state.items.get(obj.key()).is_some_and(|d| !d.is_empty()) {
                continue;
            }
            self.queue_action(&mut state, Delta::new(DeltaType::Sync, obj));
            queued += 1;
        }
        queued
    }

    async fn pop(&self, process: &mut ProcessFn<'_>) -> Result<(), QueueClosed> {
        loop {
            // Registered before the state is read, so neither a queued delta nor close() can
            // slip between the check and the wait.
            let woken = self.notify.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            {
                let mut state = self.lock();
                if let Some(key) = state.queue.pop_front() {
                    self.process_head(&mut state, key, process);
                    return Ok(());
                }
                if state.closed {
                    return Err(QueueClosed);
                }
            }
            woken.await;
        }
    }

    fn process_head(&self, state: &mut FifoState, key: String, process: &mut ProcessFn<'_>) {
        let initial = !state.has_synced();
        if state.initial_population_count > 0 {
            state.initial_population_count -= 1;
        }
        let Some(deltas) = state.items.remove(&key) else {
            return;
        };
        self.tracer.emit_with(EventKind::Pop, || Event::Pop {
            key: key.clone(),
            deltas: deltas.len(),
            depth: state.queue.len(),
            initial,
        });
        if process(&deltas, initial).is_err() {
            // Rule F8: re-queue unless something newer was queued meanwhile.
            if !state.items.contains_key(&key) {
                state.queue.push_back(key.clone());
                state.items.insert(key, deltas);
            }
        }
    }

    /// Rule F8: wakes every blocked pop (client-go's `cond.Broadcast`).
    fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }

    /// Keys in queue order, for tests and `dump`.
    pub fn queued_keys(&self) -> Vec<String> {
        self.lock().queue.iter().cloned().collect()
    }

    /// The deltas queued for `key`.
    pub fn deltas_of(&self, key: &str) -> Vec<Delta> {
        self.lock().items.get(key).cloned().unwrap_or_default()
    }
}

/// Rule F2: two trailing Deleted deltas collapse to one (client-go's `isDeletionDup`): when the
/// older is a tombstone the newer is kept, otherwise the older — a real delete is never
/// replaced by a later tombstone, and of two real deletes the first one stands.
fn dedup_deltas(deltas: &mut Vec<Delta>) {
    let n = deltas.len();
    if n < 2 {
        return;
    }
    let (older, newer) = (&deltas[n - 2], &deltas[n - 1]);
    if older.delta_type != DeltaType::Deleted || newer.delta_type != DeltaType::Deleted {
        return;
    }
    if older.object.is_tombstone() {
        deltas.remove(n - 2);
    } else {
        deltas.pop();
    }
}

/// The `fifo delta` trace event for `delta` at queue depth `depth`.
pub(crate) fn delta_event(delta: &Delta, depth: usize) -> Event {
    Event::Delta {
        delta_type: delta.delta_type,
        key: delta.object.key().to_owned(),
        resource_version: delta.object.object().resource_version().to_owned(),
        depth,
        tombstone: delta.object.is_tombstone(),
    }
}
