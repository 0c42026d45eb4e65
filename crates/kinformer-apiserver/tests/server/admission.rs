//! Pod admission as kube-apiserver's default plugins apply it, through HTTP writes: the
//! ServiceAccount plugin (`plugin/pkg/admission/serviceaccount/admission.go`: `Admit`,
//! `shouldAutomount`, `mountServiceAccountToken`, `TokenVolumeSource`), DefaultTolerationSeconds
//! (`plugin/pkg/admission/defaulttolerationseconds/admission.go`) and Priority
//! (`plugin/pkg/admission/priority/admission.go`: `admitPod`), after the field manager recorded
//! the writer (`apiserver/pkg/endpoints/handlers/create.go`), so no manager owns what they add.

use crate::support::{JSON, MERGE, TestResult, call, seeded};
use kinformer_apiserver::{EmbeddedServer, Seed};
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";
const TOKEN_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

fn pod(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

/// POSTs `pod` to the default namespace: the status code and the answer.
async fn create(
    server: &EmbeddedServer,
    pod: Value,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    call(server, "POST", PODS, Some((JSON, pod))).await
}

fn container(name: &str) -> Value {
    json!({"name": name, "image": "busybox:1.36"})
}

/// The names of the volumes each container of `list` mounts at the token path.
fn token_mounts(pod: &Value, list: &str) -> Vec<String> {
    pod["spec"][list]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            c["volumeMounts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["mountPath"] == TOKEN_PATH)
                .map(|m| m["name"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

/// The field paths (`f:...` keys, nested with `.`) the only managedFields entry owns.
fn owned_fields(pod: &Value) -> String {
    pod["metadata"]["managedFields"][0]["fieldsV1"].to_string()
}

/// `kubectl run`'s pod on a cluster: the `default` account, one `kube-api-access-XXXXX`
/// projected volume (defaulted: `defaultMode: 420`) mounted read-only in every init and app
/// container, the two 300 s NoExecute tolerations, priority 0 with `PreemptLowerPriority`; the
/// writer's managedFields entry owns none of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_created_pod_gets_its_account_token_tolerations_and_priority() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let spec = json!({"initContainers": [container("init")],
                      "containers": [container("app"), container("sidecar")]});
    let (code, stored) = create(&server, pod("p", spec)).await?;
    assert_eq!(code, 201, "{stored}");
    let spec = &stored["spec"];
    assert_eq!(spec["serviceAccountName"], "default");
    assert_eq!(spec["serviceAccount"], "default", "the v1 alias");
    let volumes = spec["volumes"].as_array().ok_or("no volumes")?;
    assert_eq!(volumes.len(), 1, "{volumes:?}");
    let name = volumes[0]["name"].as_str().unwrap_or("");
    let suffix = name.strip_prefix("kube-api-access-").ok_or(name)?;
    assert_eq!(suffix.len(), 5, "{name}");
    assert!(
        suffix
            .bytes()
            .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
        "{name}"
    );
    assert_eq!(
        volumes[0]["projected"],
        json!({"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace",
                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
        ]})
    );
    assert_eq!(token_mounts(&stored, "initContainers"), [name]);
    assert_eq!(token_mounts(&stored, "containers"), [name, name]);
    assert_eq!(
        spec["containers"][0]["volumeMounts"][0],
        json!({"mountPath": TOKEN_PATH, "name": name, "readOnly": true})
    );
    assert_eq!(
        spec["tolerations"],
        json!([
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
        ])
    );
    assert_eq!(spec["priority"], 0);
    assert_eq!(spec["preemptionPolicy"], "PreemptLowerPriority");
    let owned = owned_fields(&stored);
    for admitted in [
        "f:serviceAccount",
        "f:volumes",
        "f:volumeMounts",
        "f:tolerations",
        "f:priority",
        "f:preemptionPolicy",
    ] {
        assert!(
            !owned.contains(&format!("\"{admitted}\"")),
            "{admitted} owned: {owned}"
        );
    }
    Ok(())
}

/// `shouldAutomount`: the pod's `automountServiceAccountToken: false` wins; else a stored
/// account's; an account's `imagePullSecrets` are copied to a pod that has none; a container
/// that already mounts the token path and a volume already named `kube-api-access-*` are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_follows_the_pod_and_its_account() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let opted_out =
        json!({"automountServiceAccountToken": false, "containers": [container("app")]});
    let (_, stored) = create(&server, pod("own", opted_out)).await?;
    assert_eq!(stored["spec"]["serviceAccountName"], "default");
    assert!(stored["spec"].get("volumes").is_none(), "{stored}");
    assert_eq!(token_mounts(&stored, "containers"), [""]);

    let account = json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "robot"}, "automountServiceAccountToken": false,
        "imagePullSecrets": [{"name": "registry"}]});
    let accounts = "/api/v1/namespaces/default/serviceaccounts";
    let (code, body) = call(&server, "POST", accounts, Some((JSON, account))).await?;
    assert_eq!(code, 201, "{body}");
    let spec = json!({"serviceAccountName": "robot", "containers": [container("app")]});
    let (_, stored) = create(&server, pod("robot", spec)).await?;
    assert!(stored["spec"].get("volumes").is_none(), "{stored}");
    assert_eq!(
        stored["spec"]["imagePullSecrets"],
        json!([{"name": "registry"}])
    );
    assert_eq!(stored["spec"]["serviceAccount"], "robot");
    let pod_says = json!({"serviceAccountName": "robot", "automountServiceAccountToken": true,
                          "imagePullSecrets": [{"name": "mine"}], "containers": [container("app")]});
    let (_, stored) = create(&server, pod("pod-says", pod_says)).await?;
    assert_eq!(stored["spec"]["volumes"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        stored["spec"]["imagePullSecrets"],
        json!([{"name": "mine"}])
    );

    let mut mounted = container("mounted");
    mounted["volumeMounts"] = json!([{"name": "own-token", "mountPath": TOKEN_PATH}]);
    let spec = json!({
        "volumes": [{"name": "own-token", "emptyDir": {}}, {"name": "kube-api-access-given", "emptyDir": {}}],
        "containers": [mounted, container("plain")]
    });
    let (_, stored) = create(&server, pod("kept", spec)).await?;
    assert_eq!(
        token_mounts(&stored, "containers"),
        ["own-token", "kube-api-access-given"]
    );
    assert_eq!(stored["spec"]["volumes"].as_array().map(Vec::len), Some(2));
    Ok(())
}

