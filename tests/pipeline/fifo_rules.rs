//! DeltaFIFO (F1–F6, F8) and RealFIFO (Q1) rules, driven through the public queue API with
//! the indexer as KnownObjects.

use crate::common;

use common::AnyFifo;

use std::sync::Arc;

use kinformer::informer::Ingest;
use kinformer::informer::ObjectRef;
use kinformer::informer::trace::Tracer;
use kinformer::informer::{Delta, DeltaType, ProcessError, QueueKind};
use kinformer::informer::{Indexers, Store};

fn obj(key: &str, rv: u32) -> ObjectRef {
    let (ns, name) = key.split_once('/').unwrap_or(("", key));
    let raw = serde_json::json!({"metadata": {"name": name, "namespace": ns, "resourceVersion": rv.to_string()}});
    Ingest::new(Indexers::default(), None)
        .decode(serde_json::to_vec(&raw).unwrap())
        .unwrap()
}

fn queue(kind: QueueKind, known: &[ObjectRef]) -> (AnyFifo, Arc<Store>) {
    let store = Arc::new(Store::default());
    for o in known {
        store.upsert(o.clone());
    }
    (
        AnyFifo::new(kind, store.clone(), Tracer::counting_only()),
        store,
    )
}

/// Pops one entry and returns its deltas as `(type, key, rv, tombstone)` plus isInInitialList.
async fn pop(q: &AnyFifo) -> (Vec<(DeltaType, String, String, bool)>, bool) {
    let mut got = (Vec::new(), false);
    q.pop(&mut |deltas: &[Delta], initial| {
        got = (describe(deltas), initial);
        Ok(())
    })
    .await
    .unwrap();
    got
}

fn describe(deltas: &[Delta]) -> Vec<(DeltaType, String, String, bool)> {
    deltas
        .iter()
        .map(|d| {
            (
                d.delta_type,
                d.object.key().to_owned(),
                d.object.object().resource_version().to_owned(),
                d.object.is_tombstone(),
            )
        })
        .collect()
}

fn d(t: DeltaType, key: &str, rv: u32, tombstone: bool) -> (DeltaType, String, String, bool) {
    (t, key.to_owned(), rv.to_string(), tombstone)
}

fn delta_fifo(q: &AnyFifo) -> &kinformer::informer::DeltaFifo {
    match q {
        AnyFifo::Delta(f) => f,
        AnyFifo::Real(_) => panic!("not a DeltaFIFO"),
    }
}

#[tokio::test]
async fn f1_keys_leave_in_first_arrival_order_and_later_deltas_append() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[]);
    q.add(obj("ns/a", 1));
    q.add(obj("ns/b", 2));
    q.update(obj("ns/a", 3));
    assert_eq!(delta_fifo(&q).queued_keys(), ["ns/a", "ns/b"]);
    let (first, _) = pop(&q).await;
    assert_eq!(
        first,
        [
            d(DeltaType::Added, "ns/a", 1, false),
            d(DeltaType::Updated, "ns/a", 3, false)
        ]
    );
    let (second, _) = pop(&q).await;
    assert_eq!(second, [d(DeltaType::Added, "ns/b", 2, false)]);
}

#[tokio::test]
async fn f2_two_consecutive_deletes_collapse_keeping_the_older_unless_it_is_a_tombstone() {
    // Real delete first, then Replace adds a tombstone: the older (real) delete stays.
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/a", 1)]);
    q.delete(obj("ns/a", 2));
    q.replace(vec![]);
    assert_eq!(
        describe(&delta_fifo(&q).deltas_of("ns/a")),
        [d(DeltaType::Deleted, "ns/a", 2, false)]
    );

    // Tombstone first (from Replace), then the real delete arrives: the older is a
    // tombstone, so the newer replaces it.
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/b", 1)]);
    q.replace(vec![]);
    assert_eq!(
        describe(&delta_fifo(&q).deltas_of("ns/b")),
        [d(DeltaType::Deleted, "ns/b", 1, true)]
    );
    q.delete(obj("ns/b", 5));
    assert_eq!(
        describe(&delta_fifo(&q).deltas_of("ns/b")),
        [d(DeltaType::Deleted, "ns/b", 5, false)]
    );

    // Two real deletes: the older one stands (client-go's isDeletionDup returns the older
    // delta unless it is a DeletedFinalStateUnknown).
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/c", 1)]);
    q.delete(obj("ns/c", 2));
    q.delete(obj("ns/c", 3));
    assert_eq!(
        describe(&delta_fifo(&q).deltas_of("ns/c")),
        [d(DeltaType::Deleted, "ns/c", 2, false)]
    );
}

