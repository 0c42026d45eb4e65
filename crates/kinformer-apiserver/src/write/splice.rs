//! The fast path of a replace (PUT, and [`crate::EmbeddedServer::replace_objects`]): when the
//! body is canonical JSON (as serde_json writes a `Value`, see `canonical`) and the write needs
//! nothing but the server-owned metadata restored, the stored object is spliced from the body's
//! bytes instead of going through a `Value`. The body is checked against the current object
//! where it repeats it, the server's metadata members are merged into the body's `metadata` in
//! key order, and the MODIFIED watch line is rendered around the stored bytes in one buffer.
//!
//! Anything else — a conflict, another object's uid, a name mismatch, a pending deletion, a CRD, a namespace on a
//! cluster-scoped object, non-canonical JSON — returns None and the caller takes the general
//! path, which decides every error. Both paths store the same bytes for the same request.

use std::io::Write as _;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use crate::json::canonical::{
    self, Document, JsonString, Layout, Member, Members, Span, key_order,
};
use crate::objects::{StoredObject, object_key};
use crate::resources::ResourceType;
use crate::selectable::Selectable;
use crate::store::Txn;

/// What a MODIFIED watch line has before the object.
const LINE_START: &[u8] = br#"{"type":"MODIFIED","object":"#;

/// What it has after.
const LINE_END: &[u8] = b"}\n";

/// Replaces object `namespace/name` of `resource` with `body` when the fast path applies (see
/// the module doc); None leaves the store untouched.
pub fn replace(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
    body: &[u8],
) -> Option<Arc<StoredObject>> {
    // Secrets may carry stringData to merge; CRDs change what is served.
    if resource.is_crd() || resource.is_core("secrets") {
        return None;
    }
    let target = Target {
        resource,
        namespace,
        name,
    };
    txn.replace_rendered(resource, &object_key(namespace, name), |current, rv| {
        let layout = current
            .take_layout()
            .or_else(|| Layout::scan(&current.bytes))?;
        let spliced = splice(&target, current, &layout, body, rv);
        if spliced.is_none() {
            current.keep_layout(layout);
        }
        spliced
    })
}

/// The object a replace addresses.
struct Target<'a> {
    resource: &'a ResourceType,
    namespace: &'a str,
    name: &'a str,
}

/// The object `body` makes of `current` (with layout `current_layout`) at `rv`, and its watch
/// line.
fn splice(
    target: &Target<'_>,
    current: &StoredObject,
    current_layout: &Layout,
    body: &[u8],
    rv: u64,
) -> Option<(StoredObject, Bytes)> {
    let layout = Layout::scan_against(body, &current.bytes, current_layout)?;
    let old = Document {
        bytes: &current.bytes,
        layout: current_layout,
    };
    let new = Document {
        bytes: body,
        layout: &layout,
    };
    let plan = Plan::check(target, current.rv, old, new)?;
    let rendered = plan.render(rv)?;
    let selectable = plan.selectable;
    let layout =
        layout.with_replaced_value(body, "metadata", rendered.metadata, &rendered.members)?;
    let line = Bytes::from(rendered.line);
    let object = StoredObject::rendered(line.slice(rendered.object), selectable, rv, layout);
    Some((object, line))
}

/// A value of a metadata member the server sets.
enum ServerValue<'a> {
    /// Copied from the current object.
    Kept(&'a [u8]),
    /// Not there.
    Absent,
    /// `generation`.
    Generation(i64),
    /// `namespace`.
    Namespace(&'a str),
    /// `resourceVersion`, a string.
    ResourceVersion,
}

/// The metadata members the server sets, in key order.
type ServerMembers<'a> = [(&'static str, ServerValue<'a>); 7];

/// A checked replace, ready to render at a resourceVersion.
struct Plan<'a> {
    new: Document<'a>,
    /// Where the body's `metadata` is.
    metadata: Member,
    server: ServerMembers<'a>,
    selectable: Selectable,
}

/// A rendered watch line holding the stored object.
struct Rendered {
    line: Vec<u8>,
    /// Where the object is in the line.
    object: Range<usize>,
    /// Where its `metadata` is in the object, and the members of it.
    metadata: Span,
    members: Vec<Member>,
}

