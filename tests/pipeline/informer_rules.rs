//! SharedIndexInformer rules: HandleDeltas (H1–H4), sharedProcessor/processorListener
//! (P1–P8, and how the processor stops), the indexer's I3/I4 and the transform's F7, against
//! the in-memory ListerWatcher.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Harness, Recorder, count, pod};
use kinformer::informer::IndexFunc;
use kinformer::informer::Transform;
use kinformer::informer::source::{ApiStatus, WatchFrame};
use kinformer::informer::trace::{Event, NotifyKind, TraceEvent};
use kinformer::informer::{FnHandler, PANIC_PAUSE, PanicPolicy, SimulatedHandler};
use kinformer::informer::{InformerConfig, InformerError, Profile};

fn resync_config(resync: Duration) -> InformerConfig {
    InformerConfig {
        resync,
        ..InformerConfig::default()
    }
}

fn handled_by(events: &[TraceEvent], handler: &str) -> usize {
    count(
        events,
        |e| matches!(e, Event::Handled { handler: h, .. } if &**h == handler),
    )
}

fn notified(events: &[TraceEvent], handler: &str) -> usize {
    count(
        events,
        |e| matches!(e, Event::Notify { handler: h, .. } if &**h == handler),
    )
}

#[tokio::test(start_paused = true)]
async fn h1_h3_adds_updates_and_deletes_reach_the_indexer_and_every_handler() {
    let mut h = Harness::new(InformerConfig::default());
    h.source.apply(pod("ns", "a", "web"));
    let rec = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.synced().await;
    // One write at a time: a DeltaFIFO would otherwise pop b's add and delete together.
    let rv_b = h.source.apply(pod("ns", "b", "web"));
    h.wait("b", |ev| handled_by(ev, "rec") == 2).await;
    let rv_a2 = h.source.apply(pod("ns", "a", "db"));
    h.wait("a", |ev| handled_by(ev, "rec") == 3).await;
    let rv_del = h.source.delete("ns/b").unwrap();
    h.wait("all handled", |ev| handled_by(ev, "rec") == 4).await;
    assert_eq!(
        rec.lines(),
        [
            "add ns/a 1 initial".to_owned(),
            format!("add ns/b {rv_b}"),
            format!("update ns/a 1->{rv_a2}"),
            format!("delete ns/b {rv_del}"),
        ]
    );
    let store = h.informer.indexer();
    assert_eq!(store.list_keys(), ["ns/a"]);
    assert_eq!(
        store.get("ns/a").unwrap().resource_version(),
        rv_a2.to_string()
    );
    h.shutdown().await;
}

