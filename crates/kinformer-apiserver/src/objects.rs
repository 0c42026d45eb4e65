//! Stored objects ([`StoredObject`]: an object's JSON bytes plus the parsed bits selectors
//! need) and the current objects of one resource ([`Objects`]), by store key (`namespace/name`
//! or `name`): found through a hash index, listed through an ordered one. An update replaces an
//! object in its slot and touches neither index (a lookup in an ordered map of thousands of keys
//! costs a cache miss per key compared); only creates and deletes change the key order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::ops::RangeBounds;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::json::managed_entries::{self, ManagedEntry};
use super::json::members::{self, Member};
use super::json::type_meta::{self, TypeMetaSpans};
use super::resources::ResourceType;
use super::selectable::{Selectable, field_text};
use super::status::ApiError;

/// One stored object: its JSON bytes plus the parsed bits selectors need.
#[derive(Debug)]
pub struct StoredObject {
    /// The whole object, serialised once.
    pub bytes: Bytes,
    /// The object's resourceVersion.
    pub rv: u64,
    /// Shared by the versions the replace fast path writes when their labels stay.
    selectable: Arc<Selectable>,
    metadata_only: OnceLock<Bytes>,
    /// The object's protobuf message, without envelope (None: a kind with none).
    protobuf: OnceLock<Option<Bytes>>,
    /// Where `kind` and `apiVersion` are, for LIST items without them.
    type_meta: TypeMetaSpans,
    /// The members of `metadata` (found on first use: by the replace fast path, which makes
    /// the next version's as it writes it).
    metadata_members: OnceLock<Option<Box<[Member]>>>,
    /// The entries of `metadata.managedFields` (found on first use, or made by the replace
    /// fast path as it writes them).
    managed_entries: OnceLock<Option<Box<[ManagedEntry]>>>,
    /// Whether a write that keeps this object's `spec` passes admission unchanged (decided on
    /// first use by the replace fast path, and kept by the versions it writes, which keep the
    /// spec).
    spec_admitted: OnceLock<bool>,
}

/// The fields of an object's metadata the store indexes.
#[derive(Deserialize, Default)]
struct IndexedMetadata {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

/// Just the raw metadata of an object.
#[derive(Deserialize)]
struct RawMetadata<'a> {
    #[serde(borrow)]
    metadata: Option<&'a RawValue>,
}

impl StoredObject {
    /// Indexes a serialised object.
    pub fn new(value: &Value, resource: &ResourceType, rv: u64) -> Result<Self, ApiError> {
        let (bytes, type_meta) = type_meta::serialise(value, resource.custom);
        // Read through a reference: metadata holds managedFields, most of an object's bytes.
        let metadata = value
            .get("metadata")
            .map(IndexedMetadata::deserialize)
            .transpose()
            .map_err(|e| ApiError::bad_request(format!("invalid metadata: {e}")))?
            .unwrap_or_default();
        let labels = metadata
            .labels
            .iter()
            .map(|(k, v)| (Cow::Borrowed(k.as_str()), Cow::Borrowed(v.as_str())));
        let selectable = Selectable::new(
            &metadata.name,
            &metadata.namespace,
            labels,
            resource,
            |field| field_text(value, field),
        )
        .ok_or_else(|| ApiError::bad_request("invalid metadata: too large"))?;
        Ok(StoredObject {
            bytes: Bytes::from(bytes),
            rv,
            selectable: Arc::new(selectable),
            metadata_only: OnceLock::new(),
            protobuf: OnceLock::new(),
            type_meta,
            metadata_members: OnceLock::new(),
            managed_entries: OnceLock::new(),
            spec_admitted: OnceLock::new(),
        })
    }