impl<'a> Plan<'a> {
    /// Checks that the general path would store `new` over `old` (at resourceVersion
    /// `current_rv`) with only the server's metadata changed and no error; gathers what
    /// rendering needs.
    fn check(
        target: &Target<'a>,
        current_rv: u64,
        old: Document<'a>,
        new: Document<'a>,
    ) -> Option<Plan<'a>> {
        let resource = target.resource;
        let text = |raw: Option<&'a [u8]>| raw.and_then(canonical::string);
        let kind = text(new.value("kind"))?;
        let api_version = text(new.value("apiVersion"))?;
        let metadata = new.member("metadata")?;
        let given = new.members("metadata");
        let requested_rv = text(given.get("resourceVersion")).unwrap_or_default();
        let given_uid = text(given.get("uid"));
        let checks = [
            kind == resource.kind.as_str(),
            resource.serves_api_version(&api_version),
            metadata.value.of(new.bytes).starts_with(b"{"),
            text(given.get("name")).is_some_and(|n| n == target.name),
            resource.namespaced || given.get("namespace").is_none(),
            requested_rv.is_empty() || is_decimal(&requested_rv, current_rv),
            given_uid.is_none() || given_uid == text(old.nested_value("metadata", "uid")),
            old.nested_value("metadata", "deletionTimestamp").is_none(),
        ];
        if checks.contains(&false) {
            return None;
        }
        let labels = match given.get("labels") {
            Some(raw) => canonical::string_members(raw)?,
            None => Vec::new(),
        };
        let namespace = if resource.namespaced {
            target.namespace
        } else {
            ""
        };
        let selectable =
            Selectable::new(target.name, namespace, labels, resource, field_text(new))?;
        Some(Plan {
            new,
            metadata,
            server: server_members(
                namespace,
                old.members("metadata"),
                generation(resource, old, new)?,
            ),
            selectable,
        })
    }

    /// The MODIFIED watch line of the object at `rv`.
    fn render(&self, rv: u64) -> Option<Rendered> {
        let body = self.new.bytes;
        let mut line = Vec::with_capacity(LINE_START.len() + body.len() + 192 + LINE_END.len());
        line.extend_from_slice(LINE_START);
        let start = line.len();
        line.extend_from_slice(body.get(..self.metadata.value.start())?);
        let mut writer = ObjectWriter::new(&mut line, start);
        let given: Vec<Member> = self.new.members("metadata").iter().collect();
        merge_metadata(&mut writer, body, &given, &self.server, rv);
        let (metadata, members) = writer.finish()?;
        line.extend_from_slice(body.get(self.metadata.value.end()..)?);
        let end = line.len();
        line.extend_from_slice(LINE_END);
        Some(Rendered {
            line,
            object: start..end,
            metadata,
            members,
        })
    }
}

/// Reads a selectable field of `new` (a string at a path of one or two levels), looking each
/// parent up once.
fn field_text<'a>(new: Document<'a>) -> impl FnMut(&'static str) -> Option<JsonString<'a>> {
    let mut parent: Option<(&'static str, Members<'a>)> = None;
    move |path| {
        let dot = path.bytes().position(|b| b == b'.');
        let raw = match dot.and_then(|at| Some((path.get(..at)?, path.get(at + 1..)?))) {
            None => new.value(path),
            Some((name, key)) => {
                let members = match parent {
                    Some((cached, members)) if cached == name => members,
                    _ => {
                        let members = new.members(name);
                        parent = Some((name, members));
                        members
                    }
                };
                members.get(key)
            }
        };
        JsonString::new(raw?)
    }
}

/// Whether `text` is `number` as `to_string` writes it.
fn is_decimal(text: &str, number: u64) -> bool {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    text.as_bytes() == &digits[at..]
}

/// The `generation` a replace stores (None when the resource has none, see
/// [`ResourceType::tracks_generation`]): the current one (1 when it has none that is an
/// integer), one more when `spec` changed.
fn generation(
    resource: &ResourceType,
    old: Document<'_>,
    new: Document<'_>,
) -> Option<Option<i64>> {
    if !resource.tracks_generation() {
        return Some(None);
    }
    let current = old
        .nested_value("metadata", "generation")
        .and_then(|raw| serde_json::from_slice::<i64>(raw).ok())
        .unwrap_or(1);
    Some(Some(if spec_changed(old, new)? {
        current.saturating_add(1)
    } else {
        current
    }))
}

/// Whether `spec` differs as a JSON value: equal canonical bytes are equal values; different
/// ones are compared as values (`-0.0` equals `0.0`).
fn spec_changed(old: Document<'_>, new: Document<'_>) -> Option<bool> {
    match (old.value("spec"), new.value("spec")) {
        (None, None) => Some(false),
        (Some(theirs), Some(ours)) if theirs == ours => Some(false),
        (Some(theirs), Some(ours)) => {
            let parse = |raw| serde_json::from_slice::<serde_json::Value>(raw).ok();
            Some(parse(theirs)? != parse(ours)?)
        }
        _ => Some(true),
    }
}

/// The metadata members the server sets on a replace: what it keeps of the current object's
/// (`old`), `generation`, the namespace of a namespaced object and `resourceVersion`.
fn server_members<'a>(
    namespace: &'a str,
    old: Members<'a>,
    generation: Option<i64>,
) -> ServerMembers<'a> {
    let kept = |key: &'static str| {
        let value = old.get(key).map_or(ServerValue::Absent, ServerValue::Kept);
        (key, value)
    };
    let namespace = if namespace.is_empty() {
        ServerValue::Absent
    } else {
        ServerValue::Namespace(namespace)
    };
    [
        kept("creationTimestamp"),
        kept("deletionGracePeriodSeconds"),
        kept("deletionTimestamp"),
        (
            "generation",
            generation.map_or(ServerValue::Absent, ServerValue::Generation),
        ),
        ("namespace", namespace),
        ("resourceVersion", ServerValue::ResourceVersion),
        kept("uid"),
    ]
}

