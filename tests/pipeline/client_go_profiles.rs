//! client-go release profiles (`--client-go`): each profile's gate defaults are the release's,
//! each selects the queue and list strategy that release uses, the RealFIFO behaviours of
//! 1.35 (PopBatch) and 1.36 (AtomicFIFO) work as client-go's, and the handler rules hold
//! under every profile.

use crate::common;

use std::sync::Arc;

use common::{Harness, Recorder, count, pod};
use kinformer::informer::InformerConfig;
use kinformer::informer::Ingest;
use kinformer::informer::ObjectRef;
use kinformer::informer::source::{ApiStatus, WatchFrame};
use kinformer::informer::trace::{Event, Tracer};
use kinformer::informer::{BATCH_SIZE, RealFifo, RealFifoOptions};
use kinformer::informer::{Delta, DeltaType, ProcessError, Queue, QueueKind, ReplacedAll};
use kinformer::informer::{Indexers, Store};
use kinformer::informer::{NEWEST, PROFILES, Profile};

#[test]
fn every_profile_has_its_releases_gate_defaults() {
    // (version, InOrderInformers, InOrderInformersBatchProcess, WatchListClient, AtomicFIFO,
    //  UnlockWhileProcessingFIFO), read from client-go's features/known_features.go at the tag
    // v0.<minor>.0 of each release (a gate absent from a release is off).
    let gates = [
        ("1.32", false, false, false, false, false),
        ("1.33", true, false, false, false, false),
        ("1.34", true, false, false, false, false),
        ("1.35", true, true, true, false, false),
        ("1.36", true, true, true, true, true),
        ("1.37", true, true, true, true, true),
    ];
    assert_eq!(PROFILES.len(), gates.len());
    for (version, in_order, batch, watch_list, atomic, unlock) in gates {
        let p = Profile::of(version).unwrap();
        assert_eq!(
            (
                p.in_order_informers,
                p.batch_process,
                p.watch_list_client,
                p.atomic_fifo,
                p.unlock_while_processing
            ),
            (in_order, batch, watch_list, atomic, unlock),
            "{version}"
        );
    }
    assert_eq!(NEWEST, "1.37");
}

#[test]
fn each_profile_selects_its_queue_options_and_list_strategy() {
    for p in &PROFILES {
        let config = InformerConfig::for_profile(p);
        let queue = if p.in_order_informers {
            QueueKind::RealFifo
        } else {
            QueueKind::DeltaFifo
        };
        assert_eq!(config.queue, queue, "{}", p.version);
        assert_eq!(
            config.real_fifo,
            RealFifoOptions {
                pop_batch: p.batch_process,
                atomic_events: p.atomic_fifo,
                unlock_while_processing: p.unlock_while_processing,
            }
        );
        assert_eq!(config.reflector.watch_list, p.watch_list_client);
        assert_eq!(config.profile, Some(p.version));
    }
}

fn obj(key: &str, rv: u32) -> ObjectRef {
    let (ns, name) = key.split_once('/').unwrap_or(("", key));
    let raw = serde_json::json!({"metadata": {"name": name, "namespace": ns, "resourceVersion": rv.to_string()}});
    Ingest::new(Indexers::default(), None)
        .decode(serde_json::to_vec(&raw).unwrap())
        .unwrap()
}

fn real_fifo(options: RealFifoOptions) -> RealFifo {
    RealFifo::with_options(Arc::new(Store::default()), Tracer::counting_only(), options)
}

/// What one pop handed over: `batch k1,k2…`, `deltas k`, or an atomic entry.
#[derive(Default)]
struct Seen(Vec<String>);

impl kinformer::informer::PopProcess for Seen {
    fn deltas(&mut self, deltas: &[Delta], _: bool) -> Result<(), ProcessError> {
        let keys: Vec<&str> = deltas.iter().map(|d| d.object.key()).collect();
        self.0.push(format!("deltas {}", keys.join(",")));
        Ok(())
    }

    fn batch(&mut self, deltas: &[Delta], _: bool) -> Result<(), ProcessError> {
        let keys: Vec<&str> = deltas.iter().map(|d| d.object.key()).collect();
        self.0.push(format!("batch {}", keys.join(",")));
        Ok(())
    }

    fn replaced_all(&mut self, list: &ReplacedAll, initial: bool) {
        let keys: Vec<&str> = list.objects.iter().map(|o| o.key()).collect();
        let rv = &list.resource_version;
        self.0.push(format!(
            "replaced-all rv={rv} initial={initial} {}",
            keys.join(",")
        ));
    }

    fn sync_all(&mut self) {
        self.0.push("sync-all".into());
    }

    fn bookmark(&mut self, resource_version: &str) {
        self.0.push(format!("bookmark {resource_version}"));
    }
}