#[tokio::test]
async fn f3_a_delete_for_a_key_neither_queued_nor_known_is_dropped() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/known", 1)]);
    q.delete(obj("ns/ghost", 9));
    assert!(delta_fifo(&q).queued_keys().is_empty());
    q.delete(obj("ns/known", 2));
    q.add(obj("ns/queued", 3));
    q.delete(obj("ns/queued", 4));
    assert_eq!(delta_fifo(&q).queued_keys(), ["ns/known", "ns/queued"]);
}

#[tokio::test]
async fn f4_replace_queues_replaced_for_listed_and_tombstones_for_missing_queued_and_known_keys() {
    let (q, _) = queue(
        QueueKind::DeltaFifo,
        &[obj("ns/keep", 1), obj("ns/gone", 2)],
    );
    q.add(obj("ns/queued-gone", 3));
    q.replace(vec![obj("ns/keep", 4), obj("ns/new", 5)]);
    let f = delta_fifo(&q);
    assert_eq!(
        describe(&f.deltas_of("ns/keep")),
        [d(DeltaType::Replaced, "ns/keep", 4, false)]
    );
    assert_eq!(
        describe(&f.deltas_of("ns/new")),
        [d(DeltaType::Replaced, "ns/new", 5, false)]
    );
    // The tombstone carries the last known state: from the queue, or from the indexer.
    assert_eq!(
        describe(&f.deltas_of("ns/queued-gone")),
        [
            d(DeltaType::Added, "ns/queued-gone", 3, false),
            d(DeltaType::Deleted, "ns/queued-gone", 3, true)
        ]
    );
    assert_eq!(
        describe(&f.deltas_of("ns/gone")),
        [d(DeltaType::Deleted, "ns/gone", 2, true)]
    );
}

#[tokio::test]
async fn f5_resync_queues_sync_only_for_known_keys_without_queued_deltas() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/a", 1), obj("ns/b", 2)]);
    q.update(obj("ns/b", 3));
    assert_eq!(q.resync(), 1);
    let f = delta_fifo(&q);
    assert_eq!(
        describe(&f.deltas_of("ns/a")),
        [d(DeltaType::Sync, "ns/a", 1, false)]
    );
    assert_eq!(
        describe(&f.deltas_of("ns/b")),
        [d(DeltaType::Updated, "ns/b", 3, false)]
    );
}

#[tokio::test]
async fn f6_has_synced_once_the_first_replace_items_and_deletions_are_popped() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[obj("ns/old", 1)]);
    assert!(!q.has_synced());
    q.replace(vec![obj("ns/a", 2), obj("ns/b", 3)]);
    assert!(!q.has_synced());
    assert!(pop(&q).await.1, "first item is in the initial list");
    assert!(pop(&q).await.1);
    assert!(
        !q.has_synced(),
        "the deletion of ns/old is part of the initial population"
    );
    let (last, initial) = pop(&q).await;
    assert_eq!(last, [d(DeltaType::Deleted, "ns/old", 1, true)]);
    assert!(initial);
    assert!(q.has_synced());
    q.add(obj("ns/c", 4));
    assert!(!pop(&q).await.1, "after sync nothing is initial");
}

#[tokio::test]
async fn f6_an_empty_initial_list_is_synced_at_once() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[]);
    q.replace(vec![]);
    assert!(q.has_synced());
}

