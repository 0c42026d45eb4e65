//! The Indexer: a thread-safe store keyed by `namespace/name`, plus named indices.
//!
//! Index functions are fixed when the store is built (Rule I3 is enforced by the informer);
//! each object carries its index values, computed once at ingest, so an update moves the key
//! between buckets without re-running any index function on the old object (Rule I2).

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

use super::object::{CachedObject, ObjectRef};
use super::trace::{IndexCounts, IndexValues};

/// The hasher of the informer's maps and sets keyed by object keys and index values: the
/// store and its indices, both FIFOs, the watch-list's temporary store. foldhash is several
/// times faster than std's SipHash on short strings; SipHash's defence against hash flooding
/// buys nothing here: the keys are the names of the objects the user's own API server sends
/// to the user's own client cache, not input chosen by an attacker (and foldhash is still
/// seeded at random per process, so collisions cannot be computed ahead).
pub(crate) type KeyHasher = foldhash::fast::RandomState;

/// A map keyed by object keys or index values, with [`KeyHasher`].
pub(crate) type KeyMap<K, V> = HashMap<K, V, KeyHasher>;

/// A set of object keys (or keyed objects), with [`KeyHasher`].
pub(crate) type KeySet<K> = HashSet<K, KeyHasher>;

/// The index every informer has: objects by namespace (client-go's `NamespaceIndex`).
pub const NAMESPACE_INDEX: &str = "namespace";

/// A library user's own index function.
pub type CustomIndexFunc = Arc<dyn Fn(&CachedObject) -> Vec<String> + Send + Sync>;

/// A function from an object to the index values it belongs under.
#[derive(Clone)]
pub enum IndexFunc {
    /// The object's namespace (cluster-scoped objects index under nothing).
    Namespace,
    /// `label:KEY`: the value of one label.
    Label(String),
    /// `annotation:KEY`: the value of one annotation.
    Annotation(String),
    /// `field:a.b.c`: the scalar(s) at a JSON path; arrays on the way fan out.
    Field(Vec<String>),
    /// `owner`: the controller owner reference as `namespace/Kind/name` (`Kind/name` for
    /// cluster-scoped objects).
    Owner,
    /// Any function, for library users and tests.
    Custom(CustomIndexFunc),
}

impl fmt::Debug for IndexFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexFunc::Namespace => f.write_str("namespace"),
            IndexFunc::Label(k) => write!(f, "label:{k}"),
            IndexFunc::Annotation(k) => write!(f, "annotation:{k}"),
            IndexFunc::Field(p) => write!(f, "field:{}", p.join(".")),
            IndexFunc::Owner => f.write_str("owner"),
            IndexFunc::Custom(_) => f.write_str("custom"),
        }
    }
}

/// An index expression or indexer name that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error(
        "invalid index expression {0:?}: expected label:KEY, annotation:KEY, field:PATH or owner"
    )]
    /// The expression does not parse.
    BadExpression(String),
    /// A `field:PATH` whose path is malformed: what is wrong with it.
    #[error("invalid index expression {expr:?}: {why}")]
    BadPath { expr: String, why: String },
    /// The NAME=EXPR definition is malformed.
    #[error("invalid index {0:?}: expected NAME=EXPR, e.g. by-node=field:spec.nodeName")]
    BadDefinition(String),
    /// An index of this name exists.
    #[error("indexer {0:?} already exists")]
    Duplicate(String),
    /// No index of this name.
    #[error("index with name {0} does not exist")]
    Unknown(String),
}

impl IndexFunc {
    /// Parses `label:KEY`, `annotation:KEY`, `field:a.b.c`, `owner` or `namespace`.
    pub fn parse(expr: &str) -> Result<Self, IndexError> {
        let bad = || IndexError::BadExpression(expr.to_owned());
        match expr.split_once(':') {
            None if expr == "owner" => Ok(IndexFunc::Owner),
            None if expr == "namespace" => Ok(IndexFunc::Namespace),
            Some(("label", k)) if valid_key(k) => Ok(IndexFunc::Label(k.to_owned())),
            Some(("annotation", k)) if valid_key(k) => Ok(IndexFunc::Annotation(k.to_owned())),
            Some(("field", p)) => {
                field_path(p)
                    .map(IndexFunc::Field)
                    .map_err(|why| IndexError::BadPath {
                        expr: expr.to_owned(),
                        why,
                    })
            }
            _ => Err(bad()),
        }
    }

