//! client-go's own `tools/cache` tests, replayed against kinformer.
//!
//! Each test mirrors one Go test, named in its doc comment with the file and the release whose
//! semantics we model (DeltaFIFO and the indexer at v0.32.0, RealFIFO at v0.33.0), and keeps
//! client-go's inputs and expected values, written in our API. client-go's `mkFifoObj(name, val)`
//! becomes a cluster-scoped object keyed `name` whose resourceVersion is `val`; a Go test without
//! KnownObjects gets an empty indexer (the same answers: nothing known). Where our model differs
//! on purpose the doc comment says how: our DeltaFIFO always runs with `EmitDeltaTypeReplaced`
//! (a Replace queues `Replaced`, never `Sync`), and the transform runs when an object is decoded,
//! before any queue sees it (Rule F7).

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use common::{AnyFifo, DEADLINE, Harness, Recorder, count};
use kinformer::informer::source::SourceError;
use kinformer::informer::trace::{Event, TraceEvent, Tracer};
use kinformer::informer::{CachedObject, ObjectRef};
use kinformer::informer::{Delta, DeltaType as T, ProcessError, QueueKind};
use kinformer::informer::{IndexFunc, Indexers, Store};
use kinformer::informer::{InformerConfig, InformerError, Registration, SharedIndexInformer};
use kinformer::informer::{Ingest, Transform};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Queue harness: client-go's mkFifoObj, literalListerGetter, Pop and the tests' scenarios.
// ---------------------------------------------------------------------------------------------

/// A popped or queued delta as `(type, key, val, tombstone)`.
type Seen = (T, String, String, bool);

fn decode(ingest: &Ingest, value: &Value) -> ObjectRef {
    ingest
        .decode(serde_json::to_vec(value).unwrap())
        .expect("test objects decode")
}

/// client-go's `mkFifoObj(name, val)`.
fn fifo_obj(name: &str, val: u32) -> ObjectRef {
    let raw = json!({"metadata": {"name": name, "resourceVersion": val.to_string()}});
    decode(&Ingest::new(Indexers::default(), None), &raw)
}

/// A queue whose KnownObjects (the indexer) holds `known` (client-go's `literalListerGetter`).
fn fifo(kind: QueueKind, known: &[(&str, u32)]) -> AnyFifo {
    let store = Arc::new(Store::default());
    for (name, val) in known {
        store.upsert(fifo_obj(name, *val));
    }
    AnyFifo::new(kind, store, Tracer::counting_only())
}

/// The three objects most of client-go's KnownObjects tests start from.
const FOO_BAR_BAZ: &[(&str, u32)] = &[("foo", 5), ("bar", 6), ("baz", 7)];

/// `{Type, mkFifoObj(name, val)}`.
fn d(t: T, name: &str, val: u32) -> Seen {
    (t, name.to_owned(), val.to_string(), false)
}

/// `{Deleted, DeletedFinalStateUnknown{Key: name, Obj: mkFifoObj(name, val)}}`.
fn tomb(name: &str, val: u32) -> Seen {
    (T::Deleted, name.to_owned(), val.to_string(), true)
}

fn seen(delta: &Delta) -> Seen {
    (
        delta.delta_type,
        delta.object.key().to_owned(),
        delta.object.object().resource_version().to_owned(),
        delta.object.is_tombstone(),
    )
}

fn seen_all(deltas: &[Delta]) -> Vec<Seen> {
    deltas.iter().map(seen).collect()
}

/// client-go's `pop2`: one Pop, with the deltas handed to the process function and
/// `isInInitialList`.
async fn pop_deltas(q: &AnyFifo) -> (Vec<Delta>, bool) {
    let mut got = (Vec::new(), false);
    q.pop(&mut |deltas: &[Delta], initial| {
        got = (deltas.to_vec(), initial);
        Ok(())
    })
    .await
    .expect("the queue is open");
    got
}

/// client-go's `Pop(f)`.
async fn pop(q: &AnyFifo) -> Vec<Seen> {
    seen_all(&pop_deltas(q).await.0)
}

/// Every queued delta, in queue order (client-go's `f.items` / `getItems()`).
fn queued(q: &AnyFifo) -> Vec<Seen> {
    match q {
        AnyFifo::Delta(f) => f
            .queued_keys()
            .iter()
            .flat_map(|k| f.deltas_of(k))
            .map(|delta| seen(&delta))
            .collect(),
        AnyFifo::Real(f) => f.queued().iter().map(seen).collect(),
    }
}

/// Pops every queued entry; one element per Pop.
async fn drain(q: &AnyFifo) -> Vec<Vec<Seen>> {
    let mut pops = Vec::new();
    while !queued(q).is_empty() {
        pops.push(pop(q).await);
    }
    pops
}

/// [`drain`], then [`assert_drained`].
async fn pop_all(q: &AnyFifo) -> Vec<Vec<Seen>> {
    let pops = drain(q).await;
    assert_drained(q).await;
    pops
}

/// Nothing is left: the queue is empty, and once closed a Pop fails instead of handing
/// anything over (client-go's "no second value" and "item did not get removed" checks).
async fn assert_drained(q: &AnyFifo) {
    assert_eq!(queued(q), [], "queue unexpectedly not empty");
    q.close();
    let popped = q.pop(&mut |_: &[Delta], _| Ok(())).await;
    assert!(popped.is_err(), "a closed, empty queue hands nothing over");
}

/// client-go's `testPop(f).val` for each Pop: the newest delta's val.
fn newest_vals(pops: &[Vec<Seen>]) -> Vec<String> {
    pops.iter()
        .map(|p| p.last().expect("a Pop hands over deltas").2.clone())
        .collect()
}

/// What one of client-go's queue tests does, on either queue: the KnownObjects it starts
/// from and its operations.
struct Scenario {
    known: &'static [(&'static str, u32)],
    ops: fn(&AnyFifo),
}

impl Scenario {
    fn run(&self, kind: QueueKind) -> AnyFifo {
        let q = fifo(kind, self.known);
        (self.ops)(&q);
        q
    }

    /// The queue's contents after the operations.
    fn queued(&self, kind: QueueKind) -> Vec<Seen> {
        queued(&self.run(kind))
    }

    /// Every Pop after the operations, until the queue is empty; then nothing is left.
    async fn pops(&self, kind: QueueKind) -> Vec<Vec<Seen>> {
        pop_all(&self.run(kind)).await
    }
}

/// `Test*FIFO_replaceWithDeleteDeltaIn`.
const REPLACE_WITH_DELETE_DELTA_IN: Scenario = Scenario {
    known: &[("foo", 1)],
    ops: |f| {
        f.delete(fifo_obj("foo", 1));
        f.replace(vec![fifo_obj("foo", 2)]);
    },
};

/// `Test*FIFO_addUpdate`.
const ADD_UPDATE: Scenario = Scenario {
    known: &[],
    ops: |f| {
        f.add(fifo_obj("foo", 10));
        f.update(fifo_obj("foo", 12));
        f.delete(fifo_obj("foo", 15));
    },
};

/// `Test*FIFO_enqueueingNoLister`: the last delete is for a baz nobody knows.
const ENQUEUEING_NO_LISTER: Scenario = Scenario {
    known: &[],
    ops: |f| {
        f.add(fifo_obj("foo", 10));
        f.update(fifo_obj("bar", 15));
        f.add(fifo_obj("qux", 17));
        f.delete(fifo_obj("qux", 18));
        f.delete(fifo_obj("baz", 20));
    },
};

/// `Test*FIFO_enqueueingWithLister`: baz is known, so its delete is queued.
const ENQUEUEING_WITH_LISTER: Scenario = Scenario {
    known: FOO_BAR_BAZ,
    ops: |f| {
        f.add(fifo_obj("foo", 10));
        f.update(fifo_obj("bar", 15));
        f.delete(fifo_obj("baz", 20));
    },
};

