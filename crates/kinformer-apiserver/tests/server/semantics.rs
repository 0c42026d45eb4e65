//! Server behaviour kubectl users notice, checked with raw HTTP requests and kube-rs: Secret
//! `stringData`, missing namespaces, DNS-1123 names, `metadata.generation`, LIST items without
//! `kind`/`apiVersion`, CRD deletion ending watches, the `scale` subresource, invalid set
//! selectors and the namespaces every cluster has.

use std::time::Duration;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_apiserver::{Seed, ServerConfig};
use kube::Api;
use kube::api::{ListParams, WatchEvent, WatchParams};
use serde_json::{Value, json};

use crate::support::{JSON, MERGE, TestResult, call, seeded as server};

fn message(status: &Value) -> &str {
    status["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn secret_string_data_is_merged_into_data_and_dropped() -> TestResult {
    let server = server(Vec::new()).await?;
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "data": {"a": BASE64_STANDARD.encode("old"), "c": BASE64_STANDARD.encode("kept")},
        "stringData": {"a": "new", "b": "plain"}});
    let path = "/api/v1/namespaces/default/secrets";
    let (code, created) = call(&server, "POST", path, Some((JSON, secret))).await?;
    assert_eq!(code, 201, "{created}");
    let expected = json!({"a": BASE64_STANDARD.encode("new"), "b": BASE64_STANDARD.encode("plain"),
        "c": BASE64_STANDARD.encode("kept")});
    assert_eq!(created["data"], expected);
    assert!(created.get("stringData").is_none(), "{created}");
    let mut replaced = created.clone();
    replaced["stringData"] = json!({"c": "changed"});
    let (code, updated) =
        call(&server, "PUT", &format!("{path}/s"), Some((JSON, replaced))).await?;
    assert_eq!(code, 200, "{updated}");
    assert_eq!(
        updated["data"]["c"],
        json!(BASE64_STANDARD.encode("changed"))
    );
    assert!(updated.get("stringData").is_none(), "{updated}");
    let (_, stored) = call(&server, "GET", &format!("{path}/s"), None).await?;
    assert_eq!(stored["data"], updated["data"]);
    Ok(())
}

#[tokio::test]
async fn objects_in_a_missing_namespace_are_not_found() -> TestResult {
    let server = server(Vec::new()).await?;
    let configmap = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
    let (code, status) = call(
        &server,
        "POST",
        "/api/v1/namespaces/nope/configmaps",
        Some((JSON, configmap.clone())),
    )
    .await?;
    assert_eq!(code, 404, "{status}");
    assert_eq!(message(&status), "namespaces \"nope\" not found");
    let (code, status) = call(
        &server,
        "PATCH",
        "/api/v1/namespaces/nope/configmaps/c?fieldManager=t",
        Some(("application/apply-patch+yaml", configmap.clone())),
    )
    .await?;
    assert_eq!(code, 404, "server-side apply: {status}");
    assert_eq!(message(&status), "namespaces \"nope\" not found");
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nope"}});
    assert_eq!(
        call(
            &server,
            "POST",
            "/api/v1/namespaces",
            Some((JSON, namespace))
        )
        .await?
        .0,
        201
    );
    let (code, _) = call(
        &server,
        "POST",
        "/api/v1/namespaces/nope/configmaps",
        Some((JSON, configmap)),
    )
    .await?;
    assert_eq!(code, 201);
    Ok(())
}

#[tokio::test]
async fn names_must_be_dns_1123() -> TestResult {
    let server = server(Vec::new()).await?;
    let cases = [
        (
            "/api/v1/namespaces/default/configmaps",
            "ConfigMap",
            "Bad_Name",
            "a lowercase RFC 1123 subdomain must consist of",
        ),
        (
            "/api/v1/namespaces/default/configmaps",
            "ConfigMap",
            "-x",
            "a lowercase RFC 1123 subdomain must consist of",
        ),
        (
            "/api/v1/namespaces",
            "Namespace",
            "a.b",
            "a lowercase RFC 1123 label must consist of",
        ),
        (
            "/api/v1/namespaces/default/services",
            "Service",
            "a.b",
            "a DNS-1035 label must consist of",
        ),
    ];
    for (path, kind, name, rule) in cases {
        let object = json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name}});
        let (code, status) = call(&server, "POST", path, Some((JSON, object))).await?;
        assert_eq!(code, 422, "{name}: {status}");
        assert_eq!(status["reason"], "Invalid");
        let field = format!(
            "{kind} \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\": {rule}"
        );
        assert!(message(&status).starts_with(&field), "{}", message(&status));
    }
    let long = "a".repeat(254);
    let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": long}});
    let (code, status) = call(
        &server,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some((JSON, object)),
    )
    .await?;
    assert_eq!(code, 422, "{status}");
    assert!(
        message(&status).contains("must be no more than 253 characters"),
        "{status}"
    );
    Ok(())
}

