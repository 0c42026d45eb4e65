//! managedFields rewritten in place for the commonest Update: a writer that already has an
//! Update entry sets label or annotation keys no other manager owns and removes none. The
//! general rule ([`super::managed::Change::record`]) then changes only the writer's entry —
//! its `time`, and the new keys added to its `f:metadata` map — and where that entry sorts;
//! every other entry keeps its bytes (and the writer's too when it owned every key already and
//! writes within the second of its last write). This module plans exactly that edit on the
//! stored JSON — the new value as pieces of the stored one and the few bytes the edit adds —
//! so a replace on the fast path does not parse managedFields (most of an object's metadata),
//! writes the new value straight into the object it renders, and hands back where the entries
//! are, so the next replace of the object does not scan them either
//! (`crate::json::managed_entries`).
//!
//! Whatever it cannot decide that way — no entry of the writer's, a key another entry owns,
//! a key that JSON would escape, the writer's map absent or empty, escapes in the strings it
//! compares, entries not in stored order, a tie in that order — is None, and the caller takes
//! the general rule.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::ops::Range;

use super::fieldset::field_key;
use super::managed::Writer;
use super::meta::now;
use crate::json::managed_entries::{ManagedEntry, text};
use crate::json::members::{Member, members_at, path_start};

/// The keys an Update set in one metadata map: the map's name (`labels`, `annotations`) and
/// the keys, in order (only keys borrowed from the body are written in place).
pub type MapKeys<'k, 'a> = (&'static str, &'k [Cow<'a, str>]);

/// What an Update makes of a stored `managedFields` value.
#[derive(Debug, PartialEq)]
pub enum Recorded<'a> {
    /// The same bytes: the writer already owned every key it set, and its entry's `time` reads
    /// the same (a write within the same second as its last).
    Same,
    /// This value.
    Rewritten(Rewrite<'a>),
}

/// A new `managedFields` value, ready to write: its bytes in pieces, and where its entries are
/// in them.
#[derive(Debug, PartialEq)]
pub struct Rewrite<'a> {
    /// The writer's new `time`.
    time: String,
    pieces: Vec<Piece<'a>>,
    /// The entries, positions counted from the value's first byte.
    entries: Box<[ManagedEntry]>,
}

impl Rewrite<'_> {
    /// Appends the value to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        for piece in &self.pieces {
            piece.write(out, &self.time);
        }
    }

    /// Where the value's entries are, counted from its first byte.
    pub fn into_entries(self) -> Box<[ManagedEntry]> {
        self.entries
    }
}

/// Some bytes of a new value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece<'a> {
    /// These (of the stored value, of a key the body set, or punctuation).
    Bytes(&'a [u8]),
    /// The writer's new `time`, quoted.
    QuotedTime,
}

impl Piece<'_> {
    /// How many bytes it writes when the time is `time_len` bytes.
    fn len(self, time_len: usize) -> usize {
        match self {
            Piece::Bytes(bytes) => bytes.len(),
            Piece::QuotedTime => time_len + 2,
        }
    }

    fn write(self, out: &mut Vec<u8>, time: &str) {
        match self {
            Piece::Bytes(bytes) => out.extend_from_slice(bytes),
            Piece::QuotedTime => {
                out.push(b'"');
                out.extend_from_slice(time.as_bytes());
                out.push(b'"');
            }
        }
    }
}

/// The stored `managedFields` value `raw`, whose entries are `entries`, after an Update by
/// `writer` at `api_version` that set `changed` keys (see the module doc); None when it is not
/// that Update.
pub fn record_map_keys<'a>(
    raw: &'a [u8],
    entries: &[ManagedEntry],
    changed: &[MapKeys<'_, 'a>],
    writer: Writer<'_>,
    api_version: &str,
) -> Option<Recorded<'a>> {
    let ordered = |pair: &[ManagedEntry]| pair[0].order_key(raw) < pair[1].order_key(raw);
    if !entries.windows(2).all(ordered) {
        return None;
    }
    let mine = entries
        .iter()
        .position(|entry| is_writer(entry, raw, writer, api_version))?;
    if others_own_a_key(raw, entries, mine, changed)? {
        return None;
    }
    let time = now();
    let edits = writer_edits(raw, entries.get(mine)?, changed, &time)?;
    if edits.is_empty() {
        return Some(Recorded::Same);
    }
    let at = new_position(raw, entries, mine, &time)?;
    Rewrite::plan(raw, entries, (mine, at), &edits, time).map(Recorded::Rewritten)
}

