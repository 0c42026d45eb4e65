//! The built-in groups beyond core, apps and apiextensions, each against the embedded server:
//! discovery lists them (subresources, verbs, short names, categories), generic storage serves
//! their objects with kube-apiserver's defaults and required fields, and the strategies of
//! their own answer `pods/eviction` against a PodDisruptionBudget, `serviceaccounts/token` and
//! TokenReview, a CSR's `approval`, a ReplicationController's `scale`, ComponentStatuses and
//! `pods/ephemeralcontainers`; kube-runtime's event recorder writes events.k8s.io Events.

use kinformer_apiserver::EmbeddedServer;
use serde_json::{Value, json};

use crate::support::{JSON, TestResult, call, seeded};

/// A server with the system objects only.
async fn server() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    seeded(Vec::new()).await
}

/// The APIResource named `name` of a discovery document.
fn entry<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["resources"]
        .as_array()?
        .iter()
        .find(|r| r["name"] == name)
}

#[tokio::test]
async fn discovery_lists_the_groups_with_subresources_verbs_short_names_and_categories()
-> TestResult {
    let server = server().await?;
    let (code, batch) = call(&server, "GET", "/apis/batch/v1", None).await?;
    assert_eq!(code, 200);
    let jobs = entry(&batch, "jobs").ok_or("no jobs")?;
    assert_eq!(jobs["categories"], json!(["all"]));
    assert_eq!(jobs["storageVersionHash"], "mudhfqk/qZY=");
    assert_eq!(
        entry(&batch, "cronjobs").ok_or("no cronjobs")?["shortNames"],
        json!(["cj"])
    );
    assert!(entry(&batch, "jobs/status").is_some());
    let (_, core) = call(&server, "GET", "/api/v1", None).await?;
    assert!(
        core.get("apiVersion").is_none(),
        "kube-apiserver writes none in /api/v1"
    );
    let eviction = entry(&core, "pods/eviction").ok_or("no pods/eviction")?;
    assert_eq!(
        (&eviction["group"], &eviction["kind"], &eviction["verbs"]),
        (&json!("policy"), &json!("Eviction"), &json!(["create"]))
    );
    let token = entry(&core, "serviceaccounts/token").ok_or("no serviceaccounts/token")?;
    assert_eq!(token["kind"], "TokenRequest");
    assert!(entry(&core, "pods/ephemeralcontainers").is_some());
    assert!(entry(&core, "replicationcontrollers/scale").is_some());
    assert_eq!(
        entry(&core, "componentstatuses").ok_or("no componentstatuses")?["verbs"],
        json!(["get", "list"])
    );
    assert_eq!(
        entry(&core, "namespaces").ok_or("no namespaces")?["verbs"],
        json!([
            "create", "delete", "get", "list", "patch", "update", "watch"
        ])
    );
    let (_, authn) = call(&server, "GET", "/apis/authentication.k8s.io/v1", None).await?;
    assert_eq!(
        entry(&authn, "tokenreviews").ok_or("no tokenreviews")?["verbs"],
        json!(["create"])
    );
    for (path, resource) in [
        ("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings"),
        ("/apis/policy/v1", "poddisruptionbudgets/status"),
        ("/apis/events.k8s.io/v1", "events"),
        (
            "/apis/certificates.k8s.io/v1",
            "certificatesigningrequests/approval",
        ),
        ("/apis/apiregistration.k8s.io/v1", "apiservices/status"),
    ] {
        let (code, list) = call(&server, "GET", path, None).await?;
        assert_eq!(code, 200, "{path}");
        assert!(
            entry(&list, resource).is_some(),
            "{path} lists no {resource}"
        );
    }
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, _) = call(&server, "POST", crds, Some((JSON, crd))).await?;
    assert_eq!(code, 201);
    let (_, widgets) = call(&server, "GET", "/apis/example.com/v1", None).await?;
    assert_eq!(
        entry(&widgets, "widgets").ok_or("no widgets")?["verbs"],
        json!([
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "create",
            "update",
            "watch"
        ]),
        "apiextensions-apiserver's order"
    );
    let (_, groups) = call(&server, "GET", "/apis", None).await?;
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .ok_or("no groups")?
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(
        names[..4],
        [
            "apiregistration.k8s.io",
            "apps",
            "events.k8s.io",
            "authentication.k8s.io"
        ]
    );
    Ok(())
}

