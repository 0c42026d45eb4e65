//! The fast path stores what the general path stores: each case replaces an object through
//! the general path ([`replace_value`]) in a dry run, then through [`replace`] for real, and
//! compares the two objects (resourceVersion and managedFields' times masked: the dry run
//! answers the current resourceVersion, and both write the clock's second), their labels,
//! selectable fields and LIST items. Bodies the fast path must not take are checked to fall
//! through untouched.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{MapChange, common_prefix, common_suffix, replace, same_value, string_pairs};
use crate::json::managed_entries::entries;
use crate::json::members::{Member, members};
use crate::objects::StoredObject;
use crate::resources::ResourceType;
use crate::seed::synthetic_pod;
use crate::store::Store;
use crate::write::direct::create_object;
use crate::write::managed::Writer;
use crate::write::registry::{named_object, replace_value};
use crate::write::target::Target;

/// A store holding `object`, created by the library's writer.
fn store_with(object: &Value) -> Store {
    let store = Store::new(100);
    let created = create_object(&store, object.clone());
    assert!(created.is_ok(), "seeded: {created:?}");
    store
}

fn resource(store: &Store, plural: &str) -> std::sync::Arc<ResourceType> {
    let registry = store.registry();
    ["v1", "apps/v1"]
        .iter()
        .find_map(|gv| {
            let (group, version) = gv.split_once('/').unwrap_or(("", gv));
            registry.find(group, version, plural)
        })
        .unwrap_or_else(|| panic!("{plural} is served"))
}

/// The stored object as JSON.
fn stored(store: &Store, plural: &str, name: &str) -> Value {
    let resource = resource(store, plural);
    let object = store
        .get(&resource.key(), &format!("default/{name}"))
        .unwrap_or_else(|| panic!("{name} is stored"));
    serde_json::from_slice(&object.bytes).unwrap_or(Value::Null)
}

/// `object` with its resourceVersion and each managedFields entry's time masked.
fn masked(bytes: &[u8]) -> Value {
    let mut value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    value["metadata"]["resourceVersion"] = json!("RV");
    if let Some(entries) = value
        .pointer_mut("/metadata/managedFields")
        .and_then(Value::as_array_mut)
    {
        for entry in entries {
            entry["time"] = json!("T");
        }
    }
    value
}

/// What one path stored: the object, and every label and selectable field it answers.
fn observed(object: &StoredObject, labels: &[&str], fields: &[&str]) -> (Value, Vec<String>) {
    let mut texts: Vec<String> = labels
        .iter()
        .map(|k| format!("label {k}={:?}", object.label(k)))
        .collect();
    texts.extend(
        fields
            .iter()
            .map(|f| format!("field {f}={:?}", object.field(f))),
    );
    let mut item = Vec::new();
    object.write_list_item(&mut item);
    texts.push(format!("item {:?}", masked(&item)));
    (masked(&object.bytes), texts)
}

/// Replaces `object` (stored in a new store) with the stored object changed by `edit`, by
/// `manager`, through both paths; asserts the fast path took it and both made the same object.
fn same_through_both(object: &Value, plural: &str, edit: impl FnOnce(&mut Value), manager: &str) {
    let store = store_with(object);
    same_in(&store, object, plural, edit, manager);
}

