//! kubectl's imperative commands send protobuf bodies (`application/vnd.kubernetes.protobuf`)
//! for every built-in kind. Each command here runs twice against the embedded server: as it
//! is (protobuf), and as `-o json --dry-run=client` piped through `kubectl create -f` (JSON).
//! Both must succeed and store the same object (masked: uid, creationTimestamp,
//! resourceVersion, managedFields times, status), which proves the generic protobuf decoder
//! yields the JSON kubectl's own Go types write (a template's `creationTimestamp: null`, which
//! kubectl 1.32 writes in JSON, is left out by both paths, as kube-apiserver 1.37 leaves it
//! out).

use base64::Engine;
use serde_json::Value;

use super::{Fixture, path_arg};
use crate::support::TestResult;

/// The commands (the namespace is `shop`, whose Deployment `web` the seed holds), with the
/// kind and name of the object they create.
const COMMANDS: &[(&[&str], &str, &str)] = &[
    (
        &["create", "configmap", "c", "--from-literal=k=v"],
        "configmap",
        "c",
    ),
    (
        &["create", "secret", "generic", "s", "--from-literal=p=pw"],
        "secret",
        "s",
    ),
    (&["create", "serviceaccount", "sa"], "serviceaccount", "sa"),
    (
        &["create", "service", "clusterip", "svc", "--tcp=80:8080"],
        "service",
        "svc",
    ),
    (
        &[
            "create",
            "deployment",
            "d",
            "--image=nginx:1.27",
            "--replicas=2",
        ],
        "deployment",
        "d",
    ),
    (
        &["create", "role", "r", "--verb=get", "--resource=pods"],
        "role",
        "r",
    ),
    (
        &["create", "rolebinding", "rb", "--role=r", "--user=u"],
        "rolebinding",
        "rb",
    ),
    (
        &[
            "create",
            "clusterrole",
            "cr",
            "--verb=get",
            "--resource=pods",
        ],
        "clusterrole",
        "cr",
    ),
    (
        &[
            "create",
            "clusterrolebinding",
            "crb",
            "--clusterrole=cr",
            "--user=u",
        ],
        "clusterrolebinding",
        "crb",
    ),
    (
        &[
            "create",
            "cronjob",
            "c",
            "--image=busybox",
            "--schedule=* * * * *",
        ],
        "cronjob",
        "c",
    ),
    (&["create", "job", "j", "--image=busybox"], "job", "j"),
    (
        &["create", "quota", "q", "--hard=pods=2"],
        "resourcequota",
        "q",
    ),
    (
        &["create", "pdb", "d", "--selector=a=b", "--min-available=1"],
        "poddisruptionbudget",
        "d",
    ),
    (
        &["create", "priorityclass", "high", "--value=1000"],
        "priorityclass",
        "high",
    ),
    (
        &["create", "ingress", "web", "--rule=a.com/=web:80"],
        "ingress",
        "web",
    ),
    (
        &["autoscale", "deployment", "web", "--max=5"],
        "horizontalpodautoscaler",
        "web",
    ),
];

/// `object` without what differs between two creations of the same thing (a Service's
/// allocated cluster IPs included).
fn masked(object: &Value) -> Result<Value, serde_json::Error> {
    let uid = object
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or("no uid");
    let text = serde_json::to_string(object)?.replace(uid, "UID");
    let mut object: Value = serde_json::from_str(&text)?;
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
    }
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("clusterIP");
        spec.remove("clusterIPs");
    }
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for volatile in ["resourceVersion", "creationTimestamp"] {
            metadata.remove(volatile);
        }
        if let Some(Value::Array(entries)) = metadata.get_mut("managedFields") {
            entries
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(|entry| {
                    entry.remove("time");
                });
        }
    }
    Ok(object)
}

/// Creates the object with `args` (protobuf), reads it, deletes it, creates it again from
/// kubectl's client-side JSON (JSON), reads it: both reads, masked.
async fn both_ways(
    fixture: &Fixture,
    args: &[&str],
    kind: &str,
    name: &str,
) -> Result<(Value, Value), Box<dyn std::error::Error>> {
    let mut protobuf = args.to_vec();
    protobuf.extend(["-n", "shop"]);
    let mut client = protobuf.clone();
    client.extend(["-o", "json", "--dry-run=client"]);
    let get = ["get", kind, name, "-o", "json", "-n", "shop"];
    fixture.run(&protobuf).await?;
    let first: Value = serde_json::from_str(&fixture.run(&get).await?)?;
    fixture
        .run(&["delete", kind, name, "-n", "shop", "--wait=true"])
        .await?;
    let manifest = fixture.run(&client).await?;
    let file = fixture.write(&format!("{kind}-{name}.json"), &manifest)?;
    fixture
        .run(&["create", "-f", path_arg(&file)?, "-n", "shop"])
        .await?;
    let second: Value = serde_json::from_str(&fixture.run(&get).await?)?;
    Ok((masked(&first)?, masked(&second)?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_creates_of_every_kind_store_the_same_object_by_protobuf_and_json() -> TestResult {
    let fixture = Fixture::start().await?;
    for (args, kind, name) in COMMANDS {
        let (protobuf, json) = both_ways(&fixture, args, kind, name).await?;
        assert_eq!(protobuf, json, "kubectl {args:?}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_create_token_sends_a_protobuf_token_request() -> TestResult {
    let fixture = Fixture::start().await?;
    fixture.run(&["create", "serviceaccount", "robot"]).await?;
    let token = fixture
        .run(&["create", "token", "robot", "--duration=20m", "--audience=a"])
        .await?;
    let claims = token
        .trim()
        .split('.')
        .nth(1)
        .ok_or_else(|| format!("not a JWT: {token}"))?;
    let claims: Value =
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(claims)?)?;
    assert_eq!(claims["aud"], serde_json::json!(["a"]));
    let lifetime = claims["exp"].as_i64().unwrap_or(0) - claims["iat"].as_i64().unwrap_or(0);
    assert_eq!(lifetime, 1200, "{claims}");
    assert_eq!(claims["sub"], "system:serviceaccount:default:robot");
    Ok(())
}