/// `Test*FIFO_addReplace`.
const ADD_REPLACE: Scenario = Scenario {
    known: &[],
    ops: |f| {
        f.add(fifo_obj("foo", 10));
        f.replace(vec![fifo_obj("foo", 15)]);
    },
};

/// `Test*FIFO_ResyncNonExisting`.
const RESYNC_NON_EXISTING: Scenario = Scenario {
    known: &[("foo", 5)],
    ops: |f| {
        f.delete(fifo_obj("foo", 10));
        f.resync();
    },
};

/// `Test*FIFO_Resync`.
const RESYNC: Scenario = Scenario {
    known: &[("foo", 5)],
    ops: |f| {
        f.resync();
    },
};

/// `Test*FIFO_DeleteExistingNonPropagated`.
const DELETE_EXISTING_NON_PROPAGATED: Scenario = Scenario {
    known: &[],
    ops: |f| {
        f.add(fifo_obj("foo", 5));
        f.delete(fifo_obj("foo", 6));
    },
};

/// `Test*FIFO_ReplaceMakesDeletions`, its five parts in order.
const REPLACE_MAKES_DELETIONS: [Scenario; 5] = [
    // A pre-existing Delete.
    Scenario {
        known: FOO_BAR_BAZ,
        ops: |f| {
            f.delete(fifo_obj("baz", 10));
            f.replace(vec![fifo_obj("foo", 5)]);
        },
    },
    // An Add instead of a Delete.
    Scenario {
        known: FOO_BAR_BAZ,
        ops: |f| {
            f.add(fifo_obj("baz", 10));
            f.replace(vec![fifo_obj("foo", 5)]);
        },
    },
    // Delete and recreate the object in the queue, then delete it by a Replace.
    Scenario {
        known: FOO_BAR_BAZ,
        ops: |f| {
            f.delete(fifo_obj("bar", 6));
            f.add(fifo_obj("bar", 100));
            f.replace(vec![fifo_obj("foo", 5)]);
        },
    },
    // List it first, so that the delete uses the latest version.
    Scenario {
        known: FOO_BAR_BAZ,
        ops: |f| {
            f.replace(vec![fifo_obj("bar", 100), fifo_obj("foo", 5)]);
            f.replace(vec![fifo_obj("foo", 5)]);
        },
    },
    // No KnownObjects.
    Scenario {
        known: &[],
        ops: |f| {
            f.add(fifo_obj("baz", 10));
            f.replace(vec![fifo_obj("foo", 5)]);
        },
    },
];

/// `Test*FIFO_ReplaceMakesDeletionsReplaced`.
const REPLACE_MAKES_DELETIONS_REPLACED: Scenario = Scenario {
    known: FOO_BAR_BAZ,
    ops: |f| {
        f.delete(fifo_obj("baz", 10));
        f.replace(vec![fifo_obj("foo", 6)]);
    },
};

/// `Test*FIFO_UpdateResyncRace`.
const UPDATE_RESYNC_RACE: Scenario = Scenario {
    known: &[("foo", 5)],
    ops: |f| {
        f.update(fifo_obj("foo", 6));
        f.resync();
    },
};

/// The cases of client-go's `ReplaceMakesDeletionsForObjectsOnlyInQueue` tables (`obj` is
/// foo@2, `objV2` foo@3) with what they expect, the same for both queues; run with empty
/// KnownObjects.
fn only_in_queue_cases() -> Vec<(&'static str, Scenario, Vec<Seen>)> {
    let case = |ops: fn(&AnyFifo)| Scenario { known: &[], ops };
    vec![
        (
            "Added object should be deleted on Replace",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.replace(vec![]);
            }),
            vec![d(T::Added, "foo", 2), tomb("foo", 2)],
        ),
        (
            "Replaced object should have only a single Delete",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.replace(vec![fifo_obj("foo", 2)]);
                f.replace(vec![]);
            }),
            vec![
                d(T::Added, "foo", 2),
                d(T::Replaced, "foo", 2),
                tomb("foo", 2),
            ],
        ),
        (
            "Deleted object should have only a single Delete",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.delete(fifo_obj("foo", 2));
                f.replace(vec![]);
            }),
            vec![d(T::Added, "foo", 2), d(T::Deleted, "foo", 2)],
        ),
        (
            "Synced objects should have a single delete",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.replace(vec![fifo_obj("foo", 2)]);
                f.replace(vec![fifo_obj("foo", 2)]);
                f.replace(vec![]);
            }),
            vec![
                d(T::Added, "foo", 2),
                d(T::Replaced, "foo", 2),
                d(T::Replaced, "foo", 2),
                tomb("foo", 2),
            ],
        ),
        (
            "Added objects should have a single delete on multiple Replaces",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.replace(vec![]);
                f.replace(vec![]);
            }),
            vec![d(T::Added, "foo", 2), tomb("foo", 2)],
        ),
        (
            "Added and deleted and added object should be deleted",
            case(|f| {
                f.add(fifo_obj("foo", 2));
                f.delete(fifo_obj("foo", 2));
                f.add(fifo_obj("foo", 3));
                f.replace(vec![]);
            }),
            vec![
                d(T::Added, "foo", 2),
                d(T::Deleted, "foo", 2),
                d(T::Added, "foo", 3),
                tomb("foo", 3),
            ],
        ),
    ]
}

/// `Test*FIFO_HasSyncedCorrectOnDeletion`: known foo, bar, baz; Replace lists only foo. Each
/// Pop as `(deltas, isInInitialList, HasSynced before it)`, and HasSynced at the end.
async fn initial_list_pops(kind: QueueKind) -> (Vec<(Vec<Seen>, bool, bool)>, bool) {
    let f = fifo(kind, FOO_BAR_BAZ);
    f.replace(vec![fifo_obj("foo", 5)]);
    let mut pops = Vec::new();
    while !queued(&f).is_empty() {
        let synced_before = f.has_synced();
        let (deltas, initial) = pop_deltas(&f).await;
        pops.push((seen_all(&deltas), initial, synced_before));
    }
    (pops, f.has_synced())
}

/// `Test*FIFO_detectLineJumpers`: the val of every Pop, with foo@14 added after the first.
async fn line_jumpers(kind: QueueKind) -> Vec<String> {
    let f = fifo(kind, &[]);
    for (name, val) in [
        ("foo", 10),
        ("bar", 1),
        ("foo", 11),
        ("foo", 13),
        ("zab", 30),
    ] {
        f.add(fifo_obj(name, val));
    }
    let mut pops = vec![pop(&f).await];
    f.add(fifo_obj("foo", 14)); // foo must not jump back in line
    pops.extend(drain(&f).await);
    newest_vals(&pops)
}

/// One step of client-go's `HasSynced` tables.
enum Step {
    Add(&'static str, u32),
    Replace(&'static [(&'static str, u32)]),
    Pop,
}

/// client-go's `Test*FIFO_HasSynced` table; only its last case differs between the queues:
/// a list naming one key twice takes `duplicate_pops` Pops to sync.
fn has_synced_table(duplicate_pops: usize) -> Vec<(Vec<Step>, bool)> {
    let ab: &[(&str, u32)] = &[("a", 1), ("b", 2)];
    let mut duplicate = vec![Step::Replace(&[("a", 1), ("a", 2)])];
    duplicate.extend((0..duplicate_pops).map(|_| Step::Pop));
    vec![
        (vec![], false),
        (vec![Step::Add("a", 1)], true),
        (vec![Step::Replace(&[])], true),
        (vec![Step::Replace(ab)], false),
        (vec![Step::Replace(ab), Step::Pop], false),
        (vec![Step::Replace(ab), Step::Pop, Step::Pop], true),
        (duplicate, true),
    ]
}

async fn assert_has_synced_table(kind: QueueKind, duplicate_pops: usize) {
    for (i, (steps, expected)) in has_synced_table(duplicate_pops).iter().enumerate() {
        let q = fifo(kind, &[]);
        for step in steps {
            match step {
                Step::Add(name, val) => q.add(fifo_obj(name, *val)),
                Step::Replace(list) => {
                    q.replace(list.iter().map(|(n, v)| fifo_obj(n, *v)).collect());
                }
                Step::Pop => drop(pop(&q).await),
            }
        }
        assert_eq!(q.has_synced(), *expected, "test case {i}");
    }
}

