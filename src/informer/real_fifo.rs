//! RealFIFO, client-go ≥ 1.33's in-order queue (Rule Q1): one entry per event in arrival
//! order, no per-key coalescing, every delete kept. Replace queues tombstone deletions for
//! queued and known keys missing from the list first, then one Replaced per listed object.
//!
//! The options of later releases: PopBatch (1.35, `InOrderInformersBatchProcess`) pops up to
//! [`BATCH_SIZE`] deltas for distinct keys at once; atomic events (1.36, `AtomicFIFO`) queue a
//! whole LIST as one `ReplacedAll`, a resync as one `SyncAll` and each watch bookmark as a
//! `Bookmark`, with no KnownObjects; unlock-while-processing (1.36,
//! `UnlockWhileProcessingFIFO`) lets writes queue while an entry is processed.
//!
//! Invariants (under the lock): `items` is in arrival order; `initial_population_count` counts
//! down the first Replace's entries once they were processed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::object::ObjectRef;
use super::queue::{
    Delta, DeltaType, PopFuture, ProcessFn, Queue, QueueClosed, ReplacedAll, blocking_pop,
};
use super::store::{KeyMap, KeySet, Store};
use super::trace::{Event, EventKind, Tracer};

/// client-go's `defaultBatchSize`: the most deltas one PopBatch takes.
pub const BATCH_SIZE: usize = 1000;

/// Which of the later releases' RealFIFO behaviours are on (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RealFifoOptions {
    /// PopBatch: pop every queued entry at once (client-go 1.35+).
    pub pop_batch: bool,
    /// AtomicFIFO: a Replace is one ReplacedAll entry (client-go 1.36).
    pub atomic_events: bool,
    /// Unlock the queue while the batch is processed (client-go 1.36).
    pub unlock_while_processing: bool,
}

/// client-go's RealFIFO.
pub struct RealFifo {
    inner: Mutex<RealState>,
    notify: Notify,
    known: Arc<Store>,
    options: RealFifoOptions,
    tracer: Tracer,
}

/// One queue entry: a delta, or one of the atomic entries.
#[derive(Debug, Clone)]
enum Entry {
    Delta(Delta),
    ReplacedAll(Arc<ReplacedAll>),
    SyncAll,
    Bookmark(String),
}

impl Entry {
    fn delta(&self) -> Option<&Delta> {
        match self {
            Entry::Delta(d) => Some(d),
            _ => None,
        }
    }

    fn key(&self) -> &str {
        self.delta().map_or("", |d| d.object.key())
    }

    fn delta_type(&self) -> DeltaType {
        match self {
            Entry::Delta(d) => d.delta_type,
            Entry::ReplacedAll(_) => DeltaType::ReplacedAll,
            Entry::SyncAll => DeltaType::SyncAll,
            Entry::Bookmark(_) => DeltaType::Bookmark,
        }
    }

    /// The trace line of this entry entering the queue, `depth` long after it.
    fn event(&self, depth: usize) -> Event {
        let marker = |delta_type, rv: &str| Event::Delta {
            delta_type,
            key: String::new(),
            resource_version: rv.to_owned(),
            depth,
            tombstone: false,
        };
        match self {
            Entry::Delta(d) => Event::delta(d, depth),
            Entry::ReplacedAll(list) => marker(DeltaType::ReplacedAll, &list.resource_version),
            Entry::SyncAll => marker(DeltaType::SyncAll, ""),
            Entry::Bookmark(rv) => marker(DeltaType::Bookmark, rv),
        }
    }
}

/// What one pop took: a single entry (no allocation), or a PopBatch of deltas.
enum Taken {
    One(Option<Entry>),
    Batch(Vec<Delta>),
}

impl Taken {
    fn len(&self) -> usize {
        match self {
            Taken::One(entry) => usize::from(entry.is_some()),
            Taken::Batch(deltas) => deltas.len(),
        }
    }

    fn first_key(&self) -> &str {
        match self {
            Taken::One(entry) => entry.as_ref().map_or("", Entry::key),
            Taken::Batch(deltas) => deltas.first().map_or("", |d| d.object.key()),
        }
    }
}

