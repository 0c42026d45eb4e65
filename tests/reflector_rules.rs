//! Reflector rules R1–R7 against the in-memory ListerWatcher, on tokio's paused clock.

mod common;

use std::time::Duration;

use common::{Harness, count, pod};
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::processor::SimulatedHandler;
use kinformer::informer::reflector::{BackoffConfig, ReflectorConfig};
use kinformer::informer::shared_informer::InformerConfig;
use kinformer::informer::source::{ApiStatus, SourceError, WatchFrame};
use kinformer::informer::trace::Event;
use std::sync::Arc;

fn config(page_size: Option<u32>) -> InformerConfig {
    InformerConfig {
        reflector: ReflectorConfig {
            page_size,
            ..ReflectorConfig::default()
        },
        ..InformerConfig::default()
    }
}

fn lists(h: &Harness) -> Vec<String> {
    h.source
        .calls()
        .into_iter()
        .filter(|c| c.starts_with("list"))
        .collect()
}

fn watches(h: &Harness) -> Vec<String> {
    h.source
        .calls()
        .into_iter()
        .filter(|c| c.starts_with("watch"))
        .collect()
}

fn watch_count(h: &Harness) -> impl Fn(&[kinformer::informer::trace::TraceEvent]) -> bool + '_ {
    move |_| !watches(h).is_empty()
}