/// client-go's `Test*FIFO_basic`: two producers add 500 objects each while one consumer pops
/// 1000 times; each producer's values come out in the order it added them.
async fn pops_keep_each_producers_order(kind: QueueKind) {
    const AMOUNT: u32 = 500;
    let q = Arc::new(fifo(kind, &[]));
    let producers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|prefix| {
            let q = q.clone();
            std::thread::spawn(move || {
                for i in 0..AMOUNT {
                    q.add(fifo_obj(&format!("{prefix}{i}"), i + 1));
                }
            })
        })
        .collect();
    let mut last = [0u32; 2];
    for _ in 0..AMOUNT * 2 {
        let popped = tokio::time::timeout(DEADLINE, pop(&q))
            .await
            .expect("a producer's add wakes the pop");
        let (_, key, val, _) = popped.last().cloned().unwrap();
        let producer = usize::from(key.starts_with('b'));
        let val: u32 = val.parse().unwrap();
        assert!(
            val > last[producer],
            "{key} = {val} out of order, last was {}",
            last[producer]
        );
        last[producer] = val;
    }
    for p in producers {
        p.join().unwrap();
    }
    assert_eq!(last, [AMOUNT, AMOUNT]);
}

/// client-go's `Test*FIFO_PopShouldUnblockWhenClosed`: ten Pops blocked on an empty queue all
/// return once it is closed.
async fn close_unblocks_ten_pops(kind: QueueKind) {
    const JOBS: usize = 10;
    let q = Arc::new(fifo(kind, &[("foo", 5)]));
    let pops: Vec<_> = (0..JOBS)
        .map(|_| {
            let q = q.clone();
            tokio::spawn(async move { q.pop(&mut |_: &[Delta], _| Ok(())).await })
        })
        .collect();
    // client-go's runtime.Gosched(): let the pops reach their wait.
    for _ in 0..JOBS {
        tokio::task::yield_now().await;
    }
    q.close();
    for p in pops {
        let popped = tokio::time::timeout(DEADLINE, p)
            .await
            .expect("timed out waiting for Pop to return after Close")
            .unwrap();
        assert!(popped.is_err(), "{kind:?}: Pop after Close reports it");
    }
}

/// client-go's `Test*FIFO_transformer` counts how often each object went through the
/// transform; ours runs at decode, so the scenario's objects come from an Ingest whose
/// transform bumps an `xfrm` label. Returns the queue after the operations.
fn transformer_scenario(kind: QueueKind) -> AnyFifo {
    let transform: Transform = Arc::new(|raw: &[u8]| {
        let mut v: Value = serde_json::from_slice(raw)?;
        let n: u32 = v["metadata"]["labels"]["xfrm"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        v["metadata"]["labels"]["xfrm"] = (n + 1).to_string().into();
        Ok(serde_json::to_vec(&v)?)
    });
    let ingest = Ingest::new(Indexers::default(), Some(transform));
    let mk = |name: &str, rv: u32| {
        decode(
            &ingest,
            &json!({"metadata": {"name": name, "resourceVersion": rv.to_string()}}),
        )
    };
    let q = fifo(kind, &[]);
    q.add(mk("foo", 10));
    q.add(mk("bar", 11));
    q.update(mk("foo", 12));
    q.delete(mk("foo", 15));
    q.replace(vec![]);
    q.add(mk("bar", 16));
    q.replace(vec![]);
    q
}

fn times_transformed(delta: &Delta) -> Option<&str> {
    delta.object.object().meta().label("xfrm")
}

// ---------------------------------------------------------------------------------------------
// delta_fifo_test.go (v0.32.0)
// ---------------------------------------------------------------------------------------------

/// client-go: TestDeltaFIFO_basic (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_basic() {
    pops_keep_each_producers_order(QueueKind::DeltaFifo).await;
}

/// client-go: TestDeltaFIFO_replaceWithDeleteDeltaIn (delta_fifo_test.go, v0.32.0).
/// client-go expects `Sync` for the listed object without `EmitDeltaTypeReplaced`; we always
/// emit `Replaced`.
#[tokio::test]
async fn test_delta_fifo_replace_with_delete_delta_in() {
    assert_eq!(
        REPLACE_WITH_DELETE_DELTA_IN
            .pops(QueueKind::DeltaFifo)
            .await,
        [[d(T::Deleted, "foo", 1), d(T::Replaced, "foo", 2)]]
    );
}

/// client-go: TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue (delta_fifo_test.go,
/// v0.32.0). client-go runs each case with and without KnownObjects; with an empty indexer
/// both are the one case here. "Synced objects…" expects `Sync, Sync` without
/// `EmitDeltaTypeReplaced`; we emit `Replaced`.
#[tokio::test]
async fn test_delta_fifo_replace_makes_deletions_for_objects_only_in_queue() {
    for (name, scenario, expected) in only_in_queue_cases() {
        let pops = scenario.pops(QueueKind::DeltaFifo).await;
        assert_eq!(pops, [expected], "{name}: one Pop hands over every delta");
    }
}

/// client-go: TestDeltaFIFO_requeueOnPop (delta_fifo_test.go, v0.32.0). Our `ProcessError` is
/// client-go's `ErrRequeue`; Pop does not hand the inner error back (the process function owns
/// it), so the case checks the requeueing only.
#[tokio::test]
async fn test_delta_fifo_requeue_on_pop() {
    let f = fifo(QueueKind::DeltaFifo, &[]);
    f.add(fifo_obj("foo", 10));
    for inner in ["", "test error"] {
        let mut handed = Vec::new();
        f.pop(&mut |deltas: &[Delta], _| {
            handed = seen_all(deltas);
            Err(ProcessError(inner.to_owned()))
        })
        .await
        .unwrap();
        assert_eq!(handed, [d(T::Added, "foo", 10)]);
        assert_eq!(
            queued(&f),
            [d(T::Added, "foo", 10)],
            "object should have been requeued ({inner:?})"
        );
    }
    assert_eq!(pop(&f).await, [d(T::Added, "foo", 10)]);
    assert_drained(&f).await;
}

/// client-go: TestDeltaFIFO_addUpdate (delta_fifo_test.go, v0.32.0): `f.List()` and
/// `f.ListKeys()` show one key whose newest object is foo@15, and one Pop takes it all.
#[tokio::test]
async fn test_delta_fifo_add_update() {
    let q = ADD_UPDATE.run(QueueKind::DeltaFifo);
    let AnyFifo::Delta(f) = &q else {
        unreachable!("built as a DeltaFIFO")
    };
    assert_eq!(f.queued_keys(), ["foo"]);
    assert_eq!(
        f.deltas_of("foo").last().map(seen),
        Some(d(T::Deleted, "foo", 15))
    );
    assert_eq!(newest_vals(&pop_all(&q).await), ["15"]);
}

/// client-go: TestDeltaFIFO_transformer (delta_fifo_test.go, v0.32.0). Our transform runs at
/// decode (Rule F7): every object, and the object inside each tombstone, was transformed once.
#[tokio::test]
async fn test_delta_fifo_transformer() {
    let f = transformer_scenario(QueueKind::DeltaFifo);
    let AnyFifo::Delta(delta_fifo) = &f else {
        unreachable!("built as a DeltaFIFO")
    };
    assert_eq!(delta_fifo.queued_keys(), ["foo", "bar"]);
    let mut newest = Vec::new();
    for _ in 0..2 {
        let (deltas, _) = pop_deltas(&f).await;
        assert!(deltas.iter().all(|d| times_transformed(d) == Some("1")));
        newest.push(seen(deltas.last().unwrap()));
    }
    // foo: a regular deletion at 15; bar: a tombstone with the last state, 16.
    assert_eq!(newest, [d(T::Deleted, "foo", 15), tomb("bar", 16)]);
}