/// [`same_through_both`] in `store`, which holds `object`.
fn same_in(
    store: &Store,
    object: &Value,
    plural: &str,
    edit: impl FnOnce(&mut Value),
    manager: &str,
) -> std::sync::Arc<StoredObject> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let mut sent = stored(store, plural, name);
    let original = sent.clone();
    edit(&mut sent);
    let body = serde_json::to_vec(&sent).unwrap_or_default();
    let resource = resource(store, plural);
    let target = Target {
        writer: Writer {
            manager,
            subresource: "",
        },
        ..Target::object(&resource, "default", name)
    };
    let general = store.transaction(true, |txn| {
        let value = named_object(&body, name)?;
        replace_value(txn, &target, value)
    });
    let before = store.resource_version();
    let fast = store.write(|txn| Ok(replace(txn, &target, &body)));
    let (Ok(Some(fast)), Ok(general)) = (fast, general) else {
        panic!("the fast path took the replace and the general path stored it");
    };
    // An edit that changes nothing is written by neither path (kube-apiserver skips a write
    // of the stored bytes); any other is written once.
    let unchanged = sent == original;
    assert_eq!(fast.rv, if unchanged { general.rv } else { before + 1 });
    let layout = fast
        .type_meta()
        .metadata()
        .and_then(|m| members(&fast.bytes, m));
    assert_eq!(
        fast.metadata_members().map(<[Member]>::to_vec),
        layout,
        "the layout it wrote"
    );
    if let Some(carried) = fast.managed_entries_read() {
        let managed = fast.metadata_value(b"managedFields");
        assert_eq!(
            Some(carried),
            managed.and_then(entries).as_deref(),
            "the managedFields entries it wrote"
        );
    }
    let mut labels: Vec<String> = [object, &sent]
        .iter()
        .filter_map(|o| o.pointer("/metadata/labels").and_then(Value::as_object))
        .flat_map(|m| m.keys().cloned())
        .collect();
    labels.push("absent".to_owned());
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let fields = [
        "spec.nodeName",
        "status.phase",
        "status.podIP",
        "metadata.name",
    ];
    assert_eq!(
        observed(&fast, &labels, &fields),
        observed(&general, &labels, &fields)
    );
    fast
}

/// The stored `object` changed by `edit`, as a body in the server's member order (as client-go
/// writes it back).
fn edited(store: &Store, object: &Value, plural: &str, edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let mut body = stored(store, plural, name);
    edit(&mut body);
    crate::json::type_meta::serialise(&body, false).0
}

fn pod() -> Value {
    let mut pod = synthetic_pod("default", 3);
    pod["metadata"]["name"] = json!("web-1");
    pod
}

fn deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
}

fn configmap() -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"}, "data": {"a": "1"}})
}

