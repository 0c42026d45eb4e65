//! The cached object: the raw JSON bytes exactly as received plus the parsed metadata the
//! pipeline needs, and the values of the configured index functions, all computed once at ingest.
//!
//! No `serde_json::Value` tree is kept per object (DESIGN.md, "The cached object"): output writes
//! the raw bytes back out, and every decision the pipeline makes reads the parsed metadata.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;

use crate::json_scan;

/// A shared, immutable cached object. Cloning is a reference-count bump.
pub type ObjectRef = Arc<CachedObject>;

/// One object as the informer caches it.
pub struct CachedObject {
    meta: ObjectMeta,
    /// Values of the indices after the built-in `namespace` one (which is read off the key).
    index_values: Box<[Box<[String]>]>,
}

/// A `start..start+len` range of a metadata string: in the object's raw JSON (an unescaped
/// string, read where it lies), or, with [`IN_TEXT`] set in `start`, in [`ObjectMeta`]'s own text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// The bit of [`Span::start`] that says the span is in the metadata's text, not the raw JSON.
const IN_TEXT: u32 = 1 << 31;

/// The metadata fields the pipeline reads, as spans: a string the JSON holds unescaped is read
/// from the raw bytes (no copy), the key and escaped strings from one small text buffer per
/// object. This is paid once per cached object, so it stays lean (no String per field).
#[derive(Debug, Clone, Default)]
pub struct ObjectMeta {
    /// The object's JSON exactly as received (after the transform, if one ran). A LIST item
    /// shares its page's buffer (the page is the cache: no copy); a watch object is copied out
    /// of the chunk it came in (see `Reflector::decode`).
    raw: Bytes,
    /// `namespace/name`, and any kept string the JSON escaped.
    text: Box<str>,
    /// `namespace/name`, or `name`; always in `text`.
    key: Span,
    /// Length of the namespace prefix of the key; 0 for cluster-scoped objects.
    namespace_len: u32,
    uid: Span,
    resource_version: Span,
    creation_timestamp: Option<Span>,
    deletion_timestamp: Option<Span>,
    /// Sorted by label key.
    labels: Box<[(Span, Span)]>,
    owner_references: Box<[OwnerSpans]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OwnerSpans {
    kind: Span,
    name: Span,
    uid: Span,
    controller: bool,
}

/// One entry of `metadata.ownerReferences`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerReference<'a> {
    /// The owner's kind.
    pub kind: &'a str,
    /// The owner's name.
    pub name: &'a str,
    /// The owner's uid.
    pub uid: &'a str,
    /// Whether this owner is the managing controller.
    pub controller: bool,
}

/// The part of `text` or `raw` that `span` names (raw spans were cut from `&str`s borrowed
/// from it, so they are UTF-8).
fn span_text<'a>(text: &'a str, raw: &'a [u8], span: Span) -> &'a str {
    let len = span.len as usize;
    if span.start & IN_TEXT != 0 {
        let start = (span.start & !IN_TEXT) as usize;
        return text.get(start..start + len).unwrap_or_default();
    }
    let start = span.start as usize;
    raw.get(start..start + len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .unwrap_or_default()
}

impl ObjectMeta {
    /// This metadata read off `raw`: the bytes it was read from, or a copy of them.
    pub(crate) fn describing(self, raw: Bytes) -> Self {
        Self { raw, ..self }
    }

    fn get(&self, span: Span) -> &str {
        span_text(&self.text, &self.raw, span)
    }

    /// `namespace/name`, or `name` for cluster-scoped objects (Rule I1).
    pub fn key(&self) -> &str {
        self.get(self.key)
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        let key = self.key();
        match self.namespace_len as usize {
            0 => key,
            n => key.get(n + 1..).unwrap_or_default(),
        }
    }

    /// `metadata.namespace`; None for cluster-scoped objects.
    pub fn namespace(&self) -> Option<&str> {
        let n = self.namespace_len as usize;
        (n > 0).then(|| self.key().get(..n).unwrap_or_default())
    }

    /// `metadata.uid` (empty when absent).
    pub fn uid(&self) -> &str {
        self.get(self.uid)
    }

    /// `metadata.resourceVersion` (empty when absent).
    pub fn resource_version(&self) -> &str {
        self.get(self.resource_version)
    }

    /// `metadata.creationTimestamp`.
    pub fn creation_timestamp(&self) -> Option<&str> {
        self.creation_timestamp.map(|s| self.get(s))
    }

    /// `metadata.deletionTimestamp`.
    pub fn deletion_timestamp(&self) -> Option<&str> {
        self.deletion_timestamp.map(|s| self.get(s))
    }

    /// The value of label `key`.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .binary_search_by(|(k, _)| self.get(*k).cmp(key))
            .ok()
            .map(|i| self.get(self.labels[i].1))
    }

    /// Every label, sorted by key.
    pub fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.labels
            .iter()
            .map(|(k, v)| (self.get(*k), self.get(*v)))
    }

    /// `metadata.ownerReferences`, in order.
    pub fn owner_references(&self) -> impl Iterator<Item = OwnerReference<'_>> {
        self.owner_references.iter().map(|o| OwnerReference {
            kind: self.get(o.kind),
            name: self.get(o.name),
            uid: self.get(o.uid),
            controller: o.controller,
        })
    }
}

