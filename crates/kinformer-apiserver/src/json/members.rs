//! The members of a JSON object in compact form (as serde_json writes a `Value`: no whitespace),
//! found without parsing their values: each member's key and value as byte ranges, the value
//! skipped over by bracket depth and string quotes (and an array's objects likewise). The replace fast path reads a stored object
//! and a PUT body with it, and compares members as bytes.
//!
//! The scan is strict about the object's own syntax (`{`, quoted keys, `:`, `,`, `}`, nothing
//! else) and lenient inside values: a value is only delimited, not validated. A caller that
//! trusts a value must check it otherwise (by comparing it with a value it trusts, or by
//! parsing it). Anything it cannot delimit, including whitespace between tokens, is None.

use std::ops::Range;

/// One member of an object: where its key (the text between the quotes) and its value are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key's bytes, without the quotes (escapes as written).
    pub key: Range<usize>,
    /// The value's bytes.
    pub value: Range<usize>,
}

impl Member {
    /// The key's bytes in `document`.
    pub fn key_of<'a>(&self, document: &'a [u8]) -> &'a [u8] {
        document.get(self.key.clone()).unwrap_or_default()
    }

    /// The value's bytes in `document`.
    pub fn value_of<'a>(&self, document: &'a [u8]) -> &'a [u8] {
        document.get(self.value.clone()).unwrap_or_default()
    }
}

/// The members of the compact JSON object at `object` in `document` (from its `{` to the end of
/// its `}`); None when it is not one.
pub fn members(document: &[u8], object: Range<usize>) -> Option<Vec<Member>> {
    let (found, end) = members_at(document.get(..object.end)?, object.start)?;
    (end == object.end).then_some(found)
}

/// The members of `edited`, an edit of `original` whose object has the members `known`:
/// `edited` has the bytes of `original` up to `common.0` and its last `common.1` bytes, and the
/// object is at `edited_object` in `edited`. The members standing wholly in the common bytes
/// are `known`'s (those after the edit shifted); only the edited stretch is scanned. None when
/// `edited`'s object is not one.
pub fn edited_members(
    original: &[u8],
    known: &[Member],
    edited: &[u8],
    edited_object: Range<usize>,
    common: (usize, usize),
) -> Option<Vec<Member>> {
    let (prefix, suffix) = common;
    let (Some(first), Some(last)) = (known.first(), known.last()) else {
        return members(edited, edited_object);
    };
    // Members whose separator (`,` or `}`) is still common, and the first whose opening quote is.
    let before = known.iter().take_while(|m| m.value.end < prefix).count();
    let tail_start = original.len().checked_sub(suffix)?;
    let after = known
        .iter()
        .position(|m| m.key.start > tail_start)
        .unwrap_or(known.len());
    let mut found: Vec<Member> = Vec::with_capacity(known.len() + 4);
    found.extend_from_slice(known.get(..before)?);
    if before == known.len() {
        return (last.value.end + 1 == edited_object.end).then_some(found);
    }
    let start = found
        .last()
        .map_or(first.key.start - 1, |m| m.value.end + 1);
    let bytes = edited.get(..edited_object.end)?;
    let delta = edited.len() as isize - original.len() as isize;
    let stop = known
        .get(after)
        .map(|m| (m.key.start - 1).wrapping_add_signed(delta));
    if found.is_empty() && bytes.get(start) == Some(&b'}') {
        return (stop.is_none() && start + 1 == edited_object.end).then_some(found);
    }
    let end = members_from(bytes, start, stop, &mut found)?;
    match stop {
        Some(stop) if end == stop => {
            let shift = |at: usize| at.wrapping_add_signed(delta);
            found.extend(known.get(after..)?.iter().map(|m| Member {
                key: shift(m.key.start)..shift(m.key.end),
                value: shift(m.value.start)..shift(m.value.end),
            }));
            Some(found)
        }
        None if end + 1 == edited_object.end => Some(found),
        _ => None,
    }
}

