//! The fast path of a replace (`splice`) against the general one (`replace_value` of the parsed
//! body): for the same current object and body, both store the same bytes at the same
//! resourceVersion with the same selectable fields and watch line, or fail with the same error.

use std::sync::Arc;

use bytes::Bytes;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::objects::StoredObject;
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::{EventType, Store};
use crate::write::Target;
use crate::write::registry::{named_object, replace_in, replace_value};

/// What one write left behind.
#[derive(Debug, PartialEq)]
struct Outcome {
    rv: u64,
    bytes: Bytes,
    name: String,
    namespace: String,
    labels: Vec<Option<String>>,
    fields: Vec<Option<String>>,
    event: Option<(EventType, Bytes)>,
    current: Option<Bytes>,
}

/// Label keys every outcome is asked about.
const LABELS: [&str; 5] = ["app", "tier", "bench-step", "a\"b", "é"];

/// Every selectable field of any resource.
const FIELDS: [&str; 9] = [
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "type",
    "involvedObject.kind",
];

fn resource(store: &Store, plural: &str) -> Arc<ResourceType> {
    let registry = store.registry();
    registry
        .find("", "v1", plural)
        .or_else(|| registry.find("apps", "v1", plural))
        .unwrap_or_else(|| unreachable!("{plural} are built in"))
}

/// A store holding `object` as given (server metadata included) at resourceVersion 2.
fn store_with(plural: &str, object: &Value) -> Store {
    let store = Store::new(100);
    let resource = resource(&store, plural);
    let stored = store.write(|txn| txn.put(&resource, object.clone()));
    assert!(stored.is_ok(), "{stored:?}");
    store
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "web-1", "namespace": "prod", "generateName": "web-",
            "uid": "6f1f3b0e-0000-4000-8000-000000000001",
            "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 3,
            "labels": {"app": "web", "tier": "backend"},
            "annotations": {"note": "a \"quoted\" note"},
            "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {"k:{\"type\":\"Ready\"}": {}}}}],
            "ownerReferences": [{"kind": "ReplicaSet", "name": "web", "uid": "0"}]
        },
        "spec": {"nodeName": "node-1", "restartPolicy": "Always", "containers": [{"name": "app", "image": "nginx"}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1"}
    })
}

/// `pod()` as a client would PUT it: no server metadata.
fn pod_body() -> Value {
    let mut body = pod();
    if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in ["uid", "creationTimestamp", "generation", "resourceVersion"] {
            metadata.remove(key);
        }
    }
    body
}

fn outcome(
    store: &Store,
    written: Result<Arc<StoredObject>, ApiError>,
    before: u64,
) -> Result<Outcome, ApiError> {
    let object = written?;
    let text = |t: Option<&str>| t.map(str::to_owned);
    let event = store
        .subscribe_after(before)
        .ok()
        .and_then(|s| s.backlog.last().map(|e| (e.event_type, e.line().clone())));
    let current = store
        .get(&resource(store, "pods").key(), &object.key())
        .or_else(|| store.get(&resource(store, "namespaces").key(), &object.key()))
        .or_else(|| store.get(&resource(store, "deployments").key(), &object.key()))
        .map(|o| o.bytes.clone());
    Ok(Outcome {
        rv: object.rv,
        bytes: object.bytes.clone(),
        name: object.name().to_owned(),
        namespace: object.namespace().to_owned(),
        labels: LABELS.iter().map(|k| text(object.label(k))).collect(),
        fields: FIELDS.iter().map(|f| text(object.field(f))).collect(),
        event,
        current,
    })
}