/// client-go: TestDeltaFIFO_enqueueingNoLister (delta_fifo_test.go, v0.32.0): the delete of
/// the unknown baz enqueues nothing.
#[tokio::test]
async fn test_delta_fifo_enqueueing_no_lister() {
    let pops = ENQUEUEING_NO_LISTER.pops(QueueKind::DeltaFifo).await;
    assert_eq!(newest_vals(&pops), ["10", "15", "18"]);
}

/// client-go: TestDeltaFIFO_enqueueingWithLister (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_enqueueing_with_lister() {
    let pops = ENQUEUEING_WITH_LISTER.pops(QueueKind::DeltaFifo).await;
    assert_eq!(newest_vals(&pops), ["10", "15", "20"]);
}

/// client-go: TestDeltaFIFO_addReplace (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_add_replace() {
    let pops = ADD_REPLACE.pops(QueueKind::DeltaFifo).await;
    assert_eq!(newest_vals(&pops), ["15"]);
}

/// client-go: TestDeltaFIFO_ResyncNonExisting (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_resync_non_existing() {
    assert_eq!(
        RESYNC_NON_EXISTING.queued(QueueKind::DeltaFifo),
        [d(T::Deleted, "foo", 10)]
    );
}

/// client-go: TestDeltaFIFO_Resync (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_resync() {
    assert_eq!(RESYNC.queued(QueueKind::DeltaFifo), [d(T::Sync, "foo", 5)]);
}

/// client-go: TestDeltaFIFO_DeleteExistingNonPropagated (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_delete_existing_non_propagated() {
    assert_eq!(
        DELETE_EXISTING_NON_PROPAGATED.queued(QueueKind::DeltaFifo),
        [d(T::Added, "foo", 5), d(T::Deleted, "foo", 6)]
    );
}

/// client-go: TestDeltaFIFO_ReplaceMakesDeletions (delta_fifo_test.go, v0.32.0). A key with no
/// delete event that is not listed gets a tombstone with its newest state (queued, else
/// known). client-go expects `Sync` for listed objects without `EmitDeltaTypeReplaced`; we
/// emit `Replaced`.
#[tokio::test]
async fn test_delta_fifo_replace_makes_deletions() {
    let expected: [Vec<Vec<Seen>>; 5] = [
        vec![
            vec![d(T::Deleted, "baz", 10)],
            vec![d(T::Replaced, "foo", 5)],
            vec![tomb("bar", 6)],
        ],
        vec![
            vec![d(T::Added, "baz", 10), tomb("baz", 10)],
            vec![d(T::Replaced, "foo", 5)],
            vec![tomb("bar", 6)],
        ],
        vec![
            vec![
                d(T::Deleted, "bar", 6),
                d(T::Added, "bar", 100),
                tomb("bar", 100),
            ],
            vec![d(T::Replaced, "foo", 5)],
            vec![tomb("baz", 7)],
        ],
        vec![
            vec![d(T::Replaced, "bar", 100), tomb("bar", 100)],
            vec![d(T::Replaced, "foo", 5), d(T::Replaced, "foo", 5)],
            vec![tomb("baz", 7)],
        ],
        vec![
            vec![d(T::Added, "baz", 10), tomb("baz", 10)],
            vec![d(T::Replaced, "foo", 5)],
        ],
    ];
    for (part, (scenario, want)) in REPLACE_MAKES_DELETIONS.iter().zip(expected).enumerate() {
        assert_eq!(
            scenario.pops(QueueKind::DeltaFifo).await,
            want,
            "part {part}"
        );
    }
}

/// client-go: TestDeltaFIFO_ReplaceMakesDeletionsReplaced (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_replace_makes_deletions_replaced() {
    assert_eq!(
        REPLACE_MAKES_DELETIONS_REPLACED
            .pops(QueueKind::DeltaFifo)
            .await,
        [
            [d(T::Deleted, "baz", 10)],
            [d(T::Replaced, "foo", 6)],
            [tomb("bar", 6)]
        ]
    );
}

/// client-go: TestDeltaFIFO_ReplaceDeltaType (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_replace_delta_type() {
    let scenario = Scenario {
        known: &[("foo", 5)],
        ops: |f| f.replace(vec![fifo_obj("foo", 5)]),
    };
    assert_eq!(
        scenario.pops(QueueKind::DeltaFifo).await,
        [[d(T::Replaced, "foo", 5)]]
    );
}

/// client-go: TestDeltaFIFO_UpdateResyncRace (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_update_resync_race() {
    assert_eq!(
        UPDATE_RESYNC_RACE.pops(QueueKind::DeltaFifo).await,
        [[d(T::Updated, "foo", 6)]]
    );
}

/// client-go: TestDeltaFIFO_HasSyncedCorrectOnDeletion (delta_fifo_test.go, v0.32.0).
/// client-go expects `Sync` for foo without `EmitDeltaTypeReplaced`; we emit `Replaced`.
#[tokio::test]
async fn test_delta_fifo_has_synced_correct_on_deletion() {
    let (pops, synced) = initial_list_pops(QueueKind::DeltaFifo).await;
    assert_eq!(
        pops,
        [
            (vec![d(T::Replaced, "foo", 5)], true, false),
            (vec![tomb("bar", 6)], true, false),
            (vec![tomb("baz", 7)], true, false),
        ]
    );
    assert!(synced);
}

/// client-go: TestDeltaFIFO_detectLineJumpers (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_detect_line_jumpers() {
    assert_eq!(
        line_jumpers(QueueKind::DeltaFifo).await,
        ["13", "1", "30", "14"]
    );
}

/// client-go: TestDeltaFIFO_HasSynced (delta_fifo_test.go, v0.32.0): a list naming one key
/// twice is one queue entry, so one Pop syncs.
#[tokio::test]
async fn test_delta_fifo_has_synced() {
    assert_has_synced_table(QueueKind::DeltaFifo, 1).await;
}

/// client-go: TestDeltaFIFO_PopShouldUnblockWhenClosed (delta_fifo_test.go, v0.32.0)
#[tokio::test]
async fn test_delta_fifo_pop_should_unblock_when_closed() {
    close_unblocks_ten_pops(QueueKind::DeltaFifo).await;
}

// ---------------------------------------------------------------------------------------------
// the_real_fifo_test.go (v0.33.0)
// ---------------------------------------------------------------------------------------------

/// client-go: TestRealFIFO_basic (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_basic() {
    pops_keep_each_producers_order(QueueKind::RealFifo).await;
}

/// client-go: TestRealFIFO_replaceWithDeleteDeltaIn (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_replace_with_delete_delta_in() {
    assert_eq!(
        REPLACE_WITH_DELETE_DELTA_IN.queued(QueueKind::RealFifo),
        [d(T::Deleted, "foo", 1), d(T::Replaced, "foo", 2)]
    );
}

/// client-go: TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue (the_real_fifo_test.go,
/// v0.33.0). As in client-go, the "Replaced object…" case is left out (RealFIFO has no
/// EmitDeltaTypeReplaced option); each Pop hands over one delta.
#[tokio::test]
async fn test_real_fifo_replace_makes_deletions_for_objects_only_in_queue() {
    for (name, scenario, expected) in only_in_queue_cases() {
        if name.starts_with("Replaced object") {
            continue;
        }
        let pops = scenario.pops(QueueKind::RealFifo).await;
        assert!(pops.iter().all(|p| p.len() == 1), "{name}: {pops:?}");
        assert_eq!(pops.concat(), expected, "{name}");
    }
}

/// client-go: TestRealFIFO_addUpdate (the_real_fifo_test.go, v0.33.0): every event is queued,
/// and popped, in order.
#[tokio::test]
async fn test_real_fifo_add_update() {
    let q = ADD_UPDATE.run(QueueKind::RealFifo);
    assert_eq!(
        queued(&q),
        [
            d(T::Added, "foo", 10),
            d(T::Updated, "foo", 12),
            d(T::Deleted, "foo", 15)
        ]
    );
    assert_eq!(newest_vals(&pop_all(&q).await), ["10", "12", "15"]);
}