/// Two metadata are equal when every field reads the same (wherever each string lies).
impl PartialEq for ObjectMeta {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
            && self.namespace_len == other.namespace_len
            && self.uid() == other.uid()
            && self.resource_version() == other.resource_version()
            && self.creation_timestamp() == other.creation_timestamp()
            && self.deletion_timestamp() == other.deletion_timestamp()
            && self.labels().eq(other.labels())
            && self.owner_references().eq(other.owner_references())
    }
}

impl Eq for ObjectMeta {}

/// Builds an [`ObjectMeta`]'s spans: strings borrowed from `raw` become raw spans, the rest
/// are copied into the text buffer.
struct SpanBuilder<'a> {
    raw: &'a [u8],
    text: String,
}

impl<'a> SpanBuilder<'a> {
    /// A builder whose text has room for `key_len` bytes (escaped strings are rare).
    fn new(raw: &'a [u8], key_len: usize) -> Self {
        Self {
            raw,
            text: String::with_capacity(key_len),
        }
    }

    /// `s` as a span of the raw JSON when it lies in it, else `None`.
    fn in_raw(&self, s: &str) -> Option<Span> {
        let start = (s.as_ptr() as usize).checked_sub(self.raw.as_ptr() as usize)?;
        let start = u32::try_from(start).ok().filter(|x| x & IN_TEXT == 0)?;
        let len = u32::try_from(s.len()).ok()?;
        (start as usize + s.len() <= self.raw.len()).then_some(Span { start, len })
    }

    /// Pushes the pieces into the text as one span (e.g. `namespace`, `/`, `name` as the key).
    fn push_all(&mut self, pieces: &[&str]) -> Span {
        let start = self.text.len();
        for piece in pieces {
            self.text.push_str(piece);
        }
        Span {
            start: u32::try_from(start).unwrap_or(0) | IN_TEXT,
            len: u32::try_from(self.text.len() - start).unwrap_or(0),
        }
    }

    /// The span of a kept string: where it lies in the raw JSON, or a copy in the text.
    fn span(&mut self, s: &str) -> Span {
        self.in_raw(s).unwrap_or_else(|| self.push_all(&[s]))
    }

    /// The text of a span made before.
    fn get(&self, span: Span) -> &str {
        span_text(&self.text, self.raw, span)
    }
}

/// Why raw bytes could not become a cached object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not a JSON object (serde_json's words).
    #[error("object is not valid JSON: {0}")]
    Json(String),
    /// The object has no `metadata.name`.
    #[error("object has no metadata.name")]
    MissingName,
    /// The transform refused the object (its error's words).
    #[error("transform failed: {0}")]
    Transform(String),
}

impl CachedObject {
    /// Parses the metadata of `raw` and keeps the bytes. Index values are attached by
    /// [`CachedObject::with_index_values`].
    pub fn from_json(raw: impl Into<Bytes>) -> Result<Self, DecodeError> {
        let raw = raw.into();
        let meta = parse_meta(&raw)?;
        Ok(Self::new(meta, raw))
    }

    /// Like [`CachedObject::from_json`] for bytes already known to be one valid JSON value
    /// (a LIST item or watch object the frame parser delimited): only the members before
    /// `metadata` and `metadata` itself are read, not the whole object again.
    pub fn from_valid_json(raw: impl Into<Bytes>) -> Result<Self, DecodeError> {
        let raw = raw.into();
        let meta = match scan_meta(&raw) {
            Some(meta) => meta_from(meta, &raw)?,
            None => parse_meta(&raw)?,
        };
        Ok(Self::new(meta, raw))
    }

    /// `raw` with the metadata [`validate_with_meta`] read from the same bytes (or from
    /// the bytes `raw` is a copy of) while it validated them.
    pub(crate) fn from_scanned(meta: ObjectMeta, raw: Bytes) -> Self {
        Self::new(meta, raw)
    }

