//! What the write paths answer, compared with kube-apiserver 1.37 (issue 38): a pod's
//! `generation` and the graceful DELETE's answer, a template's metadata without
//! `creationTimestamp`, the answer of the update that removes the last finalizer,
//! `remainingItemCount`, the decoder's messages for a body it cannot decode or place, a CRD's
//! create answer, the manager of what kube-apiserver creates itself, a custom resource's Scale
//! without a selector. Each test names the kube-apiserver source it follows.

use serde_json::{Value, json};

use crate::support::{JSON, MERGE, TestResult, call, raw, seeded};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

/// A pod is created at generation 1 (`registry/core/pod/strategy.go`, `PrepareForCreate`); a
/// DELETE of a pod on no node answers it marked — `deletionTimestamp`,
/// `deletionGracePeriodSeconds: 0`, the next generation — and removes it.
#[tokio::test]
async fn pods_carry_a_generation_and_are_deleted_gracefully() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let path = "/api/v1/namespaces/default/pods";
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let (code, created) = call(&server, "POST", path, Some((JSON, pod))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["generation"], 1, "{created}");
    let (code, deleted) = call(&server, "DELETE", &format!("{path}/p1"), None).await?;
    assert_eq!(code, 200, "{deleted}");
    let metadata = &deleted["metadata"];
    assert_eq!(metadata["generation"], 2, "{deleted}");
    assert_eq!(metadata["deletionGracePeriodSeconds"], 0, "{deleted}");
    assert!(metadata["deletionTimestamp"].is_string(), "{deleted}");
    let (code, _) = call(&server, "GET", &format!("{path}/p1"), None).await?;
    assert_eq!(code, 404);
    Ok(())
}

/// A pod template's metadata has no `creationTimestamp` (ObjectMeta's is `omitzero` since
/// 1.35): a Deployment's `spec.template.metadata` is what was sent.
#[tokio::test]
async fn templates_have_no_null_creation_timestamp() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let (code, created) = call(&server, "POST", path, Some((JSON, deployment))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["template"]["metadata"],
        json!({"labels": {"app": "web"}})
    );
    Ok(())
}

/// The update that removes a deleted object's last finalizer answers the object as updated —
/// without its finalizers — and the object is gone (`registry/generic/registry/store.go`).
#[tokio::test]
async fn removing_the_last_finalizer_answers_the_updated_object() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let held = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]}});
    call(&server, "POST", CONFIGMAPS, Some((JSON, held))).await?;
    let object = format!("{CONFIGMAPS}/held");
    let (code, marked) = call(&server, "DELETE", &object, None).await?;
    assert_eq!(code, 200, "{marked}");
    let patch = json!({"metadata": {"finalizers": null}});
    let (code, answer) = call(&server, "PATCH", &object, Some((MERGE, patch))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["metadata"].get("finalizers"), None, "{answer}");
    assert!(
        answer["metadata"]["deletionTimestamp"].is_string(),
        "{answer}"
    );
    assert_eq!(call(&server, "GET", &object, None).await?.0, 404);
    // The update is never stored: a watch sees the object deleted as it was stored, its
    // finalizer still there (`store.go:845`, `errEmptiedFinalizers`), and no MODIFIED.
    let since = marked["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("0");
    let watch = format!("{CONFIGMAPS}?watch=1&timeoutSeconds=1&resourceVersion={since}");
    let (_, events) = raw(&server, "GET", &watch, None).await?;
    let events: Vec<Value> = events
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "DELETED");
    assert_eq!(
        events[0]["object"]["metadata"]["finalizers"],
        json!(["example.com/hold"])
    );
    Ok(())
}

/// A limited LIST without selectors says how many items follow (`remainingItemCount`); with a
/// selector it does not (`storage/cacher`, `pred.Empty()`).
#[tokio::test]
async fn limited_lists_count_the_remaining_items() -> TestResult {
    let server = seeded(Vec::new()).await?;
    for name in ["c1", "c2", "c3"] {
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"l": "v"}}});
        call(&server, "POST", CONFIGMAPS, Some((JSON, map))).await?;
    }
    let (_, page) = call(&server, "GET", &format!("{CONFIGMAPS}?limit=1"), None).await?;
    assert_eq!(page["metadata"]["remainingItemCount"], 2, "{page}");
    let selected = format!("{CONFIGMAPS}?limit=1&labelSelector=l%3Dv");
    let (_, page) = call(&server, "GET", &selected, None).await?;
    assert!(page["metadata"]["continue"].is_string(), "{page}");
    assert_eq!(page["metadata"].get("remainingItemCount"), None, "{page}");
    let (_, last) = call(&server, "GET", &format!("{CONFIGMAPS}?limit=5"), None).await?;
    assert_eq!(last["metadata"].get("remainingItemCount"), None, "{last}");
    Ok(())
}

