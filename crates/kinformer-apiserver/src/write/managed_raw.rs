//! managedFields rewritten in place for the commonest Update: a writer that already has an
//! Update entry sets label or annotation keys no other manager owns and removes none. The
//! general rule ([`super::managed::Change::record`]) then changes only the writer's entry —
//! its `time`, and the new keys added to its `f:metadata` map — and where that entry sorts;
//! every other entry keeps its bytes (and the writer's too when it owned every key already and
//! writes within the second of its last write). This module makes exactly that edit on the
//! stored JSON, so a replace on the fast path does not parse managedFields (most of an object's
//! metadata), and hands back where the entries it wrote are, so the next replace of the object
//! does not scan them either (`crate::json::managed_entries`).
//!
//! Whatever it cannot decide that way — no entry of the writer's, a key another entry names,
//! the writer's map absent or empty, escapes in the strings it compares, entries not in stored
//! order, a tie in that order — is None, and the caller takes the general rule.

use std::ops::Range;

use memchr::memmem::Finder;

use super::fieldset::field_key;
use super::managed::Writer;
use super::meta::now;
use crate::json::managed_entries::{ManagedEntry, text};
use crate::json::members::{member_value, members};
use crate::json::writer::write_str;

/// The keys an Update set in one metadata map: the map's name (`labels`, `annotations`) and
/// the keys.
pub type MapKeys<'a> = (&'a str, &'a [String]);

/// What an Update makes of a stored `managedFields` value.
#[derive(Debug, PartialEq)]
pub enum Recorded {
    /// The same bytes: the writer already owned every key it set, and its entry's `time` reads
    /// the same (a write within the same second as its last).
    Same,
    /// This value, whose entries are these.
    Written(Vec<u8>, Box<[ManagedEntry]>),
}

/// The stored `managedFields` value `raw`, whose entries are `entries`, after an Update by
/// `writer` at `api_version` that set `changed` keys (see the module doc); None when it is not
/// that Update.
pub fn record_map_keys(
    raw: &[u8],
    entries: &[ManagedEntry],
    changed: &[MapKeys<'_>],
    writer: Writer<'_>,
    api_version: &str,
) -> Option<Recorded> {
    let keys: Vec<[&[u8]; 5]> = entries.iter().map(|e| e.order_key(raw)).collect();
    if keys.windows(2).any(|pair| pair[0] >= pair[1]) {
        return None;
    }
    let mine = entries
        .iter()
        .position(|entry| is_writer(entry, raw, writer, api_version))?;
    let quoted = quoted_keys(changed);
    // One searcher per key, built once: building one costs more than searching an entry.
    let finders: Vec<Finder<'_>> = quoted
        .iter()
        .flat_map(|(_, keys)| keys)
        .map(Finder::new)
        .collect();
    let others_own = |(index, entry): (usize, &ManagedEntry)| {
        let bytes = entry.entry.text(raw);
        index != mine && finders.iter().any(|key| key.find(bytes).is_some())
    };
    if entries.iter().enumerate().any(others_own) {
        return None;
    }
    let time = now();
    let own = entries.get(mine)?;
    let edits = writer_edits(raw, own, &quoted, &time)?;
    if edits.is_empty() {
        return Some(Recorded::Same);
    }
    let (updated, updated_entry) = edited_entry(raw, own, &edits)?;
    let mut moved_key = *keys.get(mine)?;
    moved_key[1] = time.as_bytes();
    let others = || (0..entries.len()).filter(|index| *index != mine);
    let at = others()
        .take_while(|index| keys[*index] < moved_key)
        .count();
    if others()
        .nth(at)
        .is_some_and(|index| keys[index] == moved_key)
    {
        return None;
    }
    // Each entry in its new order: its bytes and entry, positions relative to those bytes'
    // buffer (`raw` for the others, the writer's own for the writer's).
    let mut order: Vec<(&[u8], &ManagedEntry)> =
        others().map(|index| (raw, &entries[index])).collect();
    order.insert(at, (&updated, &updated_entry));
    let mut out = Vec::with_capacity(raw.len() + 64);
    let mut written = Vec::with_capacity(order.len());
    out.push(b'[');
    for (index, (buffer, entry)) in order.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let (from, to) = (entry.entry.range().start, out.len());
        written.push(entry.mapped(|at| at - from + to)?);
        out.extend_from_slice(entry.entry.text(buffer));
    }
    out.push(b']');
    Some(Recorded::Written(out, written.into_boxed_slice()))
}

/// Whether `entry` is `writer`'s Update entry at `api_version`.
fn is_writer(entry: &ManagedEntry, raw: &[u8], writer: Writer<'_>, api_version: &str) -> bool {
    text(entry.operation, raw) == b"Update"
        && text(entry.manager, raw) == writer.manager.as_bytes()
        && text(entry.api_version, raw) == api_version.as_bytes()
        && text(entry.subresource, raw) == writer.subresource.as_bytes()
}

/// A map's name and its changed keys as `fieldsV1` names them: `"f:KEY"`, quoted as JSON.
type QuotedKeys<'a> = (&'a str, Vec<Vec<u8>>);

/// `changed`, each key quoted once (for finding it in other entries and inserting it).
fn quoted_keys<'a>(changed: &[MapKeys<'a>]) -> Vec<QuotedKeys<'a>> {
    let quoted = |key: &String| {
        let mut out = Vec::with_capacity(key.len() + 4);
        write_str(&mut out, &field_key(key));
        out
    };
    changed
        .iter()
        .map(|(map, keys)| (*map, keys.iter().map(quoted).collect()))
        .collect()
}