    /// The object of `raw` and the metadata read from it.
    fn new(meta: ObjectMeta, raw: Bytes) -> Self {
        Self {
            meta: ObjectMeta { raw, ..meta },
            index_values: Box::default(),
        }
    }

    /// Attaches the values of the informer's index functions after the namespace index, in
    /// the indexer's order.
    pub fn with_index_values(mut self, values: Vec<Box<[String]>>) -> Self {
        self.index_values = values.into_boxed_slice();
        self
    }

    /// The JSON exactly as received (after the transform, if one ran).
    pub fn raw(&self) -> &[u8] {
        &self.meta.raw
    }

    /// The parsed metadata.
    pub fn meta(&self) -> &ObjectMeta {
        &self.meta
    }

    /// `namespace/name`, or `name` for cluster-scoped objects (Rule I1).
    pub fn key(&self) -> &str {
        self.meta.key()
    }

    /// `metadata.resourceVersion`.
    pub fn resource_version(&self) -> &str {
        self.meta.resource_version()
    }

    /// The values index `index` holds for this object (index 0 is always the built-in
    /// `namespace` index, whose value is the key's namespace, `""` for a cluster-scoped object
    /// as client-go's `MetaNamespaceIndexFunc` gives — Rule I4).
    pub fn index_values(&self, index: usize) -> impl Iterator<Item = &str> {
        let namespace = (index == 0).then(|| self.meta.namespace().unwrap_or(""));
        let rest = index
            .checked_sub(1)
            .and_then(|i| self.index_values.get(i))
            .map_or(&[][..], |v| &v[..]);
        namespace.into_iter().chain(rest.iter().map(String::as_str))
    }

    /// How many indices' values this object carries from ingest (the namespace index is
    /// always one); the store computes the values of indices added later (Rule I3).
    pub fn carried_indices(&self) -> usize {
        1 + self.index_values.len()
    }

    /// The controller owner reference as `namespace/Kind/name` (the object's namespace: two
    /// namespaces' ReplicaSets of one name are two owners), `Kind/name` for a cluster-scoped
    /// object, if any.
    pub fn controller_ref(&self) -> Option<String> {
        let owner = self.meta.owner_references().find(|o| o.controller)?;
        Some(match self.meta.namespace() {
            Some(ns) => format!("{ns}/{}/{}", owner.kind, owner.name),
            None => format!("{}/{}", owner.kind, owner.name),
        })
    }
}

impl fmt::Debug for CachedObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedObject")
            .field("key", &self.meta.key())
            .field("rv", &self.meta.resource_version())
            .finish()
    }
}

/// `namespace/name` or `name` (client-go's MetaNamespaceKeyFunc).
pub fn object_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_owned(),
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    metadata: Option<RawMeta<'a>>,
}

/// A JSON string borrowed from the input when it has no escapes (serde's own `Cow<str>` impl
/// always copies, and `#[serde(borrow)]` only borrows a bare `Cow` field, not an `Option`).
pub(super) struct Text<'a>(pub(super) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(Visitor(std::marker::PhantomData))
    }
}

/// `deserialize_with` for an optional string member that borrows like [`Text`].
fn borrowed_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(Option::<Text<'de>>::deserialize(d)?.map(|t| t.0))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawMeta<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    uid: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    resource_version: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    creation_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    deletion_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    labels: Option<Labels<'a>>,
    #[serde(borrow, default)]
    owner_references: Option<Owners<'a>>,
}

/// `metadata.labels`: the JSON object of strings as the scan found it (its members are read
/// straight into the cached metadata, with no list in between), or as serde_json decoded it.
enum Labels<'a> {
    /// An object of string values with plain keys, checked by [`scan_labels`].
    Scanned(&'a [u8]),
    Decoded(Vec<(Cow<'a, str>, Cow<'a, str>)>),
}

impl Labels<'_> {
    fn count(&self) -> usize {
        let mut n = 0;
        self.for_each(|_, _| n += 1);
        n
    }

    /// Calls `visit(key, value)` for each label in document order.
    fn for_each(&self, mut visit: impl FnMut(&str, &str)) {
        match self {
            Labels::Scanned(raw) => {
                // Checked by scan_labels: plain UTF-8 keys and string values.
                let _ = json_scan::for_each_member(raw, 0, |key, at| {
                    let (value, end) = json_scan::string_at(raw, at)?;
                    visit(std::str::from_utf8(key).ok()?, &value?);
                    Some(end)
                });
            }
            Labels::Decoded(pairs) => pairs.iter().for_each(|(k, v)| visit(k, v)),
        }
    }
}

