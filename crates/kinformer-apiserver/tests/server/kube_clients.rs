//! kube-rs against the embedded API server: CRUD round-trips with `Api<DynamicObject>`, Status
//! errors (400, 401, 404, 409, 410, 422) surfacing as `kube::Error::Api`, paging, metadata-only
//! lists, finalizers, delete-collection and CRDs appearing in / vanishing from discovery.

use std::collections::BTreeSet;

use futures_util::{StreamExt, TryStreamExt};
use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::{ApiResource, GroupVersionKind};
use kube::discovery::{self, Discovery};
use kube::{Client, Error};
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

async fn server(seed: Vec<Seed>) -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        seed,
        ..ServerConfig::default()
    })
    .await?)
}

async fn api_for(
    client: &Client,
    group: &str,
    version: &str,
    kind: &str,
    namespace: Option<&str>,
) -> Result<Api<DynamicObject>, Error> {
    let gvk = GroupVersionKind::gvk(group, version, kind);
    let (resource, _) = discovery::pinned_kind(client, &gvk).await?;
    Ok(match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    })
}

fn object(resource: &ApiResource, value: Value) -> Result<DynamicObject, serde_json::Error> {
    let mut object: DynamicObject = serde_json::from_value(value)?;
    object.types = Some(kube::core::TypeMeta {
        api_version: resource.api_version.clone(),
        kind: resource.kind.clone(),
    });
    Ok(object)
}

fn configmap_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "ConfigMap"), "configmaps")
}

fn configmap(name: &str, data: &str) -> Result<DynamicObject, serde_json::Error> {
    object(
        &configmap_resource(),
        json!({"metadata": {"name": name, "labels": {"app": "test"}}, "data": {"k": data}}),
    )
}

/// The HTTP code of a `kube::Error::Api`, or None for any other outcome.
fn api_code<T>(result: Result<T, Error>) -> Option<u16> {
    match result {
        Err(Error::Api(status)) => Some(status.code),
        _ => None,
    }
}

fn api_reason<T>(result: Result<T, Error>) -> Option<String> {
    match result {
        Err(Error::Api(status)) => Some(status.reason),
        _ => None,
    }
}

fn data_of(object: &DynamicObject) -> Option<&str> {
    object.data.pointer("/data/k").and_then(Value::as_str)
}

