//! The zero values of a built-in kind's Go types, as `encoding/json` writes them, derived from
//! the kind's schema in kube-apiserver's captured OpenAPI v3 documents
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
//! [`go_fields`](super::go_fields) has the fields these rules get wrong. Two uses:
//! [`zero_value`], the empty object field managers compare a created object against, and
//! [`decode`], what decoding a body into the Go type adds: every struct's zero members, in the
//! object, in its list elements (a pod condition's `lastProbeTime: null`) and in the structs a
//! pointer holds. Custom resources are not typed: only their metadata.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Map, Value, json};

use super::go_fields::{GoField, go_field};
use crate::openapi_data;
use crate::resources::ResourceType;

/// What decoding adds to an object of one definition: its zero members, and the plans of the
/// members that hold structs.
#[derive(Debug, Default)]
struct Plan {
    zero: Map<String, Value>,
    children: Vec<(String, Child)>,
}

/// How a member holds structs of a definition with something to add.
#[derive(Debug)]
enum Child {
    /// A struct (or a pointer to one).
    Object(Arc<Plan>),
    /// A list of structs.
    Items(Arc<Plan>),
    /// A map of structs.
    Values(Arc<Plan>),
}

/// One kind's zero value and decoding plan.
struct Derived {
    zero: Value,
    plan: Option<Arc<Plan>>,
}

/// A zero value with only the metadata (custom resources, kinds missing from the capture).
static METADATA_ONLY: LazyLock<Value> = LazyLock::new(|| json!({"metadata": {}}));

/// Each built-in kind's derivation, made on first use and kept for the process' life.
static DERIVED: LazyLock<Mutex<HashMap<(String, String), &'static Derived>>> =
    LazyLock::new(Mutex::default);

/// The kind's derivation (None for custom resources and kinds missing from the capture).
fn derived(resource: &ResourceType) -> Option<&'static Derived> {
    if resource.custom {
        return None;
    }
    let key = (resource.group.clone(), resource.kind.clone());
    let mut all = DERIVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = all.get(&key) {
        return Some(found);
    }
    let made: &'static Derived = Box::leak(Box::new(derive_kind(resource)?));
    all.insert(key, made);
    Some(made)
}

/// The zero value of `resource`'s Go type (in its preferred version), as its JSON encoding.
pub fn zero_value(resource: &ResourceType) -> &'static Value {
    derived(resource).map_or(&METADATA_ONLY, |d| &d.zero)
}

/// Adds to `value` what decoding it into `resource`'s Go type adds: the zero members of each
/// struct in it (for a custom resource, its `metadata`).
pub fn decode(value: &mut Value, resource: &ResourceType) {
    match derived(resource) {
        Some(Derived {
            plan: Some(plan), ..
        }) => {
            omit_zero_creation_timestamps(value);
            apply(value, plan);
        }
        Some(_) => omit_zero_creation_timestamps(value),
        None => fill(value, &METADATA_ONLY),
    }
}

/// Where a built-in object holds an ObjectMeta of a template (a pod template's, a Job
/// template's and its pod template's).
const TEMPLATE_METADATA: [&str; 4] = [
    "/spec/template/metadata",
    "/spec/jobTemplate/metadata",
    "/spec/jobTemplate/spec/template/metadata",
    "/template/metadata",
];

/// Drops a template's `creationTimestamp: null` (older kubectl writes it into every
/// template): ObjectMeta's `creationTimestamp` is `omitzero` since 1.35 (apimachinery
/// `pkg/apis/meta/v1/types.go:213`), so decoding the null gives the zero time and encoding it
/// again leaves it out.
fn omit_zero_creation_timestamps(value: &mut Value) {
    let claim_templates = value
        .pointer_mut("/spec/volumeClaimTemplates")
        .and_then(Value::as_array_mut)
        .map(|templates| templates.iter_mut().filter_map(|t| t.get_mut("metadata")));
    claim_templates
        .into_iter()
        .flatten()
        .for_each(omit_null_creation);
    for path in TEMPLATE_METADATA {
        if let Some(metadata) = value.pointer_mut(path) {
            omit_null_creation(metadata);
        }
    }
}

fn omit_null_creation(metadata: &mut Value) {
    if let Some(map) = metadata.as_object_mut()
        && map.get("creationTimestamp").is_some_and(Value::is_null)
    {
        map.remove("creationTimestamp");
    }
}

