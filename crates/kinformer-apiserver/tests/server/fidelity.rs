//! Answers foreign clients compare with kube-apiserver's (issue 38): the subresources discovery
//! lists (and that each of them answers), a custom resource's `scale`, aggregated discovery, what
//! a DELETE answers, the bytes of an error `Status`, `/version`, what a bare server holds, and the
//! field selectors each resource accepts. Each test names the kube-apiserver source it follows.

use serde_json::{Value, json};

use crate::support::{JSON, MERGE, TestResult, call, seeded};
use kinformer_apiserver::Seed;

/// A CRD whose `v1` declares the `status` and `scale` subresources and whose `v1beta1`
/// declares only `status`.
fn scalable_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema,
                 "subresources": {"status": {}, "scale": {
                    "specReplicasPath": ".spec.size",
                    "statusReplicasPath": ".status.ready",
                    "labelSelectorPath": ".status.selector"}}},
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema,
                 "subresources": {"status": {}}}]}})
}

/// The `subresource` entries of an APIResourceList.
fn subresources(list: &Value) -> Vec<Value> {
    list["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["name"].as_str().is_some_and(|n| n.contains('/')))
        .cloned()
        .collect()
}

/// A status entry as kube-apiserver lists it (`endpoints/installer.go`, `registerResourceHandlers`:
/// a subresource's `singularName` is empty, its kind the parent's, its verbs those of its
/// storage: `get`, `patch`, `update`).
fn status_entry(plural: &str, namespaced: bool, kind: &str) -> Value {
    json!({"name": format!("{plural}/status"), "singularName": "", "namespaced": namespaced,
        "kind": kind, "verbs": ["get", "patch", "update"]})
}

/// A scale entry: its kind is autoscaling/v1 `Scale` (`GroupVersionKindProvider`).
fn scale_entry(plural: &str) -> Value {
    json!({"name": format!("{plural}/scale"), "singularName": "", "namespaced": true,
        "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]})
}

/// `/api/v1`, `/apis/apps/v1`, `/apis/apiextensions.k8s.io/v1` and each version of a CRD list
/// the subresources the server serves, as kube-apiserver lists them, in its order (a
/// built-in group's sorted by path; a CRD's resource, its `status`, its `scale`);
/// and every one listed answers GET and a merge PATCH on an object of its resource.
#[tokio::test]
async fn discovery_lists_the_subresources_it_serves() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, crd) = call(&server, "POST", crds, Some((JSON, scalable_crd()))).await?;
    assert_eq!(code, 201, "{crd}");
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 2}});
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let (code, created) = call(&server, "POST", widgets, Some((JSON, widget))).await?;
    assert_eq!(code, 201, "{created}");
    let expected = [
        (
            "/api/v1",
            vec![
                status_entry("namespaces", false, "Namespace"),
                status_entry("nodes", false, "Node"),
                status_entry("pods", true, "Pod"),
                status_entry("services", true, "Service"),
            ],
        ),
        (
            "/apis/apps/v1",
            vec![
                status_entry("daemonsets", true, "DaemonSet"),
                scale_entry("deployments"),
                status_entry("deployments", true, "Deployment"),
                scale_entry("replicasets"),
                status_entry("replicasets", true, "ReplicaSet"),
                scale_entry("statefulsets"),
                status_entry("statefulsets", true, "StatefulSet"),
            ],
        ),
        (
            "/apis/apiextensions.k8s.io/v1",
            vec![status_entry(
                "customresourcedefinitions",
                false,
                "CustomResourceDefinition",
            )],
        ),
        (
            "/apis/example.com/v1",
            vec![
                status_entry("widgets", true, "Widget"),
                scale_entry("widgets"),
            ],
        ),
        (
            "/apis/example.com/v1beta1",
            vec![status_entry("widgets", true, "Widget")],
        ),
    ];
    for (path, entries) in expected {
        let (code, list) = call(&server, "GET", path, None).await?;
        assert_eq!(code, 200, "{list}");
        assert_eq!(subresources(&list), entries, "{path}");
        let names: Vec<&str> = list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["name"].as_str())
            .collect();
        let builtin = !path.contains("example.com");
        assert!(
            names.is_sorted() || !builtin,
            "{path} lists by path: {names:?}"
        );
        for entry in entries {
            answers(&server, path, &entry).await?;
        }
    }
    Ok(())
}