/// Ends the watch with a 410 ERROR event: the reflector relists.
async fn force_relist(h: &Harness, lists_before: usize) {
    h.source.send_frame(Ok(WatchFrame::Error(ApiStatus {
        code: Some(410),
        reason: "Expired".into(),
        message: "too old resource version".into(),
        ..ApiStatus::default()
    })));
    h.wait("relisted", |ev| {
        count(ev, |e| matches!(e, Event::ListDone { .. })) == lists_before + 1
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn h2_after_a_relist_every_unchanged_object_reaches_every_handler_as_a_sync_update() {
    // The informer never checks resync (period 0, `watch`'s default), so every listener stays
    // in the syncing set it starts in: an unchanged object coming back in the relist is an
    // update with equal resourceVersions, and every handler hears of it.
    let mut h = Harness::new(InformerConfig::default());
    h.source.apply(pod("ns", "same", "web"));
    h.source.apply(pod("ns", "changes", "web"));
    let rec = Arc::new(Recorder::default());
    let other = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.informer
        .add_event_handler("other", other.clone())
        .unwrap();
    h.synced().await;
    h.wait("watching", |_| h.source.calls().len() == 2).await;
    h.source.close_watches();
    h.source.trim_history();
    let rv = h.source.apply(pod("ns", "changes", "db"));
    h.wait("relisted", |ev| {
        count(ev, |e| matches!(e, Event::ListDone { .. })) == 2
    })
    .await;
    h.wait("handled", |ev| {
        handled_by(ev, "rec") == 4 && handled_by(ev, "other") == 4
    })
    .await;
    for lines in [rec.lines(), other.lines()] {
        let mut updates = lines[2..].to_vec();
        updates.sort();
        assert_eq!(
            updates,
            [
                format!("update ns/changes 2->{rv}"),
                "update ns/same 1->1 sync".to_owned()
            ]
        );
    }
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(e, Event::Handled { sync: true, .. })),
        2,
        "one sync update per handler"
    );
    assert_eq!(h.informer.summary().handlers[0].syncs, 1);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn h2_a_resync_check_takes_listeners_that_are_not_due_out_of_the_syncing_set() {
    // Check period 10s: `due` resyncs every 10s, `never` asked for no resync. Before the first
    // check both are in the syncing set; after it only `due` is.
    let mut h = Harness::new(resync_config(Duration::from_secs(10)));
    h.source.apply(pod("ns", "same", "web"));
    let due = Arc::new(Recorder::default());
    let never = Arc::new(Recorder::default());
    h.informer.add_event_handler("due", due.clone()).unwrap();
    h.informer
        .add_event_handler_with_resync("never", never.clone(), Duration::ZERO)
        .unwrap();
    h.synced().await;
    h.wait("watching", |_| h.source.calls().len() == 2).await;
    force_relist(&h, 1).await;
    h.wait("first relist handled", |ev| {
        handled_by(ev, "due") == 2 && handled_by(ev, "never") == 2
    })
    .await;
    assert_eq!(never.lines()[1], "update ns/same 1->1 sync");
    h.wait("first resync check", |ev| {
        count(ev, |e| matches!(e, Event::ResyncTick { .. })) == 1
    })
    .await;
    h.wait("watching again", |ev| {
        count(ev, |e| matches!(e, Event::WatchStart { .. })) >= 2
    })
    .await;
    force_relist(&h, 2).await;
    h.wait("second relist handled by due", |ev| {
        handled_by(ev, "due") >= 4
    })
    .await;
    assert_eq!(
        never.lines().len(),
        2,
        "never is out of the syncing set after the first check: {:?}",
        never.lines()
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn h3_c3_a_delete_missed_during_a_disconnect_arrives_as_a_tombstone_with_the_last_state() {
    let mut h = Harness::new(InformerConfig::default());
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    let rec = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.synced().await;
    h.wait("watching", |_| h.source.calls().len() == 2).await;
    h.source.close_watches();
    h.source.delete_silently("ns/b");
    h.source.trim_history();
    // The relist brings back the unchanged ns/a as a sync update (Rule H2) and ns/b as a
    // tombstone.
    h.wait("tombstone handled", |ev| handled_by(ev, "rec") == 4)
        .await;
    assert_eq!(
        rec.lines()[2..],
        ["update ns/a 1->1 sync", "delete ns/b 2 tombstone"]
    );
    assert!(h.informer.indexer().get("ns/b").is_none());
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::IndexerDelete {
                tombstone: true,
                ..
            }
        )),
        1
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn h4_handlers_are_notified_after_the_indexer_write() {
    let mut h = Harness::new(InformerConfig::default());
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    // A handler reading the cache sees at least the state it is notified about.
    let store = h.informer.indexer().clone();
    let stale = Arc::new(AtomicUsize::new(0));
    let stale_seen = stale.clone();
    h.informer
        .add_event_handler(
            "reader",
            Arc::new(FnHandler(move |n: &kinformer::informer::Notification| {
                let cached = store.get(n.key());
                let ok = match n.kind() {
                    NotifyKind::Delete => cached.is_none(),
                    _ => cached
                        .is_some_and(|c| c.resource_version() == n.object().resource_version()),
                };
                if !ok {
                    stale_seen.fetch_add(1, Ordering::SeqCst);
                }
            })),
        )
        .unwrap();
    h.synced().await;
    h.wait("initial adds", |ev| handled_by(ev, "reader") == 5)
        .await;
    // Quiescent writes: each handled before the next, so the cache cannot have moved on.
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "db"));
        h.wait("update", |ev| handled_by(ev, "reader") == 6 + i)
            .await;
    }
    h.source.delete("ns/p0");
    h.wait("handled", |ev| handled_by(ev, "reader") == 11).await;
    assert_eq!(stale.load(Ordering::SeqCst), 0);
    // And in the trace every notify follows the indexer write for the same key and rv.
    let ev = h.events();
    for (i, e) in ev.iter().enumerate() {
        if let Event::Notify { notification, .. } = &e.event {
            let written = ev[..i].iter().any(|w| match &w.event {
                Event::IndexerAdd {
                    key,
                    resource_version,
                    ..
                }
                | Event::IndexerUpdate {
                    key,
                    resource_version,
                    ..
                }
                | Event::IndexerDelete {
                    key,
                    resource_version,
                    ..
                } => {
                    key == notification.key()
                        && resource_version == notification.object().resource_version()
                }
                _ => false,
            });
            assert!(written, "notify before indexer write: seq {}", e.seq);
        }
    }
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p1_a_slow_handler_never_blocks_the_queue_or_a_fast_handler() {
    let mut h = Harness::new(InformerConfig::default());
    let fast = Arc::new(Recorder::default());
    h.informer.add_event_handler("fast", fast.clone()).unwrap();
    h.informer
        .add_event_handler(
            "slow",
            Arc::new(SimulatedHandler::new(Duration::from_secs(10))),
        )
        .unwrap();
    h.synced().await;
    for i in 0..20 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.wait("fast done", |ev| handled_by(ev, "fast") == 20).await;
    let ev = h.events();
    assert!(
        handled_by(&ev, "slow") <= 1,
        "slow handler is still working"
    );
    assert_eq!(
        h.informer.indexer().len(),
        20,
        "the queue drained regardless"
    );
    let max_pending = ev
        .iter()
        .filter_map(|e| match &e.event {
            Event::Notify {
                handler, pending, ..
            } if &**handler == "slow" => Some(*pending),
            _ => None,
        })
        .max();
    assert!(
        max_pending >= Some(19),
        "backlog grows in the slow handler's buffer: {max_pending:?}"
    );
    // In order, per handler.
    let expected: Vec<String> = (0..20).map(|i| format!("add ns/p{i} {}", i + 1)).collect();
    assert_eq!(fast.lines(), expected);
    h.wait("slow done", |ev| handled_by(ev, "slow") == 20).await;
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p2_p4_p5_three_handlers_0_2s_5s_with_default_3s_resync_on_a_2s_check_period() {
    let mut h = Harness::new(resync_config(Duration::from_secs(3)));
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    let never = Arc::new(Recorder::default());
    let every2 = Arc::new(Recorder::default());
    let every5 = Arc::new(Recorder::default());
    let i = &h.informer;
    i.add_event_handler_with_resync("never", never.clone(), Duration::ZERO)
        .unwrap();
    i.add_event_handler_with_resync("every5", every5.clone(), Duration::from_secs(5))
        .unwrap();
    assert_eq!(i.resync_check_period(), Duration::from_secs(3));
    i.add_event_handler_with_resync("every2", every2.clone(), Duration::from_secs(2))
        .unwrap();
    // Rule P2: a shorter period before start lowers the check period.
    assert_eq!(i.resync_check_period(), Duration::from_secs(2));
    let start = tokio::time::Instant::now();
    h.synced().await;
    h.wait("6 ticks", |ev| {
        count(ev, |e| matches!(e, Event::ResyncTick { .. })) >= 6
    })
    .await;
    let ev = h.events();
    let ticks: Vec<(u64, Vec<String>)> = ev
        .iter()
        .filter_map(|e| match &e.event {
            Event::ResyncTick { due, check_period } => {
                assert_eq!(*check_period, Duration::from_secs(2));
                Some((0, due.iter().map(|d| d.to_string()).collect()))
            }
            _ => None,
        })
        .collect();
    let due: Vec<Vec<String>> = ticks.into_iter().map(|(_, d)| d).take(6).collect();
    // Ticks at 2,4,6,8,10,12 s: every2 due each time; every5 (next at 5 s) due at 6 s, then 11 → 12 s.
    let e2 = || vec!["every2".to_owned()];
    let both = || vec!["every5".to_owned(), "every2".to_owned()];
    assert_eq!(due, [e2(), e2(), both(), e2(), e2(), both()]);
    assert!(start.elapsed() >= Duration::from_secs(12));
    h.wait("syncs handled", |ev| handled_by(ev, "every5") >= 6)
        .await;
    let syncs = |r: &Recorder| r.lines().iter().filter(|l| l.ends_with(" sync")).count();
    assert_eq!(syncs(&never), 0, "Rule P4: period 0 never resyncs");
    assert_eq!(syncs(&every5), 4, "two objects at 6 s and 12 s");
    assert!(syncs(&every2) >= 12);
    // The schedule is in the trace: handler-added lines carry the effective period.
    let added: Vec<(String, Duration)> = ev
        .iter()
        .filter_map(|e| match &e.event {
            Event::HandlerAdded {
                handler,
                effective_resync,
                ..
            } => Some((handler.to_string(), *effective_resync)),
            _ => None,
        })
        .collect();
    assert_eq!(added[0], ("never".into(), Duration::ZERO));
    assert_eq!(added[2], ("every2".into(), Duration::from_secs(2)));
    assert_eq!(
        count(&ev, |e| matches!(e, Event::ResyncPeriodChanged { .. })),
        2
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p2_a_period_below_one_second_becomes_one_second() {
    let h = Harness::new(resync_config(Duration::from_secs(30)));
    h.informer
        .add_event_handler_with_resync(
            "tiny",
            Arc::new(Recorder::default()),
            Duration::from_millis(100),
        )
        .unwrap();
    assert_eq!(h.informer.resync_check_period(), Duration::from_secs(1));
    assert_eq!(
        h.informer.listeners()[0].resync_period(),
        Duration::from_secs(1)
    );
}

#[tokio::test(start_paused = true)]
async fn p4_a_zero_check_period_means_the_informer_never_resyncs() {
    let mut h = Harness::new(resync_config(Duration::ZERO));
    h.source.apply(pod("ns", "a", "web"));
    let reg = h
        .informer
        .add_event_handler_with_resync("h", Arc::new(Recorder::default()), Duration::from_secs(5))
        .unwrap();
    // client-go's determineResyncPeriod: no check period, no resync for anyone.
    assert_eq!(reg.listener().resync_period(), Duration::ZERO);
    h.synced().await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(
        count(&h.events(), |e| matches!(e, Event::ResyncTick { .. })),
        0
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p3_a_late_handler_gets_one_add_per_cached_object_then_live_events_without_gap_or_duplicate()
 {
    let mut h = Harness::new(resync_config(Duration::from_secs(3)));
    for i in 0..10 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    // Writes continue around the moment the handler joins.
    let source = h.source.clone();
    let writer = tokio::spawn(async move {
        for round in 0..20 {
            source.apply(pod("ns", &format!("p{}", round % 10), &format!("v{round}")));
            tokio::task::yield_now().await;
        }
    });
    tokio::task::yield_now().await;
    let late = Arc::new(Recorder::default());
    let reg = h
        .informer
        .add_event_handler_with_resync("late", late.clone(), Duration::from_secs(1))
        .unwrap();
    // After start, a period below the check period is raised to it.
    assert_eq!(reg.listener().resync_period(), Duration::from_secs(3));
    writer.await.unwrap();
    let final_rv = h.source.resource_version().to_string();
    h.wait("late caught up", |_| {
        late.lines()
            .iter()
            .any(|l| l.ends_with(&format!("->{final_rv}")) || l.contains(&format!(" {final_rv} ")))
    })
    .await;
    let lines = late.lines();
    let adds: Vec<&String> = lines.iter().filter(|l| l.starts_with("add")).collect();
    assert_eq!(
        adds.len(),
        10,
        "exactly one add per cached object: {lines:?}"
    );
    assert!(adds.iter().all(|l| l.ends_with("initial")));
    // Per key, updates chain from the state the handler last saw: no gap, no duplicate.
    for i in 0..10 {
        let key = format!("ns/p{i}");
        let mut last: Option<String> = None;
        for l in lines
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some(key.as_str()))
        {
            let parts: Vec<&str> = l.split(' ').collect();
            match parts[0] {
                "add" => {
                    assert!(last.is_none(), "duplicate add for {key}");
                    last = Some(parts[2].to_owned());
                }
                _ => {
                    let (old, new) = parts[2].split_once("->").unwrap();
                    assert_eq!(Some(old), last.as_deref(), "gap for {key}: {lines:?}");
                    last = Some(new.to_owned());
                }
            }
        }
        assert_eq!(last.as_deref(), Some(h.source.snapshot()[&key].as_str()));
    }
    assert!(reg.has_synced());
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p6_removing_a_handler_stops_its_notifications_and_removing_twice_is_harmless() {
    let mut h = Harness::new(InformerConfig::default());
    let gone = Arc::new(Recorder::default());
    let stays = Arc::new(Recorder::default());
    let reg = h.informer.add_event_handler("gone", gone.clone()).unwrap();
    h.informer
        .add_event_handler("stays", stays.clone())
        .unwrap();
    h.synced().await;
    h.source.apply(pod("ns", "a", "web"));
    h.wait("a", |ev| {
        handled_by(ev, "gone") == 1 && handled_by(ev, "stays") == 1
    })
    .await;
    assert!(h.informer.remove_event_handler(&reg));
    assert!(!h.informer.remove_event_handler(&reg));
    h.source.apply(pod("ns", "b", "web"));
    h.wait("b", |ev| handled_by(ev, "stays") == 2).await;
    assert_eq!(gone.lines().len(), 1);
    assert_eq!(
        count(&h.events(), |e| matches!(e, Event::HandlerRemoved { .. })),
        1
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p6_a_removed_handler_gets_nothing_more_and_its_pending_notifications_are_dropped() {
    // client-go's RemoveEventHandler (v1.26+): the processor stops the listener; the
    // notification in hand finishes, the buffered ones are dropped, nothing new is queued.
    let mut h = Harness::new(InformerConfig::default());
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let slow = Arc::new(SimulatedHandler::new(Duration::from_secs(10)));
    let reg = h.informer.add_event_handler("slow", slow.clone()).unwrap();
    h.synced().await;
    h.wait("five queued", |ev| notified(ev, "slow") == 5).await;
    let listener = reg.listener().clone();
    assert!(h.informer.remove_event_handler(&reg));
    h.source.apply(pod("ns", "late", "web"));
    h.wait("late cached", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "ns/late"),
        ) == 1
    })
    .await;
    // The worker holds the handler until it ended: then its buffer has been dropped.
    tokio::time::timeout(Duration::from_secs(60), async {
        while Arc::strong_count(&slow) > 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the removed listener's worker ends");
    let summary = listener.summary();
    assert_eq!(
        (summary.handled, summary.dropped, listener.pending()),
        (1, 4, 0),
        "the notification in hand finished, the 4 buffered were dropped"
    );
    assert_eq!(
        notified(&h.events(), "slow"),
        5,
        "nothing after the removal"
    );
    h.shutdown().await;
}

/// The position of the first event matching `f`.
fn position(events: &[TraceEvent], f: impl Fn(&Event) -> bool) -> Option<usize> {
    events.iter().position(|e| f(&e.event))
}

#[tokio::test(start_paused = true)]
async fn p6_shutting_down_a_handler_waits_for_its_in_flight_callback() {
    // client-go 1.37's ShutDownEventHandler (shared_informer.go v0.37.0-beta.0:1032-1042):
    // RemoveEventHandler, then block until the listener's run goroutine returned
    // (`runFinished`, closed by run's defer, :1365-1366): afterwards no callback of that
    // handler runs. The buffered notifications are dropped as RemoveEventHandler drops them.
    let mut h = Harness::new(InformerConfig::default());
    for i in 0..3 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let slow = Arc::new(SimulatedHandler::new(Duration::from_secs(10)));
    let reg = h.informer.add_event_handler("slow", slow).unwrap();
    h.synced().await;
    h.wait("three queued", |ev| notified(ev, "slow") == 3).await;
    let started = tokio::time::Instant::now();
    assert!(h.informer.shut_down_event_handler(&reg).await);
    assert!(
        started.elapsed() > Duration::from_secs(5),
        "it waited for the 10 s callback in hand"
    );
    let events = h.events();
    let handled = position(&events, |e| matches!(e, Event::Handled { .. }));
    let removed = position(&events, |e| matches!(e, Event::HandlerRemoved { .. }));
    assert!(
        handled.is_some() && handled < removed,
        "the in-flight callback ended before the removal was told: {}",
        h.dump()
    );
    assert_eq!(
        handled_by(&events, "slow"),
        1,
        "the two buffered were dropped"
    );
    assert!(
        !h.informer.shut_down_event_handler(&reg).await,
        "twice is harmless"
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p6_removing_tells_the_removal_at_once_and_1_37_waits_like_shut_down() {
    // RemoveEventHandler (every release) is asynchronous: `handler-removed` is told while the
    // callback in hand still runs. Under the 1.37 profile kinformer removes handlers with
    // ShutDownEventHandler, so the removal is told once that callback returned.
    for (release, waits) in [("1.36", false), ("1.37", true)] {
        let config = InformerConfig::for_profile(Profile::of(release).unwrap());
        let mut h = Harness::new(config);
        h.source.apply(pod("ns", "p0", "web"));
        let slow = Arc::new(SimulatedHandler::new(Duration::from_secs(10)));
        let reg = h.informer.add_event_handler("slow", slow).unwrap();
        h.synced().await;
        h.wait("one queued", |ev| notified(ev, "slow") == 1).await;
        assert!(h.informer.remove_handler_as_released(&reg));
        h.wait("removal told", |ev| {
            count(ev, |e| matches!(e, Event::HandlerRemoved { .. })) == 1
        })
        .await;
        let events = h.events();
        let handled = position(&events, |e| matches!(e, Event::Handled { .. }));
        let removed = position(&events, |e| matches!(e, Event::HandlerRemoved { .. }));
        assert_eq!(
            handled.is_some_and(|h| Some(h) < removed),
            waits,
            "{release}: {}",
            h.dump()
        );
        h.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn p7_a_handler_has_synced_only_after_processing_every_initial_add() {
    let mut h = Harness::new(InformerConfig::default());
    for i in 0..3 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let slow = h
        .informer
        .add_event_handler(
            "slow",
            Arc::new(SimulatedHandler::new(Duration::from_secs(5))),
        )
        .unwrap();
    let fast = h
        .informer
        .add_event_handler("fast", Arc::new(Recorder::default()))
        .unwrap();
    assert!(!slow.has_synced());
    h.synced().await;
    h.wait("fast done", |ev| handled_by(ev, "fast") == 3).await;
    assert!(fast.has_synced());
    assert!(!slow.has_synced(), "slow still has initial adds pending");
    h.wait("slow done", |ev| handled_by(ev, "slow") == 3).await;
    assert!(slow.has_synced());
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p8_a_panicking_handler_crashes_the_informer_by_default() {
    // client-go's default, utilruntime.ReallyCrash: the panic takes the informer down.
    let mut h = Harness::new(InformerConfig::default());
    h.source.apply(pod("ns", "a", "web"));
    let flaky = Recorder::panicking_once();
    let steady = Arc::new(Recorder::default());
    h.informer
        .add_event_handler("flaky", flaky.clone())
        .unwrap();
    h.informer
        .add_event_handler("steady", steady.clone())
        .unwrap();
    h.start();
    let result = h.run_result().await;
    match result {
        Err(InformerError::HandlerPanicked(panic)) => {
            assert_eq!(&*panic.handler, "flaky");
            assert_eq!(panic.message, "handler failure injected by the test");
        }
        other => panic!("expected a handler panic, got {other:?}"),
    }
    let ev = h.events();
    assert!(matches!(
        ev.last().map(|e| &e.event),
        Some(Event::Stopped { reason }) if reason.contains("flaky")
    ));
    assert_eq!(h.informer.summary().handlers[0].panics, 1);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p8_with_crashing_off_the_notification_is_skipped_and_the_listener_pauses_a_second() {
    let mut h = Harness::new(InformerConfig {
        on_panic: PanicPolicy::Skip,
        ..InformerConfig::default()
    });
    h.source.apply(pod("ns", "a", "web"));
    let flaky = Recorder::panicking_once();
    h.informer
        .add_event_handler("flaky", flaky.clone())
        .unwrap();
    h.synced().await;
    h.source.apply(pod("ns", "b", "web"));
    h.wait("both handled", |ev| handled_by(ev, "flaky") == 2)
        .await;
    assert_eq!(flaky.lines().len(), 2);
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(e, Event::Handled { panicked: true, .. })),
        1
    );
    let b_latency = ev.iter().find_map(|e| match &e.event {
        Event::Handled { key, latency, .. } if key == "ns/b" => Some(*latency),
        _ => None,
    });
    assert!(
        b_latency.is_some_and(|l| l >= PANIC_PAUSE),
        "the next notification waits out the 1s pause: {b_latency:?}"
    );
    assert_eq!(h.informer.summary().handlers[0].panics, 1);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn p1_stopping_ends_every_listener_and_drops_its_pending_notifications() {
    // client-go's processor.run after its context is done: each listener finishes the
    // notification in hand; what is still buffered is dropped; run returns after wg.Wait().
    let mut h = Harness::new(InformerConfig::default());
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let slow = Arc::new(SimulatedHandler::new(Duration::from_secs(10)));
    h.informer.add_event_handler("slow", slow.clone()).unwrap();
    h.synced().await;
    h.wait("one in hand", |ev| notified(ev, "slow") == 5).await;
    h.stop.cancel();
    assert_eq!(h.run_result().await, Ok(()));
    let summary = h.informer.summary();
    let slow_summary = &summary.handlers[0];
    assert_eq!(
        (slow_summary.handled, slow_summary.dropped),
        (1, 4),
        "the notification in hand finished, the 4 pending were dropped"
    );
    assert_eq!(h.informer.listeners()[0].pending(), 0);
    assert_eq!(
        Arc::strong_count(&slow),
        1,
        "the listener's worker (which holds the handler) has ended"
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn i3_an_indexer_added_after_start_indexes_the_cache_at_once_and_stays_exact() {
    let mut h = Harness::new(InformerConfig::default());
    h.source.apply(pod("ns", "a", "web"));
    h.informer
        .add_indexer("app", IndexFunc::Label("app".into()))
        .unwrap();
    h.synced().await;
    h.informer
        .add_indexer(
            "node",
            IndexFunc::Field(vec!["spec".into(), "nodeName".into()]),
        )
        .unwrap();
    let store = h.informer.indexer();
    assert_eq!(store.index_keys("node", "node-1").unwrap(), ["ns/a"]);
    assert_eq!(store.index_keys("app", "web").unwrap(), ["ns/a"]);
    // Objects decoded after the late indexer, and updates, keep it exact.
    let mut moved = pod("ns", "a", "web");
    moved["spec"]["nodeName"] = "node-2".into();
    h.source.apply(moved);
    h.source.apply(pod("ns", "b", "web"));
    h.wait("both applied", |ev| {
        count(ev, |e| {
            matches!(e, Event::IndexerAdd { .. } | Event::IndexerUpdate { .. })
        }) == 3
    })
    .await;
    assert_eq!(store.index_keys("node", "node-1").unwrap(), ["ns/b"]);
    assert_eq!(store.index_keys("node", "node-2").unwrap(), ["ns/a"]);
    assert_eq!(
        store.list_index_func_values("node").unwrap(),
        ["node-1", "node-2"]
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn i3_no_indexer_can_be_added_once_the_informer_stopped() {
    let mut h = Harness::new(InformerConfig::default());
    h.synced().await;
    h.stop.cancel();
    assert_eq!(h.run_result().await, Ok(()));
    assert_eq!(
        h.informer
            .add_indexer("app", IndexFunc::Label("app".into())),
        Err(InformerError::Stopped)
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn i4_cluster_scoped_objects_sit_under_the_empty_namespace() {
    let mut h = Harness::new(InformerConfig::default());
    h.source
        .apply(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    let store = h.informer.indexer();
    assert_eq!(store.index_keys("namespace", "").unwrap(), ["n1"]);
    assert_eq!(store.index_keys("namespace", "ns").unwrap(), ["ns/a"]);
    assert_eq!(
        store.list_index_func_values("namespace").unwrap(),
        ["", "ns"]
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn f7_the_transform_runs_once_per_object_before_it_is_queued() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let transform: Transform = Arc::new(move |raw: &[u8]| {
        seen.fetch_add(1, Ordering::SeqCst);
        let mut v: serde_json::Value = serde_json::from_slice(raw)?;
        v["metadata"]["labels"]["transformed"] = "yes".into();
        Ok(serde_json::to_vec(&v)?)
    });
    let mut h = Harness::new(InformerConfig {
        resync: Duration::from_secs(1),
        transform: Some(transform),
        ..InformerConfig::default()
    });
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    h.informer
        .add_event_handler("h", Arc::new(Recorder::default()))
        .unwrap();
    h.synced().await;
    h.source.apply(pod("ns", "a", "db"));
    // Resyncs replay cached objects: they must not be transformed again.
    h.wait("resyncs", |ev| {
        count(ev, |e| matches!(e, Event::SyncQueued { .. })) >= 2
    })
    .await;
    h.wait("a updated", |_| {
        h.informer
            .indexer()
            .get("ns/a")
            .is_some_and(|o| o.meta().label("app") == Some("db"))
    })
    .await;
    assert_eq!(calls.load(Ordering::SeqCst), 3, "2 listed + 1 watched");
    for obj in h.informer.indexer().list() {
        assert_eq!(obj.meta().label("transformed"), Some("yes"));
    }
    h.shutdown().await;
}

/// Runs the same burst of writes through an informer with `queue` and returns what the
/// handler saw and the final cache (`key rv` lines).
async fn burst(queue: kinformer::informer::QueueKind) -> (Vec<String>, Vec<String>) {
    let mut h = Harness::new(InformerConfig {
        queue,
        ..InformerConfig::default()
    });
    h.source.apply(pod("ns", "a", "v0"));
    h.source.apply(pod("ns", "b", "v0"));
    let rec = Arc::new(Recorder::default());
    h.informer.add_event_handler("rec", rec.clone()).unwrap();
    h.synced().await;
    h.wait("initial", |ev| handled_by(ev, "rec") == 2).await;
    // All written before the process loop runs again: the queue holds them together.
    h.source.apply(pod("ns", "a", "v1"));
    h.source.apply(pod("ns", "b", "v1"));
    h.source.apply(pod("ns", "a", "v2"));
    h.source.apply(pod("ns", "c", "v0"));
    h.source.delete("ns/c");
    h.wait("burst handled", |ev| handled_by(ev, "rec") == 7)
        .await;
    let mut cache: Vec<String> = h
        .informer
        .indexer()
        .list()
        .iter()
        .map(|o| format!("{} {}", o.key(), o.resource_version()))
        .collect();
    cache.sort();
    let lines = rec.lines();
    h.shutdown().await;
    (lines, cache)
}

#[tokio::test(start_paused = true)]
async fn q1_delta_fifo_and_real_fifo_converge_but_only_delta_fifo_groups_deltas_by_key() {
    use kinformer::informer::QueueKind;
    let (delta, delta_cache) = burst(QueueKind::DeltaFifo).await;
    let (real, real_cache) = burst(QueueKind::RealFifo).await;
    assert_eq!(delta_cache, real_cache, "same writes, same cache");
    assert_eq!(delta_cache, ["ns/a 5", "ns/b 4"]);
    // RealFIFO: arrival order. DeltaFIFO: a's deltas leave together at a's first position.
    assert_eq!(
        real[2..],
        [
            "update ns/a 1->3",
            "update ns/b 2->4",
            "update ns/a 3->5",
            "add ns/c 6",
            "delete ns/c 7"
        ]
    );
    assert_eq!(
        delta[2..],
        [
            "update ns/a 1->3",
            "update ns/a 3->5",
            "update ns/b 2->4",
            "add ns/c 6",
            "delete ns/c 7"
        ]
    );
}

/// Checks, at the moment `handler-added` is emitted, that the informer already lists the
/// handler: the line is written after registration, never before.
struct RegisteredCheck {
    informer: std::sync::OnceLock<kinformer::informer::SharedIndexInformer>,
    seen: std::sync::Mutex<Vec<bool>>,
}

struct CheckSink(Arc<RegisteredCheck>);

impl kinformer::informer::trace::TraceSink for CheckSink {
    fn record(&self, event: TraceEvent) {
        if let Event::HandlerAdded { handler, .. } = &event.event {
            let registered = self
                .0
                .informer
                .get()
                .is_some_and(|i| i.listeners().iter().any(|l| l.name() == handler));
            self.0.seen.lock().unwrap().push(registered);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn p3_handler_added_is_traced_once_the_handler_is_registered() {
    use kinformer::informer::testing::MemorySource;
    use kinformer::informer::trace::{StageSet, Tracer};
    let check = Arc::new(RegisteredCheck {
        informer: std::sync::OnceLock::new(),
        seen: std::sync::Mutex::default(),
    });
    let source = Arc::new(MemorySource::new());
    source.apply(pod("ns", "a", "web"));
    let informer = kinformer::informer::SharedIndexInformer::new(
        source,
        InformerConfig::default(),
        Tracer::new(CheckSink(check.clone()), StageSet::ALL),
    );
    let _ = check.informer.set(informer.clone());
    informer
        .add_event_handler("early", Arc::new(Recorder::default()))
        .unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let task = tokio::spawn({
        let informer = informer.clone();
        let stop = stop.clone();
        async move { informer.run(stop).await }
    });
    let synced = tokio::time::timeout(common::DEADLINE, informer.wait_for_sync(&stop)).await;
    assert_eq!(synced, Ok(true));
    informer
        .add_event_handler("late", Arc::new(Recorder::default()))
        .unwrap();
    assert_eq!(*check.seen.lock().unwrap(), [true, true]);
    stop.cancel();
    assert_eq!(task.await.unwrap(), Ok(()));
}

/// The cache sizes a reader polling the informer's cache saw while `n` pods were synced
/// under `release`, and the Pop batches the process loop took.
async fn cache_sizes_during_sync(release: &str, n: usize) -> (Vec<usize>, Vec<usize>) {
    use kinformer::informer::Profile;
    let mut cfg = InformerConfig::for_profile(Profile::of(release).unwrap());
    cfg.reflector.watch_list = false;
    let mut h = Harness::new(cfg);
    for i in 0..n {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    let cache = h.informer.indexer();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = std::thread::spawn({
        let done = done.clone();
        move || {
            let mut sizes = std::collections::BTreeSet::new();
            while !done.load(Ordering::Acquire) {
                sizes.insert(cache.len());
            }
            sizes.insert(cache.len());
            sizes.into_iter().collect::<Vec<_>>()
        }
    });
    h.synced().await;
    done.store(true, Ordering::Release);
    let sizes = reader.join().unwrap();
    let batches = h
        .events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Pop { batch, deltas, .. } => Some(batch.unwrap_or(*deltas)),
            _ => None,
        })
        .collect();
    h.shutdown().await;
    (sizes, batches)
}

/// Rule I5. client-go 1.36 (AtomicFIFO): a relist is one ReplacedAll entry, applied by
/// processReplacedAllInfo with `clientState.Replace` under one lock (controller.go
/// v0.36:756-803, thread_safe_store.go v0.36:388-406): a reader sees the cache before or
/// after the whole list, never part of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i5_under_atomic_fifo_a_reader_sees_the_whole_list_or_nothing() {
    let n = 5000;
    let (sizes, _) = cache_sizes_during_sync("1.36", n).await;
    assert!(
        sizes.iter().all(|s| *s == 0 || *s == n),
        "1.36 sizes seen: {:?}",
        &sizes[..sizes.len().min(20)]
    );
}

/// Rule I5. client-go 1.35 (PopBatch): processDeltasInBatch writes a batch as one
/// `Transaction` (controller.go v0.36:676-754, thread_safe_store.go v0.36:269-299): every size
/// a reader sees is a batch boundary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i5_under_pop_batch_a_reader_sees_whole_batches_only() {
    let n = 5000;
    let (sizes, batches) = cache_sizes_during_sync("1.35", n).await;
    let mut boundaries = vec![0];
    for b in &batches {
        boundaries.push(boundaries.last().unwrap() + b);
    }
    assert!(batches.iter().any(|b| *b > 1), "batches: {batches:?}");
    let torn: Vec<&usize> = sizes.iter().filter(|s| !boundaries.contains(s)).collect();
    assert!(torn.is_empty(), "sizes inside a batch: {torn:?}");
}

/// Rule I6. client-go 1.36's LastStoreSyncResourceVersion follows every store write:
/// Add/Update set the object's resourceVersion (thread_safe_store.go v0.36:309-320),
/// DeleteWithObject the deleted object's (:333-349), Replace the list's (:388-400), Bookmark
/// the bookmark's (:447-458); without AtomicFIFO it answers "" (:436-444).
#[tokio::test(start_paused = true)]
async fn i6_the_store_resource_version_follows_every_write_under_atomic_fifo_only() {
    use kinformer::informer::Profile;
    for release in ["1.35", "1.36"] {
        let atomic = release == "1.36";
        let mut h = Harness::new(InformerConfig::for_profile(Profile::of(release).unwrap()));
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        let store_rv = || h.informer.last_store_resource_version();
        let expect = |rv: String| if atomic { rv } else { String::new() };
        let listed = h.informer.last_sync_resource_version();
        assert_eq!(
            store_rv(),
            expect(listed.clone()),
            "{release}: after the list"
        );
        let synced_rv = h.events().iter().find_map(|e| match &e.event {
            Event::Synced { store_rv, .. } => Some(store_rv.clone()),
            _ => None,
        });
        assert_eq!(synced_rv, Some(atomic.then_some(listed)), "{release}");
        let added = h.source.apply(pod("ns", "b", "web")).to_string();
        h.wait("b cached", |_| h.informer.indexer().len() == 2)
            .await;
        assert_eq!(store_rv(), expect(added), "{release}: after an add");
        let deleted = h.source.delete("ns/a").unwrap().to_string();
        h.wait("a gone", |_| h.informer.indexer().len() == 1).await;
        assert_eq!(store_rv(), expect(deleted), "{release}: after a delete");
        h.source.apply(pod("other", "c", "web"));
        h.source.bookmark();
        let bookmarked = h.source.resource_version().to_string();
        h.wait("bookmark", |ev| {
            count(ev, |e| matches!(e, Event::Bookmark { .. })) == 1
        })
        .await;
        h.wait("bookmark stored", |_| {
            !atomic || h.informer.last_store_resource_version() == bookmarked
        })
        .await;
        assert_eq!(
            store_rv(),
            expect(bookmarked),
            "{release}: after a bookmark"
        );
        h.shutdown().await;
    }
}

/// Rule R13. client-go's reflector handleWatch (reflector.go v0.36 watchHandler) logs a failed
/// `store.Add/Update/Delete` ("Unable to add watch event object to store") and goes on; the
/// RealFIFO's transform error is such a failure (the_real_fifo.go queueActionLocked). The event
/// is lost, the watch stays open, its resourceVersion is still recorded.
#[tokio::test(start_paused = true)]
async fn r13_a_watch_event_the_transform_rejects_is_lost_and_the_watch_goes_on() {
    let transform: Transform = Arc::new(|raw: &[u8]| {
        if String::from_utf8_lossy(raw).contains("\"reject\"") {
            Err("rejected by the test transform".into())
        } else {
            Ok(raw.to_vec())
        }
    });
    let mut h = Harness::new(InformerConfig {
        transform: Some(transform),
        ..InformerConfig::default()
    });
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("watching", |ev| {
        count(ev, |e| matches!(e, Event::WatchStart { .. })) == 1
    })
    .await;
    let rejected = h.source.apply(pod("ns", "b", "reject")).to_string();
    h.wait("dropped", |ev| {
        count(
            ev,
            |e| matches!(e, Event::WatchError { reason, .. } if reason == "Transform"),
        ) == 1
    })
    .await;
    h.source.apply(pod("ns", "c", "web"));
    h.wait("c cached", |_| h.informer.indexer().len() == 2)
        .await;
    assert_eq!(h.informer.indexer().list_keys().len(), 2);
    assert!(
        h.informer.indexer().get("ns/b").is_none(),
        "the rejected event is lost"
    );
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 0);
    assert_eq!(
        count(&ev, |e| matches!(e, Event::WatchStart { .. })),
        1,
        "same watch"
    );
    assert!(
        rejected.parse::<u64>().unwrap() < h.informer.last_sync_resource_version().parse().unwrap()
    );
    h.shutdown().await;
}

/// Rule P9. processorListener.run (shared_informer.go v0.36:1347-1354) traces a handler call
/// only with more than `initialBufferSize` (1024) notifications pending, and logs it when the
/// call took over 100 ms.
#[tokio::test(start_paused = true)]
async fn p9_a_slow_call_with_more_than_1024_pending_is_traced() {
    use kinformer::informer::SLOW_HANDLER_PENDING;
    for (pods, delay, traced) in [(1200, 150, true), (1200, 50, false), (300, 150, false)] {
        let mut h = Harness::new(InformerConfig::default());
        h.informer
            .add_event_handler(
                "h",
                Arc::new(SimulatedHandler::new(Duration::from_millis(delay))),
            )
            .unwrap();
        for i in 0..pods {
            h.source.apply(pod("ns", &format!("p{i}"), "web"));
        }
        h.synced().await;
        h.wait("first handled", |ev| {
            count(ev, |e| matches!(e, Event::Handled { .. })) >= 1
        })
        .await;
        let slow: Vec<(usize, Duration)> = h
            .events()
            .iter()
            .filter_map(|e| match &e.event {
                Event::SlowHandler { pending, call, .. } => Some((*pending, *call)),
                _ => None,
            })
            .collect();
        assert_eq!(
            !slow.is_empty(),
            traced,
            "{pods} pods, {delay} ms: {slow:?}"
        );
        assert!(
            slow.iter()
                .all(|(p, c)| *p > SLOW_HANDLER_PENDING && *c > Duration::from_millis(100)),
            "{slow:?}"
        );
        h.shutdown().await;
    }
}