/// A Job of one container.
fn job(name: &str, restart_policy: &str) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
        "spec": {"template": {"spec": {"restartPolicy": restart_policy,
            "containers": [{"name": "c", "image": "busybox"}]}}}})
}

#[tokio::test]
async fn jobs_and_cronjobs_are_defaulted_validated_and_have_a_status() -> TestResult {
    let server = server().await?;
    let jobs = "/apis/batch/v1/namespaces/default/jobs";
    let (code, created) = call(&server, "POST", jobs, Some((JSON, job("j1", "Never")))).await?;
    assert_eq!(code, 201, "{created}");
    let uid = created["metadata"]["uid"].as_str().ok_or("no uid")?;
    assert_eq!(created["spec"]["backoffLimit"], 6);
    assert_eq!(created["spec"]["completions"], 1);
    assert_eq!(created["metadata"]["generation"], 1);
    assert_eq!(
        created["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        uid
    );
    assert_eq!(
        created["spec"]["template"]["metadata"]["labels"]["job-name"],
        "j1"
    );
    let (code, refused) = call(&server, "POST", jobs, Some((JSON, job("j2", "Always")))).await?;
    assert_eq!(code, 422, "{refused}");
    assert_eq!(
        refused["details"]["causes"][0]["field"],
        "spec.template.spec.restartPolicy"
    );
    let mut with_status = created.clone();
    with_status["status"] = json!({"active": 1});
    let (code, written) = call(
        &server,
        "PUT",
        &format!("{jobs}/j1/status"),
        Some((JSON, with_status)),
    )
    .await?;
    assert_eq!((code, &written["status"]["active"]), (200, &json!(1)));
    let cronjobs = "/apis/batch/v1/namespaces/default/cronjobs";
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c1"},
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}});
    let (code, created) = call(&server, "POST", cronjobs, Some((JSON, cron))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["concurrencyPolicy"], "Allow");
    assert_eq!(created["spec"]["successfulJobsHistoryLimit"], 3);
    let unscheduled = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "c2"}, "spec": {"jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}});
    let (code, refused) = call(&server, "POST", cronjobs, Some((JSON, unscheduled))).await?;
    assert_eq!(code, 422);
    assert_eq!(refused["details"]["causes"][0]["field"], "spec.schedule");
    Ok(())
}

#[tokio::test]
async fn rbac_objects_are_stored_and_a_binding_needs_its_role_ref() -> TestResult {
    let server = server().await?;
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "r1"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
    let (code, _) = call(
        &server,
        "POST",
        &format!("{rbac}/namespaces/default/roles"),
        Some((JSON, role)),
    )
    .await?;
    assert_eq!(code, 201);
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "b1"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]});
    let (code, _) = call(
        &server,
        "POST",
        &format!("{rbac}/clusterrolebindings"),
        Some((JSON, binding)),
    )
    .await?;
    assert_eq!(code, 201);
    let no_ref = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "b2"}});
    let (code, refused) = call(
        &server,
        "POST",
        &format!("{rbac}/namespaces/default/rolebindings"),
        Some((JSON, no_ref)),
    )
    .await?;
    assert_eq!(code, 422, "{refused}");
    // kube-apiserver's bootstrap Roles live in kube-system and kube-public.
    let (code, roles) = call(
        &server,
        "GET",
        &format!("{rbac}/namespaces/default/roles"),
        None,
    )
    .await?;
    assert_eq!(
        (code, roles["items"].as_array().map(Vec::len)),
        (200, Some(1))
    );
    Ok(())
}