#[tokio::test(start_paused = true)]
async fn r1_list_pages_with_limit_and_continue_then_one_replace() {
    let mut h = Harness::new(config(Some(2)));
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    assert_eq!(
        lists(&h),
        [
            "list rv= limit=Some(2) continue=None",
            "list rv= limit=Some(2) continue=Some(\"ns/p1\")",
            "list rv= limit=Some(2) continue=Some(\"ns/p3\")",
        ]
    );
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::ListPage { .. })), 3);
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::ListDone {
                items: 5,
                pages: 3,
                ..
            }
        )),
        1
    );
    // One Replace: five Replaced deltas, all queued after the last page.
    let last_page = ev
        .iter()
        .rposition(|e| matches!(e.event, Event::ListPage { .. }))
        .unwrap();
    let replaced: Vec<usize> = ev
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            matches!(
                e.event,
                Event::Delta {
                    delta_type: DeltaType::Replaced,
                    ..
                }
            )
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(replaced.len(), 5);
    assert!(replaced.iter().all(|i| *i > last_page));
    assert_eq!(h.informer.indexer().len(), 5);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r2_watch_starts_at_list_rv_and_a_clean_end_rewatches_from_the_last_rv() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    let list_rv = h.informer.last_sync_resource_version();
    assert!(watches(&h)[0].starts_with(&format!("watch rv={list_rv} ")));

    let rv = h.source.apply(pod("ns", "b", "web"));
    h.wait("event applied", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "ns/b"),
        ) == 1
    })
    .await;
    h.source.close_watches();
    h.wait("re-watch", |_| watches(&h).len() == 2).await;
    assert!(
        watches(&h)[1].starts_with(&format!("watch rv={rv} ")),
        "{:?}",
        watches(&h)
    );
    assert_eq!(lists(&h).len(), 1, "a clean watch end never relists");
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::WatchEnd { .. })), 1);
    assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 0);
    // Watch timeouts are drawn from [min, 2·min] (min = 300 s by default).
    for w in watches(&h) {
        let t: u64 = w
            .split("timeout=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((300..=600).contains(&t), "{w}");
    }
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r3_a_410_error_event_leads_to_a_relist_not_a_blind_rewatch() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    h.source.apply(pod("ns", "b", "web"));
    h.wait("b seen", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "ns/b"),
        ) == 1
    })
    .await;
    h.source.send_frame(Ok(WatchFrame::Error(ApiStatus {
        retry_after: None,
        code: Some(410),
        reason: "Expired".into(),
        message: "too old resource version".into(),
    })));
    h.wait("relist", |_| lists(&h).len() == 2).await;
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::WatchError {
                code: Some(410),
                ..
            }
        )),
        1
    );
    assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 1);
    let calls = h.source.calls();
    assert!(calls[0].starts_with("list") && calls[1].starts_with("watch"));
    assert!(
        calls[2].starts_with("list"),
        "no watch between the 410 and the relist: {calls:?}"
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r3_a_410_http_status_on_watch_open_also_relists() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    h.source.fail_next(SourceError::Api(ApiStatus {
        retry_after: None,
        code: Some(410),
        reason: "Gone".into(),
        message: "gone".into(),
    }));
    h.source.close_watches();
    h.wait("relist", |_| lists(&h).len() == 2).await;
    assert_eq!(
        count(&h.events(), |e| matches!(
            e,
            Event::WatchError {
                code: Some(410),
                ..
            }
        )),
        1
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r4_bookmark_advances_the_rv_and_queues_no_delta() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    // Writes to other objects the watch does not see would move the RV; a bookmark reports it.
    h.source.delete_silently("ns/none");
    let before = count(&h.events(), |e| matches!(e, Event::Delta { .. }));
    h.source.apply(pod("ns", "b", "web"));
    h.wait("b", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "ns/b"),
        ) == 1
    })
    .await;
    h.source.bookmark();
    h.wait("bookmark", |ev| {
        count(ev, |e| matches!(e, Event::Bookmark { .. })) == 1
    })
    .await;
    let rv = h.source.resource_version().to_string();
    assert_eq!(h.informer.last_sync_resource_version(), rv);
    assert_eq!(
        count(&h.events(), |e| matches!(e, Event::Delta { .. })),
        before + 1,
        "only b's delta"
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r5_failures_back_off_exponentially_with_jitter_and_every_attempt_is_traced() {
    let mut h = Harness::new(config(None));
    for _ in 0..6 {
        h.source
            .fail_next(SourceError::Transport("connection refused".into()));
    }
    h.synced().await;
    let delays: Vec<(u64, u32)> = h
        .events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Backoff {
                delay_ms, attempt, ..
            } => Some((*delay_ms, *attempt)),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 6, "{}", h.dump());
    let bases = [800, 1600, 3200, 6400, 12800, 25600];
    for (i, (delay, attempt)) in delays.iter().enumerate() {
        assert_eq!(*attempt as usize, i + 1);
        assert!(
            (bases[i]..2 * bases[i]).contains(delay),
            "attempt {attempt}: {delay} ms"
        );
    }
    assert_eq!(count(&h.events(), |e| matches!(e, Event::Relist { .. })), 6);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r5_backoff_is_capped_at_30s_and_resets_after_a_healthy_period() {
    use kinformer::informer::reflector::Backoff;
    use tokio::time::Instant;
    let mut b = Backoff::new(BackoffConfig::default());
    let now = Instant::now();
    let mut last = 0;
    for _ in 0..10 {
        let (d, _) = b.step(now);
        last = d.as_millis();
    }
    assert!(
        (30_000..60_000).contains(&last),
        "capped base 30 s with jitter: {last}"
    );
    let (d, attempt) = b.step(now + Duration::from_secs(121));
    assert!(
        (800..1600).contains(&d.as_millis()),
        "reset after 2 min: {d:?}"
    );
    assert_eq!(attempt, 1);
}

#[tokio::test(start_paused = true)]
async fn r6_watch_list_replaces_the_store_at_the_initial_events_end_bookmark() {
    let mut cfg = config(None);
    cfg.reflector.watch_list = true;
    let mut h = Harness::new(cfg);
    for i in 0..3 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    assert!(
        lists(&h).is_empty(),
        "watch-list never LISTs: {:?}",
        h.source.calls()
    );
    assert!(watches(&h)[0].ends_with("initial=true"));
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::Bookmark {
                initial_events_end: true,
                ..
            }
        )),
        1
    );
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::Delta {
                delta_type: DeltaType::Replaced,
                ..
            }
        )),
        3
    );
    assert_eq!(h.informer.indexer().len(), 3);
    // The same stream goes on as a normal watch.
    h.source.apply(pod("ns", "late", "web"));
    h.wait("late", |ev| {
        count(
            ev,
            |e| matches!(e, Event::IndexerAdd { key, .. } if key == "ns/late"),
        ) == 1
    })
    .await;
    assert_eq!(watches(&h).len(), 1);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r7_every_check_period_the_reflector_asks_should_resync_and_queues_a_resync_when_due() {
    let mut cfg = config(None);
    cfg.resync = Duration::from_secs(2);
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    h.informer
        .add_event_handler(
            "h",
            Arc::new(SimulatedHandler {
                delay: Duration::ZERO,
            }),
        )
        .unwrap();
    h.synced().await;
    h.wait("three ticks", |ev| {
        count(ev, |e| matches!(e, Event::ResyncTick { .. })) >= 3
    })
    .await;
    let ev = h.events();
    let ticks: Vec<_> = ev
        .iter()
        .filter(|e| matches!(e.event, Event::ResyncTick { .. }))
        .collect();
    for t in &ticks {
        assert!(
            matches!(&t.event, Event::ResyncTick { due, check_period } if due.len() == 1 && *check_period == Duration::from_secs(2))
        );
    }
    assert!(count(&ev, |e| matches!(e, Event::SyncQueued { count: 2 })) >= 3);
    assert!(
        count(&ev, |e| matches!(
            e,
            Event::Delta {
                delta_type: DeltaType::Sync,
                ..
            }
        )) >= 6
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r3_a_malformed_watch_event_is_traced_and_relists_never_panics() {
    let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = errors.clone();
    let mut cfg = config(None);
    cfg.watch_error_handler = Some(Arc::new(move |reason: &str| {
        seen.lock().unwrap().push(reason.to_owned())
    }));
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    // An object without a name, then a frame that is not JSON at all.
    h.source
        .send_frame(Ok(WatchFrame::Added(bytes::Bytes::from_static(
            br#"{"metadata":{}}"#,
        ))));
    h.wait("relist 1", |_| lists(&h).len() == 2).await;
    h.wait("second watch", |_| watches(&h).len() == 2).await;
    h.source.send_frame(Err(SourceError::Decode(
        "watch event: expected value".into(),
    )));
    h.wait("relist 2", |_| lists(&h).len() == 3).await;
    let ev = h.events();
    assert_eq!(
        count(
            &ev,
            |e| matches!(e, Event::WatchError { reason, .. } if reason == "Decode")
        ),
        2
    );
    assert_eq!(
        errors.lock().unwrap().len(),
        2,
        "the watch-error hook saw both"
    );
    assert_eq!(h.informer.indexer().list_keys(), ["ns/a"]);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r5_backoff_waits_at_least_the_servers_retry_after() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    for _ in 0..2 {
        h.source.fail_next(SourceError::Api(ApiStatus {
            code: Some(429),
            reason: "TooManyRequests".into(),
            message: "slow down".into(),
            retry_after: Some(Duration::from_secs(7)),
        }));
    }
    h.synced().await;
    let delays: Vec<u64> = h
        .events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Backoff { delay_ms, .. } => Some(*delay_ms),
            _ => None,
        })
        .collect();
    assert_eq!(delays.len(), 2, "{}", h.dump());
    assert!(
        delays.iter().all(|d| *d >= 7000),
        "Retry-After 7s: {delays:?}"
    );
    h.shutdown().await;
}
