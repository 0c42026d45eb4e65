//! Built-in objects in Go's field order, as kube-apiserver writes them: `kind`, `apiVersion`,
//! `metadata`, then each type's fields in the order of its Go struct (k8s.io/api's types and
//! apimachinery's ObjectMeta), where serde_json's map writes keys sorted. A [`Shape`] names a
//! struct's fields in order, and the shapes of those that are structs or lists of structs;
//! members a shape does not name follow in key order (as Go writes a map's keys). The values of
//! maps (labels, data) and `managedFields` stay in key order: Go sorts a map's keys, and the
//! replace fast path writes managedFields entries as serde_json does.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::members;
use super::writer::{write_str, write_value};

/// The fields of a Go struct in declaration order.
pub struct Shape(&'static [Field]);

/// One field of a [`Shape`]: its JSON name and what its value is.
pub struct Field(&'static str, Inner);

/// What a field's value is.
#[derive(Clone, Copy)]
pub enum Inner {
    /// A scalar, a map or a type whose order is not known here: written as is.
    Plain,
    /// A struct.
    Object(&'static Shape),
    /// A list of structs.
    Items(&'static Shape),
}

use Inner::{Items, Object, Plain};

impl Shape {
    /// The shape of the named field (Plain when this shape does not name it).
    pub fn inner(&self, key: &str) -> Inner {
        self.0
            .iter()
            .find(|field| field.0 == key)
            .map_or(Plain, |field| field.1)
    }

    /// The members of `members` in this shape's order: named fields first, the rest after in
    /// key order.
    pub fn ordered<'a>(&self, members: &'a Map<String, Value>) -> Vec<(&'a String, &'a Value)> {
        let mut out = Vec::with_capacity(members.len());
        for field in self.0 {
            if let Some((key, value)) = members.get_key_value(field.0) {
                out.push((key, value));
            }
        }
        if out.len() < members.len() {
            let named = |key: &str| self.0.iter().any(|field| field.0 == key);
            out.extend(members.iter().filter(|(key, _)| !named(key)));
        }
        out
    }
}

/// Appends `value` to `out` compact, a struct of `inner`'s shape in its field order.
pub fn write_inner(out: &mut Vec<u8>, value: &Value, inner: Inner) {
    match (inner, value) {
        (Object(shape), Value::Object(members)) => write_shaped(out, members, shape),
        (Items(shape), Value::Array(items)) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_inner(out, item, Object(shape));
            }
            out.push(b']');
        }
        _ => write_value(out, value),
    }
}

/// A built-in object's compact JSON `body` (as serde_json writes a `Value`: keys sorted, no
/// whitespace) rewritten in Go's field order by moving its members' bytes in one pass, without
/// parsing their values: what [`crate::json::type_meta::serialise`] writes for the parsed body
/// when its maps' keys are sorted (serde_json's order). None when `body` is not such an object
/// (not compact, a struct with a key twice, a list of structs with an element that is none):
/// the caller parses it.
pub fn reorder_compact(body: &[u8]) -> Option<Vec<u8>> {
    // The type's members come first in a sorted body: found without scanning the rest.
    let text = |key: &str| -> &str {
        members::member_value(body, 0..body.len(), key.as_bytes())
            .and_then(|range| body.get(range)?.strip_prefix(b"\"")?.strip_suffix(b"\""))
            .and_then(|v| std::str::from_utf8(v).ok())
            .unwrap_or("")
    };
    let shape = object_shape(text("apiVersion"), text("kind"));
    let mut out = Vec::with_capacity(body.len());
    let end = reorder_object(&mut out, body, 0, shape)?;
    (end == body.len()).then_some(out)
}

/// One member of an object being reordered: its key, its place in the shape (fields the shape
/// does not name after all named ones, in the order they came) and its value's bytes.
struct Moved<'b> {
    key: &'b [u8],
    rank: usize,
    value: Cow<'b, [u8]>,
}