/// Creates pod `name` labelled `app=web` and, when `ready`, makes it Running and Ready.
async fn web_pod(server: &EmbeddedServer, name: &str, ready: bool) -> TestResult {
    let pods = "/api/v1/namespaces/default/pods";
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let (code, mut created) = call(server, "POST", pods, Some((JSON, pod))).await?;
    assert_eq!(code, 201, "{created}");
    if ready {
        created["status"] = json!({"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}]});
        let path = format!("{pods}/{name}/status");
        let (code, _) = call(server, "PUT", &path, Some((JSON, created))).await?;
        assert_eq!(code, 200);
    }
    Ok(())
}

/// POSTs an Eviction of pod `name`.
async fn evict(
    server: &EmbeddedServer,
    name: &str,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": name, "namespace": "default"}});
    let path = format!("/api/v1/namespaces/default/pods/{name}/eviction");
    call(server, "POST", &path, Some((JSON, eviction))).await
}

#[tokio::test]
async fn an_eviction_deletes_the_pod_only_when_its_disruption_budget_allows_it() -> TestResult {
    let server = server().await?;
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}});
    let pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    let (code, created) = call(&server, "POST", pdbs, Some((JSON, pdb))).await?;
    assert_eq!(code, 201);
    assert_eq!(created["status"]["disruptionsAllowed"], 0);
    web_pod(&server, "pending", false).await?;
    let (code, answer) = evict(&server, "pending").await?;
    assert_eq!(
        (code, &answer["status"]),
        (201, &json!("Success")),
        "a pending pod ignores budgets"
    );
    web_pod(&server, "a", true).await?;
    let (code, refused) = evict(&server, "a").await?;
    assert_eq!(code, 429, "{refused}");
    assert_eq!(
        refused["message"],
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        refused["details"]["causes"][0]["message"],
        "The disruption budget web needs 1 healthy pods and has 1 currently"
    );
    web_pod(&server, "b", true).await?;
    let (code, _) = evict(&server, "a").await?;
    assert_eq!(code, 201);
    let (code, _) = call(&server, "GET", "/api/v1/namespaces/default/pods/a", None).await?;
    assert_eq!(code, 404, "the evicted pod is gone");
    let (_, budget) = call(&server, "GET", &format!("{pdbs}/web"), None).await?;
    assert_eq!(budget["status"]["disruptionsAllowed"], 0);
    assert!(
        budget["status"]["disruptedPods"]["a"].is_string(),
        "{budget}"
    );
    let (code, _) = evict(&server, "b").await?;
    assert_eq!(code, 429);
    let (code, _) = evict(&server, "nope").await?;
    assert_eq!(code, 404);
    Ok(())
}

#[tokio::test]
async fn a_token_request_answers_a_signed_token_that_token_review_accepts() -> TestResult {
    let server = server().await?;
    let account =
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa1"}});
    let (code, account) = call(
        &server,
        "POST",
        "/api/v1/namespaces/default/serviceaccounts",
        Some((JSON, account)),
    )
    .await?;
    assert_eq!(code, 201);
    let request = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "spec": {"audiences": ["example"], "expirationSeconds": 1200}});
    let path = "/api/v1/namespaces/default/serviceaccounts/sa1/token";
    let (code, answer) = call(&server, "POST", path, Some((JSON, request))).await?;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["spec"]["expirationSeconds"], 1200);
    let token = answer["status"]["token"].as_str().ok_or("no token")?;
    assert_eq!(token.split('.').count(), 3, "a compact JWS");
    let review = |token: &str, audiences: Value| {
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {"token": token, "audiences": audiences}})
    };
    let reviews = "/apis/authentication.k8s.io/v1/tokenreviews";
    let (code, reviewed) = call(
        &server,
        "POST",
        reviews,
        Some((JSON, review(token, json!(["example"])))),
    )
    .await?;
    assert_eq!(code, 201);
    assert_eq!(reviewed["status"]["authenticated"], true, "{reviewed}");
    assert_eq!(
        reviewed["status"]["user"]["username"],
        "system:serviceaccount:default:sa1"
    );
    assert_eq!(
        reviewed["status"]["user"]["uid"],
        account["metadata"]["uid"]
    );
    let (_, wrong_audience) = call(
        &server,
        "POST",
        reviews,
        Some((JSON, review(token, json!(["other"])))),
    )
    .await?;
    assert_eq!(wrong_audience["status"]["error"], "invalid bearer token");
    let own = server.token().ok_or("no server token")?.to_owned();
    let (_, admin) = call(
        &server,
        "POST",
        reviews,
        Some((JSON, review(&own, json!([])))),
    )
    .await?;
    assert_eq!(admin["status"]["user"]["username"], "admin");
    let short = json!({"spec": {"expirationSeconds": 60}});
    let (code, _) = call(&server, "POST", path, Some((JSON, short))).await?;
    assert_eq!(code, 422);
    let (code, _) = call(&server, "GET", reviews, None).await?;
    assert_eq!(code, 405, "TokenReviews are create-only");
    Ok(())
}

