//! DeltaFIFO with client-go ≤ 1.32 semantics (the seeds'), the indexer as KnownObjects and
//! `EmitDeltaTypeReplaced` on.
//!
//! Invariants (under the lock): every key in `queue` has a non-empty entry in `items` and
//! appears once; `items` holds no key that is not queued; `initial_population_count` counts
//! down the first Replace's entries as they are popped.
//!
//! One entry per key, in order of the key's first arrival; a key's deltas accumulate until it is
//! popped (Rules F1–F8). Pop hands the whole list to the process function under the queue lock,
//! as client-go does, so a Replace or Resync never sees the indexer half-updated.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::object::ObjectRef;
use super::queue::{Delta, DeltaType, PopFuture, ProcessFn, Queue, QueueClosed, blocking_pop};
use super::store::{KeyMap, KeySet, Store};
use super::trace::{Event, EventKind, Tracer};

/// client-go's DeltaFIFO.
pub struct DeltaFifo {
    inner: Mutex<FifoState>,
    notify: Notify,
    known: Arc<Store>,
    tracer: Tracer,
}

#[derive(Default)]
struct FifoState {
    items: KeyMap<String, Vec<Delta>>,
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
    /// A DeltaFIFO whose KnownObjects (for Replace's deletions and Resync) is `known`.
    pub fn new(known: Arc<Store>, tracer: Tracer) -> Self {
        Self {
            inner: Mutex::new(FifoState::default()),
            notify: Notify::new(),
            known,
            tracer,
        }
    }

    fn lock(&self) -> MutexGuard<'_, FifoState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
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
            .emit_with(EventKind::Delta, || Event::delta(delta, depth));
    }

    async fn pop_one(&self, process: &mut ProcessFn<'_>) -> Result<(), QueueClosed> {
        blocking_pop(&self.notify, || {
            let mut state = self.lock();
            if let Some(key) = state.queue.pop_front() {
                self.process_head(&mut state, key, process);
                return Some(Ok(()));
            }
            state.closed.then_some(Err(QueueClosed))
        })
        .await
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
            batch: None,
        });
        if process.deltas(&deltas, initial).is_err() {
            // Rule F8: re-queue unless something newer was queued meanwhile.
            if !state.items.contains_key(&key) {
                state.queue.push_back(key.clone());
                state.items.insert(key, deltas);
            }
        }
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

impl Queue for DeltaFifo {
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

    fn replace(&self, list: Vec<ObjectRef>) {
        let mut state = self.lock();
        let keys: KeySet<String> = list.iter().map(|o| o.key().to_owned()).collect();
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

    fn pop<'a, 'p: 'a>(&'a self, process: &'a mut ProcessFn<'p>) -> PopFuture<'a> {
        Box::pin(self.pop_one(process))
    }

    fn has_synced(&self) -> bool {
        self.lock().has_synced()
    }

    fn queued_items(&self) -> usize {
        self.lock().queue.len()
    }

    /// Rule F8: wakes every blocked pop (client-go's `cond.Broadcast`).
    fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
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
