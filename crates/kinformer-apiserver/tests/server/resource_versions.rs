//! LIST and WATCH resourceVersion semantics, row by row of kube-apiserver's "Semantics for
//! list" table, through raw HTTP requests: RV unset (most recent, paged), RV "0" (any state:
//! the watch cache serves the current state and ignores `limit`, or pages like etcd with the
//! watch cache off), RV N (not older than: the current state once the server reached N, else
//! 504 "Too large resource version" after a bounded wait), RV N with `limit` (exact), explicit
//! `resourceVersionMatch`, invalid combinations (400/422) and compacted exact reads (410).

use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use kube::Api;
use kube::api::{WatchEvent, WatchParams};
use serde_json::{Value, json};

use crate::support::{TestResult, call, raw};

/// How long the server waits for a too-new resourceVersion in these tests.
const WAIT: Duration = Duration::from_millis(300);

async fn server(watch_cache: bool) -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    let server = EmbeddedServer::start(ServerConfig {
        watch_cache,
        resource_version_wait: WAIT,
        ..ServerConfig::default()
    })
    .await?;
    for i in 0..5 {
        server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("cm-{i}"), "namespace": "default"}, "data": {"v": "1"}}))?;
    }
    Ok(server)
}

/// GET `path_and_query`: the HTTP code and the JSON body.
async fn get(
    server: &EmbeddedServer,
    path_and_query: &str,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    call(server, "GET", path_and_query, None).await
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item.pointer("/metadata/name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

fn has_continue(list: &Value) -> bool {
    list.pointer("/metadata/continue")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty())
}

fn list_rv(list: &Value) -> u64 {
    list.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .and_then(|rv| rv.parse().ok())
        .unwrap_or_default()
}

/// Changes `cm-0` (its `v` becomes "2") and returns the resourceVersion just before.
async fn modify_first(server: &EmbeddedServer) -> Result<u64, Box<dyn std::error::Error>> {
    let before = server.resource_version();
    let mut object = server.objects("configmaps", Some("default"))?.remove(0);
    object["data"]["v"] = json!("2");
    server.update_object("configmaps", object)?;
    Ok(before)
}

fn first_value(list: &Value) -> Option<&str> {
    list.pointer("/items/0/data/v").and_then(Value::as_str)
}

#[tokio::test]
async fn unset_resource_version_is_a_consistent_paged_read() -> TestResult {
    let server = server(true).await?;
    let (code, page) = get(&server, &format!("{CONFIGMAPS}?limit=2")).await?;
    assert_eq!(code, 200);
    assert_eq!(names(&page), ["cm-0", "cm-1"]);
    assert!(has_continue(&page), "{page}");
    assert_eq!(list_rv(&page), server.resource_version());
    Ok(())
}

#[tokio::test]
async fn resource_version_zero_ignores_limit_with_the_watch_cache() -> TestResult {
    let server = server(true).await?;
    for query in [
        "resourceVersion=0&limit=2",
        "resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=2",
    ] {
        let (code, list) = get(&server, &format!("{CONFIGMAPS}?{query}")).await?;
        assert_eq!(code, 200, "{query}: {list}");
        assert_eq!(names(&list).len(), 5, "{query}: one page with every item");
        assert!(!has_continue(&list), "{query}: no continue token");
        assert_eq!(list_rv(&list), server.resource_version());
    }
    Ok(())
}

#[tokio::test]
async fn resource_version_zero_pages_without_the_watch_cache() -> TestResult {
    let server = server(false).await?;
    let (code, page) = get(&server, &format!("{CONFIGMAPS}?resourceVersion=0&limit=2")).await?;
    assert_eq!(code, 200);
    assert_eq!(names(&page), ["cm-0", "cm-1"]);
    let token = page
        .pointer("/metadata/continue")
        .and_then(Value::as_str)
        .ok_or("no continue token")?;
    let (code, next) = get(
        &server,
        &format!("{CONFIGMAPS}?resourceVersion=0&limit=2&continue={token}"),
    )
    .await?;
    assert_eq!(
        code, 200,
        "continue with resourceVersion 0 is allowed: {next}"
    );
    assert_eq!(names(&next), ["cm-2", "cm-3"]);
    Ok(())
}

#[tokio::test]
async fn not_older_than_serves_the_current_state() -> TestResult {
    let server = server(true).await?;
    let before = modify_first(&server).await?;
    for query in [
        format!("resourceVersion={before}"),
        format!("resourceVersion={before}&resourceVersionMatch=NotOlderThan&limit=10"),
    ] {
        let (code, list) = get(&server, &format!("{CONFIGMAPS}?{query}")).await?;
        assert_eq!(code, 200, "{query}: {list}");
        assert_eq!(first_value(&list), Some("2"), "{query}: the current state");
        assert_eq!(list_rv(&list), server.resource_version(), "{query}");
    }
    Ok(())
}

fn assert_too_large(code: u16, status: &Value, requested: u64) {
    assert_eq!(code, 504, "{status}");
    assert_eq!(status["reason"], "Timeout", "{status}");
    let message = status["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "Timeout: Too large resource version: {requested}, current: "
        )),
        "{status}"
    );
    assert_eq!(
        status.pointer("/details/causes/0/reason"),
        Some(&json!("ResourceVersionTooLarge")),
        "{status}"
    );
    assert_eq!(
        status.pointer("/details/retryAfterSeconds"),
        Some(&json!(1)),
        "{status}"
    );
}