/// client-go: TestRealFIFO_transformer (the_real_fifo_test.go, v0.33.0). Our transform runs at
/// decode (Rule F7): every popped object, and the object in each tombstone, was transformed
/// once.
#[tokio::test]
async fn test_real_fifo_transformer() {
    let f = transformer_scenario(QueueKind::RealFifo);
    let expected = [
        d(T::Added, "foo", 10),
        d(T::Added, "bar", 11),
        d(T::Updated, "foo", 12),
        d(T::Deleted, "foo", 15),
        tomb("bar", 11),
        d(T::Added, "bar", 16),
        tomb("bar", 16),
    ];
    assert_eq!(queued(&f), expected);
    for (i, want) in expected.iter().enumerate() {
        let (deltas, _) = pop_deltas(&f).await;
        assert_eq!(seen_all(&deltas), std::slice::from_ref(want));
        assert_eq!(times_transformed(&deltas[0]), Some("1"), "item {i}");
    }
}

/// client-go: TestRealFIFO_enqueueingNoLister (the_real_fifo_test.go, v0.33.0): RealFIFO
/// queues everything, even the delete of a baz nobody knows.
#[tokio::test]
async fn test_real_fifo_enqueueing_no_lister() {
    let pops = ENQUEUEING_NO_LISTER.pops(QueueKind::RealFifo).await;
    assert_eq!(newest_vals(&pops), ["10", "15", "17", "18", "20"]);
}

/// client-go: TestRealFIFO_enqueueingWithLister (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_enqueueing_with_lister() {
    let pops = ENQUEUEING_WITH_LISTER.pops(QueueKind::RealFifo).await;
    assert_eq!(newest_vals(&pops), ["10", "15", "20"]);
}

/// client-go: TestRealFIFO_addReplace (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_add_replace() {
    let pops = ADD_REPLACE.pops(QueueKind::RealFifo).await;
    assert_eq!(newest_vals(&pops), ["10", "15"]);
}

/// client-go: TestRealFIFO_ResyncNonExisting (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_resync_non_existing() {
    assert_eq!(
        RESYNC_NON_EXISTING.queued(QueueKind::RealFifo),
        [d(T::Deleted, "foo", 10)]
    );
}

/// client-go: TestRealFIFO_Resync (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_resync() {
    assert_eq!(RESYNC.queued(QueueKind::RealFifo), [d(T::Sync, "foo", 5)]);
}

/// client-go: TestRealFIFO_DeleteExistingNonPropagated (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_delete_existing_non_propagated() {
    assert_eq!(
        DELETE_EXISTING_NON_PROPAGATED.queued(QueueKind::RealFifo),
        [d(T::Added, "foo", 5), d(T::Deleted, "foo", 6)]
    );
}

/// client-go: TestRealFIFO_ReplaceMakesDeletions (the_real_fifo_test.go, v0.33.0): a
/// Replace's tombstones come before its Replaced items, one delta per Pop.
#[tokio::test]
async fn test_real_fifo_replace_makes_deletions() {
    let expected: [Vec<Seen>; 5] = [
        vec![
            d(T::Deleted, "baz", 10),
            tomb("bar", 6),
            d(T::Replaced, "foo", 5),
        ],
        vec![
            d(T::Added, "baz", 10),
            tomb("baz", 10),
            tomb("bar", 6),
            d(T::Replaced, "foo", 5),
        ],
        vec![
            d(T::Deleted, "bar", 6),
            d(T::Added, "bar", 100),
            tomb("bar", 100),
            tomb("baz", 7),
            d(T::Replaced, "foo", 5),
        ],
        vec![
            tomb("baz", 7),
            d(T::Replaced, "bar", 100),
            d(T::Replaced, "foo", 5),
            tomb("bar", 100),
            d(T::Replaced, "foo", 5),
        ],
        vec![
            d(T::Added, "baz", 10),
            tomb("baz", 10),
            d(T::Replaced, "foo", 5),
        ],
    ];
    for (part, (scenario, want)) in REPLACE_MAKES_DELETIONS.iter().zip(expected).enumerate() {
        let pops = scenario.pops(QueueKind::RealFifo).await;
        assert!(pops.iter().all(|p| p.len() == 1), "part {part}: {pops:?}");
        assert_eq!(pops.concat(), want, "part {part}");
    }
}

/// client-go: TestRealFIFO_ReplaceMakesDeletionsReplaced (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_replace_makes_deletions_replaced() {
    assert_eq!(
        REPLACE_MAKES_DELETIONS_REPLACED
            .pops(QueueKind::RealFifo)
            .await,
        [
            [d(T::Deleted, "baz", 10)],
            [tomb("bar", 6)],
            [d(T::Replaced, "foo", 6)]
        ]
    );
}

/// client-go: TestRealFIFO_UpdateResyncRace (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_update_resync_race() {
    assert_eq!(
        UPDATE_RESYNC_RACE.pops(QueueKind::RealFifo).await,
        [[d(T::Updated, "foo", 6)]]
    );
}

/// client-go: TestRealFIFO_HasSyncedCorrectOnDeletion (the_real_fifo_test.go, v0.33.0): the
/// tombstones come first.
#[tokio::test]
async fn test_real_fifo_has_synced_correct_on_deletion() {
    let (pops, synced) = initial_list_pops(QueueKind::RealFifo).await;
    assert_eq!(
        pops,
        [
            (vec![tomb("bar", 6)], true, false),
            (vec![tomb("baz", 7)], true, false),
            (vec![d(T::Replaced, "foo", 5)], true, false),
        ]
    );
    assert!(synced);
}

/// client-go: TestRealFIFO_detectLineJumpers (the_real_fifo_test.go, v0.33.0): every event
/// is delivered, in order.
#[tokio::test]
async fn test_real_fifo_detect_line_jumpers() {
    assert_eq!(
        line_jumpers(QueueKind::RealFifo).await,
        ["10", "1", "11", "13", "30", "14"]
    );
}

/// client-go: TestRealFIFO_HasSynced (the_real_fifo_test.go, v0.33.0): every event is
/// delivered, so a key listed twice is popped twice.
#[tokio::test]
async fn test_real_fifo_has_synced() {
    assert_has_synced_table(QueueKind::RealFifo, 2).await;
}

/// client-go: TestRealFIFO_PopShouldUnblockWhenClosed (the_real_fifo_test.go, v0.33.0)
#[tokio::test]
async fn test_real_fifo_pop_should_unblock_when_closed() {
    close_unblocks_ten_pops(QueueKind::RealFifo).await;
}

// ---------------------------------------------------------------------------------------------
// Informer harness: client-go's FakeControllerSource pods and testListener.
// ---------------------------------------------------------------------------------------------

/// `&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}`: no namespace, so the key is the name.
fn go_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}})
}

fn labelled_pod(name: &str, labels: Value) -> Value {
    let mut pod = go_pod(name);
    pod["metadata"]["labels"] = labels;
    pod
}

/// `NewSharedInformer(source, &v1.Pod{}, resync)`.
fn informer(resync: Duration) -> Harness {
    Harness::new(InformerConfig {
        resync,
        ..InformerConfig::default()
    })
}

fn handled_by(events: &[TraceEvent], handler: &str) -> usize {
    count(
        events,
        |e| matches!(e, Event::Handled { handler: h, .. } if &**h == handler),
    )
}

fn resync_ticks(events: &[TraceEvent]) -> usize {
    count(events, |e| matches!(e, Event::ResyncTick { .. }))
}

/// The object names a recorder was told about (client-go's `receivedItemNames` as a set).
fn names(lines: &[String]) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|l| l.split(' ').nth(1))
        .map(str::to_owned)
        .collect()
}

/// client-go's `isRegistered`.
fn is_registered(informer: &SharedIndexInformer, reg: &Registration) -> bool {
    informer
        .listeners()
        .iter()
        .any(|l| Arc::ptr_eq(l, reg.listener()))
}