    fn needs_json(&self) -> bool {
        matches!(self, IndexFunc::Annotation(_) | IndexFunc::Field(_))
    }

    fn values(&self, obj: &CachedObject, json: Option<&Value>) -> Vec<String> {
        match self {
            IndexFunc::Namespace => vec![obj.meta().namespace().unwrap_or("").to_owned()],
            IndexFunc::Label(k) => obj.meta().label(k).map(str::to_owned).into_iter().collect(),
            IndexFunc::Annotation(k) => json
                .and_then(|v| v.pointer("/metadata/annotations"))
                .and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .into_iter()
                .collect(),
            IndexFunc::Field(path) => {
                let mut out = Vec::new();
                if let Some(v) = json {
                    collect_path(v, path, &mut out);
                }
                out.sort();
                out.dedup();
                out
            }
            IndexFunc::Owner => obj.controller_ref().into_iter().collect(),
            IndexFunc::Custom(f) => f(obj),
        }
    }
}

/// `spec.nodeName` (a leading `.` allowed) → its segments; each a JSON field name (letters,
/// digits, `-`, `_`): arrays on the way fan out by themselves, so brackets have no meaning.
fn field_path(path: &str) -> Result<Vec<String>, String> {
    let trimmed = path.strip_prefix('.').unwrap_or(path);
    if trimmed.is_empty() {
        return Err("the path is empty (e.g. field:spec.nodeName)".to_owned());
    }
    let segments: Vec<&str> = trimmed.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(format!("empty segment in path {path:?}"));
    }
    if let Some(odd) = segments.iter().find(|s| !is_field_name(s)) {
        let hint = if odd.contains(['[', ']', '*']) {
            " (no brackets: arrays fan out by themselves, e.g. spec.containers.image)"
        } else {
            ""
        };
        return Err(format!(
            "{odd:?} in path {path:?} is not a field name (letters, digits, '-' and '_'){hint}"
        ));
    }
    Ok(segments.into_iter().map(str::to_owned).collect())
}

fn is_field_name(segment: &str) -> bool {
    segment
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn valid_key(k: &str) -> bool {
    !k.is_empty() && !k.contains(char::is_whitespace)
}

fn collect_path(v: &Value, path: &[String], out: &mut Vec<String>) {
    if let Value::Array(items) = v {
        for item in items {
            collect_path(item, path, out);
        }
        return;
    }
    match path.split_first() {
        Some((head, rest)) => {
            if let Some(next) = v.get(head) {
                collect_path(next, rest, out);
            }
        }
        None => match v {
            Value::String(s) => out.push(s.clone()),
            Value::Number(n) => out.push(n.to_string()),
            Value::Bool(b) => out.push(b.to_string()),
            _ => {}
        },
    }
}

/// The named index functions of one store, `namespace` first.
#[derive(Clone, Debug)]
pub struct Indexers {
    defs: Arc<Vec<(String, IndexFunc)>>,
}

impl Default for Indexers {
    fn default() -> Self {
        Self {
            defs: Arc::new(vec![(NAMESPACE_INDEX.to_owned(), IndexFunc::Namespace)]),
        }
    }
}

impl Indexers {
    /// Adds an index; names are unique.
    pub fn add(&mut self, name: &str, func: IndexFunc) -> Result<(), IndexError> {
        if self.position(name).is_some() {
            return Err(IndexError::Duplicate(name.to_owned()));
        }
        Arc::make_mut(&mut self.defs).push((name.to_owned(), func));
        Ok(())
    }

    /// Parses `NAME=EXPR` (the CLI's `--index`) and adds it.
    pub fn add_definition(&mut self, definition: &str) -> Result<(), IndexError> {
        let (name, expr) = definition
            .split_once('=')
            .filter(|(n, _)| !n.is_empty())
            .ok_or_else(|| IndexError::BadDefinition(definition.to_owned()))?;
        self.add(name, IndexFunc::parse(expr)?)
    }

    /// The index names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.defs.iter().map(|(n, _)| n.as_str())
    }

    /// Where the index `name` is among them.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.defs.iter().position(|(n, _)| n == name)
    }

    /// The values of every index after the built-in `namespace` one (position 0, whose value
    /// every object derives from its key), in index order.
    pub fn compute(&self, obj: &CachedObject) -> Vec<Box<[String]>> {
        let added = self.defs.get(1..).unwrap_or_default();
        let json = added
            .iter()
            .any(|(_, f)| f.needs_json())
            .then(|| serde_json::from_slice::<Value>(obj.raw()).ok())
            .flatten();
        added
            .iter()
            .map(|(_, f)| f.values(obj, json.as_ref()).into_boxed_slice())
            .collect()
    }

    /// The values of index `i` for `obj`, computed now (for an index the object was decoded
    /// without: one added after start, Rule I3).
    fn compute_one(&self, i: usize, obj: &CachedObject) -> Vec<String> {
        let Some((_, func)) = self.defs.get(i) else {
            return Vec::new();
        };
        let json = func
            .needs_json()
            .then(|| serde_json::from_slice::<Value>(obj.raw()).ok())
            .flatten();
        func.values(obj, json.as_ref())
    }
}

