//! managedFields rewritten in place for the commonest Update: a writer that already has an
//! Update entry sets label or annotation keys no other manager owns and removes none. The
//! general rule ([`super::managed::Change::record`]) then changes only the writer's entry —
//! its `time`, and the new keys added to its `f:metadata` map — and where that entry sorts;
//! every other entry keeps its bytes. This module makes exactly that edit on the stored JSON,
//! so a replace on the fast path does not parse managedFields (most of an object's metadata).
//!
//! Whatever it cannot decide that way — no entry of the writer's, a key another entry names,
//! the writer's map absent or empty, escapes in the strings it compares, entries not in stored
//! order, a tie in that order — is None, and the caller takes the general rule.

use std::cmp::Ordering;
use std::ops::Range;

use super::managed::Writer;
use super::meta::now;
use crate::json::members::{Member, member_value, members, object_elements};

/// The keys an Update set in one metadata map: the map's name (`labels`, `annotations`) and
/// the keys.
pub type MapKeys<'a> = (&'a str, &'a [String]);

/// The stored `managedFields` value `raw` after an Update by `writer` at `api_version` that set
/// `changed` keys (see the module doc); None when it is not that Update.
pub fn record_map_keys(
    raw: &[u8],
    changed: &[MapKeys<'_>],
    writer: Writer<'_>,
    api_version: &str,
) -> Option<Vec<u8>> {
    let headers: Vec<Header<'_>> = object_elements(raw, 0..raw.len())?
        .into_iter()
        .map(|(entry, members)| Header::of(raw, entry, members))
        .collect::<Option<_>>()?;
    if headers
        .windows(2)
        .any(|pair| pair[0].order(&pair[1]).is_ge())
    {
        return None;
    }
    let mine = headers
        .iter()
        .position(|h| h.is_writer(writer, api_version))?;
    let quoted = quoted_keys(changed)?;
    let others_own = |(index, entry): (usize, &Range<usize>)| {
        let bytes = raw.get(entry.clone()).unwrap_or_default();
        index != mine
            && quoted
                .iter()
                .flat_map(|(_, keys)| keys)
                .any(|key| memchr::memmem::find(bytes, key).is_some())
    };
    if headers.iter().map(|h| &h.entry).enumerate().any(others_own) {
        return None;
    }
    let time = now();
    let updated = writer_entry(raw, headers.get(mine)?, &quoted, &time)?;
    let mut moved = headers.get(mine)?.clone();
    moved.time = time.as_bytes();
    let mut order: Vec<(Header<'_>, &[u8])> = headers
        .iter()
        .enumerate()
        .filter(|(index, _)| *index != mine)
        .map(|(_, header)| {
            (
                header.clone(),
                raw.get(header.entry.clone()).unwrap_or_default(),
            )
        })
        .collect();
    let at = order.partition_point(|(header, _)| header.order(&moved).is_lt());
    if order
        .get(at)
        .is_some_and(|(header, _)| header.order(&moved).is_eq())
    {
        return None;
    }
    order.insert(at, (moved, &updated));
    let mut out = Vec::with_capacity(raw.len() + 64);
    out.push(b'[');
    for (index, (_, bytes)) in order.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(bytes);
    }
    out.push(b']');
    Some(out)
}

/// A map's name and its changed keys as `fieldsV1` names them: `"f:KEY"`, quoted as JSON.
type QuotedKeys<'a> = (&'a str, Vec<Vec<u8>>);

/// `changed`, each key quoted once (for finding it in other entries and inserting it).
fn quoted_keys<'a>(changed: &[MapKeys<'a>]) -> Option<Vec<QuotedKeys<'a>>> {
    changed
        .iter()
        .map(|(map, keys)| {
            let quoted = keys
                .iter()
                .map(|key| serde_json::to_vec(&format!("f:{key}")).ok())
                .collect::<Option<_>>()?;
            Some((*map, quoted))
        })
        .collect()
}