/// The labels object at `at` and where it ends, when every key is plain (no escapes) and every
/// value a string; None otherwise (the caller falls back to serde_json, which words errors).
fn scan_labels(raw: &[u8], at: usize) -> Option<(Labels<'_>, usize)> {
    let end = json_scan::for_each_member(raw, at, |key, at| {
        if key.contains(&b'\\') {
            return None;
        }
        let (value, end) = json_scan::string_at(raw, at)?;
        value.map(|_| end)
    })?;
    let start = json_scan::skip_whitespace(raw, at);
    Some((Labels::Scanned(&raw[start..end]), end))
}

impl<'de: 'a, 'a> Deserialize<'de> for Labels<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Labels<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Self::Value, M::Error> {
                let mut pairs = Vec::with_capacity(m.size_hint().unwrap_or(4));
                while let Some((k, v)) = m.next_entry::<Text<'de>, Text<'de>>()? {
                    pairs.push((k.0, v.0));
                }
                Ok(Labels::Decoded(pairs))
            }
        }
        d.deserialize_map(Visitor(std::marker::PhantomData))
    }
}

/// `metadata.ownerReferences`, like [`Labels`]: the array as the scan found it, or as
/// serde_json decoded it.
enum Owners<'a> {
    /// An array of entries [`scan_owner`] reads.
    Scanned(&'a [u8]),
    Decoded(Vec<RawOwnerRef<'a>>),
}

impl Owners<'_> {
    fn count(&self) -> usize {
        let mut n = 0;
        self.for_each(|_| n += 1);
        n
    }

    /// Calls `visit` for each entry in document order.
    fn for_each(&self, mut visit: impl FnMut(&RawOwnerRef<'_>)) {
        match self {
            Owners::Scanned(raw) => {
                let _ = json_scan::for_each_element(raw, 0, |at| {
                    let (owner, end) = scan_owner(raw, at, Pass::Validated)?;
                    visit(&owner);
                    Some(end)
                });
            }
            Owners::Decoded(owners) => owners.iter().for_each(visit),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Owners<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::deserialize(d).map(Owners::Decoded)
    }
}

/// The ownerReferences array at `at` and where it ends, when [`scan_owner`] reads every entry.
fn scan_owners(raw: &[u8], at: usize, pass: Pass) -> Option<(Owners<'_>, usize)> {
    let end =
        json_scan::for_each_element(raw, at, |at| scan_owner(raw, at, pass).map(|(_, end)| end))?;
    let start = json_scan::skip_whitespace(raw, at);
    Some((Owners::Scanned(&raw[start..end]), end))
}

/// One ownerReferences entry as serde reads [`RawOwnerRef`] and where it ends; None for
/// anything serde might read differently or reject (escaped or repeated keys, other types).
fn scan_owner(raw: &[u8], at: usize, pass: Pass) -> Option<(RawOwnerRef<'_>, usize)> {
    let mut owner = RawOwnerRef::default();
    let mut seen = [false; 4];
    let end = json_scan::for_each_member(raw, at, |key, at| {
        let field = match key {
            b"kind" => 0,
            b"name" => 1,
            b"uid" => 2,
            b"controller" => 3,
            _ if key.contains(&b'\\') => return None,
            // metadata.ownerReferences[i].<member>: four containers deep.
            _ => return pass.skip(raw, at, 4),
        };
        if std::mem::replace(&mut seen[field], true) {
            return None;
        }
        if field == 3 {
            let (controller, end) = scan_bool(raw, at)?;
            owner.controller = controller;
            return Some(end);
        }
        let (text, end) = json_scan::string_at(raw, at)?;
        *[&mut owner.kind, &mut owner.name, &mut owner.uid][field] = text?;
        Some(end)
    })?;
    Some((owner, end))
}

/// `true`, `false` or `null` at `at`, and where it ends.
fn scan_bool(raw: &[u8], at: usize) -> Option<(Option<bool>, usize)> {
    let rest = raw.get(at..)?;
    [
        (&b"true"[..], Some(true)),
        (b"false", Some(false)),
        (b"null", None),
    ]
    .into_iter()
    .find(|(literal, _)| rest.starts_with(literal))
    .map(|(literal, value)| (value, at + literal.len()))
}

#[derive(Deserialize, Default)]
struct RawOwnerRef<'a> {
    #[serde(borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    uid: Cow<'a, str>,
    #[serde(default)]
    controller: Option<bool>,
}

fn parse_meta(raw: &[u8]) -> Result<ObjectMeta, DecodeError> {
    let envelope: Envelope<'_> =
        serde_json::from_slice(raw).map_err(|e| DecodeError::Json(e.to_string()))?;
    meta_from(envelope.metadata.ok_or(DecodeError::MissingName)?, raw)
}

/// How a metadata walk passes over the values it does not keep.
#[derive(Clone, Copy)]
enum Pass {
    /// In bytes a parser already validated: strings and brackets followed, nothing checked.
    Validated,
    /// The walk is the validation: every value checked, as deep as it lies in the object.
    Validating,
}

impl Pass {
    /// Where the value at `at`, `nesting` containers deep in the object, ends.
    fn skip(self, raw: &[u8], at: usize, nesting: usize) -> Option<usize> {
        match self {
            Pass::Validated => json_scan::valid_value_end(raw, at),
            Pass::Validating => json_scan::nested_value_end(raw, at, nesting),
        }
    }
}

/// The metadata of a valid object, read by walking its members up to `metadata` and then only
/// the metadata members the cache keeps ([`json_scan`]; annotations and managedFields are
/// skipped, never decoded). None when the shape is unusual (escaped keys, no metadata), so the
/// caller falls back to a full parse.
fn scan_meta(raw: &[u8]) -> Option<RawMeta<'_>> {
    let mut meta = None;
    // The walk stops (None) right after metadata: the rest of the object is not read.
    let _ = json_scan::for_each_member(raw, 0, |key, at| match key {
        b"metadata" => {
            meta = Some(scan_meta_members(raw, at, Pass::Validated)?.0);
            None
        }
        _ if key.contains(&b'\\') => None,
        _ => json_scan::valid_value_end(raw, at),
    });
    meta
}

