//! The server's state: objects stored as serialised JSON, one global resourceVersion counter,
//! a bounded history of watch events (older resourceVersions answer 410 Expired) and a broadcast
//! channel that fans the events of each write transaction out to every open watch.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockWriteGuard};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::broadcast;

use super::objects::{Objects, StoredObject, object_key};
use super::resources::{Registry, ResourceKey, ResourceType};
use super::status::ApiError;

/// How many write transactions' events the broadcast channel buffers before a slow watcher lags
/// (a lagging watcher catches up from the history, so this only bounds memory, never
/// correctness).
const BROADCAST_CAPACITY: usize = 256;

/// The events of one write transaction, published together when it ends: watchers wake once
/// per transaction, not once per event.
pub type EventBatch = Arc<[Arc<StoreEvent>]>;

/// The kind of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// An object appeared.
    Added,
    /// An object changed.
    Modified,
    /// An object was removed.
    Deleted,
}

impl EventType {
    /// The wire name (`ADDED`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One write, as watchers see it.
#[derive(Debug)]
pub struct StoreEvent {
    /// The resourceVersion this write produced.
    pub rv: u64,
    /// Which resource changed.
    pub resource: Arc<ResourceKey>,
    /// What happened.
    pub event_type: EventType,
    /// The object after the write (for DELETED: its last state, at `rv`).
    pub object: Arc<StoredObject>,
    /// The object before the write (None for ADDED).
    pub prev: Option<Arc<StoredObject>>,
    line: OnceLock<Bytes>,
    metadata_line: OnceLock<Bytes>,
}

impl StoreEvent {
    /// The newline-terminated watch line, serialised once for every watcher.
    pub fn line(&self) -> &Bytes {
        self.line
            .get_or_init(|| watch_line(self.event_type.as_str(), &self.object.bytes))
    }

