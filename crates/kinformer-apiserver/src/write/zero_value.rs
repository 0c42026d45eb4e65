//! The zero value of a built-in kind's Go type, as `encoding/json` writes it (what decoding a
//! body into the type always adds, and what field managers compare a created object against),
//! derived from the kind's schema in kube-apiserver's captured OpenAPI v3 documents
//! ([`crate::openapi_data`]) by the rules openapi-gen writes them with
//! (`k8s.io/kube-openapi/pkg/generators/openapi.go`, `mustEnforceDefault`):
//!
//! - a non-pointer struct field has `default: {}`: `encoding/json` never omits a struct, so its
//!   own zero value is in the parent's, recursively;
//! - a non-`omitempty` scalar is `required` with its zero as `default` (0, "", false); a
//!   non-zero `default` is a `+default=` marker, which defaulting applies, not decoding;
//! - a required field without a default that is not a scalar is a non-`omitempty` pointer,
//!   slice or map: `null` (a Deployment's `spec.selector`, a pod template's `containers`; a
//!   `format: byte` string is a `[]byte`). A required scalar without a default is an
//!   `omitempty` field marked `+required`: left out.
//!
//! What the schema cannot show ([`GO_FIELDS`]): non-pointer `metav1.Time` fields (a string in
//! the schema, `null` in the zero value), `+optional` markers on non-`omitempty` slices and
//! pointers (`null`), `+required` on `omitempty` ones and `+default=0` on `omitempty` scalars
//! (left out). Custom resources have only their metadata.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use serde_json::{Map, Value, json};

use crate::field_validation::find_kind;
use crate::openapi_data;
use crate::resources::ResourceType;

/// What the Go type writes at a path where the schema's rules say otherwise.
#[derive(Clone, Copy)]
enum GoField {
    /// The field encodes as `null`.
    Null,
    /// The field is left out.
    Omitted,
}

/// The fields whose Go types the schema rules cannot see: (group, kind, path, what encodes),
/// each citing its field in k8s.io/api (or apiextensions-apiserver) v0.37.2.
const GO_FIELDS: &[(&str, &str, &[&str], GoField)] = &[
    // core/v1/types.go:7958,7962,7974: non-pointer `metav1.Time`/`MicroTime`, `omitempty`.
    ("", "Event", &["firstTimestamp"], GoField::Null),
    ("", "Event", &["lastTimestamp"], GoField::Null),
    ("", "Event", &["eventTime"], GoField::Null),
    // events/v1/types.go:92,95: non-pointer `metav1.Time`, `omitempty`.
    (
        "events.k8s.io",
        "Event",
        &["deprecatedFirstTimestamp"],
        GoField::Null,
    ),
    (
        "events.k8s.io",
        "Event",
        &["deprecatedLastTimestamp"],
        GoField::Null,
    ),
    // core/v1/types.go:5894: `MinReadySeconds int32 json:",omitempty"` with `+default=0`.
    (
        "",
        "ReplicationController",
        &["spec", "minReadySeconds"],
        GoField::Omitted,
    ),
    // autoscaling/v1/types.go:155: `Replicas int32 json:",omitempty"` with `+default=0`.
    (
        "autoscaling",
        "Scale",
        &["spec", "replicas"],
        GoField::Omitted,
    ),
    // admissionregistration/v1/types.go:543: `+required`, `omitempty` slice.
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        &["spec", "validationActions"],
        GoField::Omitted,
    ),
    // networking/v1/types.go:685: `+required`, `omitempty` pointer.
    (
        "networking.k8s.io",
        "IPAddress",
        &["spec", "parentRef"],
        GoField::Omitted,
    ),
    // apiextensions/v1/types.go:370,385: `+optional`, non-`omitempty` slices.
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        &["status", "conditions"],
        GoField::Null,
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        &["status", "storedVersions"],
        GoField::Null,
    ),
    // authentication/v1/types.go:207,213,221,239: `+optional`, non-`omitempty`.
    (
        "authentication.k8s.io",
        "TokenRequest",
        &["spec", "audiences"],
        GoField::Null,
    ),
    (
        "authentication.k8s.io",
        "TokenRequest",
        &["spec", "expirationSeconds"],
        GoField::Null,
    ),
    (
        "authentication.k8s.io",
        "TokenRequest",
        &["spec", "boundObjectRef"],
        GoField::Null,
    ),
    (
        "authentication.k8s.io",
        "TokenRequest",
        &["status", "expirationTimestamp"],
        GoField::Null,
    ),
    // autoscaling/v2/types.go:430.
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        &["status", "currentMetrics"],
        GoField::Null,
    ),
    // discovery/v1/types.go:61,71.
    (
        "discovery.k8s.io",
        "EndpointSlice",
        &["endpoints"],
        GoField::Null,
    ),
    (
        "discovery.k8s.io",
        "EndpointSlice",
        &["ports"],
        GoField::Null,
    ),
    // rbac/v1/types.go:131,205.
    (
        "rbac.authorization.k8s.io",
        "Role",
        &["rules"],
        GoField::Null,
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRole",
        &["rules"],
        GoField::Null,
    ),
    // resource/v1/types.go:1241: `DeviceClaim.Requests`, non-`omitempty`.
    (
        "resource.k8s.io",
        "ResourceClaim",
        &["spec", "devices", "requests"],
        GoField::Null,
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        &["spec", "spec", "devices", "requests"],
        GoField::Null,
    ),
];

