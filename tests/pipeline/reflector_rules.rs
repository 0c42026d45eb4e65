//! Reflector rules R1–R9 against the in-memory ListerWatcher, on tokio's paused clock.

use crate::common;

use std::time::Duration;

use common::{Harness, count, pod};
use kinformer::informer::DeltaType;
use kinformer::informer::InformerConfig;
use kinformer::informer::SimulatedHandler;
use kinformer::informer::source::{ApiStatus, SourceError, WatchFrame};
use kinformer::informer::trace::Event;
use kinformer::informer::trace::RequestVerb;
use kinformer::informer::{BackoffConfig, ReflectorConfig, ReflectorError};
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

/// Waits for the first watch and lets it run 2 virtual seconds, so that closing it is not
/// client-go's "very short watch" (which relists).
async fn watching_a_while(h: &Harness) {
    h.wait("first watch", watch_count(h)).await;
    tokio::time::advance(Duration::from_secs(2)).await;
}

fn list_starts(h: &Harness) -> Vec<(String, Option<u32>)> {
    h.events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::ListStart {
                resource_version,
                limit,
                ..
            } => Some((resource_version.clone(), *limit)),
            _ => None,
        })
        .collect()
}

fn status(code: u16, reason: &str, message: &str) -> SourceError {
    SourceError::Api(ApiStatus {
        code: Some(code),
        reason: reason.into(),
        message: message.into(),
        ..ApiStatus::default()
    })
}

fn too_large() -> SourceError {
    SourceError::Api(ApiStatus {
        code: Some(504),
        reason: "Timeout".into(),
        message: "Too large resource version: 99, current: 5".into(),
        too_large_resource_version: true,
        ..ApiStatus::default()
    })
}

/// Ends the current watch with a 410 ERROR event: ListAndWatch ends and relists.
async fn expire_watch(h: &Harness, watches_before: usize) {
    h.wait("watching", |_| watches(h).len() == watches_before)
        .await;
    h.source.send_frame(Ok(WatchFrame::Error(ApiStatus {
        code: Some(410),
        reason: "Expired".into(),
        message: "too old resource version".into(),
        ..ApiStatus::default()
    })));
}