    /// The watch line carrying `PartialObjectMetadata`, serialised once.
    pub fn metadata_line(&self) -> &Bytes {
        self.metadata_line
            .get_or_init(|| watch_line(self.event_type.as_str(), self.object.metadata_only()))
    }
}

/// `{"type":TYPE,"object":OBJECT}\n`.
pub fn watch_line(event_type: &str, object: &[u8]) -> Bytes {
    let mut line = Vec::with_capacity(object.len() + 32);
    line.extend_from_slice(br#"{"type":""#);
    line.extend_from_slice(event_type.as_bytes());
    line.extend_from_slice(br#"","object":"#);
    line.extend_from_slice(object);
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

/// The mutable state, behind one lock.
struct State {
    rv: u64,
    registry: Registry,
    objects: HashMap<ResourceKey, Objects, foldhash::fast::RandomState>,
    history: VecDeque<Arc<StoreEvent>>,
    /// Events with a resourceVersion up to this one are no longer kept.
    compacted: u64,
}

/// One page of a list.
#[derive(Debug)]
pub struct Page {
    /// The resourceVersion the page is consistent with.
    pub rv: u64,
    /// The objects, in key order.
    pub items: Vec<Arc<StoredObject>>,
    /// Set when more objects follow: the key of the last returned item.
    pub continue_after: Option<String>,
    /// How many objects follow, when the query counts them.
    pub remaining: Option<usize>,
}

/// What a list asks for.
pub struct ListQuery<'a> {
    /// Restrict to one namespace.
    pub namespace: Option<&'a str>,
    /// List the state as of this resourceVersion (None: now).
    pub at: Option<u64>,
    /// Start after this key (continue).
    pub after: Option<&'a str>,
    /// At most this many items.
    pub limit: Option<usize>,
    /// Which objects to return.
    pub filter: &'a dyn Fn(&StoredObject) -> bool,
    /// Whether a limited page counts the objects after it ([`Page::remaining`]).
    pub count_remaining: bool,
}

/// A watch's starting point: replayed events and the live channel.
pub struct Subscription {
    /// Kept events after the requested resourceVersion.
    pub backlog: Vec<Arc<StoreEvent>>,
    /// Live events.
    pub receiver: broadcast::Receiver<EventBatch>,
}

/// A watch's starting point when it begins with the current state.
pub struct StateSubscription {
    /// Current objects of the resource (all namespaces).
    pub items: Vec<Arc<StoredObject>>,
    /// The resourceVersion of that state.
    pub rv: u64,
    /// Live events after `rv`.
    pub receiver: broadcast::Receiver<EventBatch>,
}

/// The object store.
pub struct Store {
    state: RwLock<State>,
    events: broadcast::Sender<EventBatch>,
    /// Bumped after a transaction that stopped serving a resource type (a CRD was deleted):
    /// watches of custom resources then check that theirs is still served.
    unregistered: tokio::sync::watch::Sender<u64>,
    history_limit: usize,
}

impl Store {
    /// An empty store serving the built-in resources, keeping `history_limit` events.
    pub fn new(history_limit: usize) -> Self {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        Store {
            state: RwLock::new(State {
                rv: 1,
                registry: Registry::with_builtins(),
                objects: HashMap::default(),
                history: VecDeque::new(),
                compacted: 1,
            }),
            events,
            unregistered: tokio::sync::watch::channel(0).0,
            history_limit,
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_lock(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current global resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.read().rv
    }

    /// Waits until the global resourceVersion reaches `rv`, at most `wait`; whether it did.
    pub async fn wait_until_fresh(&self, rv: u64, wait: Duration) -> bool {
        // Subscribed before the first look: a write in between still wakes the wait.
        let mut writes = self.events.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        while self.resource_version() < rv {
            match tokio::time::timeout_at(deadline, writes.recv()).await {
                Err(_elapsed) => return self.resource_version() >= rv,
                Ok(Err(broadcast::error::RecvError::Closed)) => return false,
                Ok(_batch_or_lag) => {}
            }
        }
        true
    }

    /// A copy of the registry (cheap: resource types are shared).
    pub fn registry(&self) -> Registry {
        self.read().registry.clone()
    }

    /// One object by key.
    pub fn get(&self, resource: &ResourceKey, key: &str) -> Option<Arc<StoredObject>> {
        self.read().objects.get(resource)?.get(key).cloned()
    }

    /// Runs `f` atomically against the state, then publishes the events of its writes (those
    /// made before an error too: there is no rollback).
    pub fn write<T>(
        &self,
        f: impl FnOnce(&mut Txn<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.transaction(false, f)
    }

    /// [`Self::write`], or with `dry_run` a transaction that changes nothing (kube-apiserver's
    /// `dryRun=All`): its writes answer what they would store, at the resourceVersion the
    /// object has (none for a new one), and record no event.
    pub fn transaction<T>(
        &self,
        dry_run: bool,
        f: impl FnOnce(&mut Txn<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut state = self.write_lock();
        let mut txn = Txn {
            state: &mut state,
            store: self,
            published: Vec::new(),
            last_key: None,
            unregistered: false,
            dry_run,
        };
        let result = f(&mut txn);
        let unregistered = txn.unregistered;
        if !txn.published.is_empty() {
            // Still under the lock: a new watcher sees each event in its backlog or its
            // receiver, never both or neither. No receiver is not an error: nobody watches.
            let _ = self.events.send(EventBatch::from(txn.published));
        }
        if unregistered {
            // After the events: a watch that learns of it already holds its last events.
            self.unregistered.send_modify(|generation| *generation += 1);
        }
        result
    }

    /// A receiver for the events of every write transaction from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<EventBatch> {
        self.events.subscribe()
    }

    /// A receiver that changes whenever a resource type stops being served.
    pub fn subscribe_unregistered(&self) -> tokio::sync::watch::Receiver<u64> {
        self.unregistered.subscribe()
    }

    /// Whether resource type `key` is served.
    pub fn serves(&self, key: &ResourceKey) -> bool {
        self.read().registry.contains(key)
    }

    /// Forgets every kept event: resuming from any older resourceVersion gets 410.
    pub fn trim_history(&self) {
        let mut state = self.write_lock();
        state.history.clear();
        state.compacted = state.rv;
    }

    /// Every resourceVersion seen so far expires, the current one included: the history is
    /// dropped and the global resourceVersion advances by one (as a real cluster's next write
    /// would) to where it is compacted. A watch resumed from any earlier resourceVersion gets
    /// 410, while a fresh LIST reports the new one, which can be watched like after a real
    /// compaction, with or without further writes.
    pub fn expire_all(&self) {
        let mut state = self.write_lock();
        state.history.clear();
        state.rv += 1;
        state.compacted = state.rv;
    }

    /// One page of a resource's objects, consistent with one resourceVersion.
    pub fn list(&self, resource: &ResourceKey, query: &ListQuery<'_>) -> Result<Page, ApiError> {
        let state = self.read();
        let empty = Objects::default();
        let current = state.objects.get(resource).unwrap_or(&empty);
        let at = query.at.unwrap_or(state.rv).min(state.rv);
        let overlay = if at < state.rv {
            if at < state.compacted {
                return Err(ApiError::expired(format!(
                    "too old resource version: {at} ({})",
                    state.compacted
                )));
            }
            state.overlay(resource, at)
        } else {
            BTreeMap::new()
        };
        let Some(range) = key_range(query.namespace, query.after) else {
            return Ok(Page {
                rv: at,
                items: Vec::new(),
                continue_after: None,
                remaining: None,
            });
        };
        let merged = merge(current.range(range.clone()), overlay.range(range));
        Ok(collect_page(merged, query, at))
    }

    /// The current objects of a resource and a receiver for the events that follow.
    pub fn subscribe_with_state(&self, resource: &ResourceKey) -> StateSubscription {
        let state = self.read();
        let items = state
            .objects
            .get(resource)
            .map(|objects| objects.values().cloned().collect())
            .unwrap_or_default();
        StateSubscription {
            items,
            rv: state.rv,
            receiver: self.events.subscribe(),
        }
    }

    /// The kept events after `rv` and a receiver for the live ones; 410 if some are gone.
    pub fn subscribe_after(&self, rv: u64) -> Result<Subscription, ApiError> {
        let state = self.read();
        if rv < state.compacted {
            // Names the oldest resourceVersion a watch may still resume from, as the watch
            // cache's `oldest-1` (watch_cache_history.go apiserver v0.37.2:217-238).
            return Err(ApiError::expired(format!(
                "too old resource version: {rv} ({})",
                state.compacted
            )));
        }
        let start = state.history.partition_point(|e| e.rv <= rv);
        Ok(Subscription {
            backlog: state.history.range(start..).cloned().collect(),
            receiver: self.events.subscribe(),
        })
    }
}

impl State {
    /// For keys changed after `at`: their state as of `at` (None: absent then).
    fn overlay(
        &self,
        resource: &ResourceKey,
        at: u64,
    ) -> BTreeMap<String, Option<Arc<StoredObject>>> {
        let start = self.history.partition_point(|e| e.rv <= at);
        let mut overlay = BTreeMap::new();
        for event in self
            .history
            .range(start..)
            .filter(|e| *e.resource == *resource)
        {
            overlay
                .entry(event.object.key())
                .or_insert_with(|| event.prev.clone());
        }
        overlay
    }
}

/// The key range of a namespace (or everything), starting after a continue key; None when
/// the range is empty.
fn key_range(
    namespace: Option<&str>,
    after: Option<&str>,
) -> Option<(Bound<String>, Bound<String>)> {
    let (lower, upper) = match namespace {
        Some(ns) => (format!("{ns}/"), Some(format!("{ns}0"))),
        None => (String::new(), None),
    };
    let start = match after {
        Some(key) if upper.as_deref().is_some_and(|u| key >= u) => return None,
        Some(key) if key >= lower.as_str() => Bound::Excluded(key.to_owned()),
        _ => Bound::Included(lower),
    };
    Some((start, upper.map_or(Bound::Unbounded, Bound::Excluded)))
}

/// Current objects overridden by their historical state (key order).
fn merge<'a>(
    current: impl Iterator<Item = (&'a String, &'a Arc<StoredObject>)>,
    overlay: impl Iterator<Item = (&'a String, &'a Option<Arc<StoredObject>>)>,
) -> impl Iterator<Item = &'a Arc<StoredObject>> {
    let mut current = current.peekable();
    let mut overlay = overlay.peekable();
    std::iter::from_fn(move || {
        loop {
            let take_overlay = match (current.peek(), overlay.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((c, _)), Some((o, _))) => o <= c,
            };
            if !take_overlay {
                return current.next().map(|(_, object)| object);
            }
            let (key, past) = overlay.next()?;
            if current.peek().is_some_and(|(c, _)| *c == key) {
                current.next();
            }
            if let Some(object) = past {
                return Some(object);
            }
        }
    })
}

/// Fills a page from the merged iterator.
fn collect_page<'a>(
    mut objects: impl Iterator<Item = &'a Arc<StoredObject>>,
    query: &ListQuery<'_>,
    rv: u64,
) -> Page {
    let limit = query.limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
    let mut items = Vec::new();
    let mut last_key = None;
    for object in objects.by_ref() {
        if (query.filter)(object) {
            items.push(Arc::clone(object));
            if items.len() == limit {
                last_key = Some(object.key());
                break;
            }
        }
    }
    // A full page with selectors goes on whenever any object follows its last, selected or
    // not, as kube-apiserver's cache and etcd store page (`hasMoreListItems = i <
    // len(resp.Items)-1`, cacher.go apiserver v0.37.2:834-838): the next page may be empty.
    let rest = match (&last_key, query.count_remaining) {
        (None, _) => 0,
        (Some(_), true) => objects.filter(|o| (query.filter)(o)).count(),
        (Some(_), false) => usize::from(objects.next().is_some()),
    };
    Page {
        rv,
        items,
        continue_after: last_key.filter(|_| rest > 0),
        remaining: (query.count_remaining && rest > 0).then_some(rest),
    }
}

/// A write transaction: every change bumps the global resourceVersion and records an event.
pub struct Txn<'a> {
    state: &'a mut State,
    store: &'a Store,
    /// The events recorded so far, published when the transaction ends.
    published: Vec<Arc<StoreEvent>>,
    /// The key of the resource written last (writes come in runs of one resource).
    last_key: Option<Arc<ResourceKey>>,
    /// Whether a resource type stopped being served.
    unregistered: bool,
    /// A dry run: nothing is changed.
    dry_run: bool,
}

impl Txn<'_> {
    /// The served resource types.
    pub fn registry(&self) -> &Registry {
        &self.state.registry
    }