/// Writes the body's metadata members (`given`) with the server's merged in, in key order:
/// runs of body members are copied as they are.
fn merge_metadata(
    writer: &mut ObjectWriter<'_>,
    body: &[u8],
    given: &[Member],
    server: &ServerMembers<'_>,
    rv: u64,
) {
    let mut pending = server.iter().peekable();
    let mut run = 0..0;
    for (index, member) in given.iter().enumerate() {
        let key = member.key.of(body);
        let plain = !canonical::has_escape(key);
        let (mut flushed, mut replaced) = (false, false);
        while let Some((name, value)) = pending.peek() {
            let order = if plain {
                canonical::plain_key_order(name.as_bytes(), key)
            } else {
                key_order(name.as_bytes(), key)
            };
            if order.is_gt() {
                break;
            }
            if !flushed {
                writer.copy(body, given.get(run.clone()).unwrap_or_default());
                flushed = true;
            }
            writer.server_member(name, value, rv);
            pending.next();
            if order.is_eq() {
                replaced = true;
                break;
            }
        }
        run = match (flushed, replaced) {
            (false, _) => run.start..index + 1,
            (true, true) => index + 1..index + 1,
            (true, false) => index..index + 1,
        };
    }
    writer.copy(body, given.get(run).unwrap_or_default());
    for (name, value) in pending {
        writer.server_member(name, value, rv);
    }
}

/// Writes one object's members, recording where they are.
struct ObjectWriter<'o> {
    out: &'o mut Vec<u8>,
    /// Where the document the positions are relative to starts in `out`.
    origin: usize,
    start: usize,
    members: Vec<Member>,
    /// Set when a position did not fit a span (past 4 GiB) or a copy fell outside the body.
    failed: bool,
}

impl<'o> ObjectWriter<'o> {
    fn new(out: &'o mut Vec<u8>, origin: usize) -> Self {
        let start = out.len();
        out.push(b'{');
        ObjectWriter {
            out,
            origin,
            start,
            members: Vec::with_capacity(16),
            failed: false,
        }
    }

    fn separate(&mut self) {
        if !self.members.is_empty() {
            self.out.push(b',');
        }
    }

    /// Copies consecutive members of `body` as they are.
    fn copy(&mut self, body: &[u8], run: &[Member]) {
        let (Some(first), Some(last)) = (run.first(), run.last()) else {
            return;
        };
        self.separate();
        let from = first.key.start().saturating_sub(1);
        let Some(bytes) = body.get(from..last.value.end()) else {
            self.failed = true;
            return;
        };
        let delta = (self.out.len() - self.origin) as i64 - from as i64;
        self.out.extend_from_slice(bytes);
        for member in run {
            match member.shifted(delta) {
                Some(moved) => self.members.push(moved),
                None => self.failed = true,
            }
        }
    }

    /// Appends member `key` whose value `write` appends.
    fn member(&mut self, key: &str, write: impl FnOnce(&mut Vec<u8>)) {
        self.separate();
        self.out.push(b'"');
        let key_start = self.out.len();
        self.out.extend_from_slice(key.as_bytes());
        let key_end = self.out.len();
        self.out.extend_from_slice(b"\":");
        let value_start = self.out.len();
        write(self.out);
        let at = |position: usize| position - self.origin;
        match (
            Span::new(at(key_start), at(key_end)),
            Span::new(at(value_start), at(self.out.len())),
        ) {
            (Some(key), Some(value)) => self.members.push(Member { key, value }),
            _ => self.failed = true,
        }
    }

    fn server_member(&mut self, key: &str, value: &ServerValue<'_>, rv: u64) {
        // Writing into a Vec cannot fail.
        match value {
            ServerValue::Absent => {}
            ServerValue::Kept(raw) => self.member(key, |out| out.extend_from_slice(raw)),
            ServerValue::Generation(generation) => self.member(key, |out| {
                let _ = write!(out, "{generation}");
            }),
            ServerValue::Namespace(namespace) => {
                self.member(key, |out| canonical::push_string(out, namespace));
            }
            ServerValue::ResourceVersion => self.member(key, |out| {
                let _ = write!(out, "\"{rv}\"");
            }),
        }
    }

    /// Closes the object: where it is and its members (relative to the origin).
    fn finish(self) -> Option<(Span, Vec<Member>)> {
        self.out.push(b'}');
        let span = Span::new(self.start - self.origin, self.out.len() - self.origin)?;
        (!self.failed).then_some((span, self.members))
    }
}

#[cfg(test)]
#[path = "replace_tests.rs"]
mod replace_tests;
