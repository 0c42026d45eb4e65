//! kube-runtime's `watcher` + `reflector` against the embedded API server: while pods are
//! created, updated and deleted concurrently, the reflector's store must converge exactly to
//! the server's state (name + resourceVersion) through paged lists, watch resumption after
//! `close_watches`, a forced 410 relist, bookmarks, and the watch-list (streaming) strategy.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Pod;
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use kube::Api;
use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const NAMESPACE: &str = "rt";

/// A disruption applied to the server at some write steps.
type Disruption = fn(&EmbeddedServer) -> TestResult;

async fn start_server() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    let server = EmbeddedServer::start(ServerConfig {
        history: 200,
        bookmark_interval: Duration::from_millis(100),
        ..ServerConfig::default()
    })
    .await?;
    server.create_object(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}),
    )?;
    Ok(server)
}

fn pod(name: &str) -> Result<Pod, serde_json::Error> {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"app": "rt", "step": "0"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}], "nodeName": "node-1"}
    }))
}

/// Creates, updates and deletes pods; calls `disrupt` every `every` steps.
async fn drive_writes(
    server: &EmbeddedServer,
    api: &Api<Pod>,
    steps: usize,
    every: usize,
    disrupt: Disruption,
) -> TestResult {
    let mut live: VecDeque<String> = VecDeque::new();
    for i in 0..40 {
        let name = format!("seed-{i}");
        api.create(&PostParams::default(), &pod(&name)?).await?;
        live.push_back(name);
    }
    for step in 0..steps {
        match step % 4 {
            0 | 1 => {
                let name = format!("p-{step}");
                api.create(&PostParams::default(), &pod(&name)?).await?;
                live.push_back(name);
            }
            2 => {
                if let Some(name) = live.get(step % live.len().max(1)) {
                    let patch = Patch::Merge(
                        json!({"metadata": {"labels": {"step": step.to_string()}}, "status": {"phase": "Running"}}),
                    );
                    api.patch(name, &PatchParams::default(), &patch).await?;
                }
            }
            _ => {
                if let Some(name) = live.pop_front() {
                    api.delete(&name, &DeleteParams::default()).await?;
                }
            }
        }
        if step % every == every - 1 {
            disrupt(server)?;
        }
        tokio::task::yield_now().await;
    }
    Ok(())
}

/// name → resourceVersion of a set of pods.
fn versions<'a>(pods: impl Iterator<Item = &'a Pod>) -> BTreeMap<String, String> {
    pods.map(|p| {
        (
            p.metadata.name.clone().unwrap_or_default(),
            p.metadata.resource_version.clone().unwrap_or_default(),
        )
    })
    .collect()
}

