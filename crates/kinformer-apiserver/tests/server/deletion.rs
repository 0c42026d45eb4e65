//! Deletion as kube-apiserver and kube-controller-manager do it (issue 46): a pod's graceful
//! deletion, `propagationPolicy` and its finalizers, preconditions, a namespace's termination
//! and, with the controllers, the garbage collector, the namespace controller and the kubelet
//! finishing what the API server started. Each test cites the source it follows.

use std::time::{Duration, Instant};

use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::{Value, json};

use crate::support::{JSON, TestResult, call, seeded};

const PODS: &str = "/api/v1/namespaces/default/pods";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

/// Every wait ends well within this.
const DEADLINE: Duration = Duration::from_secs(20);

fn pod(name: &str, node: Option<&str>) -> Value {
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    if let Some(node) = node {
        pod["spec"]["nodeName"] = node.into();
    }
    pod
}

fn configmap(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
}

/// Polls `path` until `done` holds for its (code, body), at most [`DEADLINE`].
async fn wait_for(
    server: &EmbeddedServer,
    path: &str,
    done: impl Fn(u16, &Value) -> bool,
) -> Result<Value, Box<dyn std::error::Error>> {
    let started = Instant::now();
    loop {
        let (code, body) = call(server, "GET", path, None).await?;
        if done(code, &body) {
            return Ok(body);
        }
        if started.elapsed() > DEADLINE {
            return Err(format!("{path}: still {code} {body} after {DEADLINE:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A pod on a node is deleted gracefully: marked with its grace period (the default
/// `terminationGracePeriodSeconds`, 30), answered marked, and kept Terminating — no kubelet
/// removes it here; a second DELETE changes nothing; a DELETE with `gracePeriodSeconds: 0`
/// removes it (`pkg/registry/core/pod/strategy.go:175` `CheckGracefulDelete`,
/// `registry/rest/delete.go:108-152` `BeforeDelete`).
#[tokio::test]
async fn a_pod_on_a_node_stays_terminating_for_its_grace_period() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let (code, _) = call(&server, "POST", PODS, Some((JSON, pod("p1", Some("n1"))))).await?;
    assert_eq!(code, 201);
    let path = format!("{PODS}/p1");
    let (code, marked) = call(&server, "DELETE", &path, None).await?;
    assert_eq!(code, 200, "{marked}");
    assert_eq!(
        marked["metadata"]["deletionGracePeriodSeconds"], 30,
        "{marked}"
    );
    assert!(
        marked["metadata"]["deletionTimestamp"].is_string(),
        "{marked}"
    );
    assert_eq!(marked["metadata"]["generation"], 2, "{marked}");
    let (code, stored) = call(&server, "GET", &path, None).await?;
    assert_eq!((code, &stored), (200, &marked));
    let (code, again) = call(&server, "DELETE", &path, None).await?;
    assert_eq!(
        (code, &again),
        (200, &marked),
        "a pending deletion is not renewed"
    );
    let force = json!({"gracePeriodSeconds": 0});
    let (code, gone) = call(&server, "DELETE", &path, Some((JSON, force))).await?;
    assert_eq!(code, 200, "{gone}");
    assert_eq!(gone["metadata"]["deletionGracePeriodSeconds"], 0, "{gone}");
    assert_eq!(call(&server, "GET", &path, None).await?.0, 404);
    Ok(())
}

/// A pod on no node is marked (grace 0) and removed at once; the answer is the object at the
/// deletion's resourceVersion, the one a LIST right after reports
/// (`registry/generic/registry/store.go:1280`: the answer comes from `Storage.Delete`).
#[tokio::test]
async fn an_unscheduled_pod_is_answered_at_its_deletions_resource_version() -> TestResult {
    let server = seeded(Vec::new()).await?;
    call(&server, "POST", PODS, Some((JSON, pod("p1", None)))).await?;
    let (code, deleted) = call(&server, "DELETE", &format!("{PODS}/p1"), None).await?;
    assert_eq!(code, 200, "{deleted}");
    let (_, list) = call(&server, "GET", PODS, None).await?;
    assert_eq!(
        deleted["metadata"]["resourceVersion"], list["metadata"]["resourceVersion"],
        "{deleted}"
    );
    Ok(())
}

/// `propagationPolicy` Foreground and Orphan hold the object with the garbage collector's
/// finalizer (`foregroundDeletion`, `orphan`), marked with `deletionTimestamp`; Background
/// removes it; the policy may come in the query when there is no body; an unknown one is 422
/// (`registry/generic/registry/store.go:1048` `deletionFinalizersForGarbageCollection`).
#[tokio::test]
async fn a_propagation_policy_sets_the_garbage_collectors_finalizer() -> TestResult {
    let server = seeded(Vec::new()).await?;
    for name in ["fg", "or", "bg", "q"] {
        call(&server, "POST", CONFIGMAPS, Some((JSON, configmap(name)))).await?;
    }
    let policy = |p: &str| Some((JSON, json!({"propagationPolicy": p})));
    let (code, fg) = call(
        &server,
        "DELETE",
        &format!("{CONFIGMAPS}/fg"),
        policy("Foreground"),
    )
    .await?;
    assert_eq!(code, 200, "{fg}");
    assert_eq!(
        fg["metadata"]["finalizers"],
        json!(["foregroundDeletion"]),
        "{fg}"
    );
    assert_eq!(fg["metadata"]["deletionGracePeriodSeconds"], 0, "{fg}");
    assert!(fg["metadata"]["deletionTimestamp"].is_string(), "{fg}");
    let (_, or) = call(
        &server,
        "DELETE",
        &format!("{CONFIGMAPS}/or"),
        policy("Orphan"),
    )
    .await?;
    assert_eq!(or["metadata"]["finalizers"], json!(["orphan"]), "{or}");
    let (code, bg) = call(
        &server,
        "DELETE",
        &format!("{CONFIGMAPS}/bg"),
        policy("Background"),
    )
    .await?;
    assert_eq!(
        (code, bg["status"].as_str()),
        (200, Some("Success")),
        "{bg}"
    );
    let query = format!("{CONFIGMAPS}/q?propagationPolicy=Foreground");
    let (_, q) = call(&server, "DELETE", &query, None).await?;
    assert_eq!(
        q["metadata"]["finalizers"],
        json!(["foregroundDeletion"]),
        "{q}"
    );
    for (name, code) in [("fg", 200), ("or", 200), ("bg", 404), ("q", 200)] {
        assert_eq!(
            call(&server, "GET", &format!("{CONFIGMAPS}/{name}"), None)
                .await?
                .0,
            code
        );
    }
    call(&server, "POST", CONFIGMAPS, Some((JSON, configmap("bad")))).await?;
    let (code, bad) = call(
        &server,
        "DELETE",
        &format!("{CONFIGMAPS}/bad"),
        policy("Sideways"),
    )
    .await?;
    assert_eq!(code, 422, "{bad}");
    assert!(
        bad["message"]
            .as_str()
            .unwrap_or_default()
            .contains("propagationPolicy: Unsupported value: \"Sideways\""),
        "{bad}"
    );
    Ok(())
}

/// Preconditions that do not match the stored object are 409, in `BeforeDelete`'s words
/// (`registry/rest/delete.go:84-91`).
#[tokio::test]
async fn delete_preconditions_are_conflicts() -> TestResult {
    let server = seeded(Vec::new()).await?;
    call(&server, "POST", CONFIGMAPS, Some((JSON, configmap("c")))).await?;
    let path = format!("{CONFIGMAPS}/c");
    let body = json!({"preconditions": {"uid": "not-it"}});
    let (code, status) = call(&server, "DELETE", &path, Some((JSON, body))).await?;
    assert_eq!(code, 409, "{status}");
    assert!(
        status["message"]
            .as_str()
            .unwrap_or_default()
            .contains("the UID in the precondition (not-it) does not match"),
        "{status}"
    );
    let body = json!({"preconditions": {"resourceVersion": "1"}});
    let (code, status) = call(&server, "DELETE", &path, Some((JSON, body))).await?;
    assert_eq!(code, 409, "{status}");
    Ok(())
}

/// A deleted namespace is answered Terminating and stays so until its `kubernetes` finalizer
/// goes (no namespace controller runs without `--controllers`); a create in it is 403 with the
/// NamespaceLifecycle plugin's words and cause (`pkg/registry/core/namespace/storage/storage.go:174`,
/// `plugin/namespace/lifecycle/admission.go:179`).
#[tokio::test]
async fn a_deleted_namespace_is_terminating_and_refuses_new_content() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let namespace =
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}});
    call(
        &server,
        "POST",
        "/api/v1/namespaces",
        Some((JSON, namespace)),
    )
    .await?;
    let (code, terminating) = call(&server, "DELETE", "/api/v1/namespaces/doomed", None).await?;
    assert_eq!(code, 200, "{terminating}");
    assert_eq!(
        terminating["status"]["phase"], "Terminating",
        "{terminating}"
    );
    assert!(
        terminating["metadata"]["deletionTimestamp"].is_string(),
        "{terminating}"
    );
    let path = "/api/v1/namespaces/doomed/configmaps";
    let (code, refused) = call(&server, "POST", path, Some((JSON, configmap("late")))).await?;
    assert_eq!(code, 403, "{refused}");
    assert_eq!(
        refused["message"],
        "configmaps \"late\" is forbidden: unable to create new content in namespace doomed because it is being terminated"
    );
    assert_eq!(
        refused["details"]["causes"][0]["reason"], "NamespaceTerminating",
        "{refused}"
    );
    assert_eq!(
        call(&server, "GET", "/api/v1/namespaces/doomed", None)
            .await?
            .0,
        200
    );
    Ok(())
}