/// `handler: notification` for every notification after the `n`th resync tick (1-based) and
/// before the next one.
fn notified_after_tick(events: &[TraceEvent], n: usize) -> Vec<String> {
    let mut ticks = 0;
    let mut out = Vec::new();
    for e in events {
        match &e.event {
            Event::ResyncTick { .. } if ticks == n => break,
            Event::ResyncTick { .. } => ticks += 1,
            Event::Notify {
                handler,
                notification,
                ..
            } if ticks == n => out.push(format!("{handler}: {}", common::describe(notification))),
            _ => {}
        }
    }
    out
}

/// client-go's `labels` index function in TestIndexer: every label key.
fn label_keys() -> IndexFunc {
    IndexFunc::Custom(Arc::new(|o: &CachedObject| {
        o.meta().labels().map(|(k, _)| k.to_owned()).collect()
    }))
}

/// The sorted names of `objects` (a `ByIndex` answer).
fn names_of(objects: Vec<ObjectRef>) -> Vec<String> {
    let mut names: Vec<String> = objects.iter().map(|o| o.meta().name().to_owned()).collect();
    names.sort();
    names
}

// ---------------------------------------------------------------------------------------------
// shared_informer_test.go (v0.32.0)
// ---------------------------------------------------------------------------------------------

/// client-go: TestIndexer (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_indexer() {
    let mut h = informer(Duration::from_secs(1));
    h.source
        .apply(labelled_pod("pod1", json!({"a": "a-val", "b": "b-val1"})));
    h.source.apply(labelled_pod("pod2", json!({"b": "b-val2"})));
    h.informer.add_indexer("labels", label_keys()).unwrap();
    h.synced().await;
    let store = h.informer.indexer().clone();
    assert_eq!(names_of(store.by_index("labels", "a").unwrap()), ["pod1"]);

    // Adding an item later is fine as well.
    h.source.apply(labelled_pod("pod3", json!({"a": "a-val2"})));
    h.wait("pod3 indexed", |_| {
        names_of(store.by_index("labels", "a").unwrap()) == ["pod1", "pod3"]
    })
    .await;

    // Adding an index later is also fine, and it is available at once.
    h.informer
        .add_indexer("labels-again", label_keys())
        .unwrap();
    assert_eq!(
        names_of(store.by_index("labels-again", "a").unwrap()),
        ["pod1", "pod3"]
    );
    assert_eq!(store.list_index_func_values("labels").unwrap(), ["a", "b"]);
    assert_eq!(
        store.list_index_func_values("labels-again").unwrap(),
        ["a", "b"]
    );
    h.shutdown().await;
}

/// client-go: TestListenerResyncPeriods (shared_informer_test.go, v0.32.0). The fake clock's
/// steps are tokio's paused clock; "listener N got nothing" is read off the notifications
/// between two resync checks.
#[tokio::test(start_paused = true)]
async fn test_listener_resync_periods() {
    let mut h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    h.source.apply(go_pod("pod2"));
    let listeners: Vec<Arc<Recorder>> = (0..3).map(|_| Arc::new(Recorder::default())).collect();
    for (i, (l, secs)) in listeners.iter().zip([0, 2, 3]).enumerate() {
        h.informer
            .add_event_handler_with_resync(
                &format!("listener{}", i + 1),
                l.clone(),
                Duration::from_secs(secs),
            )
            .unwrap();
    }
    h.synced().await;
    // Every listener got the initial list.
    h.wait("initial list", |ev| {
        (1..=3).all(|i| handled_by(ev, &format!("listener{i}")) == 2)
    })
    .await;
    for l in &listeners {
        assert_eq!(l.lines(), ["add pod1 1 initial", "add pod2 2 initial"]);
    }
    // 2 s: listener2 resyncs; 3 s: listener3 does.
    h.wait("listener3 resynced", |ev| {
        resync_ticks(ev) >= 3 && handled_by(ev, "listener3") == 4
    })
    .await;
    let ev = h.events();
    assert_eq!(notified_after_tick(&ev, 1), [] as [String; 0]);
    assert_eq!(
        notified_after_tick(&ev, 2),
        [
            "listener2: update pod1 1->1 sync",
            "listener2: update pod2 2->2 sync"
        ]
    );
    assert_eq!(
        notified_after_tick(&ev, 3),
        [
            "listener3: update pod1 1->1 sync",
            "listener3: update pod2 2->2 sync"
        ]
    );
    assert_eq!(listeners[0].lines().len(), 2, "listener1 never resyncs");
    h.shutdown().await;
}

/// client-go: TestResyncCheckPeriod (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_resync_check_period() {
    let h = informer(Duration::from_secs(12 * 3600));
    let i = &h.informer;
    let mut regs = Vec::new();
    // (listener period, check period after adding it, every listener's period so far)
    let table: [(u64, u64, &[u64]); 4] = [
        (0, 12 * 3600, &[0]),
        (60, 60, &[0, 60]),
        (55, 55, &[0, 60, 55]),
        (5, 5, &[0, 60, 55, 5]),
    ];
    for (n, (period, check, periods)) in table.into_iter().enumerate() {
        let reg = i
            .add_event_handler_with_resync(
                &format!("listener{}", n + 1),
                Arc::new(Recorder::default()),
                Duration::from_secs(period),
            )
            .unwrap();
        regs.push(reg);
        assert_eq!(i.resync_check_period(), Duration::from_secs(check));
        let got: Vec<Duration> = regs.iter().map(|r| r.listener().resync_period()).collect();
        let want: Vec<Duration> = periods.iter().map(|s| Duration::from_secs(*s)).collect();
        assert_eq!(got, want, "after listener{}", n + 1);
    }
}

/// client-go: TestSharedInformerWatchDisruption (shared_informer_test.go, v0.32.0). The
/// changes the watch drops are made while it is down, and the relist follows the first resync
/// check, as the Go test orders them.
#[tokio::test(start_paused = true)]
async fn test_shared_informer_watch_disruption() {
    let mut h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    h.source.apply(go_pod("pod2"));
    let no_resync = Arc::new(Recorder::default());
    let resync = Arc::new(Recorder::default());
    h.informer
        .add_event_handler_with_resync("listenerNoResync", no_resync.clone(), Duration::ZERO)
        .unwrap();
    h.informer
        .add_event_handler_with_resync("listenerResync", resync.clone(), Duration::from_secs(1))
        .unwrap();
    h.synced().await;
    for l in [&no_resync, &resync] {
        h.wait("initial list", |_| l.lines().len() >= 2).await;
        assert_eq!(
            names(&l.lines()),
            names(&["x pod1".into(), "x pod2".into()])
        );
    }
    // The first resync check takes listenerNoResync out of the syncing set.
    h.wait("first resync check", |ev| {
        resync_ticks(ev) >= 1 && handled_by(ev, "listenerResync") >= 4
    })
    .await;
    let before = [no_resync.lines().len(), resync.lines().len()];
    assert_eq!(before[0], 2, "listenerNoResync does not resync");

    // Add pod3 and bump pod2 unseen, then lose the watch: only the relist shows them.
    h.wait("watching", |ev| {
        count(ev, |e| matches!(e, Event::WatchStart { .. })) >= 1
    })
    .await;
    h.source.close_watches();
    let rv3 = h.source.apply(go_pod("pod3"));
    let rv4 = h.source.apply(go_pod("pod2"));
    h.source.trim_history();
    h.wait("relist handled", |ev| {
        count(ev, |e| matches!(e, Event::ListDone { .. })) == 2
            && handled_by(ev, "listenerNoResync") == 4
            && resync.lines()[before[1]..]
                .iter()
                .any(|l| l.contains(" pod3 "))
    })
    .await;
    let mut after = no_resync.lines()[2..].to_vec();
    after.sort();
    assert_eq!(
        after,
        [format!("add pod3 {rv3}"), format!("update pod2 2->{rv4}")]
    );
    let expected: BTreeSet<String> = ["pod1", "pod2", "pod3"].map(String::from).into();
    assert_eq!(names(&resync.lines()[2..]), expected);
    h.shutdown().await;
}

