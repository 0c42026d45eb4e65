//! The fast path of a replace (PUT, and [`crate::EmbeddedServer::replace_objects`]) for the
//! write controllers and benchmarks make most: the object as it was read, with labels or
//! annotations changed.
//!
//! When the body is the current object in compact JSON (as serde_json writes a `Value`) except
//! for `metadata.labels` and `metadata.annotations`, and has each of the server-owned members
//! (`creationTimestamp`, `generation`, `managedFields`, `resourceVersion`, `uid`) as stored or
//! not at all, the general path stores the current object with the two maps replaced, the
//! writer owning the keys it changed in `managedFields` (other managers losing them, removed keys
//! leaving every manager) and a new resourceVersion: defaulting and the strategies read neither
//! map (a namespace's defaulted name label aside, so namespaces take the general path; and the
//! annotations of a Deployment, which move its `generation`, and of a DaemonSet, which carry
//! its template generation: a change of them takes the general path, see
//! [`super::workloads`]), and `generation` moves only with `spec`. This path builds those bytes from the current object's,
//! parsing the two maps and `managedFields`, not the object.
//!
//! A body not in the server's member order (Go's field order for built-in types: serde_json's
//! sorted keys, or pretty-printed) is first rewritten in that order: a compact one by moving
//! its members' bytes ([`crate::json::go_order::reorder_compact`]), any other parsed.
//!
//! Anything else — another member changed, a status write, a pending
//! deletion, a CRD, a pod that admission would change (one without the default tolerations)
//! — returns None and the general path decides, every error included. Both
//! paths store the same object for the same request (`splice_tests`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::admission;
use super::managed::Change;
use super::managed_raw::{self, MapKeys, Recorded, Rewrite};
use super::target::Target;
use super::workloads;
use crate::json::managed_entries::ManagedEntry;
use crate::json::members::{self, Member};
use crate::json::writer::has_backslash_or_control;
use crate::objects::StoredObject;
use crate::selectable::Selectable;
use crate::store::Txn;

/// The metadata members a body may leave out: the server keeps its own.
const SERVER_OWNED: [&[u8]; 5] = [
    b"creationTimestamp",
    b"generation",
    b"managedFields",
    b"resourceVersion",
    b"uid",
];

/// The metadata maps a body may change, in key order.
const STRING_MAPS: [&str; 2] = ["annotations", "labels"];

/// Replaces the object `target` names with `body` when the fast path applies (see the module
/// doc); None leaves the store untouched.
pub fn replace(txn: &mut Txn<'_>, target: &Target<'_>, body: &[u8]) -> Option<Arc<StoredObject>> {
    let resource = target.resource;
    if target.status_only || resource.is_crd() || resource.is_core("namespaces") {
        return None;
    }
    let key = target.key();
    let current = txn.get(&resource.key(), &key)?;
    if !admission::admits_unchanged_spec(resource, &current) {
        return None;
    }
    let reordered;
    let body = if resource.custom || body.starts_with(b"{\"kind\":") {
        body
    } else {
        reordered = in_server_order(body)?;
        &reordered
    };
    let plan = Plan::check(target, &current, body)?;
    if plan.changes_nothing() {
        // Not written: kube-apiserver's storage skips a write of the stored bytes
        // (apiserver `storage/etcd3/store.go` `GuaranteedUpdate`).
        return Some(Arc::clone(&current));
    }
    txn.replace_rendered(resource, &key, current.rv, |rv| plan.render(rv))
}

/// `body` (a built-in object whose members are not in the order the server writes them, e.g.
/// serde_json's sorted keys) rewritten in that order, so the byte comparison sees what the
/// general path would store: a compact body by moving its members' bytes, any other parsed
/// and written again; None when it is not JSON.
fn in_server_order(body: &[u8]) -> Option<Vec<u8>> {
    if let Some(reordered) = crate::json::go_order::reorder_compact(body) {
        return Some(reordered);
    }
    let value: Value = serde_json::from_slice(body).ok()?;
    Some(crate::json::type_meta::serialise(&value, false).0)
}

/// A checked replace, ready to render at a resourceVersion.
struct Plan<'a> {
    current: &'a StoredObject,
    /// Where the current object's `metadata` value is.
    metadata: Range<usize>,
    /// Its members.
    members: &'a [Member],
    /// The body's value of each of [`STRING_MAPS`], where the current object has it.
    maps: [Option<&'a [u8]>; 2],
    /// What becomes of `managedFields`.
    managed_fields: ManagedChange<'a>,
    selectable: Arc<Selectable>,
}

