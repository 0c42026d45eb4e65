//! Objects as kube-apiserver writes them (issue 38): members in Go's field order — `kind`,
//! `apiVersion`, `metadata` (ObjectMeta's order), then the type's fields — in GET answers,
//! LIST items and watch events, whatever order the client sent; custom resources with their
//! keys sorted, as kube-apiserver writes unstructured objects.

use serde_json::{Value, json};

use crate::support::{TestResult, raw, seeded};

/// The top-level keys of the JSON object `text`, in written order (none when it is no object).
fn keys_in_order(text: &str) -> Vec<String> {
    /// Collects an object's keys in the order they come.
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = map.next_key::<String>()? {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(Visitor)
        }
    }
    serde_json::from_str::<Keys>(text).map_or_else(|_| Vec::new(), |keys| keys.0)
}

/// The text of the member `key` of the object `text` (its value as written).
fn member(text: &str, key: &str) -> String {
    let raw: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(text).unwrap_or_default();
    raw.get(key).map(|v| v.get().to_owned()).unwrap_or_default()
}

/// A ConfigMap sent with its keys sorted is answered, read, listed and watched with `kind`,
/// `apiVersion`, `metadata`, `immutable`, `data`, and its metadata in ObjectMeta's order
/// (k8s.io/api core/v1 `ConfigMap`, apimachinery `ObjectMeta`).
#[tokio::test]
async fn built_in_objects_are_written_in_go_field_order() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let path = "/api/v1/namespaces/default/configmaps";
    let body = json!({"apiVersion": "v1", "data": {"b": "1", "a": "2"}, "immutable": false,
        "kind": "ConfigMap", "metadata": {"annotations": {"x": "y"}, "labels": {"l": "v"},
        "name": "ordered", "namespace": "default"}});
    let (code, created) = raw(&server, "POST", path, Some(body)).await?;
    assert_eq!(code, 201, "{created}");
    let (_, read) = raw(&server, "GET", &format!("{path}/ordered"), None).await?;
    let top = ["kind", "apiVersion", "metadata", "immutable", "data"];
    let meta = [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "labels",
        "annotations",
        "managedFields",
    ];
    for text in [&created, &read] {
        assert_eq!(keys_in_order(text), top, "{text}");
        assert_eq!(keys_in_order(&member(text, "metadata")), meta, "{text}");
    }
    let (_, list) = raw(&server, "GET", path, None).await?;
    assert_eq!(
        keys_in_order(&list),
        ["kind", "apiVersion", "metadata", "items"]
    );
    let items: Vec<Box<serde_json::value::RawValue>> =
        serde_json::from_str(&member(&list, "items"))?;
    let item = items
        .first()
        .map(|i| i.get().to_owned())
        .unwrap_or_default();
    assert_eq!(
        keys_in_order(&item),
        ["metadata", "immutable", "data"],
        "{item}"
    );
    let (_, events) = raw(
        &server,
        "GET",
        &format!("{path}?watch=1&timeoutSeconds=1"),
        None,
    )
    .await?;
    let event = events.lines().next().unwrap_or_default();
    assert_eq!(keys_in_order(event), ["type", "object"], "{event}");
    assert_eq!(keys_in_order(&member(event, "object")), top, "{event}");
    Ok(())
}

/// A Deployment is written `kind`, `apiVersion`, `metadata`, `spec`, `status`, its spec's and
/// template's fields in Go order (apps/v1 `DeploymentSpec`, core/v1 `PodSpec`, `Container`);
/// a replace whose body has its keys sorted keeps that order.
#[tokio::test]
async fn workloads_keep_go_order_through_a_sorted_replace() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let body = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let (code, created) = raw(&server, "POST", path, Some(body)).await?;
    assert_eq!(code, 201, "{created}");
    let mut object: Value = serde_json::from_str(&created)?;
    object["metadata"]["labels"] = json!({"changed": "yes"});
    let (code, replaced) = raw(&server, "PUT", &format!("{path}/web"), Some(object)).await?;
    assert_eq!(code, 200, "{replaced}");
    for text in [&created, &replaced] {
        assert_eq!(
            keys_in_order(text),
            ["kind", "apiVersion", "metadata", "spec", "status"]
        );
        let spec = member(text, "spec");
        let spec_keys = keys_in_order(&spec);
        assert_eq!(
            spec_keys.first().map(String::as_str),
            Some("replicas"),
            "{spec}"
        );
        assert_eq!(
            spec_keys.get(1).map(String::as_str),
            Some("selector"),
            "{spec}"
        );
        assert_eq!(
            spec_keys.get(2).map(String::as_str),
            Some("template"),
            "{spec}"
        );
        assert!(
            spec.contains(r#""containers":[{"name":"c","image":"nginx","#),
            "{spec}"
        );
    }
    Ok(())
}
