//! Answers foreign clients compare with kube-apiserver's (issue 38): the subresources discovery
//! lists (and that each of them answers), a custom resource's `scale`, aggregated discovery, what
//! a DELETE answers, the bytes of an error `Status`, `/version`, what a bare server holds, and the
//! field selectors each resource accepts. Each test names the kube-apiserver source it follows.

use serde_json::{Value, json};

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};

use crate::support::{JSON, MERGE, TestResult, call, client, seeded};

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

/// The verbs of a `proxy` subresource (`ProxyREST`: every method but LIST and WATCH).
const PROXY_VERBS: [&str; 5] = ["create", "delete", "get", "patch", "update"];

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
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
        "spec": {"template": {"metadata": {"labels": {"app": "rc"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
    let rcs = "/api/v1/namespaces/default/replicationcontrollers";
    let (code, created) = call(&server, "POST", rcs, Some((JSON, rc))).await?;
    assert_eq!(code, 201, "{created}");
    let storage = [
        (
            "/api/v1/namespaces/default/persistentvolumeclaims",
            json!({"apiVersion": "v1",
            "kind": "PersistentVolumeClaim", "metadata": {"name": "claim"},
            "spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        (
            "/api/v1/persistentvolumes",
            json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "volume"}, "spec": {"capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}}}),
        ),
        (
            "/api/v1/namespaces/default/resourcequotas",
            json!({"apiVersion": "v1",
            "kind": "ResourceQuota", "metadata": {"name": "quota"},
            "spec": {"hard": {"pods": "10"}}}),
        ),
    ];
    for (path, object) in storage {
        let (code, created) = call(&server, "POST", path, Some((JSON, object))).await?;
        assert_eq!(code, 201, "{created}");
    }
    let expected = [
        (
            "/api/v1",
            vec![
                json!({"name": "namespaces/finalize", "singularName": "", "namespaced": false,
                    "kind": "Namespace", "verbs": ["update"]}),
                status_entry("namespaces", false, "Namespace"),
                json!({"name": "nodes/proxy", "singularName": "", "namespaced": false,
                    "kind": "NodeProxyOptions", "verbs": PROXY_VERBS}),
                status_entry("nodes", false, "Node"),
                status_entry("persistentvolumeclaims", true, "PersistentVolumeClaim"),
                status_entry("persistentvolumes", false, "PersistentVolume"),
                json!({"name": "pods/attach", "singularName": "", "namespaced": true,
                    "kind": "PodAttachOptions", "verbs": ["create", "get"]}),
                json!({"name": "pods/binding", "singularName": "", "namespaced": true,
                    "kind": "Binding", "verbs": ["create"]}),
                json!({"name": "pods/ephemeralcontainers", "singularName": "",
                    "namespaced": true, "kind": "Pod", "verbs": ["get", "patch", "update"]}),
                json!({"name": "pods/eviction", "singularName": "", "namespaced": true,
                    "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}),
                json!({"name": "pods/exec", "singularName": "", "namespaced": true,
                    "kind": "PodExecOptions", "verbs": ["create", "get"]}),
                json!({"name": "pods/log", "singularName": "", "namespaced": true,
                    "kind": "Pod", "verbs": ["get"]}),
                json!({"name": "pods/portforward", "singularName": "", "namespaced": true,
                    "kind": "PodPortForwardOptions", "verbs": ["create", "get"]}),
                json!({"name": "pods/proxy", "singularName": "", "namespaced": true,
                    "kind": "PodProxyOptions", "verbs": PROXY_VERBS}),
                json!({"name": "pods/resize", "singularName": "", "namespaced": true,
                    "kind": "Pod", "verbs": ["get", "patch", "update"]}),
                status_entry("pods", true, "Pod"),
                scale_entry("replicationcontrollers"),
                status_entry("replicationcontrollers", true, "ReplicationController"),
                status_entry("resourcequotas", true, "ResourceQuota"),
                json!({"name": "serviceaccounts/token", "singularName": "", "namespaced": true,
                    "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest",
                    "verbs": ["create"]}),
                json!({"name": "services/proxy", "singularName": "", "namespaced": true,
                    "kind": "ServiceProxyOptions", "verbs": PROXY_VERBS}),
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
        let read_write = entries
            .iter()
            .filter(|e| e["verbs"] == json!(["get", "patch", "update"]));
        for entry in read_write {
            answers(&server, path, entry).await?;
        }
    }
    Ok(())
}

/// The listed subresource answers GET and an empty merge PATCH on the first object of its
/// resource (those read and written like `status`; the others have tests of their own).
async fn answers(server: &EmbeddedServer, group_version: &str, entry: &Value) -> TestResult {
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

/// What kubectl and client-go send to `/api` and `/apis`: aggregated discovery first, the
/// legacy types as fallbacks.
const AGGREGATED_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// One GET with an `Accept` header: the code, the `Content-Type` and the body's bytes.
async fn get_accepting(
    server: &EmbeddedServer,
    path: &str,
    accept: &str,
) -> Result<(u16, String, Vec<u8>), Box<dyn std::error::Error>> {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())?;
    let response = client(server.kube_config())?
        .send(request.map(Into::into))
        .await?;
    let code = response.status().as_u16();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    Ok((code, content_type, body.to_vec()))
}

/// `/api` and `/apis` answer an `APIGroupDiscoveryList` to a client that asks for one first
/// (`apiserver/pkg/endpoints/discovery/aggregated/wrapper.go` and `negotiation.go`: v2, and
/// v2beta1 only before 1.33's `AggregatedDiscoveryRemoveBetaType`), with the media type as its
/// `Content-Type` (`responsewriters.WriteObjectNegotiated`, `generateMediaTypeWithGVK`); the
/// legacy types otherwise.
#[tokio::test]
async fn aggregated_discovery_is_served_to_clients_that_ask_for_it() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, crd) = call(&server, "POST", crds, Some((JSON, scalable_crd()))).await?;
    assert_eq!(code, 201, "{crd}");
    let media = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    let (code, content_type, body) = get_accepting(&server, "/api", AGGREGATED_ACCEPT).await?;
    assert_eq!((code, content_type.as_str()), (200, media));
    let core: Value = serde_json::from_slice(&body)?;
    assert_eq!(core["kind"], "APIGroupDiscoveryList");
    assert_eq!(core["apiVersion"], "apidiscovery.k8s.io/v2");
    let v1 = &core["items"][0]["versions"][0];
    assert_eq!(v1["version"], "v1");
    let pods = v1["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["resource"] == "pods")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        pods,
        json!({"resource": "pods", "responseKind": {"group": "", "version": "", "kind": "Pod"},
            "scope": "Namespaced", "singularResource": "pod",
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            "shortNames": ["po"], "categories": ["all"],
            "subresources": [
                {"subresource": "attach",
                    "responseKind": {"group": "", "version": "", "kind": "PodAttachOptions"},
                    "verbs": ["create", "get"]},
                {"subresource": "binding",
                    "responseKind": {"group": "", "version": "", "kind": "Binding"},
                    "verbs": ["create"]},
                {"subresource": "ephemeralcontainers",
                    "responseKind": {"group": "", "version": "", "kind": "Pod"},
                    "verbs": ["get", "patch", "update"]},
                {"subresource": "eviction",
                    "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"},
                    "verbs": ["create"]},
                {"subresource": "exec",
                    "responseKind": {"group": "", "version": "", "kind": "PodExecOptions"},
                    "verbs": ["create", "get"]},
                {"subresource": "log",
                    "responseKind": {"group": "", "version": "", "kind": "Pod"},
                    "verbs": ["get"]},
                {"subresource": "portforward",
                    "responseKind": {"group": "", "version": "", "kind": "PodPortForwardOptions"},
                    "verbs": ["create", "get"]},
                {"subresource": "proxy",
                    "responseKind": {"group": "", "version": "", "kind": "PodProxyOptions"},
                    "verbs": ["create", "delete", "get", "patch", "update"]},
                {"subresource": "resize",
                    "responseKind": {"group": "", "version": "", "kind": "Pod"},
                    "verbs": ["get", "patch", "update"]},
                {"subresource": "status",
                    "responseKind": {"group": "", "version": "", "kind": "Pod"},
                    "verbs": ["get", "patch", "update"]}]})
    );
    let (code, content_type, body) = get_accepting(&server, "/apis", AGGREGATED_ACCEPT).await?;
    assert_eq!((code, content_type.as_str()), (200, media));
    let groups: Value = serde_json::from_slice(&body)?;
    let names: Vec<&str> = groups["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["metadata"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "apiregistration.k8s.io",
            "apps",
            "events.k8s.io",
            "authentication.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "certificates.k8s.io",
            "networking.k8s.io",
            "policy",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "scheduling.k8s.io",
            "coordination.k8s.io",
            "node.k8s.io",
            "discovery.k8s.io",
            "resource.k8s.io",
            "flowcontrol.apiserver.k8s.io",
            "storagemigration.k8s.io",
            "example.com"
        ]
    );
    let deployments = &groups["items"][1]["versions"][0]["resources"];
    let scale = deployments
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["resource"] == "deployments")
        .map(|r| r["subresources"][0].clone());
    assert_eq!(
        scale,
        Some(json!({"subresource": "scale",
            "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
            "verbs": ["get", "patch", "update"]}))
    );
    let widgets = &groups["items"][21]["versions"];
    assert_eq!(widgets[0]["version"], "v1");
    assert_eq!(widgets[0]["freshness"], "Current");
    assert_eq!(widgets[0]["resources"][0]["scope"], "Namespaced");
    // v2beta1 until 1.33; the legacy types to clients that do not ask, or ask for v2beta1
    // from 1.33 on.
    let beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    let older = EmbeddedServer::start(ServerConfig {
        kubernetes_minor: 32,
        ..ServerConfig::default()
    })
    .await?;
    let (_, content_type, _) = get_accepting(&older, "/apis", beta).await?;
    assert_eq!(
        content_type,
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
    );
    let newer = EmbeddedServer::start(ServerConfig {
        kubernetes_minor: 33,
        ..ServerConfig::default()
    })
    .await?;
    for (server, accept) in [(&server, "application/json"), (&server, ""), (&newer, beta)] {
        let (code, content_type, body) = get_accepting(server, "/apis", accept).await?;
        let legacy: Value = serde_json::from_slice(&body)?;
        assert_eq!((code, content_type.as_str()), (200, "application/json"));
        assert_eq!(legacy["kind"], "APIGroupList", "Accept: {accept}");
    }
    Ok(())
}

/// A DELETE answers the object only where kube-apiserver's storage sets `ReturnDeletedObject`
/// (of the served resources: pods, `pkg/registry/core/pod/storage/storage.go:89`; services,
/// `core/service/storage/storage.go:89`; namespaces, `core/namespace/storage/storage.go:72`;
/// serviceaccounts, `core/serviceaccount/storage/storage.go:66`) or while a finalizer keeps the
/// object; otherwise a Success `Status` naming it, its `kind` the resource's plural
/// (`apiserver/pkg/registry/generic/registry/store.go:1457`, `finalizeDelete`).
#[tokio::test]
async fn deletes_answer_a_status_unless_the_storage_returns_the_object() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, crd) = call(&server, "POST", crds, Some((JSON, scalable_crd()))).await?;
    assert_eq!(code, 201, "{crd}");
    let cases = [
        (
            "/api/v1/namespaces/default/configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap"}),
            None,
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
            None,
        ),
        (
            "/apis/example.com/v1/namespaces/default/widgets",
            json!({"apiVersion": "example.com/v1", "kind": "Widget"}),
            None,
        ),
        (
            "/api/v1/namespaces/default/pods",
            json!({"apiVersion": "v1", "kind": "Pod",
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
            Some("Pod"),
        ),
        (
            "/api/v1/namespaces/default/services",
            json!({"apiVersion": "v1", "kind": "Service",
            "spec": {"ports": [{"port": 80}]}}),
            Some("Service"),
        ),
        (
            "/api/v1/namespaces/default/serviceaccounts",
            json!({"apiVersion": "v1", "kind": "ServiceAccount"}),
            Some("ServiceAccount"),
        ),
        (
            "/api/v1/namespaces",
            json!({"apiVersion": "v1", "kind": "Namespace"}),
            Some("Namespace"),
        ),
    ];
    for (collection, mut object, returned) in cases {
        object["metadata"] = json!({"name": "gone"});
        let (code, created) = call(&server, "POST", collection, Some((JSON, object))).await?;
        assert_eq!(code, 201, "{created}");
        let (code, deleted) = call(&server, "DELETE", &format!("{collection}/gone"), None).await?;
        assert_eq!(code, 200, "{deleted}");
        match returned {
            Some(kind) => assert_eq!(deleted["kind"], kind, "{collection}: {deleted}"),
            None => {
                let plural = collection.rsplit('/').next().unwrap_or_default();
                let group = collection
                    .strip_prefix("/apis/")
                    .and_then(|rest| rest.split('/').next());
                let mut details =
                    json!({"name": "gone", "kind": plural, "uid": created["metadata"]["uid"]});
                if let Some(group) = group {
                    details["group"] = group.into();
                }
                assert_eq!(
                    deleted,
                    json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                        "status": "Success", "details": details}),
                    "{collection}"
                );
            }
        }
    }
    // A finalizer keeps the object: the answer is the object, its deletion pending.
    let configmaps = "/api/v1/namespaces/default/configmaps";
    let kept = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "kept", "finalizers": ["example.com/hold"]}});
    let (code, _) = call(&server, "POST", configmaps, Some((JSON, kept))).await?;
    assert_eq!(code, 201);
    let (code, pending) = call(&server, "DELETE", &format!("{configmaps}/kept"), None).await?;
    assert_eq!(code, 200, "{pending}");
    assert_eq!(pending["kind"], "ConfigMap");
    assert!(
        pending["metadata"]["deletionTimestamp"].is_string(),
        "{pending}"
    );
    Ok(())
}