/// Whether `entry` is `writer`'s Update entry at `api_version`.
fn is_writer(entry: &ManagedEntry, raw: &[u8], writer: Writer<'_>, api_version: &str) -> bool {
    text(entry.operation, raw) == b"Update"
        && text(entry.manager, raw) == writer.manager.as_bytes()
        && text(entry.api_version, raw) == api_version.as_bytes()
        && text(entry.subresource, raw) == writer.subresource.as_bytes()
}

/// Whether an entry but the writer's (`mine`) owns one of the `changed` keys (its `fieldsV1`
/// has `f:metadata`, `f:MAP`, `f:KEY`); None for a key JSON would escape (the stored texts are
/// compared as they are written) or a map other than labels and annotations.
fn others_own_a_key(
    raw: &[u8],
    entries: &[ManagedEntry],
    mine: usize,
    changed: &[MapKeys<'_, '_>],
) -> Option<bool> {
    for (map, keys) in changed {
        let field = map_field(map)?;
        for key in keys.iter() {
            if key.bytes().any(|b| matches!(b, b'"' | b'\\' | ..0x20)) {
                return None;
            }
            let name = field_key(key);
            let path = [&b"f:metadata"[..], field, name.as_bytes()];
            let owns = |(index, entry): (usize, &ManagedEntry)| {
                let fields = entry.fields_v1.filter(|_| index != mine);
                fields.is_some_and(|fields| path_start(raw, fields.range(), &path).is_some())
            };
            if entries.iter().enumerate().any(owns) {
                return Some(true);
            }
        }
    }
    Some(false)
}

/// The `fieldsV1` key of metadata map `map`.
fn map_field(map: &str) -> Option<&'static [u8]> {
    match map {
        "annotations" => Some(b"f:annotations"),
        "labels" => Some(b"f:labels"),
        _ => None,
    }
}

/// A replacement of the bytes at a range of the stored value (empty: an insertion).
type Edit<'a> = (Range<usize>, [Piece<'a>; 3]);

/// The edits, in order, that make the writer's `entry` record this Update: the `changed` keys
/// its `f:metadata` maps lack, and `time` unless it reads so already; none when the entry stays
/// as it is.
fn writer_edits<'a>(
    raw: &[u8],
    entry: &ManagedEntry,
    changed: &[MapKeys<'_, 'a>],
    time: &str,
) -> Option<Vec<Edit<'a>>> {
    let keys = changed.iter().map(|(_, keys)| keys.len()).sum::<usize>();
    let mut edits = Vec::with_capacity(keys + 1);
    let fields = entry.fields_v1?.range();
    for (map, keys) in changed.iter().filter(|(_, keys)| !keys.is_empty()) {
        let field = map_field(map)?;
        let within = raw.get(..fields.end)?;
        let owned = path_start(within, fields.clone(), &[b"f:metadata", field])?;
        let (present, _) = members_at(within, owned)?;
        insertions(raw, &present, keys, &mut edits)?;
    }
    let stored_time = entry.time?.range();
    let stored = raw.get(stored_time.clone())?;
    let unquoted = stored.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if unquoted != time.as_bytes() {
        let time = [Piece::QuotedTime, Piece::Bytes(b""), Piece::Bytes(b"")];
        edits.push((stored_time, time));
    }
    edits.sort_by_key(|(range, _)| range.start);
    Some(edits)
}

/// Adds to `edits` the insertions of `"f:KEY":{}` for each of `keys` (sorted, none escaped) a
/// non-empty `fieldsV1` node whose members are `present` lacks, in key order; None for a key
/// not borrowed.
fn insertions<'a>(
    raw: &[u8],
    present: &[Member],
    keys: &[Cow<'a, str>],
    edits: &mut Vec<Edit<'a>>,
) -> Option<()> {
    let last = present.last()?;
    if present.iter().any(|m| m.key_of(raw).contains(&b'\\')) {
        return None;
    }
    for key in keys {
        let Cow::Borrowed(name) = key else {
            return None;
        };
        let name = name.as_bytes();
        let order = |member: &Member| field_order(member.key_of(raw), name);
        match present.iter().find(|member| order(member).is_ge()) {
            Some(member) if order(member).is_eq() => {}
            Some(member) => {
                let at = member.key.start - 1;
                let inserted = [b"\"f:", name, b"\":{},"].map(Piece::Bytes);
                edits.push((at..at, inserted));
            }
            None => {
                let at = last.value.end;
                edits.push((at..at, [b",\"f:", name, b"\":{}"].map(Piece::Bytes)));
            }
        }
    }
    Some(())
}