#[tokio::test]
async fn crud_round_trips_and_conflicts() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;

    let created = api
        .create(&PostParams::default(), &configmap("a", "1")?)
        .await?;
    let rv1 = created
        .metadata
        .resource_version
        .clone()
        .unwrap_or_default();
    assert!(created.metadata.uid.is_some());
    assert!(created.metadata.creation_timestamp.is_some());
    assert_eq!(rv1, server.resource_version().to_string());
    let again = api
        .create(&PostParams::default(), &configmap("a", "1")?)
        .await;
    assert_eq!(api_reason(again).as_deref(), Some("AlreadyExists"));

    let fetched = api.get("a").await?;
    assert_eq!(data_of(&fetched), Some("1"));
    let listed = api.list(&ListParams::default()).await?;
    assert_eq!(listed.items.len(), 1);
    assert_eq!(
        listed.metadata.resource_version,
        Some(server.resource_version().to_string())
    );

    let merge = Patch::Merge(json!({"data": {"k": "2"}}));
    let merged = api.patch("a", &PatchParams::default(), &merge).await?;
    assert_eq!(data_of(&merged), Some("2"));
    let ops = json!([{"op": "add", "path": "/metadata/labels/extra", "value": "yes"}]);
    let patched = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::<()>::Json(serde_json::from_value(ops)?),
        )
        .await?;
    let labels = patched.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels.get("extra").map(String::as_str), Some("yes"));

    let mut stale = fetched.clone();
    stale.data["data"]["k"] = json!("stale");
    let conflict = api.replace("a", &PostParams::default(), &stale).await;
    assert_eq!(api_reason(conflict).as_deref(), Some("Conflict"));
    let mut fresh = patched.clone();
    fresh.data["data"]["k"] = json!("3");
    let replaced = api.replace("a", &PostParams::default(), &fresh).await?;
    assert_eq!(data_of(&replaced), Some("3"));
    assert_eq!(replaced.metadata.uid, created.metadata.uid);

    api.delete("a", &DeleteParams::default()).await?;
    assert_eq!(api_code(api.get("a").await), Some(404));
    assert_eq!(
        api_code(api.delete("a", &DeleteParams::default()).await),
        Some(404)
    );
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn create_validation_and_generate_name() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    let resource = configmap_resource();
    let generated = object(&resource, json!({"metadata": {"generateName": "gen-"}}))?;
    let created = api.create(&PostParams::default(), &generated).await?;
    assert!(
        created
            .metadata
            .name
            .is_some_and(|n| n.starts_with("gen-") && n.len() == 9)
    );
    let nameless = object(&resource, json!({"metadata": {}}))?;
    assert_eq!(
        api_code(api.create(&PostParams::default(), &nameless).await),
        Some(422)
    );
    let elsewhere = object(
        &resource,
        json!({"metadata": {"name": "x", "namespace": "other"}}),
    )?;
    assert_eq!(
        api_code(api.create(&PostParams::default(), &elsewhere).await),
        Some(422)
    );
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn paged_list_returns_every_object_once_and_expired_continue_is_410() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    let mut expected = BTreeSet::new();
    for i in 0..57 {
        let name = format!("cm-{i:03}");
        api.create(&PostParams::default(), &configmap(&name, "x")?)
            .await?;
        expected.insert(name);
    }
    let mut seen = Vec::new();
    let mut params = ListParams::default().limit(10);
    let mut first_token = None;
    loop {
        let page = api.list(&params).await?;
        seen.extend(page.items.iter().filter_map(|o| o.metadata.name.clone()));
        // Writes between pages must not show up: the pages share one snapshot.
        api.create(
            &PostParams::default(),
            &object(
                &configmap_resource(),
                json!({"metadata": {"generateName": "late-"}}),
            )?,
        )
        .await?;
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => {
                first_token.get_or_insert(token.clone());
                params = ListParams::default().limit(10).continue_token(&token);
            }
            _ => break,
        }
    }
    assert_eq!(seen.len(), expected.len());
    assert_eq!(seen.into_iter().collect::<BTreeSet<_>>(), expected);

    server.trim_history();
    let token = first_token.unwrap_or_default();
    let expired = api
        .list(&ListParams::default().limit(10).continue_token(&token))
        .await;
    assert_eq!(api_code(expired), Some(410));
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn too_old_watch_gets_410_error_event() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    api.create(&PostParams::default(), &configmap("a", "1")?)
        .await?;
    let old = server.resource_version();
    api.create(&PostParams::default(), &configmap("b", "1")?)
        .await?;
    server.trim_history();
    let mut events = api
        .watch(&WatchParams::default(), &old.to_string())
        .await?
        .boxed();
    let first =
        tokio::time::timeout(std::time::Duration::from_secs(10), events.try_next()).await??;
    match first {
        Some(WatchEvent::Error(status)) => {
            assert_eq!(status.code, 410);
            assert_eq!(status.reason, "Expired");
            assert!(status.message.contains("too old resource version"));
        }
        other => return Err(format!("expected a 410 ERROR event, got {other:?}").into()),
    }
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn watch_replays_events_after_a_resource_version() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    let start = server.resource_version();
    api.create(&PostParams::default(), &configmap("a", "1")?)
        .await?;
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"k": "2"}})),
    )
    .await?;
    api.delete("a", &DeleteParams::default()).await?;
    let params = WatchParams {
        bookmarks: false,
        ..WatchParams::default()
    }
    .timeout(5);
    let events: Vec<_> = api
        .watch(&params, &start.to_string())
        .await?
        .take(3)
        .try_collect()
        .await?;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            _ => "OTHER",
        })
        .collect();
    assert_eq!(kinds, ["ADDED", "MODIFIED", "DELETED"]);
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn bad_requests_are_status_errors() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let client = server.client();
    let pods = api_for(&client, "", "v1", "Pod", None).await?;
    let bad_labels = pods
        .list(&ListParams::default().labels("app in (web"))
        .await;
    assert_eq!(api_code(bad_labels), Some(400));
    let bad_fields = pods
        .list(&ListParams::default().fields("spec.bogus=x"))
        .await;
    assert_eq!(api_code(bad_fields), Some(400));

    let malformed = http::Request::post("/api/v1/namespaces/default/configmaps")
        .header("content-type", "application/json")
        .body(b"{not json".to_vec())?;
    assert_eq!(api_code(client.request_text(malformed).await), Some(400));
    let unknown = http::Request::get("/api/v1/podz").body(Vec::new())?;
    assert_eq!(api_code(client.request_text(unknown).await), Some(404));
    let unknown_group = http::Request::get("/apis/nope.io/v1/things").body(Vec::new())?;
    assert_eq!(
        api_code(client.request_text(unknown_group).await),
        Some(404)
    );

    let mut config = server.kube_config();
    config.auth_info = serde_json::from_value(json!({"token": "wrong"}))?;
    let intruder = Client::try_from(config)?;
    let denied = Api::<DynamicObject>::all_with(
        intruder,
        &ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Pod"), "pods"),
    );
    assert_eq!(
        api_code(denied.list(&ListParams::default()).await),
        Some(401)
    );
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn selectors_and_metadata_only_lists() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let client = server.client();
    let pods = api_for(&client, "", "v1", "Pod", None).await?;
    let all = pods.list(&ListParams::default()).await?;
    let web = pods.list(&ListParams::default().labels("app=web")).await?;
    assert!(!web.items.is_empty() && web.items.len() < all.items.len());
    let not_web = pods.list(&ListParams::default().labels("app!=web")).await?;
    assert_eq!(web.items.len() + not_web.items.len(), all.items.len());
    let node1 = pods
        .list(&ListParams::default().fields("spec.nodeName=node-1,status.phase=Running"))
        .await?;
    assert!(
        node1
            .items
            .iter()
            .all(|p| p.data.pointer("/spec/nodeName") == Some(&json!("node-1")))
    );
    assert!(!node1.items.is_empty());
    let set = pods
        .list(&ListParams::default().labels("app in (web,api),!nope"))
        .await?;
    assert!(set.items.len() > web.items.len());

    let metadata = pods.list_metadata(&ListParams::default().limit(5)).await?;
    assert_eq!(metadata.items.len(), 5);
    assert!(metadata.metadata.continue_.is_some());
    assert!(metadata.items.iter().all(|m| m.metadata.name.is_some()));
    let shop = api_for(&client, "", "v1", "Pod", Some("shop")).await?;
    let in_shop = shop.list(&ListParams::default()).await?;
    assert!(
        in_shop
            .items
            .iter()
            .all(|p| p.metadata.namespace.as_deref() == Some("shop"))
    );
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn finalizers_delay_deletion_and_delete_collection_honours_selectors() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    let guarded = object(
        &configmap_resource(),
        json!({"metadata": {"name": "g", "finalizers": ["example.com/keep"]}}),
    )?;
    api.create(&PostParams::default(), &guarded).await?;
    api.delete("g", &DeleteParams::default()).await?;
    let pending = api.get("g").await?;
    assert!(pending.metadata.deletion_timestamp.is_some());
    api.patch(
        "g",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await?;
    assert_eq!(api_code(api.get("g").await), Some(404));

    for (name, tier) in [("x", "a"), ("y", "a"), ("z", "b")] {
        let cm = object(
            &configmap_resource(),
            json!({"metadata": {"name": name, "labels": {"tier": tier}}}),
        )?;
        api.create(&PostParams::default(), &cm).await?;
    }
    api.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("tier=a"),
    )
    .await?;
    let left: Vec<String> = api
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter_map(|o| o.metadata.name)
        .collect();
    assert_eq!(left, ["z"]);
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn crds_come_and_go_from_discovery() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let crds = api_for(
        &client,
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        None,
    )
    .await?;
    let crd_resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    let crd = object(
        &crd_resource,
        json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
        }),
    )?;
    crds.create(&PostParams::default(), &crd).await?;

    let discovered = Discovery::new(client.clone()).run().await?;
    let widget_gvk = GroupVersionKind::gvk("example.com", "v1", "Widget");
    let (widget_resource, caps) = discovered
        .resolve_gvk(&widget_gvk)
        .ok_or("Widget not discovered")?;
    assert_eq!(widget_resource.plural, "widgets");
    assert_eq!(caps.scope, kube::discovery::Scope::Namespaced);

    let widgets: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), "default", &widget_resource);
    let widget = object(
        &widget_resource,
        json!({"metadata": {"name": "w1"}, "spec": {"size": 3}}),
    )?;
    widgets.create(&PostParams::default(), &widget).await?;
    widgets
        .patch(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 4}})),
        )
        .await?;
    let fetched = widgets.get("w1").await?;
    assert_eq!(fetched.data.pointer("/spec/size"), Some(&json!(4)));
    assert_eq!(fetched.metadata.generation, Some(2));

    crds.delete("widgets.example.com", &DeleteParams::default())
        .await?;
    let rediscovered = Discovery::new(client.clone()).run().await?;
    assert!(rediscovered.resolve_gvk(&widget_gvk).is_none());
    assert_eq!(api_code(widgets.get("w1").await), Some(404));
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn kubeconfig_works_for_kube_rs() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let kubeconfig = Kubeconfig::from_yaml(&server.kubeconfig_yaml())?;
    let config =
        kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let client = Client::try_from(config)?;
    let pods = api_for(&client, "", "v1", "Pod", None).await?;
    assert!(pods.list(&ListParams::default()).await?.items.len() >= 90);
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn metadata_watches_and_timeouts_end_cleanly() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let client = server.client();
    let pods = api_for(&client, "", "v1", "Pod", Some("shop")).await?;
    let params = WatchParams::default().timeout(1);
    let events: Vec<_> = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        pods.watch_metadata(&params, "0")
            .await?
            .try_collect::<Vec<_>>(),
    )
    .await??;
    assert!(!events.is_empty());
    for event in &events {
        match event {
            WatchEvent::Added(meta) => {
                assert_eq!(
                    meta.types.as_ref().map(|t| t.kind.as_str()),
                    Some("PartialObjectMetadata")
                );
                assert_eq!(meta.metadata.namespace.as_deref(), Some("shop"));
            }
            WatchEvent::Bookmark(bookmark) => {
                assert_eq!(bookmark.types.kind, "PartialObjectMetadata")
            }
            other => {
                return Err(
                    format!("expected only ADDED and BOOKMARK events, got {other:?}").into(),
                );
            }
        }
    }
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn status_subresource_updates_only_status() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let pods = api_for(&client, "", "v1", "Pod", Some("default")).await?;
    let pod_resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Pod"), "pods");
    let pod = object(
        &pod_resource,
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}),
    )?;
    let created = pods.create(&PostParams::default(), &pod).await?;
    assert_eq!(
        created.data.pointer("/status/phase"),
        Some(&json!("Pending"))
    );
    let patch =
        Patch::Merge(json!({"status": {"phase": "Running"}, "spec": {"nodeName": "ignored"}}));
    let patched = pods
        .patch_status("p", &PatchParams::default(), &patch)
        .await?;
    assert_eq!(
        patched.data.pointer("/status/phase"),
        Some(&json!("Running"))
    );
    assert_eq!(patched.data.pointer("/spec/nodeName"), None);
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn churn_keeps_writing_pods() -> TestResult {
    let server = EmbeddedServer::start(ServerConfig {
        churn: Some(200.0),
        ..ServerConfig::default()
    })
    .await?;
    let client = server.client();
    let pods = api_for(&client, "", "v1", "Pod", Some("default")).await?;
    let events = pods.watch(&WatchParams::default().timeout(20), "0").await?;
    let seen: Vec<_> = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        events.take(30).try_collect::<Vec<_>>(),
    )
    .await??;
    assert!(seen.iter().any(|e| matches!(e, WatchEvent::Modified(_))));
    server.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn seed_files_load_and_bad_ones_name_file_and_document() -> TestResult {
    let dir = tempfile::tempdir()?;
    let good = dir.path().join("good.yaml");
    std::fs::write(
        &good,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\ndata: {k: v}\n",
    )?;
    let server = server(vec![Seed::File(good.clone())]).await?;
    let configmaps = api_for(&server.client(), "", "v1", "ConfigMap", Some("team")).await?;
    assert!(configmaps.get("c").await.is_ok());
    server.shutdown().await;

    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v9\nkind: Nope\nmetadata: {name: x}\n",
    )?;
    let message = match EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::File(bad)],
        ..ServerConfig::default()
    })
    .await
    {
        Err(e) => e.to_string(),
        Ok(_) => return Err("a bad seed file must fail".into()),
    };
    assert!(
        message.contains("bad.yaml") && message.contains("document 2"),
        "{message}"
    );
    let missing = EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::File(dir.path().join("missing.yaml"))],
        ..ServerConfig::default()
    })
    .await;
    assert!(missing.is_err_and(|e| e.to_string().contains("missing.yaml")));
    Ok(())
}