/// Adds `plan`'s zero members to the object `value`, then its members' own.
fn apply(value: &mut Value, plan: &Plan) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    for (key, zero) in &plan.zero {
        if !object.contains_key(key) {
            object.insert(key.clone(), zero.clone());
        }
    }
    for (key, child) in &plan.children {
        let Some(member) = object.get_mut(key) else {
            continue;
        };
        match child {
            Child::Object(plan) => apply(member, plan),
            Child::Items(plan) => {
                for item in member.as_array_mut().into_iter().flatten() {
                    apply(item, plan);
                }
            }
            Child::Values(plan) => {
                for item in member
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|m| m.values_mut())
                {
                    apply(item, plan);
                }
            }
        }
    }
}

/// Derives the kind's zero value and plan from its schema (None when the capture lacks it).
fn derive_kind(resource: &ResourceType) -> Option<Derived> {
    let version = resource.versions.first()?;
    let path = if resource.group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{}/{version}", resource.group)
    };
    let document = openapi_data::v3_static(&path)?;
    let schemas = document["components"]["schemas"].as_object()?;
    let root = kind_definition(schemas, &resource.group, version, &resource.kind)?;
    let mut deriver = Deriver {
        schemas,
        zeros: HashMap::new(),
        plans: HashMap::new(),
        open_zeros: HashSet::new(),
        open_plans: HashSet::new(),
    };
    let mut zero = deriver.zero(root);
    zero.remove("apiVersion");
    zero.remove("kind");
    Some(Derived {
        zero: Value::Object(zero),
        plan: deriver.plan(root),
    })
}

/// The name of the schema with `x-kubernetes-group-version-kind` naming the kind.
fn kind_definition<'d>(
    schemas: &'d Map<String, Value>,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<&'d str> {
    schemas
        .iter()
        .find(|(_, schema)| {
            schema["x-kubernetes-group-version-kind"]
                .as_array()
                .is_some_and(|gvks| {
                    gvks.iter().any(|gvk| {
                        gvk["group"] == group && gvk["version"] == version && gvk["kind"] == kind
                    })
                })
        })
        .map(|(name, _)| name.as_str())
}

/// One document's derivations, each definition's made once.
struct Deriver<'d> {
    schemas: &'d Map<String, Value>,
    zeros: HashMap<&'d str, Map<String, Value>>,
    plans: HashMap<&'d str, Option<Arc<Plan>>>,
    /// The definitions whose zero value is being derived (a loop stops there).
    open_zeros: HashSet<&'d str>,
    /// The definitions whose plan is being derived (a recursive schema, like JSONSchemaProps,
    /// stops there).
    open_plans: HashSet<&'d str>,
}

impl<'d> Deriver<'d> {
    /// The zero value of the object definition `name`: its members `encoding/json` always
    /// writes.
    fn zero(&mut self, name: &'d str) -> Map<String, Value> {
        if let Some(zero) = self.zeros.get(name) {
            return zero.clone();
        }
        let Some(schema) = self.schemas.get(name) else {
            return Map::new();
        };
        if !self.open_zeros.insert(name) {
            return Map::new();
        }
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut zero = Map::new();
        for (field, property) in schema["properties"].as_object().into_iter().flatten() {
            let member = match go_field(name, field) {
                Some(GoField::Null) => Some(Value::Null),
                Some(GoField::Omitted) => None,
                Some(GoField::Zero(text)) => {
                    Some(serde_json::from_str(text).unwrap_or(Value::Null))
                }
                None => self.member_zero(property, required.contains(&field.as_str())),
            };
            if let Some(member) = member {
                zero.insert(field.clone(), member);
            }
        }
        self.open_zeros.remove(name);
        self.zeros.insert(name, zero.clone());
        zero
    }

    /// A member's zero value by the schema rules, None when `encoding/json` leaves it out.
    fn member_zero(&mut self, property: &'d Value, required: bool) -> Option<Value> {
        let referenced = self.struct_definition(property);
        match property.get("default") {
            Some(_) if referenced.is_some() => {
                referenced.map(|name| Value::Object(self.zero(name)))
            }
            Some(default) if is_scalar_zero(default) => Some(default.clone()),
            Some(_) => None,
            None if !required => None,
            None if is_scalar(property) => None,
            None => Some(Value::Null),
        }
    }

    /// The plan of the object definition `name`, None when decoding adds nothing to it.
    fn plan(&mut self, name: &'d str) -> Option<Arc<Plan>> {
        if let Some(plan) = self.plans.get(name) {
            return plan.clone();
        }
        if !self.open_plans.insert(name) {
            return None;
        }
        let zero = self.zero(name);
        let mut children = Vec::new();
        let properties = self
            .schemas
            .get(name)
            .and_then(|s| s["properties"].as_object());
        for (field, property) in properties.into_iter().flatten() {
            let child = if let Some(inner) = self.struct_definition(property) {
                self.plan(inner).map(Child::Object)
            } else if let Some(inner) = self.struct_definition(&property["items"]) {
                self.plan(inner).map(Child::Items)
            } else if let Some(inner) = self.struct_definition(&property["additionalProperties"]) {
                self.plan(inner).map(Child::Values)
            } else {
                None
            };
            if let Some(child) = child {
                children.push((field.clone(), child));
            }
        }
        self.open_plans.remove(name);
        let plan =
            (!zero.is_empty() || !children.is_empty()).then(|| Arc::new(Plan { zero, children }));
        self.plans.insert(name, plan.clone());
        plan
    }