/// A zero value with only the metadata (custom resources, kinds missing from the capture).
static METADATA_ONLY: LazyLock<Value> = LazyLock::new(|| json!({"metadata": {}}));

/// Each built-in kind's zero value, derived on first use and kept for the process' life.
static DERIVED: LazyLock<Mutex<HashMap<(String, String), &'static Value>>> =
    LazyLock::new(Mutex::default);

/// The zero value of `resource`'s Go type (in its preferred version), as its JSON encoding.
pub fn zero_value(resource: &ResourceType) -> &'static Value {
    if resource.custom {
        return &METADATA_ONLY;
    }
    let key = (resource.group.clone(), resource.kind.clone());
    let mut derived = DERIVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(zero) = derived.get(&key) {
        return zero;
    }
    let zero: &'static Value = match derive_kind(resource) {
        Some(zero) => Box::leak(Box::new(zero)),
        None => &METADATA_ONLY,
    };
    derived.insert(key, zero);
    zero
}

/// Derives the kind's zero value from its schema (None when the capture lacks it).
fn derive_kind(resource: &ResourceType) -> Option<Value> {
    let version = resource.versions.first()?;
    let path = if resource.group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{}/{version}", resource.group)
    };
    let document = openapi_data::v3_parsed(&path)?;
    let root = find_kind(&document, &resource.group, version, &resource.kind)?;
    let schemas = document["components"]["schemas"].as_object()?;
    let mut zero = object_zero(schemas, &root);
    zero.remove("apiVersion");
    zero.remove("kind");
    let mut zero = Value::Object(zero);
    for (group, kind, path, field) in GO_FIELDS {
        if *group == resource.group && *kind == resource.kind {
            correct(&mut zero, path, *field);
        }
    }
    Some(zero)
}

/// The zero value of an object schema: its members that `encoding/json` always writes.
fn object_zero(schemas: &Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Map::new();
    };
    properties
        .iter()
        .filter_map(|(name, property)| {
            let zero = member_zero(schemas, property, required.contains(&name.as_str()))?;
            Some((name.clone(), zero))
        })
        .collect()
}

/// A member's zero value, None when `encoding/json` leaves it out.
fn member_zero(schemas: &Map<String, Value>, property: &Value, required: bool) -> Option<Value> {
    let referenced = reference(property).and_then(|name| schemas.get(name));
    match property.get("default") {
        Some(_) if referenced.is_some_and(|s| s.get("properties").is_some()) => {
            referenced.map(|schema| Value::Object(object_zero(schemas, schema)))
        }
        Some(default) if is_scalar_zero(default) => Some(default.clone()),
        Some(_) => None,
        None if !required => None,
        None if is_scalar(property) => None,
        None => Some(Value::Null),
    }
}

/// The schema a property refers to (`$ref` or `allOf: [{$ref}]`).
fn reference(property: &Value) -> Option<&str> {
    property["$ref"]
        .as_str()
        .or_else(|| property["allOf"][0]["$ref"].as_str())?
        .strip_prefix("#/components/schemas/")
}