#[tokio::test(start_paused = true)]
async fn r1_list_pages_with_limit_and_continue_then_one_replace() {
    // --page-size 2 (client-go's WatchListPageSize) on a server that pages.
    let mut h = Harness::new(config(Some(2)));
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    // A next page is asked with the token alone, without the resourceVersion
    // (tools/pager/pager.go v0.36.6:159-164; found by the client-go oracle, docs/oracle.md).
    assert_eq!(
        lists(&h),
        [
            "list rv=0 limit=Some(2) continue=None",
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
async fn r1_the_first_list_asks_for_rv_0_and_a_relist_for_the_last_synced_rv_unpaged() {
    // client-go's relistResourceVersion: "0" first (the watch cache answers, ignoring the
    // pager's limit=500), then the last synced RV with no limit (to stay on the watch cache).
    let mut h = Harness::new(config(None));
    h.source.serve_from_watch_cache(true);
    for i in 0..3 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    h.synced().await;
    let synced_rv = h.informer.last_sync_resource_version();
    expire_watch(&h, 1).await;
    h.wait("relisted", |_| lists(&h).len() == 2).await;
    assert_eq!(
        lists(&h),
        [
            "list rv=0 limit=Some(500) continue=None".to_owned(),
            format!("list rv={synced_rv} limit=None continue=None"),
        ]
    );
    assert_eq!(
        list_starts(&h),
        [("0".to_owned(), Some(500)), (synced_rv, None)],
        "list-start shows what was sent"
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r1_a_first_list_that_came_back_in_pages_keeps_relists_paged() {
    // A server without a watch cache pages even at RV 0: client-go remembers
    // (paginatedResult) and keeps the pager's limit on relists.
    let mut h = Harness::new(config(None));
    for i in 0..501 {
        h.source.apply(pod("ns", &format!("p{i:03}"), "web"));
    }
    h.synced().await;
    assert_eq!(lists(&h).len(), 2, "500 + 1");
    let synced_rv = h.informer.last_sync_resource_version();
    expire_watch(&h, 1).await;
    h.wait("relisted", |_| lists(&h).len() == 4).await;
    assert_eq!(
        lists(&h)[2],
        format!("list rv={synced_rv} limit=Some(500) continue=None")
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r1_an_expired_or_too_large_list_is_retried_at_once_as_a_consistent_read() {
    for failure in [
        status(410, "Expired", "too old resource version"),
        too_large(),
    ] {
        let mut h = Harness::new(config(None));
        h.source.serve_from_watch_cache(true);
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        let synced_rv = h.informer.last_sync_resource_version();
        h.source.fail_next(failure.clone());
        expire_watch(&h, 1).await;
        h.wait("relisted", |_| lists(&h).len() == 3).await;
        let calls = lists(&h);
        assert_eq!(
            calls[1],
            format!("list rv={synced_rv} limit=None continue=None")
        );
        assert_eq!(
            calls[2], "list rv= limit=None continue=None",
            "{failure:?}: retried as a consistent read, with the same (unpaged) pager"
        );
        let ev = h.events();
        let failed_at = ev
            .iter()
            .rposition(|e| matches!(e.event, Event::ListError { .. }))
            .unwrap();
        assert!(
            !ev[failed_at..]
                .iter()
                .any(|e| matches!(e.event, Event::Backoff { .. })),
            "no backoff before the retry: {}",
            h.dump()
        );
        // The next relist is back at the last synced RV.
        let synced_rv = h.informer.last_sync_resource_version();
        expire_watch(&h, 2).await;
        h.wait("relisted again", |_| lists(&h).len() == 4).await;
        assert_eq!(
            lists(&h)[3],
            format!("list rv={synced_rv} limit=None continue=None")
        );
        h.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn r1_an_expired_continue_token_falls_back_to_one_full_list_at_the_same_rv() {
    let mut h = Harness::new(config(Some(2)));
    for i in 0..5 {
        h.source.apply(pod("ns", &format!("p{i}"), "web"));
    }
    // The second page's continue token has expired.
    h.source.fail_later(
        1,
        status(410, "Expired", "The provided continue parameter is too old"),
    );
    h.synced().await;
    assert_eq!(
        lists(&h)[1..],
        [
            "list rv= limit=Some(2) continue=Some(\"ns/p1\")",
            "list rv=0 limit=None continue=None",
        ]
    );
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
    // Watch timeouts are drawn from [min, 2·min) (min = 300 s by default): client-go's
    // `minWatchTimeout + rand.Float64()*(max-min)` seconds, truncated (reflector.go v0.36:588).
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
        assert!((300..600).contains(&t), "{w}");
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
        ..ApiStatus::default()
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
    watching_a_while(&h).await;
    h.source.fail_next(SourceError::Api(ApiStatus {
        retry_after: None,
        code: Some(410),
        reason: "Gone".into(),
        message: "gone".into(),
        ..ApiStatus::default()
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
    use kinformer::informer::Backoff;
    use tokio::time::Instant;
    let mut b = Backoff::new(BackoffConfig::default(), Instant::now());
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
        .add_event_handler("h", Arc::new(SimulatedHandler::new(Duration::ZERO)))
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

/// An object that cannot be decoded is client-go's StreamWatcher decode failure (Rule R10's
/// other side): an InternalError event, then a relist.
#[tokio::test(start_paused = true)]
async fn r3_a_malformed_watch_event_is_traced_and_relists_never_panics() {
    let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = errors.clone();
    let mut cfg = config(None);
    cfg.watch_error_handler = Some(Arc::new(move |e: &ReflectorError| {
        seen.lock().unwrap().push(e.to_string())
    }));
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    // An object without a name, then a frame that is not JSON at all.
    h.source.send_frame(Ok(WatchFrame::Added(
        bytes::Bytes::from_static(br#"{"metadata":{}}"#).into(),
    )));
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
            |e| matches!(e, Event::WatchError { code: Some(500), reason, .. } if reason == "InternalError")
        ),
        2,
        "streamwatcher.go v0.36:125-131: an undecodable event is an InternalError event"
    );
    assert!(
        errors.lock().unwrap().is_empty(),
        "client-go's ListAndWatch returns nil after a watch ends with an error: the \
         WatchErrorHandler is not told, the trace is"
    );
    assert_eq!(h.informer.indexer().list_keys(), ["ns/a"]);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r8_a_refused_connection_or_429_on_opening_a_watch_is_retried_in_place() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    watching_a_while(&h).await;
    h.source.fail_next(SourceError::ConnectionRefused(
        "dial tcp 127.0.0.1:6443: connect: connection refused".into(),
    ));
    h.source
        .fail_next(status(429, "TooManyRequests", "the server is busy"));
    h.source.close_watches();
    h.wait("watching again", |_| watches(&h).len() == 4).await;
    let synced_rv = h.informer.last_sync_resource_version();
    assert!(
        watches(&h)[1..]
            .iter()
            .all(|w| w.starts_with(&format!("watch rv={synced_rv} "))),
        "{:?}",
        watches(&h)
    );
    assert_eq!(lists(&h).len(), 1, "no relist");
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 2);
    assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 0);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r8_any_other_watch_failure_ends_list_and_watch_and_relists_after_a_backoff() {
    let failures = [
        status(500, "InternalError", "etcd leader changed"),
        status(503, "ServiceUnavailable", "apiserver shutting down"),
        SourceError::Transport("connection reset by peer".into()),
        status(401, "Unauthorized", "Unauthorized"),
        status(403, "Forbidden", "pods is forbidden"),
        status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ),
    ];
    for failure in failures {
        let mut h = Harness::new(config(None));
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        watching_a_while(&h).await;
        h.source.fail_next(failure.clone());
        h.source.close_watches();
        h.wait("relisted", |_| lists(&h).len() == 2).await;
        let ev = h.events();
        let backoff = ev
            .iter()
            .position(|e| matches!(e.event, Event::Backoff { .. }));
        let relist = ev
            .iter()
            .position(|e| matches!(e.event, Event::Relist { .. }));
        assert!(
            backoff.is_some() && backoff < relist,
            "{failure:?}: backoff, then relist\n{}",
            h.dump()
        );
        h.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn r8_a_mid_run_401_403_404_is_retried_forever_and_visibly_until_it_recovers() {
    // RBAC propagating, or a CRD re-created: every LIST is refused for a while.
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    watching_a_while(&h).await;
    for failure in [
        status(403, "Forbidden", "pods is forbidden"),
        status(401, "Unauthorized", "Unauthorized"),
        status(404, "NotFound", "not found"),
        status(403, "Forbidden", "pods is forbidden"),
    ] {
        h.source.fail_next(failure);
    }
    h.source.close_watches();
    // The watch fails with 403, then three LISTs are refused; the fourth LIST succeeds.
    h.wait("recovered", |_| lists(&h).len() == 5).await;
    h.wait("watching", |ev| {
        count(ev, |e| matches!(e, Event::WatchStart { .. })) == 3
    })
    .await;
    let ev = h.events();
    let refused_watches = count(&ev, |e| {
        matches!(
            e,
            Event::WatchError {
                code: Some(401 | 403 | 404),
                ..
            }
        )
    });
    let refused_lists = count(&ev, |e| {
        matches!(
            e,
            Event::ListError {
                code: Some(401 | 403 | 404),
                ..
            }
        )
    });
    assert_eq!((refused_watches, refused_lists), (1, 3), "{}", h.dump());
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 4);
    assert!(h.informer.summary().counts["reflector/backoff"] >= 4);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r8_a_429_error_event_backs_off_and_rewatches_without_relisting() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    h.source.send_frame(Ok(WatchFrame::Error(ApiStatus {
        code: Some(429),
        reason: "TooManyRequests".into(),
        message: "too many requests".into(),
        ..ApiStatus::default()
    })));
    h.wait("re-watch", |_| watches(&h).len() == 2).await;
    assert_eq!(lists(&h).len(), 1);
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 1);
    assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 0);
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r3_a_too_large_resource_version_on_watch_relists_and_then_reads_consistently() {
    let mut h = Harness::new(config(None));
    h.source.serve_from_watch_cache(true);
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    watching_a_while(&h).await;
    // The re-watch and the relist at the last RV are both too new for this server (a
    // lagging apiserver behind a load balancer): the LIST is retried at "" at once.
    h.source.fail_next(too_large());
    h.source.fail_next(too_large());
    h.source.close_watches();
    h.wait("relisted", |_| lists(&h).len() == 3).await;
    let synced = lists(&h);
    assert!(synced[1].starts_with("list rv=") && !synced[1].starts_with("list rv= "));
    assert_eq!(synced[2], "list rv= limit=None continue=None");
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r9_a_failing_watch_list_falls_back_to_list_in_the_same_list_and_watch() {
    let mut cfg = config(None);
    cfg.reflector.watch_list = true;
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.source
        .fail_next(status(500, "InternalError", "watch-list is not supported"));
    h.synced().await;
    h.wait("watching", |_| watches(&h).len() == 2).await;
    let calls = h.source.calls();
    assert!(
        calls[0].starts_with("watch rv= ") && calls[0].ends_with("initial=true"),
        "the first watch-list asks for a consistent stream: {calls:?}"
    );
    assert_eq!(calls[1], "list rv=0 limit=Some(500) continue=None");
    assert!(calls[2].ends_with("initial=false"));
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(e, Event::Backoff { .. })),
        0,
        "the fallback is immediate"
    );
    assert!(
        count(
            &ev,
            |e| matches!(e, Event::Relist { reason } if reason.contains("falling back"))
        ) == 1
    );
    h.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn r9_a_watch_list_answered_expired_or_too_large_retries_at_rv_empty() {
    for failure in [
        status(410, "Expired", "too old resource version"),
        too_large(),
    ] {
        let mut cfg = config(None);
        cfg.reflector.watch_list = true;
        let mut h = Harness::new(cfg);
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        let synced_rv = h.informer.last_sync_resource_version();
        h.source.fail_next(failure.clone());
        expire_watch(&h, 1).await;
        h.wait("streamed again", |_| watches(&h).len() == 3).await;
        let w = watches(&h);
        assert!(w[1].starts_with(&format!("watch rv={synced_rv} ")), "{w:?}");
        assert!(
            w[2].starts_with("watch rv= ") && w[2].ends_with("initial=true"),
            "{failure:?}: {w:?}"
        );
        assert!(lists(&h).is_empty(), "no fallback to LIST");
        h.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn r9_modified_and_deleted_before_the_initial_events_end_go_into_the_temporary_store() {
    let mut cfg = config(None);
    cfg.reflector.watch_list = true;
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    let mut a2 = pod("ns", "a", "db");
    a2["metadata"]["resourceVersion"] = "7".into();
    let mut b = pod("ns", "b", "web");
    b["metadata"]["resourceVersion"] = "8".into();
    h.source.before_initial_events_end(vec![
        WatchFrame::Modified(serde_json::to_vec(&a2).unwrap().into()),
        WatchFrame::Deleted(serde_json::to_vec(&b).unwrap().into()),
    ]);
    h.synced().await;
    let store = h.informer.indexer();
    assert_eq!(store.list_keys(), ["ns/a"]);
    assert_eq!(store.get("ns/a").unwrap().resource_version(), "7");
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(
            e,
            Event::Delta {
                delta_type: DeltaType::Replaced,
                ..
            }
        )),
        1,
        "one Replace with the temporary store's content"
    );
    h.shutdown().await;
}

/// The informer's handlers saw no resync (sync) notification.
fn sync_notifications(h: &Harness) -> usize {
    count(
        &h.events(),
        |e| matches!(e, Event::Notify { notification, .. } if notification.is_sync()),
    )
}

/// Rule R10. apimachinery watch/streamwatcher.go v0.36:113-124 (`receive`): io.EOF,
/// io.ErrUnexpectedEOF and `net.IsProbableEOF || net.IsTimeout` (util/net/http.go:65, :79-103)
/// end the result channel quietly; client-go reflector.go v0.36:561-668 (`watch`) sees a nil
/// error from handleWatch and loops: a new WATCH from LastSyncResourceVersion at once — no
/// backoff, no LIST, so no Replace and no sync notifications.
#[tokio::test(start_paused = true)]
async fn r10_a_stream_broken_mid_watch_rewatches_at_once_from_the_last_rv_without_relisting() {
    let breaks = [
        SourceError::ProbableEof("read tcp: connection reset by peer".into()),
        SourceError::ProbableEof("unexpected EOF during watch stream event decoding".into()),
        SourceError::Timeout("read tcp: i/o timeout".into()),
    ];
    for broken in breaks {
        let mut h = Harness::new(config(None));
        h.informer
            .add_event_handler("fast", Arc::new(SimulatedHandler::new(Duration::ZERO)))
            .unwrap();
        h.source.apply(pod("ns", "a", "web"));
        h.synced().await;
        watching_a_while(&h).await;
        h.source.apply(pod("ns", "b", "web"));
        h.wait("b watched", |ev| {
            count(ev, |e| matches!(e, Event::WatchEvent { .. })) == 1
        })
        .await;
        let rv = h.informer.last_sync_resource_version();
        h.source.send_frame(Err(broken.clone()));
        h.wait("re-watch", |_| watches(&h).len() == 2).await;
        assert!(
            watches(&h)[1].starts_with(&format!("watch rv={rv} ")),
            "{broken:?}: {:?}",
            watches(&h)
        );
        assert_eq!(lists(&h).len(), 1, "{broken:?}: no relist");
        let ev = h.events();
        assert_eq!(count(&ev, |e| matches!(e, Event::Relist { .. })), 0);
        assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 0);
        assert_eq!(count(&ev, |e| matches!(e, Event::WatchError { .. })), 0);
        assert_eq!(
            count(
                &ev,
                |e| matches!(e, Event::WatchEnd { reason, resource_version, .. }
                if *reason == broken.to_string() && *resource_version == rv)
            ),
            1,
            "watch-end names how the stream ended\n{}",
            h.dump()
        );
        assert_eq!(sync_notifications(&h), 0, "no relist, so no sync storm");
        h.shutdown().await;
    }
}

/// Rules R6 and R10: in a watch-list's initial phase, a stream that ends before its
/// initial-events-end bookmark is a close, traced as a `watch-end` (how it ended, the events it
/// sent, the resourceVersion it is opened again from), and the watch-list is opened again at
/// once from the same resourceVersion — no backoff, no LIST. client-go v0.37.2:
/// `handleAnyWatch` returns `(false, nil)` on a closed result channel after events
/// (reflector.go:1093-1094, logging "Watch close" with totalItems), and `watchList` loops
/// (:887-889, `if watchListBookmarkReceived { break }`) into a new WATCH from
/// `rewatchResourceVersion()` (:846-847).
#[tokio::test(start_paused = true)]
async fn r6_a_watch_list_broken_before_its_bookmark_is_a_traced_close_and_streams_again_at_once() {
    let mut cfg = config(None);
    cfg.reflector.watch_list = true;
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.source.apply(pod("ns", "b", "web"));
    h.synced().await;
    let rv = h.informer.last_sync_resource_version();
    let broken = SourceError::ProbableEof("unexpected EOF".into());
    h.source.cut_next_watch_list(broken.clone());
    // An InternalError ends ListAndWatch: backoff, then a watch-list from the synced RV.
    h.source.send_frame(Err(SourceError::Transport(
        "local error: tls: bad record MAC".into(),
    )));
    h.wait("streamed again", |_| watches(&h).len() == 3).await;
    let w = watches(&h);
    for again in &w[1..] {
        assert!(
            again.starts_with(&format!("watch rv={rv} ")) && again.ends_with("initial=true"),
            "{w:?}"
        );
    }
    assert!(lists(&h).is_empty(), "no fallback to LIST: {w:?}");
    let ev = h.events();
    assert_eq!(
        count(
            &ev,
            |e| matches!(e, Event::WatchEnd { reason, resource_version, events }
            if *reason == broken.to_string() && *resource_version == rv && *events == 2)
        ),
        1,
        "watch-end names how the initial stream ended\n{}",
        h.dump()
    );
    assert_eq!(
        count(&ev, |e| matches!(e, Event::Backoff { .. })),
        1,
        "one backoff, for the InternalError only\n{}",
        h.dump()
    );
    h.shutdown().await;
}

/// Rule R10, the guard: reflector.go v0.36 handleWatch returns "very short watch" when a
/// watch lasted < 1 s with no events; `watch` logs it and returns nil, and ListAndWatch's
/// caller backs off and relists.
#[tokio::test(start_paused = true)]
async fn r10_a_stream_broken_within_a_second_and_no_events_is_a_very_short_watch_and_relists() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    h.wait("first watch", watch_count(&h)).await;
    h.source.send_frame(Err(SourceError::ProbableEof(
        "read tcp: connection reset by peer".into(),
    )));
    h.wait("relisted", |_| lists(&h).len() == 2).await;
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 1);
    assert!(
        count(
            &ev,
            |e| matches!(e, Event::Relist { reason } if reason.contains("very short watch"))
        ) == 1,
        "{}",
        h.dump()
    );
    h.shutdown().await;
}

/// Rule R10, the other side: streamwatcher.go v0.36:125-131 sends any other decode or
/// transport failure as an ERROR event carrying an InternalError Status (api/errors
/// `NewClientErrorReporter(500, …)`); reflector.go v0.36 handleWatch returns it and, with
/// MaxInternalErrorRetryDuration 0 (the shared informer's default), `watch` returns: backoff,
/// relist.
#[tokio::test(start_paused = true)]
async fn r10_any_other_stream_failure_is_an_internal_error_event_and_relists() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    watching_a_while(&h).await;
    h.source.send_frame(Err(SourceError::Transport(
        "local error: tls: bad record MAC".into(),
    )));
    h.wait("relisted", |_| lists(&h).len() == 2).await;
    let ev = h.events();
    assert_eq!(
        count(
            &ev,
            |e| matches!(e, Event::WatchError { code: Some(500), reason, message }
            if reason == "InternalError" && message.contains("bad record MAC"))
        ),
        1,
        "{}",
        h.dump()
    );
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 1);
    h.shutdown().await;
}

fn retries(h: &Harness, verb: RequestVerb) -> Vec<u64> {
    h.events()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Retry {
                verb: v, delay_ms, ..
            } if *v == verb => Some(*delay_ms),
            _ => None,
        })
        .collect()
}

/// Rule R11. client-go rest/request.go v0.36:1063-1076 (`request`): a GET whose connection was
/// reset or ended is retried; with_retry.go:148-193 (`IsNextRetry`) gives a retryable error a
/// synthetic `Retry-After: 1` (:356) and allows 10 retries (request.go:166). The reflector
/// never sees the failure: no backoff, no relist.
#[tokio::test(start_paused = true)]
async fn r11_a_list_whose_connection_ends_is_retried_silently_after_1s_up_to_10_times() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    for _ in 0..3 {
        h.source.fail_next(SourceError::ProbableEof(
            "read tcp: connection reset by peer".into(),
        ));
    }
    h.synced().await;
    assert_eq!(retries(&h, RequestVerb::List), [1000, 1000, 1000]);
    assert_eq!(lists(&h).len(), 4, "{:?}", lists(&h));
    assert!(lists(&h).iter().all(|l| l.starts_with("list rv=0 ")));
    let ev = h.events();
    assert_eq!(count(&ev, |e| matches!(e, Event::Backoff { .. })), 0);
    assert_eq!(count(&ev, |e| matches!(e, Event::ListStart { .. })), 1);
    h.shutdown().await;

    // Eleven failures in a row: the eleventh reaches the reflector (backoff, relist).
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    for _ in 0..11 {
        h.source.fail_next(SourceError::ProbableEof("EOF".into()));
    }
    h.synced().await;
    assert_eq!(retries(&h, RequestVerb::List).len(), 10);
    assert_eq!(
        count(&h.events(), |e| matches!(e, Event::Backoff { .. })),
        1
    );
    h.shutdown().await;
}

/// Rule R11. with_retry.go v0.36:309-318 (`checkWait`): a 429 or any 5xx answer that carries
/// `Retry-After` is retried after waiting it out; without the header it is not retried (the
/// reflector sees it). The reflector's own backoff does not read Retry-After.
#[tokio::test(start_paused = true)]
async fn r11_a_429_or_5xx_with_retry_after_is_waited_out_by_the_request_layer() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    for code in [429, 503] {
        h.source.fail_next(SourceError::Api(ApiStatus {
            code: Some(code),
            reason: "TooManyRequests".into(),
            message: "slow down".into(),
            retry_after: Some(Duration::from_secs(7)),
            ..ApiStatus::default()
        }));
    }
    h.source
        .fail_next(status(503, "ServiceUnavailable", "no Retry-After"));
    h.synced().await;
    assert_eq!(retries(&h, RequestVerb::List), [7000, 7000]);
    let ev = h.events();
    assert_eq!(
        count(&ev, |e| matches!(e, Event::Backoff { .. })),
        1,
        "only the 503 without Retry-After reaches the reflector\n{}",
        h.dump()
    );
    h.shutdown().await;
}

/// Rule R11. rest/request.go v0.36:774-781 retries a WATCH open that failed EOF-like or timed
/// out; when the retries run out, :817-819 answers `watch.NewEmptyWatch()`. The reflector took
/// the watch's start before the WATCH call (reflector.go v0.37.2:583, :605), so the ten
/// 1 s retries count: the empty watch lasted over a second, it is no very short watch, and the
/// reflector re-watches from the same RV without a relist (oracle: chaos/seed-14).
#[tokio::test(start_paused = true)]
async fn r11_a_watch_open_that_keeps_ending_is_retried_then_an_empty_watch_is_rewatched() {
    let mut h = Harness::new(config(None));
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    watching_a_while(&h).await;
    for _ in 0..11 {
        h.source.fail_next(SourceError::ProbableEof("EOF".into()));
    }
    h.source.close_watches();
    h.wait("re-watched", |_| watches(&h).len() >= 13).await;
    assert_eq!(retries(&h, RequestVerb::Watch), [1000; 10]);
    assert_eq!(lists(&h).len(), 1, "no relist\n{}", h.dump());
    assert_eq!(
        count(&h.events(), |e| matches!(e, Event::Relist { .. })),
        0,
        "{}",
        h.dump()
    );
    h.shutdown().await;
}

fn backoff_of(release: &str) -> BackoffConfig {
    use kinformer::informer::InformerConfig;
    use kinformer::informer::Profile;
    InformerConfig::for_profile(Profile::of(release).unwrap())
        .reflector
        .backoff
}

/// Steps `backoff` through a continuous outage lasting `outage` (each failure right after the
/// previous delay): the delays, in order, with when each was taken.
fn outage_delays(release: &str, outage: Duration) -> Vec<(Duration, Duration)> {
    use kinformer::informer::Backoff;
    use tokio::time::Instant;
    let start = Instant::now();
    let mut b = Backoff::new(backoff_of(release), start);
    let mut now = start;
    let mut out = Vec::new();
    while now.duration_since(start) < outage {
        let (d, _) = b.step(now);
        out.push((now.duration_since(start), d));
        now += d;
    }
    out
}

/// Rule R12, ≤ 1.35. apimachinery wait/backoff.go v0.35 (`exponentialBackoffManagerImpl
/// .getNextBackoff`): the ladder starts again only when more than `backoffResetDuration`
/// (2 min, reflector.go v0.35:282) passed since the previous backoff began — never during a
/// continuous outage, whose delays are at most 60 s.
#[tokio::test(start_paused = true)]
async fn r12_up_to_1_35_a_continuous_outage_never_resets_the_backoff() {
    for release in ["1.32", "1.35"] {
        let delays = outage_delays(release, Duration::from_secs(600));
        let capped = delays
            .iter()
            .position(|(_, d)| *d >= Duration::from_secs(30))
            .expect("reaches the cap");
        assert!(
            delays[capped..]
                .iter()
                .all(|(_, d)| *d >= Duration::from_secs(30)),
            "{release}: {delays:?}"
        );
    }
    // After a quiet period of more than 2 minutes it starts again.
    use kinformer::informer::Backoff;
    use tokio::time::Instant;
    let start = Instant::now();
    let mut b = Backoff::new(backoff_of("1.35"), start);
    for _ in 0..8 {
        b.step(start);
    }
    let (d, attempt) = b.step(start + Duration::from_secs(121));
    assert!(
        (800..1600).contains(&d.as_millis()) && attempt == 1,
        "{d:?}"
    );
}

/// Rule R12, 1.36. reflector.go v0.36:319-336 builds `wait.Backoff{800ms, cap 30s, ×2, jitter
/// 1}` and uses `DelayWithReset(clock, 2m)`; wait/backoff.go v0.36:292-304
/// (`backoffManager.Step`) resets when more than 2 min passed since the *last reset* (the
/// reflector's creation first), so during a long outage the delays cycle 0.8 s … 30–60 s,
/// 0.8 s ….
#[tokio::test(start_paused = true)]
async fn r12_in_1_36_the_ladder_restarts_every_2_minutes_even_during_an_outage() {
    let delays = outage_delays("1.36", Duration::from_secs(600));
    let restarts: Vec<Duration> = delays
        .iter()
        .skip(1)
        .filter(|(_, d)| *d < Duration::from_millis(1600))
        .map(|(at, _)| *at)
        .collect();
    assert!(restarts.len() >= 3, "{delays:?}");
    assert!(
        restarts[0] > Duration::from_secs(120),
        "the first restart comes after 2 minutes: {restarts:?}"
    );
    for pair in restarts.windows(2) {
        assert!(
            pair[1] - pair[0] > Duration::from_secs(120),
            "then every 2 minutes from the last: {restarts:?}"
        );
    }
    assert!(delays.iter().any(|(_, d)| *d >= Duration::from_secs(30)));
}

/// Against real sockets: what kube's client stack reports is classified as client-go
/// classifies it (Rules R8, R10).
mod real_sockets {
    use super::*;
    use kinformer::informer::SharedIndexInformer;
    use kinformer::informer::source::{
        KubeSource, KubeTarget, ListOptions, ListerWatcher, WatchOptions,
    };
    use kinformer::informer::testing::MemorySink;
    use kinformer::informer::trace::{StageSet, Tracer};
    use kinformer_apiserver::{EmbeddedServer, ServerConfig};
    use kube::core::{ApiResource, GroupVersionKind};
    use tokio_util::sync::CancellationToken;

    fn configmaps() -> KubeTarget {
        KubeTarget {
            resource: ApiResource::from_gvk_with_plural(
                &GroupVersionKind::gvk("", "v1", "ConfigMap"),
                "configmaps",
            ),
            namespace: None,
            label_selector: None,
            field_selector: None,
            metadata_only: false,
            protobuf: false,
        }
    }

    /// A loopback address nothing listens on: bound, then released.
    fn refusing_address() -> std::net::SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    }

    /// client-go's `isWatchErrorRetriable` (reflector.go v0.36:1195) asks
    /// `utilnet.IsConnectionRefused`: the kube client's error chain must be read down to the
    /// io error, over plain HTTP and over TLS (where the connector wraps it).
    #[tokio::test]
    async fn r8_a_refused_connection_is_told_apart_over_http_and_https() {
        let addr = refusing_address();
        for scheme in ["http", "https"] {
            let url: http::Uri = format!("{scheme}://{addr}").parse().unwrap();
            let client = kube::Client::try_from(kube::Config::new(url)).unwrap();
            let source = KubeSource::new(client, configmaps());
            let watched = source
                .watch(&WatchOptions {
                    resource_version: "1".into(),
                    timeout_seconds: 300,
                    send_initial_events: false,
                })
                .await;
            let e = watched.err().expect("nothing listens");
            assert!(
                matches!(&e, SourceError::ConnectionRefused(m) if m.to_lowercase().contains("refused")),
                "{scheme}: {e:?}"
            );
            let listed = source.list(&ListOptions::default()).await;
            assert!(
                matches!(listed, Err(SourceError::ConnectionRefused(_))),
                "{scheme}: {listed:?}"
            );
        }
    }

    /// Rules R10 + R8 end to end: the server goes away under an open watch. The stream ends
    /// (cleanly or EOF-like: a close either way), the reflector re-watches at once from the
    /// last resourceVersion, the refused connection is retried in place after a backoff — and
    /// no LIST is ever sent again.
    #[tokio::test]
    async fn r10_a_killed_server_ends_the_watch_and_the_reflector_rewatches_in_place() {
        for tls in [false, true] {
            let server = EmbeddedServer::start(ServerConfig {
                tls,
                ..ServerConfig::default()
            })
            .await
            .unwrap();
            let sink = MemorySink::new();
            let informer = SharedIndexInformer::new(
                Arc::new(KubeSource::new(server.client(), configmaps())),
                InformerConfig::default(),
                Tracer::new(sink.clone(), StageSet::ALL),
            );
            let stop = CancellationToken::new();
            let task = tokio::spawn({
                let (informer, stop) = (informer.clone(), stop.clone());
                async move { informer.run(stop).await }
            });
            assert!(informer.wait_for_sync(&stop).await);
            server
                .create_object(serde_json::json!({
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "seen", "namespace": "default"}
                }))
                .unwrap();
            let watched = |ev: &[kinformer::informer::trace::TraceEvent]| {
                count(ev, |e| matches!(e, Event::WatchEvent { .. })) == 1
            };
            sink.wait_until(Duration::from_secs(10), watched)
                .await
                .unwrap();
            let rv = informer.last_sync_resource_version();
            server.shutdown().await;
            let retried_in_place = |ev: &[kinformer::informer::trace::TraceEvent]| {
                count(ev, |e| matches!(e, Event::WatchStart { .. })) >= 3
            };
            sink.wait_until(Duration::from_secs(20), retried_in_place)
                .await
                .unwrap();
            let ev = sink.events();
            let dump = format!(
                "tls={tls}\n{:#?}",
                ev.iter().map(|e| &e.event).collect::<Vec<_>>()
            );
            assert_eq!(
                count(&ev, |e| matches!(e, Event::ListStart { .. })),
                1,
                "{dump}"
            );
            assert_eq!(
                count(&ev, |e| matches!(e, Event::Relist { .. })),
                0,
                "{dump}"
            );
            assert!(
                count(
                    &ev,
                    |e| matches!(e, Event::WatchError { reason, .. } if reason == "ConnectionRefused")
                ) >= 1,
                "{dump}"
            );
            assert!(
                count(&ev, |e| matches!(e, Event::Backoff { .. })) >= 1,
                "{dump}"
            );
            let rewatch_rvs: Vec<&str> = ev
                .iter()
                .filter_map(|e| match &e.event {
                    Event::WatchStart {
                        resource_version, ..
                    } => Some(resource_version.as_str()),
                    _ => None,
                })
                .skip(1)
                .collect();
            assert!(rewatch_rvs.iter().all(|r| *r == rv), "{rv}: {dump}");
            stop.cancel();
            task.await.unwrap().unwrap();
        }
    }
}