/// The listed subresource answers GET and an empty merge PATCH on the first object of its
/// resource.
async fn answers(
    server: &kinformer_apiserver::EmbeddedServer,
    group_version: &str,
    entry: &Value,
) -> TestResult {
    let name = entry["name"].as_str().unwrap_or_default();
    let (plural, subresource) = name.split_once('/').unwrap_or_default();
    let (_, list) = call(server, "GET", &format!("{group_version}/{plural}"), None).await?;
    let Some(object) = list["items"].get(0) else {
        return Err(format!("no {plural} to try {name} on").into());
    };
    let metadata = &object["metadata"];
    let namespace = metadata["namespace"]
        .as_str()
        .map(|ns| format!("/namespaces/{ns}"))
        .unwrap_or_default();
    let object_name = metadata["name"].as_str().unwrap_or_default();
    let path = format!("{group_version}{namespace}/{plural}/{object_name}/{subresource}");
    let (code, got) = call(server, "GET", &path, None).await?;
    assert_eq!(code, 200, "GET {path}: {got}");
    let (code, patched) = call(server, "PATCH", &path, Some((MERGE, json!({})))).await?;
    assert_eq!(code, 200, "PATCH {path}: {patched}");
    Ok(())
}

/// A custom resource's declared `scale` is an autoscaling/v1 `Scale` built from its
/// `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`, and PUT and PATCH write
/// `spec.replicas` back through the first (`apiextensions-apiserver/pkg/registry/
/// customresource/etcd.go`, `scaleFromCustomResource`, `scaleUpdatedObjectInfo`); a version
/// that declares none answers 404. Its `status` writes only `status`, and a write of the object
/// itself keeps the stored one (`customresource/strategy.go`, `PrepareForUpdate`).
#[tokio::test]
async fn a_custom_resource_serves_its_declared_scale_and_status() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, crd) = call(&server, "POST", crds, Some((JSON, scalable_crd()))).await?;
    assert_eq!(code, 201, "{crd}");
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 2, "colour": "blue"}});
    let (code, created) = call(&server, "POST", widgets, Some((JSON, widget))).await?;
    assert_eq!(code, 201, "{created}");
    let status = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 9},
        "status": {"ready": 1, "selector": "app=w"}});
    let (code, written) = call(
        &server,
        "PUT",
        &format!("{widgets}/w/status"),
        Some((JSON, status)),
    )
    .await?;
    assert_eq!(code, 200, "{written}");
    assert_eq!(
        written["spec"]["size"], 2,
        "/status writes only status: {written}"
    );
    assert_eq!(written["status"]["ready"], 1, "{written}");
    let scale_path = format!("{widgets}/w/scale");
    let (code, scale) = call(&server, "GET", &scale_path, None).await?;
    assert_eq!(code, 200, "{scale}");
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(scale["metadata"]["name"], "w");
    assert_eq!(scale["spec"], json!({"replicas": 2}));
    assert_eq!(scale["status"], json!({"replicas": 1, "selector": "app=w"}));
    let mut put = scale.clone();
    put["spec"]["replicas"] = 5.into();
    let (code, scaled) = call(&server, "PUT", &scale_path, Some((JSON, put))).await?;
    assert_eq!(code, 200, "{scaled}");
    assert_eq!(scaled["spec"]["replicas"], 5);
    let (code, patched) = call(
        &server,
        "PATCH",
        &scale_path,
        Some((MERGE, json!({"spec": {"replicas": 3}}))),
    )
    .await?;
    assert_eq!(code, 200, "{patched}");
    let (_, stored) = call(&server, "GET", &format!("{widgets}/w"), None).await?;
    assert_eq!(
        stored["spec"],
        json!({"size": 3, "colour": "blue"}),
        "{stored}"
    );
    assert_eq!(stored["status"]["ready"], 1, "{stored}");
    let mut whole = stored.clone();
    whole["status"] = json!({"ready": 7});
    whole["spec"]["colour"] = "red".into();
    let (code, replaced) =
        call(&server, "PUT", &format!("{widgets}/w"), Some((JSON, whole))).await?;
    assert_eq!(code, 200, "{replaced}");
    assert_eq!(replaced["spec"]["colour"], "red");
    assert_eq!(
        replaced["status"]["ready"], 1,
        "the object's own write keeps status: {replaced}"
    );
    let beta = "/apis/example.com/v1beta1/namespaces/default/widgets/w/scale";
    let (code, _) = call(&server, "GET", beta, None).await?;
    assert_eq!(code, 404, "v1beta1 declares no scale");
    Ok(())
}