/// 0, "" or false.
fn is_scalar_zero(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// A string (not a `[]byte`), integer, number or boolean property.
fn is_scalar(property: &Value) -> bool {
    match property["type"].as_str() {
        Some("string") => property["format"] != "byte",
        Some("integer" | "number" | "boolean") => true,
        _ => false,
    }
}

/// Applies one [`GO_FIELDS`] entry at `path`.
fn correct(zero: &mut Value, path: &[&str], field: GoField) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = zero;
    for parent in parents {
        let Some(next) = at.get_mut(*parent) else {
            return;
        };
        at = next;
    }
    let Some(object) = at.as_object_mut() else {
        return;
    };
    match field {
        GoField::Null => {
            object.insert((*last).to_owned(), Value::Null);
        }
        GoField::Omitted => {
            object.remove(*last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A built-in resource type of the kind (only group, version and kind matter here).
    fn builtin(group: &str, version: &str, kind: &str) -> ResourceType {
        let mut resource = crate::resources::builtins().remove(0);
        resource.group = group.into();
        resource.versions = vec![version.into()];
        resource.kind = kind.into();
        resource.custom = false;
        resource
    }

    fn template() -> Value {
        json!({"metadata": {}, "spec": {"containers": null}})
    }

    /// The zero values written by hand before they were derived (each checked against
    /// `json.Marshal` of the empty Go struct), and the kinds the rules needed [`GO_FIELDS`] for.
    #[test]
    fn derived_zero_values_are_the_go_types_encodings() {
        let cases = [
            (
                "",
                "v1",
                "Pod",
                json!({"metadata": {}, "spec": {"containers": null}, "status": {}}),
            ),
            (
                "",
                "v1",
                "Service",
                json!({"metadata": {}, "spec": {}, "status": {"loadBalancer": {}}}),
            ),
            (
                "",
                "v1",
                "Namespace",
                json!({"metadata": {}, "spec": {}, "status": {}}),
            ),
            (
                "",
                "v1",
                "Event",
                json!({
                    "metadata": {}, "involvedObject": {}, "source": {}, "firstTimestamp": null,
                    "lastTimestamp": null, "eventTime": null, "reportingComponent": "",
                    "reportingInstance": "",
                }),
            ),
            (
                "apps",
                "v1",
                "Deployment",
                json!({
                    "metadata": {},
                    "spec": {"selector": null, "template": template(), "strategy": {}},
                    "status": {},
                }),
            ),
            (
                "apps",
                "v1",
                "ReplicaSet",
                json!({
                    "metadata": {},
                    "spec": {"selector": null, "template": template()},
                    "status": {"replicas": 0},
                }),
            ),
            (
                "apps",
                "v1",
                "StatefulSet",
                json!({
                    "metadata": {},
                    "spec": {
                        "selector": null, "template": template(), "serviceName": "",
                        "updateStrategy": {},
                    },
                    "status": {"replicas": 0, "availableReplicas": 0},
                }),
            ),
            (
                "apps",
                "v1",
                "DaemonSet",
                json!({
                    "metadata": {},
                    "spec": {"selector": null, "template": template(), "updateStrategy": {}},
                    "status": {
                        "currentNumberScheduled": 0, "numberMisscheduled": 0,
                        "desiredNumberScheduled": 0, "numberReady": 0,
                    },
                }),
            ),
            (
                "coordination.k8s.io",
                "v1",
                "Lease",
                json!({"metadata": {}, "spec": {}}),
            ),
            (
                "",
                "v1",
                "Node",
                json!({
                    "metadata": {},
                    "spec": {},
                    "status": {
                        "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
                        "nodeInfo": {
                            "machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "",
                            "osImage": "", "containerRuntimeVersion": "", "kubeletVersion": "",
                            "kubeProxyVersion": "", "operatingSystem": "", "architecture": "",
                        },
                    },
                }),
            ),
            (
                "apiextensions.k8s.io",
                "v1",
                "CustomResourceDefinition",
                json!({
                    "metadata": {},
                    "spec": {
                        "group": "", "names": {"plural": "", "kind": ""}, "scope": "",
                        "versions": null,
                    },
                    "status": {
                        "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": null,
                        "conditions": null,
                    },
                }),
            ),
            (
                "events.k8s.io",
                "v1",
                "Event",
                json!({
                    "metadata": {}, "eventTime": null, "regarding": {}, "deprecatedSource": {},
                    "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null,
                }),
            ),
            (
                "batch",
                "v1",
                "Job",
                json!({
                    "metadata": {}, "spec": {"template": template()}, "status": {},
                }),
            ),
            (
                "rbac.authorization.k8s.io",
                "v1",
                "RoleBinding",
                json!({
                    "metadata": {}, "roleRef": {"apiGroup": "", "kind": "", "name": ""},
                }),
            ),
            (
                "",
                "v1",
                "ReplicationController",
                json!({
                    "metadata": {}, "spec": {}, "status": {"replicas": 0},
                }),
            ),
            (
                "authentication.k8s.io",
                "v1",
                "TokenReview",
                json!({
                    "metadata": {}, "spec": {}, "status": {"user": {}},
                }),
            ),
            (
                "networking.k8s.io",
                "v1",
                "IPAddress",
                json!({"metadata": {}, "spec": {}}),
            ),
        ];
        for (group, version, kind, expected) in cases {
            let resource = builtin(group, version, kind);
            assert_eq!(zero_value(&resource), &expected, "{group}/{kind}");
        }
    }

    #[test]
    fn a_custom_resource_has_only_metadata() {
        let mut resource = builtin("example.com", "v1", "Gadget");
        resource.custom = true;
        assert_eq!(zero_value(&resource), &json!({"metadata": {}}));
    }
}
