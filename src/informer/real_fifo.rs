//! RealFIFO, client-go ≥ 1.33's in-order queue (Rule Q1): one entry per event in arrival
//! order, no per-key coalescing, every delete kept. Replace queues tombstone deletions for
//! queued and known keys missing from the list first, then one Replaced per listed object.
//!
//! Invariants (under the lock): `items` is in arrival order and every entry is one delta;
//! `initial_population_count` counts down the first Replace's entries as they are popped.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::object::ObjectRef;
use super::queue::{Delta, DeltaType, PopFuture, ProcessFn, Queue, QueueClosed, blocking_pop};
use super::store::Store;
use super::trace::{Event, EventKind, Tracer};

/// client-go's RealFIFO.
pub struct RealFifo {
    inner: Mutex<RealState>,
    notify: Notify,
    known: Arc<Store>,
    tracer: Tracer,
}

#[derive(Default)]
struct RealState {
    items: VecDeque<Delta>,
    populated: bool,
    initial_population_count: usize,
    closed: bool,
}

impl RealState {
    fn has_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }
}

impl RealFifo {
    pub fn new(known: Arc<Store>, tracer: Tracer) -> Self {
        Self {
            inner: Mutex::new(RealState::default()),
            notify: Notify::new(),
            known,
            tracer,
        }
    }

    fn lock(&self) -> MutexGuard<'_, RealState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, state: &mut RealState, delta: Delta) {
        let depth = state.items.len() + 1;
        self.tracer
            .emit_with(EventKind::Delta, || Event::delta(&delta, depth));
        state.items.push_back(delta);
        self.notify.notify_one();
    }

    async fn pop_one(&self, process: &mut ProcessFn<'_>) -> Result<(), QueueClosed> {
        blocking_pop(&self.notify, || {
            let mut state = self.lock();
            let Some(delta) = state.items.pop_front() else {
                return state.closed.then_some(Err(QueueClosed));
            };
            let initial = !state.has_synced();
            if state.initial_population_count > 0 {
                state.initial_population_count -= 1;
            }
            self.tracer.emit_with(EventKind::Pop, || Event::Pop {
                key: delta.object.key().to_owned(),
                deltas: 1,
                depth: state.items.len(),
                initial,
            });
            // RealFIFO does not re-queue: a failed item is the process function's to log.
            let _ = process(std::slice::from_ref(&delta), initial);
            Some(Ok(()))
        })
        .await
    }

    /// The queued deltas in order, for tests.
    pub fn queued(&self) -> Vec<Delta> {
        self.lock().items.iter().cloned().collect()
    }
}

impl Queue for RealFifo {
    fn queue_event(&self, delta_type: DeltaType, obj: ObjectRef) {
        let mut state = self.lock();
        state.populated = true;
        self.push(&mut state, Delta::new(delta_type, obj));
    }

    fn replace(&self, list: Vec<ObjectRef>) {
        let mut state = self.lock();
        let keys: HashSet<&str> = list.iter().map(|o| o.key()).collect();
        // The newest queued delta per key, keys in first-queued order.
        let mut newest: HashMap<String, Delta> = HashMap::new();
        let mut queued_keys = Vec::new();
        for d in &state.items {
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
            self.push(&mut state, Delta::tombstone(key.clone(), obj));
        }
        for obj in self.known.list_sorted() {
            let key = obj.key();
            if keys.contains(key) || newest.contains_key(key) {
                continue;
            }
            self.push(&mut state, Delta::tombstone(key.to_owned(), obj.clone()));
        }
        drop(keys);
        for obj in list {
            self.push(&mut state, Delta::new(DeltaType::Replaced, obj));
        }
        if !state.populated {
            state.populated = true;
            state.initial_population_count = state.items.len();
        }
    }

    fn resync(&self) -> usize {
        let mut state = self.lock();
        let queued: HashSet<String> = state
            .items
            .iter()
            .map(|d| d.object.key().to_owned())
            .collect();
        let mut count = 0;
        for obj in self.known.list_sorted() {
            if queued.contains(obj.key()) {
                continue;
            }
            self.push(&mut state, Delta::new(DeltaType::Sync, obj));
            count += 1;
        }
        count
    }

    fn pop<'a, 'p: 'a>(&'a self, process: &'a mut ProcessFn<'p>) -> PopFuture<'a> {
        Box::pin(self.pop_one(process))
    }

    fn has_synced(&self) -> bool {
        self.lock().has_synced()
    }

    /// Wakes every blocked pop (Rule F8).
    fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }
}