/// A named edit of a body.
type Edit = (&'static str, Box<dyn Fn(&mut Value)>);

#[test]
fn label_and_annotation_edits_store_what_the_general_path_stores() {
    let edits: Vec<Edit> = vec![
        (
            "label changed",
            Box::new(|b| b["metadata"]["labels"]["app"] = json!("other")),
        ),
        (
            "label added",
            Box::new(|b| b["metadata"]["labels"]["step"] = json!("1")),
        ),
        (
            "label removed",
            Box::new(|b| {
                drop(
                    b["metadata"]["labels"]
                        .as_object_mut()
                        .map(|l| l.remove("tier")),
                )
            }),
        ),
        (
            "annotation added",
            Box::new(|b| b["metadata"]["annotations"]["x/y"] = json!("z")),
        ),
        (
            "annotation removed",
            Box::new(|b| {
                drop(
                    b["metadata"]["annotations"]
                        .as_object_mut()
                        .map(|a| a.remove("prometheus.io/scrape")),
                )
            }),
        ),
        (
            "both maps",
            Box::new(|b| {
                b["metadata"]["labels"]["step"] = json!("2");
                b["metadata"]["annotations"]["note"] = json!("\"quoted\" \u{e9}");
            }),
        ),
        ("nothing", Box::new(|_| {})),
        (
            "server-owned members left out",
            Box::new(|b| {
                b["metadata"]["labels"]["step"] = json!("3");
                for key in [
                    "resourceVersion",
                    "uid",
                    "creationTimestamp",
                    "managedFields",
                ] {
                    b["metadata"].as_object_mut().map(|m| m.remove(key));
                }
            }),
        ),
    ];
    for (what, edit) in &edits {
        for manager in [
            "kinformer-apiserver",
            "kube-controller-manager",
            "someone-else",
        ] {
            eprintln!("pod: {what} by {manager}");
            same_through_both(&pod(), "pods", |b| edit(b), manager);
        }
    }
}

#[test]
fn consecutive_replaces_read_the_layout_the_last_one_wrote() {
    let store = store_with(&pod());
    for step in 0..4 {
        let edit = |b: &mut Value| {
            b["metadata"]["labels"]["step"] = json!(step.to_string());
            if step == 2 {
                b["metadata"]["annotations"]["long"] = json!("x".repeat(300));
            }
        };
        let written = same_in(&store, &pod(), "pods", edit, "kinformer-apiserver");
        assert!(
            written.managed_entries_read().is_some(),
            "step {step}: the managedFields entries are carried, not scanned again"
        );
    }
}

#[test]
fn other_kinds_store_what_the_general_path_stores() {
    let step = |b: &mut Value| b["metadata"]["labels"]["step"] = json!("1");
    same_through_both(&deployment(), "deployments", step, "kubectl-label");
    same_through_both(&configmap(), "configmaps", |_| {}, "kubectl-replace");
}

/// A Deployment's annotations move its generation (deployment `strategy.go:120`): a replace
/// that changes them takes the general path, which moves it; one that changes its labels only
/// stays on the fast path.
#[test]
fn a_deployments_annotations_take_the_general_path() {
    let deployment = deployment();
    let store = store_with(&deployment);
    let body = edited(&store, &deployment, "deployments", |b| {
        b["metadata"]["annotations"] = json!({"note": "x"});
    });
    let resource = resource(&store, "deployments");
    let target = Target::object(&resource, "default", "web");
    let fast = store.write(|txn| Ok(replace(txn, &target, &body)));
    assert!(matches!(fast, Ok(None)), "the fast path refused it");
    let general = store.write(|txn| {
        let value = named_object(&body, "web")?;
        replace_value(txn, &target, value)
    });
    assert!(general.is_ok(), "{general:?}");
    assert_eq!(
        stored(&store, "deployments", "web")["metadata"]["generation"],
        2
    );
    let body = edited(&store, &deployment, "deployments", |b| {
        b["metadata"]["annotations"]["note"] = json!("y");
    });
    let fast = store.write(|txn| Ok(replace(txn, &target, &body)));
    assert!(matches!(fast, Ok(None)), "a changed annotation too");
}

/// Whether the fast path takes `body` as a replace of the pod in `store` (`status` when a
/// status write); asserts a refused body stored nothing.
fn taken(store: &Store, body: &[u8], status_only: bool) -> bool {
    let resource = resource(store, "pods");
    let before = store.resource_version();
    let target = Target {
        status_only,
        ..Target::object(&resource, "default", "web-1")
    };
    let taken = store
        .write(|txn| Ok(replace(txn, &target, body)))
        .ok()
        .flatten()
        .is_some();
    if !taken {
        assert_eq!(
            store.resource_version(),
            before,
            "a refused body stores nothing"
        );
    }
    taken
}

#[test]
fn everything_else_takes_the_general_path() {
    let pod = pod();
    let store = store_with(&pod);
    let body = |edit: &dyn Fn(&mut Value)| edited(&store, &pod, "pods", |b| edit(b));
    let refused: Vec<(&str, Vec<u8>)> = vec![
        (
            "spec changed",
            body(&|b| b["spec"]["nodeName"] = json!("elsewhere")),
        ),
        (
            "status changed",
            body(&|b| b["status"]["phase"] = json!("Failed")),
        ),
        (
            "label not a string",
            body(&|b| b["metadata"]["labels"]["n"] = json!(1)),
        ),
        (
            "stale resourceVersion",
            body(&|b| b["metadata"]["resourceVersion"] = json!("1")),
        ),
        (
            "another uid",
            body(&|b| b["metadata"]["uid"] = json!("other")),
        ),
        (
            "finalizer added",
            body(&|b| b["metadata"]["finalizers"] = json!(["x"])),
        ),
        (
            "labels left out",
            body(&|b| drop(b["metadata"].as_object_mut().map(|m| m.remove("labels")))),
        ),
        (
            "namespace left out",
            body(&|b| drop(b["metadata"].as_object_mut().map(|m| m.remove("namespace")))),
        ),
        ("kind changed", body(&|b| b["kind"] = json!("Node"))),
        ("not JSON", b"{\"apiVersion\":".to_vec()),
        ("not JSON, in server order", b"{\"kind\":".to_vec()),
    ];
    for (what, body) in refused {
        assert!(!taken(&store, &body, false), "{what}");
    }
    let unchanged = body(&|_| {});
    assert!(!taken(&store, &unchanged, true), "a status write");
    let text = String::from_utf8_lossy(&unchanged).into_owned();
    let escaped = text.replacen("\"tier\"", "\"\\u0074ier\"", 1);
    assert!(
        !taken(&store, escaped.as_bytes(), false),
        "a label key not as serde_json writes it"
    );
    let duplicated = text.replacen("\"tier\":", "\"tier\":\"x\",\"tier\":", 1);
    assert!(
        !taken(&store, duplicated.as_bytes(), false),
        "a duplicated label"
    );
    assert!(taken(&store, &unchanged, false));
    type Write = fn(&Value) -> serde_json::Result<Vec<u8>>;
    let writers: [(&str, Write); 2] = [
        ("pretty-printed", |v| serde_json::to_vec_pretty(v)),
        ("keys sorted", |v| serde_json::to_vec(v)),
    ];
    for (what, write) in writers {
        let rewritten = write(&stored(&store, "pods", "web-1")).unwrap_or_default();
        assert!(
            taken(&store, &rewritten, false),
            "{what}: rewritten in server order"
        );
    }
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}});
    let store = store_with(&namespace);
    let body =
        serde_json::to_vec(&stored_cluster(&store, "namespaces", "team")).unwrap_or_default();
    let resource = resource(&store, "namespaces");
    let target = Target::object(&resource, "", "team");
    let taken = store
        .write(|txn| Ok(replace(txn, &target, &body)))
        .ok()
        .flatten();
    assert!(taken.is_none(), "namespaces default a label");
}