/// An array's elements, each an object: where each is and its members.
pub type ObjectElements = Vec<(Range<usize>, Vec<Member>)>;

/// The elements of the compact JSON array at `array` in `document` when each is an object,
/// each with its members; None otherwise.
pub fn object_elements(document: &[u8], array: Range<usize>) -> Option<ObjectElements> {
    let (end, found) = object_elements_at(document.get(..array.end)?, array.start)?;
    (end == array.end).then_some(found)
}

/// The elements of the compact JSON array starting at `at` when each is an object, and where
/// the array ends (one past its `]`); None otherwise.
pub fn object_elements_at(bytes: &[u8], mut at: usize) -> Option<(usize, ObjectElements)> {
    expect(bytes, &mut at, b'[')?;
    let mut found = Vec::with_capacity(8);
    if bytes.get(at) == Some(&b']') {
        return Some((at + 1, found));
    }
    loop {
        let start = at;
        expect(bytes, &mut at, b'{')?;
        let mut members = Vec::with_capacity(8);
        if bytes.get(at) != Some(&b'}') {
            at = members_from(bytes, at, None, &mut members)?;
        }
        at += 1;
        found.push((start..at, members));
        match bytes.get(at)? {
            b',' => at += 1,
            b']' => return Some((at + 1, found)),
            _ => return None,
        }
    }
}

/// [`members`], with the value of member `key` delimited by `read` (given the document and
/// where the value starts, it answers where it ends; None: skip it as any other) instead of
/// skipped: a caller that needs that value's own structure reads it in the same walk.
pub fn members_reading(
    document: &[u8],
    object: Range<usize>,
    key: &[u8],
    mut read: impl FnMut(&[u8], usize) -> Option<usize>,
) -> Option<Vec<Member>> {
    let mut skip = |bytes: &[u8], found_key: &[u8], start: usize| match found_key == key {
        true => read(bytes, start).or_else(|| value_end(bytes, start)),
        false => value_end(bytes, start),
    };
    object_members(document, object, &mut skip)
}

/// The members of the compact JSON object at `object`, each value delimited by `skip` (see
/// [`members_with`]).
fn object_members(
    document: &[u8],
    object: Range<usize>,
    skip: &mut impl FnMut(&[u8], &[u8], usize) -> Option<usize>,
) -> Option<Vec<Member>> {
    let bytes = document.get(..object.end)?;
    let mut at = object.start;
    expect(bytes, &mut at, b'{')?;
    let mut found = Vec::with_capacity(16);
    if bytes.get(at) == Some(&b'}') {
        return (at + 1 == object.end).then_some(found);
    }
    let end = members_with(bytes, at, None, &mut found, skip)?;
    (end + 1 == object.end).then_some(found)
}

/// The value of member `key` of the compact JSON object at `object`, scanning its members only
/// up to that one (the rest of the object is not checked).
pub fn member_value(document: &[u8], object: Range<usize>, key: &[u8]) -> Option<Range<usize>> {
    path_value(document, object, &[key])
}

/// The value at `path` (member keys, outermost first) inside the compact JSON object at
/// `object`: each object on the way is scanned only up to the member the path names, so the
/// values enclosing the one found are not delimited (nor checked past it).
fn path_value(document: &[u8], object: Range<usize>, path: &[&[u8]]) -> Option<Range<usize>> {
    let start = path_start(document, object.clone(), path)?;
    Some(start..value_end(document.get(..object.end)?, start)?)
}

/// Where the value at `path` starts (see [`path_value`]).
pub fn path_start(document: &[u8], object: Range<usize>, path: &[&[u8]]) -> Option<usize> {
    let bytes = document.get(..object.end)?;
    path.iter()
        .try_fold(object.start, |at, key| member_start(bytes, at, key))
}

/// The members of the compact JSON object starting at `at` in `document`, and where it ends
/// (one past its `}`); None when no object starts there.
pub fn members_at(document: &[u8], mut at: usize) -> Option<(Vec<Member>, usize)> {
    expect(document, &mut at, b'{')?;
    let mut found = Vec::with_capacity(16);
    if document.get(at) == Some(&b'}') {
        return Some((found, at + 1));
    }
    let end = members_from(document, at, None, &mut found)?;
    Some((found, end + 1))
}

