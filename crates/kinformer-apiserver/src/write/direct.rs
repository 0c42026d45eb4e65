//! Writes addressed by the objects' own `apiVersion`, `kind` and metadata instead of a request:
//! what seeding, churn, the controllers, benchmarks and [`EmbeddedServer`]'s methods write.
//!
//! [`EmbeddedServer`]: crate::EmbeddedServer

use std::sync::Arc;

use serde_json::Value;

use super::deletion::DeleteOptions;
use super::managed::Writer;
use super::meta::str_at;
use super::registry::{
    Deletion, Ownership, create_in, delete_in, new_object, replace_in, update_in,
};
use super::target::{DIRECT_WRITER, Target};
use crate::objects::{StoredObject, object_key};
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::{Store, Txn};

/// Creates an object addressed by its own `apiVersion`, `kind` and `metadata.namespace`
/// (seeding and churn).
pub fn create_object(store: &Store, value: Value) -> Result<Arc<StoredObject>, ApiError> {
    create_object_as(store, value, DIRECT_WRITER)
}

/// [`create_object`] recorded in managedFields as `writer`'s.
pub fn create_object_as(
    store: &Store,
    value: Value,
    writer: Writer<'static>,
) -> Result<Arc<StoredObject>, ApiError> {
    store.write(|txn| {
        let resource = resource_of(txn, &value)?;
        create_in(txn, &resource, None, value, Ownership::Update(writer))
    })
}

/// Replaces an object addressed by its own metadata (churn).
pub fn update_object(
    store: &Store,
    resource: &Arc<ResourceType>,
    value: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    let namespace = str_at(&value, "/metadata/namespace").to_owned();
    let name = str_at(&value, "/metadata/name").to_owned();
    let target = Target::object(resource, &namespace, &name);
    store.write(|txn| update_in(txn, &target, value))
}

/// Deletes an object by namespace and name at once, as a storage-level delete (churn): a pod
/// gets no grace period; finalizers still hold an object.
pub fn delete_object(
    store: &Store,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
) -> Result<Arc<StoredObject>, ApiError> {
    delete_object_with(
        store,
        resource,
        namespace,
        name,
        &DeleteOptions::immediate(),
    )
    .map(|deletion| deletion.object)
}

/// Deletes an object by namespace and name as a DELETE with `options` does (the controllers).
pub fn delete_object_with(
    store: &Store,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
    options: &DeleteOptions,
) -> Result<Deletion, ApiError> {
    store.write(|txn| {
        let current = txn
            .get(&resource.key(), &object_key(namespace, name))
            .ok_or_else(|| ApiError::not_found(resource, name))?;
        delete_in(txn, resource, &current, options)
    })
}

/// Updates per write transaction in [`replace_many`]: long enough to
/// amortise the lock, short enough that watchers catching up are not starved.
const UPDATE_BATCH: usize = 256;

/// Replaces many existing objects of one resource, each given as namespace, name and PUT body
/// (see [`replace_in`]), a batch per write transaction (benchmarks).
pub fn replace_many<N, B>(
    store: &Store,
    resource: &Arc<ResourceType>,
    objects: impl IntoIterator<Item = (N, N, B)>,
) -> Result<usize, ApiError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    let mut objects = objects.into_iter().peekable();
    let mut count = 0;
    while objects.peek().is_some() {
        count += store.write(|txn| {
            let mut written = 0;
            for (namespace, name, body) in objects.by_ref().take(UPDATE_BATCH) {
                let target = Target::object(resource, namespace.as_ref(), name.as_ref());
                replace_in(txn, &target, body.as_ref())?;
                written += 1;
            }
            Ok(written)
        })?;
    }
    Ok(count)
}

/// Stores many objects at once without watch events (benchmark seeding).
pub fn seed_unrecorded(
    store: &Store,
    values: impl IntoIterator<Item = Value>,
) -> Result<usize, ApiError> {
    store.write(|txn| {
        let mut count = 0;
        for value in values {
            let resource = resource_of(txn, &value)?;
            let prepared = new_object(
                txn,
                &resource,
                None,
                value,
                Ownership::Update(DIRECT_WRITER),
            )?;
            txn.put_unrecorded(&resource, prepared)?;
            count += 1;
        }
        Ok(count)
    })
}

/// The served resource of an object, from its `apiVersion` and `kind`.
fn resource_of(txn: &Txn<'_>, value: &Value) -> Result<Arc<ResourceType>, ApiError> {
    let api_version = str_at(value, "/apiVersion");
    let kind = str_at(value, "/kind");
    txn.registry().find_kind(api_version, kind).ok_or_else(|| {
        ApiError::new(
            404,
            "NotFound",
            format!("no resource is served for apiVersion {api_version:?} kind {kind:?}"),
        )
    })
}
