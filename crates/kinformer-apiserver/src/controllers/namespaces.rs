//! kube-controller-manager's namespace controller (`pkg/controller/namespace/deletion`): a
//! Terminating namespace's objects are deleted (pods gracefully: the kubelet finishes them),
//! and once none is left its `kubernetes` finalizer is removed (`namespaces/finalize`), which
//! deletes it.

use std::sync::Arc;

use serde_json::Value;

use crate::resources::ResourceType;
use crate::store::Store;
use crate::write::{DeleteOptions, delete_object_with, update_object};

/// One pass over the Terminating namespaces.
pub fn finish_terminating(store: &Store) {
    let registry = store.registry();
    let Some(namespaces) = registry.find("", "v1", "namespaces") else {
        return;
    };
    let terminating: Vec<Value> = store
        .write(|txn| Ok(txn.objects(&namespaces.key())))
        .unwrap_or_default()
        .iter()
        .filter(|o| o.metadata_value(b"deletionTimestamp").is_some())
        .filter_map(|o| o.to_value().ok())
        .filter(held_by_us)
        .collect();
    for namespace in terminating {
        let name = namespace
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if delete_contents(store, name) == 0 {
            finalize(store, &namespaces, namespace.clone());
        }
    }
}

/// Whether the namespace still waits on the `kubernetes` finalizer.
fn held_by_us(namespace: &Value) -> bool {
    namespace
        .pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|f| f == "kubernetes"))
}

/// Deletes every object of `namespace` not yet being deleted; how many objects it still holds.
fn delete_contents(store: &Store, namespace: &str) -> usize {
    let resources: Vec<Arc<ResourceType>> = store
        .registry()
        .all()
        .into_iter()
        .filter(|r| r.namespaced)
        .collect();
    let mut left = 0;
    for resource in resources {
        let objects = store
            .write(|txn| Ok(txn.objects(&resource.key())))
            .unwrap_or_default();
        for object in objects.iter().filter(|o| o.namespace() == namespace) {
            left += 1;
            if object.metadata_value(b"deletionTimestamp").is_some() {
                continue;
            }
            let options = DeleteOptions::default();
            if let Err(e) = delete_object_with(store, &resource, namespace, object.name(), &options)
            {
                tracing::debug!("namespace controller delete skipped: {}", e.message);
            }
        }
    }
    left
}

/// Removes the `kubernetes` finalizer of an emptied namespace (then it is deleted).
fn finalize(store: &Store, namespaces: &Arc<ResourceType>, mut namespace: Value) {
    if let Some(list) = namespace
        .pointer_mut("/spec/finalizers")
        .and_then(Value::as_array_mut)
    {
        list.retain(|f| f != "kubernetes");
    }
    if let Err(e) = update_object(store, namespaces, namespace) {
        tracing::debug!("namespace controller finalize skipped: {}", e.message);
    }
}