/// Replaces `namespace/name` of `plural` in two stores holding `object`: through the PUT path
/// (spliced when it can be) and through the general path. Both outcomes, and whether the PUT
/// path spliced.
fn both(
    plural: &str,
    object: &Value,
    target: (&str, &str, bool),
    body: &[u8],
) -> (Result<Outcome, ApiError>, Result<Outcome, ApiError>, bool) {
    let (namespace, name, status_only) = target;
    let run = |general: bool| {
        let store = store_with(plural, object);
        let resource = resource(&store, plural);
        let target = Target {
            resource: &resource,
            namespace,
            name,
            status_only,
        };
        let before = store.resource_version();
        let written = store.write(|txn| {
            if general {
                let value = named_object(body, name)?;
                replace_value(txn, &target, value)
            } else {
                replace_in(txn, &target, body)
            }
        });
        let spliced = written.as_ref().is_ok_and(|o| o.has_layout());
        (outcome(&store, written, before), spliced)
    };
    let (put, spliced) = run(false);
    let (general, _) = run(true);
    (put, general, spliced)
}

fn canonical(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Asserts the PUT path spliced `body` into `object` exactly as the general path stores it.
fn assert_spliced(object: &Value, body: &Value) -> Outcome {
    let (put, general, spliced) = both("pods", object, ("prod", "web-1", false), &canonical(body));
    assert_eq!(put, general);
    assert!(spliced, "the fast path was not taken");
    put.unwrap_or_else(|e| unreachable!("{e:?}"))
}

/// Asserts both paths agree on `body` (no matter which path the PUT took).
fn assert_same(object: &Value, target: (&str, &str, bool), body: &[u8]) {
    let (put, general, _) = both("pods", object, target, body);
    assert_eq!(put, general);
}

fn generation(outcome: &Outcome) -> Option<i64> {
    let value: Value = serde_json::from_slice(&outcome.bytes).ok()?;
    value.pointer("/metadata/generation")?.as_i64()
}

#[test]
fn a_label_and_status_update_is_spliced_with_the_server_metadata_kept() {
    let mut body = pod_body();
    body["metadata"]["labels"]["bench-step"] = json!("7");
    body["status"]["phase"] = json!("Pending");
    let outcome = assert_spliced(&pod(), &body);
    assert_eq!(outcome.rv, 3);
    assert_eq!(generation(&outcome), None, "pods have no generation");
    assert_eq!(outcome.labels[2].as_deref(), Some("7"));
    assert_eq!(outcome.fields[5].as_deref(), Some("Pending"));
    let (kind, line) = outcome.event.unwrap_or((EventType::Added, Bytes::new()));
    assert_eq!(kind, EventType::Modified);
    assert!(line.starts_with(br#"{"type":"MODIFIED","object":{"apiVersion""#));
}

#[test]
fn a_spec_change_bumps_the_generation_once_where_there_is_one() {
    let mut body = pod_body();
    body["spec"]["nodeName"] = json!("node-2");
    let outcome = assert_spliced(&pod(), &body);
    assert_eq!(generation(&outcome), None);
    assert_eq!(outcome.fields[2].as_deref(), Some("node-2"));
    let as_deployment = |mut value: Value| {
        value["apiVersion"] = json!("apps/v1");
        value["kind"] = json!("Deployment");
        value
    };
    let target = ("prod", "web-1", false);
    let body = canonical(&as_deployment(body));
    let (put, general, spliced) = both("deployments", &as_deployment(pod()), target, &body);
    assert_eq!(put, general);
    assert!(spliced, "the fast path was not taken");
    assert_eq!(put.ok().as_ref().and_then(generation), Some(4));
}

#[test]
fn what_the_client_sets_of_the_server_metadata_is_overridden() {
    let mut body = pod_body();
    let metadata = &mut body["metadata"];
    metadata["creationTimestamp"] = json!(null);
    metadata["generation"] = json!(99);
    metadata["deletionTimestamp"] = json!("2026-01-02T00:00:00Z");
    metadata["deletionGracePeriodSeconds"] = json!(5);
    metadata["namespace"] = json!("elsewhere");
    metadata["resourceVersion"] = json!("2");
    assert_spliced(&pod(), &body);
}

/// Another object's uid is a failed precondition (409) on both paths, never overridden.
#[test]
fn another_uid_is_a_conflict_on_both_paths() {
    let mut body = pod_body();
    body["metadata"]["uid"] = json!("forged");
    let (put, general, _) = both("pods", &pod(), ("prod", "web-1", false), &canonical(&body));
    assert_eq!(put, general);
    assert!(put.is_err_and(|e| e.code == 409));
}

#[test]
fn metadata_keys_around_the_server_ones_keep_their_order() {
    let mut body = pod_body();
    for key in ["a", "d", "gz", "n", "r", "u", "zz", "creationTimestamq"] {
        body["metadata"][key] = json!({"k": [1, -2.5, "x"]});
    }
    assert_spliced(&pod(), &body);
    let mut bare = pod_body();
    bare["metadata"] = json!({"name": "web-1"});
    assert_spliced(&pod(), &bare);
}

#[test]
fn escapes_and_unicode_read_the_same() {
    let mut body = pod_body();
    body["metadata"]["labels"] = json!({"a\"b": "c\\d\n", "é": "ü"});
    body["status"]["podIP"] = json!("10.0.0.\u{1}");
    let outcome = assert_spliced(&pod(), &body);
    assert_eq!(outcome.labels[3].as_deref(), Some("c\\d\n"));
}

#[test]
fn conflicts_and_bad_names_fail_the_same() {
    for (key, value) in [
        ("resourceVersion", json!("1")),
        ("name", json!("other")),
        ("name", json!(7)),
        ("labels", json!({"app": 1})),
        ("labels", json!(null)),
    ] {
        let mut body = pod_body();
        body["metadata"][key] = value;
        assert_same(&pod(), ("prod", "web-1", false), &canonical(&body));
    }
    let mut nameless = pod_body();
    if let Some(metadata) = nameless["metadata"].as_object_mut() {
        metadata.remove("name");
    }
    assert_same(&pod(), ("prod", "web-1", false), &canonical(&nameless));
    assert_same(&pod(), ("prod", "missing", false), &canonical(&pod_body()));
    assert_same(&pod(), ("prod", "web-1", false), b"{\"metadata\":");
}

#[test]
fn type_meta_is_checked_and_filled_the_same() {
    for (kind, api_version) in [("Service", "v1"), ("Pod", "v2"), ("Pod", "apps/v1")] {
        let mut body = pod_body();
        body["kind"] = json!(kind);
        body["apiVersion"] = json!(api_version);
        assert_same(&pod(), ("prod", "web-1", false), &canonical(&body));
    }
    let mut untyped = pod_body();
    if let Some(object) = untyped.as_object_mut() {
        object.remove("kind");
    }
    assert_same(&pod(), ("prod", "web-1", false), &canonical(&untyped));
}

#[test]
fn other_json_and_other_targets_take_the_general_path() {
    let body = pod_body();
    let pretty = serde_json::to_vec_pretty(&body).unwrap_or_default();
    assert_same(&pod(), ("prod", "web-1", false), &pretty);
    assert_same(&pod(), ("prod", "web-1", true), &canonical(&body));
    let reordered = br#"{"metadata":{"name":"web-1"},"kind":"Pod","apiVersion":"v1"}"#;
    assert_same(&pod(), ("prod", "web-1", false), reordered);
}

#[test]
fn a_pending_deletion_is_finished_or_kept_the_same() {
    let mut deleting = pod();
    deleting["metadata"]["deletionTimestamp"] = json!("2026-01-02T00:00:00Z");
    deleting["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let mut keep = pod_body();
    keep["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_same(&deleting, ("prod", "web-1", false), &canonical(&keep));
    assert_same(&deleting, ("prod", "web-1", false), &canonical(&pod_body()));
}

#[test]
fn equal_specs_written_differently_do_not_bump_the_generation() {
    let mut object = pod();
    object["spec"]["priority"] = json!(0.0);
    let mut body = pod_body();
    body["spec"]["priority"] = json!(-0.0);
    object["apiVersion"] = json!("apps/v1");
    object["kind"] = json!("Deployment");
    body["apiVersion"] = json!("apps/v1");
    body["kind"] = json!("Deployment");
    let (put, general, spliced) = both(
        "deployments",
        &object,
        ("prod", "web-1", false),
        &canonical(&body),
    );
    assert_eq!(put, general);
    assert!(spliced, "the fast path was not taken");
    assert_eq!(put.ok().as_ref().and_then(generation), Some(3));
}

#[test]
fn cluster_scoped_objects_are_spliced_unless_given_a_namespace() {
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "prod", "uid": "u", "creationTimestamp": "t", "labels": {"a": "b"}},
        "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
    let mut body = namespace.clone();
    body["metadata"]["labels"]["a"] = json!("c");
    let (put, general, spliced) = both(
        "namespaces",
        &namespace,
        ("", "prod", false),
        &canonical(&body),
    );
    assert_eq!(put, general);
    assert!(spliced);
    body["metadata"]["namespace"] = json!("default");
    let (put, general, _) = both(
        "namespaces",
        &namespace,
        ("", "prod", false),
        &canonical(&body),
    );
    assert_eq!(put, general);
}

#[test]
fn a_spliced_object_is_spliced_again_from_its_own_layout() {
    let store = store_with("pods", &pod());
    let resource = resource(&store, "pods");
    let target = Target::object(&resource, "prod", "web-1");
    for step in 0..3 {
        let mut body = pod_body();
        body["metadata"]["labels"]["bench-step"] = json!(step.to_string());
        let written = store.write(|txn| replace_in(txn, &target, &canonical(&body)));
        assert!(written.is_ok_and(|o| o.has_layout()));
    }
    let stored = store.get(&resource.key(), "prod/web-1");
    let value: Option<Value> = stored.and_then(|o| serde_json::from_slice(&o.bytes).ok());
    let value = value.unwrap_or_default();
    assert_eq!(
        value.pointer("/metadata/resourceVersion"),
        Some(&json!("5"))
    );
    assert_eq!(
        value.pointer("/metadata/labels/bench-step"),
        Some(&json!("2"))
    );
    assert_eq!(
        value.pointer("/metadata/uid"),
        Some(&json!("6f1f3b0e-0000-4000-8000-000000000001"))
    );
}

/// Metadata members clients send, some of them the server's own.
fn metadata_member() -> impl Strategy<Value = (String, Value)> {
    let key = prop::sample::select(vec![
        "a",
        "annotations",
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "generation",
        "labels",
        "namespace",
        "resourceVersion",
        "uid",
        "zz",
    ]);
    let value = prop_oneof![
        Just(json!(null)),
        any::<i64>().prop_map(Value::from),
        "[a-z0-9\"\\\\é\\x01]{0,6}".prop_map(Value::from),
        prop::collection::btree_map("[a-c\"]{1,2}", "[a-z\\\\]{0,3}", 0..3).prop_map(|m| json!(m)),
    ];
    (key.prop_map(str::to_owned), value)
}

proptest! {
    #[test]
    fn both_paths_agree_on_any_body(
        members in prop::collection::vec(metadata_member(), 0..6),
        node in prop::option::of("[a-z0-9-]{1,8}"),
        phase in "[A-Za-z]{0,8}",
        pretty in any::<bool>(),
    ) {
        let mut body = pod_body();
        for (key, value) in members {
            body["metadata"][key] = value;
        }
        if let Some(node) = node {
            body["spec"]["nodeName"] = json!(node);
        }
        body["status"]["phase"] = json!(phase);
        let bytes = if pretty {
            serde_json::to_vec_pretty(&body).unwrap_or_default()
        } else {
            canonical(&body)
        };
        let (put, general, _) = both("pods", &pod(), ("prod", "web-1", false), &bytes);
        prop_assert_eq!(put, general);
    }
}
