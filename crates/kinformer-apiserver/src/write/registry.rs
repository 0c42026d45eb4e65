//! The generic registry's writes inside one store transaction (kube-apiserver's
//! `registry/generic/registry/store.go`): create, update with the resourceVersion
//! precondition, and delete with grace periods and finalizers.
//! Creates and updates are defaulted ([`defaults`]) and record their writer in
//! `managedFields` ([`managed`]).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::admission;
use super::crd;
use super::custom_validation;
use super::defaults;
use super::deletion::{self, DeleteOptions, Graceful};
use super::managed::{self, Writer};
use super::meta::{metadata_mut, now, parse_object, str_at};
use super::node_taint;
use super::splice;
use super::strategy::{
    keep_server_metadata, merge_string_data, prepare_create, set_type_meta, with_status_of,
    with_stored_status,
};
use super::target::Target;
use super::workloads;
use super::zero_value::zero_value;
use crate::objects::StoredObject;
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::Txn;

/// The conflict message kube-apiserver uses for a stale resourceVersion.
const STALE: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// How a write's managedFields are made.
#[derive(Debug, Clone, Copy)]
pub enum Ownership<'a> {
    /// An Update by this writer, recorded from the change.
    Update(Writer<'a>),
    /// A server-side apply, whose managedFields [`managed::apply`] already made.
    Applied,
    /// A write whose strategy puts the old object's managedFields back (a CSR's approval:
    /// `csrApprovalStrategy.PrepareForUpdate` copies the old object, kubernetes
    /// `pkg/registry/certificates/certificates/strategy.go:282`): none recorded.
    Kept,
}

/// Creates an object in `txn`: prepared by the strategy, its creator recorded, admitted (a
/// pod: [`admission`]; a node: [`node_taint`]). A CRD is stored as created (answered so, its status not yet set by
/// the controllers, as kube-apiserver answers), then established (a second write).
pub fn create_in(
    txn: &mut Txn<'_>,
    resource: &Arc<ResourceType>,
    path_namespace: Option<&str>,
    value: Value,
    ownership: Ownership<'_>,
) -> Result<Arc<StoredObject>, ApiError> {
    let mut prepared = new_object(txn, resource, path_namespace, value, ownership)?;
    admission::admit_create(txn, resource, &mut prepared)?;
    node_taint::admit_create(resource, &mut prepared);
    if !resource.is_crd() {
        return txn.put(resource, prepared);
    }
    let mut established = prepared.clone();
    crd::establish(txn, resource, &mut established)?;
    crd::set_created_status(&mut prepared, &established);
    let created = txn.put(resource, prepared)?;
    txn.put(resource, established)?;
    Ok(created)
}

/// A new object as it is stored: checked and defaulted by the strategy, its creator recorded
/// (before what the strategy sets on a new object, which no manager owns).
pub fn new_object(
    txn: &Txn<'_>,
    resource: &ResourceType,
    path_namespace: Option<&str>,
    value: Value,
    ownership: Ownership<'_>,
) -> Result<Value, ApiError> {
    let mut prepared = prepare_create(txn, resource, path_namespace, value)?;
    custom_validation::check(resource, &mut prepared, None, false)?;
    if let Ownership::Update(writer) = ownership {
        managed::record_update(resource, zero_value(resource), &mut prepared, writer);
    }
    defaults::prepare_for_create(&mut prepared, resource);
    Ok(prepared)
}

/// Replaces the object `target` names with a PUT body ([`splice`]'s fast path when it applies).
pub fn replace_in(
    txn: &mut Txn<'_>,
    target: &Target,
    body: &[u8],
) -> Result<Arc<StoredObject>, ApiError> {
    if let Some(object) = splice::replace(txn, target, body) {
        return Ok(object);
    }
    let value = named_object(body, target.name)?;
    replace_value(txn, target, value)
}

/// A replace whose strategy keeps the stored managedFields ([`Ownership::Kept`]).
pub fn replace_kept(
    txn: &mut Txn<'_>,
    target: &Target,
    body: &[u8],
) -> Result<Arc<StoredObject>, ApiError> {
    let mut value = named_object(body, target.name)?;
    let stored = txn
        .get(&target.resource.key(), &target.key())
        .ok_or_else(|| ApiError::not_found(target.resource, target.name))?
        .to_value()?;
    if let (Some(meta), Some(fields)) = (
        value.get_mut("metadata").and_then(Value::as_object_mut),
        stored.pointer("/metadata/managedFields"),
    ) {
        meta.insert("managedFields".into(), fields.clone());
    }
    update_with(txn, target, value, Ownership::Kept, true)
}

/// The general path of a replace: the body's uid checked, then [`update_in`].
pub fn replace_value(
    txn: &mut Txn<'_>,
    target: &Target,
    value: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    update_with(txn, target, value, Ownership::Update(target.writer), true)
}