/// Rule R2: the timeout never reaches 2·min (reflector.go v0.36:588 truncates
/// `min + rand·(max − min)` seconds; v0.32:439 `min·(rand + 1)` likewise).
#[tokio::test(start_paused = true)]
async fn r2_watch_timeouts_are_drawn_from_min_to_just_below_twice_min() {
    let mut cfg = config(None);
    cfg.reflector.min_watch_timeout = Duration::from_secs(2);
    let mut h = Harness::new(cfg);
    h.source.apply(pod("ns", "a", "web"));
    h.synced().await;
    for n in 1..=20 {
        h.wait("watching", |_| watches(&h).len() == n).await;
        tokio::time::advance(Duration::from_secs(2)).await;
        h.source.close_watches();
    }
    let timeouts: std::collections::BTreeSet<String> = watches(&h)
        .iter()
        .filter_map(|w| w.split("timeout=").nth(1))
        .map(|t| t.split(' ').next().unwrap_or("").to_owned())
        .collect();
    assert!(
        timeouts.iter().all(|t| t == "2" || t == "3"),
        "{timeouts:?}"
    );
    h.shutdown().await;
}

/// Rule R2, client-go 1.36+ (`propagateRVFromStart`, tools/cache/reflector.go v0.36.6:586-636,
/// unchanged in v0.37.2): a WATCH opened at resourceVersion "" (a LIST answered without one)
/// starts with the server's synthetic ADDEDs in no RV order, so they do not move the last
/// synced RV: a watch that ends after ADDEDs only is re-opened from "" again. Before 1.36 every
/// event moved it. Found by the client-go oracle (docs/oracle.md, `list-at-rv-empty-added-only`).
mod rv_from_start {
    use std::sync::Mutex;