fn stored_cluster(store: &Store, plural: &str, name: &str) -> Value {
    let resource = resource(store, plural);
    let object = store.get(&resource.key(), name);
    object.map_or(Value::Null, |o| {
        serde_json::from_slice(&o.bytes).unwrap_or(Value::Null)
    })
}

#[test]
fn a_dry_run_answers_the_object_and_stores_nothing() {
    let pod = pod();
    let store = store_with(&pod);
    let resource = resource(&store, "pods");
    let before = stored(&store, "pods", "web-1");
    let rv = store.resource_version();
    let body = edited(&store, &pod, "pods", |b| {
        b["metadata"]["labels"]["step"] = json!("1");
    });
    let target = Target::object(&resource, "default", "web-1");
    let answered = store.transaction(true, |txn| Ok(replace(txn, &target, &body)));
    let Ok(Some(answered)) = answered else {
        panic!("the fast path answers a dry run");
    };
    assert_eq!(answered.rv, rv);
    assert_eq!(answered.label("step"), Some("1"));
    assert_eq!(store.resource_version(), rv);
    assert_eq!(stored(&store, "pods", "web-1"), before);
}

fn label_key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("app".to_owned()),
        Just("tier".to_owned()),
        Just("pod-template-hash".to_owned()),
        "[a-z]{1,3}(/[a-z]{1,3})?",
    ]
}

/// A map's pairs as owned strings, and whether each was read in place.
fn pairs_of(map: &str) -> Option<Vec<(String, String, bool)>> {
    let pairs = string_pairs(map.as_bytes())?;
    Some(
        pairs
            .into_iter()
            .map(|(k, v)| {
                let borrowed = matches!(k, std::borrow::Cow::Borrowed(_));
                (k.into_owned(), v.into_owned(), borrowed)
            })
            .collect(),
    )
}