#[tokio::test]
async fn generation_is_set_only_where_the_spec_bumps_it() -> TestResult {
    let server = server(Vec::new()).await?;
    let configmap = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "1"}});
    let path = "/api/v1/namespaces/default/configmaps";
    let (_, created) = call(&server, "POST", path, Some((JSON, configmap))).await?;
    assert!(
        created.pointer("/metadata/generation").is_none(),
        "{created}"
    );
    let (_, patched) = call(
        &server,
        "PATCH",
        &format!("{path}/c"),
        Some((MERGE, json!({"data": {"k": "2"}}))),
    )
    .await?;
    assert!(
        patched.pointer("/metadata/generation").is_none(),
        "{patched}"
    );
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let (_, created) = call(&server, "POST", path, Some((JSON, deployment))).await?;
    assert_eq!(created.pointer("/metadata/generation"), Some(&json!(1)));
    let (_, patched) = call(
        &server,
        "PATCH",
        &format!("{path}/d"),
        Some((MERGE, json!({"spec": {"replicas": 3}}))),
    )
    .await?;
    assert_eq!(patched.pointer("/metadata/generation"), Some(&json!(2)));
    let (_, labelled) = call(
        &server,
        "PATCH",
        &format!("{path}/d"),
        Some((MERGE, json!({"metadata": {"labels": {"x": "y"}}}))),
    )
    .await?;
    assert_eq!(
        labelled.pointer("/metadata/generation"),
        Some(&json!(2)),
        "metadata changes keep it"
    );
    Ok(())
}

#[tokio::test]
async fn list_items_carry_no_type_meta_and_still_decode() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let (_, list) = call(
        &server,
        "GET",
        "/api/v1/namespaces/default/configmaps",
        None,
    )
    .await?;
    let items = list["items"].as_array().ok_or("no items")?;
    assert!(!items.is_empty());
    for item in items {
        assert!(
            item.get("kind").is_none() && item.get("apiVersion").is_none(),
            "{item}"
        );
        assert!(item.pointer("/metadata/name").is_some(), "{item}");
    }
    let (_, one) = call(
        &server,
        "GET",
        &format!(
            "/api/v1/namespaces/default/configmaps/{}",
            items[0]["metadata"]["name"].as_str().unwrap_or_default()
        ),
        None,
    )
    .await?;
    assert_eq!(one["kind"], "ConfigMap", "a single object keeps its type");
    let (_, events) = call(&server, "GET", "/api/v1/events", None).await?;
    for item in events["items"].as_array().into_iter().flatten() {
        assert!(item.get("kind").is_none(), "{item}");
        assert!(
            item.pointer("/involvedObject/kind").is_some(),
            "nested kinds stay: {item}"
        );
    }
    let typed: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    assert_eq!(
        typed.list(&ListParams::default()).await?.items.len(),
        items.len()
    );
    Ok(())
}

fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})
}

#[tokio::test]
async fn custom_resource_list_items_keep_their_type_and_deleting_the_crd_ends_watches() -> TestResult
{
    let server = server(Vec::new()).await?;
    let (code, _) = call(
        &server,
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        Some((JSON, crd())),
    )
    .await?;
    assert_eq!(code, 201);
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}});
    let (code, created) = call(&server, "POST", widgets, Some((JSON, widget))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created.pointer("/metadata/generation"),
        Some(&json!(1)),
        "custom resources track generation"
    );
    let (_, list) = call(&server, "GET", widgets, None).await?;
    assert_eq!(
        list.pointer("/items/0/kind"),
        Some(&json!("Widget")),
        "{list}"
    );
    let resource = kube::core::ApiResource {
        group: "example.com".into(),
        version: "v1".into(),
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
    };
    let api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(server.client(), "default", &resource);
    let rv = list
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or("0")
        .to_owned();
    let mut events = api
        .watch(&WatchParams::default().timeout(60), &rv)
        .await?
        .boxed();
    let (code, _) = call(
        &server,
        "DELETE",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
        None,
    )
    .await?;
    assert_eq!(code, 200);
    let rest = tokio::time::timeout(Duration::from_secs(30), async {
        let mut seen = Vec::new();
        while let Some(event) = events.try_next().await? {
            seen.push(event);
        }
        Ok::<_, kube::Error>(seen)
    })
    .await
    .map_err(|_| "the watch of a deleted CRD's resource did not end")??;
    assert!(
        matches!(rest.as_slice(), [WatchEvent::Deleted(w)] if w.metadata.name.as_deref() == Some("w")),
        "{rest:?}"
    );
    Ok(())
}