/// A PUT body's `metadata.uid` is a precondition (kube-apiserver's `DefaultUpdatedObjectInfo`
/// hands it to the storage, whose `Preconditions.Check` fails, answered `409 Conflict`:
/// `apiserver/pkg/storage/interfaces.go`, `apiserver/pkg/registry/rest/update.go`).
fn check_uid(target: &Target, current: &Value, value: &Value) -> Result<(), ApiError> {
    let given = str_at(value, "/metadata/uid");
    let stored = str_at(current, "/metadata/uid");
    if given.is_empty() || given == stored {
        return Ok(());
    }
    let why =
        format!("Precondition failed: UID in precondition: {given}, UID in object meta: {stored}");
    Err(ApiError::conflict(target.resource, target.name, &why))
}

/// A PUT body as an object named `name`: its `metadata.name` is filled in when missing and must
/// not differ.
pub fn named_object(body: &[u8], name: &str) -> Result<Value, ApiError> {
    let mut value = parse_object(body)?;
    match value.pointer("/metadata/name").and_then(Value::as_str) {
        Some(given) if given != name => {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({given}) does not match the name on the URL ({name})"
            )));
        }
        Some(_) => {}
        None => {
            metadata_mut(&mut value)?.insert("name".into(), name.into());
        }
    }
    Ok(value)
}

/// Replaces an object, keeping server-owned metadata, recording the target's writer; removes it
/// when its deletion was pending and its last finalizer is gone.
pub fn update_in(
    txn: &mut Txn<'_>,
    target: &Target,
    new: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    update_owned(txn, target, new, Ownership::Update(target.writer))
}

/// [`update_in`] with the managedFields made by `ownership`.
pub fn update_owned(
    txn: &mut Txn<'_>,
    target: &Target,
    new: Value,
    ownership: Ownership<'_>,
) -> Result<Arc<StoredObject>, ApiError> {
    update_with(txn, target, new, ownership, false)
}

/// [`update_owned`], `new`'s uid a precondition when `uid_precondition` (a PUT body's).
fn update_with(
    txn: &mut Txn<'_>,
    target: &Target,
    new: Value,
    ownership: Ownership<'_>,
    uid_precondition: bool,
) -> Result<Arc<StoredObject>, ApiError> {
    let resource = target.resource;
    let current = txn
        .get(&resource.key(), &target.key())
        .ok_or_else(|| ApiError::not_found(resource, target.name))?;
    let old = current.to_value()?;
    if uid_precondition {
        check_uid(target, &old, &new)?;
    }
    let requested_rv = str_at(&new, "/metadata/resourceVersion");
    if !requested_rv.is_empty() && requested_rv != current.rv.to_string() {
        return Err(ApiError::conflict(resource, target.name, STALE));
    }
    let mut value = if target.status_only {
        with_status_of(old.clone(), &new)
    } else if target.keeps_status {
        with_stored_status(new, &old)
    } else {
        new
    };
    set_type_meta(&mut value, resource)?;
    merge_string_data(&mut value, resource);
    defaults::apply_defaults(&mut value, resource);
    if !target.status_only {
        crate::kinds::validate(&value, resource)?;
    }
    keep_server_metadata(&mut value, &old, target)?;
    custom_validation::check(resource, &mut value, Some(&old), target.status_only)?;
    if let Ownership::Update(writer) = ownership {
        managed::record_update(resource, &old, &mut value, writer);
    }
    workloads::prepare_template_generation_for_update(&mut value, &old, resource);
    if !target.status_only {
        admission::admit_update(resource, &old, &mut value);
    }
    crd::establish(txn, resource, &mut value)?;
    let namespace_held = resource.is_core("namespaces") && !spec_finalizers(&value).is_empty();
    if is_deleting(&value) && finalizers(&value).is_empty() && !namespace_held {
        // The update is never stored: the object is deleted as it was stored (one DELETED
        // event, its last finalizer still listed), and the answer is the object as updated
        // (apiserver `registry/generic/registry/store.go:845`, `errEmptiedFinalizers`, and
        // `deleteWithoutFinalizers`).
        finish_delete(txn, resource, &target.key())?;
        return StoredObject::new(&value, resource, current.rv).map(Arc::new);
    }
    if unchanged(&old, &value) {
        // kube-apiserver's storage skips a write whose bytes equal the stored ones: no new
        // resourceVersion, no watch event (apiserver `storage/etcd3/store.go`
        // `GuaranteedUpdate`, `bytes.Equal(data, origState.data)`).
        return Ok(current);
    }
    txn.put(resource, value)
}

/// Whether `new` is `old` but for the resourceVersion it carries (the one asked for, or none).
fn unchanged(old: &Value, new: &Value) -> bool {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return false;
    };
    old.len() == new.len()
        && old
            .iter()
            .all(|(key, value)| match (key.as_str(), new.get(key)) {
                ("metadata", Some(meta)) => same_but_resource_version(value, meta),
                (_, given) => given == Some(value),
            })
}

fn same_but_resource_version(old: &Value, new: &Value) -> bool {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return old == new;
    };
    let rest = |map: &'_ Map<String, Value>| map.keys().filter(|k| *k != "resourceVersion").count();
    rest(old) == rest(new)
        && old
            .iter()
            .filter(|(key, _)| *key != "resourceVersion")
            .all(|(key, value)| new.get(key) == Some(value))
}