/// How a `fieldsV1` member key compares with `f:` followed by `name`.
fn field_order(member: &[u8], name: &[u8]) -> Ordering {
    match member.strip_prefix(b"f:") {
        Some(rest) => rest.cmp(name),
        // Not `f:` at its start: it differs from `f:NAME` within those two bytes or is shorter.
        None => member.cmp(b"f:"),
    }
}

/// Where the writer's entry (`mine`) goes among the others once its time reads `time`; None on
/// a tie.
fn new_position(raw: &[u8], entries: &[ManagedEntry], mine: usize, time: &str) -> Option<usize> {
    let mut moved = entries.get(mine)?.order_key(raw);
    moved[1] = time.as_bytes();
    let others = || {
        let others = entries
            .iter()
            .enumerate()
            .filter(move |(index, _)| *index != mine);
        others.map(|(_, entry)| entry.order_key(raw))
    };
    let at = others().take_while(|key| *key < moved).count();
    (others().nth(at) != Some(moved)).then_some(at)
}

impl<'a> Rewrite<'a> {
    /// The value of `entries` (in `raw`) with the writer's entry (`mine`) edited by `edits`
    /// and moved to position `at` among the others.
    fn plan(
        raw: &'a [u8],
        entries: &[ManagedEntry],
        (mine, at): (usize, usize),
        edits: &[Edit<'a>],
        time: String,
    ) -> Option<Self> {
        let others = || (0..entries.len()).filter(move |index| *index != mine);
        let order = others().take(at).chain([mine]).chain(others().skip(at));
        let mut value = Pieces {
            pieces: Vec::with_capacity(2 * entries.len() + 4 * edits.len() + 2),
            len: 0,
            time_len: time.len(),
        };
        let mut written = Vec::with_capacity(entries.len());
        value.push(Piece::Bytes(b"["));
        for (position, index) in order.enumerate() {
            if position > 0 {
                value.push(Piece::Bytes(b","));
            }
            let entry = entries.get(index)?;
            let (whole, start) = (entry.entry.range(), value.len);
            let edits = if index == mine { edits } else { &[] };
            let mut from = whole.start;
            for (range, inserted) in edits {
                value.push(Piece::Bytes(raw.get(from..range.start)?));
                inserted.iter().for_each(|piece| value.push(*piece));
                from = range.end;
            }
            value.push(Piece::Bytes(raw.get(from..whole.end)?));
            let moved = |at| through_edits(at, edits, value.time_len) - whole.start + start;
            written.push(entry.mapped(moved)?);
        }
        value.push(Piece::Bytes(b"]"));
        Some(Rewrite {
            time,
            pieces: value.pieces,
            entries: written.into_boxed_slice(),
        })
    }
}

/// Pieces being gathered, and how many bytes they write.
struct Pieces<'a> {
    pieces: Vec<Piece<'a>>,
    len: usize,
    time_len: usize,
}

impl<'a> Pieces<'a> {
    fn push(&mut self, piece: Piece<'a>) {
        let len = piece.len(self.time_len);
        if len > 0 {
            self.len += len;
            self.pieces.push(piece);
        }
    }
}

