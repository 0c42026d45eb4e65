//! Storage kinds: the simple `SetDefaults_` of StorageClasses (`pkg/apis/storage/v1/
//! defaults.go`), PersistentVolumes and claims (`pkg/apis/core/v1/defaults.go`), and the
//! finalizer the StorageObjectInUseProtection admission plugin gives a new claim or volume
//! (`plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go`).

use serde_json::{Map, Value, json};

use super::default;

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

/// `SetDefaults_PersistentVolume`: `persistentVolumeReclaimPolicy` Retain, `volumeMode`
/// Filesystem.
pub fn volume(object: &mut Map<String, Value>) {
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        default(spec, "persistentVolumeReclaimPolicy", "Retain".into());
        default(spec, "volumeMode", "Filesystem".into());
    }
}

/// A new claim or volume: phase Pending, and `finalizer` (`kubernetes.io/pvc-protection`,
/// `kubernetes.io/pv-protection`) among its finalizers.
pub fn new_claim_or_volume(object: &mut Map<String, Value>, finalizer: &str) {
    object.insert("status".into(), json!({"phase": "Pending"}));
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