/// Appends the object starting at `at` in `body` with its members in `shape`'s order, each
/// struct-valued member reordered as its own shape says; answers where the object ends.
fn reorder_object(out: &mut Vec<u8>, body: &[u8], mut at: usize, shape: &Shape) -> Option<usize> {
    step(body, &mut at, b'{')?;
    let mut moved: Vec<Moved<'_>> = Vec::with_capacity(16);
    if body.get(at) != Some(&b'}') {
        loop {
            step(body, &mut at, b'"')?;
            let key_start = at;
            at = members::string_end(body, at)?;
            let key = body.get(key_start..at)?;
            at += 1;
            step(body, &mut at, b':')?;
            let rank = shape.0.iter().position(|field| field.0.as_bytes() == key);
            let inner = rank.map_or(Plain, |index| shape.0[index].1);
            let (value, end) = reorder_member(body, at, inner)?;
            moved.push(Moved {
                key,
                rank: rank.unwrap_or(usize::MAX),
                value,
            });
            at = end;
            match body.get(at)? {
                b',' => at += 1,
                b'}' => break,
                _ => return None,
            }
        }
    }
    let mut keys: Vec<&[u8]> = moved.iter().map(|m| m.key).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|pair| pair[0] == pair[1]) {
        return None;
    }
    moved.sort_by_key(|m| m.rank);
    out.push(b'{');
    for (index, member) in moved.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(member.key);
        out.extend_from_slice(b"\":");
        out.extend_from_slice(&member.value);
    }
    out.push(b'}');
    Some(at + 1)
}

/// The value starting at `at`: reordered when it is a struct or a list of structs of `inner`'s
/// shape, else its bytes as they are; and where it ends.
fn reorder_member(body: &[u8], at: usize, inner: Inner) -> Option<(Cow<'_, [u8]>, usize)> {
    match (inner, body.get(at)?) {
        (Object(shape), b'{') => {
            let mut value = Vec::new();
            let end = reorder_object(&mut value, body, at, shape)?;
            Some((Cow::Owned(value), end))
        }
        (Items(shape), b'[') => {
            let mut value = vec![b'['];
            let mut at = at + 1;
            if body.get(at) == Some(&b']') {
                return Some((Cow::Owned(b"[]".to_vec()), at + 1));
            }
            loop {
                at = reorder_object(&mut value, body, at, shape)?;
                match body.get(at)? {
                    b',' => value.push(b','),
                    b']' => break,
                    _ => return None,
                }
                at += 1;
            }
            value.push(b']');
            Some((Cow::Owned(value), at + 1))
        }
        _ => {
            let end = members::value_end(body, at)?;
            Some((Cow::Borrowed(body.get(at..end)?), end))
        }
    }
}

/// Steps over `byte` at `at`.
fn step(body: &[u8], at: &mut usize, byte: u8) -> Option<()> {
    (body.get(*at) == Some(&byte)).then(|| *at += 1)
}

/// Appends the object `members` compact, in `shape`'s order.
fn write_shaped(out: &mut Vec<u8>, members: &Map<String, Value>, shape: &Shape) {
    out.push(b'{');
    for (index, (key, member)) in shape.ordered(members).into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        write_inner(out, member, shape.inner(key));
    }
    out.push(b'}');
}

/// The shape of a built-in object of `api_version` and `kind` (kinds not named here: `spec`,
/// then `status`).
pub fn object_shape(api_version: &str, kind: &str) -> &'static Shape {
    if (api_version, kind) == ("events.k8s.io/v1", "Event") {
        return &EVENTS_EVENT;
    }
    match kind {
        "ConfigMap" => &CONFIG_MAP,
        "Secret" => &SECRET,
        "ServiceAccount" => &SERVICE_ACCOUNT,
        "Endpoints" => &ENDPOINTS,
        "Event" => &CORE_EVENT,
        "Pod" => &POD,
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => &WORKLOAD,
        "CustomResourceDefinition" => &CRD,
        "Role" | "ClusterRole" => &ROLE,
        "RoleBinding" | "ClusterRoleBinding" => &ROLE_BINDING,
        "ControllerRevision" => &CONTROLLER_REVISION,
        "PriorityClass" => &PRIORITY_CLASS,
        "StorageClass" => &STORAGE_CLASS,
        "RuntimeClass" => &RUNTIME_CLASS,
        "EndpointSlice" => &ENDPOINT_SLICE,
        "CSIStorageCapacity" => &CSI_STORAGE_CAPACITY,
        "VolumeAttributesClass" => &VOLUME_ATTRIBUTES_CLASS,
        _ => &SPEC_STATUS,
    }
}

/// `kind`, `apiVersion` and `metadata` (TypeMeta and ObjectMeta), then `rest`.
macro_rules! object {
    ($($rest:expr),* $(,)?) => {
        Shape(&[
            Field("kind", Plain),
            Field("apiVersion", Plain),
            Field("metadata", Object(&OBJECT_META)),
            $($rest),*
        ])
    };
}

/// Fields of the listed names, each written as is.
macro_rules! plain {
    ($($name:literal),* $(,)?) => {
        Shape(&[$(Field($name, Plain)),*])
    };
}