/// A replacement of the bytes at a range of `raw` (empty: an insertion).
type Edit = (Range<usize>, Vec<u8>);

/// The edits, in order, that make the writer's `entry` record this Update: the `changed` keys
/// its `f:metadata` maps lack, and `time` unless it reads so already; none when the entry stays
/// as it is.
fn writer_edits(
    raw: &[u8],
    entry: &ManagedEntry,
    changed: &[QuotedKeys<'_>],
    time: &str,
) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    let fields = entry.fields_v1?.range();
    let metadata = member_value(raw, fields, b"f:metadata")?;
    for (map, keys) in changed.iter().filter(|(_, keys)| !keys.is_empty()) {
        let owned = member_value(raw, metadata.clone(), &[b"f:", map.as_bytes()].concat())?;
        edits.extend(insertions(raw, owned, keys)?);
    }
    let stored_time = entry.time?.range();
    let quoted_time = [b"\"", time.as_bytes(), b"\""].concat();
    if raw.get(stored_time.clone())? != quoted_time.as_slice() {
        edits.push((stored_time, quoted_time));
    }
    edits.sort_by_key(|(range, _)| range.start);
    Some(edits)
}

/// The writer's `entry` with `edits` made, and where its spans are in it.
fn edited_entry(
    raw: &[u8],
    entry: &ManagedEntry,
    edits: &[Edit],
) -> Option<(Vec<u8>, ManagedEntry)> {
    let whole = entry.entry.range();
    let mut out = Vec::with_capacity(whole.len() + 64);
    let mut from = whole.start;
    for (range, bytes) in edits {
        out.extend_from_slice(raw.get(from..range.start)?);
        out.extend_from_slice(bytes);
        from = range.end;
    }
    out.extend_from_slice(raw.get(from..whole.end)?);
    let moved = entry.mapped(|at| through_edits(at, edits) - whole.start)?;
    Some((out, moved))
}

/// Where position `at` of the original lands once `edits` (sorted, not overlapping) are made:
/// every edit that ends at or before it moves it by the length it adds. An insertion exactly at
/// `at` goes before it; a replaced value's end moves with the replacement.
fn through_edits(at: usize, edits: &[Edit]) -> usize {
    edits
        .iter()
        .filter(|(range, _)| range.end <= at)
        .fold(at, |at, (range, bytes)| at + bytes.len() - range.len())
}

/// The insertions that add `"f:KEY": {}` for each of `keys` (quoted, sorted) the non-empty
/// `fieldsV1` node at `node` lacks, in key order.
fn insertions(raw: &[u8], node: Range<usize>, keys: &[Vec<u8>]) -> Option<Vec<Edit>> {
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
    use crate::json::managed_entries;
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

    /// The in-place edit of `entries`, checked to hand back the entries a scan of what it wrote
    /// finds.
    fn in_place(entries: &Value, changed: &[MapKeys<'_>]) -> Option<Value> {
        let raw = serde_json::to_vec(entries).ok()?;
        match record_map_keys(&raw, &scanned(&raw), changed, WRITER, "v1")? {
            Recorded::Same => Some(entries.clone()),
            Recorded::Written(out, carried) => {
                assert_eq!(carried, scanned(&out), "{}", String::from_utf8_lossy(&out));
                serde_json::from_slice(&out).ok()
            }
        }
    }

    /// [`entries`] with the writer's entry written now (so last in stored order).
    fn written_this_second() -> Value {
        let [writer, kubelet] = [0, 1].map(|i| entries()[i].clone());
        let mut writer = writer;
        writer["time"] = json!(now());
        json!([kubelet, writer])
    }

    fn scanned(raw: &[u8]) -> Box<[ManagedEntry]> {
        managed_entries::entries(raw).unwrap_or_default()
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
        // A stored time of another length than the one written moves what follows it.
        let mut longer_time = entries();
        longer_time[0]["time"] = json!("2025-01-01T00:00:00.000000Z");
        // A write within the second of the writer's last: only new keys change the entry.
        for stored in [entries(), longer_time, written_this_second()] {
            for (labels, annotations) in &cases {
                let changed = [("annotations", &annotations[..]), ("labels", &labels[..])];
                let expected = by_the_rule(&stored, &changed);
                assert_eq!(
                    in_place(&stored, &changed),
                    Some(expected),
                    "{labels:?} {annotations:?}"
                );
            }
        }
    }

    #[test]
    fn a_writer_setting_keys_it_owns_within_the_second_leaves_the_bytes_as_they_are() {
        let owned = ["app".to_owned(), "tier".to_owned()];
        let new = ["app".to_owned(), "new".to_owned()];
        // Retried while the clock turns a second between the stored time and the write.
        let outcome = |keys: &[String]| {
            (0..5).find_map(|_| {
                let stored = written_this_second();
                let raw = serde_json::to_vec(&stored).unwrap_or_default();
                let recorded =
                    record_map_keys(&raw, &scanned(&raw), &[("labels", keys)], WRITER, "v1");
                (stored[1]["time"] == json!(now())).then_some(recorded)
            })
        };
        assert_eq!(outcome(&owned), Some(Some(Recorded::Same)));
        assert!(matches!(outcome(&new), Some(Some(Recorded::Written(..)))));
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
            record_map_keys(&raw, &scanned(&raw), &labels, someone_else, "v1"),
            None,
            "no entry"
        );
    }
}