/// An error `Status` is written byte for byte as kube-apiserver writes it: `metav1.Status`'s
/// members in Go field order, `omitempty` members left out (`details.group` of a core
/// resource), `details.kind` the resource's plural (`apimachinery/pkg/api/errors/errors.go`,
/// `NewNotFound`, `NewAlreadyExists`) or, for `Invalid`, the kind (`NewInvalid`, its message
/// naming `Kind.group`), a cause's type as `reason`, and the newline Go's `json.Encoder` ends
/// it with (`apimachinery/pkg/runtime/serializer/json/json.go`, `doEncode`).
#[tokio::test]
async fn error_statuses_are_kube_apiservers_bytes() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let missing = "/api/v1/namespaces/default/configmaps/missing";
    let (code, _, body) = get_accepting(&server, missing, "application/json").await?;
    assert_eq!(code, 404);
    assert_eq!(
        String::from_utf8(body)?,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"configmaps \\\"missing\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"missing\",\"kind\":\"configmaps\"},\"code\":404}\n"
    );
    let missing = "/apis/apps/v1/namespaces/default/deployments/missing";
    let (code, _, body) = get_accepting(&server, missing, "application/json").await?;
    assert_eq!(code, 404);
    assert_eq!(
        String::from_utf8(body)?,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"deployments.apps \\\"missing\\\" not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"missing\",\"group\":\"apps\",\"kind\":\"deployments\"},\"code\":404}\n"
    );
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "Bad_Name"},
        "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let request = http::Request::post(deployments)
        .header(http::header::CONTENT_TYPE, JSON)
        .body(serde_json::to_vec(&bad)?)?;
    let response = client(server.kube_config())?
        .send(request.map(Into::into))
        .await?;
    assert_eq!(response.status().as_u16(), 422);
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    let text = String::from_utf8(body.to_vec())?;
    assert!(
        text.starts_with("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Deployment.apps \\\"Bad_Name\\\" is invalid: metadata.name: Invalid value: \\\"Bad_Name\\\": "),
        "{text}"
    );
    assert!(
        text.ends_with(",\"reason\":\"Invalid\",\"details\":{\"name\":\"Bad_Name\",\"group\":\"apps\",\"kind\":\"Deployment\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"Bad_Name\\\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\",\"field\":\"metadata.name\"}]},\"code\":422}\n"),
        "{text}"
    );
    Ok(())
}