#[tokio::test]
async fn the_scale_subresource_reads_and_writes_replicas() -> TestResult {
    let server = server(vec![Seed::Builtin]).await?;
    let path = "/apis/apps/v1/namespaces/default/deployments/web/scale";
    let (code, scale) = call(&server, "GET", path, None).await?;
    assert_eq!(code, 200, "{scale}");
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(scale.pointer("/spec/replicas"), Some(&json!(24)));
    assert_eq!(scale.pointer("/status/selector"), Some(&json!("app=web")));
    let (code, patched) = call(
        &server,
        "PATCH",
        path,
        Some((MERGE, json!({"spec": {"replicas": 5}}))),
    )
    .await?;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(patched.pointer("/spec/replicas"), Some(&json!(5)));
    let (_, deployment) = call(
        &server,
        "GET",
        "/apis/apps/v1/namespaces/default/deployments/web",
        None,
    )
    .await?;
    assert_eq!(deployment.pointer("/spec/replicas"), Some(&json!(5)));
    let mut put = patched.clone();
    put["spec"]["replicas"] = json!(2);
    let (code, replaced) = call(&server, "PUT", path, Some((JSON, put))).await?;
    assert_eq!(code, 200, "{replaced}");
    let (_, stale) = call(&server, "PUT", path, Some((JSON, patched))).await?;
    assert_eq!(
        stale["code"], 409,
        "a stale resourceVersion conflicts: {stale}"
    );
    let (_, resources) = call(&server, "GET", "/apis/apps/v1", None).await?;
    let listed = resources["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["name"] == "deployments/scale");
    assert!(
        listed.is_some_and(|r| r["kind"] == "Scale"
            && r["group"] == "autoscaling"
            && r["version"] == "v1"),
        "discovery lists deployments/scale: {resources}"
    );
    Ok(())
}

#[tokio::test]
async fn an_empty_set_selector_is_invalid() -> TestResult {
    let server = server(Vec::new()).await?;
    for selector in ["app%20notin%20()", "app%20in%20()"] {
        let (code, status) = call(
            &server,
            "GET",
            &format!("/api/v1/pods?labelSelector={selector}"),
            None,
        )
        .await?;
        assert_eq!(code, 400, "{selector}: {status}");
    }
    Ok(())
}

#[tokio::test]
async fn every_server_has_the_system_namespaces() -> TestResult {
    for seed in [Vec::new(), vec![Seed::Builtin]] {
        let server = server(seed).await?;
        let names: Vec<String> = server
            .objects("namespaces", None)?
            .iter()
            .filter_map(|n| {
                n.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect();
        for expected in ["default", "kube-node-lease", "kube-public", "kube-system"] {
            assert!(
                names.iter().any(|n| n == expected),
                "{expected} missing from {names:?}"
            );
        }
    }
    Ok(())
}

#[test]
fn bookmarks_come_about_once_a_minute_by_default() {
    assert_eq!(
        ServerConfig::default().bookmark_interval,
        Duration::from_secs(60)
    );
}

/// The builtin cluster starts steady under the controllers: each seeded ReplicaSet carries its
/// Deployment's template (with the `pod-template-hash` label), as kube-controller-manager makes
/// them, so the Deployment controller finds it current and rolls nothing out at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_builtin_cluster_starts_without_a_rollout() -> TestResult {
    let server = kinformer_apiserver::EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::Builtin],
        controllers: true,
        ..ServerConfig::default()
    })
    .await?;
    // The controller writes a Deployment's status only once it has found its current ReplicaSet.
    let deployments = server
        .wait_for("deployments", Duration::from_secs(20), |all| {
            all.iter()
                .all(|d| d.pointer("/status/conditions").is_some())
        })
        .await?;
    let replicasets = server.objects("replicasets", None)?;
    assert_eq!(
        replicasets.len(),
        deployments.len(),
        "{:?}",
        replicasets
            .iter()
            .map(|rs| rs["metadata"]["name"].clone())
            .collect::<Vec<_>>()
    );
    Ok(())
}