#[tokio::test]
async fn a_csr_is_approved_through_its_approval_subresource() -> TestResult {
    let server = server().await?;
    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let csr = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr1"},
        "spec": {"request": "LS0tLS1CRUdJTg==", "signerName": "example.com/signer",
            "usages": ["client auth"]}});
    let (code, mut created) = call(&server, "POST", csrs, Some((JSON, csr))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["username"], "admin");
    created["status"] = json!({"conditions": [{"type": "Approved", "status": "True",
        "reason": "Test", "message": "ok"}]});
    let (code, approved) = call(
        &server,
        "PUT",
        &format!("{csrs}/csr1/approval"),
        Some((JSON, created)),
    )
    .await?;
    assert_eq!(code, 200, "{approved}");
    assert_eq!(approved["status"]["conditions"][0]["type"], "Approved");
    assert!(approved["status"]["conditions"][0]["lastUpdateTime"].is_string());
    let unsigned = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr2"}, "spec": {"request": "LS0t", "usages": ["client auth"]}});
    let (code, _) = call(&server, "POST", csrs, Some((JSON, unsigned))).await?;
    assert_eq!(code, 422);
    Ok(())
}

#[tokio::test]
async fn replication_controllers_scale_and_component_statuses_are_read_only() -> TestResult {
    let server = server().await?;
    let rcs = "/api/v1/namespaces/default/replicationcontrollers";
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc1"},
        "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "rc"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
    let (code, created) = call(&server, "POST", rcs, Some((JSON, rc))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["selector"], json!({"app": "rc"}));
    assert_eq!(created["status"], json!({"replicas": 0}));
    let (code, scale) = call(&server, "GET", &format!("{rcs}/rc1/scale"), None).await?;
    assert_eq!(code, 200);
    assert_eq!(
        (&scale["spec"]["replicas"], &scale["status"]["selector"]),
        (&json!(2), &json!("app=rc"))
    );
    let (code, list) = call(&server, "GET", "/api/v1/componentstatuses", None).await?;
    assert_eq!(code, 200);
    let names: Vec<&str> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["controller-manager", "etcd-0", "scheduler"]);
    assert_eq!(list["items"][2]["conditions"][0]["status"], "False");
    let (code, _) = call(
        &server,
        "POST",
        "/api/v1/componentstatuses",
        Some((JSON, json!({}))),
    )
    .await?;
    assert_eq!(code, 405);
    Ok(())
}

#[tokio::test]
async fn ephemeral_containers_are_written_through_their_subresource() -> TestResult {
    let server = server().await?;
    web_pod(&server, "p", false).await?;
    let path = "/api/v1/namespaces/default/pods/p/ephemeralcontainers";
    let (code, mut pod) = call(&server, "GET", path, None).await?;
    assert_eq!(code, 200);
    pod["spec"]["ephemeralContainers"] = json!([{"name": "debug", "image": "busybox"}]);
    let (code, written) = call(&server, "PUT", path, Some((JSON, pod))).await?;
    assert_eq!(code, 200, "{written}");
    assert_eq!(written["spec"]["ephemeralContainers"][0]["name"], "debug");
    Ok(())
}

#[tokio::test]
async fn kube_runtimes_event_recorder_records_an_events_k8s_io_event() -> TestResult {
    use k8s_openapi::api::core::v1::ObjectReference;
    use kube::runtime::events::{Event, EventType, Recorder, Reporter};
    let server = server().await?;
    let client = crate::support::client(server.kube_config())?;
    let recorder = Recorder::new(
        client,
        Reporter {
            controller: "groups-test".into(),
            instance: None,
        },
    );
    let reference = ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Namespace".into()),
        name: Some("default".into()),
        ..ObjectReference::default()
    };
    let event = Event {
        type_: EventType::Normal,
        reason: "Tested".into(),
        note: Some("recorded through kube-runtime".into()),
        action: "Test".into(),
        secondary: None,
    };
    recorder.publish(&event, &reference).await?;
    recorder.publish(&event, &reference).await?;
    let (code, events) = call(&server, "GET", "/apis/events.k8s.io/v1/events", None).await?;
    assert_eq!(code, 200);
    let items = events["items"].as_array().ok_or("no items")?;
    assert_eq!(items.len(), 1, "{events}");
    assert_eq!(items[0]["reason"], "Tested");
    assert_eq!(items[0]["reportingController"], "groups-test");
    assert_eq!(
        items[0]["series"]["count"], 2,
        "the second publish patched the series"
    );
    Ok(())
}