/// `/version` is the `version.Info` of the release the server emulates
/// (`ServerConfig::kubernetes_minor`), its `.0` patch, written as kube-apiserver's
/// `responsewriters.WriteRawJSON` writes it: indented, in the Go field order of
/// `apimachinery/pkg/version/types.go`, the emulation and compatibility members (1.33's
/// KEP-4330 additions) only from 1.33 on.
#[tokio::test]
async fn version_reports_the_emulated_release() -> TestResult {
    for (minor, go, compatibility) in [(30, "go1.22", false), (33, "go1.24", true)] {
        let server = EmbeddedServer::start(ServerConfig {
            kubernetes_minor: minor,
            ..ServerConfig::default()
        })
        .await?;
        let (code, content_type, body) = get_accepting(&server, "/version", "").await?;
        assert_eq!((code, content_type.as_str()), (200, "application/json"));
        let text = String::from_utf8(body)?;
        let info: Value = serde_json::from_str(&text)?;
        assert!(
            text.starts_with(&format!(
                "{{\n  \"major\": \"1\",\n  \"minor\": \"{minor}\",\n"
            )),
            "{text}"
        );
        assert_eq!(info["gitVersion"], format!("v1.{minor}.0"));
        assert!(
            info["goVersion"]
                .as_str()
                .is_some_and(|v| v.starts_with(go)),
            "{text}"
        );
        let mut keys = vec!["major", "minor"];
        if compatibility {
            keys.extend([
                "emulationMajor",
                "emulationMinor",
                "minCompatibilityMajor",
                "minCompatibilityMinor",
            ]);
            assert_eq!(info["emulationMinor"], minor.to_string());
            assert_eq!(info["minCompatibilityMinor"], (minor - 1).to_string());
        }
        keys.extend([
            "gitVersion",
            "gitCommit",
            "gitTreeState",
            "buildDate",
            "goVersion",
            "compiler",
            "platform",
        ]);
        let positions: Vec<usize> = keys
            .iter()
            .map(|key| text.find(&format!("\"{key}\":")).unwrap_or(usize::MAX))
            .collect();
        assert!(
            positions.is_sorted() && !positions.contains(&usize::MAX),
            "{text}"
        );
        assert_eq!(
            info.as_object().map(serde_json::Map::len),
            Some(keys.len()),
            "{text}"
        );
        server.shutdown().await;
    }
    Ok(())
}