/// What orders and identifies an entry (each string's text between its quotes; absent: empty),
/// and its members.
#[derive(Clone)]
struct Header<'a> {
    operation: &'a [u8],
    time: &'a [u8],
    manager: &'a [u8],
    api_version: &'a [u8],
    subresource: &'a [u8],
    entry: Range<usize>,
    members: Vec<Member>,
}

impl<'a> Header<'a> {
    /// The header of the entry at `entry` in `raw` with `members`; None when a string it reads
    /// has an escape.
    fn of(raw: &'a [u8], entry: Range<usize>, members: Vec<Member>) -> Option<Self> {
        let text = |key: &[u8]| -> Option<&'a [u8]> {
            let Some(member) = members.iter().find(|m| m.key_of(raw) == key) else {
                return Some(b"");
            };
            let inner = member
                .value_of(raw)
                .strip_prefix(b"\"")?
                .strip_suffix(b"\"")?;
            (!inner.contains(&b'\\')).then_some(inner)
        };
        Some(Header {
            operation: text(b"operation")?,
            time: text(b"time")?,
            manager: text(b"manager")?,
            api_version: text(b"apiVersion")?,
            subresource: text(b"subresource")?,
            entry,
            members,
        })
    }

    /// kube-apiserver's order of entries: operation, time, manager, apiVersion, subresource.
    fn order(&self, other: &Header<'_>) -> Ordering {
        let key = |h: &Header<'a>| [h.operation, h.time, h.manager, h.api_version, h.subresource];
        key(self).cmp(&[
            other.operation,
            other.time,
            other.manager,
            other.api_version,
            other.subresource,
        ])
    }

    /// Whether this is `writer`'s Update entry at `api_version`.
    fn is_writer(&self, writer: Writer<'_>, api_version: &str) -> bool {
        self.operation == b"Update"
            && self.manager == writer.manager.as_bytes()
            && self.api_version == api_version.as_bytes()
            && self.subresource == writer.subresource.as_bytes()
    }

    /// The value of member `key`.
    fn value(&self, key: &[u8], raw: &[u8]) -> Option<Range<usize>> {
        let member = self.members.iter().find(|m| m.key_of(raw) == key)?;
        Some(member.value.clone())
    }
}

