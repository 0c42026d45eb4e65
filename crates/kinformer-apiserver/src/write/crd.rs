//! CustomResourceDefinition writes (apiextensions-apiserver): creating or updating a CRD
//! starts serving the resource it defines and reports it established (the status its naming
//! and establishing controllers write, under their own managedFields entry: `kube-apiserver`,
//! subresource `status`); deleting one stops serving it and removes its objects.

use serde_json::{Value, json};

use crate::objects::StoredObject;

use super::managed::{self, Writer};
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
    // The strategy sets `storedVersions` (owned by no one), the controllers the rest of what
    // the zero value's `acceptedNames` leaves empty; `conditions` was there, null (the Go
    // field has no `omitempty`), so the controllers own each condition but not the list.
    let mut before = value.clone();
    before["status"] = json!({
        "conditions": null,
        "acceptedNames": {"plural": "", "kind": ""},
        "storedVersions": status["storedVersions"],
    });
    value["status"] = status;
    managed::record_update(resource, &before, value, STATUS_CONTROLLERS);
    Ok(())
}

/// Sets the status a new CRD is stored with before its controllers ran (the strategy's
/// `storedVersions`, taken from `established`, and the zero value's empty rest).
pub fn set_created_status(value: &mut Value, established: &Value) {
    value["status"] = json!({
        "conditions": null,
        "acceptedNames": {"plural": "", "kind": ""},
        "storedVersions": established["status"]["storedVersions"],
    });
}

/// Who writes a CRD's status: apiextensions-apiserver's naming and establishing controllers,
/// which run in kube-apiserver.
const STATUS_CONTROLLERS: Writer<'static> = Writer {
    manager: "kube-apiserver",
    subresource: "status",
};

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
    let condition = |kind: &str, reason: &str, message: &str| json!({"type": kind, "status": "True", "lastTransitionTime": now(), "reason": reason, "message": message});
    let stored: Vec<Value> = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").cloned())
        .collect();
    json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "acceptedNames": crd.pointer("/spec/names").cloned().unwrap_or(Value::Null),
        "storedVersions": stored,
    })
}
