//! Defaults and new-object status of the kinds served beyond the first groups: the simple
//! `SetDefaults_` functions (`pkg/apis/scheduling/v1/defaults.go`, `storage/v1/defaults.go`,
//! `core/v1/defaults.go` for claims, `autoscaling/v2/defaults.go`, the zero `conditions` of an
//! EndpointSlice's endpoint) and the status each strategy's `PrepareForCreate` leaves.

use serde_json::{Map, Value, json};

/// Sets `key` in `object` when absent.
fn default(object: &mut Map<String, Value>, key: &str, value: Value) {
    object.entry(key).or_insert(value);
}

/// `SetDefaults_PriorityClass`: `preemptionPolicy` PreemptLowerPriority.
pub fn priority_class(object: &mut Map<String, Value>) {
    default(object, "preemptionPolicy", "PreemptLowerPriority".into());
}

/// `SetDefaults_StorageClass`: `reclaimPolicy` Delete, `volumeBindingMode` Immediate.
pub fn storage_class(object: &mut Map<String, Value>) {
    default(object, "reclaimPolicy", "Delete".into());
    default(object, "volumeBindingMode", "Immediate".into());
}

/// `SetDefaults_PersistentVolumeClaimSpec`: `volumeMode` Filesystem.
pub fn claim(object: &mut Map<String, Value>) {
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        default(spec, "volumeMode", "Filesystem".into());
    }
}

/// `SetDefaults_HorizontalPodAutoscaler` (v2): with no metrics, 80% CPU utilization.
pub fn autoscaler(object: &mut Map<String, Value>) {
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        default(spec, "minReplicas", 1.into());
        default(
            spec,
            "metrics",
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80}}}]),
        );
    }
}

/// An EndpointSlice's endpoints: `conditions` is no pointer, so always written.
pub fn endpoint_slice(object: &mut Map<String, Value>) {
    let endpoints = object.get_mut("endpoints").and_then(Value::as_array_mut);
    for endpoint in endpoints.into_iter().flatten() {
        if let Some(endpoint) = endpoint.as_object_mut() {
            default(endpoint, "conditions", json!({}));
        }
    }
}

/// The finalizer the StorageObjectInUseProtection admission plugin gives a new claim or volume
/// (`plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go`).
pub fn protection_finalizer(object: &mut Map<String, Value>, finalizer: &str) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let list = metadata
        .entry("finalizers")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Some(list) = list.as_array_mut()
        && !list.iter().any(|f| f == finalizer)
    {
        list.push(finalizer.into());
    }
}

/// The status a new object of `(group, plural)` is given, when its strategy sets one.
pub fn new_status(group: &str, plural: &str) -> Option<Value> {
    Some(match (group, plural) {
        ("autoscaling", "horizontalpodautoscalers") => {
            json!({"desiredReplicas": 0, "currentMetrics": null})
        }
        ("networking.k8s.io", "ingresses") => json!({"loadBalancer": {}}),
        ("", "resourcequotas") => json!({}),
        _ => return None,
    })
}