/// Validates the object at `at` in `raw` (the frame it came in) as [`json_scan::value_end`]
/// does and reads its metadata in the same walk, so the metadata of a watched object is not
/// read by a second walk over its bytes (managedFields are most of them). Returns where the
/// object ends and its metadata, whose spans count from `at` (they describe
/// a copy of its bytes as well; [`CachedObject::from_scanned`] attaches them), or None when the
/// metadata is not what [`CachedObject::from_valid_json`] would read from the object (an
/// unusual shape, no name: it is read later, as before). None for the whole when this walk
/// cannot tell (the caller validates with `value_end`). `raw` must be valid UTF-8.
pub(crate) fn validate_with_meta(raw: &[u8], at: usize) -> Option<(usize, Option<ObjectMeta>)> {
    let mut meta = None;
    // An escaped key before metadata might be `metadata` itself (serde would read it).
    let mut plain = true;
    let end = json_scan::for_each_member(raw, at, |key, value| match key {
        b"metadata" if plain && meta.is_none() => {
            let (members, end) = scan_meta_members(raw, value, Pass::Validating)?;
            meta = Some(members);
            Some(end)
        }
        _ => {
            plain &= meta.is_some() || !key.contains(&b'\\');
            json_scan::nested_value_end(raw, value, 1)
        }
    })?;
    let meta = meta.and_then(|m| meta_from(m, &raw[at..end]).ok());
    Some((end, meta))
}

/// The members of the metadata object at `at` that [`RawMeta`] keeps, and where it ends; the
/// others are passed over as `pass` says.
fn scan_meta_members(raw: &[u8], at: usize, pass: Pass) -> Option<(RawMeta<'_>, usize)> {
    let mut m = RawMeta::default();
    let end = json_scan::for_each_member(raw, at, |key, at| {
        let text = match key {
            b"name" => &mut m.name,
            b"namespace" => &mut m.namespace,
            b"uid" => &mut m.uid,
            b"resourceVersion" => &mut m.resource_version,
            b"creationTimestamp" => &mut m.creation_timestamp,
            b"deletionTimestamp" => &mut m.deletion_timestamp,
            b"labels" if raw.get(at) == Some(&b'{') => {
                let (labels, end) = scan_labels(raw, at)?;
                m.labels = Some(labels);
                return Some(end);
            }
            b"labels" => return decode_member(raw, at, &mut m.labels),
            b"ownerReferences" if raw.get(at) == Some(&b'[') => {
                let (owners, end) = scan_owners(raw, at, pass)?;
                m.owner_references = Some(owners);
                return Some(end);
            }
            b"ownerReferences" => return decode_member(raw, at, &mut m.owner_references),
            _ if key.contains(&b'\\') => return None,
            // metadata.<member>: two containers deep.
            _ => return pass.skip(raw, at, 2),
        };
        let (value, end) = json_scan::string_at(raw, at)?;
        *text = value;
        Some(end)
    })?;
    Some((m, end))
}