#[tokio::test]
async fn a_too_new_resource_version_waits_then_is_504() -> TestResult {
    let server = server(true).await?;
    let future = server.resource_version() + 10;
    let started = Instant::now();
    let (code, status) = get(&server, &format!("{CONFIGMAPS}?resourceVersion={future}")).await?;
    assert_too_large(code, &status, future);
    assert!(started.elapsed() >= WAIT, "answered before the wait ended");
    // A watch-list waits too, and gets the 504 as its ERROR event (cacher.go apiserver
    // v0.37.2:621-624: newErrWatcher).
    let started = Instant::now();
    let path = format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={future}&sendInitialEvents=true\
         &resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5"
    );
    let (code, event) = get(&server, &path).await?;
    assert_eq!((code, &event["type"]), (200, &json!("ERROR")), "{event}");
    assert_too_large(504, &event["object"], future);
    assert!(started.elapsed() >= WAIT, "answered before the wait ended");
    Ok(())
}

/// A plain watch from a resourceVersion the server has not reached starts at once and sends
/// only what comes after it: kube-apiserver 1.37's watch cache waits only for a watch-list
/// (cacher.go apiserver v0.37.2:1325-1351, waitUntilWatchCacheFreshAndForceAllEvents).
#[tokio::test]
async fn a_watch_from_a_too_new_resource_version_waits_for_what_comes_after_it() -> TestResult {
    let server = server(true).await?;
    let next = server.resource_version() + 2;
    let path = format!("{CONFIGMAPS}?watch=true&resourceVersion={next}&timeoutSeconds=2");
    let watch = raw(&server, "GET", &path, None);
    // Written before or after the watch opens, alike: the watch replays what follows `next`.
    let writes = async {
        for i in 0..3 {
            server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("later-{i}"), "namespace": "default"}}))?;
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    };
    let (answer, written) = tokio::join!(watch, writes);
    written?;
    let (code, body) = answer?;
    assert_eq!(code, 200, "{body}");
    let names: Vec<String> = body
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).map(|e| e["object"]["metadata"]["name"].to_string())
        })
        .collect::<Result<_, _>>()?;
    assert_eq!(
        names,
        ["\"later-2\""],
        "only the write after resourceVersion {next}"
    );
    Ok(())
}

#[tokio::test]
async fn a_too_new_resource_version_is_served_once_the_server_reaches_it() -> TestResult {
    let server = EmbeddedServer::start(ServerConfig {
        resource_version_wait: Duration::from_secs(60),
        ..ServerConfig::default()
    })
    .await?;
    let next = server.resource_version() + 1;
    let path = format!("{CONFIGMAPS}?resourceVersion={next}");
    let request = get(&server, &path);
    let write = async {
        server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "late", "namespace": "default"}}))
    };
    let ((code, list), written) = tokio::join!(async { request.await.unwrap_or_default() }, write);
    written?;
    assert_eq!(code, 200, "{list}");
    assert_eq!(names(&list), ["late"]);
    assert!(list_rv(&list) >= next);
    Ok(())
}