/// Where the value of member `key` starts in the compact JSON object at `at`, scanning its
/// members only up to that one.
fn member_start(bytes: &[u8], mut at: usize, key: &[u8]) -> Option<usize> {
    expect(bytes, &mut at, b'{')?;
    loop {
        expect(bytes, &mut at, b'"')?;
        let key_start = at;
        at = string_end(bytes, at)?;
        let found = bytes.get(key_start..at)? == key;
        at += 1;
        expect(bytes, &mut at, b':')?;
        if found {
            return Some(at);
        }
        at = value_end(bytes, at)?;
        expect(bytes, &mut at, b',')?;
    }
}

/// Scans members from `at` (a key's opening quote) into `found`, until the object's closing
/// brace or, with `stop`, until the member starting at `stop`; returns where it stopped (the
/// brace, or `stop`).
fn members_from(
    bytes: &[u8],
    at: usize,
    stop: Option<usize>,
    found: &mut Vec<Member>,
) -> Option<usize> {
    members_with(bytes, at, stop, found, &mut |bytes, _, start| {
        value_end(bytes, start)
    })
}

/// [`members_from`], each value delimited by `skip` (given the bytes, the member's key and
/// where its value starts, it answers where the value ends).
fn members_with(
    bytes: &[u8],
    mut at: usize,
    stop: Option<usize>,
    found: &mut Vec<Member>,
    skip: &mut impl FnMut(&[u8], &[u8], usize) -> Option<usize>,
) -> Option<usize> {
    loop {
        if Some(at) == stop {
            return Some(at);
        }
        expect(bytes, &mut at, b'"')?;
        let key_start = at;
        at = string_end(bytes, at)?;
        let key = key_start..at;
        at += 1;
        expect(bytes, &mut at, b':')?;
        let value_start = at;
        at = skip(bytes, bytes.get(key.clone())?, at)?;
        found.push(Member {
            key,
            value: value_start..at,
        });
        match bytes.get(at)? {
            b',' => at += 1,
            b'}' if stop.is_none() => return Some(at),
            _ => return None,
        }
    }
}

/// Steps over `byte` at `at`.
fn expect(bytes: &[u8], at: &mut usize, byte: u8) -> Option<()> {
    (bytes.get(*at) == Some(&byte)).then(|| *at += 1)
}

/// Where the string whose text starts at `at` ends (the position of its closing quote).
pub fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at = next_quote_or_backslash(bytes, at)?;
        match bytes.get(at)? {
            b'"' => return Some(at),
            _ => at += 2,
        }
    }
}

/// The position of the first `"` or `\` at or after `at`, looked for eight bytes at a time: the
/// strings of an object's metadata and managedFields are keys and short values, too short for
/// a vectorised search's set-up to pay, too long for one byte at a time.
fn next_quote_or_backslash(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A high bit in each byte of `x` that is zero (and maybe in bytes after one that is): the
    // lowest flags the first match exactly.
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let found = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    Some(at + rest.iter().position(|b| matches!(b, b'"' | b'\\'))?)
}

/// Where the value starting at `at` ends (one past its last byte).
pub fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => Some(string_end(bytes, at + 1)? + 1),
        b'{' | b'[' => nested_end(bytes, at),
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
            let rest = bytes.get(at..)?;
            let length = rest
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']'))
                .unwrap_or(rest.len());
            let scalar = rest.get(..length)?;
            (!scalar.iter().any(u8::is_ascii_whitespace)).then_some(at + length)
        }
        _ => None,
    }
}

