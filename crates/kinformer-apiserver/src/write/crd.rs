//! CustomResourceDefinition writes (apiextensions-apiserver): creating or updating a CRD
//! starts serving the resource it defines and reports it established; deleting one stops
//! serving it and removes its objects.

use serde_json::{Value, json};

use crate::objects::StoredObject;

use super::meta::{now, str_at};
use crate::resources::{ResourceType, from_crd};
use crate::status::ApiError;
use crate::store::Txn;

/// When `resource` is CustomResourceDefinitions: starts serving the resource the CRD `value`
/// defines and sets its status as kube-apiserver reports an established CRD.
pub fn establish(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    value: &mut Value,
) -> Result<(), ApiError> {
    if !resource.is_crd() {
        return Ok(());
    }
    register_crd(txn, value)?;
    let status = crd_status(value);
    if let Some(object) = value.as_object_mut() {
        object.insert("status".into(), status);
    }
    Ok(())
}

/// When `resource` is CustomResourceDefinitions: stops serving the resource the deleted CRD
/// `removed` defined, with all its objects.
pub fn withdraw(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    removed: &StoredObject,
) -> Result<(), ApiError> {
    if !resource.is_crd() {
        return Ok(());
    }
    if let Ok(defined) = from_crd(&removed.to_value()?) {
        txn.unregister(&defined)?;
    }
    Ok(())
}

/// Starts serving the resource a CRD defines.
fn register_crd(txn: &mut Txn<'_>, crd: &Value) -> Result<(), ApiError> {
    let crd_resource = txn
        .registry()
        .find_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition")
        .ok_or_else(ApiError::no_route)?;
    let name = str_at(crd, "/metadata/name");
    let defined = from_crd(crd).map_err(|cause| ApiError::invalid(&crd_resource, name, &cause))?;
    if txn.registry().is_builtin_group(&defined.group) {
        return Err(ApiError::invalid(
            &crd_resource,
            name,
            "spec.group: Invalid value: the group is served by built-in resources",
        ));
    }
    txn.register(defined);
    Ok(())
}

/// The CRD's status as kube-apiserver reports an established CRD.
fn crd_status(crd: &Value) -> Value {
    let condition = |kind: &str, reason: &str| json!({"type": kind, "status": "True", "lastTransitionTime": now(), "reason": reason, "message": ""});
    let stored: Vec<Value> = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").cloned())
        .collect();
    json!({
        "conditions": [condition("NamesAccepted", "NoConflicts"), condition("Established", "InitialNamesAccepted")],
        "acceptedNames": crd.pointer("/spec/names").cloned().unwrap_or(Value::Null),
        "storedVersions": stored,
    })
}