/// DefaultTolerationSeconds adds only what the pod does not tolerate: a key-less `Exists`
/// toleration tolerates every taint; a `NoSchedule` toleration of not-ready does not tolerate
/// its NoExecute taint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_tolerations_fill_only_what_is_not_tolerated() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let all = json!({"tolerations": [{"operator": "Exists"}], "containers": [container("app")]});
    let (_, stored) = create(&server, pod("all", all)).await?;
    assert_eq!(
        stored["spec"]["tolerations"],
        json!([{"operator": "Exists"}])
    );
    let unreachable_only = json!({"tolerations": [
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}
    ], "containers": [container("app")]});
    let (_, stored) = create(&server, pod("some", unreachable_only)).await?;
    let keys: Vec<(&str, &str)> = stored["spec"]["tolerations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["key"].as_str().unwrap_or(""),
                t["effect"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("node.kubernetes.io/unreachable", "NoExecute"),
            ("node.kubernetes.io/not-ready", "NoSchedule"),
            ("node.kubernetes.io/not-ready", "NoExecute")
        ]
    );
    Ok(())
}

/// Priority: a built-in system class's value; an unknown class, or a priority or preemption
/// policy the pod gives that differs from its class's, is `403 Forbidden` with the plugin's
/// words; an update that leaves the fields out keeps them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn priority_comes_from_the_class_and_survives_updates() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let critical =
        json!({"priorityClassName": "system-node-critical", "containers": [container("app")]});
    let (code, stored) = create(&server, pod("critical", critical)).await?;
    assert_eq!(code, 201, "{stored}");
    assert_eq!(stored["spec"]["priority"], 2_000_001_000);
    assert_eq!(stored["spec"]["preemptionPolicy"], "PreemptLowerPriority");

    let refused = [
        (
            json!({"priorityClassName": "gold", "containers": [container("app")]}),
            "pods \"p\" is forbidden: no PriorityClass with name gold was found",
        ),
        (
            json!({"priority": 7, "containers": [container("app")]}),
            "pods \"p\" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name",
        ),
        (
            json!({"preemptionPolicy": "Never", "containers": [container("app")]}),
            "pods \"p\" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name",
        ),
    ];
    for (spec, message) in refused {
        let (code, status) = create(&server, pod("p", spec)).await?;
        assert_eq!(
            (code, status["reason"].as_str()),
            (403, Some("Forbidden")),
            "{status}"
        );
        assert_eq!(status["message"], message);
    }
    let (code, _) = call(&server, "GET", &format!("{PODS}/p"), None).await?;
    assert_eq!(code, 404, "a refused pod was stored");

    let mut replaced = stored.clone();
    for field in ["priority", "preemptionPolicy", "tolerations"] {
        replaced["spec"]
            .as_object_mut()
            .ok_or("spec")?
            .remove(field);
    }
    replaced["metadata"]["labels"] = json!({"edited": "yes"});
    let path = format!("{PODS}/critical");
    let (code, updated) = call(&server, "PUT", &path, Some((JSON, replaced))).await?;
    assert_eq!(code, 200, "{updated}");
    for field in ["priority", "preemptionPolicy", "tolerations"] {
        assert_eq!(updated["spec"][field], stored["spec"][field], "{field}");
    }
    let (code, patched) = call(
        &server,
        "PATCH",
        &path,
        Some((MERGE, json!({"spec": {"priority": null}}))),
    )
    .await?;
    assert_eq!(code, 200, "{patched}");
    assert_eq!(patched["spec"]["priority"], 2_000_001_000);
    Ok(())
}