/// Decodes the (small) member value at `at` with serde into `slot`; returns where it ends.
fn decode_member<'a, T: Deserialize<'a>>(
    raw: &'a [u8],
    at: usize,
    slot: &mut Option<T>,
) -> Option<usize> {
    // metadata.<member>: two containers deep.
    let end = json_scan::nested_value_end(raw, at, 2)?;
    *slot = serde_json::from_slice(&raw[at..end]).ok()?;
    Some(end)
}

/// The metadata of `raw` from its decoded members `m` (which borrow from `raw` where the JSON
/// needed no unescaping); the caller attaches `raw` itself (moved, not cloned).
fn meta_from(mut m: RawMeta<'_>, raw: &[u8]) -> Result<ObjectMeta, DecodeError> {
    let name = m
        .name
        .take()
        .filter(|n| !n.is_empty())
        .ok_or(DecodeError::MissingName)?;
    let namespace = m.namespace.take().filter(|n| !n.is_empty());
    let mut spans = SpanBuilder::new(
        raw,
        namespace.as_deref().map_or(0, |n| n.len() + 1) + name.len(),
    );
    let key = match namespace.as_deref() {
        Some(ns) => spans.push_all(&[ns, "/", &name]),
        None => spans.push_all(&[&name]),
    };
    let uid = spans.span(m.uid.as_deref().unwrap_or_default());
    let resource_version = spans.span(m.resource_version.as_deref().unwrap_or_default());
    let creation_timestamp = m.creation_timestamp.as_deref().map(|t| spans.span(t));
    let deletion_timestamp = m.deletion_timestamp.as_deref().map(|t| spans.span(t));
    let mut labels = Vec::with_capacity(m.labels.as_ref().map_or(0, Labels::count));
    if let Some(l) = &m.labels {
        l.for_each(|k, v| labels.push((spans.span(k), spans.span(v))));
    }
    labels.sort_unstable_by(|a, b| spans.get(a.0).cmp(spans.get(b.0)));
    let mut owner_references =
        Vec::with_capacity(m.owner_references.as_ref().map_or(0, Owners::count));
    if let Some(o) = &m.owner_references {
        o.for_each(|o| {
            owner_references.push(OwnerSpans {
                kind: spans.span(&o.kind),
                name: spans.span(&o.name),
                uid: spans.span(&o.uid),
                controller: o.controller.unwrap_or(false),
            });
        });
    }
    Ok(ObjectMeta {
        raw: Bytes::new(),
        text: spans.text.into_boxed_str(),
        key,
        namespace_len: namespace.map_or(0, |n| u32::try_from(n.len()).unwrap_or(0)),
        uid,
        resource_version,
        creation_timestamp,
        deletion_timestamp,
        labels: labels.into_boxed_slice(),
        owner_references: owner_references.into_boxed_slice(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i1_key_is_namespace_slash_name_or_name_when_cluster_scoped() {
        let pod = CachedObject::from_json(
            br#"{"metadata":{"name":"web-1","namespace":"default","resourceVersion":"7"}}"#
                .to_vec(),
        )
        .unwrap();
        assert_eq!(pod.key(), "default/web-1");
        assert_eq!(pod.resource_version(), "7");
        let node = CachedObject::from_json(br#"{"metadata":{"name":"node-a"}}"#.to_vec()).unwrap();
        assert_eq!(node.key(), "node-a");
    }

    #[test]
    fn parses_labels_owner_and_keeps_raw_bytes() {
        let raw = br#"{"kind":"Pod","metadata":{"name":"p","namespace":"n","labels":{"app":"web"},
            "ownerReferences":[{"kind":"ReplicaSet","name":"rs1","uid":"u","controller":true}]},"spec":{}}"#;
        let obj = CachedObject::from_json(raw.to_vec()).unwrap();
        assert_eq!(obj.meta().label("app"), Some("web"));
        assert_eq!(obj.controller_ref().as_deref(), Some("n/ReplicaSet/rs1"));
        assert_eq!(obj.raw(), raw);
    }

    /// Objects of usual and unusual shapes (escapes, nulls, late or repeated members).
    const OBJECTS: [&[u8]; 18] = [
        br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n","resourceVersion":"3","labels":{"x":"y"}},"spec":{"big":[1,2,{"k":"v\"}"}]}}"#,
        br#"{"metadata":{"name":"first"},"status":{}}"#,
        br#" { "kind" : "Pod" , "spec" : {"metadata":{"name":"nested"}} , "metadata" : {"name":"late","uid":"u"} }"#,
        br#"{"kind":"Pod","n":1.5e3,"b":true,"z":null,"metadata":{"name":"after-scalars"}}"#,
        br#"{"k\u0069nd":"escaped key","metadata":{"name":"fallback"}}"#,
        br#"{"kind":"NoMetadata"}"#,
        br#"{"metadata":{"name":"web\u002d1","labels":null,"deletionTimestamp":null,"annotations":{"a":"b"},"ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":"u1","controller":true}],"managedFields":[{"manager":"m","fieldsV1":{"f:x":{}}}]}}"#,
        br#"{"metadata":{"name":"bad-labels","labels":{"x":1}}}"#,
        br#"{"metadata":{"n\u0061me":"escaped-metadata-key"}}"#,
        br#"{"metadata":{"name":"l","labels":{ "b" : "2" , "a":"1\u00e9", "b":"dup" }}}"#,
        br#"{"metadata":{"name":"l","labels":{"k\u0065y":"escaped key"}}}"#,
        br#"{"metadata":{"name":"l","labels":{"x":null}}}"#,
        br#"{"metadata":{"name":"l","labels":{}}}"#,
        br#"{"metadata":{"name":"o","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r\u0073","uid":"u","controller":false,"blockOwnerDeletion":true},{"kind":"Job","name":"j","controller":null}]}}"#,
        br#"{"metadata":{"name":"o","ownerReferences":[{"kind":"A","kind":"B"}]}}"#,
        br#"{"metadata":{"name":"o","ownerReferences":[{"k\u0069nd":"escaped"}]}}"#,
        br#"{"metadata":{"name":"o","ownerReferences":[{"kind":null}]}}"#,
        br#"{"metadata":{"name":"o","ownerReferences":[{"controller":"yes"}],"labels":{"a":"b"}}}"#,
    ];

    #[test]
    fn reading_only_the_head_gives_the_same_metadata_as_a_full_parse() {
        let objects = OBJECTS;
        for raw in objects {
            let full = CachedObject::from_json(raw.to_vec()).map(|o| o.meta().clone());
            let head = CachedObject::from_valid_json(raw.to_vec()).map(|o| o.meta().clone());
            assert_eq!(head, full, "{}", String::from_utf8_lossy(raw));
        }
        // The walk reads the late metadata; escaped keys leave it to serde.
        assert_eq!(
            scan_meta(objects[2]).and_then(|m| m.name).as_deref(),
            Some("late")
        );
        assert!(scan_meta(objects[4]).is_none());
        assert!(scan_meta(objects[8]).is_none());
    }

    /// `object` as a watch frame's object: the frame and where the object starts in it.
    fn in_frame(object: &[u8]) -> (Vec<u8>, usize) {
        let head = br#"{"type":"MODIFIED","object":"#;
        ([&head[..], object, b"}"].concat(), head.len())
    }

    /// What validating `object` inside a frame says agrees with `value_end`, and any metadata
    /// it read is what `from_valid_json` reads from the object's bytes.
    fn agrees(object: &[u8]) -> Option<ObjectMeta> {
        let (frame, at) = in_frame(object);
        let expected_end = json_scan::value_end(&frame, at);
        let (end, meta) = validate_with_meta(&frame, at)?;
        let shown = String::from_utf8_lossy(object);
        assert_eq!(Some(end), expected_end, "{shown}");
        let meta = meta?;
        let scanned = CachedObject::from_scanned(meta, Bytes::copy_from_slice(object));
        let read = CachedObject::from_valid_json(object.to_vec()).map(|o| o.meta().clone());
        assert_eq!(Ok(scanned.meta().clone()), read, "{shown}");
        Some(scanned.meta().clone())
    }

    #[test]
    fn the_frame_scan_reads_the_metadata_the_head_read_reads_in_one_walk() {
        for object in OBJECTS {
            agrees(object);
        }
        // The usual shape is read by the frame scan itself (the informer skips a second walk).
        let pod = OBJECTS[0];
        let meta = agrees(pod).expect("a plain pod's metadata is read with its frame");
        assert_eq!((meta.key(), meta.resource_version()), ("n/a", "3"));
        let managed = br#"{"metadata":{"name":"m","managedFields":[{"manager":"k","fieldsV1":{"f:spec":{"f:x":{}}}}],"labels":{"a":"b"},"ownerReferences":[{"kind":"R","name":"r","uid":"u","controller":true,"extra":[1,{"y":null}]}]},"spec":{"n":-1.5e3,"t":true}}"#;
        assert!(agrees(managed).is_some());
        // An escaped key before metadata may be metadata itself: left to the later read.
        let (frame, at) = in_frame(br#"{"m\u0065tadata":{"name":"x"},"metadata":{"name":"y"}}"#);
        assert!(matches!(validate_with_meta(&frame, at), Some((_, None))));
    }

    #[test]
    fn the_frame_scan_accepts_exactly_what_value_end_accepts() {
        let managed: &[u8] = br#"{"metadata":{"name":"m","annotations":{"a":"b\n"},"managedFields":[{"f":{"g":[1,2.5,"x"]}}],"labels":{"a":"b"},"ownerReferences":[{"kind":"R","name":"r","extra":[true,false,null]}]},"spec":{"n":-1.5e3}}"#;
        assert!(agrees(managed).is_some());
        for object in OBJECTS.iter().chain([&managed]) {
            // Every prefix, and every byte replaced by one that may break it.
            let mut broken: Vec<Vec<u8>> =
                (0..object.len()).map(|n| object[..n].to_vec()).collect();
            for at in 0..object.len() {
                for bad in [
                    b'}', b']', b'"', b'\\', b',', b':', b'x', b'0', b'-', b' ', 0x01,
                ] {
                    let mut changed = object.to_vec();
                    changed[at] = bad;
                    broken.push(changed);
                }
            }
            for candidate in broken {
                let (frame, at) = in_frame(&candidate);
                if json_scan::value_end(&frame, at).is_none() {
                    let shown = String::from_utf8_lossy(&candidate);
                    assert!(validate_with_meta(&frame, at).is_none(), "{shown}");
                } else {
                    agrees(&candidate);
                }
            }
        }
    }

    #[test]
    fn the_frame_scan_allows_the_nesting_value_end_allows() {
        let deep = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        // Objects `levels` deep in all: the object is one level, metadata two, an annotation's
        // value starts at three, an owner reference's member at five.
        for levels in [json_scan::MAX_DEPTH, json_scan::MAX_DEPTH + 1] {
            for object in [
                format!(
                    r#"{{"metadata":{{"name":"d","annotations":{}}}}}"#,
                    deep(levels - 2)
                ),
                format!(
                    r#"{{"metadata":{{"name":"d"}},"spec":{}}}"#,
                    deep(levels - 1)
                ),
                format!(
                    r#"{{"metadata":{{"name":"d","ownerReferences":[{{"x":{}}}]}}}}"#,
                    deep(levels - 4)
                ),
            ] {
                let (frame, at) = in_frame(object.as_bytes());
                let accepted = json_scan::value_end(&frame, at).is_some();
                assert_eq!(accepted, levels <= json_scan::MAX_DEPTH, "{levels}");
                let fused = validate_with_meta(&frame, at).is_some();
                assert!(!fused || accepted, "{levels}: {object}");
                if accepted {
                    agrees(object.as_bytes());
                }
            }
        }
    }

    #[test]
    fn only_the_key_and_escaped_strings_are_copied_out_of_the_raw_json() {
        let raw = br#"{"metadata":{"name":"p","namespace":"n","uid":"u-1","resourceVersion":"9",
            "labels":{"app":"web","tier":"caf\u00e9"},
            "ownerReferences":[{"kind":"ReplicaSet","name":"rs1","uid":"u-2","controller":true}]}}"#;
        for obj in [
            CachedObject::from_json(raw.to_vec()).unwrap(),
            CachedObject::from_valid_json(raw.to_vec()).unwrap(),
        ] {
            let meta = obj.meta();
            assert_eq!(
                &*meta.text, "n/pcafé",
                "the key, then the one escaped value"
            );
            assert_eq!((meta.uid(), meta.resource_version()), ("u-1", "9"));
            let labels: Vec<_> = meta.labels().collect();
            assert_eq!(labels, [("app", "web"), ("tier", "café")]);
            assert_eq!(obj.controller_ref().as_deref(), Some("n/ReplicaSet/rs1"));
            assert_eq!(meta.owner_references().next().map(|o| o.uid), Some("u-2"));
        }
    }

    #[test]
    fn malformed_or_nameless_objects_are_errors_not_panics() {
        assert!(matches!(
            CachedObject::from_json(b"{not json".to_vec()),
            Err(DecodeError::Json(_))
        ));
        assert_eq!(
            CachedObject::from_json(br#"{"metadata":{}}"#.to_vec()).unwrap_err(),
            DecodeError::MissingName
        );
        assert!(CachedObject::from_json(b"[]".to_vec()).is_err());
    }
}