/// The thread-safe indexed store (client-go's `cache.Indexer` over a threadSafeMap).
#[derive(Debug)]
pub struct Store {
    inner: RwLock<Inner>,
}

/// An object in a set, hashed and compared by its key: the sets need no key strings of
/// their own (lookups borrow a `&str`).
#[derive(Debug, Clone)]
struct Keyed(ObjectRef);

impl Borrow<str> for Keyed {
    fn borrow(&self) -> &str {
        self.0.key()
    }
}

impl Hash for Keyed {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.key().hash(state);
    }
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
    }
}

impl Eq for Keyed {}

#[derive(Debug)]
struct Inner {
    indexers: Indexers,
    items: KeySet<Keyed>,
    /// One map per index: value → the objects under it.
    indices: Vec<KeyMap<String, KeySet<Keyed>>>,
    /// client-go 1.36's `threadSafeMap.rv` (LastStoreSyncResourceVersion): the last written
    /// object's, the last Replace's or the last bookmark's resourceVersion.
    resource_version: String,
}

impl Default for Store {
    fn default() -> Self {
        Self::new(Indexers::default())
    }
}

impl Store {
    /// An empty store with `indexers`.
    pub fn new(indexers: Indexers) -> Self {
        let indices = indexers.defs.iter().map(|_| KeyMap::default()).collect();
        Self {
            inner: RwLock::new(Inner {
                indexers,
                items: KeySet::default(),
                indices,
                resource_version: String::new(),
            }),
        }
    }

    /// The store's index functions (objects must carry their values, see [`Indexers::compute`]).
    pub fn indexers(&self) -> Indexers {
        self.read().indexers.clone()
    }

    /// Adds an index and indexes every stored object under it at once (client-go ≥ 1.30's
    /// `AddIndexers` on a running informer, Rule I3).
    pub fn add_indexer(&self, name: &str, func: IndexFunc) -> Result<(), IndexError> {
        let mut inner = self.write();
        inner.indexers.add(name, func)?;
        inner.indices.push(KeyMap::default());
        let added = inner.indices.len() - 1;
        let objects: Vec<ObjectRef> = inner.items.iter().map(|k| k.0.clone()).collect();
        for obj in &objects {
            inner.index_one(added, obj);
        }
        Ok(())
    }