/// apimachinery's ObjectMeta.
pub static OBJECT_META: Shape = Shape(&[
    Field("name", Plain),
    Field("generateName", Plain),
    Field("namespace", Plain),
    Field("selfLink", Plain),
    Field("uid", Plain),
    Field("resourceVersion", Plain),
    Field("generation", Plain),
    Field("creationTimestamp", Plain),
    Field("deletionTimestamp", Plain),
    Field("deletionGracePeriodSeconds", Plain),
    Field("labels", Plain),
    Field("annotations", Plain),
    Field("ownerReferences", Items(&OWNER_REFERENCE)),
    Field("finalizers", Plain),
    Field("managedFields", Plain),
]);

static OWNER_REFERENCE: Shape = plain!(
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion"
);

static SPEC_STATUS: Shape = object!(Field("spec", Plain), Field("status", Plain));

static CONFIG_MAP: Shape = object!(
    Field("immutable", Plain),
    Field("data", Plain),
    Field("binaryData", Plain),
);

static SECRET: Shape = object!(
    Field("immutable", Plain),
    Field("data", Plain),
    Field("stringData", Plain),
    Field("type", Plain),
);

static SERVICE_ACCOUNT: Shape = object!(
    Field("secrets", Plain),
    Field("imagePullSecrets", Plain),
    Field("automountServiceAccountToken", Plain),
);

static ENDPOINTS: Shape = object!(Field("subsets", Plain));

static CORE_EVENT: Shape = object!(
    Field("involvedObject", Plain),
    Field("reason", Plain),
    Field("message", Plain),
    Field("source", Plain),
    Field("firstTimestamp", Plain),
    Field("lastTimestamp", Plain),
    Field("count", Plain),
    Field("type", Plain),
    Field("eventTime", Plain),
    Field("series", Plain),
    Field("action", Plain),
    Field("related", Plain),
    Field("reportingComponent", Plain),
    Field("reportingInstance", Plain),
);

/// events.k8s.io/v1 `Event` (k8s.io/api `events/v1/types.go`).
static EVENTS_EVENT: Shape = object!(
    Field("eventTime", Plain),
    Field("series", Plain),
    Field("reportingController", Plain),
    Field("reportingInstance", Plain),
    Field("action", Plain),
    Field("reason", Plain),
    Field("regarding", Plain),
    Field("related", Plain),
    Field("note", Plain),
    Field("type", Plain),
    Field("deprecatedSource", Plain),
    Field("deprecatedFirstTimestamp", Plain),
    Field("deprecatedLastTimestamp", Plain),
    Field("deprecatedCount", Plain),
);

static ROLE: Shape = object!(Field("rules", Plain), Field("aggregationRule", Plain));

static ROLE_BINDING: Shape = object!(Field("subjects", Plain), Field("roleRef", Plain));

static CONTROLLER_REVISION: Shape = object!(Field("data", Plain), Field("revision", Plain));

static CRD: Shape = object!(Field("spec", Plain), Field("status", Plain));

// Kinds whose fields sit beside ObjectMeta rather than under `spec` (k8s.io/api v0.37.2).
/// scheduling/v1 `PriorityClass`.
static PRIORITY_CLASS: Shape = object!(
    Field("value", Plain),
    Field("globalDefault", Plain),
    Field("description", Plain),
    Field("preemptionPolicy", Plain),
);

/// storage/v1 `StorageClass`.
static STORAGE_CLASS: Shape = object!(
    Field("provisioner", Plain),
    Field("parameters", Plain),
    Field("reclaimPolicy", Plain),
    Field("mountOptions", Plain),
    Field("allowVolumeExpansion", Plain),
    Field("volumeBindingMode", Plain),
    Field("allowedTopologies", Plain),
);

/// node/v1 `RuntimeClass`.
static RUNTIME_CLASS: Shape = object!(
    Field("handler", Plain),
    Field("overhead", Plain),
    Field("scheduling", Plain),
);

/// discovery/v1 `EndpointSlice`.
static ENDPOINT_SLICE: Shape = object!(
    Field("addressType", Plain),
    Field("endpoints", Plain),
    Field("ports", Plain),
);

/// storage/v1 `CSIStorageCapacity`.
static CSI_STORAGE_CAPACITY: Shape = object!(
    Field("nodeTopology", Plain),
    Field("storageClassName", Plain),
    Field("capacity", Plain),
    Field("maximumVolumeSize", Plain),
);

/// storage/v1 `VolumeAttributesClass`.
static VOLUME_ATTRIBUTES_CLASS: Shape =
    object!(Field("driverName", Plain), Field("parameters", Plain));

static POD: Shape = object!(
    Field("spec", Object(&POD_SPEC)),
    Field("status", Object(&POD_STATUS)),
);