/// client-go: TestSharedInformerErrorHandling (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_shared_informer_error_handling() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut h = Harness::new(InformerConfig {
        resync: Duration::from_secs(1),
        watch_error_handler: Some(Arc::new(move |e| {
            let _ = tx.send(e.to_string());
        })),
        ..InformerConfig::default()
    });
    h.source.apply(go_pod("pod1"));
    h.source
        .fail_next(SourceError::Transport("Access Denied".into()));
    h.start();
    let err = tokio::time::timeout(DEADLINE, rx.recv())
        .await
        .expect("Timeout waiting for error handler call")
        .unwrap();
    assert!(err.contains("Access Denied"), "{err}");
    h.shutdown().await;
}

/// client-go: TestSharedInformerTransformer (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_shared_informer_transformer() {
    let upper: Transform = Arc::new(|raw: &[u8]| {
        let mut pod: Value = serde_json::from_slice(raw)?;
        let name = pod["metadata"]["name"].as_str().unwrap_or_default();
        pod["metadata"]["name"] = name.to_uppercase().into();
        Ok(serde_json::to_vec(&pod)?)
    });
    let mut h = Harness::new(InformerConfig {
        resync: Duration::from_secs(1),
        transform: Some(upper),
        ..InformerConfig::default()
    });
    h.source.apply(go_pod("pod1"));
    h.source.apply(go_pod("pod2"));
    let listener = Arc::new(Recorder::default());
    h.informer
        .add_event_handler("listenerTransformer", listener.clone())
        .unwrap();
    h.synced().await;
    h.wait("initial list", |ev| {
        handled_by(ev, "listenerTransformer") >= 2
    })
    .await;
    assert_eq!(
        listener.lines()[..2],
        ["add POD1 1 initial", "add POD2 2 initial"]
    );
    let expected: BTreeSet<String> = ["POD1", "POD2"].map(String::from).into();
    assert_eq!(names(&listener.lines()), expected);
    h.shutdown().await;
}

/// client-go: TestSharedInformerRemoveHandler (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_shared_informer_remove_handler() {
    let h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    let i = &h.informer;
    let handle1 = i
        .add_event_handler("handler1", Arc::new(Recorder::default()))
        .unwrap();
    let handle2 = i
        .add_event_handler("handler2", Arc::new(Recorder::default()))
        .unwrap();
    assert_eq!(i.listeners().len(), 2);
    assert!(i.remove_event_handler(&handle2));
    assert_eq!(i.listeners().len(), 1);
    assert!(i.remove_event_handler(&handle1));
    assert_eq!(i.listeners().len(), 0);
}

/// client-go: TestSharedInformerRemoveForeignHandler (shared_informer_test.go, v0.32.0).
/// client-go's RemoveEventHandler returns no error for a foreign handle; ours says it removed
/// nothing.
#[tokio::test(start_paused = true)]
async fn test_shared_informer_remove_foreign_handler() {
    let h = informer(Duration::from_secs(1));
    let h2 = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    h2.source.apply(go_pod("pod1"));
    let (i, i2) = (&h.informer, &h2.informer);
    let handle1 = i
        .add_event_handler("handler1", Arc::new(Recorder::default()))
        .unwrap();
    let handle2 = i
        .add_event_handler("handler2", Arc::new(Recorder::default()))
        .unwrap();
    assert_eq!((i.listeners().len(), i2.listeners().len()), (2, 0));
    assert!(!is_registered(i2, &handle1));
    assert!(!is_registered(i2, &handle2));
    assert!(
        !i2.remove_event_handler(&handle1),
        "nothing to remove there"
    );
    assert_eq!((i.listeners().len(), i2.listeners().len()), (2, 0));
    assert!(is_registered(i, &handle1));
    assert!(is_registered(i, &handle2));
    assert!(i.remove_event_handler(&handle2));
    assert_eq!(i.listeners().len(), 1);
    assert!(i.remove_event_handler(&handle1));
    assert_eq!(i.listeners().len(), 0);
}

/// client-go: TestSharedInformerMultipleRegistration (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_shared_informer_multiple_registration() {
    let h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    let i = &h.informer;
    let handler1 = Arc::new(Recorder::default());
    let reg1 = i.add_event_handler("handler1", handler1.clone()).unwrap();
    assert!(is_registered(i, &reg1));
    let reg2 = i.add_event_handler("handler1", handler1).unwrap();
    assert!(is_registered(i, &reg2));
    assert_eq!(i.listeners().len(), 2);
    assert!(i.remove_event_handler(&reg1));
    assert!(!is_registered(i, &reg1));
    assert!(is_registered(i, &reg2), "the duplicate registration stays");
    assert_eq!(i.listeners().len(), 1);
    assert!(i.remove_event_handler(&reg2));
    assert!(!is_registered(i, &reg2));
    assert_eq!(i.listeners().len(), 0);
}

/// client-go: TestRemovingRemovedSharedInformer (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_removing_removed_shared_informer() {
    let h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    let i = &h.informer;
    let reg = i
        .add_event_handler("handler", Arc::new(Recorder::default()))
        .unwrap();
    assert!(i.remove_event_handler(&reg));
    assert!(!is_registered(i, &reg));
    assert!(!i.remove_event_handler(&reg), "a second remove is harmless");
    assert!(!is_registered(i, &reg));
}

/// client-go: TestAddOnStoppedSharedInformer (shared_informer_test.go, v0.32.0). client-go's
/// error ends "was not added to shared informer because it has stopped already"; ours is
/// [`InformerError::Stopped`].
#[tokio::test(start_paused = true)]
async fn test_add_on_stopped_shared_informer() {
    let mut h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    h.start();
    h.stop.cancel();
    assert_eq!(h.run_result().await, Ok(()));
    let added = h.informer.add_event_handler_with_resync(
        "listener",
        Arc::new(Recorder::default()),
        Duration::ZERO,
    );
    assert!(
        matches!(added, Err(InformerError::Stopped)),
        "stopped informer did not reject add handler"
    );
    assert_eq!(h.informer.listeners().len(), 0);
}

/// client-go: TestRemoveOnStoppedSharedInformer (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_remove_on_stopped_shared_informer() {
    let mut h = informer(Duration::from_secs(1));
    h.source.apply(go_pod("pod1"));
    let handle = h
        .informer
        .add_event_handler_with_resync("listener", Arc::new(Recorder::default()), Duration::ZERO)
        .unwrap();
    h.start();
    h.stop.cancel();
    assert_eq!(h.run_result().await, Ok(()));
    assert!(h.informer.remove_event_handler(&handle));
    assert!(!is_registered(&h.informer, &handle));
}

/// client-go: TestRemoveWhileActive (shared_informer_test.go, v0.32.0)
#[tokio::test(start_paused = true)]
async fn test_remove_while_active() {
    let mut h = informer(Duration::ZERO);
    let listener = Arc::new(Recorder::default());
    let handle = h
        .informer
        .add_event_handler("listener", listener.clone())
        .unwrap();
    h.start();
    h.source.apply(go_pod("pod1"));
    h.wait("pod1", |ev| handled_by(ev, "listener") == 1).await;
    h.informer.remove_event_handler(&handle);
    assert!(!is_registered(&h.informer, &handle));
    h.source.apply(go_pod("pod2"));
    // The indexer write and the fan-out are one step of the process loop: once pod2 is in the
    // cache, the removed listener would already have been told.
    h.wait("pod2 in the cache", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "pod2"),
        ) == 1
    })
    .await;
    assert_eq!(
        names(&listener.lines()),
        BTreeSet::from(["pod1".to_owned()])
    );
    assert_eq!(
        count(
            &h.events(),
            |e| matches!(e, Event::Notify { handler, .. } if &**handler == "listener")
        ),
        1
    );
    h.shutdown().await;
}

