//! The groups and subresources served from kube-apiserver's captured discovery, beyond what
//! the conformance corpus compares with the reference server: SubjectAccessReviews of the
//! privileged user, `pods/resize` and `namespaces/finalize` writing only their fields, the
//! subresources a kubelet answers for a pod on a node, and a verb a subresource does not serve.

use serde_json::json;

use crate::support::{JSON, MERGE, TestResult, call, seeded};

#[tokio::test]
async fn a_subject_access_review_allows_the_privileged_group_only() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let review = |spec| {
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": spec})
    };
    let attributes = json!({"verb": "get", "resource": "pods"});
    let masters = review(json!({"user": "bob", "groups": ["system:masters"],
        "resourceAttributes": attributes}));
    let (code, answer) = call(&server, "POST", path, Some((JSON, masters))).await?;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["status"], json!({"allowed": true}));
    let alice = review(json!({"user": "alice", "resourceAttributes": attributes}));
    let (_, answer) = call(&server, "POST", path, Some((JSON, alice))).await?;
    assert_eq!(answer["status"], json!({"allowed": false}));
    let (code, _) = call(&server, "GET", path, None).await?;
    assert_eq!(code, 405, "reviews are created only");
    Ok(())
}

#[tokio::test]
async fn resize_and_finalize_write_only_their_fields() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let pods = "/api/v1/namespaces/default/pods";
    let (code, created) = call(&server, "POST", pods, Some((JSON, pod))).await?;
    assert_eq!(code, 201, "{created}");
    let patch = json!({"metadata": {"labels": {"ignored": "yes"}},
        "spec": {"containers": [{"name": "c", "image": "nginx",
            "resources": {"requests": {"cpu": "100m"}}}]}});
    let (code, resized) = call(
        &server,
        "PATCH",
        &format!("{pods}/p/resize"),
        Some((MERGE, patch)),
    )
    .await?;
    assert_eq!(code, 200, "{resized}");
    assert_eq!(
        resized["spec"]["containers"][0]["resources"],
        json!({"requests": {"cpu": "100m"}})
    );
    assert!(resized["metadata"]["labels"].is_null(), "{resized}");
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fin"}});
    let (code, _) = call(
        &server,
        "POST",
        "/api/v1/namespaces",
        Some((JSON, namespace)),
    )
    .await?;
    assert_eq!(code, 201);
    let finalize = json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "fin", "labels": {"ignored": "yes"}}, "spec": {"finalizers": []}});
    let path = "/api/v1/namespaces/fin/finalize";
    let (code, finalized) = call(&server, "PUT", path, Some((JSON, finalize))).await?;
    assert_eq!(code, 200, "{finalized}");
    assert_eq!(finalized["spec"]["finalizers"], json!([]));
    assert_eq!(finalized["metadata"]["labels"]["ignored"], json!(null));
    let (code, _) = call(&server, "GET", path, None).await?;
    assert_eq!(code, 405, "finalize is update only");
    Ok(())
}

/// log and exec of a pod on a stored node: 500 as kube-apiserver answers when the node's
/// kubelet does not answer (`error dialing backend`), never a 503 a client would retry.
#[tokio::test]
async fn a_pod_on_a_stored_node_answers_as_an_unreachable_kubelet() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
    let (code, _) = call(&server, "POST", "/api/v1/nodes", Some((JSON, node))).await?;
    assert_eq!(code, 201);
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"nodeName": "n1", "containers": [{"name": "a", "image": "nginx"},
            {"name": "b", "image": "nginx"}]}});
    let pods = "/api/v1/namespaces/default/pods";
    let (code, _) = call(&server, "POST", pods, Some((JSON, pod))).await?;
    assert_eq!(code, 201);
    let (code, answer) = call(&server, "GET", &format!("{pods}/p/log"), None).await?;
    assert_eq!(code, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "a container name must be specified for pod p, choose one of: [a b]"
    );
    // A node with no address of a preferred type: kube-apiserver cannot locate its kubelet.
    let (code, answer) = call(&server, "GET", &format!("{pods}/p/log?container=a"), None).await?;
    assert_eq!(code, 500, "{answer}");
    assert_eq!(
        answer["message"],
        "no preferred addresses found; known addresses: []"
    );
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
        "status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 9}}}});
    call(&server, "POST", "/api/v1/nodes", Some((JSON, node))).await?;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"},
        "spec": {"nodeName": "n2", "containers": [{"name": "a", "image": "nginx"}]}});
    call(&server, "POST", pods, Some((JSON, pod))).await?;
    let (code, answer) = call(&server, "GET", &format!("{pods}/q/log"), None).await?;
    assert_eq!(code, 500, "{answer}");
    assert_eq!(
        answer["message"],
        "Get \"https://127.0.0.1:9/containerLogs/default/q/a\": dial tcp 127.0.0.1:9: connect: connection refused"
    );
    let (code, answer) = call(&server, "POST", &format!("{pods}/q/exec?command=ls"), None).await?;
    assert_eq!(code, 500, "{answer}");
    assert_eq!(
        answer["message"],
        "error dialing backend: dial tcp 127.0.0.1:9: connect: connection refused"
    );
    let (code, answer) = call(&server, "GET", "/api/v1/nodes/n1/proxy", None).await?;
    assert_eq!(code, 503, "{answer}");
    let (code, _) = call(&server, "PUT", &format!("{pods}/p/log"), None).await?;
    assert_eq!(code, 405, "log is GET only");
    Ok(())
}