#[tokio::test]
async fn f8_pop_hands_over_the_whole_list_and_requeues_it_on_error() {
    let (q, _) = queue(QueueKind::DeltaFifo, &[]);
    q.add(obj("ns/a", 1));
    q.update(obj("ns/a", 2));
    q.add(obj("ns/b", 3));
    let mut seen = Vec::new();
    q.pop(&mut |deltas: &[Delta], _| {
        seen.push(describe(deltas));
        Err(ProcessError("handler failed".into()))
    })
    .await
    .unwrap();
    assert_eq!(seen[0].len(), 2, "both deltas of ns/a in one call");
    assert_eq!(
        delta_fifo(&q).queued_keys(),
        ["ns/b", "ns/a"],
        "re-queued at the back"
    );
    pop(&q).await;
    let (again, _) = pop(&q).await;
    assert_eq!(again, seen[0]);
}

#[tokio::test]
async fn f8_close_wakes_every_blocked_pop() {
    for kind in [QueueKind::DeltaFifo, QueueKind::RealFifo] {
        let (q, _) = queue(kind, &[]);
        let q = Arc::new(q);
        let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
        let poppers: Vec<_> = (0..3)
            .map(|_| {
                let q = q.clone();
                let started = started_tx.clone();
                tokio::spawn(async move {
                    let _ = started.send(());
                    q.pop(&mut |_: &[Delta], _| Ok(())).await
                })
            })
            .collect();
        for _ in 0..3 {
            started_rx.recv().await.unwrap();
        }
        // Let every popper reach its wait on the empty queue.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        q.close();
        for popper in poppers {
            let popped = tokio::time::timeout(std::time::Duration::from_secs(60), popper)
                .await
                .unwrap_or_else(|_| panic!("{kind:?}: a blocked pop was not woken by close"))
                .unwrap();
            assert!(popped.is_err(), "{kind:?}: pop after close must fail");
        }
    }
}

#[tokio::test]
async fn q1_real_fifo_keeps_one_entry_per_event_in_order_without_coalescing() {
    let (q, _) = queue(
        QueueKind::RealFifo,
        &[obj("ns/known", 1), obj("ns/gone", 2)],
    );
    q.add(obj("ns/a", 3));
    q.update(obj("ns/a", 4));
    q.delete(obj("ns/ghost", 5)); // RealFIFO keeps even a delete for an unknown key
    q.add(obj("ns/queued-gone", 6));
    q.replace(vec![obj("ns/known", 7), obj("ns/a", 8)]);
    let AnyFifo::Real(f) = &q else {
        panic!("not a RealFIFO")
    };
    assert_eq!(
        describe(&f.queued()),
        [
            d(DeltaType::Added, "ns/a", 3, false),
            d(DeltaType::Updated, "ns/a", 4, false),
            d(DeltaType::Deleted, "ns/ghost", 5, false),
            d(DeltaType::Added, "ns/queued-gone", 6, false),
            // Replace: tombstones first (queued keys, then known keys), then Replaced.
            d(DeltaType::Deleted, "ns/queued-gone", 6, true),
            d(DeltaType::Deleted, "ns/gone", 2, true),
            d(DeltaType::Replaced, "ns/known", 7, false),
            d(DeltaType::Replaced, "ns/a", 8, false),
        ]
    );
    let (first, initial) = pop(&q).await;
    assert_eq!(
        first,
        [d(DeltaType::Added, "ns/a", 3, false)],
        "one delta per pop"
    );
    // As in client-go, an Add before the first Replace already marked the queue populated,
    // so this Replace does not set an initial population.
    assert!(!initial);
}

#[tokio::test]
async fn q1_real_fifo_resync_skips_keys_with_queued_events() {
    let (q, _) = queue(QueueKind::RealFifo, &[obj("ns/a", 1), obj("ns/b", 2)]);
    q.update(obj("ns/a", 3));
    assert_eq!(q.resync(), 1);
}