impl<'a> Plan<'a> {
    /// Checks that the general path would store `current` with only its labels, annotations,
    /// managedFields and resourceVersion changed by `body`; gathers what rendering needs.
    fn check(target: &Target<'_>, current: &'a StoredObject, body: &'a [u8]) -> Option<Self> {
        let stored = &current.bytes[..];
        let metadata = current.type_meta().metadata()?;
        if current.type_meta().end() > metadata.start {
            return None;
        }
        let (given_metadata, common) = changed_within(stored, body, metadata.clone())?;
        let api_version = current.type_meta().api_version(stored)?;
        let members = current.metadata_members()?;
        let has = |key: &str| members.iter().any(|m| m.key_of(stored) == key.as_bytes());
        if !has("resourceVersion") || has("generation") != target.resource.tracks_generation() {
            return None;
        }
        let given = members::edited_members(stored, members, body, given_metadata, common)?;
        let maps = map_changes(stored, members, body, &given, common)?;
        if workloads::annotations_are_read(target.resource)
            && maps[0]
                .as_ref()
                .is_some_and(|m| !m.changed.is_empty() || !m.removed.is_empty())
        {
            return None;
        }
        let managed_fields = managed_fields(current, &maps, target, &api_version)?;
        let selectable = match maps[1].as_ref().map(|labels| labels.given_pairs.as_ref()) {
            // The labels as stored (or none, as stored), and every field is the stored one's.
            None | Some(None) => current.selectable().clone(),
            Some(Some(labels)) => Arc::new(Selectable::new(
                current.name(),
                current.namespace(),
                labels.iter().map(|(k, v)| (k.as_ref(), v.as_ref())),
                target.resource,
                |field| current.field(field),
            )?),
        };
        Some(Plan {
            current,
            metadata,
            members,
            maps: [0, 1].map(|i| maps[i].as_ref().map(|m| m.given)),
            managed_fields,
            selectable,
        })
    }

    /// Whether rendering would write the current object again: the body's labels and
    /// annotations are the stored bytes and no manager's fields change.
    fn changes_nothing(&self) -> bool {
        matches!(self.managed_fields, ManagedChange::Unchanged)
            && STRING_MAPS.iter().zip(&self.maps).all(|(name, given)| {
                given
                    .is_none_or(|given| self.current.metadata_value(name.as_bytes()) == Some(given))
            })
    }

    /// The object at `rv`.
    fn render(self, rv: u64) -> StoredObject {
        let stored = &self.current.bytes[..];
        let mut out = Vec::with_capacity(stored.len() + 64);
        out.extend_from_slice(&stored[..self.metadata.start]);
        out.push(b'{');
        let mut written = Vec::with_capacity(self.members.len());
        for member in self.members {
            let rendered = self.value_of(member);
            if let Rendered::Omitted = rendered {
                continue;
            }
            if !written.is_empty() {
                out.push(b',');
            }
            out.push(b'"');
            let key_start = out.len();
            out.extend_from_slice(member.key_of(stored));
            let key = key_start..out.len();
            out.extend_from_slice(b"\":");
            let value_start = out.len();
            match rendered {
                Rendered::Bytes(value) => out.extend_from_slice(value),
                Rendered::Rewrite(rewrite) => rewrite.write(&mut out),
                Rendered::ResourceVersion => {
                    out.push(b'"');
                    out.extend_from_slice(itoa::Buffer::new().format(rv).as_bytes());
                    out.push(b'"');
                }
                Rendered::Omitted => {}
            }
            written.push(Member {
                key,
                value: value_start..out.len(),
            });
        }
        out.push(b'}');
        let metadata = self.metadata.start..out.len();
        out.extend_from_slice(&stored[self.metadata.end..]);
        let type_meta = self.current.type_meta().with_metadata(metadata);
        let members = written.into_boxed_slice();
        let entries = match self.managed_fields {
            ManagedChange::Unchanged => self.current.managed_entries_read().map(Box::from),
            ManagedChange::Removed => None,
            ManagedChange::Rewritten(_, entries) => entries,
            ManagedChange::Edited(rewrite) => Some(rewrite.into_entries()),
        };
        let bytes = Bytes::from(out);
        StoredObject::from_parts(bytes, rv, self.selectable, type_meta, members, entries)
            .with_spec_admitted_of(self.current)
    }