#[derive(Default)]
struct RealState {
    items: VecDeque<Entry>,
    populated: bool,
    initial_population_count: usize,
    closed: bool,
}

impl RealState {
    fn has_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }

    /// The entries one pop takes: the head alone, or (PopBatch) up to [`BATCH_SIZE`] deltas
    /// for distinct keys, never past the initial population nor across an atomic entry.
    fn take(&mut self, batch: bool) -> Taken {
        if !batch || self.items.front().is_some_and(|e| e.delta().is_none()) {
            return Taken::One(self.items.pop_front());
        }
        let mut keys = KeySet::default();
        let mut n = 0;
        while n < BATCH_SIZE && n < self.items.len() {
            if self.initial_population_count > 0 && n >= self.initial_population_count {
                break;
            }
            let Some(delta) = self.items[n].delta() else {
                break;
            };
            if !keys.insert(delta.object.key().to_owned()) {
                break;
            }
            n += 1;
        }
        Taken::Batch(
            self.items
                .drain(..n)
                .filter_map(|e| match e {
                    Entry::Delta(d) => Some(d),
                    _ => None,
                })
                .collect(),
        )
    }
}

impl RealFifo {
    /// A RealFIFO with the default options, `known` its KnownObjects.
    pub fn new(known: Arc<Store>, tracer: Tracer) -> Self {
        Self::with_options(known, tracer, RealFifoOptions::default())
    }

    /// A RealFIFO with `options`.
    pub fn with_options(known: Arc<Store>, tracer: Tracer, options: RealFifoOptions) -> Self {
        Self {
            inner: Mutex::new(RealState::default()),
            notify: Notify::new(),
            known,
            options,
            tracer,
        }
    }

    fn lock(&self) -> MutexGuard<'_, RealState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, state: &mut RealState, entry: Entry) {
        let depth = state.items.len() + 1;
        self.tracer
            .emit_with(EventKind::Delta, || entry.event(depth));
        state.items.push_back(entry);
        self.notify.notify_one();
    }

    fn push_delta(&self, state: &mut RealState, delta: Delta) {
        self.push(state, Entry::Delta(delta));
    }

    async fn pop_one(&self, process: &mut ProcessFn<'_>) -> Result<(), QueueClosed> {
        blocking_pop(&self.notify, || {
            let mut state = self.lock();
            if state.items.is_empty() {
                return state.closed.then_some(Err(QueueClosed));
            }
            let initial = !state.has_synced();
            let taken = state.take(self.options.pop_batch);
            let depth = state.items.len();
            self.tracer.emit_with(EventKind::Pop, || Event::Pop {
                key: taken.first_key().to_owned(),
                deltas: taken.len(),
                depth,
                initial,
                batch: self.options.pop_batch.then_some(taken.len()),
            });
            // client-go 1.36 unlocks while processing unless two batches are waiting.
            let unlock = self.options.unlock_while_processing && depth < 2 * BATCH_SIZE;
            let held = (!unlock).then_some(state);
            self.process(&taken, initial, process);
            let mut state = held.unwrap_or_else(|| self.lock());
            state.initial_population_count =
                state.initial_population_count.saturating_sub(taken.len());
            Some(Ok(()))
        })
        .await
    }

    /// Hands the popped entries to `process`. RealFIFO does not re-queue: a failed item is
    /// the process function's to log.
    fn process(&self, taken: &Taken, initial: bool, process: &mut ProcessFn<'_>) {
        let _ = match taken {
            Taken::One(None) => Ok(()),
            Taken::One(Some(Entry::ReplacedAll(list))) => {
                process.replaced_all(list, initial);
                Ok(())
            }
            Taken::One(Some(Entry::SyncAll)) => {
                process.sync_all();
                Ok(())
            }
            Taken::One(Some(Entry::Bookmark(rv))) => {
                process.bookmark(rv);
                Ok(())
            }
            Taken::One(Some(Entry::Delta(delta))) if self.options.pop_batch => {
                process.batch(std::slice::from_ref(delta), initial)
            }
            Taken::One(Some(Entry::Delta(delta))) => {
                process.deltas(std::slice::from_ref(delta), initial)
            }
            Taken::Batch(deltas) => process.batch(deltas, initial),
        };
    }

    /// The queued deltas in order (atomic entries left out), for tests.
    pub fn queued(&self) -> Vec<Delta> {
        self.lock()
            .items
            .iter()
            .filter_map(Entry::delta)
            .cloned()
            .collect()
    }

    /// The type of every queued entry in order, for tests.
    pub fn queued_types(&self) -> Vec<DeltaType> {
        self.lock().items.iter().map(Entry::delta_type).collect()
    }

    /// Tombstones for queued and known keys missing from `list`, then a Replaced per object.
    fn reconcile(&self, state: &mut RealState, list: Vec<ObjectRef>) {
        let keys: KeySet<&str> = list.iter().map(|o| o.key()).collect();
        // The newest queued delta per key, keys in first-queued order.
        let mut newest: KeyMap<String, Delta> = KeyMap::default();
        let mut queued_keys = Vec::new();
        for d in state.items.iter().filter_map(Entry::delta) {
            let key = d.object.key().to_owned();
            if newest.insert(key.clone(), d.clone()).is_none() {
                queued_keys.push(key);
            }
        }
        for key in &queued_keys {
            let last = &newest[key];
            if keys.contains(key.as_str()) || last.delta_type == DeltaType::Deleted {
                continue;
            }
            let obj = last.object.object().clone();
            self.push_delta(state, Delta::tombstone(key.clone(), obj));
        }
        for obj in self.known.list_sorted() {
            let key = obj.key();
            if keys.contains(key) || newest.contains_key(key) {
                continue;
            }
            self.push_delta(state, Delta::tombstone(key.to_owned(), obj.clone()));
        }
        drop(keys);
        for obj in list {
            self.push_delta(state, Delta::new(DeltaType::Replaced, obj));
        }
    }
}