async fn with_controllers() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        controllers: true,
        ..ServerConfig::default()
    })
    .await?)
}

fn deployment(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

fn items(list: &Value) -> Vec<Value> {
    list["items"].as_array().cloned().unwrap_or_default()
}

/// With the controllers, a Deployment deleted in the foreground waits (`foregroundDeletion`)
/// while the garbage collector deletes its ReplicaSet and that one's pods, which the kubelet
/// ends; then it goes too. One deleted with `Orphan` leaves its ReplicaSet, without the owner
/// reference (kube-controller-manager `pkg/controller/garbagecollector/garbagecollector.go`,
/// `processDeletingDependentsItem`, `orphanDependents`).
#[tokio::test]
async fn the_garbage_collector_finishes_foreground_and_orphan_deletions() -> TestResult {
    let server = with_controllers().await?;
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let replicasets = "/apis/apps/v1/namespaces/default/replicasets";
    for name in ["fg", "or"] {
        call(
            &server,
            "POST",
            deployments,
            Some((JSON, deployment(name, 2))),
        )
        .await?;
    }
    wait_for(
        &server,
        &format!("{PODS}?labelSelector=app%3Dfg"),
        |_, l| {
            items(l)
                .iter()
                .filter(|p| p["status"]["phase"] == "Running")
                .count()
                == 2
        },
    )
    .await?;
    let fg = json!({"propagationPolicy": "Foreground"});
    let (code, marked) = call(
        &server,
        "DELETE",
        &format!("{deployments}/fg"),
        Some((JSON, fg)),
    )
    .await?;
    assert_eq!(code, 200, "{marked}");
    assert_eq!(
        marked["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    wait_for(&server, &format!("{deployments}/fg"), |code, _| code == 404).await?;
    let pods = wait_for(
        &server,
        &format!("{PODS}?labelSelector=app%3Dfg"),
        |_, l| items(l).is_empty(),
    )
    .await?;
    assert!(items(&pods).is_empty());
    let rs = wait_for(
        &server,
        &format!("{replicasets}?labelSelector=app%3Dfg"),
        |_, l| items(l).is_empty(),
    )
    .await?;
    assert!(items(&rs).is_empty());

    let or = json!({"propagationPolicy": "Orphan"});
    call(
        &server,
        "DELETE",
        &format!("{deployments}/or"),
        Some((JSON, or)),
    )
    .await?;
    wait_for(&server, &format!("{deployments}/or"), |code, _| code == 404).await?;
    let left = wait_for(
        &server,
        &format!("{replicasets}?labelSelector=app%3Dor"),
        |_, l| items(l).len() == 1 && items(l)[0]["metadata"].get("ownerReferences").is_none(),
    )
    .await?;
    assert_eq!(items(&left).len(), 1);
    Ok(())
}

/// With the controllers, a ReplicaSet's scaled-down pod shows Terminating (its grace period
/// set, its containers stopped) before the kubelet removes it: a watch sees it marked, then
/// deleted; a `Killing` event names it.
#[tokio::test]
async fn a_scaled_down_pod_is_terminating_before_it_goes() -> TestResult {
    let server = with_controllers().await?;
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    call(
        &server,
        "POST",
        deployments,
        Some((JSON, deployment("web", 2))),
    )
    .await?;
    let selector = format!("{PODS}?labelSelector=app%3Dweb");
    let running = wait_for(&server, &selector, |_, l| {
        items(l)
            .iter()
            .filter(|p| p["status"]["phase"] == "Running")
            .count()
            == 2
    })
    .await?;
    let since = running["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("0")
        .to_owned();
    let scale = json!({"spec": {"replicas": 1}});
    let (code, _) = call(
        &server,
        "PATCH",
        &format!("{deployments}/web"),
        Some(("application/merge-patch+json", scale)),
    )
    .await?;
    assert_eq!(code, 200);
    wait_for(&server, &selector, |_, l| items(l).len() == 1).await?;
    let watch = format!("{selector}&watch=true&resourceVersion={since}&timeoutSeconds=1");
    let (_, body) = crate::support::raw(&server, "GET", &watch, None).await?;
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let marked = events.iter().position(|e| {
        e["type"] == "MODIFIED" && e["object"]["metadata"]["deletionGracePeriodSeconds"] == 30
    });
    let deleted = events.iter().position(|e| e["type"] == "DELETED");
    assert!(
        matches!((marked, deleted), (Some(m), Some(d)) if m < d),
        "{body}"
    );
    let (_, list) = call(&server, "GET", "/api/v1/namespaces/default/events", None).await?;
    assert!(
        items(&list).iter().any(|e| e["reason"] == "Killing"),
        "{list}"
    );
    Ok(())
}

/// With the controllers, a deleted namespace's objects are deleted and then the namespace
/// itself (kube-controller-manager `pkg/controller/namespace/deletion`).
#[tokio::test]
async fn the_namespace_controller_empties_and_removes_a_terminating_namespace() -> TestResult {
    let server = with_controllers().await?;
    let namespace =
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}});
    call(
        &server,
        "POST",
        "/api/v1/namespaces",
        Some((JSON, namespace)),
    )
    .await?;
    let path = "/api/v1/namespaces/doomed/configmaps";
    call(&server, "POST", path, Some((JSON, configmap("c")))).await?;
    let (code, _) = call(&server, "DELETE", "/api/v1/namespaces/doomed", None).await?;
    assert_eq!(code, 200);
    wait_for(&server, "/api/v1/namespaces/doomed", |code, _| code == 404).await?;
    let (_, list) = call(&server, "GET", "/api/v1/configmaps", None).await?;
    assert!(
        items(&list)
            .iter()
            .all(|c| c["metadata"]["namespace"] != "doomed"),
        "{list}"
    );
    Ok(())
}