/// Waits until the reflector's store equals a fresh LIST, with a deadline.
async fn converged(api: &Api<Pod>, reader: &Store<Pod>) -> TestResult {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let expected = versions(api.list(&ListParams::default()).await?.items.iter());
    loop {
        let state = reader.state();
        let actual = versions(state.iter().map(AsRef::as_ref));
        if actual == expected {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(format!(
                "reflector did not converge: {} cached vs {} listed; first differences: {:?}",
                actual.len(),
                expected.len(),
                expected
                    .iter()
                    .filter(|(k, v)| actual.get(*k) != Some(v))
                    .take(3)
                    .collect::<Vec<_>>()
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a reflector with `config` through concurrent writes and `disrupt`, checks it converges
/// to the server's state, and returns how many times the watcher (re)listed.
async fn reflector_converges(
    config: watcher::Config,
    every: usize,
    disrupt: Disruption,
) -> Result<usize, Box<dyn std::error::Error>> {
    let server = start_server().await?;
    let api: Api<Pod> = Api::namespaced(server.client(), NAMESPACE);
    let (reader, writer) = reflector::store::<Pod>();
    let lists = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&lists);
    let events = watcher(api.clone(), config).inspect_ok(move |event| {
        if matches!(event, watcher::Event::Init) {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    let stream = reflector::reflector(writer, events).default_backoff();
    let running = tokio::spawn(stream.for_each(|_| std::future::ready(())));
    drive_writes(&server, &api, 400, every, disrupt).await?;
    let result = converged(&api, &reader).await;
    running.abort();
    server.shutdown().await;
    result.map(|()| lists.load(Ordering::SeqCst))
}

fn no_disruption(_: &EmbeddedServer) -> TestResult {
    Ok(())
}

fn close_watches(server: &EmbeddedServer) -> TestResult {
    server.close_watches();
    Ok(())
}

/// Every resourceVersion expired, then watches closed: the watchers resume from a
/// resourceVersion the server no longer serves and get 410, whatever they had seen.
fn force_410(server: &EmbeddedServer) -> TestResult {
    server.expire_all();
    server.close_watches();
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_with_paged_lists() -> TestResult {
    let lists =
        reflector_converges(watcher::Config::default().page_size(7), 1000, no_disruption).await?;
    assert_eq!(lists, 1);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_across_closed_watches() -> TestResult {
    let lists =
        reflector_converges(watcher::Config::default().page_size(10), 37, close_watches).await?;
    assert_eq!(
        lists, 1,
        "closed watches must resume from the last resourceVersion, not relist"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_after_forced_410_relists() -> TestResult {
    let lists =
        reflector_converges(watcher::Config::default().page_size(10), 53, force_410).await?;
    assert!(
        lists >= 2,
        "a 410 must make the watcher relist (listed {lists} times)"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_with_streaming_lists() -> TestResult {
    let lists = reflector_converges(
        watcher::Config::default().streaming_lists(),
        41,
        close_watches,
    )
    .await?;
    assert_eq!(lists, 1);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn converges_with_streaming_lists_after_410() -> TestResult {
    let lists =
        reflector_converges(watcher::Config::default().streaming_lists(), 61, force_410).await?;
    assert!(
        lists >= 2,
        "a 410 must restart the watch-list (listed {lists} times)"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_receive_bookmarks_and_initial_events_end() -> TestResult {
    let server = start_server().await?;
    let api: Api<Pod> = Api::namespaced(server.client(), NAMESPACE);
    api.create(&PostParams::default(), &pod("a")?).await?;
    let current = server.resource_version().to_string();
    let params = WatchParams {
        bookmarks: true,
        ..WatchParams::default()
    }
    .timeout(10);
    let mut events = api.watch(&params, &current).await?.boxed();
    let bookmark = tokio::time::timeout(Duration::from_secs(10), events.try_next()).await??;
    match bookmark {
        Some(WatchEvent::Bookmark(b)) => assert_eq!(b.metadata.resource_version, current),
        other => return Err(format!("expected a BOOKMARK, got {other:?}").into()),
    }

    let streaming = WatchParams::default().initial_events();
    let mut events = api.watch(&streaming, "").await?.boxed();
    let added = tokio::time::timeout(Duration::from_secs(10), events.try_next()).await??;
    assert!(matches!(added, Some(WatchEvent::Added(_))));
    let end = tokio::time::timeout(Duration::from_secs(10), events.try_next()).await??;
    match end {
        Some(WatchEvent::Bookmark(b)) => {
            assert_eq!(
                b.metadata
                    .annotations
                    .get("k8s.io/initial-events-end")
                    .map(String::as_str),
                Some("true")
            );
            assert_eq!(b.metadata.resource_version, current);
        }
        other => {
            return Err(format!("expected the initial-events-end BOOKMARK, got {other:?}").into());
        }
    }
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selector_watch_sees_objects_leave_and_enter() -> TestResult {
    let server = start_server().await?;
    let api: Api<Pod> = Api::namespaced(server.client(), NAMESPACE);
    api.create(&PostParams::default(), &pod("a")?).await?;
    let start = server.resource_version().to_string();
    let params = WatchParams {
        bookmarks: false,
        ..WatchParams::default()
    }
    .labels("tier=gold")
    .timeout(10);
    let events = api.watch(&params, &start).await?;
    let relabel = |tier: &str| Patch::Merge(json!({"metadata": {"labels": {"tier": tier}}}));
    api.patch("a", &PatchParams::default(), &relabel("gold"))
        .await?;
    // Still gold, another change (a patch that changes nothing is not written: no event).
    let another = Patch::Merge(json!({"metadata": {"labels": {"step": "2"}}}));
    api.patch("a", &PatchParams::default(), &another).await?;
    api.patch("a", &PatchParams::default(), &relabel("silver"))
        .await?;
    let seen: Vec<_> = tokio::time::timeout(
        Duration::from_secs(10),
        events.take(3).try_collect::<Vec<_>>(),
    )
    .await??;
    let kinds: Vec<&str> = seen
        .iter()
        .map(|e| match e {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            _ => "OTHER",
        })
        .collect();
    assert_eq!(kinds, ["ADDED", "MODIFIED", "DELETED"]);
    // The object that left shows its last state inside the selection (still gold) at the
    // resourceVersion of the write that moved it out, as kube-apiserver's watch cache shows
    // it (cacheWatcher.convertToWatchEvent, cache_watcher.go apiserver v0.37.2:400-409).
    let WatchEvent::Deleted(left) = &seen[2] else {
        unreachable!("checked above")
    };
    let labels = left.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels.get("tier").map(String::as_str), Some("gold"));
    assert_eq!(labels.get("step").map(String::as_str), Some("2"));
    let now = api.get("a").await?;
    assert_eq!(
        left.metadata.resource_version,
        now.metadata.resource_version
    );
    assert_eq!(
        now.metadata
            .labels
            .unwrap_or_default()
            .get("tier")
            .map(String::as_str),
        Some("silver")
    );
    server.shutdown().await;
    Ok(())
}

/// Creates `count` ~2 KB configmaps-like pods through the in-process write path.
fn create_many(server: &EmbeddedServer, count: usize) -> TestResult {
    let padding = "x".repeat(2_000);
    for i in 0..count {
        server.create_object(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("lag-{i:05}"), "namespace": NAMESPACE,
                         "annotations": {"padding": padding}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}
        }))?;
    }
    Ok(())
}

/// Reads `count` events from a watch that was not polled while they were written.
async fn read_after_lag(
    history: usize,
    count: usize,
) -> Result<Vec<WatchEvent<Pod>>, Box<dyn std::error::Error>> {
    let server = EmbeddedServer::start(ServerConfig {
        history,
        ..ServerConfig::default()
    })
    .await?;
    let api: Api<Pod> = Api::namespaced(server.client(), NAMESPACE);
    let start = server.resource_version().to_string();
    let stream = api
        .watch(
            &WatchParams {
                bookmarks: false,
                ..WatchParams::default()
            }
            .timeout(30),
            &start,
        )
        .await?;
    // Far more than the broadcast channel and the socket buffers hold: the server-side watcher
    // falls behind while nobody reads.
    create_many(&server, 6_000)?;
    let events = tokio::time::timeout(
        Duration::from_secs(60),
        stream.take(count).try_collect::<Vec<_>>(),
    )
    .await??;
    server.shutdown().await;
    Ok(events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lagging_watchers_catch_up_from_history_without_losing_events() -> TestResult {
    let events = read_after_lag(10_000, 6_000).await?;
    let names: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Added(pod) => pod.metadata.name.clone(),
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..6_000).map(|i| format!("lag-{i:05}")).collect();
    assert_eq!(names, expected);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_lagging_beyond_history_get_410() -> TestResult {
    // The stream ends right after the ERROR event, before 6001 items.
    let events = read_after_lag(100, 6_001).await?;
    let last = events.last();
    assert!(
        matches!(last, Some(WatchEvent::Error(status)) if status.code == 410),
        "expected the stream to end with a 410 ERROR event after {} events",
        events.len()
    );
    Ok(())
}