impl Queue for RealFifo {
    fn queue_event(&self, delta_type: DeltaType, obj: ObjectRef) {
        let mut state = self.lock();
        state.populated = true;
        self.push_delta(&mut state, Delta::new(delta_type, obj));
    }

    fn replace(&self, list: Vec<ObjectRef>) {
        self.replace_at(list, "");
    }

    fn replace_at(&self, list: Vec<ObjectRef>, resource_version: &str) {
        let mut state = self.lock();
        if self.options.atomic_events {
            let list = ReplacedAll {
                resource_version: resource_version.to_owned(),
                objects: list,
            };
            self.push(&mut state, Entry::ReplacedAll(Arc::new(list)));
        } else {
            self.reconcile(&mut state, list);
        }
        if !state.populated {
            state.populated = true;
            state.initial_population_count = state.items.len();
        }
    }

    fn resync(&self) -> usize {
        let mut state = self.lock();
        if self.options.atomic_events {
            self.push(&mut state, Entry::SyncAll);
            return 1;
        }
        let queued: KeySet<String> = state.items.iter().map(|e| e.key().to_owned()).collect();
        let mut count = 0;
        for obj in self.known.list_sorted() {
            if queued.contains(obj.key()) {
                continue;
            }
            self.push_delta(&mut state, Delta::new(DeltaType::Sync, obj));
            count += 1;
        }
        count
    }

    fn bookmark(&self, resource_version: &str) {
        if self.options.atomic_events {
            let mut state = self.lock();
            self.push(&mut state, Entry::Bookmark(resource_version.to_owned()));
        }
    }

    fn pop<'a, 'p: 'a>(&'a self, process: &'a mut ProcessFn<'p>) -> PopFuture<'a> {
        Box::pin(self.pop_one(process))
    }

    fn has_synced(&self) -> bool {
        self.lock().has_synced()
    }

    fn queued_items(&self) -> usize {
        self.lock().items.len()
    }

    /// Wakes every blocked pop (Rule F8).
    fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }
}