    /// One object by key.
    pub fn get(&self, resource: &ResourceKey, key: &str) -> Option<Arc<StoredObject>> {
        self.state.objects.get(resource)?.get(key).cloned()
    }

    /// Every object of a resource, in key order.
    pub fn objects(&self, resource: &ResourceKey) -> Vec<Arc<StoredObject>> {
        self.state
            .objects
            .get(resource)
            .map(|o| o.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Stores an object (create or update) at a new resourceVersion.
    pub fn put(
        &mut self,
        resource: &ResourceType,
        value: Value,
    ) -> Result<Arc<StoredObject>, ApiError> {
        if self.dry_run {
            return self.dry_put(resource, value);
        }
        let (object, prev) = self.store_object(resource, value)?;
        let event_type = if prev.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.record(
            resource,
            event_type,
            Arc::clone(&object),
            prev,
            OnceLock::new(),
        );
        Ok(object)
    }

    /// Replaces the object at `key`, read in this transaction at resourceVersion `current_rv`,
    /// with the one `render` makes for a resourceVersion: the next one, or in a dry run
    /// `current_rv`, storing nothing (see [`Self::put`]). None when there is no object at `key`.
    pub fn replace_rendered(
        &mut self,
        resource: &ResourceType,
        key: &str,
        current_rv: u64,
        render: impl FnOnce(u64) -> StoredObject,
    ) -> Option<Arc<StoredObject>> {
        if self.dry_run {
            return Some(Arc::new(render(current_rv)));
        }
        let rv = self.state.rv + 1;
        let slot = self.state.objects.get_mut(&resource.key())?.get_mut(key)?;
        let object = Arc::new(render(rv));
        let prev = std::mem::replace(slot, Arc::clone(&object));
        self.state.rv = rv;
        self.record(
            resource,
            EventType::Modified,
            Arc::clone(&object),
            Some(prev),
            OnceLock::new(),
        );
        Some(object)
    }

    /// Stores an object without recording a watch event (bulk seeding). Older resourceVersions
    /// become unreachable: lists and watches from before it get 410.
    pub fn put_unrecorded(
        &mut self,
        resource: &ResourceType,
        value: Value,
    ) -> Result<(), ApiError> {
        self.store_object(resource, value)?;
        self.state.compacted = self.state.rv;
        Ok(())
    }

    /// Removes an object, recording its last state at a new resourceVersion.
    pub fn remove(
        &mut self,
        resource: &ResourceType,
        key: &str,
    ) -> Result<Option<Arc<StoredObject>>, ApiError> {
        let resource_key = resource.key();
        if self.dry_run {
            return Ok(self.get(&resource_key, key));
        }
        let Some(prev) = self
            .state
            .objects
            .get_mut(&resource_key)
            .and_then(|o| o.remove(key))
        else {
            return Ok(None);
        };
        let rv = self.state.rv + 1;
        let mut value = prev.to_value()?;
        set_resource_version(&mut value, rv);
        let object = Arc::new(StoredObject::new(&value, resource, rv)?);
        self.state.rv = rv;
        self.record(
            resource,
            EventType::Deleted,
            Arc::clone(&object),
            Some(prev),
            OnceLock::new(),
        );
        Ok(Some(object))
    }

    /// Starts serving a resource type (a CRD was created or changed).
    pub fn register(&mut self, resource: ResourceType) {
        if !self.dry_run {
            self.state.registry.insert(resource);
        }
    }

    /// Stops serving a resource type, deleting its objects.
    pub fn unregister(&mut self, resource: &ResourceType) -> Result<(), ApiError> {
        if self.dry_run {
            return Ok(());
        }
        for object in self.objects(&resource.key()) {
            self.remove(resource, &object.key())?;
        }
        self.state.objects.remove(&resource.key());
        self.state.registry.remove(&resource.key());
        self.unregistered = true;
        Ok(())
    }

    /// What a dry run's [`Self::put`] answers: the object at the resourceVersion of the one it
    /// would replace, or without one when it would be created.
    fn dry_put(
        &self,
        resource: &ResourceType,
        mut value: Value,
    ) -> Result<Arc<StoredObject>, ApiError> {
        let text = |field: &str| {
            let pointer = format!("/metadata/{field}");
            value
                .pointer(&pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let key = object_key(&text("namespace"), &text("name"));
        let rv = self
            .get(&resource.key(), &key)
            .map_or(0, |current| current.rv);
        match rv {
            0 => {
                if let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) {
                    metadata.remove("resourceVersion");
                }
            }
            rv => set_resource_version(&mut value, rv),
        }
        StoredObject::new(&value, resource, rv).map(Arc::new)
    }

    fn store_object(
        &mut self,
        resource: &ResourceType,
        mut value: Value,
    ) -> Result<(Arc<StoredObject>, Option<Arc<StoredObject>>), ApiError> {
        let rv = self.state.rv + 1;
        set_resource_version(&mut value, rv);
        let object = Arc::new(StoredObject::new(&value, resource, rv)?);
        let prev = self
            .state
            .objects
            .entry(resource.key())
            .or_default()
            .insert(object.key(), Arc::clone(&object));
        self.state.rv = rv;
        Ok((object, prev))
    }

    /// The key of `resource`, shared with the events of the transaction.
    fn resource_key(&mut self, resource: &ResourceType) -> Arc<ResourceKey> {
        match &self.last_key {
            Some(key) if key.group == resource.group && key.plural == resource.plural => {
                Arc::clone(key)
            }
            _ => Arc::clone(self.last_key.insert(Arc::new(resource.key()))),
        }
    }

    fn record(
        &mut self,
        resource: &ResourceType,
        event_type: EventType,
        object: Arc<StoredObject>,
        prev: Option<Arc<StoredObject>>,
        line: OnceLock<Bytes>,
    ) {
        let event = Arc::new(StoreEvent {
            rv: object.rv,
            resource: self.resource_key(resource),
            event_type,
            object,
            prev,
            line,
            metadata_line: OnceLock::new(),
        });
        let state = &mut *self.state;
        state.history.push_back(Arc::clone(&event));
        while state.history.len() > self.store.history_limit {
            if let Some(dropped) = state.history.pop_front() {
                state.compacted = dropped.rv;
            }
        }
        if self.store.history_limit == 0 {
            state.compacted = event.rv;
        }
        self.published.push(event);
    }
}

/// Sets `metadata.resourceVersion`.
fn set_resource_version(value: &mut Value, rv: u64) {
    if let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn configmaps(store: &Store) -> Arc<ResourceType> {
        let registry = store.registry();
        registry
            .find("", "v1", "configmaps")
            .unwrap_or_else(|| unreachable!())
    }

    fn put(store: &Store, name: &str, data: &str) -> u64 {
        let resource = configmaps(store);
        let value = json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "default"}, "data": {"k": data}});
        store
            .write(|txn| txn.put(&resource, value))
            .map(|o| o.rv)
            .unwrap_or_default()
    }