    /// An object made from its parts: its bytes, resourceVersion, selectable texts, where its
    /// TypeMeta is in `bytes`, its metadata's members and, when known, its managedFields'
    /// entries (the replace fast path, which builds the bytes from a current object's).
    pub fn from_parts(
        bytes: Bytes,
        rv: u64,
        selectable: Arc<Selectable>,
        type_meta: TypeMetaSpans,
        metadata_members: Box<[Member]>,
        managed_entries: Option<Box<[ManagedEntry]>>,
    ) -> Self {
        StoredObject {
            bytes,
            rv,
            selectable,
            metadata_only: OnceLock::new(),
            protobuf: OnceLock::new(),
            type_meta,
            metadata_members: OnceLock::from(Some(metadata_members)),
            managed_entries: managed_entries
                .map_or_else(OnceLock::new, |e| OnceLock::from(Some(e))),
            spec_admitted: OnceLock::new(),
        }
    }

    /// This object with `from`'s answer to [`Self::spec_admitted`], when it has one: for a
    /// version with the same `spec`.
    pub fn with_spec_admitted_of(self, from: &StoredObject) -> Self {
        if let Some(admitted) = from.spec_admitted.get() {
            let _ = self.spec_admitted.set(*admitted);
        }
        self
    }

    /// Whether a write that keeps this object's `spec` passes admission unchanged: `check`'s
    /// answer for the object's bytes and TypeMeta, asked once per object.
    pub fn spec_admitted(&self, check: impl FnOnce(&[u8], TypeMetaSpans) -> bool) -> bool {
        *self
            .spec_admitted
            .get_or_init(|| check(&self.bytes, self.type_meta))
    }

    /// The members of the object's `metadata` (None: it has none that is a compact object).
    /// The walk that finds them reads the entries of `managedFields` on its way (what
    /// [`Self::managed_entries`] answers), unless they are known already.
    pub fn metadata_members(&self) -> Option<&[Member]> {
        let found = self.metadata_members.get_or_init(|| {
            let metadata = self.type_meta.metadata()?;
            let mut entries = None;
            let read = |bytes: &[u8], at: usize| {
                let (end, elements) = members::object_elements_at(bytes, at)?;
                entries = managed_entries::of_elements(bytes, elements, at);
                Some(end)
            };
            let found = members::members_reading(&self.bytes, metadata, b"managedFields", read);
            // Never blocks: that cell is only initialised after this one (see managed_entries).
            let _ = self.managed_entries.set(entries);
            found.map(Vec::into_boxed_slice)
        });
        found.as_deref()
    }

    /// The value of metadata member `key`.
    pub fn metadata_value(&self, key: &[u8]) -> Option<&[u8]> {
        let members = self.metadata_members()?;
        let member = members.iter().find(|m| m.key_of(&self.bytes) == key)?;
        Some(member.value_of(&self.bytes))
    }

    /// The entries of the object's `managedFields`, as offsets into its value (None: it has
    /// none, or one [`managed_entries::entries`] does not read): scanned on first use, and
    /// handed by the replace fast path to the versions it writes.
    pub fn managed_entries(&self) -> Option<&[ManagedEntry]> {
        // The metadata's first walk sets the entries: it runs before this cell is initialised
        // here, never from inside that initialisation.
        let _ = self.metadata_members();
        let found = self
            .managed_entries
            .get_or_init(|| managed_entries::entries(self.metadata_value(b"managedFields")?));
        found.as_deref()
    }

    /// The entries [`Self::managed_entries`] has read so far (None: not asked yet, or none).
    pub fn managed_entries_read(&self) -> Option<&[ManagedEntry]> {
        self.managed_entries.get()?.as_deref()
    }

    /// Where `kind` and `apiVersion` are in [`Self::bytes`].
    pub fn type_meta(&self) -> TypeMetaSpans {
        self.type_meta
    }

    /// Appends the object as a LIST item of a built-in type: without `kind` and `apiVersion`.
    pub fn write_list_item(&self, out: &mut Vec<u8>) {
        self.type_meta.write_without(&self.bytes, out);
    }

    /// The store key: `namespace/name` or `name`.
    pub fn key(&self) -> String {
        object_key(self.namespace(), self.name())
    }

    /// Its name, namespace, labels and selectable fields.
    pub fn selectable(&self) -> &Arc<Selectable> {
        &self.selectable
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.selectable.name()
    }

    /// `metadata.namespace`, empty for cluster-scoped objects.
    pub fn namespace(&self) -> &str {
        self.selectable.namespace()
    }