#[test]
fn string_maps_are_read_in_place_unless_escaped_and_only_as_serde_writes_them() {
    let plain = pairs_of(r#"{"a":"1","b":"é x"}"#);
    let expected = vec![
        ("a".to_owned(), "1".to_owned(), true),
        ("b".to_owned(), "é x".to_owned(), true),
    ];
    assert_eq!(plain, Some(expected));
    assert_eq!(pairs_of("{}"), Some(Vec::new()));
    let wide = vec![("é".to_owned(), "ü€".to_owned(), true)];
    assert_eq!(pairs_of(r#"{"é":"ü€"}"#), Some(wide));
    // Escapes are parsed (and must be serde_json's own); a key written without one is still
    // borrowed (the in-place managedFields edit writes only borrowed keys: annotation values
    // such as kubectl's last-applied-configuration are full of escapes, keys never are).
    let escaped = pairs_of(r#"{"a":"x\"y\n","b\"c":"1"}"#);
    let expected = vec![
        ("a".to_owned(), "x\"y\n".to_owned(), true),
        ("b\"c".to_owned(), "1".to_owned(), false),
    ];
    assert_eq!(escaped, Some(expected));
    for odd in [
        r#"{"b":"1","a":"2"}"#,
        r#"{"a":"1","a":"2"}"#,
        r#"{"a":1}"#,
        r#"{"a": "1"}"#,
        r#"{"a":"\u0041"}"#,
        r#"{"a":"x\/y"}"#,
        r#"["a"]"#,
        "{\"a\":\"x\u{1}y\"}",
    ] {
        assert_eq!(pairs_of(odd), None, "{odd}");
    }
}

#[test]
fn a_map_change_names_the_keys_added_or_changed_and_removed_in_order() {
    let stored = br#"{"a":"1","b":"2","c":"3","e":"5"}"#;
    let given = br#"{"a":"1","b":"9","d":"4","e":"5","f":"6"}"#;
    let change = MapChange::of("labels", stored, given).expect("a string map");
    assert_eq!(change.changed, ["b", "d", "f"]);
    assert_eq!(change.removed, ["c"]);
    let same = MapChange::of("labels", stored, stored).expect("a string map");
    assert!(same.changed.is_empty() && same.removed.is_empty());
}

proptest! {
    /// The block and word comparisons count what a byte-at-a-time one counts, wherever the
    /// first difference falls and whatever the lengths.
    #[test]
    fn common_ends_are_counted_byte_for_byte(
        a in proptest::collection::vec(0u8..3, 0..40),
        b in proptest::collection::vec(0u8..3, 0..40),
        before in 0usize..600,
        after in 0usize..600,
    ) {
        let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
        prop_assert_eq!(common_prefix(&a, &b), prefix);
        prop_assert_eq!(common_suffix(&a, &b), suffix);
        let long = |v: &[u8]| [&vec![7u8; before][..], v, &vec![9u8; after][..]].concat();
        let (long_a, long_b) = (long(&a), long(&b));
        let whole = (a == b).then_some(long_a.len());
        prop_assert_eq!(common_prefix(&long_a, &long_b), whole.unwrap_or(before + prefix));
        prop_assert_eq!(common_suffix(&long_a, &long_b), whole.unwrap_or(after + suffix));
        prop_assert_eq!(common_prefix(&long_a, &long_a), long_a.len());
        prop_assert_eq!(common_suffix(&long_b, &long_b), long_b.len());
    }
}

proptest! {
    /// Values known the same by where they stand are the same bytes, and values compared are
    /// compared: the answer is a byte comparison's, wherever the two ranges fall.
    #[test]
    fn values_are_the_same_exactly_when_their_bytes_are(
        stored in proptest::collection::vec(0u8..3, 0..30),
        body in proptest::collection::vec(0u8..3, 0..30),
        ends in (0usize..30, 0usize..30, 0usize..30, 0usize..30),
        placed in 0u8..3,
    ) {
        let prefix = common_prefix(&stored, &body);
        let suffix = common_suffix(&stored[prefix..], &body[prefix..]);
        let range = |a: usize, b: usize, len: usize| a.min(b).min(len)..a.max(b).min(len);
        let at = range(ends.0, ends.1, stored.len());
        let given = match placed {
            // Where it is in the stored object, or as far from the end.
            0 => at.clone(),
            1 => {
                let shift = |p: usize| (p + body.len()).saturating_sub(stored.len()).min(body.len());
                shift(at.start)..shift(at.end)
            }
            _ => range(ends.2, ends.3, body.len()),
        };
        let compared = stored.get(at.clone()) == body.get(given.clone());
        prop_assert_eq!(same_value((&stored, &at), (&body, &given), (prefix, suffix)), compared);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any labels and annotations a body sets, by any of three managers: the same object.
    #[test]
    fn any_map_edit_stores_what_the_general_path_stores(
        labels in proptest::collection::btree_map(label_key(), "[a-z0-9\"é]{0,4}", 0..5),
        annotations in proptest::collection::btree_map(label_key(), "[a-z ]{0,6}", 0..4),
        manager in prop_oneof![Just("kinformer-apiserver"), Just("kube-controller-manager"), Just("x")],
    ) {
        let edit = |b: &mut Value| {
            b["metadata"]["labels"] = json!(labels);
            b["metadata"]["annotations"] = json!(annotations);
        };
        same_through_both(&pod(), "pods", edit, manager);
    }
}