    /// What a current metadata member becomes.
    fn value_of(&self, member: &Member) -> Rendered<'_> {
        let stored = &self.current.bytes[..];
        let key = member.key_of(stored);
        let map = STRING_MAPS.iter().position(|name| name.as_bytes() == key);
        match (key, map) {
            (_, Some(index)) => {
                Rendered::Bytes(self.maps[index].unwrap_or(member.value_of(stored)))
            }
            (b"resourceVersion", _) => Rendered::ResourceVersion,
            (b"managedFields", _) => match &self.managed_fields {
                ManagedChange::Removed => Rendered::Omitted,
                ManagedChange::Rewritten(fields, _) => Rendered::Bytes(fields),
                ManagedChange::Edited(rewrite) => Rendered::Rewrite(rewrite),
                ManagedChange::Unchanged => Rendered::Bytes(member.value_of(stored)),
            },
            _ => Rendered::Bytes(member.value_of(stored)),
        }
    }
}

/// What a replace does to `managedFields`.
enum ManagedChange<'a> {
    /// Nothing.
    Unchanged,
    /// The member goes: no entry is left.
    Removed,
    /// It becomes this value, whose entries are these when known.
    Rewritten(Vec<u8>, Option<Box<[ManagedEntry]>>),
    /// It becomes this edit of the stored value, written straight into the object.
    Edited(Rewrite<'a>),
}

/// What a metadata member is rendered as.
enum Rendered<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// The value this edit writes.
    Rewrite(&'a Rewrite<'a>),
    /// The new resourceVersion.
    ResourceVersion,
    /// Nothing: the member is dropped.
    Omitted,
}

/// Where the body's `metadata` value is, when the body is the stored object with only the
/// inside of its `metadata` value (at `metadata`) changed; and how many bytes the two start and
/// end with in common.
fn changed_within(
    stored: &[u8],
    body: &[u8],
    metadata: Range<usize>,
) -> Option<(Range<usize>, (usize, usize))> {
    let after = stored.len().checked_sub(metadata.end)?;
    let given = metadata.start..body.len().checked_sub(after)?;
    let prefix = common_prefix(stored, body);
    if prefix == stored.len() && prefix == body.len() {
        return Some((given, (prefix, 0)));
    }
    let suffix = common_suffix(&stored[prefix..], &body[prefix..]);
    (prefix > metadata.start && suffix > after).then_some((given, (prefix, suffix)))
}

/// Bytes compared by one `memcmp` before [`common_prefix`] and [`common_suffix`] look inside
/// the block that differs.
const BLOCK: usize = 256;

/// How many bytes `a` and `b` start with in common: whole blocks first, then the block that
/// differs eight bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let blocks = a.chunks(BLOCK).zip(b.chunks(BLOCK));
    let same = blocks.take_while(|(x, y)| x == y).count() * BLOCK;
    let same = same.min(a.len()).min(b.len());
    let (a, b) = (&a[same..], &b[same..]);
    let (words_a, _) = a.as_chunks::<8>();
    let (words_b, _) = b.as_chunks::<8>();
    for (index, (x, y)) in words_a.iter().zip(words_b).enumerate() {
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return same + index * 8 + differ.trailing_zeros() as usize / 8;
        }
    }
    let words = words_a.len().min(words_b.len()) * 8;
    same + words
        + a[words..]
            .iter()
            .zip(&b[words..])
            .take_while(|(x, y)| x == y)
            .count()
}

/// How many bytes `a` and `b` end with in common: whole blocks from the end first, then the
/// block that differs eight bytes at a time.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let blocks = a.rchunks(BLOCK).zip(b.rchunks(BLOCK));
    let same = blocks.take_while(|(x, y)| x == y).count() * BLOCK;
    let same = same.min(a.len()).min(b.len());
    let (a, b) = (&a[..a.len() - same], &b[..b.len() - same]);
    let (_, words_a) = a.as_rchunks::<8>();
    let (_, words_b) = b.as_rchunks::<8>();
    for (index, (x, y)) in words_a.iter().rev().zip(words_b.iter().rev()).enumerate() {
        let differ = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if differ != 0 {
            return same + index * 8 + differ.leading_zeros() as usize / 8;
        }
    }
    let words = words_a.len().min(words_b.len()) * 8;
    let (a, b) = (&a[..a.len() - words], &b[..b.len() - words]);
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y);
    same + words + tail.count()
}