/// A bare server holds what kube-apiserver creates itself: the system namespaces and the
/// `default/kubernetes` Service at the first address of the service range, port 443 to the
/// apiserver's 6443 (`pkg/controlplane/controller/kubernetesservice/controller.go`,
/// `CreateOrUpdateMasterServiceIfNeeded`); seeding the built-in cluster or a file naming that
/// Service keeps the one.
#[tokio::test]
async fn a_bare_server_has_the_kubernetes_service() -> TestResult {
    let dir = tempfile::tempdir()?;
    let seed = dir.path().join("seed.yaml");
    std::fs::write(
        &seed,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: kubernetes\n  namespace: default\nspec:\n  ports: [{name: https, port: 443}]\n",
    )?;
    for seeds in [Vec::new(), vec![Seed::Builtin], vec![Seed::File(seed)]] {
        let server = seeded(seeds).await?;
        let (code, list) = call(
            &server,
            "GET",
            "/api/v1/services?fieldSelector=metadata.name=kubernetes",
            None,
        )
        .await?;
        assert_eq!(code, 200, "{list}");
        let items = list["items"].as_array().cloned().unwrap_or_default();
        assert_eq!(items.len(), 1, "{list}");
        let service = &items[0];
        assert_eq!(service["metadata"]["namespace"], "default");
        assert_eq!(
            service["metadata"]["labels"],
            json!({"component": "apiserver", "provider": "kubernetes"})
        );
        let spec = &service["spec"];
        assert_eq!(spec["clusterIP"], "10.96.0.1");
        assert_eq!(spec["type"], "ClusterIP");
        assert_eq!(spec["sessionAffinity"], "None");
        assert_eq!(
            spec["ports"],
            json!([{"name": "https", "protocol": "TCP", "port": 443, "targetPort": 6443}])
        );
        let (_, namespaces) = call(&server, "GET", "/api/v1/namespaces", None).await?;
        let names: Vec<&str> = namespaces["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n["metadata"]["name"].as_str())
            .collect();
        for system in ["default", "kube-node-lease", "kube-public", "kube-system"] {
            assert!(names.contains(&system), "{names:?}");
        }
    }
    Ok(())
}

/// The number of items a LIST answers, or its 400's message.
async fn selected(
    server: &EmbeddedServer,
    collection: &str,
    selector: &str,
) -> Result<Result<usize, String>, Box<dyn std::error::Error>> {
    let path = format!("{collection}?fieldSelector={selector}");
    let (code, list) = call(server, "GET", &path, None).await?;
    Ok(match code {
        200 => Ok(list["items"].as_array().map_or(0, Vec::len)),
        400 => Err(list["message"].as_str().unwrap_or_default().to_owned()),
        other => Err(format!("{other}: {list}")),
    })
}

/// Each resource accepts the field selectors kube-apiserver's conversion accepts for its kind
/// (`pkg/apis/core/v1/conversion.go`: Pod, Node, Event, Namespace, Secret, Service; apps/v1
/// registers none; custom resources: `apiextensions-apiserver/pkg/apiserver/conversion/
/// converter.go`), matches them on the values its strategy's `GetAttrs` gives (a node's
/// `spec.unschedulable` as `false` when unset), and refuses the others with the conversion's
/// message (`runtime.DefaultMetaV1FieldSelectorConversion` for kinds without their own).
#[tokio::test]
async fn field_selectors_are_those_kube_apiserver_converts() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, crd) = call(&server, "POST", crds, Some((JSON, scalable_crd()))).await?;
    assert_eq!(code, 201, "{crd}");
    let count = |path: &'static str| selected(&server, path, "");
    let nodes = count("/api/v1/nodes").await??;
    let namespaces = count("/api/v1/namespaces").await??;
    let pods = count("/api/v1/pods").await??;
    let events = count("/api/v1/events").await??;
    let on_node_1 = selected(&server, "/api/v1/pods", "spec.nodeName=node-1").await??;
    assert!(on_node_1 > 0 && on_node_1 < pods, "{on_node_1} of {pods}");
    for (collection, selector, expected) in [
        ("/api/v1/nodes", "spec.unschedulable=false", nodes),
        ("/api/v1/nodes", "spec.unschedulable=true", 0),
        ("/api/v1/namespaces", "status.phase=Active", namespaces),
        ("/api/v1/pods", "spec.hostNetwork=false", pods),
        ("/api/v1/pods", "spec.host=node-1", on_node_1),
        ("/api/v1/pods", "status.podIPs=", pods),
        ("/api/v1/pods", "status.nominatedNodeName=", pods),
        ("/api/v1/services", "spec.clusterIP=10.96.0.1", 1),
        ("/api/v1/events", "source!=x", events),
    ] {
        assert_eq!(
            selected(&server, collection, selector).await?,
            Ok(expected),
            "{collection}?fieldSelector={selector}"
        );
    }
    let not_known = |label: &str| {
        format!(
            "\"{label}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        )
    };
    for (collection, selector, message) in [
        (
            "/api/v1/nodes",
            "metadata.namespace=x",
            "field label not supported: metadata.namespace".to_owned(),
        ),
        (
            "/api/v1/pods",
            "spec.foo=x",
            "field label not supported: spec.foo".to_owned(),
        ),
        ("/api/v1/configmaps", "data.x=y", not_known("data.x")),
        (
            "/apis/apps/v1/replicasets",
            "status.replicas=1",
            not_known("status.replicas"),
        ),
        (
            "/apis/example.com/v1/widgets",
            "spec.size=1",
            "field label not supported: spec.size".to_owned(),
        ),
    ] {
        assert_eq!(
            selected(&server, collection, selector).await?,
            Err(message),
            "{collection}?fieldSelector={selector}"
        );
    }
    Ok(())
}