static WORKLOAD: Shape = object!(
    Field("spec", Object(&WORKLOAD_SPEC)),
    Field("status", Object(&WORKLOAD_STATUS)),
);

/// DeploymentSpec (ReplicaSet's, StatefulSet's and DaemonSet's share its leading fields).
static WORKLOAD_SPEC: Shape = Shape(&[
    Field("replicas", Plain),
    Field("selector", Plain),
    Field("template", Object(&POD_TEMPLATE_SPEC)),
    Field("strategy", Plain),
    Field("minReadySeconds", Plain),
    Field("revisionHistoryLimit", Plain),
    Field("paused", Plain),
    Field("progressDeadlineSeconds", Plain),
]);

static WORKLOAD_STATUS: Shape = Shape(&[
    Field("observedGeneration", Plain),
    Field("replicas", Plain),
    Field("updatedReplicas", Plain),
    Field("readyReplicas", Plain),
    Field("availableReplicas", Plain),
    Field("unavailableReplicas", Plain),
    Field("terminatingReplicas", Plain),
    Field("conditions", Items(&CONDITION)),
    Field("collisionCount", Plain),
]);

static CONDITION: Shape = plain!(
    "type",
    "status",
    "observedGeneration",
    "lastProbeTime",
    "lastUpdateTime",
    "lastTransitionTime",
    "reason",
    "message"
);

static POD_TEMPLATE_SPEC: Shape = Shape(&[
    Field("metadata", Object(&OBJECT_META)),
    Field("spec", Object(&POD_SPEC)),
]);

static POD_SPEC: Shape = Shape(&[
    Field("volumes", Plain),
    Field("initContainers", Items(&CONTAINER)),
    Field("containers", Items(&CONTAINER)),
    Field("ephemeralContainers", Plain),
    Field("restartPolicy", Plain),
    Field("terminationGracePeriodSeconds", Plain),
    Field("activeDeadlineSeconds", Plain),
    Field("dnsPolicy", Plain),
    Field("nodeSelector", Plain),
    Field("serviceAccountName", Plain),
    Field("serviceAccount", Plain),
    Field("automountServiceAccountToken", Plain),
    Field("nodeName", Plain),
    Field("hostNetwork", Plain),
    Field("hostPID", Plain),
    Field("hostIPC", Plain),
    Field("shareProcessNamespace", Plain),
    Field("securityContext", Plain),
    Field("imagePullSecrets", Plain),
    Field("hostname", Plain),
    Field("subdomain", Plain),
    Field("affinity", Plain),
    Field("schedulerName", Plain),
    Field("tolerations", Items(&TOLERATION)),
    Field("hostAliases", Plain),
    Field("priorityClassName", Plain),
    Field("priority", Plain),
    Field("dnsConfig", Plain),
    Field("readinessGates", Plain),
    Field("runtimeClassName", Plain),
    Field("enableServiceLinks", Plain),
    Field("preemptionPolicy", Plain),
    Field("overhead", Plain),
    Field("topologySpreadConstraints", Plain),
    Field("setHostnameAsFQDN", Plain),
    Field("os", Plain),
    Field("hostUsers", Plain),
    Field("schedulingGates", Plain),
    Field("resourceClaims", Plain),
    Field("resources", Plain),
    Field("hostnameOverride", Plain),
]);

static TOLERATION: Shape = plain!("key", "operator", "value", "effect", "tolerationSeconds");

static CONTAINER: Shape = Shape(&[
    Field("name", Plain),
    Field("image", Plain),
    Field("command", Plain),
    Field("args", Plain),
    Field("workingDir", Plain),
    Field("ports", Items(&CONTAINER_PORT)),
    Field("envFrom", Plain),
    Field("env", Plain),
    Field("resources", Plain),
    Field("resizePolicy", Plain),
    Field("restartPolicy", Plain),
    Field("restartPolicyRules", Plain),
    Field("volumeMounts", Plain),
    Field("volumeDevices", Plain),
    Field("livenessProbe", Plain),
    Field("readinessProbe", Plain),
    Field("startupProbe", Plain),
    Field("lifecycle", Plain),
    Field("terminationMessagePath", Plain),
    Field("terminationMessagePolicy", Plain),
    Field("imagePullPolicy", Plain),
    Field("securityContext", Plain),
    Field("stdin", Plain),
    Field("stdinOnce", Plain),
    Field("tty", Plain),
]);

static CONTAINER_PORT: Shape = plain!("name", "hostPort", "containerPort", "protocol", "hostIP");