/// client-go: TestAddWhileActive (shared_informer_test.go, v0.32.0). client-go holds
/// listener2's lock to look before it processes anything; here nothing runs until the test
/// awaits.
#[tokio::test(start_paused = true)]
async fn test_add_while_active() {
    let mut h = informer(Duration::ZERO);
    let listener1 = Arc::new(Recorder::default());
    let listener2 = Arc::new(Recorder::default());
    let handle1 = h
        .informer
        .add_event_handler("originalListener", listener1.clone())
        .unwrap();
    assert!(!handle1.has_synced(), "Synced before Run??");
    h.start();
    h.source.apply(go_pod("pod1"));
    h.wait("pod1", |ev| handled_by(ev, "originalListener") == 1)
        .await;
    assert!(handle1.has_synced(), "Not synced after Run??");

    let handle2 = h
        .informer
        .add_event_handler("listener2", listener2.clone())
        .unwrap();
    assert!(!handle2.has_synced(), "Synced before processing anything?");
    h.source.apply(go_pod("pod2"));
    h.wait("pod2", |ev| {
        handled_by(ev, "listener2") == 2 && handled_by(ev, "originalListener") == 2
    })
    .await;
    assert!(handle2.has_synced(), "Not synced even after processing?");
    assert!(is_registered(&h.informer, &handle1));
    assert!(is_registered(&h.informer, &handle2));
    let both: BTreeSet<String> = ["pod1", "pod2"].map(String::from).into();
    assert_eq!(names(&listener2.lines()), both);
    assert_eq!(names(&listener1.lines()), both);
    h.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// index_test.go and thread_safe_store_test.go (v0.32.0)
// ---------------------------------------------------------------------------------------------

/// An indexer with the one index `name` (plus our built-in namespace index), and the Ingest
/// that computes its values when an object is decoded, as the informer does.
fn indexer_with(name: &str, func: IndexFunc) -> (Store, Ingest) {
    let mut indexers = Indexers::default();
    indexers.add(name, func).unwrap();
    (Store::new(indexers.clone()), Ingest::new(indexers, None))
}

/// An index function returning the annotation `key`'s value split at commas (client-go's
/// `testUsersIndexFunc`, and the thread-safe store tests' `strings.Split(obj, ",")`).
fn split_annotation(key: &'static str) -> IndexFunc {
    IndexFunc::Custom(Arc::new(move |o: &CachedObject| {
        let v: Value = serde_json::from_slice(o.raw()).unwrap_or_default();
        v["metadata"]["annotations"][key]
            .as_str()
            .map(|s| s.split(',').map(str::to_owned).collect())
            .unwrap_or_default()
    }))
}

fn annotated(ingest: &Ingest, name: &str, key: &str, value: &str) -> ObjectRef {
    decode(
        ingest,
        &json!({"metadata": {"name": name, "annotations": {key: value}}}),
    )
}

/// client-go: TestGetIndexFuncValues (index_test.go, v0.32.0)
#[test]
fn test_get_index_func_values() {
    let (index, ingest) = indexer_with("testmodes", IndexFunc::Label("foo".into()));
    for (name, foo) in [("one", "bar"), ("two", "bar"), ("tre", "biz")] {
        index.upsert(decode(&ingest, &labelled_pod(name, json!({"foo": foo}))));
    }
    assert_eq!(
        index.list_index_func_values("testmodes").unwrap(),
        ["bar", "biz"]
    );
}

/// client-go: TestMultiIndexKeys (index_test.go, v0.32.0)
#[test]
fn test_multi_index_keys() {
    let (index, ingest) = indexer_with("byUser", split_annotation("users"));
    let pod = |name: &str, users: &str| annotated(&ingest, name, "users", users);
    index.upsert(pod("one", "ernie,bert"));
    index.upsert(pod("two", "bert,oscar"));
    index.upsert(pod("tre", "ernie,elmo"));
    let expected: [(&str, &[&str]); 5] = [
        ("ernie", &["one", "tre"]),
        ("bert", &["one", "two"]),
        ("elmo", &["tre"]),
        ("oscar", &["two"]),
        ("elmo1", &[]),
    ];
    for (user, pods) in expected {
        assert_eq!(
            names_of(index.by_index("byUser", user).unwrap()),
            pods,
            "{user}"
        );
    }

    index.delete("tre");
    assert_eq!(
        names_of(index.by_index("byUser", "ernie").unwrap()),
        ["one"]
    );
    assert_eq!(
        names_of(index.by_index("byUser", "elmo").unwrap()),
        [] as [&str; 0]
    );

    index.upsert(pod("two", "oscar"));
    assert_eq!(names_of(index.by_index("byUser", "bert").unwrap()), ["one"]);
}

/// A thread-safe store test's `store.Add(key, value)`: an object named `key` whose index
/// values come from `value`.
fn add_string(store: &Store, ingest: &Ingest, key: &str, value: &str) {
    store.upsert(annotated(ingest, key, "value", value));
}

/// client-go: TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex (thread_safe_store_test.go,
/// v0.32.0). An index value is present exactly when ListIndexFuncValues lists it.
#[test]
fn test_thread_safe_store_delete_removes_empty_sets_from_index() {
    let (store, ingest) = indexer_with("testIndexer", split_annotation("value"));
    add_string(&store, &ingest, "testKey", "testKey");
    assert_eq!(
        store.index_keys("testIndexer", "testKey").unwrap(),
        ["testKey"]
    );
    store.delete("testKey");
    assert_eq!(
        store.list_index_func_values("testIndexer").unwrap(),
        [] as [&str; 0],
        "index backing set not deleted from index"
    );
}

/// client-go: TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex
/// (thread_safe_store_test.go, v0.32.0)
#[test]
fn test_thread_safe_store_add_keeps_non_empty_set_post_delete_from_index() {
    let (store, ingest) = indexer_with("testIndexer", split_annotation("value"));
    add_string(&store, &ingest, "retain", "testIndex");
    add_string(&store, &ingest, "delete", "testIndex");
    assert_eq!(
        store.index_keys("testIndexer", "testIndex").unwrap(),
        ["delete", "retain"]
    );
    store.delete("delete");
    assert_eq!(
        store.list_index_func_values("testIndexer").unwrap(),
        ["testIndex"]
    );
    assert_eq!(
        store.index_keys("testIndexer", "testIndex").unwrap(),
        ["retain"]
    );
}

/// client-go: TestThreadSafeStoreIndexingFunctionsWithMultipleValues
/// (thread_safe_store_test.go, v0.32.0)
#[test]
fn test_thread_safe_store_indexing_functions_with_multiple_values() {
    let (store, ingest) = indexer_with("testIndexer", split_annotation("value"));
    let compare = |foo: &[&str], bar: &[&str], baz: &[&str], after: &str| {
        for (value, keys) in [("foo", foo), ("bar", bar), ("baz", baz)] {
            assert_eq!(
                store.index_keys("testIndexer", value).unwrap(),
                keys,
                "{value} after {after}"
            );
        }
    };
    add_string(&store, &ingest, "key1", "foo");
    add_string(&store, &ingest, "key2", "bar");
    compare(&["key1"], &["key2"], &[], "adding key1, key2");
    add_string(&store, &ingest, "key2", "foo,bar");
    compare(&["key1", "key2"], &["key2"], &[], "updating key2");
    add_string(&store, &ingest, "key1", "foo,bar");
    compare(&["key1", "key2"], &["key1", "key2"], &[], "updating key1");
    add_string(&store, &ingest, "key3", "foo,bar,baz");
    let all = ["key1", "key2", "key3"];
    compare(&all, &all, &["key3"], "adding key3");
    add_string(&store, &ingest, "key1", "foo");
    compare(&all, &["key2", "key3"], &["key3"], "updating key1 again");
    add_string(&store, &ingest, "key2", "bar");
    compare(
        &["key1", "key3"],
        &["key2", "key3"],
        &["key3"],
        "updating key2 again",
    );
    store.delete("key1");
    compare(&["key3"], &["key2", "key3"], &["key3"], "deleting key1");
    store.delete("key3");
    compare(&[], &["key2"], &[], "deleting key3");
}