#[tokio::test]
async fn binding_a_used_port_is_a_clear_error() -> TestResult {
    let first = server(vec![]).await?;
    let listen = first.url().trim_start_matches("http://").parse()?;
    let second = EmbeddedServer::start(ServerConfig {
        listen,
        ..ServerConfig::default()
    })
    .await;
    assert!(second.is_err_and(|e| e.to_string().starts_with("cannot listen on 127.0.0.1:")));
    first.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn server_side_apply_creates_then_merges() -> TestResult {
    let server = server(vec![]).await?;
    let client = server.client();
    let api = api_for(&client, "", "v1", "ConfigMap", Some("default")).await?;
    let params = PatchParams::apply("kinformer-test");
    let applied = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"k": "1"}});
    let created = api.patch("ssa", &params, &Patch::Apply(&applied)).await?;
    assert_eq!(data_of(&created), Some("1"));
    let changed = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"k": "2"}});
    let merged = api.patch("ssa", &params, &Patch::Apply(&changed)).await?;
    assert_eq!(data_of(&merged), Some("2"));
    assert_eq!(merged.metadata.uid, created.metadata.uid);
    server.shutdown().await;
    Ok(())
}

/// A deleted namespace is Terminating; with the controllers its objects are deleted (pods
/// gracefully, finished by the kubelet), then the namespace — and only its objects.
#[tokio::test]
async fn deleting_a_namespace_deletes_its_objects() -> TestResult {
    let server = EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::Builtin],
        controllers: true,
        ..ServerConfig::default()
    })
    .await?;
    let client = server.client();
    let namespaces = api_for(&client, "", "v1", "Namespace", None).await?;
    namespaces.delete("shop", &DeleteParams::default()).await?;
    let pods = api_for(&client, "", "v1", "Pod", Some("shop")).await?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while namespaces.get_opt("shop").await?.is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "namespace shop is still there"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(pods.list(&ListParams::default()).await?.items.is_empty());
    let everywhere = api_for(&client, "", "v1", "Pod", None).await?;
    assert!(
        !everywhere
            .list(&ListParams::default())
            .await?
            .items
            .is_empty()
    );
    server.shutdown().await;
    Ok(())
}