/// One raw POST to the ConfigMaps: the code and the Status message.
async fn post_raw(body: &str) -> Result<(u16, String), Box<dyn std::error::Error>> {
    let server = seeded(Vec::new()).await?;
    let client = crate::support::client(server.kube_config())?;
    let request = http::Request::builder()
        .method("POST")
        .uri(CONFIGMAPS)
        .header(http::header::CONTENT_TYPE, JSON)
        .body(body.as_bytes().to_vec())?;
    let response = client.send(request.map(Into::into)).await?;
    let code = response.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    let status: Value = serde_json::from_slice(&bytes)?;
    Ok((
        code,
        status["message"].as_str().unwrap_or_default().to_owned(),
    ))
}

/// Bodies the decoder refuses get kube-apiserver's messages (`endpoints/handlers/rest.go`,
/// `transformDecodeError`): malformed JSON, another kind, an apiVersion the resource is not
/// served in (400, not created).
#[tokio::test]
async fn undecodable_bodies_get_the_decoders_messages() -> TestResult {
    let cases = [
        (
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"#,
            r#"the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)"#,
        ),
        (
            r#"{"a":x}"#,
            r#"the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value ({"a":x})"#,
        ),
        (
            r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"wrong"}}"#,
            r#"Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion"#,
        ),
        (
            r#"{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"wrong"}}"#,
            r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111""#,
        ),
    ];
    for (body, message) in cases {
        assert_eq!(post_raw(body).await?, (400, message.to_owned()), "{body}");
    }
    Ok(())
}

