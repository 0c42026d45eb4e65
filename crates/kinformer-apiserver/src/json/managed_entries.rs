//! Where the entries of a compact `managedFields` value are and what identifies and orders each
//! (operation, time, manager, apiVersion, subresource), as offsets into the value. Scanned once
//! per stored object; the replace fast path then carries the layout to the versions it writes
//! (`write::managed_raw`), so later replaces of the object do not walk its managedFields — most
//! of an object's metadata — again.

use std::ops::Range;

use super::members::{Member, ObjectElements, object_elements};

/// A byte range as two `u32` offsets (a layout is kept with every object that has one; an
/// object's managedFields are far below 4 GiB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// `range` as a span; None past 4 GiB.
    pub fn of(range: Range<usize>) -> Option<Self> {
        Some(Span {
            start: u32::try_from(range.start).ok()?,
            end: u32::try_from(range.end).ok()?,
        })
    }

    /// The range it spans.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Its bytes in `raw` (empty when out of range).
    pub fn text(self, raw: &[u8]) -> &[u8] {
        raw.get(self.range()).unwrap_or_default()
    }

    /// Each end moved by `map`; None past 4 GiB.
    pub fn mapped(self, map: impl Fn(usize) -> usize) -> Option<Self> {
        let range = self.range();
        Span::of(map(range.start)..map(range.end))
    }
}

/// One entry of managedFields: where it is and where its identifying strings' texts (between
/// their quotes; None: absent, read as empty) and the values an Update rewrites are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagedEntry {
    /// The entry, braces included.
    pub entry: Span,
    /// `operation`'s text.
    pub operation: Option<Span>,
    /// `manager`'s text.
    pub manager: Option<Span>,
    /// `apiVersion`'s text.
    pub api_version: Option<Span>,
    /// `subresource`'s text.
    pub subresource: Option<Span>,
    /// `time`'s value, quotes included (None: absent).
    pub time: Option<Span>,
    /// `fieldsV1`'s value (None: absent).
    pub fields_v1: Option<Span>,
}

impl ManagedEntry {
    /// The texts kube-apiserver orders entries by: operation, time, manager, apiVersion,
    /// subresource.
    pub fn order_key<'a>(&self, raw: &'a [u8]) -> [&'a [u8]; 5] {
        [
            text(self.operation, raw),
            self.time_text(raw),
            text(self.manager, raw),
            text(self.api_version, raw),
            text(self.subresource, raw),
        ]
    }

    /// `time`'s text (empty when absent).
    pub fn time_text<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        let inner = self
            .time
            .map(|value| value.range())
            .map(|r| r.start + 1..r.end - 1);
        inner.and_then(|r| raw.get(r)).unwrap_or_default()
    }

    /// Every span moved by `map` (positions in one buffer to positions in another).
    pub fn mapped(&self, map: impl Fn(usize) -> usize) -> Option<Self> {
        let span = |span: Span| span.mapped(&map);
        let optional = |span: Option<Span>| match span {
            Some(span) => span.mapped(&map).map(Some),
            None => Some(None),
        };
        Some(ManagedEntry {
            entry: span(self.entry)?,
            operation: optional(self.operation)?,
            manager: optional(self.manager)?,
            api_version: optional(self.api_version)?,
            subresource: optional(self.subresource)?,
            time: optional(self.time)?,
            fields_v1: optional(self.fields_v1)?,
        })
    }

    /// The entry at `entry` in `raw` with `members`; None when a string it identifies the entry
    /// by is not a string or has an escape (its text would not compare as kube-apiserver
    /// compares it).
    fn of(raw: &[u8], entry: Range<usize>, members: &[Member]) -> Option<Self> {
        let value = |key: &[u8]| members.iter().find(|m| m.key_of(raw) == key);
        let text = |key: &[u8]| -> Option<Option<Span>> {
            let Some(member) = value(key) else {
                return Some(None);
            };
            let quoted = member.value.clone();
            let inner = raw
                .get(quoted.clone())?
                .strip_prefix(b"\"")?
                .strip_suffix(b"\"")?;
            if inner.contains(&b'\\') {
                return None;
            }
            Span::of(quoted.start + 1..quoted.end - 1).map(Some)
        };
        let time = match value(b"time") {
            Some(member) => {
                text(b"time")?;
                Some(Span::of(member.value.clone())?)
            }
            None => None,
        };
        let fields_v1 = match value(b"fieldsV1") {
            Some(member) => Some(Span::of(member.value.clone())?),
            None => None,
        };
        Some(ManagedEntry {
            entry: Span::of(entry)?,
            operation: text(b"operation")?,
            manager: text(b"manager")?,
            api_version: text(b"apiVersion")?,
            subresource: text(b"subresource")?,
            time,
            fields_v1,
        })
    }
}

/// The text of an identifying string in `raw` (absent: empty).
pub fn text(span: Option<Span>, raw: &[u8]) -> &[u8] {
    span.map_or(&[][..], |span| span.text(raw))
}

/// The entries of the compact managedFields value `raw` (an array of objects); None when it is
/// not one or an entry cannot be read so (see [`ManagedEntry`]).
pub fn entries(raw: &[u8]) -> Option<Box<[ManagedEntry]>> {
    of_elements(raw, object_elements(raw, 0..raw.len())?, 0)
}

/// The entries of the managedFields value that starts at `start` in `document`, given its
/// `elements` (positions in `document`), as offsets into the value.
pub fn of_elements(
    document: &[u8],
    elements: ObjectElements,
    start: usize,
) -> Option<Box<[ManagedEntry]>> {
    elements
        .into_iter()
        .map(|(entry, members)| {
            ManagedEntry::of(document, entry, &members)?.mapped(|at| at - start)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_each_entry_and_its_identifying_texts() {
        let value = json!([
            {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}},
             "manager": "m", "operation": "Update", "time": "2025-01-01T00:00:00Z"},
            {"manager": "kubelet", "operation": "Apply", "subresource": "status"},
        ]);
        let raw = serde_json::to_vec(&value).unwrap_or_default();
        let found = entries(&raw).unwrap_or_default();
        assert_eq!(found.len(), 2);
        let texts = |entry: &ManagedEntry| entry.order_key(&raw).map(|t| t.to_vec());
        let expected: [&[u8]; 5] = [b"Update", b"2025-01-01T00:00:00Z", b"m", b"v1", b""];
        assert_eq!(texts(&found[0]), expected.map(<[u8]>::to_vec));
        assert_eq!(
            found[0].fields_v1.map(|s| s.text(&raw)),
            Some(&br#"{"f:a":{}}"#[..])
        );
        let expected: [&[u8]; 5] = [b"Apply", b"", b"kubelet", b"", b"status"];
        assert_eq!(texts(&found[1]), expected.map(<[u8]>::to_vec));
        assert_eq!((found[1].time, found[1].fields_v1), (None, None));
        let second = found[1].entry.text(&raw);
        assert!(second.starts_with(b"{") && second.ends_with(b"}"));
    }

    #[test]
    fn an_escaped_or_non_string_identifier_is_not_read() {
        for entry in [
            json!({"manager": "a\"b"}),
            json!({"operation": 1}),
            json!({"time": null}),
        ] {
            let raw = serde_json::to_vec(&json!([entry])).unwrap_or_default();
            assert_eq!(entries(&raw), None, "{entry}");
        }
        assert_eq!(entries(b"{}"), None);
        assert_eq!(entries(b"[]").map(|e| e.len()), Some(0));
    }
}