/// A string map's pairs in key order: borrowed from its JSON where nothing is escaped.
type Pairs<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// One of [`STRING_MAPS`] as the body gives it, and how it differs from the stored one.
struct MapChange<'a> {
    /// Which map: `annotations` or `labels`.
    name: &'static str,
    /// The body's bytes.
    given: &'a [u8],
    /// Them read; None when they are the stored bytes (nothing needs them then).
    given_pairs: Option<Pairs<'a>>,
    /// The keys the body adds or changes, in order.
    changed: Vec<Cow<'a, str>>,
    /// The keys the body removes, in order.
    removed: Vec<Cow<'a, str>>,
}

impl<'a> MapChange<'a> {
    /// The change from `stored` to `given`; None unless `given` is a string map written as
    /// serde_json writes one.
    fn of(name: &'static str, stored: &'a [u8], given: &'a [u8]) -> Option<Self> {
        let mut change = MapChange {
            name,
            given,
            given_pairs: None,
            changed: Vec::new(),
            removed: Vec::new(),
        };
        if stored == given {
            return Some(change);
        }
        let given_pairs = string_pairs(given)?;
        let stored_pairs = string_pairs(stored)?;
        let mut before = stored_pairs.iter().peekable();
        for (key, value) in &given_pairs {
            while let Some((gone, _)) = before.next_if(|(k, _)| k < key) {
                change.removed.push(gone.clone());
            }
            match before.next_if(|(k, _)| k == key) {
                Some((_, was)) if was == value => {}
                _ => change.changed.push(key.clone()),
            }
        }
        change.removed.extend(before.map(|(gone, _)| gone.clone()));
        change.given_pairs = Some(given_pairs);
        Some(change)
    }

    /// Adds this map's changed and removed keys to `change`.
    fn add_to(&self, change: &mut Change) {
        add_paths(&mut change.changed, self.name, &self.changed);
        add_paths(&mut change.removed, self.name, &self.removed);
    }
}

/// The pairs of a string map written as serde_json writes a `BTreeMap<String, String>`
/// (compact, keys sorted and unique, only `"`, `\` and control characters escaped); None for
/// anything else. Maps without escapes (nearly all) are read in place; others are parsed, each
/// key written without an escape still borrowed from the map (annotation values such as
/// kubectl's last-applied-configuration hold escapes, keys never do, and the in-place
/// managedFields edit writes borrowed keys only).
fn string_pairs(map: &[u8]) -> Option<Pairs<'_>> {
    if let Some(pairs) = plain_pairs(map) {
        return Some(pairs);
    }
    let parsed: BTreeMap<String, String> = serde_json::from_slice(map).ok()?;
    if serde_json::to_vec(&parsed).ok()? != map {
        return None;
    }
    // Written as serde_json writes it: one member per pair, in the same order.
    let members = members::members(map, 0..map.len())?;
    let key = |member: &Member, parsed: String| {
        let text = member.key_of(map);
        match std::str::from_utf8(text) {
            Ok(text) if !text.contains('\\') => Cow::Borrowed(text),
            _ => Cow::Owned(parsed),
        }
    };
    let pairs = parsed.into_iter().zip(&members);
    Some(
        pairs
            .map(|((k, v), m)| (key(m, k), Cow::Owned(v)))
            .collect(),
    )
}

/// [`string_pairs`] of a map whose keys and values need no escape (serde_json writes them as
/// they are), keys strictly increasing; None otherwise. Checked once for the whole map: with no
/// backslash and no control character anywhere, no string has an escape (an unescaped quote
/// cannot stand inside one), and the map is one UTF-8 text its strings are cut from.
fn plain_pairs(map: &[u8]) -> Option<Pairs<'_>> {
    if has_backslash_or_control(map) {
        return None;
    }
    let text = std::str::from_utf8(map).ok()?;
    let members = members::members(map, 0..map.len())?;
    let mut pairs: Pairs<'_> = Vec::with_capacity(members.len());
    for member in &members {
        let key = text.get(member.key.clone())?;
        let quoted = text.get(member.value.clone())?;
        let value = quoted.strip_prefix('"')?.strip_suffix('"')?;
        if pairs.last().is_some_and(|(last, _)| last.as_ref() >= key) {
            return None;
        }
        pairs.push((Cow::Borrowed(key), Cow::Borrowed(value)));
    }
    Some(pairs)
}