    fn names(page: &Page) -> Vec<String> {
        page.items.iter().map(|o| o.name().to_owned()).collect()
    }

    fn query(at: Option<u64>, after: Option<&str>, limit: Option<usize>) -> ListQuery<'_> {
        ListQuery {
            namespace: Some("default"),
            at,
            after,
            limit,
            filter: &|_| true,
            count_remaining: false,
        }
    }

    #[test]
    fn every_write_bumps_the_global_resource_version() {
        let store = Store::new(100);
        let first = put(&store, "a", "1");
        let second = put(&store, "b", "1");
        assert_eq!(second, first + 1);
        assert_eq!(store.resource_version(), second);
    }

    #[test]
    fn lists_reconstruct_past_snapshots() {
        let store = Store::new(100);
        put(&store, "a", "1");
        let snapshot = put(&store, "b", "1");
        put(&store, "c", "1");
        put(&store, "a", "2");
        let resource = configmaps(&store);
        let removed = store.write(|txn| txn.remove(&resource, "default/b"));
        assert!(removed.is_ok_and(|o| o.is_some()));
        let key = resource.key();
        let past = store.list(&key, &query(Some(snapshot), None, None));
        assert!(
            past.as_ref()
                .is_ok_and(|p| names(p) == ["a", "b"] && p.items[0].rv == snapshot - 1)
        );
        let now = store.list(&key, &query(None, None, None));
        assert!(now.is_ok_and(|p| names(&p) == ["a", "c"]));
    }

    #[test]
    fn pages_continue_after_the_last_key() {
        let store = Store::new(100);
        for name in ["a", "b", "c"] {
            put(&store, name, "1");
        }
        let key = configmaps(&store).key();
        let first = store.list(&key, &query(None, None, Some(2)));
        assert!(first.as_ref().is_ok_and(|p| names(p) == ["a", "b"]));
        let after = first.ok().and_then(|p| p.continue_after);
        assert_eq!(after.as_deref(), Some("default/b"));
        let second = store.list(&key, &query(None, after.as_deref(), Some(2)));
        assert!(second.is_ok_and(|p| names(&p) == ["c"] && p.continue_after.is_none()));
    }

    #[test]
    fn trimmed_history_expires_old_resource_versions() {
        let store = Store::new(2);
        let first = put(&store, "a", "1");
        put(&store, "a", "2");
        put(&store, "a", "3");
        put(&store, "a", "4");
        let key = configmaps(&store).key();
        let expired = store.list(&key, &query(Some(first), None, None));
        assert!(expired.is_err_and(|e| e.code == 410));
        assert!(store.subscribe_after(first).is_err());
        let recent = store.subscribe_after(store.resource_version() - 2);
        assert!(recent.is_ok_and(|s| s.backlog.len() == 2));
        store.trim_history();
        let now = store.resource_version();
        // The message names the oldest resourceVersion still resumable (the watch cache's
        // `oldest-1`, watch_cache_history.go apiserver v0.37.2:217-238).
        let expired = store.subscribe_after(now - 1).err();
        assert_eq!(
            expired.map(|e| (e.reason, e.message)),
            Some((
                "Expired",
                format!("too old resource version: {} ({now})", now - 1)
            ))
        );
        assert!(
            store
                .subscribe_after(now)
                .is_ok_and(|s| s.backlog.is_empty())
        );
    }
}