static POD_STATUS: Shape = Shape(&[
    Field("observedGeneration", Plain),
    Field("phase", Plain),
    Field("conditions", Items(&CONDITION)),
    Field("message", Plain),
    Field("reason", Plain),
    Field("nominatedNodeName", Plain),
    Field("hostIP", Plain),
    Field("hostIPs", Plain),
    Field("podIP", Plain),
    Field("podIPs", Plain),
    Field("startTime", Plain),
    Field("initContainerStatuses", Items(&CONTAINER_STATUS)),
    Field("containerStatuses", Items(&CONTAINER_STATUS)),
    Field("qosClass", Plain),
    Field("ephemeralContainerStatuses", Items(&CONTAINER_STATUS)),
    Field("resize", Plain),
    Field("resourceClaimStatuses", Plain),
]);

static CONTAINER_STATUS: Shape = plain!(
    "name",
    "state",
    "lastState",
    "ready",
    "restartCount",
    "image",
    "imageID",
    "containerID",
    "started",
    "allocatedResources",
    "resources",
    "volumeMounts",
    "user",
    "allocatedResourcesStatus",
    "stopSignal"
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn written(value: &Value, kind: &str) -> String {
        let api_version = value["apiVersion"].as_str().unwrap_or("v1");
        let mut out = Vec::new();
        write_inner(&mut out, value, Object(object_shape(api_version, kind)));
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn fields_follow_go_order_and_the_rest_key_order() {
        let map = json!({
            "apiVersion": "v1", "data": {"b": "1", "a": "2"}, "kind": "ConfigMap", "immutable": true,
            "metadata": {"uid": "u", "name": "n", "labels": {"z": "1", "a": "2"}}, "zz": 1, "aa": 2
        });
        assert_eq!(
            written(&map, "ConfigMap"),
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"n","uid":"u","labels":{"a":"2","z":"1"}},"immutable":true,"data":{"a":"2","b":"1"},"aa":2,"zz":1}"#
        );
    }

    #[test]
    fn kinds_with_fields_beside_metadata_follow_their_go_structs() {
        let class = json!({"apiVersion": "scheduling.k8s.io/v1", "description": "d",
            "kind": "PriorityClass", "metadata": {"name": "p"}, "preemptionPolicy": "Never",
            "value": 7});
        assert_eq!(
            written(&class, "PriorityClass"),
            r#"{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"p"},"value":7,"description":"d","preemptionPolicy":"Never"}"#
        );
        let slice = json!({"apiVersion": "discovery.k8s.io/v1", "addressType": "IPv4",
            "endpoints": [], "kind": "EndpointSlice", "metadata": {}, "ports": []});
        assert!(
            written(&slice, "EndpointSlice")
                .ends_with(r#""metadata":{},"addressType":"IPv4","endpoints":[],"ports":[]}"#)
        );
    }

    /// A compact body with sorted keys is reordered by moving bytes, to exactly what parsing
    /// and writing it in Go order gives.
    #[test]
    fn a_sorted_compact_body_is_reordered_as_serialising_it_would() {
        let mut pod = crate::seed::synthetic_pod("ns", 3);
        pod["metadata"]["annotations"] = json!({"b": "<&>", "a": "x\"y"});
        pod["spec"]["containers"][0]["env"] = json!([{"value": "v", "name": "n"}]);
        let sorted = serde_json::to_vec(&pod).unwrap_or_default();
        let parsed: Value = serde_json::from_slice(&sorted).unwrap_or_default();
        let expected = crate::json::type_meta::serialise(&parsed, false).0;
        assert_eq!(reorder_compact(&sorted), Some(expected));
        // Not compact, or a key twice: left to the parser.
        assert_eq!(reorder_compact(b"{ \"kind\": \"Pod\"}"), None);
        assert_eq!(reorder_compact(br#"{"kind":"Pod","kind":"Pod"}"#), None);
    }

    /// events.k8s.io's Event is not core's: its own fields, in its own order.
    #[test]
    fn an_events_k8s_io_event_has_its_own_order() {
        let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "note": "n",
            "deprecatedFirstTimestamp": null, "eventTime": "t", "reason": "r"});
        assert_eq!(
            written(&event, "Event"),
            r#"{"kind":"Event","apiVersion":"events.k8s.io/v1","eventTime":"t","reason":"r","note":"n","deprecatedFirstTimestamp":null}"#
        );
    }

    #[test]
    fn nested_structs_and_lists_of_structs_are_ordered() {
        let pod = json!({"kind": "Pod", "spec": {"nodeName": "n", "containers": [{"image": "i", "name": "c"}]}});
        assert_eq!(
            written(&pod, "Pod"),
            r#"{"kind":"Pod","spec":{"containers":[{"name":"c","image":"i"}],"nodeName":"n"}}"#
        );
    }
}