/// Mirror pods (the kubelet's `kubernetes.io/config.mirror` annotation) are not given an account
/// or a token, and may not name an account.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirror_pods_get_no_account() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let mirror = |name: &str, spec: Value| {
        let mut pod = pod(name, spec);
        pod["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "hash"});
        pod
    };
    let spec = json!({"containers": [container("app")]});
    let (code, stored) = create(&server, mirror("static", spec)).await?;
    assert_eq!(code, 201, "{stored}");
    assert!(
        stored["spec"].get("serviceAccountName").is_none(),
        "{stored}"
    );
    assert!(stored["spec"].get("volumes").is_none(), "{stored}");
    assert_eq!(
        stored["spec"]["tolerations"].as_array().map(Vec::len),
        Some(2)
    );
    let named = json!({"serviceAccountName": "default", "containers": [container("app")]});
    let (code, status) = create(&server, mirror("named", named)).await?;
    assert_eq!(code, 403, "{status}");
    assert_eq!(
        status["message"],
        "pods \"named\" is forbidden: a mirror pod may not reference service accounts"
    );
    Ok(())
}

/// DefaultTolerationSeconds runs on updates too: a pod stored without the tolerations (seeded
/// directly, past admission) gains them on a PUT that only changes a label — the replace fast
/// path, which does not parse the object, leaves such a pod to the general path — and the next
/// label change keeps the spec as it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_adds_the_tolerations_a_stored_pod_lacks() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let spec = json!({"containers": [container("app")]});
    let mut bare = pod("bare", spec);
    bare["metadata"]["namespace"] = json!("default");
    bare["metadata"]["labels"] = json!({"step": "0"});
    server.seed_objects([bare])?;
    let path = format!("{PODS}/bare");
    let (_, stored) = call(&server, "GET", &path, None).await?;
    assert!(stored["spec"].get("tolerations").is_none(), "{stored}");
    let mut relabelled = stored.clone();
    relabelled["metadata"]["labels"] = json!({"step": "1"});
    let (code, updated) = call(&server, "PUT", &path, Some((JSON, relabelled))).await?;
    assert_eq!(code, 200, "{updated}");
    assert_eq!(
        updated["spec"]["tolerations"].as_array().map(Vec::len),
        Some(2)
    );
    let mut again = updated.clone();
    again["metadata"]["labels"] = json!({"step": "2"});
    let (code, twice) = call(&server, "PUT", &path, Some((JSON, again))).await?;
    assert_eq!(code, 200, "{twice}");
    assert_eq!(twice["spec"], updated["spec"]);
    assert_eq!(twice["metadata"]["labels"], json!({"step": "2"}));
    Ok(())
}