/// A CRD version's `selectableFields` are field selectors of its resource at that version
/// (`apiextensions-apiserver/pkg/apiserver/conversion/converter.go`, `ConvertFieldLabel`), each
/// object's value the one its JSON path finds, written as Go's `fmt.Sprint` writes it, empty
/// when absent (`registry/customresource/strategy.go`, `selectableFields`).
#[tokio::test]
async fn a_crd_versions_selectable_fields_select() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let mut crd = scalable_crd();
    crd["spec"]["versions"][0]["selectableFields"] =
        json!([{"jsonPath": ".spec.colour"}, {"jsonPath": ".spec.size"}]);
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, created) = call(&server, "POST", crds, Some((JSON, crd))).await?;
    assert_eq!(code, 201, "{created}");
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    for (name, spec) in [
        ("blue", json!({"colour": "blue", "size": 2})),
        ("red", json!({"colour": "red", "size": 3})),
        ("bare", json!({})),
    ] {
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name}, "spec": spec});
        let (code, created) = call(&server, "POST", widgets, Some((JSON, widget))).await?;
        assert_eq!(code, 201, "{created}");
    }
    for (selector, expected) in [
        ("spec.colour=blue", Ok(1)),
        ("spec.colour!=blue", Ok(2)),
        ("spec.colour=", Ok(1)),
        ("spec.size=3", Ok(1)),
        (
            "spec.weight=1",
            Err("field label not supported: spec.weight".to_owned()),
        ),
    ] {
        assert_eq!(
            selected(&server, widgets, selector).await?,
            expected,
            "{selector}"
        );
    }
    let beta = "/apis/example.com/v1beta1/namespaces/default/widgets";
    assert_eq!(
        selected(&server, beta, "spec.colour=blue").await?,
        Err("field label not supported: spec.colour".to_owned()),
        "v1beta1 declares no selectable field"
    );
    Ok(())
}
