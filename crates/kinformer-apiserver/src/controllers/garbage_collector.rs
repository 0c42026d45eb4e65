//! kube-controller-manager's garbage collector (`pkg/controller/garbagecollector`), level-
//! triggered: an object whose owners are all gone is deleted (background); the dependents of an
//! owner deleted in the foreground (`foregroundDeletion`) are deleted in the foreground and the
//! owner's finalizer removed once no dependent that blocks it (`blockOwnerDeletion`) is left;
//! the dependents of an owner deleted with `orphan` lose their owner reference, then the owner
//! its finalizer.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::objects::StoredObject;
use crate::resources::{Registry, ResourceType};
use crate::store::Store;
use crate::write::{DeleteOptions, Propagation, delete_object_with, update_object};

const ORPHAN: &str = "orphan";
const FOREGROUND: &str = "foregroundDeletion";

/// An object the collector looks at: one with owners, or an owner being deleted with a
/// finalizer of the collector's.
struct Node {
    resource: Arc<ResourceType>,
    value: Value,
}

impl Node {
    fn uid(&self) -> &str {
        text(&self.value, "/metadata/uid")
    }

    fn owners(&self) -> Vec<&Value> {
        self.value
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .map(|refs| refs.iter().collect())
            .unwrap_or_default()
    }

    fn has_finalizer(&self, name: &str) -> bool {
        self.value
            .pointer("/metadata/finalizers")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|f| f == name))
    }

    fn deleting(&self) -> bool {
        self.value
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null())
    }
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// One pass of the collector over every stored object with owners or a collector's finalizer.
pub fn collect(store: &Store) {
    let nodes = interesting(store);
    if nodes.is_empty() {
        return;
    }
    let owners: HashMap<&str, &Node> = nodes
        .iter()
        .filter(|n| n.deleting() && (n.has_finalizer(FOREGROUND) || n.has_finalizer(ORPHAN)))
        .map(|n| (n.uid(), n))
        .collect();
    let registry = store.registry();
    for node in &nodes {
        delete_if_orphaned(store, &registry, node, &owners);
    }
    for owner in owners.values() {
        let dependents: Vec<&Node> = nodes
            .iter()
            .filter(|n| n.owners().iter().any(|r| text(r, "/uid") == owner.uid()))
            .collect();
        if owner.has_finalizer(ORPHAN) {
            orphan(store, owner, &dependents);
        } else {
            delete_in_foreground(store, owner, &dependents);
        }
    }
}

/// The stored objects with `ownerReferences` or `finalizers` (read from their metadata's
/// bytes: the others are not parsed).
fn interesting(store: &Store) -> Vec<Node> {
    let mut nodes = Vec::new();
    for resource in store.registry().all() {
        let objects: Vec<Arc<StoredObject>> = store
            .write(|txn| Ok(txn.objects(&resource.key())))
            .unwrap_or_default();
        for object in objects {
            let wanted = object.metadata_value(b"ownerReferences").is_some()
                || object.metadata_value(b"finalizers").is_some();
            if wanted && let Ok(value) = object.to_value() {
                nodes.push(Node {
                    resource: Arc::clone(&resource),
                    value,
                });
            }
        }
    }
    nodes
}

/// Whether the owner a reference names exists: an object of its kind, name and uid.
fn owner_exists(store: &Store, registry: &Registry, dependent: &Node, reference: &Value) -> bool {
    let Some(resource) =
        registry.find_kind(text(reference, "/apiVersion"), text(reference, "/kind"))
    else {
        return false;
    };
    let namespace = if resource.namespaced {
        text(&dependent.value, "/metadata/namespace")
    } else {
        ""
    };
    let key = crate::objects::object_key(namespace, text(reference, "/name"));
    store
        .get(&resource.key(), &key)
        .and_then(|o| o.to_value().ok())
        .is_some_and(|o| text(&o, "/metadata/uid") == text(reference, "/uid"))
}

/// Deletes (in the background) a dependent none of whose owners exists.
fn delete_if_orphaned(
    store: &Store,
    registry: &Registry,
    node: &Node,
    deleting_owners: &HashMap<&str, &Node>,
) {
    let references = node.owners();
    if references.is_empty() || node.deleting() {
        return;
    }
    let waited_on = references
        .iter()
        .any(|r| deleting_owners.contains_key(text(r, "/uid")));
    if waited_on
        || references
            .iter()
            .any(|r| owner_exists(store, registry, node, r))
    {
        return;
    }
    delete(store, node, Propagation::Background);
}

fn delete(store: &Store, node: &Node, propagation: Propagation) {
    let options = DeleteOptions {
        propagation: Some(propagation),
        uid: Some(node.uid().to_owned()),
        ..DeleteOptions::default()
    };
    let namespace = text(&node.value, "/metadata/namespace");
    let name = text(&node.value, "/metadata/name");
    if let Err(e) = delete_object_with(store, &node.resource, namespace, name, &options) {
        tracing::debug!("garbage collector delete skipped: {}", e.message);
    }
}

/// A foreground deletion: every dependent deleted in the foreground; the owner's finalizer
/// removed once no dependent blocks it.
fn delete_in_foreground(store: &Store, owner: &Node, dependents: &[&Node]) {
    for dependent in dependents.iter().filter(|d| !d.deleting()) {
        delete(store, dependent, Propagation::Foreground);
    }
    let blocked = dependents.iter().any(|d| {
        d.owners().iter().any(|r| {
            text(r, "/uid") == owner.uid()
                && r.get("blockOwnerDeletion") == Some(&Value::Bool(true))
        })
    });
    if !blocked {
        remove_finalizer(store, owner, FOREGROUND);
    }
}

/// An orphaning deletion: each dependent's reference to the owner removed, then the owner's
/// `orphan` finalizer.
fn orphan(store: &Store, owner: &Node, dependents: &[&Node]) {
    for dependent in dependents {
        let mut value = dependent.value.clone();
        if let Some(refs) = value
            .pointer_mut("/metadata/ownerReferences")
            .and_then(Value::as_array_mut)
        {
            refs.retain(|r| text(r, "/uid") != owner.uid());
            if refs.is_empty()
                && let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut)
            {
                meta.remove("ownerReferences");
            }
        }
        if let Err(e) = update_object(store, &dependent.resource, value) {
            tracing::debug!("garbage collector orphaning skipped: {}", e.message);
            return;
        }
    }
    remove_finalizer(store, owner, ORPHAN);
}

/// Removes one finalizer from `node` (the update that removes the last one deletes it).
fn remove_finalizer(store: &Store, node: &Node, finalizer: &str) {
    let mut value = node.value.clone();
    let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(list) = meta.get_mut("finalizers").and_then(Value::as_array_mut) {
        list.retain(|f| f != finalizer);
        if list.is_empty() {
            meta.remove("finalizers");
        }
    }
    if let Err(e) = update_object(store, &node.resource, value) {
        tracing::debug!("garbage collector finalizer removal skipped: {}", e.message);
    }
}