/// Where position `at` of the stored value lands once `edits` (sorted, not overlapping) are
/// made, the time written being `time_len` bytes: every edit that ends at or before it moves it
/// by the length it adds. An insertion exactly at `at` goes before it; a replaced value's end
/// moves with the replacement.
fn through_edits(at: usize, edits: &[Edit<'_>], time_len: usize) -> usize {
    let written = |pieces: &[Piece<'_>; 3]| pieces.iter().map(|p| p.len(time_len)).sum::<usize>();
    edits
        .iter()
        .filter(|(range, _)| range.end <= at)
        .fold(at, |at, (range, pieces)| at + written(pieces) - range.len())
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
    fn by_the_rule(entries: &Value, changed: &[MapKeys<'_, '_>]) -> Value {
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
    /// finds, and to write canonical JSON.
    fn in_place(entries: &Value, changed: &[MapKeys<'_, '_>]) -> Option<Value> {
        let raw = serde_json::to_vec(entries).ok()?;
        match record_map_keys(&raw, &scanned(&raw), changed, WRITER, "v1")? {
            Recorded::Same => Some(entries.clone()),
            Recorded::Rewritten(rewrite) => {
                let mut out = b"{\"managedFields\":".to_vec();
                let start = out.len();
                rewrite.write(&mut out);
                let value = &out[start..];
                let carried = rewrite.into_entries();
                assert_eq!(
                    carried,
                    scanned(value),
                    "{}",
                    String::from_utf8_lossy(value)
                );
                let parsed: Value = serde_json::from_slice(value).ok()?;
                // Compact, every object's keys sorted and unique: as the server writes values.
                let canonical = serde_json::to_vec(&parsed).ok()?;
                assert_eq!(
                    String::from_utf8_lossy(&canonical),
                    String::from_utf8_lossy(value)
                );
                Some(parsed)
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
        let keys = |k: &[&'static str]| k.iter().map(|s| Cow::Borrowed(*s)).collect::<Vec<_>>();
        let cases = [
            (keys(&["app"]), keys(&[])),
            (keys(&["step"]), keys(&[])),
            (keys(&["0", "app", "zz"]), keys(&["a", "b/c"])),
            (keys(&[]), keys(&["new"])),
        ];
        // A stored time of another length than the one written moves what follows it.
        let longer_time = || {
            let mut stored = entries();
            stored[0]["time"] = json!("2025-01-01T00:00:00.000000Z");
            stored
        };
        // Another manager owning keys of the same names in the other map keeps them.
        let same_names = || {
            let mut stored = entries();
            stored[1]["fieldsV1"]["f:metadata"] =
                json!({"f:annotations": {"f:app": {}}, "f:labels": {"f:new": {}}});
            stored
        };
        // A write within the second of the writer's last: only new keys change the entry.
        let stored_kinds: [&dyn Fn() -> Value; 4] =
            [&entries, &longer_time, &same_names, &written_this_second];
        for stored in stored_kinds {
            for (labels, annotations) in &cases {
                let changed = [("annotations", &annotations[..]), ("labels", &labels[..])];
                // Both sides stamp the entry with the current second: retried while the clock
                // turns a second between them (a loaded machine can take that long).
                let (expected, edited) = (0..5)
                    .find_map(|_| {
                        let second = now();
                        let stored = stored();
                        let both = (by_the_rule(&stored, &changed), in_place(&stored, &changed));
                        (now() == second).then_some(both)
                    })
                    .expect("five tries within a second each");
                assert_eq!(edited, Some(expected), "{labels:?} {annotations:?}");
            }
        }
    }

    #[test]
    fn a_writer_setting_keys_it_owns_within_the_second_leaves_the_bytes_as_they_are() {
        let owned = ["app", "tier"].map(Cow::Borrowed);
        let new = ["app", "new"].map(Cow::Borrowed);
        // Retried while the clock turns a second between the stored time and the write.
        let outcome = |keys: &[Cow<'static, str>]| {
            (0..5).find_map(|_| {
                let stored = written_this_second();
                let raw = serde_json::to_vec(&stored).unwrap_or_default();
                let recorded =
                    record_map_keys(&raw, &scanned(&raw), &[("labels", keys)], WRITER, "v1");
                let same = matches!(recorded, Some(Recorded::Same));
                let rewritten = matches!(recorded, Some(Recorded::Rewritten(_)));
                (stored[1]["time"] == json!(now())).then_some((same, rewritten))
            })
        };
        assert_eq!(outcome(&owned), Some((true, false)));
        assert_eq!(outcome(&new), Some((false, true)));
    }

    #[test]
    fn anything_else_is_left_to_the_rule() {
        let step = [Cow::Borrowed("step")];
        let quoted = [Cow::Borrowed("a\"b")];
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
        let quoted_labels = [("labels", &quoted[..])];
        assert_eq!(
            in_place(&entries(), &quoted_labels),
            None,
            "a key JSON escapes"
        );
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
