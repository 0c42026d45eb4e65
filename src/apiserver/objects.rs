//! The current objects of one resource, by store key (`namespace/name` or `name`): found through
//! a hash index, listed through an ordered one. An update replaces an object in its slot and
//! touches neither index (a lookup in an ordered map of thousands of keys costs a cache miss per
//! key compared); only creates and deletes change the key order.

use std::collections::{BTreeMap, HashMap};
use std::ops::RangeBounds;
use std::sync::Arc;

use super::store::StoredObject;

/// The objects of one resource.
#[derive(Debug, Default)]
pub struct Objects {
    /// Key → slot, in key order.
    order: BTreeMap<String, usize>,
    /// Key → slot.
    index: HashMap<String, usize>,
    /// The objects; None in a slot freed by a delete.
    slots: Vec<Option<Arc<StoredObject>>>,
    /// Freed slots, reused first.
    free: Vec<usize>,
}

impl Objects {
    /// The object at `key`.
    pub fn get(&self, key: &str) -> Option<&Arc<StoredObject>> {
        let slot = *self.index.get(key)?;
        self.slots.get(slot)?.as_ref()
    }

    /// The object at `key`, to replace it in place (same key).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Arc<StoredObject>> {
        let slot = *self.index.get(key)?;
        self.slots.get_mut(slot)?.as_mut()
    }

    /// Stores `object` at `key`; returns the object it replaces.
    pub fn insert(&mut self, key: String, object: Arc<StoredObject>) -> Option<Arc<StoredObject>> {
        if let Some(current) = self.get_mut(&key) {
            return Some(std::mem::replace(current, object));
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        if let Some(free) = self.slots.get_mut(slot) {
            *free = Some(object);
        }
        self.index.insert(key.clone(), slot);
        self.order.insert(key, slot);
        None
    }

    /// Removes the object at `key`.
    pub fn remove(&mut self, key: &str) -> Option<Arc<StoredObject>> {
        let slot = self.index.remove(key)?;
        self.order.remove(key);
        self.free.push(slot);
        self.slots.get_mut(slot)?.take()
    }

    /// The objects with keys in `range`, in key order.
    pub fn range(
        &self,
        range: impl RangeBounds<String>,
    ) -> impl Iterator<Item = (&String, &Arc<StoredObject>)> {
        self.order
            .range(range)
            .filter_map(|(key, slot)| Some((key, self.slots.get(*slot)?.as_ref()?)))
    }

    /// Every object, in key order.
    pub fn values(&self) -> impl Iterator<Item = &Arc<StoredObject>> {
        self.range(..).map(|(_, object)| object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::resources::Registry;
    use serde_json::json;

    fn object(name: &str) -> Arc<StoredObject> {
        let registry = Registry::with_builtins();
        let Some(resource) = registry.find("", "v1", "configmaps") else {
            unreachable!("configmaps are built in")
        };
        let value = json!({"metadata": {"name": name, "namespace": "default"}});
        let Ok(object) = StoredObject::new(&value, &resource, 1) else {
            unreachable!("a valid object")
        };
        Arc::new(object)
    }

    fn keys(objects: &Objects) -> Vec<String> {
        objects.values().map(|o| o.name().to_owned()).collect()
    }

    #[test]
    fn keys_stay_ordered_and_slots_are_reused() {
        let mut objects = Objects::default();
        for name in ["c", "a", "b"] {
            assert!(objects.insert(name.into(), object(name)).is_none());
        }
        assert!(objects.insert("a".into(), object("a")).is_some());
        assert_eq!(keys(&objects), ["a", "b", "c"]);
        assert!(objects.remove("b").is_some());
        assert!(objects.remove("b").is_none());
        assert!(objects.get("b").is_none());
        objects.insert("d".into(), object("d"));
        assert_eq!(objects.slots.len(), 3);
        assert_eq!(keys(&objects), ["a", "c", "d"]);
        let after_a: Vec<&String> = objects
            .range("a".to_owned()..)
            .map(|(k, _)| k)
            .skip(1)
            .collect();
        assert_eq!(after_a, ["c", "d"]);
    }
}