/// Where the object or array starting at `at` ends, by bracket depth outside strings; each
/// string is skipped as [`string_end`] skips it.
fn nested_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *bytes.get(at)? {
            b'"' => at = string_end(bytes, at + 1)?,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// The members of a whole document.
    fn top_level(document: &[u8]) -> Option<Vec<Member>> {
        members(document, 0..document.len())
    }

    fn common(a: &[u8], b: &[u8]) -> (usize, usize) {
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let suffix = a[prefix..]
            .iter()
            .rev()
            .zip(b[prefix..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        (prefix, suffix)
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[a-c\"\\\\]{0,3}".prop_map(Value::from),
            (0u8..3).prop_map(Value::from),
            proptest::collection::btree_map("[a-c]{1,2}", "[a-c]{0,2}", 0..3)
                .prop_map(|m| json!(m)),
        ]
    }

    fn object() -> impl Strategy<Value = serde_json::Map<String, Value>> {
        proptest::collection::btree_map("[a-e]{1,2}", any_value(), 0..6)
            .prop_map(|m| m.into_iter().collect())
    }

    proptest! {
        /// Scanning only the edited stretch finds what scanning the whole edited object finds.
        #[test]
        fn an_edit_is_scanned_where_it_differs(original in object(), edited in object()) {
            let wrap = |members: &serde_json::Map<String, Value>| {
                serde_json::to_vec(&json!({"a": 1, "m": members, "z": [1]})).unwrap_or_default()
            };
            let (before, after) = (wrap(&original), wrap(&edited));
            let outer = |document: &[u8]| {
                top_level(document)
                    .and_then(|found| found.get(1).map(|m| m.value.clone()))
                    .unwrap_or(0..0)
            };
            let known = members(&before, outer(&before)).unwrap_or_default();
            let expected = members(&after, outer(&after));
            let found = edited_members(&before, &known, &after, outer(&after), common(&before, &after));
            prop_assert_eq!(found, expected);
        }
    }

    /// Bracket depth one byte at a time: what [`nested_end`] must agree with.
    fn nested_end_byte_by_byte(bytes: &[u8], at: usize) -> Option<usize> {
        let mut depth = 0usize;
        let (mut in_string, mut escaped) = (false, false);
        for (offset, &byte) in bytes.get(at..)?.iter().enumerate() {
            if in_string {
                match (escaped, byte) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(at + offset + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// Skipping strings eight bytes at a time ends every value where one byte at a time
        /// ends it, escapes, unclosed strings and unbalanced brackets included.
        #[test]
        fn a_value_ends_where_a_byte_by_byte_scan_ends_it(
            text in "[{}\\[\\]\"\\\\a:,]{0,40}",
            padding in 0usize..12,
        ) {
            let document = format!("{{{}{text}", "a".repeat(padding));
            let bytes = document.as_bytes();
            prop_assert_eq!(nested_end(bytes, 0), nested_end_byte_by_byte(bytes, 0));
            let mut escaped = false;
            let closing = bytes.iter().position(|&b| {
                let closes = !escaped && b == b'"';
                escaped = !escaped && b == b'\\';
                closes
            });
            prop_assert_eq!(string_end(bytes, 0), closing);
        }
    }

    fn keys_and_values(document: &str) -> Option<Vec<(String, String)>> {
        let bytes = document.as_bytes();
        let found = top_level(bytes)?;
        Some(
            found
                .iter()
                .map(|m| {
                    (
                        String::from_utf8_lossy(m.key_of(bytes)).into_owned(),
                        String::from_utf8_lossy(m.value_of(bytes)).into_owned(),
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn finds_each_member_of_a_compact_object() {
        let found = keys_and_values(
            r#"{"a":1,"b":"x\"}","c":{"d":[1,{"e":"]"}]},"e\\":null,"f":[],"g":-1.5e3}"#,
        );
        let expected = [
            ("a", "1"),
            ("b", r#""x\"}""#),
            ("c", r#"{"d":[1,{"e":"]"}]}"#),
            ("e\\\\", "null"),
            ("f", "[]"),
            ("g", "-1.5e3"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(found, Some(expected));
        assert_eq!(keys_and_values("{}"), Some(Vec::new()));
    }

    #[test]
    fn refuses_what_is_not_one_compact_object() {
        for document in [
            "",
            "[]",
            r#"{"a":1"#,
            r#"{"a":1}x"#,
            r#"{"a": 1}"#,
            r#"{ "a":1}"#,
            r#"{"a":1,}"#,
            r#"{"a"1}"#,
            r#"{"a":}"#,
            r#"{"a":"x}"#,
            r#"{"a":{"b":1}"#,
            r#"{a:1}"#,
            "{}}",
        ] {
            assert_eq!(top_level(document.as_bytes()), None, "{document}");
        }
    }

    #[test]
    fn finds_each_object_of_a_compact_array() {
        let document = br#"[{"a":"]"},{},{"b":[1],"c":2}]"#;
        let found = object_elements(document, 0..document.len()).unwrap_or_default();
        let values: Vec<(&[u8], usize)> = found
            .iter()
            .filter_map(|(r, m)| Some((document.get(r.clone())?, m.len())))
            .collect();
        let expected: [(&[u8], usize); 3] =
            [(br#"{"a":"]"}"#, 1), (b"{}", 0), (br#"{"b":[1],"c":2}"#, 2)];
        assert_eq!(values, expected);
        assert_eq!(object_elements(b"[]", 0..2), Some(Vec::new()));
        for bad in [&b"[{},]"[..], b"[{}", b"[{}] ", b"[1]", b"{}"] {
            assert_eq!(object_elements(bad, 0..bad.len()), None);
        }
    }

    #[test]
    fn finds_one_member_without_reading_past_it() {
        let document = br#"{"a":{"x":1},"b":"2","c":"#;
        let value = member_value(document, 0..document.len(), b"b");
        assert_eq!(value.and_then(|r| document.get(r)), Some(&br#""2""#[..]));
        assert_eq!(member_value(br#"{"a":1}"#, 0..7, b"z"), None);
    }

    #[test]
    fn finds_a_nested_value_without_delimiting_what_encloses_it() {
        let document = br#"{"a":1,"m":{"x":{"p":"1"},"y":[2],"z":"#;
        let value = |path: &[&[u8]]| {
            path_value(document, 0..document.len(), path).and_then(|r| document.get(r))
        };
        assert_eq!(value(&[b"m", b"y"]), Some(&b"[2]"[..]));
        assert_eq!(value(&[b"m", b"x", b"p"]), Some(&br#""1""#[..]));
        assert_eq!(value(&[b"a"]), Some(&b"1"[..]));
        for absent in [
            &[&b"m"[..], b"w"][..],
            &[b"a", b"x"],
            &[b"q"],
            &[b"m", b"z"],
        ] {
            assert_eq!(value(absent), None, "{absent:?}");
        }
        let start = path_start(document, 0..document.len(), &[b"m"]).unwrap_or_default();
        assert_eq!(members_at(document, start), None, "an object not closed");
        let closed = br#"{"m":{"x":1},"n":2}"#;
        let start = path_start(closed, 0..closed.len(), &[b"m"]).unwrap_or_default();
        let (inner, end) = members_at(closed, start).unwrap_or_default();
        assert_eq!(
            (inner.len(), closed.get(start..end)),
            (1, Some(&br#"{"x":1}"#[..]))
        );
        assert_eq!(members_at(b"{}", 0), Some((Vec::new(), 2)));
        assert_eq!(path_value(closed, 0..closed.len(), &[b"m", b"y"]), None);
        assert_eq!(
            path_value(closed, 0..closed.len(), &[]),
            Some(0..closed.len())
        );
    }

    #[test]
    fn reads_a_nested_object_by_its_range() {
        let document = br#"{"m":{"x":"1","y":"2"},"z":3}"#;
        let outer = top_level(document).unwrap_or_default();
        let inner = outer.first().map(|m| m.value.clone()).unwrap_or(0..0);
        let found = members(document, inner).unwrap_or_default();
        let keys: Vec<&[u8]> = found.iter().map(|m| m.key_of(document)).collect();
        assert_eq!(keys, [b"x".as_slice(), b"y".as_slice()]);
    }
}