/// A CRD's create is answered before its controllers ran: one managedFields entry (its
/// creator's), `acceptedNames` empty, `conditions` null; the stored CRD is then established
/// (a `kube-apiserver` status entry).
#[tokio::test]
async fn a_crd_is_answered_as_created_then_established() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": schema,
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                    "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}}}]}});
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, created) = call(&server, "POST", path, Some((JSON, crd))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["status"],
        json!({"conditions": null, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": ["v1"]})
    );
    assert_eq!(
        created["metadata"]["managedFields"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let (_, stored) = call(&server, "GET", &format!("{path}/gadgets.example.com"), None).await?;
    let managers: Vec<&Value> = stored["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| &e["manager"])
        .collect();
    assert_eq!(managers.len(), 2, "{stored}");
    assert_eq!(stored["status"]["acceptedNames"]["kind"], "Gadget");
    // The controllers' status entry owns each condition, not the list, which the created
    // CRD had already (`conditions: null`), as on kube-apiserver (golden
    // `22-create-customresourcedefinitions`).
    let conditions = stored["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["subresource"] == "status")
        .map(|e| e["fieldsV1"]["f:status"]["f:conditions"].clone())
        .ok_or("a status entry")?;
    assert!(conditions.get(".").is_none(), "{conditions}");
    assert!(
        conditions.get(r#"k:{"type":"Established"}"#).is_some(),
        "{conditions}"
    );
    // The Scale of an object without a selector at labelSelectorPath has none (`omitempty`).
    let gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g"}, "spec": {"replicas": 2}});
    let (code, created) = call(&server, "POST", gadgets, Some((JSON, gadget))).await?;
    assert_eq!(code, 201, "{created}");
    let (code, scale) = call(&server, "GET", &format!("{gadgets}/g/scale"), None).await?;
    assert_eq!(code, 200, "{scale}");
    assert_eq!(scale["status"], json!({"replicas": 0}), "{scale}");
    Ok(())
}

/// What kube-apiserver creates itself (the system namespaces, `default/kubernetes`) is
/// recorded as the `kube-apiserver` field manager's.
#[tokio::test]
async fn system_objects_are_managed_by_kube_apiserver() -> TestResult {
    let server = seeded(Vec::new()).await?;
    for path in [
        "/api/v1/namespaces/default",
        "/api/v1/namespaces/kube-system",
        "/api/v1/namespaces/default/services/kubernetes",
    ] {
        let (_, object) = call(&server, "GET", path, None).await?;
        assert_eq!(
            object["metadata"]["managedFields"][0]["manager"], "kube-apiserver",
            "{path}: {object}"
        );
    }
    Ok(())
}

/// A write through `scale` records its managedFields entry without a `time`, first, as
/// kube-apiserver's scale handler does (`fieldmanager.NewScaleHandler`).
#[tokio::test]
async fn scale_writes_record_an_entry_without_a_time() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    call(&server, "POST", path, Some((JSON, deployment))).await?;
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": 3}});
    let (code, answer) = call(
        &server,
        "PUT",
        &format!("{path}/web/scale"),
        Some((JSON, scale)),
    )
    .await?;
    assert_eq!(code, 200, "{answer}");
    let (_, stored) = call(&server, "GET", &format!("{path}/web"), None).await?;
    let entry = &stored["metadata"]["managedFields"][0];
    assert_eq!(entry["subresource"], "scale", "{stored}");
    assert_eq!(entry.get("time"), None, "{stored}");
    assert!(
        stored["metadata"]["managedFields"][1]["time"].is_string(),
        "{stored}"
    );
    Ok(())
}

/// A request without credentials is `system:anonymous`'s, which RBAC refuses with 403
/// (apiserver `pkg/endpoints/handlers/responsewriters/errors.go:60`); a wrong token is 401.
#[tokio::test]
async fn anonymous_requests_are_forbidden_and_wrong_tokens_unauthorized() -> TestResult {
    let server = kinformer_apiserver::EmbeddedServer::start(kinformer_apiserver::ServerConfig {
        auth: true,
        ..kinformer_apiserver::ServerConfig::default()
    })
    .await?;
    let mut config = server.kube_config();
    config.auth_info = Default::default();
    let anonymous = crate::support::client(config)?;
    let (code, status) = crate::support::call_with(&anonymous, "GET", CONFIGMAPS, None).await?;
    assert_eq!(code, 403, "{status}");
    assert_eq!(
        status["message"],
        "configmaps is forbidden: User \"system:anonymous\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\""
    );
    let mut config = server.kube_config();
    config.auth_info.token = Some("wrong".to_owned().into());
    let wrong = crate::support::client(config)?;
    let (code, _) = crate::support::call_with(&wrong, "GET", CONFIGMAPS, None).await?;
    assert_eq!(code, 401);
    Ok(())
}

/// A CSR is approved by a PATCH of its `approval` subresource too (discovery advertises
/// `get,patch,update`), and an ephemeral container added by strategic merge patch joins the
/// others, merged by name (`pods/ephemeralcontainers`).
#[tokio::test]
async fn approval_and_ephemeral_containers_take_patches() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let pods = "/api/v1/namespaces/default/pods";
    call(&server, "POST", pods, Some((JSON, pod))).await?;
    let path = format!("{pods}/p/ephemeralcontainers");
    let strategic = "application/strategic-merge-patch+json";
    for name in ["e1", "e2"] {
        let patch = json!({"spec": {"ephemeralContainers": [{"name": name, "image": "busybox"}]}});
        let (code, answer) = call(&server, "PATCH", &path, Some((strategic, patch))).await?;
        assert_eq!(code, 200, "{answer}");
    }
    let (_, stored) = call(&server, "GET", &format!("{pods}/p"), None).await?;
    let names: Vec<&str> = stored["spec"]["ephemeralContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["e2", "e1"], "{stored}");

    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let request = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIUU1IZ0NBUUF3RmpFVU1CSUdBMVVFQXd3TFkyOXVabTl5YldGdVkyVXdXVEFUQmdjcWhrak9QUUlCQmdncQpoa2pPUFFNQkJ3TkNBQVRoM2tvTlo5ZHJtVkpQWEs5cVpQUi9xcGF6SzNFWUdqY0N5R01qOTNyK1ZwR2lpdG82Cm1TV2VvcFdPc1dyYURRQVpBeUxjUHhyS0pLNWNmcWNmVTJSdm9BQXdDZ1lJS29aSXpqMEVBd0lEU0FBd1JRSWgKQVBCR2tWK1ZnblRLNEhIUGZCTDF4YUY0NHdRRitHU1YzODBZeFFraUdSTTVBaUJpRGZkRHpNOXF6SW5RSkhiOAprbVc3VlZhVmZzU0ZYVUhkTEJZbWlUVHdQdz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "c"}, "spec": {"request": request, "signerName": "example.com/signer",
            "usages": ["client auth"]}});
    let (code, created) = call(&server, "POST", csrs, Some((JSON, csr))).await?;
    assert_eq!(code, 201, "{created}");
    let approve = json!({"status": {"conditions": [{"type": "Approved", "status": "True",
        "reason": "Test", "message": "by PATCH"}]}});
    let (code, approved) = call(
        &server,
        "PATCH",
        &format!("{csrs}/c/approval"),
        Some((MERGE, approve)),
    )
    .await?;
    assert_eq!(code, 200, "{approved}");
    assert_eq!(
        approved["status"]["conditions"][0]["type"], "Approved",
        "{approved}"
    );
    Ok(())
}