    use bytes::Bytes;
    use futures_util::StreamExt;
    use kinformer::informer::source::{
        ListOptions, ListPage, ListerWatcher, SourceFuture, WatchOptions, WatchStream,
    };
    use kinformer::informer::testing::MemorySink;
    use kinformer::informer::trace::{StageSet, Tracer};
    use kinformer::informer::{PROFILES, SharedIndexInformer};
    use tokio_util::sync::CancellationToken;

    use super::*;

    /// A LIST answered at resourceVersion "", a first WATCH of two ADDEDs that then ends, and
    /// later WATCHes that stay open; records every WATCH's resourceVersion. (The informer
    /// LISTs: watch-list off.)
    #[derive(Default)]
    struct SyntheticAdds {
        watched_from: Mutex<Vec<String>>,
    }

    fn object(name: &str, rv: u32) -> Bytes {
        let pod = common::pod("ns", name, "web");
        let mut pod = pod;
        pod["metadata"]["resourceVersion"] = rv.to_string().into();
        Bytes::from(pod.to_string())
    }

    impl ListerWatcher for SyntheticAdds {
        fn list<'a>(&'a self, _: &'a ListOptions) -> SourceFuture<'a, ListPage> {
            Box::pin(async move {
                Ok(ListPage {
                    items: vec![object("a", 5)],
                    resource_version: String::new(),
                    continue_token: None,
                })
            })
        }

        fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream> {
            Box::pin(async move {
                let first = {
                    let mut from = self.watched_from.lock().unwrap();
                    from.push(opts.resource_version.clone());
                    from.len() == 1
                };
                if !first {
                    return Ok(futures_util::stream::pending().boxed());
                }
                let adds =
                    [("a", 5), ("b", 7)].map(|(n, rv)| Ok(WatchFrame::Added(object(n, rv).into())));
                let closed_later = futures_util::stream::once(async {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    None
                });
                Ok(futures_util::stream::iter(adds)
                    .chain(closed_later.filter_map(std::future::ready))
                    .boxed())
            })
        }
    }

    async fn rewatched_from(release: &str) -> String {
        let profile = PROFILES.iter().find(|p| p.version == release).unwrap();
        let source = Arc::new(SyntheticAdds::default());
        let tracer = Tracer::new(MemorySink::new(), StageSet::ALL);
        let mut config = InformerConfig::for_profile(profile);
        config.reflector.watch_list = false;
        let informer = SharedIndexInformer::new(source.clone(), config, tracer);
        let stop = CancellationToken::new();
        let run = tokio::spawn({
            let (informer, stop) = (informer.clone(), stop.clone());
            async move { informer.run(stop).await }
        });
        while source.watched_from.lock().unwrap().len() < 2 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        stop.cancel();
        let _ = run.await;
        let from = source.watched_from.lock().unwrap().clone();
        assert_eq!(
            from[0], "",
            "{release}: the first WATCH starts at the LIST's RV"
        );
        from[1].clone()
    }

    #[tokio::test(start_paused = true)]
    async fn r2_a_watch_from_rv_empty_moves_the_rv_only_after_its_synthetic_adds() {
        assert_eq!(
            rewatched_from("1.35").await,
            "7",
            "before 1.36 every event moves the RV"
        );
        assert_eq!(
            rewatched_from("1.36").await,
            "",
            "1.36 holds it through the ADDEDs"
        );
    }
}