    /// Several writes under one lock: a reader sees all of them or none (client-go's
    /// `threadSafeMap.Transaction` and `Replace`, thread_safe_store.go v0.36:269-299,
    /// :388-406). Readers wait while the transaction is held.
    pub fn transaction(&self) -> Transaction<'_> {
        Transaction {
            inner: self.write(),
        }
    }

    /// Inserts or replaces `obj`; returns the object it replaced.
    pub fn upsert(&self, obj: ObjectRef) -> Option<ObjectRef> {
        self.transaction().upsert(obj)
    }

    /// Removes the object stored under `key`; returns it (client-go's `Delete(key)`: the
    /// store's resourceVersion stays).
    pub fn delete(&self, key: &str) -> Option<ObjectRef> {
        self.transaction().delete(key, None)
    }

    /// client-go's `Bookmark(rv)` (AtomicFIFO): the store's resourceVersion moves on.
    pub fn bookmark(&self, rv: &str) {
        self.transaction().set_resource_version(rv);
    }

    /// client-go 1.36's `LastStoreSyncResourceVersion` (before AtomicFIFO client-go answers
    /// "": the informer decides).
    pub fn resource_version(&self) -> String {
        self.read().resource_version.clone()
    }

    /// The object stored under `key`.
    pub fn get(&self, key: &str) -> Option<ObjectRef> {
        self.read().items.get(key).map(|k| k.0.clone())
    }

    /// Every stored object.
    pub fn list(&self) -> Vec<ObjectRef> {
        self.read().items.iter().map(|k| k.0.clone()).collect()
    }

    /// Every object, sorted by key.
    pub fn list_sorted(&self) -> Vec<ObjectRef> {
        let mut objects = self.list();
        objects.sort_unstable_by(|a, b| a.key().cmp(b.key()));
        objects
    }

    /// Every key, in no particular order.
    pub fn list_keys(&self) -> Vec<String> {
        self.read()
            .items
            .iter()
            .map(|k| k.0.key().to_owned())
            .collect()
    }

    /// How many objects are stored.
    pub fn len(&self) -> usize {
        self.read().items.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Objects whose index `index` holds `value` (client-go's `ByIndex`).
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<ObjectRef>, IndexError> {
        let i = self.index_position(index)?;
        Ok(self.read().indices[i]
            .get(value)
            .into_iter()
            .flatten()
            .map(|k| k.0.clone())
            .collect())
    }

    /// Keys whose index `index` holds `value`, sorted (client-go's `IndexKeys`).
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<String>, IndexError> {
        let i = self.index_position(index)?;
        let mut keys: Vec<String> = self.read().indices[i]
            .get(value)
            .into_iter()
            .flatten()
            .map(|k| k.0.key().to_owned())
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// Every value index `index` currently holds, sorted (client-go's `ListIndexFuncValues`).
    pub fn list_index_func_values(&self, index: &str) -> Result<Vec<String>, IndexError> {
        let i = self.index_position(index)?;
        let mut values: Vec<String> = self.read().indices[i].keys().cloned().collect();
        values.sort();
        Ok(values)
    }

    /// The values each added index (every one but the built-in `namespace`) holds for `obj`,
    /// by index name, in index order: what an `indexer` trace line shows.
    pub fn index_values_of(&self, obj: &CachedObject) -> IndexValues {
        self.read().index_values_of(obj)
    }

    /// Each added index's values with how many objects each holds, values sorted: the index
    /// table of the exit summary.
    pub fn index_counts(&self) -> IndexCounts {
        let inner = self.read();
        inner
            .indexers
            .names()
            .zip(&inner.indices)
            .skip(1)
            .map(|(name, index)| {
                let mut counts: Vec<(String, usize)> = index
                    .iter()
                    .map(|(v, keys)| (v.clone(), keys.len()))
                    .collect();
                counts.sort_unstable();
                (name.to_owned(), counts)
            })
            .collect()
    }

    fn index_position(&self, index: &str) -> Result<usize, IndexError> {
        self.read()
            .indexers
            .position(index)
            .ok_or_else(|| IndexError::Unknown(index.to_owned()))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Writes to the store under its lock, held until the transaction is dropped.
pub struct Transaction<'a> {
    inner: std::sync::RwLockWriteGuard<'a, Inner>,
}

impl Transaction<'_> {
    /// Inserts or replaces `obj`; returns the object it replaced. The store's resourceVersion
    /// becomes the object's.
    pub fn upsert(&mut self, obj: ObjectRef) -> Option<ObjectRef> {
        let inner = &mut *self.inner;
        let old = inner.items.replace(Keyed(obj.clone())).map(|k| k.0);
        match &old {
            // The common update: every index value is the same, so only the bucket entries
            // are swapped for the new object (no bucket emptied and re-created).
            Some(old) if inner.same_index_values(old, &obj) => inner.reindex_in_place(&obj),
            Some(old) => {
                inner.unindex(old);
                inner.index(&obj);
            }
            None => inner.index(&obj),
        }
        self.set_resource_version(obj.resource_version());
        old
    }

    /// Removes the object stored under `key`; returns it. The store's resourceVersion
    /// becomes `rv` when given.
    pub fn delete(&mut self, key: &str, rv: Option<&str>) -> Option<ObjectRef> {
        if let Some(rv) = rv {
            self.set_resource_version(rv);
        }
        let inner = &mut *self.inner;
        let old = inner.items.take(key)?.0;
        inner.unindex(&old);
        Some(old)
    }

    /// The object stored under `key`, as this transaction sees it.
    pub fn get(&self, key: &str) -> Option<ObjectRef> {
        self.inner.items.get(key).map(|k| k.0.clone())
    }

    /// [`Store::index_values_of`], under the transaction's lock (the store's own would wait
    /// for this transaction for ever).
    pub fn index_values_of(&self, obj: &CachedObject) -> IndexValues {
        self.inner.index_values_of(obj)
    }

    /// Every object, sorted by key.
    pub fn list_sorted(&self) -> Vec<ObjectRef> {
        let mut objects: Vec<ObjectRef> = self.inner.items.iter().map(|k| k.0.clone()).collect();
        objects.sort_unstable_by(|a, b| a.key().cmp(b.key()));
        objects
    }

    /// Sets the store's resourceVersion (client-go 1.36's, Rule I6).
    pub fn set_resource_version(&mut self, rv: &str) {
        let current = &mut self.inner.resource_version;
        current.clear();
        current.push_str(rv);
    }
}

/// A read-only view of an informer's cache (kube-runtime's `Store` beside its `Writer`): what
/// the informer hands out, so only the process loop writes the Indexer.
#[derive(Debug, Clone)]
pub struct Cache(Arc<Store>);

impl Cache {
    /// A read-only view of `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self(store)
    }

    /// Whether both views read the same Indexer (one shared informer).
    pub fn is_same(&self, other: &Cache) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The cached object under `key`.
    pub fn get(&self, key: &str) -> Option<ObjectRef> {
        self.0.get(key)
    }

    /// Every cached object.
    pub fn list(&self) -> Vec<ObjectRef> {
        self.0.list()
    }

    /// Every object, sorted by key.
    pub fn list_sorted(&self) -> Vec<ObjectRef> {
        self.0.list_sorted()
    }

    /// Every cached key, in no particular order.
    pub fn list_keys(&self) -> Vec<String> {
        self.0.list_keys()
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The index functions, `namespace` first.
    pub fn indexers(&self) -> Indexers {
        self.0.indexers()
    }

    /// client-go's `ByIndex`.
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<ObjectRef>, IndexError> {
        self.0.by_index(index, value)
    }

    /// client-go's `IndexKeys`, sorted.
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<String>, IndexError> {
        self.0.index_keys(index, value)
    }

    /// client-go's `ListIndexFuncValues`, sorted.
    pub fn list_index_func_values(&self, index: &str) -> Result<Vec<String>, IndexError> {
        self.0.list_index_func_values(index)
    }
}

impl Inner {
    fn index_values_of(&self, obj: &CachedObject) -> IndexValues {
        self.indexers
            .names()
            .enumerate()
            .skip(1)
            .map(|(i, name)| {
                let computed = self.late_values(i, obj);
                let shown = values(obj, i, &computed).map(str::to_owned).collect();
                (name.to_owned(), shown)
            })
            .collect()
    }

    fn index(&mut self, obj: &ObjectRef) {
        for i in 0..self.indices.len() {
            self.index_one(i, obj);
        }
    }

    fn index_one(&mut self, i: usize, obj: &ObjectRef) {
        let computed = self.late_values(i, obj);
        let index = &mut self.indices[i];
        for value in values(obj, i, &computed) {
            let bucket = match index.get_mut(value) {
                Some(bucket) => bucket,
                None => index.entry(value.to_owned()).or_default(),
            };
            bucket.insert(Keyed(obj.clone()));
        }
    }

    /// Whether `old` and `new` hold the same values in every index.
    fn same_index_values(&self, old: &CachedObject, new: &CachedObject) -> bool {
        (0..self.indices.len()).all(|i| {
            let (a, b) = (self.late_values(i, old), self.late_values(i, new));
            values(old, i, &a).eq(values(new, i, &b))
        })
    }

    /// Replaces the entries of `obj`'s key with `obj` in the buckets it already sits in.
    fn reindex_in_place(&mut self, obj: &ObjectRef) {
        for i in 0..self.indices.len() {
            let computed = self.late_values(i, obj);
            let index = &mut self.indices[i];
            for value in values(obj, i, &computed) {
                if let Some(bucket) = index.get_mut(value) {
                    bucket.replace(Keyed(obj.clone()));
                }
            }
        }
    }

    fn unindex(&mut self, obj: &CachedObject) {
        let key = obj.key();
        for i in 0..self.indices.len() {
            let computed = self.late_values(i, obj);
            let index = &mut self.indices[i];
            for value in values(obj, i, &computed) {
                if let Some(bucket) = index.get_mut(value) {
                    bucket.remove(key);
                    if bucket.is_empty() {
                        index.remove(value);
                    }
                }
            }
        }
    }

    /// Index `i`'s values for an object decoded before the index existed (empty otherwise:
    /// the object carries them).
    fn late_values(&self, i: usize, obj: &CachedObject) -> Vec<String> {
        if i < obj.carried_indices() {
            Vec::new()
        } else {
            self.indexers.compute_one(i, obj)
        }
    }
}

/// Index `i`'s values for `obj`: carried from ingest, else `computed`.
fn values<'a>(
    obj: &'a CachedObject,
    i: usize,
    computed: &'a [String],
) -> impl Iterator<Item = &'a str> {
    let carried = (i < obj.carried_indices()).then(|| obj.index_values(i));
    carried
        .into_iter()
        .flatten()
        .chain(computed.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexers() -> Indexers {
        let mut ix = Indexers::default();
        ix.add_definition("by-node=field:spec.nodeName").unwrap();
        ix.add_definition("app=label:app").unwrap();
        ix.add_definition("image=field:spec.containers.image")
            .unwrap();
        ix.add_definition("team=annotation:example.com/team")
            .unwrap();
        ix.add_definition("owner=owner").unwrap();
        ix
    }

    fn pod(ix: &Indexers, name: &str, node: &str, app: &str, images: &[&str]) -> ObjectRef {
        let containers: Vec<_> = images
            .iter()
            .map(|i| serde_json::json!({"name": "c", "image": i}))
            .collect();
        let raw = serde_json::json!({
            "metadata": {"name": name, "namespace": "ns", "labels": {"app": app},
                "annotations": {"example.com/team": "blue"},
                "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]},
            "spec": {"nodeName": node, "containers": containers}
        });
        let obj = CachedObject::from_json(serde_json::to_vec(&raw).unwrap()).unwrap();
        let values = ix.compute(&obj);
        Arc::new(obj.with_index_values(values))
    }

    #[test]
    fn i2_multi_valued_indices_stay_exact_across_add_update_delete() {
        let ix = indexers();
        let store = Store::new(ix.clone());
        store.upsert(pod(&ix, "a", "n1", "web", &["nginx", "envoy"]));
        store.upsert(pod(&ix, "b", "n1", "db", &["postgres"]));
        assert_eq!(store.index_keys("by-node", "n1").unwrap(), ["ns/a", "ns/b"]);
        assert_eq!(store.index_keys("image", "envoy").unwrap(), ["ns/a"]);
        assert_eq!(
            store.list_index_func_values("image").unwrap(),
            ["envoy", "nginx", "postgres"]
        );
        assert_eq!(store.index_keys("team", "blue").unwrap(), ["ns/a", "ns/b"]);
        assert_eq!(
            store.index_keys("owner", "ns/ReplicaSet/rs").unwrap().len(),
            2
        );

        // An update moves the object between buckets and drops emptied values.
        store.upsert(pod(&ix, "a", "n2", "web", &["nginx"]));
        assert_eq!(store.index_keys("by-node", "n1").unwrap(), ["ns/b"]);
        assert_eq!(store.index_keys("by-node", "n2").unwrap(), ["ns/a"]);
        assert_eq!(
            store.list_index_func_values("image").unwrap(),
            ["nginx", "postgres"]
        );

        store.delete("ns/b");
        assert_eq!(store.list_index_func_values("by-node").unwrap(), ["n2"]);
        assert_eq!(store.by_index("app", "web").unwrap()[0].key(), "ns/a");
        assert!(store.by_index("app", "db").unwrap().is_empty());
        assert_eq!(store.index_keys(NAMESPACE_INDEX, "ns").unwrap(), ["ns/a"]);
    }

    #[test]
    fn the_owner_index_keys_by_namespace() {
        let ix = indexers();
        let store = Store::new(ix.clone());
        let owned = |ns: Option<&str>, name: &str| {
            let raw = serde_json::json!({"metadata": {"name": name, "namespace": ns,
                "ownerReferences": [{"kind": "ReplicaSet", "name": "web", "uid": "u", "controller": true}]}});
            let obj = CachedObject::from_json(serde_json::to_vec(&raw).unwrap()).unwrap();
            let values = ix.compute(&obj);
            Arc::new(obj.with_index_values(values))
        };
        store.upsert(owned(Some("default"), "a"));
        store.upsert(owned(Some("shop"), "b"));
        store.upsert(owned(None, "c"));
        assert_eq!(
            store.list_index_func_values("owner").unwrap(),
            [
                "ReplicaSet/web",
                "default/ReplicaSet/web",
                "shop/ReplicaSet/web"
            ],
            "two namespaces' ReplicaSets called web are two owners"
        );
        assert_eq!(
            store.index_keys("owner", "shop/ReplicaSet/web").unwrap(),
            ["shop/b"]
        );
    }

    #[test]
    fn i2_unknown_index_is_an_error() {
        let store = Store::new(Indexers::default());
        assert_eq!(
            store.by_index("nope", "x").unwrap_err(),
            IndexError::Unknown("nope".into())
        );
    }

    #[test]
    fn index_expressions_parse_or_fail_with_one_clear_error() {
        assert!(matches!(IndexFunc::parse("owner"), Ok(IndexFunc::Owner)));
        assert!(
            matches!(IndexFunc::parse("field:.spec.nodeName"), Ok(IndexFunc::Field(p)) if p == ["spec", "nodeName"])
        );
        for bad in [
            "",
            "labels:app",
            "label:",
            "field:a..b",
            "owner:x",
            "annotation: x",
        ] {
            let err = IndexFunc::parse(bad).unwrap_err().to_string();
            assert!(err.starts_with("invalid index expression"), "{bad}: {err}");
        }
        for (bad, why) in [
            (
                "field:spec.[nodeName",
                "\"[nodeName\" in path \"spec.[nodeName\" is not a field name",
            ),
            (
                "field:spec.containers[*].image",
                "arrays fan out by themselves",
            ),
            ("field:", "the path is empty"),
            (
                "field:spec..nodeName",
                "empty segment in path \"spec..nodeName\"",
            ),
            ("field:spec.nodeName.", "empty segment"),
        ] {
            let err = IndexFunc::parse(bad).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("invalid index expression {bad:?}: "))
                    && err.contains(why),
                "{bad}: {err}"
            );
        }
        let mut ix = Indexers::default();
        assert!(ix.add_definition("noequals").is_err());
        assert!(ix.add_definition("=label:a").is_err());
        assert_eq!(
            ix.add_definition("namespace=owner").unwrap_err(),
            IndexError::Duplicate("namespace".into())
        );
    }
}