/// Whether the object's deletion is pending (it has a `deletionTimestamp`).
fn is_deleting(value: &Value) -> bool {
    value
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null())
}

/// The object's `metadata.finalizers`.
fn finalizers(value: &Value) -> Vec<Value> {
    value
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// What a deletion did: the object it answers, and whether it is gone.
#[derive(Debug)]
pub struct Deletion {
    /// The object as deleted (at the deletion's resourceVersion), or as marked.
    pub object: Arc<StoredObject>,
    /// Whether the object was removed (false: it waits on finalizers or a grace period).
    pub deleted: bool,
}

/// kube-apiserver's `Store.Delete` (`registry/generic/registry/store.go:1203`): a graceful
/// deletion marks the object ([`deletion::before_delete`]); the finalizers the propagation
/// asks for are set; an object still held by finalizers or a grace period is marked and
/// stays; any other is removed. A namespace goes through its own strategy first.
pub fn delete_in(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    current: &Arc<StoredObject>,
    options: &DeleteOptions,
) -> Result<Deletion, ApiError> {
    let mut value = current.to_value()?;
    if resource.is_core("namespaces") && !is_deleting(&value) {
        return mark_namespace_terminating(txn, resource, current, value, options);
    }
    if resource.is_core("namespaces") && !spec_finalizers(&value).is_empty() {
        return Ok(kept(current));
    }
    let graceful = deletion::before_delete(&mut value, resource, options);
    if graceful == Graceful::Pending {
        return Ok(kept(current));
    }
    let gc = deletion::gc_finalizers(&value, resource, options);
    if graceful == Graceful::No && finalizers(&value).is_empty() && gc.is_none() {
        return removed(txn, resource, current);
    }
    if let Some(list) = gc {
        set_finalizers(&mut value, list)?;
    }
    let pending = !finalizers(&value).is_empty();
    match graceful {
        Graceful::No if !pending => removed(txn, resource, current),
        Graceful::No => {
            deletion::mark_as_deleting(&mut value);
            store_marked(txn, resource, current, value)
        }
        Graceful::Marked(period) => {
            let marked = store_marked(txn, resource, current, value)?;
            if pending || period > 0 {
                return Ok(marked);
            }
            removed(txn, resource, current)
        }
        Graceful::Pending => Ok(kept(current)),
    }
}

/// The namespace strategy's first DELETE (`pkg/registry/core/namespace/storage/storage.go:174`):
/// `deletionTimestamp`, phase `Terminating`, the propagation's finalizers; it stays until its
/// `spec.finalizers` are emptied (the namespace controller's `finalize`).
fn mark_namespace_terminating(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    current: &Arc<StoredObject>,
    mut value: Value,
    options: &DeleteOptions,
) -> Result<Deletion, ApiError> {
    if let Some(list) = deletion::gc_finalizers(&value, resource, options) {
        set_finalizers(&mut value, list)?;
    }
    metadata_mut(&mut value)?.insert("deletionTimestamp".into(), now().into());
    value["status"]["phase"] = "Terminating".into();
    store_marked(txn, resource, current, value)
}

/// An answer that changes nothing: the object as it is stored.
fn kept(current: &Arc<StoredObject>) -> Deletion {
    Deletion {
        object: Arc::clone(current),
        deleted: false,
    }
}

/// Removes `current`: the answer is its last state at the deletion's resourceVersion.
fn removed(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    current: &StoredObject,
) -> Result<Deletion, ApiError> {
    let object = finish_delete(txn, resource, &current.key())?;
    Ok(Deletion {
        object,
        deleted: true,
    })
}

/// Stores a marked object, unless it is what is stored (then no write, as the storage skips
/// equal bytes).
fn store_marked(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    current: &Arc<StoredObject>,
    value: Value,
) -> Result<Deletion, ApiError> {
    if current.to_value()? == value {
        return Ok(kept(current));
    }
    Ok(Deletion {
        object: txn.put(resource, value)?,
        deleted: false,
    })
}

/// Sets `metadata.finalizers` (left out when empty, as Go's `omitempty` leaves it).
fn set_finalizers(value: &mut Value, list: Vec<Value>) -> Result<(), ApiError> {
    let metadata = metadata_mut(value)?;
    if list.is_empty() {
        metadata.remove("finalizers");
    } else {
        metadata.insert("finalizers".into(), Value::Array(list));
    }
    Ok(())
}

/// A namespace's `spec.finalizers` (what the namespace controller removes).
fn spec_finalizers(value: &Value) -> Vec<Value> {
    value
        .pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Removes an object (and, for a CRD, the resource it defines with all its objects).
fn finish_delete(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    key: &str,
) -> Result<Arc<StoredObject>, ApiError> {
    let removed = txn
        .remove(resource, key)?
        .ok_or_else(|| ApiError::not_found(resource, key))?;
    crd::withdraw(txn, resource, &removed)?;
    Ok(removed)
}
