//! A validating JSON scanner for the informer's hot paths (frames, lists and metadata): it finds where values, members and elements
//! start and end without building anything, so a watch frame or LIST body is checked once and
//! the cached object's bytes are sliced out of it, and an object's metadata is read without
//! re-parsing the rest (managedFields are most of a pod).
//!
//! Scanning checks the JSON grammar (RFC 8259: structure, string escapes, control characters,
//! number syntax, literals, nesting up to [`MAX_DEPTH`]) but not UTF-8: callers validate the
//! whole buffer once with `std::str::from_utf8`, which is much faster than per string.
//! Positions are byte offsets into the scanned buffer; `None` means "not valid JSON here", and
//! callers fall back to serde_json for the error message.

use std::borrow::Cow;

/// Deepest nesting scanned; deeper values are left to serde_json (callers fall back on None).
pub const MAX_DEPTH: usize = 128;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in the first byte of `word` (little-endian) that is `"`, `\` or a control
/// character (< 0x20), the bit to find with `trailing_zeros`; bytes after it may be flagged
/// falsely. Zero when no byte needs a look: eight bytes of a string skipped at once.
#[inline]
fn string_specials(word: u64) -> u64 {
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (zero_byte(quote) | zero_byte(backslash) | control) & HIGHS
}

/// The offset just past the closing quote of the string whose opening quote is at `at - 1`.
fn string_end(b: &[u8], mut at: usize) -> Option<usize> {
    loop {
        // Eight bytes at a time up to the next byte that needs a look.
        while let Some(chunk) = b.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().ok()?);
            let specials = string_specials(word);
            if specials != 0 {
                at += (specials.trailing_zeros() / 8) as usize;
                break;
            }
            at += 8;
        }
        match *b.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at = escape_end(b, at + 1)?,
            c if c < 0x20 => return None,
            _ => at += 1,
        }
    }
}

/// The offset past the escape whose character after the backslash is at `at`.
fn escape_end(b: &[u8], at: usize) -> Option<usize> {
    match *b.get(at)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(at + 1),
        b'u' if b.get(at + 1..at + 5)?.iter().all(u8::is_ascii_hexdigit) => Some(at + 5),
        _ => None,
    }
}

/// The first offset at or after `at` that is not JSON whitespace.
pub fn skip_whitespace(b: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(at) {
        at += 1;
    }
    at
}

fn digits_end(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

/// The offset past the number at `at`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn number_end(b: &[u8], mut at: usize) -> Option<usize> {
    if b.get(at) == Some(&b'-') {
        at += 1;
    }
    at = match *b.get(at)? {
        b'0' => at + 1,
        b'1'..=b'9' => digits_end(b, at + 1),
        _ => return None,
    };
    if b.get(at) == Some(&b'.') {
        let end = digits_end(b, at + 1);
        if end == at + 1 {
            return None;
        }
        at = end;
    }
    if let Some(b'e' | b'E') = b.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = b.get(at) {
            at += 1;
        }
        let end = digits_end(b, at);
        if end == at {
            return None;
        }
        at = end;
    }
    Some(at)
}

fn literal_end(b: &[u8], at: usize, literal: &[u8]) -> Option<usize> {
    (b.get(at..at + literal.len())? == literal).then_some(at + literal.len())
}

/// For a member whose key's opening quote is at `at`: the key's raw bytes (between the quotes)
/// and where the value starts, past `:` and whitespace.
fn member_key(b: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let key_end = string_end(b, at + 1)?;
    let colon = skip_whitespace(b, key_end);
    (b.get(colon) == Some(&b':')).then(|| (&b[at + 1..key_end - 1], skip_whitespace(b, colon + 1)))
}

/// Validates the JSON value starting at `at` (after optional whitespace) and returns the offset
/// just past it. Iterative, without allocating: nesting up to [`MAX_DEPTH`] levels.
pub fn value_end(b: &[u8], at: usize) -> Option<usize> {
    nested_value_end(b, at, 0)
}

/// [`value_end`] for a value `nesting` containers deep in the document being validated (a
/// member of a member of the top-level object is 2 deep): its own nesting may use only the
/// rest of [`MAX_DEPTH`], so that a walk validating a document member by member accepts what
/// one `value_end` over the whole document accepts.
pub fn nested_value_end(b: &[u8], at: usize, nesting: usize) -> Option<usize> {
    // The closing bracket of each open container.
    let mut open = OpenContainers::outside(nesting);
    let mut at = skip_whitespace(b, at);
    'value: loop {
        at = match *b.get(at)? {
            c @ (b'{' | b'[') => {
                let close = if c == b'{' { b'}' } else { b']' };
                let inner = skip_whitespace(b, at + 1);
                if b.get(inner) == Some(&close) {
                    inner + 1
                } else {
                    open.push(close)?;
                    at = if close == b'}' {
                        member_key(b, inner)?.1
                    } else {
                        inner
                    };
                    continue 'value;
                }
            }
            b'"' => string_end(b, at + 1)?,
            b't' => literal_end(b, at, b"true")?,
            b'f' => literal_end(b, at, b"false")?,
            b'n' => literal_end(b, at, b"null")?,
            _ => number_end(b, at)?,
        };
        // After a value: close containers or move to the next member or element.
        while let Some(&close) = open.last() {
            at = skip_whitespace(b, at);
            match *b.get(at)? {
                b',' => {
                    let next = skip_whitespace(b, at + 1);
                    at = if close == b'}' {
                        member_key(b, next)?.1
                    } else {
                        next
                    };
                    continue 'value;
                }
                c if c == close => {
                    open.pop();
                    at += 1;
                }
                _ => return None,
            }
        }
        return Some(at);
    }
}

/// The offset just past the value at `at` (after optional whitespace) in bytes already
/// validated (by [`value_end`] or serde_json): only strings and brackets are followed and
/// nothing else is checked, so skipping a value a second time (an object's managedFields when
/// its metadata is read) costs a fraction of validating it. On invalid input it returns some
/// offset or None, and never panics.
pub fn valid_value_end(b: &[u8], at: usize) -> Option<usize> {
    let mut at = skip_whitespace(b, at);
    if !matches!(b.get(at)?, b'{' | b'[' | b'"') {
        return value_end(b, at);
    }
    let mut depth = 0usize;
    loop {
        match *b.get(at)? {
            b'"' => at = string_end(b, at + 1)?,
            b'{' | b'[' => {
                depth += 1;
                at += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                at += 1;
            }
            _ => at += 1,
        }
        if depth == 0 {
            return Some(at);
        }
    }
}

/// The closing brackets of the containers [`value_end`] is inside, on the stack, above the
/// `outer` levels the value itself is nested in.
struct OpenContainers {
    closes: [u8; MAX_DEPTH],
    outer: usize,
    depth: usize,
}

impl OpenContainers {
    /// The stack of a value `outer` containers deep.
    fn outside(outer: usize) -> Self {
        Self {
            closes: [0; MAX_DEPTH],
            outer,
            depth: outer,
        }
    }

    /// None past [`MAX_DEPTH`].
    fn push(&mut self, close: u8) -> Option<()> {
        *self.closes.get_mut(self.depth)? = close;
        self.depth += 1;
        Some(())
    }

    fn last(&self) -> Option<&u8> {
        self.closes.get(self.outer..self.depth)?.last()
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1).max(self.outer);
    }
}

/// Walks the object at `at` (after optional whitespace): for each member, `visit(key, start)`
/// gets the key's raw bytes (between the quotes, escapes as written) and where its value starts,
/// and returns where that value ends (usually by scanning it with [`value_end`] or another
/// walker). Returns the offset just past the object.
pub fn for_each_member(
    b: &[u8],
    at: usize,
    mut visit: impl FnMut(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    let mut at = skip_whitespace(b, at);
    if b.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(b, at + 1);
    if b.get(at) == Some(&b'}') {
        return Some(at + 1);
    }
    loop {
        let (key, value_start) = member_key(b, at)?;
        at = skip_whitespace(b, visit(key, value_start)?);
        match *b.get(at)? {
            b',' => at = skip_whitespace(b, at + 1),
            b'}' => return Some(at + 1),
            _ => return None,
        }
    }
}

/// Walks the array at `at` (after optional whitespace): `visit(start)` gets where each element
/// starts and returns where it ends. Returns the offset just past the array.
pub fn for_each_element(
    b: &[u8],
    at: usize,
    mut visit: impl FnMut(usize) -> Option<usize>,
) -> Option<usize> {
    let mut at = skip_whitespace(b, at);
    if b.get(at) != Some(&b'[') {
        return None;
    }
    at = skip_whitespace(b, at + 1);
    if b.get(at) == Some(&b']') {
        return Some(at + 1);
    }
    loop {
        at = skip_whitespace(b, visit(at)?);
        match *b.get(at)? {
            b',' => at = skip_whitespace(b, at + 1),
            b']' => return Some(at + 1),
            _ => return None,
        }
    }
}

/// The string value at `at` and where it ends; `None` for `null`. Borrowed unless it has escapes.
/// The buffer must be valid UTF-8 (see the module doc).
pub fn string_at(b: &[u8], at: usize) -> Option<(Option<Cow<'_, str>>, usize)> {
    if b.get(at) != Some(&b'"') {
        return literal_end(b, at, b"null").map(|end| (None, end));
    }
    let end = string_end(b, at + 1)?;
    let raw = &b[at + 1..end - 1];
    let text = if raw.contains(&b'\\') {
        Cow::Owned(decode_escaped(raw)?)
    } else {
        Cow::Borrowed(std::str::from_utf8(raw).ok()?)
    };
    Some((Some(text), end))
}

/// Decodes the inside of a JSON string that has escapes (rare: serde_json does it).
fn decode_escaped(raw: &[u8]) -> Option<String> {
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice(&quoted).ok()
}

/// `raw` without raw CR/LF (only ever whitespace in valid JSON), borrowed when it has none.
pub fn single_line(raw: &[u8]) -> Cow<'_, [u8]> {
    // One vectorised pass (an object is printed with every notification).
    if memchr::memchr2(b'\n', b'\r', raw).is_some() {
        Cow::Owned(
            raw.iter()
                .copied()
                .filter(|b| !matches!(b, b'\n' | b'\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` is one JSON value (and whitespace), by our scanner and by serde_json.
    fn valid(text: &str) -> (bool, bool) {
        let b = text.as_bytes();
        let ours = value_end(b, 0).is_some_and(|end| skip_whitespace(b, end) == b.len());
        let serde = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        (ours, serde)
    }

    #[test]
    fn value_end_agrees_with_serde_json_on_valid_and_invalid_values() {
        let cases = [
            "{}",
            "[]",
            " { } ",
            "0",
            "-0",
            "12.5e-3",
            "1E+2",
            "true",
            "false",
            "null",
            r#""plain""#,
            r#""esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00""#,
            r#"{"a":[1,{"b":null},"x"],"c":{"d":[[]]}}"#,
            r#"{"key with spaces" : [ 1 , 2 ] , "k2":"v"}"#,
            "{\"long\":\"0123456789abcdef0123456789abcdef\"}",
            // invalid ones
            "",
            "{",
            "[",
            "{]",
            "[}",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "[1,]",
            "[,1]",
            "01",
            "-",
            "1.",
            "1e",
            ".5",
            "+1",
            "tru",
            "nul",
            "\"unterminated",
            "\"bad \\x escape\"",
            "\"\\u12G4\"",
            "\"tab\tinside\"",
            "{a:1}",
            "{\"a\" 1}",
            "[1 2]",
            "{\"a\":1 \"b\":2}",
        ];
        for case in cases {
            let (ours, serde) = valid(case);
            assert_eq!(ours, serde, "{case:?}");
        }
    }

    #[test]
    fn valid_value_end_finds_the_end_value_end_finds_on_valid_values() {
        let cases = [
            "0",
            " -12.5e3 ",
            "true",
            "null",
            r#""a\"]}""#,
            r#"{"a":[1,{"b":null},"x]"],"c":{"d":[[]]}} tail"#,
            r#"[ {"k" : "v"} , [ ] , "}" ]"#,
        ];
        for case in cases {
            let b = case.as_bytes();
            assert_eq!(valid_value_end(b, 0), value_end(b, 0), "{case:?}");
        }
        for broken in ["", "{", "[1,", "\"unterminated", "]"] {
            assert_eq!(valid_value_end(broken.as_bytes(), 0), None, "{broken:?}");
        }
    }

    #[test]
    fn nested_value_end_leaves_the_outer_levels_their_share_of_max_depth() {
        let deep = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        for nesting in [0, 1, 4] {
            let fits = deep(MAX_DEPTH - nesting);
            let end = Some(fits.len());
            assert_eq!(
                nested_value_end(fits.as_bytes(), 0, nesting),
                end,
                "{nesting}"
            );
            let deeper = deep(MAX_DEPTH - nesting + 1);
            assert_eq!(
                nested_value_end(deeper.as_bytes(), 0, nesting),
                None,
                "{nesting}"
            );
        }
        // A container's end is found with outer levels open (they are not closed by the value).
        assert_eq!(nested_value_end(br#"{"a":[1]},"b""#, 0, 3), Some(9));
        assert_eq!(nested_value_end(b"]", 0, 3), None);
    }

    #[test]
    fn value_end_stops_after_the_first_value() {
        assert_eq!(value_end(b"{\"a\":1} trailing", 0), Some(7));
        assert_eq!(value_end(b"  [1] ", 0), Some(5));
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused() {
        for n in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
                let text = format!("{}1{}", open.repeat(n), close.repeat(n));
                let (ours, _) = valid(&text);
                assert_eq!(ours, n <= MAX_DEPTH, "depth {n}");
            }
        }
    }

    #[test]
    fn members_and_elements_are_visited_with_their_spans() {
        let text = br#"{"type":"ADDED", "obj\u0065ct" : {"a":[1, 2]} }"#;
        let mut seen = Vec::new();
        let end = for_each_member(text, 0, |key, at| {
            let end = value_end(text, at)?;
            // Keys come as written, escapes and all.
            seen.push((
                String::from_utf8_lossy(key).into_owned(),
                String::from_utf8_lossy(&text[at..end]).into_owned(),
            ));
            Some(end)
        });
        assert_eq!(end, Some(text.len()));
        assert_eq!(
            seen,
            [
                ("type".to_owned(), r#""ADDED""#.to_owned()),
                (r"obj\u0065ct".to_owned(), r#"{"a":[1, 2]}"#.to_owned())
            ]
        );
        let mut starts = Vec::new();
        let end = for_each_element(b"[ 1 , \"x\" ]", 0, |at| {
            starts.push(at);
            value_end(b"[ 1 , \"x\" ]", at)
        });
        assert_eq!((end, starts), (Some(11), vec![2, 6]));
        assert_eq!(
            for_each_member(b"{\"a\":1,}", 0, |_, at| value_end(b"{\"a\":1,}", at)),
            None
        );
        assert_eq!(
            for_each_element(b"[1,]", 0, |at| value_end(b"[1,]", at)),
            None
        );
    }

    #[test]
    fn strings_are_borrowed_unless_escaped_and_null_is_none() {
        let (plain, end) = string_at(br#""web-1","#, 0).unwrap();
        assert!(matches!(plain, Some(Cow::Borrowed("web-1"))));
        assert_eq!(end, 7);
        let (escaped, _) = string_at(br#""a\"b\u00e9""#, 0).unwrap();
        assert_eq!(escaped.as_deref(), Some("a\"bé"));
        assert_eq!(string_at(b"null", 0), Some((None, 4)));
        assert_eq!(string_at(b"12", 0), None);
    }
}