#[tokio::test]
async fn each_served_group_version_has_its_local_api_service() -> TestResult {
    let server = server().await?;
    let services = "/apis/apiregistration.k8s.io/v1/apiservices";
    let (code, apps) = call(&server, "GET", &format!("{services}/v1.apps"), None).await?;
    assert_eq!(code, 200, "{apps}");
    assert_eq!(
        apps["spec"],
        json!({"group": "apps", "version": "v1",
        "groupPriorityMinimum": 17800, "versionPriority": 15})
    );
    assert_eq!(apps["status"]["conditions"][0]["reason"], "Local");
    let (code, list) = call(&server, "GET", services, None).await?;
    assert_eq!(code, 200);
    let names: Vec<&str> = list["items"]
        .as_array()
        .ok_or("no items")?
        .iter()
        .filter_map(|s| s["metadata"]["name"].as_str())
        .collect();
    assert!(
        names.contains(&"v1.") && names.contains(&"v1.batch"),
        "{names:?}"
    );
    Ok(())
}

/// Runs kubectl against `server` with a private kubeconfig and cache; its stdout.
async fn kubectl(
    server: &EmbeddedServer,
    dir: &std::path::Path,
    args: &[&str],
) -> Result<String, Box<dyn std::error::Error>> {
    let kubeconfig = dir.join("kubeconfig");
    server.write_kubeconfig(&kubeconfig)?;
    let output = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        tokio::process::Command::new(crate::support::kubectl_binary()?)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await??;
    if !output.status.success() {
        return Err(format!(
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8(output.stdout)?)
}

/// The header line's column names of kubectl's table output.
fn header(output: &str) -> Vec<&str> {
    output
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect()
}

#[tokio::test]
async fn kubectl_gets_jobs_cronjobs_pdbs_and_roles_with_a_clusters_columns() -> TestResult {
    let server = server().await?;
    let dir = tempfile::tempdir()?;
    let (code, _) = call(
        &server,
        "POST",
        "/apis/batch/v1/namespaces/default/jobs",
        Some((JSON, job("j1", "Never"))),
    )
    .await?;
    assert_eq!(code, 201);
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c1"},
        "spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}});
    let (code, _) = call(
        &server,
        "POST",
        "/apis/batch/v1/namespaces/default/cronjobs",
        Some((JSON, cron)),
    )
    .await?;
    assert_eq!(code, 201);
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p1"},
        "spec": {"maxUnavailable": "50%", "selector": {}}});
    let (code, _) = call(
        &server,
        "POST",
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        Some((JSON, pdb)),
    )
    .await?;
    assert_eq!(code, 201);
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r1"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
    let (code, _) = call(
        &server,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        Some((JSON, role)),
    )
    .await?;
    assert_eq!(code, 201);
    let jobs = kubectl(&server, dir.path(), &["get", "jobs", "-o", "wide"]).await?;
    assert_eq!(
        header(&jobs),
        [
            "NAME",
            "STATUS",
            "COMPLETIONS",
            "DURATION",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert!(
        jobs.lines().nth(1).is_some_and(|row| row.starts_with("j1")
            && row.contains("Running")
            && row.contains("0/1")),
        "{jobs}"
    );
    let cronjobs = kubectl(&server, dir.path(), &["get", "cj"]).await?;
    assert_eq!(
        header(&cronjobs),
        [
            "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"
        ]
    );
    assert!(cronjobs.contains("@hourly"), "{cronjobs}");
    let pdbs = kubectl(&server, dir.path(), &["get", "pdb"]).await?;
    assert_eq!(
        header(&pdbs),
        [
            "NAME",
            "MIN",
            "AVAILABLE",
            "MAX",
            "UNAVAILABLE",
            "ALLOWED",
            "DISRUPTIONS",
            "AGE"
        ]
    );
    assert!(
        pdbs.lines()
            .nth(1)
            .is_some_and(|row| row.split_whitespace().take(4).eq(["p1", "N/A", "50%", "0"])),
        "{pdbs}"
    );
    let roles = kubectl(&server, dir.path(), &["get", "roles"]).await?;
    assert_eq!(header(&roles), ["NAME", "CREATED", "AT"]);
    let all = kubectl(
        &server,
        dir.path(),
        &["get", "jobs,cronjobs,pdb,roles", "-o", "name"],
    )
    .await?;
    assert_eq!(
        all.lines().collect::<Vec<_>>(),
        [
            "job.batch/j1",
            "cronjob.batch/c1",
            "poddisruptionbudget.policy/p1",
            "role.rbac.authorization.k8s.io/r1"
        ]
    );
    Ok(())
}