    /// The value of label `key`.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.selectable.label(key)
    }

    /// The value of a selectable field.
    pub fn field(&self, field: &str) -> Option<&str> {
        self.selectable.field(field)
    }

    /// The object parsed back into a JSON value.
    pub fn to_value(&self) -> Result<Value, ApiError> {
        serde_json::from_slice(&self.bytes)
            .map_err(|e| ApiError::new(500, "InternalError", format!("corrupt stored object: {e}")))
    }

    /// The object's protobuf message, without the envelope (a list item: written once, on
    /// first use); None for a kind with no message (a custom resource).
    pub fn protobuf(&self) -> Option<&Bytes> {
        self.protobuf
            .get_or_init(|| crate::protobuf::encode::item(&self.bytes).map(Bytes::from))
            .as_ref()
    }

    /// The object as a `PartialObjectMetadata` (serialised once, on first use).
    pub fn metadata_only(&self) -> &Bytes {
        self.metadata_only.get_or_init(|| {
            let metadata = serde_json::from_slice::<RawMetadata>(&self.bytes)
                .ok()
                .and_then(|raw| raw.metadata)
                .map_or("{}", RawValue::get);
            let mut out = Vec::with_capacity(metadata.len() + 64);
            out.extend_from_slice(
                br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":"#,
            );
            out.extend_from_slice(metadata.as_bytes());
            out.push(b'}');
            Bytes::from(out)
        })
    }
}

/// The store key of an object.
pub fn object_key(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        return name.to_owned();
    }
    let mut key = String::with_capacity(namespace.len() + 1 + name.len());
    key.push_str(namespace);
    key.push('/');
    key.push_str(name);
    key
}

/// The objects of one resource.
#[derive(Debug, Default)]
pub struct Objects {
    /// Key → slot, in key order.
    order: BTreeMap<String, usize>,
    /// Key → slot (foldhash: every write and get hashes a key).
    index: HashMap<String, usize, foldhash::fast::RandomState>,
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
    use crate::resources::Registry;
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

    /// The metadata's one walk finds what two walks find: its members and the managedFields
    /// entries; whichever is asked first. A managedFields that is not an array of objects has no
    /// entries and does not hide the other members.
    #[test]
    fn one_walk_reads_the_metadata_and_the_managed_fields_entries() {
        let registry = Registry::with_builtins();
        let Some(resource) = registry.find("", "v1", "configmaps") else {
            unreachable!("configmaps are built in")
        };
        let entry = json!({"apiVersion": "v1", "fieldsV1": {"f:data": {}}, "manager": "m",
                           "operation": "Update", "time": "2025-01-01T00:00:00Z"});
        for managed in [
            json!([entry, entry]),
            json!([]),
            json!(null),
            json!([1]),
            json!({"a": 1}),
        ] {
            let value = json!({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "a", "managedFields": managed, "uid": "u"}});
            let fresh = || StoredObject::new(&value, &resource, 1).ok();
            let (Some(first), Some(second)) = (fresh(), fresh()) else {
                unreachable!("a valid object")
            };
            // What two separate walks find.
            let bytes = &fresh().map(|o| o.bytes).unwrap_or_default()[..];
            let metadata = first.type_meta().metadata().unwrap_or_default();
            let members = members::members(bytes, metadata);
            let managed_value = members
                .iter()
                .flatten()
                .find(|m| m.key_of(bytes) == b"managedFields");
            let entries = managed_value.and_then(|m| managed_entries::entries(m.value_of(bytes)));
            assert_eq!(first.managed_entries(), entries.as_deref(), "{managed}");
            assert_eq!(first.metadata_members().map(<[Member]>::to_vec), members);
            assert_eq!(second.metadata_members().map(<[Member]>::to_vec), members);
            assert_eq!(second.managed_entries(), entries.as_deref(), "{managed}");
            assert_eq!(members.map(|m| m.len()), Some(3), "{managed}");
            assert_eq!(
                entries.map(|e| e.len()),
                managed
                    .as_array()
                    .filter(|a| a != &&[json!(1)])
                    .map(Vec::len)
            );
        }
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