async fn pop_all(q: &RealFifo) -> Vec<String> {
    let mut seen = Seen::default();
    while !q.queued_types().is_empty() {
        q.pop(&mut seen).await.unwrap();
    }
    seen.0
}

#[tokio::test]
async fn pop_batch_takes_distinct_keys_up_to_a_duplicate_and_not_past_the_initial_list() {
    // client-go 1.35 RealFIFO.PopBatch (the_real_fifo.go): a batch ends at the first key
    // already in it, and the first Replace's entries never share a batch with later ones.
    let q = real_fifo(RealFifoOptions {
        pop_batch: true,
        ..RealFifoOptions::default()
    });
    q.replace(vec![obj("ns/a", 1), obj("ns/b", 2)]);
    q.add(obj("ns/c", 3));
    q.update(obj("ns/d", 4));
    q.update(obj("ns/c", 5));
    q.add(obj("ns/e", 6));
    assert_eq!(
        pop_all(&q).await,
        ["batch ns/a,ns/b", "batch ns/c,ns/d", "batch ns/c,ns/e"]
    );
    assert!(q.has_synced());
    // A batch is at most BATCH_SIZE deltas.
    for i in 0..(BATCH_SIZE + 5) {
        q.add(obj(&format!("ns/p{i}"), 10));
    }
    let sizes: Vec<usize> = pop_all(&q)
        .await
        .iter()
        .map(|b| b.split(',').count())
        .collect();
    assert_eq!(sizes, [BATCH_SIZE, 5]);
}

#[tokio::test]
async fn atomic_fifo_queues_a_list_a_resync_and_a_bookmark_as_one_entry_each() {
    // client-go 1.36 RealFIFO with AtomicEvents (and EmitDeltaTypeBookmark, as newQueueFIFO
    // sets them): Replace → ReplacedAll, Resync → SyncAll, Bookmark → Bookmark; no
    // KnownObjects, so no tombstones are made in the queue.
    let q = real_fifo(RealFifoOptions {
        pop_batch: true,
        atomic_events: true,
        unlock_while_processing: true,
    });
    q.replace_at(vec![obj("ns/a", 1), obj("ns/b", 2)], "7");
    assert!(!q.has_synced());
    q.bookmark("9");
    q.add(obj("ns/c", 10));
    assert_eq!(q.resync(), 1, "one SyncAll entry");
    assert_eq!(
        q.queued_types(),
        [
            DeltaType::ReplacedAll,
            DeltaType::Bookmark,
            DeltaType::Added,
            DeltaType::SyncAll
        ]
    );
    assert_eq!(
        pop_all(&q).await,
        [
            "replaced-all rv=7 initial=true ns/a,ns/b",
            "bookmark 9",
            "batch ns/c",
            "sync-all"
        ]
    );
    assert!(q.has_synced(), "synced once the ReplacedAll was processed");
}

/// Ends the watch with a 410 ERROR event so the informer relists.
fn expire_watch(h: &Harness) {
    h.source.send_frame(Ok(WatchFrame::Error(ApiStatus {
        code: Some(410),
        reason: "Expired".into(),
        message: "too old resource version".into(),
        ..ApiStatus::default()
    })));
}