#[tokio::test]
async fn a_resource_version_with_limit_is_an_exact_read() -> TestResult {
    let server = server(true).await?;
    let before = modify_first(&server).await?;
    for query in [
        format!("resourceVersion={before}&limit=2"),
        format!("resourceVersion={before}&resourceVersionMatch=Exact"),
        format!("resourceVersion={before}&resourceVersionMatch=Exact&limit=2"),
    ] {
        let (code, list) = get(&server, &format!("{CONFIGMAPS}?{query}")).await?;
        assert_eq!(code, 200, "{query}: {list}");
        assert_eq!(
            first_value(&list),
            Some("1"),
            "{query}: the state at {before}"
        );
        assert_eq!(list_rv(&list), before, "{query}");
    }
    let (code, status) = get(
        &server,
        &format!(
            "{CONFIGMAPS}?resourceVersion={}&resourceVersionMatch=Exact",
            before + 50
        ),
    )
    .await?;
    assert_too_large(code, &status, before + 50);
    Ok(())
}

#[tokio::test]
async fn an_exact_read_of_a_compacted_resource_version_is_410() -> TestResult {
    let server = server(true).await?;
    let before = modify_first(&server).await?;
    server.trim_history();
    let (code, status) = get(
        &server,
        &format!("{CONFIGMAPS}?resourceVersion={before}&resourceVersionMatch=Exact"),
    )
    .await?;
    assert_eq!(code, 410, "{status}");
    assert_eq!(status["reason"], "Expired");
    assert_eq!(
        status["message"],
        "The resourceVersion for the provided list is too old."
    );
    Ok(())
}

#[tokio::test]
async fn invalid_combinations_are_rejected_like_kube_apiserver() -> TestResult {
    let server = server(true).await?;
    let (_, page) = get(&server, &format!("{CONFIGMAPS}?limit=2")).await?;
    let token = page
        .pointer("/metadata/continue")
        .and_then(Value::as_str)
        .ok_or("no continue token")?
        .to_owned();
    let invalid = |detail: &str| {
        format!("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: {detail}")
    };
    let cases = [
        (
            "resourceVersionMatch=Exact".to_owned(),
            422,
            invalid(
                "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
            ),
        ),
        (
            "resourceVersion=0&resourceVersionMatch=Exact".to_owned(),
            422,
            invalid(
                "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ),
        ),
        (
            "resourceVersion=3&resourceVersionMatch=Newest".to_owned(),
            422,
            invalid(
                "Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
            ),
        ),
        (
            format!("resourceVersion=3&resourceVersionMatch=Exact&continue={token}"),
            422,
            invalid("Forbidden: resourceVersionMatch is forbidden when continue is provided"),
        ),
        (
            format!("resourceVersion=3&continue={token}"),
            400,
            "specifying resource version is not allowed when using continue".to_owned(),
        ),
    ];
    for (query, expected, message) in cases {
        let (code, status) = get(&server, &format!("{CONFIGMAPS}?{query}")).await?;
        assert_eq!(code, expected, "{query}: {status}");
        assert_eq!(status["message"], message, "{query}");
    }
    Ok(())
}

/// The first event of a watch of default's configmaps from `rv`, after `write` ran.
async fn first_watch_event(
    server: &EmbeddedServer,
    rv: &str,
    write: impl FnOnce() -> Result<(), kinformer_apiserver::ServerError>,
) -> Result<WatchEvent<ConfigMap>, Box<dyn std::error::Error>> {
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let mut events = api
        .watch(&WatchParams::default().timeout(30), rv)
        .await?
        .boxed();
    write()?;
    let first = tokio::time::timeout(Duration::from_secs(30), events.try_next()).await??;
    Ok(first.ok_or("the watch ended without an event")?)
}

#[tokio::test]
async fn after_expire_all_a_fresh_list_is_watchable_without_a_write() -> TestResult {
    let server = server(true).await?;
    let seen = server.resource_version().to_string();
    server.expire_all();
    let stale = first_watch_event(&server, &seen, || Ok(())).await?;
    assert!(
        matches!(&stale, WatchEvent::Error(e) if e.code == 410),
        "a watch from before the fault gets 410: {stale:?}"
    );
    let (code, list) = get(&server, CONFIGMAPS).await?;
    assert_eq!(code, 200);
    let fresh = list_rv(&list).to_string();
    let next = first_watch_event(&server, &fresh, || {
        server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "after", "namespace": "default"}}))
    })
    .await?;
    assert!(
        matches!(&next, WatchEvent::Added(cm) if cm.metadata.name.as_deref() == Some("after")),
        "the watch from the relist's resourceVersion sees the next write: {next:?}"
    );
    Ok(())
}