/// Adds `metadata.<map>.<key>` for each of `keys` to the `fieldsV1` tree `tree`.
fn add_paths(tree: &mut Option<Value>, map: &str, keys: &[Cow<'_, str>]) {
    if keys.is_empty() {
        return;
    }
    let fields: Map<String, Value> = keys.iter().map(|k| (format!("f:{k}"), json!({}))).collect();
    let tree = tree.get_or_insert_with(|| json!({"f:metadata": {}}));
    tree["f:metadata"][format!("f:{map}")] = Value::Object(fields);
}

/// The body's labels and annotations, when every other member of the body's metadata (`given`)
/// is the stored one's (`members`) or a server-owned one left out, and the object's deletion is
/// not pending. The two start and end with `common` bytes in common.
fn map_changes<'a>(
    stored: &'a [u8],
    members: &[Member],
    body: &'a [u8],
    given: &[Member],
    common: (usize, usize),
) -> Option<[Option<MapChange<'a>>; 2]> {
    let mut maps = [None, None];
    let mut given = given.iter().peekable();
    for member in members {
        let key = member.key_of(stored);
        if key == b"deletionTimestamp" {
            return None;
        }
        match given.next_if(|theirs| theirs.key_of(body) == key) {
            Some(theirs) => {
                let map = STRING_MAPS.iter().position(|name| name.as_bytes() == key);
                match map {
                    Some(index) => {
                        let change = MapChange::of(
                            STRING_MAPS[index],
                            member.value_of(stored),
                            theirs.value_of(body),
                        )?;
                        maps[index] = Some(change);
                    }
                    None if !same_value((stored, &member.value), (body, &theirs.value), common) => {
                        return None;
                    }
                    None => {}
                }
            }
            None if SERVER_OWNED.contains(&key) => {}
            None => return None,
        }
    }
    given.next().is_none().then_some(maps)
}

/// Whether the value at `at` in `stored` and the one at `given` in `body` are the same bytes:
/// known by position when both stand where the two share their first `common.0` or last
/// `common.1` bytes, compared otherwise.
fn same_value(
    (stored, at): (&[u8], &Range<usize>),
    (body, given): (&[u8], &Range<usize>),
    (prefix, suffix): (usize, usize),
) -> bool {
    let in_prefix = at == given && given.end <= prefix;
    let from_end = |document: &[u8], range: &Range<usize>| document.len().checked_sub(range.start);
    let in_suffix = at.len() == given.len()
        && from_end(body, given).is_some_and(|back| back <= suffix)
        && from_end(stored, at) == from_end(body, given);
    in_prefix || in_suffix || stored.get(at.clone()) == body.get(given.clone())
}

/// What the `maps`' changes by the target's writer do to `managedFields`; None when the
/// stored object has none to change. Rewritten in place when [`managed_raw`] can (from the
/// entries `current` knows or scans), parsed otherwise.
fn managed_fields<'a>(
    current: &'a StoredObject,
    maps: &[Option<MapChange<'a>>; 2],
    target: &Target<'_>,
    api_version: &str,
) -> Option<ManagedChange<'a>> {
    let each_map = || maps.iter().flatten();
    if each_map().all(|map| map.changed.is_empty() && map.removed.is_empty()) {
        return Some(ManagedChange::Unchanged);
    }
    let raw = current.metadata_value(b"managedFields")?;
    if each_map().all(|map| map.removed.is_empty())
        && let Some(entries) = current.managed_entries()
    {
        let changed: Vec<MapKeys<'_, 'a>> =
            each_map().map(|map| (map.name, &map.changed[..])).collect();
        match managed_raw::record_map_keys(raw, entries, &changed, target.writer, api_version) {
            Some(Recorded::Same) => return Some(ManagedChange::Unchanged),
            Some(Recorded::Rewritten(rewrite)) => return Some(ManagedChange::Edited(rewrite)),
            None => {}
        }
    }
    let mut change = Change::default();
    for map in each_map() {
        map.add_to(&mut change);
    }
    let entries: Vec<Value> = serde_json::from_slice(raw).ok()?;
    let entries = change.record(entries, target.writer, api_version);
    match entries.is_empty() {
        true => Some(ManagedChange::Removed),
        false => serde_json::to_vec(&entries)
            .ok()
            .map(|fields| ManagedChange::Rewritten(fields, None)),
    }
}

#[cfg(test)]
#[path = "splice_tests.rs"]
mod splice_tests;