#[tokio::test(start_paused = true)]
async fn h1_h2_h3_handlers_hear_the_same_story_under_every_profile() {
    for p in &PROFILES {
        let mut h = Harness::new(InformerConfig::for_profile(p));
        h.source.apply(pod("ns", "a", "web"));
        h.source.apply(pod("ns", "b", "web"));
        let rec = Arc::new(Recorder::default());
        h.informer.add_event_handler("rec", rec.clone()).unwrap();
        h.synced().await;
        h.wait("watching", |ev| {
            count(ev, |e| matches!(e, Event::WatchStart { .. })) >= 1
        })
        .await;
        let rv_a = h.source.apply(pod("ns", "a", "db"));
        let rv_del = h.source.delete("ns/b").unwrap();
        h.wait("live events", |_| rec.lines().len() == 4).await;
        expire_watch(&h);
        h.wait("relisted", |_| rec.lines().len() == 5).await;
        let mut initial = rec.lines()[..2].to_vec();
        initial.sort();
        assert_eq!(
            initial,
            ["add ns/a 1 initial", "add ns/b 2 initial"],
            "{}",
            p.version
        );
        assert_eq!(
            rec.lines()[2..],
            [
                format!("update ns/a 1->{rv_a}"),
                format!("delete ns/b {rv_del}"),
                format!("update ns/a {rv_a}->{rv_a} sync"),
            ],
            "{}",
            p.version
        );
        assert_eq!(h.informer.indexer().list_keys(), ["ns/a"]);
        h.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn h3_an_atomic_relist_deletes_missing_keys_as_tombstones_before_the_updates() {
    // client-go 1.36 processReplacedAllInfo: the store takes the list, then handlers hear the
    // deletions (DeletedFinalStateUnknown) first, then an add or update per listed object.
    let mut h = Harness::new(InformerConfig::for_profile(Profile::newest()));
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    let rec = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.synced().await;
    h.wait("watching", |ev| {
        count(ev, |e| matches!(e, Event::WatchStart { .. })) >= 1
    })
    .await;
    h.source.delete_silently("ns/b");
    let rv_c = h.source.apply(pod("ns", "c", "web"));
    h.source.close_watches();
    h.wait("c", |_| rec.lines().len() == 3).await;
    expire_watch(&h);
    h.wait("relisted", |_| rec.lines().len() == 6).await;
    assert_eq!(
        rec.lines()[3..],
        [
            "delete ns/b 2 tombstone".to_owned(),
            "update ns/a 1->1 sync".to_owned(),
            format!("update ns/c {rv_c}->{rv_c} sync"),
        ]
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn h4_a_batch_writes_the_indexer_before_any_notification() {
    // client-go 1.35 processDeltasInBatch: the batch's writes are one transaction, the
    // callbacks follow.
    let mut h = Harness::new(InformerConfig::for_profile(Profile::of("1.35").unwrap()));
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let rec = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.synced().await;
    let ev = h.events();
    let last_write = ev
        .iter()
        .rposition(|e| matches!(e.event, Event::IndexerAdd { .. }))
        .unwrap();
    let first_notify = ev
        .iter()
        .position(|e| matches!(e.event, Event::Notify { .. }))
        .unwrap();
    assert!(last_write < first_notify, "{}", h.dump());
    let pops: Vec<Option<usize>> = ev
        .iter()
        .filter_map(|e| match &e.event {
            Event::Pop { batch, .. } => Some(*batch),
            _ => None,
        })
        .collect();
    assert_eq!(pops, [Some(5)], "one batch for the initial list");
    h.shutdown().await;
}

/// Rule Q2. features/known_features.go v0.36:127-130: InOrderInformers is GA with
/// `LockToDefault: true` in 1.36 — a 1.36 informer cannot use the DeltaFIFO. kinformer runs
/// the combination as a what-if and says so on the `started` line; earlier releases allow it.
#[tokio::test(start_paused = true)]
async fn q2_delta_fifo_under_1_36_is_a_what_if_and_says_so() {
    for (release, what_if) in [("1.32", false), ("1.35", false), ("1.36", true)] {
        let mut config = InformerConfig::for_profile(Profile::of(release).unwrap());
        config.queue = QueueKind::DeltaFifo;
        config.name = Some("my-controller".into());
        assert_eq!(config.what_if().is_some(), what_if, "{release}");
        let mut h = Harness::new(config);
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        let started = h.events().iter().find_map(|e| match &e.event {
            Event::Started { name, what_if, .. } => Some((name.clone(), what_if.clone())),
            _ => None,
        });
        let (name, said) = started.expect("a started line");
        assert_eq!(name.as_deref(), Some("my-controller"));
        assert_eq!(said.is_some(), what_if, "{release}: {said:?}");
        if let Some(said) = said {
            assert!(
                said.contains("InOrderInformers is GA and locked on"),
                "{said}"
            );
        }
        h.shutdown().await;
    }
}

/// client-go 1.36's informer metrics (tools/cache/fifo_metrics.go v0.36: NewQueuedItemMetric,
/// NewProcessingLatencyMetric observed around each processed pop, the_real_fifo.go v0.36:464;
/// NewStoreResourceVersionMetric set on every store write, thread_safe_store.go v0.36:296-457)
/// reach the exit summary, named as client-go names them.
#[tokio::test(start_paused = true)]
async fn m1_the_informer_metrics_client_go_publishes_are_in_the_summary() {
    let mut config = InformerConfig::for_profile(Profile::newest());
    config.name = Some("my-controller".into());
    let mut h = Harness::new(config);
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    let rv = h.source.apply(pod("ns", "p9", "web"));
    h.wait("p9 cached", |_| h.informer.indexer().len() == 6)
        .await;
    let summary = h.informer.summary();
    assert_eq!(summary.metrics.len(), 1);
    let m = &summary.metrics[0];
    assert_eq!(m.name.as_deref(), Some("my-controller"));
    assert_eq!(m.queued_items, 0, "everything was processed");
    let pops = count(&h.events(), |e| matches!(e, Event::Pop { .. }));
    assert_eq!(
        m.processed, pops as u64,
        "one observation per processed pop"
    );
    assert!(m.max_processing >= m.mean_processing);
    assert_eq!(m.store_resource_version, Some(rv));
    h.shutdown().await;
}