/// A watch with bookmarks gets one BOOKMARK 2 s before its deadline, whatever the bookmark
/// interval (kube-apiserver's cacheWatcher.nextBookmarkTime, cache_watcher.go apiserver v0.37.2:233-269:
/// "right before the watcher timeout - for now we simply set it 2s before the deadline"); a
/// watch shorter than 2 s, or without allowWatchBookmarks, gets none.
#[tokio::test]
async fn a_watch_with_bookmarks_gets_one_two_seconds_before_its_deadline() -> TestResult {
    let server = server(true).await?;
    let (_, list) = get(&server, "/api/v1/namespaces/default/configmaps").await?;
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap_or("");
    let watch = format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}");
    let started = Instant::now();
    let path = format!("{watch}&allowWatchBookmarks=true&timeoutSeconds=3");
    let (code, body) = raw(&server, "GET", &path, None).await?;
    assert_eq!(code, 200, "{body}");
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "ended at its deadline"
    );
    let types: Vec<String> = body
        .lines()
        .map(|l| {
            Ok(serde_json::from_str::<Value>(l)?["type"]
                .as_str()
                .unwrap_or("")
                .to_owned())
        })
        .collect::<Result<_, serde_json::Error>>()?;
    assert_eq!(types, ["BOOKMARK"], "{body}");
    for query in [
        "allowWatchBookmarks=true&timeoutSeconds=1",
        "allowWatchBookmarks=false&timeoutSeconds=3",
    ] {
        let (code, body) = raw(&server, "GET", &format!("{watch}&{query}"), None).await?;
        assert_eq!((code, body.as_str()), (200, ""), "{query}");
    }
    Ok(())
}

/// A continue token whose resourceVersion left the history answers 410 with a fresh token in
/// the Status's `metadata.continue`, which goes on after the same key at the latest state
/// (kube-apiserver's etcd store: `handleCompactedErrorForPaging`, etcd3/errors.go apiserver
/// v0.37.2:77-89).
#[tokio::test]
async fn an_expired_continue_token_gets_410_with_a_fresh_token() -> TestResult {
    let server = server(true).await?;
    let (_, first) = get(&server, &format!("{CONFIGMAPS}?limit=2")).await?;
    let token = first["metadata"]["continue"]
        .as_str()
        .ok_or("a continue token")?
        .to_owned();
    server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm-5", "namespace": "default"}}))?;
    server.trim_history();
    let (code, status) = get(&server, &format!("{CONFIGMAPS}?limit=2&continue={token}")).await?;
    assert_eq!(
        (code, &status["reason"]),
        (410, &json!("Expired")),
        "{status}"
    );
    let message = status["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("or use the continue token in this response"),
        "{status}"
    );
    let fresh = status["metadata"]["continue"]
        .as_str()
        .ok_or("a fresh token")?;
    let (code, rest) = get(&server, &format!("{CONFIGMAPS}?limit=10&continue={fresh}")).await?;
    assert_eq!(code, 200, "{rest}");
    let names: Vec<&str> = rest["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["metadata"]["name"].as_str())
        .filter(|n| n.starts_with("cm-"))
        .collect();
    assert_eq!(
        names,
        ["cm-2", "cm-3", "cm-4", "cm-5"],
        "after cm-1, at the latest"
    );
    Ok(())
}

/// Every field error apimachinery's ValidateListOptions finds is in the 422's message and a
/// cause of its details, for a LIST and for a WATCH (validation.go apimachinery
/// v0.37.2:28-76).
#[tokio::test]
async fn each_list_option_error_is_a_cause_of_the_422() -> TestResult {
    let server = server(true).await?;
    let invalid = |errors: &str| format!("ListOptions.meta.k8s.io \"\" is invalid: {errors}");
    let query = "resourceVersionMatch=NotOlderThan&sendInitialEvents=true";
    let (code, status) = get(&server, &format!("{CONFIGMAPS}?{query}")).await?;
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        status["message"],
        invalid(
            "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless \
             resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is \
             forbidden for list]"
        )
    );
    assert_eq!(
        status["details"],
        json!({"group": "meta.k8s.io", "kind": "ListOptions", "causes": [
            {"reason": "FieldValueForbidden", "field": "resourceVersionMatch",
             "message": "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
            {"reason": "FieldValueForbidden", "field": "sendInitialEvents",
             "message": "Forbidden: sendInitialEvents is forbidden for list"}]})
    );
    for (query, errors) in [
        (
            "resourceVersionMatch=NotOlderThan&resourceVersion=1",
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless \
             sendInitialEvents is provided",
        ),
        (
            "sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1",
            "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting \
             resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: \
             \"Exact\": supported values: \"NotOlderThan\"]",
        ),
    ] {
        let (code, status) = get(&server, &format!("{CONFIGMAPS}?watch=1&{query}")).await?;
        assert_eq!(code, 422, "{query}: {status}");
        assert_eq!(status["message"], invalid(errors), "{query}");
    }
    Ok(())
}

/// A watch-list that does not allow bookmarks gets its initial events and no
/// initial-events-end bookmark (setInitialEventsEndBookmarkIfRequested, cacher.go apiserver
/// v0.37.2:1359-1376).
#[tokio::test]
async fn a_watch_list_without_bookmarks_gets_no_initial_events_end() -> TestResult {
    let server = server(true).await?;
    let (_, list) = get(&server, CONFIGMAPS).await?;
    let items = list["items"].as_array().map_or(0, Vec::len);
    let watch_list = format!(
        "{CONFIGMAPS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan\
         &timeoutSeconds=1"
    );
    for (allow, last) in [("false", "ADDED"), ("true", "BOOKMARK")] {
        let path = format!("{watch_list}&allowWatchBookmarks={allow}");
        let (code, body) = raw(&server, "GET", &path, None).await?;
        assert_eq!(code, 200, "{body}");
        let types: Vec<String> = body
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).map(|e| e["type"].to_string()))
            .collect::<Result<_, _>>()?;
        let bookmarks = usize::from(allow == "true");
        assert_eq!(types.len(), items + bookmarks, "{body}");
        assert_eq!(
            types.last().map(String::as_str),
            Some(&*format!("\"{last}\""))
        );
    }
    Ok(())
}

