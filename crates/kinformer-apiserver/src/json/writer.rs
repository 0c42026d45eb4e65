//! Compact JSON text of a [`Value`], byte for byte as `serde_json::to_vec` writes it, with
//! strings copied eight bytes at a time up to the next byte that needs an escape: every object
//! the general write path stores is written here once, and most of its bytes are strings.

use serde_json::Value;

/// Appends `value` to `out` as `serde_json::to_vec` writes it (members in the map's order).
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // Numbers are serde_json's own (itoa and ryu); writing into a Vec cannot fail.
        Value::Number(number) => drop(serde_json::to_writer(&mut *out, number)),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (index, (key, member)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write_value(out, member);
            }
            out.push(b'}');
        }
    }
}

/// Appends `text` as a JSON string: `"` and `\` escaped with a backslash, the control
/// characters below 0x20 as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, everything else as is.
pub fn write_str(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut rest = text.as_bytes();
    out.reserve(rest.len() + 2);
    out.push(b'"');
    while let Some(at) = next_escaped(rest) {
        out.extend_from_slice(&rest[..at]);
        let byte = rest[at];
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
        }
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// Where the first byte of `bytes` that a JSON string escapes is (a quote, a backslash, a
/// control character), eight bytes at a time.
fn next_escaped(bytes: &[u8]) -> Option<usize> {
    first_flagged(bytes, true)
}

/// Whether `bytes`, JSON text, hold a backslash or a control character: each is an escape or
/// invalid inside a string (and invalid outside one), so text without them reads as it stands.
pub fn has_backslash_or_control(bytes: &[u8]) -> bool {
    first_flagged(bytes, false).is_some()
}

/// Where the first backslash or control character of `bytes` is, or with `quotes` the first
/// of those or a quote, eight bytes at a time.
fn first_flagged(bytes: &[u8], quotes: bool) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote_flags = if quotes { HIGH } else { 0 };
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // A byte is flagged when it is zero (quote, backslash) or below 0x20 (control); a
        // borrow can only flag bytes after a flagged one, so the lowest flag is exact.
        let found = (quote.wrapping_sub(ONES) & !quote & quote_flags
            | backslash.wrapping_sub(ONES) & !backslash
            | word.wrapping_sub(ONES * 0x20) & !word)
            & HIGH;
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&b| (quotes && b == b'"') || b == b'\\' || b < 0x20)
        .map(|found| at + found)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::*;

    fn written(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write_value(&mut out, value);
        out
    }

    /// Strings full of what JSON escapes, at every offset of an eight-byte word.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just('"'),
                Just('\\'),
                Just('/'),
                Just('\u{7f}'),
                Just('é'),
                Just('💡'),
                (0u8..0x20).prop_map(char::from),
                any::<char>(),
                proptest::char::range('a', 'z'),
            ],
            0..40,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn values_are_written_as_serde_json_writes_them(value in value()) {
            prop_assert_eq!(written(&value), serde_json::to_vec(&value).unwrap_or_default());
        }
    }

    #[test]
    fn every_byte_that_needs_an_escape_is_found_at_every_offset() {
        for byte in 0u8..=0x7f {
            for offset in 0..20 {
                let mut text = "a".repeat(offset);
                text.push(char::from(byte));
                text.push_str("bcdefghijk");
                let value = json!(text);
                assert_eq!(
                    written(&value),
                    serde_json::to_vec(&value).unwrap_or_default()
                );
                let flagged = byte == b'\\' || byte < 0x20;
                assert_eq!(has_backslash_or_control(text.as_bytes()), flagged, "{byte}");
            }
        }
    }
}