/// The writer's entry with `time` and the `changed` keys added to its `f:metadata` maps.
fn writer_entry(
    raw: &[u8],
    header: &Header<'_>,
    changed: &[QuotedKeys<'_>],
    time: &str,
) -> Option<Vec<u8>> {
    let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
    let fields = header.value(b"fieldsV1", raw)?;
    let metadata = member_value(raw, fields, b"f:metadata")?;
    for (map, keys) in changed.iter().filter(|(_, keys)| !keys.is_empty()) {
        let owned = member_value(raw, metadata.clone(), format!("f:{map}").as_bytes())?;
        edits.extend(insertions(raw, owned, keys)?);
    }
    edits.push((
        header.value(b"time", raw)?,
        format!("\"{time}\"").into_bytes(),
    ));
    edits.sort_by_key(|(range, _)| range.start);
    let entry = header.entry.clone();
    let mut out = Vec::with_capacity(entry.len() + 64);
    let mut from = entry.start;
    for (range, bytes) in edits {
        out.extend_from_slice(raw.get(from..range.start)?);
        out.extend_from_slice(&bytes);
        from = range.end;
    }
    out.extend_from_slice(raw.get(from..entry.end)?);
    Some(out)
}

/// The insertions that add `"f:KEY": {}` for each of `keys` (quoted, sorted) the non-empty
/// `fieldsV1` node at `node` lacks, in key order.
fn insertions(
    raw: &[u8],
    node: Range<usize>,
    keys: &[Vec<u8>],
) -> Option<Vec<(Range<usize>, Vec<u8>)>> {
    let present = members(raw, node.clone())?;
    let last = present.last()?;
    if present.iter().any(|m| m.key_of(raw).contains(&b'\\')) {
        return None;
    }
    let mut edits = Vec::new();
    for quoted in keys {
        let inner = quoted.get(1..quoted.len() - 1)?;
        if inner.contains(&b'\\') {
            return None;
        }
        match present.iter().find(|m| m.key_of(raw) >= inner) {
            Some(member) if member.key_of(raw) == inner => {}
            Some(member) => {
                let at = member.key.start - 1;
                edits.push((at..at, [&quoted[..], b":{},"].concat()));
            }
            None => {
                let at = last.value.end;
                edits.push((at..at, [&b","[..], quoted, b":{}"].concat()));
            }
        }
    }
    Some(edits)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::write::managed::Change;

    const WRITER: Writer<'static> = Writer {
        manager: "kinformer-apiserver",
        subresource: "",
    };

    fn entries() -> Value {
        json!([
            {"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kinformer-apiserver",
             "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:tier": {}},
                                         "f:annotations": {"f:a": {}}}, "f:spec": {}},
             "operation": "Update", "time": "2025-01-01T00:00:00Z"},
            {"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubelet",
             "fieldsV1": {"f:status": {"f:phase": {}}}, "subresource": "status",
             "operation": "Update", "time": "2025-06-01T00:00:00Z"},
        ])
    }

    /// What the general rule makes of `entries` for the same Update.
    fn by_the_rule(entries: &Value, changed: &[MapKeys<'_>]) -> Value {
        let mut tree = json!({"f:metadata": {}});
        for (map, keys) in changed.iter().filter(|(_, keys)| !keys.is_empty()) {
            let fields: serde_json::Map<String, Value> =
                keys.iter().map(|k| (format!("f:{k}"), json!({}))).collect();
            tree["f:metadata"][format!("f:{map}")] = Value::Object(fields);
        }
        let change = Change {
            changed: Some(tree),
            removed: None,
        };
        let list = entries.as_array().cloned().unwrap_or_default();
        Value::Array(change.record(list, WRITER, "v1"))
    }

    fn in_place(entries: &Value, changed: &[MapKeys<'_>]) -> Option<Value> {
        let raw = serde_json::to_vec(entries).ok()?;
        let out = record_map_keys(&raw, changed, WRITER, "v1")?;
        serde_json::from_slice(&out).ok()
    }

    #[test]
    fn the_writers_entry_gains_the_keys_and_the_time_as_the_rule_says() {
        let keys = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let cases = [
            (keys(&["app"]), keys(&[])),
            (keys(&["step"]), keys(&[])),
            (keys(&["0", "app", "zz"]), keys(&["a", "b/c"])),
            (keys(&[]), keys(&["new"])),
        ];
        for (labels, annotations) in &cases {
            let changed = [("annotations", &annotations[..]), ("labels", &labels[..])];
            let expected = by_the_rule(&entries(), &changed);
            assert_eq!(
                in_place(&entries(), &changed),
                Some(expected),
                "{labels:?} {annotations:?}"
            );
        }
    }

    #[test]
    fn anything_else_is_left_to_the_rule() {
        let step = ["step".to_owned()];
        let labels = [("labels", &step[..])];
        let mut other = entries();
        other[1]["fieldsV1"] = json!({"f:metadata": {"f:labels": {"f:step": {}}}});
        let mut no_map = entries();
        no_map[0]["fieldsV1"]["f:metadata"] = json!({"f:annotations": {"f:a": {}}});
        let mut empty_map = entries();
        empty_map[0]["fieldsV1"]["f:metadata"]["f:labels"] = json!({});
        let mut unsorted = entries();
        unsorted[1]["time"] = json!("2024-01-01T00:00:00Z");
        let mut escaped = entries();
        escaped[1]["manager"] = json!("a\"b");
        for (what, entries) in [
            ("another manager owns the key", other),
            ("the writer has no such map", no_map),
            ("the writer owns the map as a whole", empty_map),
            ("entries out of order", unsorted),
            ("an escaped manager", escaped),
        ] {
            assert_eq!(in_place(&entries, &labels), None, "{what}");
        }
        let someone_else = Writer {
            manager: "someone-else",
            subresource: "",
        };
        let raw = serde_json::to_vec(&entries()).unwrap_or_default();
        assert_eq!(
            record_map_keys(&raw, &labels, someone_else, "v1"),
            None,
            "no entry"
        );
    }
}