/// A full page of a list with a selector has a continue token whenever any object follows
/// its last one, selected or not, and the next page may then be empty, as kube-apiserver's
/// watch cache and etcd store page (`hasMoreListItems`, cacher.go apiserver v0.37.2:834-838).
#[tokio::test]
async fn a_selected_page_goes_on_while_any_object_follows() -> TestResult {
    let server = server(true).await?;
    server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "a-first", "namespace": "default", "labels": {"pick": "yes"}}}))?;
    let (code, first) = get(
        &server,
        &format!("{CONFIGMAPS}?labelSelector=pick%3Dyes&limit=1"),
    )
    .await?;
    assert_eq!(code, 200, "{first}");
    assert_eq!(first["items"][0]["metadata"]["name"], "a-first");
    assert_eq!(first["metadata"].get("remainingItemCount"), None, "{first}");
    let token = first["metadata"]["continue"]
        .as_str()
        .ok_or("a continue token: cm-0… follow")?;
    let path = format!("{CONFIGMAPS}?labelSelector=pick%3Dyes&limit=1&continue={token}");
    let (code, next) = get(&server, &path).await?;
    assert_eq!(code, 200, "{next}");
    assert_eq!(next["items"], json!([]), "{next}");
    assert_eq!(next["metadata"].get("continue"), None, "{next}");
    Ok(())
}

/// A continued list at resourceVersion "0" is not limited: the watch cache ignores `limit`
/// whenever resourceVersion is "0" (computeListLimit, cacher.go apiserver v0.37.2:740-745).
#[tokio::test]
async fn a_continued_list_at_resource_version_0_ignores_its_limit() -> TestResult {
    let server = server(true).await?;
    let (_, first) = get(&server, &format!("{CONFIGMAPS}?limit=2")).await?;
    let token = first["metadata"]["continue"]
        .as_str()
        .ok_or("a continue token")?;
    let path = format!("{CONFIGMAPS}?limit=2&resourceVersion=0&continue={token}");
    let (code, rest) = get(&server, &path).await?;
    assert_eq!(code, 200, "{rest}");
    let names: Vec<&str> = rest["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["metadata"]["name"].as_str())
        .filter(|n| n.starts_with("cm-"))
        .collect();
    assert_eq!(names, ["cm-2", "cm-3", "cm-4"], "{rest}");
    assert_eq!(rest["metadata"].get("continue"), None, "{rest}");
    Ok(())
}