    /// The object definition a property refers to (`$ref` or `allOf: [{$ref}]`), if it has
    /// properties.
    fn struct_definition(&self, property: &'d Value) -> Option<&'d str> {
        let name = property["$ref"]
            .as_str()
            .or_else(|| property["allOf"][0]["$ref"].as_str())?
            .strip_prefix("#/components/schemas/")?;
        let (name, schema) = self.schemas.get_key_value(name)?;
        schema.get("properties").map(|_| name.as_str())
    }
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

/// Adds to `value` the fields of `zero` it lacks, map by map (what decoding into the Go type
/// does).
fn fill(value: &mut Value, zero: &Value) {
    let (Some(object), Some(zero)) = (value.as_object_mut(), zero.as_object()) else {
        return;
    };
    for (key, default) in zero {
        match object.get_mut(key) {
            Some(present) => fill(present, default),
            None => {
                object.insert(key.clone(), default.clone());
            }
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

    /// Decoding fills list elements' and pointed-to structs' zero members too, as Go's does.
    #[test]
    fn decoding_fills_every_struct_s_zero_members() {
        let pods = builtin("", "v1", "Pod");
        let mut pod = json!({"metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
                "readinessProbe": {"httpGet": {"path": "/"}}}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        decode(&mut pod, &pods);
        assert_eq!(
            pod["status"]["conditions"][0],
            json!({"type": "Ready", "status": "True", "lastProbeTime": null,
                   "lastTransitionTime": null})
        );
        let container = &pod["spec"]["containers"][0];
        assert_eq!(container["resources"], json!({}));
        assert_eq!(container["readinessProbe"]["httpGet"]["port"], json!(0));
        assert_eq!(container["ports"][0], json!({"containerPort": 80}));
        let services = builtin("", "v1", "Service");
        let mut service = json!({"spec": {"ports": [{"port": 443}]}});
        decode(&mut service, &services);
        assert_eq!(
            service["spec"]["ports"][0],
            json!({"port": 443, "targetPort": 0})
        );
        assert_eq!(service["status"], json!({"loadBalancer": {}}));
    }

    /// A recursive schema (a CRD's JSONSchemaProps) is derived without looping.
    #[test]
    fn a_recursive_schema_is_derived() {
        let crds = builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition");
        let mut crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema":
            {"type": "object", "properties": {"spec": {"type": "object"}}}}}]}});
        decode(&mut crd, &crds);
        assert_eq!(crd["spec"]["versions"][0]["served"], json!(false));
        assert_eq!(crd["status"]["storedVersions"], Value::Null);
    }

    #[test]
    fn a_custom_resource_has_only_metadata() {
        let mut resource = builtin("example.com", "v1", "Gadget");
        resource.custom = true;
        assert_eq!(zero_value(&resource), &json!({"metadata": {}}));
    }

    #[test]
    fn a_templates_null_creation_timestamp_is_left_out_as_omitzero_leaves_it() {
        let deployments = builtin("apps", "v1", "Deployment");
        let mut value = json!({"metadata": {"name": "d"}, "spec": {"template": {
            "metadata": {"creationTimestamp": null, "labels": {"a": "b"}}, "spec": {}}}});
        decode(&mut value, &deployments);
        assert_eq!(
            value["spec"]["template"]["metadata"],
            json!({"labels": {"a": "b"}})
        );
        let cronjobs = builtin("batch", "v1", "CronJob");
        let mut value = json!({"metadata": {"name": "c"}, "spec": {"jobTemplate": {
            "metadata": {"creationTimestamp": null},
            "spec": {"template": {"metadata": {"creationTimestamp": null}}}}}});
        decode(&mut value, &cronjobs);
        assert_eq!(value["spec"]["jobTemplate"]["metadata"], json!({}));
        assert_eq!(
            value["spec"]["jobTemplate"]["spec"]["template"]["metadata"],
            json!({})
        );
    }

    #[test]
    fn fill_adds_only_what_is_missing() {
        let mut value = json!({"spec": {"strategy": {"type": "Recreate"}}});
        fill(
            &mut value,
            &json!({"spec": {"strategy": {}, "selector": null}, "status": {}}),
        );
        assert_eq!(
            value,
            json!({"spec": {"strategy": {"type": "Recreate"}, "selector": null}, "status": {}})
        );
    }
}
