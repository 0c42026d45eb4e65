//! Canonical JSON: bytes exactly as serde_json writes a `serde_json::Value` (no whitespace,
//! object keys sorted and unique, serde_json's string escapes and number forms), so that reading
//! them into a `Value` and writing it back gives the same bytes. Every object the store holds is
//! canonical; an update given as canonical bytes can therefore be spliced instead of going
//! through a parse/serialise round trip.
//!
//! [`Layout::scan`] checks that a document is a canonical object and records where the members
//! of its top two levels are. [`Layout::scan_against`] does the same for a document that mostly
//! repeats another canonical one (an update of a stored object): members whose bytes equal the
//! other document's are compared, not scanned.

use std::borrow::Cow;
use std::cmp::Ordering;

/// Deeper nesting is not scanned: the document counts as not canonical (serde_json itself
/// refuses 128 levels).
const MAX_DEPTH: usize = 100;

/// A byte range of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// `start..end`; None past 4 GiB.
    pub fn new(start: usize, end: usize) -> Option<Span> {
        Some(Span {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
        })
    }

    /// The bytes of the span in `document` (empty when out of range).
    pub fn of(self, document: &[u8]) -> &[u8] {
        document
            .get(self.start as usize..self.end as usize)
            .unwrap_or_default()
    }

    /// Where the span starts.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// Where the span ends.
    pub fn end(self) -> usize {
        self.end as usize
    }

    /// The span moved by `delta` bytes.
    fn shifted(self, delta: i64) -> Option<Span> {
        let shift = |at: u32| u32::try_from(i64::from(at) + delta).ok();
        Some(Span {
            start: shift(self.start)?,
            end: shift(self.end)?,
        })
    }
}

/// One object member: where its key (inside the quotes, escaped) and its value are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The key.
    pub key: Span,
    /// The value.
    pub value: Span,
}

impl Member {
    /// The member moved by `delta` bytes.
    pub fn shifted(self, delta: i64) -> Option<Member> {
        Some(Member {
            key: self.key.shifted(delta)?,
            value: self.value.shifted(delta)?,
        })
    }
}

/// Marks an [`Entry`] of a nested member.
const NESTED: u32 = u32::MAX;

/// A member of the top two levels of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    member: Member,
    /// For a top-level member: how many of the entries just before it are the members of its
    /// value. [`NESTED`] for those.
    children: u32,
}

/// Where the members of a canonical object's top two levels are (positions only: the document
/// is kept elsewhere).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// In document order, each top-level member after its value's members.
    entries: Vec<Entry>,
}

impl Layout {
    /// The layout of `document` when it is one canonical JSON object and nothing else; None
    /// when it is not (invalid or merely not canonical JSON).
    pub fn scan(document: &[u8]) -> Option<Layout> {
        Scanner::new(document, None).run()
    }

    /// [`Layout::scan`] of a document likely to repeat much of `reference` (canonical, with
    /// layout `reference_layout`): a member of the top two levels whose bytes equal the
    /// reference's member of the same key is known canonical without being scanned.
    pub fn scan_against(
        document: &[u8],
        reference: &[u8],
        reference_layout: &Layout,
    ) -> Option<Layout> {
        Scanner::new(document, Some((reference, reference_layout))).run()
    }

    /// The index of the entry of top-level member `key`.
    fn position(&self, document: &[u8], key: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.children != NESTED && e.member.key.of(document) == key.as_bytes())
    }

    /// The entries of the members of the value of the top-level member at entry `index`.
    fn children_of(&self, index: usize) -> &[Entry] {
        let Some(entry) = self.entries.get(index) else {
            return &[];
        };
        let first = index.saturating_sub(entry.children as usize);
        self.entries.get(first..index).unwrap_or_default()
    }

    /// The layout after the value of top-level member `key` became `value` with members
    /// `members` (positions in the new document), what follows moving by the change of length.
    pub fn with_replaced_value(
        mut self,
        document: &[u8],
        key: &str,
        value: Span,
        members: &[Member],
    ) -> Option<Layout> {
        let index = self.position(document, key)?;
        let entry = *self.entries.get(index)?;
        let first = index.checked_sub(entry.children as usize)?;
        let delta = i64::from(value.end) - i64::from(entry.member.value.end);
        let nested = members.iter().map(|&member| Entry {
            member,
            children: NESTED,
        });
        self.entries.splice(first..index, nested);
        let index = first + members.len();
        let replaced = self.entries.get_mut(index)?;
        replaced.member.value = value;
        replaced.children = u32::try_from(members.len()).ok()?;
        for later in self.entries.get_mut(index + 1..)? {
            later.member = later.member.shifted(delta)?;
        }
        Some(self)
    }
}

/// A canonical document with its layout, for reading members.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// The bytes.
    pub bytes: &'a [u8],
    /// Where its members are.
    pub layout: &'a Layout,
}

impl<'a> Document<'a> {
    /// The top-level member `key`.
    pub fn member(&self, key: &str) -> Option<Member> {
        let index = self.layout.position(self.bytes, key)?;
        self.layout.entries.get(index).map(|e| e.member)
    }

    /// The value of top-level member `key`.
    pub fn value(&self, key: &str) -> Option<&'a [u8]> {
        self.member(key).map(|m| m.value.of(self.bytes))
    }

    /// The members of the value of top-level member `parent` (none unless it is an object).
    pub fn members(&self, parent: &str) -> Members<'a> {
        let layout: &'a Layout = self.layout;
        let entries = layout
            .position(self.bytes, parent)
            .map(|index| layout.children_of(index))
            .unwrap_or_default();
        Members {
            bytes: self.bytes,
            entries,
        }
    }

    /// The value of member `key` of the value of top-level member `parent`.
    pub fn nested_value(&self, parent: &str, key: &str) -> Option<&'a [u8]> {
        self.members(parent).get(key)
    }
}

/// The members of an object value of the top level of a document.
#[derive(Debug, Clone, Copy)]
pub struct Members<'a> {
    bytes: &'a [u8],
    entries: &'a [Entry],
}

impl<'a> Members<'a> {
    /// The value of member `key`.
    pub fn get(&self, key: &str) -> Option<&'a [u8]> {
        let bytes = self.bytes;
        self.entries
            .iter()
            .find(|e| e.member.key.of(bytes) == key.as_bytes())
            .map(|e| e.member.value.of(bytes))
    }

    /// The members in key order.
    pub fn iter(&self) -> impl Iterator<Item = Member> + 'a {
        self.entries.iter().map(|e| e.member)
    }
}

/// The text of a canonical JSON string value; None when the value is not a string.
pub fn string(raw: &[u8]) -> Option<Cow<'_, str>> {
    let inner = JsonString::new(raw)?.inner();
    if has_escape(inner) {
        return serde_json::from_slice::<String>(raw).ok().map(Cow::Owned);
    }
    std::str::from_utf8(inner).ok().map(Cow::Borrowed)
}

/// Whether the bytes of a canonical JSON string (inside the quotes) have an escape.
pub fn has_escape(inner: &[u8]) -> bool {
    inner.contains(&b'\\')
}

/// A JSON string value of a canonical document, quotes included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonString<'a>(&'a [u8]);

impl<'a> JsonString<'a> {
    /// `raw` when it is a string (quoted).
    pub fn new(raw: &'a [u8]) -> Option<Self> {
        (raw.len() >= 2 && raw.starts_with(b"\"") && raw.ends_with(b"\""))
            .then_some(JsonString(raw))
    }

    fn inner(self) -> &'a [u8] {
        self.0
            .get(1..self.0.len().saturating_sub(1))
            .unwrap_or_default()
    }

    /// Appends the string's text (its UTF-8 bytes, unescaped); false when it does not read
    /// as a JSON string.
    pub fn append_text(self, out: &mut Vec<u8>) -> bool {
        let inner = self.inner();
        if !has_escape(inner) {
            out.extend_from_slice(inner);
            return true;
        }
        serde_json::from_slice::<String>(self.0)
            .map(|text| out.extend_from_slice(text.as_bytes()))
            .is_ok()
    }
}

/// The members of a canonical JSON object whose values are all strings, in key order; None
/// when it is not such an object.
pub fn string_members(object: &[u8]) -> Option<Vec<(JsonString<'_>, JsonString<'_>)>> {
    let mut members = Vec::new();
    let mut rest = object.strip_prefix(b"{")?;
    if rest == b"}" {
        return Some(members);
    }
    loop {
        let (key, after) = split_string(rest)?;
        let (value, after) = split_string(after.strip_prefix(b":")?)?;
        members.push((JsonString(key), JsonString(value)));
        match after.split_first()? {
            (b',', more) => rest = more,
            (b'}', []) => return Some(members),
            _ => return None,
        }
    }
}

/// The JSON string `raw` starts with (quotes included) and what follows it.
fn split_string(raw: &[u8]) -> Option<(&[u8], &[u8])> {
    if raw.first() != Some(&b'"') {
        return None;
    }
    let mut at = 1;
    loop {
        match raw.get(at)? {
            b'"' => return Some(raw.split_at(at + 1)),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// Appends `text` as a canonical JSON string.
pub fn push_string(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

/// The order of two object keys given as their escaped bytes (inside the quotes): byte order
/// when neither has an escape, else the order of their texts.
pub fn key_order(first: &[u8], second: &[u8]) -> Ordering {
    if !has_escape(first) && !has_escape(second) {
        return plain_key_order(first, second);
    }
    let text = |key: &[u8]| {
        let mut quoted = Vec::with_capacity(key.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(key);
        quoted.push(b'"');
        serde_json::from_slice::<String>(&quoted).unwrap_or_default()
    };
    text(first).cmp(&text(second))
}

/// The order of two keys without escapes.
pub fn plain_key_order(first: &[u8], second: &[u8]) -> Ordering {
    // Most neighbouring keys differ in their first byte: no memcmp call then.
    match first.first().cmp(&second.first()) {
        Ordering::Equal => first.cmp(second),
        order => order,
    }
}

/// The high bit of every byte of a word (non-ASCII bytes have it).
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// High bit set in the first byte of `word` (little-endian) that is `"`, `\` or a control
/// character; bytes above it may be flagged falsely. Zero: eight plain string bytes. (The
/// informer's scanner has the same word test; the two crates share no code by design.)
#[inline]
fn string_specials(word: u64) -> u64 {
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let quotes = has_zero(word ^ (ONES * u64::from(b'"')));
    let backslashes = has_zero(word ^ (ONES * u64::from(b'\\')));
    let controls = word.wrapping_sub(ONES * 0x20) & !word;
    (quotes | backslashes | controls) & HIGH
}

/// An object key as scanned: where it is (inside the quotes) and whether it has escapes.
#[derive(Clone, Copy)]
struct Key {
    span: (usize, usize),
    escaped: bool,
}

/// Whose members a scanned object's members are, and the reference members to compare them
/// with.
#[derive(Clone, Copy)]
enum Level<'r> {
    /// The document itself.
    Top,
    /// The value of a top-level member; the reference's entries of the same value.
    Nested(&'r [Entry]),
    /// Anything deeper: not recorded, never compared.
    Deeper,
}

/// A one-pass recursive checker; every method returns None as soon as the input is not
/// canonical.
struct Scanner<'a, 'r> {
    bytes: &'a [u8],
    pos: usize,
    reference: Option<(&'r [u8], &'r Layout)>,
    layout: Layout,
}

impl<'a, 'r> Scanner<'a, 'r> {
    fn new(bytes: &'a [u8], reference: Option<(&'r [u8], &'r Layout)>) -> Self {
        Scanner {
            bytes,
            pos: 0,
            reference,
            layout: Layout {
                entries: Vec::with_capacity(reference.map_or(32, |(_, l)| l.entries.len() + 4)),
            },
        }
    }

    fn run(mut self) -> Option<Layout> {
        if self.peek() != Some(b'{') || u32::try_from(self.bytes.len()).is_err() {
            return None;
        }
        self.object(1, Level::Top)?;
        (self.pos == self.bytes.len()).then_some(self.layout)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.pos += usize::from(found);
        found
    }

    fn value(&mut self, depth: usize, level: Level<'r>) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1, level),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => None,
        }
    }

    /// An object at `pos` whose members belong to `level`.
    fn object(&mut self, depth: usize, level: Level<'r>) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.eat(b'}') {
            return Some(());
        }
        let guide = match level {
            Level::Top => self.reference.map_or(&[][..], |(_, l)| &l.entries),
            Level::Nested(entries) => entries,
            Level::Deeper => &[],
        };
        let top = matches!(level, Level::Top);
        let mut cursor = 0;
        let mut previous: Option<Key> = None;
        loop {
            let first_child = self.layout.entries.len();
            let (key, start) = match self.repeated_member(guide, top, &mut cursor) {
                Some(repeated) => repeated,
                None => {
                    let key = self.key()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let start = self.pos;
                    let counterpart = self.counterpart(guide, top, &mut cursor, key);
                    self.member_value(depth, level, counterpart)?;
                    (key, start)
                }
            };
            if previous.is_some_and(|p| !self.in_order(p, key)) {
                return None;
            }
            let member = Member {
                key: Span::new(key.span.0, key.span.1)?,
                value: Span::new(start, self.pos)?,
            };
            self.record(level, member, first_child)?;
            previous = Some(key);
            if !self.eat(b',') {
                return self.eat(b'}').then_some(());
            }
        }
    }

    /// Passes the member at `pos` when it repeats, key and value, the next member of the guide
    /// (reference entries at the `top` level or of one value); its key and where its value
    /// starts.
    fn repeated_member(
        &mut self,
        guide: &[Entry],
        top: bool,
        cursor: &mut usize,
    ) -> Option<(Key, usize)> {
        let (reference, layout) = self.reference?;
        let index = (*cursor..guide.len()).find(|&i| !top || guide[i].children != NESTED)?;
        let theirs = guide.get(index)?.member;
        let from = theirs.key.start().checked_sub(1)?;
        let whole = reference.get(from..theirs.value.end())?;
        let rest = &self.bytes[self.pos..];
        if !matches!(rest.get(whole.len()), Some(b',' | b'}')) || !rest.starts_with(whole) {
            return None;
        }
        let delta = self.pos as i64 - from as i64;
        if top {
            for child in layout.children_of(index) {
                self.layout.entries.push(Entry {
                    member: child.member.shifted(delta)?,
                    children: NESTED,
                });
            }
        }
        let key = theirs.key.shifted(delta)?;
        let escaped = has_escape(key.of(self.bytes));
        let start = theirs.value.shifted(delta)?.start();
        self.pos += whole.len();
        *cursor = index + 1;
        Some((
            Key {
                span: (key.start(), key.end()),
                escaped,
            },
            start,
        ))
    }

    /// The value of a member at `pos`: skipped when it repeats its counterpart (the reference
    /// entry of the same key, by index into the guide of `level`), else scanned.
    fn member_value(
        &mut self,
        depth: usize,
        level: Level<'r>,
        counterpart: Option<usize>,
    ) -> Option<()> {
        let Some(((reference, layout), index)) = self.reference.zip(counterpart) else {
            let inner = match level {
                Level::Top => Level::Nested(&[]),
                Level::Nested(_) | Level::Deeper => Level::Deeper,
            };
            return self.value(depth, inner);
        };
        let (theirs, children) = match level {
            Level::Top => (layout.entries.get(index)?, layout.children_of(index)),
            Level::Nested(entries) => (entries.get(index)?, &[][..]),
            Level::Deeper => return self.value(depth, Level::Deeper),
        };
        let repeated = theirs.member.value.of(reference);
        let rest = &self.bytes[self.pos..];
        // The cheap test first: a value of another length rarely ends where this one would.
        if matches!(rest.get(repeated.len()), Some(b',' | b'}')) && rest.starts_with(repeated) {
            let delta = self.pos as i64 - i64::from(theirs.member.value.start);
            self.pos += repeated.len();
            for child in children {
                self.layout.entries.push(Entry {
                    member: child.member.shifted(delta)?,
                    children: NESTED,
                });
            }
            return Some(());
        }
        let inner = match level {
            Level::Top => Level::Nested(children),
            Level::Nested(_) | Level::Deeper => Level::Deeper,
        };
        self.value(depth, inner)
    }

    /// Moves `cursor` through `guide` (reference entries in key order; at the `top` level the
    /// nested ones are passed over) past keys before `key`; the index of the entry with key
    /// `key`, if there is one.
    fn counterpart(
        &self,
        guide: &[Entry],
        top: bool,
        cursor: &mut usize,
        key: Key,
    ) -> Option<usize> {
        let (reference, _) = self.reference?;
        let ours = &self.bytes[key.span.0..key.span.1];
        while let Some(entry) = guide.get(*cursor) {
            if top && entry.children == NESTED {
                *cursor += 1;
                continue;
            }
            let theirs = entry.member.key.of(reference);
            let order = if theirs == ours {
                Ordering::Equal
            } else {
                key_order(theirs, ours)
            };
            match order {
                Ordering::Less => *cursor += 1,
                Ordering::Equal => {
                    *cursor += 1;
                    return Some(*cursor - 1);
                }
                Ordering::Greater => return None,
            }
        }
        None
    }

    fn record(&mut self, level: Level<'r>, member: Member, first_child: usize) -> Option<()> {
        let children = match level {
            Level::Top => u32::try_from(self.layout.entries.len() - first_child).ok()?,
            Level::Nested(_) => NESTED,
            Level::Deeper => return Some(()),
        };
        self.layout.entries.push(Entry { member, children });
        Some(())
    }

    /// Whether key `first` sorts strictly before key `second`.
    fn in_order(&self, first: Key, second: Key) -> bool {
        let a = &self.bytes[first.span.0..first.span.1];
        let b = &self.bytes[second.span.0..second.span.1];
        if first.escaped || second.escaped {
            return key_order(a, b).is_lt();
        }
        plain_key_order(a, b).is_lt()
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.eat(b']') {
            return Some(());
        }
        loop {
            self.value(depth, Level::Deeper)?;
            if !self.eat(b',') {
                return self.eat(b']').then_some(());
            }
        }
    }

    fn key(&mut self) -> Option<Key> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.pos + 1;
        let escaped = self.string()?;
        Some(Key {
            span: (start, self.pos - 1),
            escaped,
        })
    }

    /// A string at `pos`; whether it has escapes.
    fn string(&mut self) -> Option<bool> {
        self.pos += 1;
        let start = self.pos;
        let mut ascii = true;
        let mut escaped = false;
        loop {
            ascii &= self.skip_plain();
            match self.peek()? {
                b'"' => break,
                b'\\' => {
                    self.escape()?;
                    escaped = true;
                }
                // A raw control character: not even valid JSON.
                _ => return None,
            }
        }
        if !ascii {
            std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
        }
        self.pos += 1;
        Some(escaped)
    }

    /// Moves to the next quote, backslash or control character, eight bytes at a time while
    /// it can; false when it may have passed a non-ASCII byte.
    fn skip_plain(&mut self) -> bool {
        let mut high = 0;
        while let Some(chunk) = self.bytes.get(self.pos..self.pos + 8) {
            let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
                break;
            };
            let word = u64::from_le_bytes(chunk);
            high |= word;
            let special = string_specials(word);
            if special != 0 {
                // The lowest flagged byte is exact (only bytes above it can be false alarms).
                self.pos += special.trailing_zeros() as usize / 8;
                return high & HIGH == 0;
            }
            self.pos += 8;
        }
        while let Some(b) = self
            .peek()
            .filter(|b| *b != b'"' && *b != b'\\' && *b >= 0x20)
        {
            high |= u64::from(b);
            self.pos += 1;
        }
        high & HIGH == 0
    }

    /// An escape serde_json writes: `\"`, `\\`, the short control escapes, or `\u00XX` (lower
    /// case hex) for the other control characters.
    fn escape(&mut self) -> Option<()> {
        match self.bytes.get(self.pos + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.pos += 2;
                Some(())
            }
            b'u' => {
                let digits = self.bytes.get(self.pos + 2..self.pos + 6)?;
                let hex = |b: u8| match b {
                    b'0'..=b'9' => Some(b - b'0'),
                    b'a'..=b'f' => Some(b - b'a' + 10),
                    _ => None,
                };
                let high = hex(digits[2]).filter(|h| *h < 2)?;
                let code = high * 16 + hex(digits[3])?;
                let short = matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
                (digits[..2] == *b"00" && !short).then_some(())?;
                self.pos += 6;
                Some(())
            }
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.bytes[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        Some(())
    }

    /// A number: an integer serde_json keeps as one (u64, or i64 below zero), or a float
    /// exactly as serde_json writes it back.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let negative = self.eat(b'-');
        let digits = self.pos;
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.skip_digits(),
            _ => return None,
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return self.float(start);
        }
        canonical_integer(negative, &self.bytes[digits..self.pos]).then_some(())
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    /// The rest of a number with a fraction or exponent, checked by writing it back.
    fn float(&mut self, start: usize) -> Option<()> {
        if self.eat(b'.') {
            self.required_digits()?;
        }
        if self.eat(b'e') || self.eat(b'E') {
            let _sign = self.eat(b'-') || self.eat(b'+');
            self.required_digits()?;
        }
        let text = &self.bytes[start..self.pos];
        let number: serde_json::Value = serde_json::from_slice(text).ok()?;
        (serde_json::to_vec(&number).ok()? == text).then_some(())
    }

    fn required_digits(&mut self) -> Option<()> {
        let start = self.pos;
        self.skip_digits();
        (self.pos > start).then_some(())
    }
}

/// Whether digits (no sign, no leading zero) are an integer serde_json parses as an integer and
/// writes back the same: up to `u64::MAX`, or down to `i64::MIN` (but `-0`, a float to it).
fn canonical_integer(negative: bool, digits: &[u8]) -> bool {
    let magnitude = digits.iter().try_fold(0u64, |n, d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    });
    match (negative, magnitude) {
        (false, Some(_)) => true,
        (true, Some(m)) => (1..=1 << 63).contains(&m),
        (_, None) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn canonical(text: &str) -> bool {
        Layout::scan(text.as_bytes()).is_some()
    }

    #[test]
    fn serde_json_output_is_canonical() {
        let value = json!({"b": [1, -2, 3.5, 1e300, -0.0, null, true, false, "x\"\\\n\u{1}é"],
            "a": {"z": {}, "y": [], "": u64::MAX, "m": i64::MIN}});
        let bytes = serde_json::to_vec(&value).unwrap_or_default();
        assert!(Layout::scan(&bytes).is_some());
    }

    #[test]
    fn anything_serde_json_would_write_differently_is_not() {
        for text in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a": 1}"#,
            r#"{"a":1} "#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a\/":1}"#,
            r#"{"b":1,"a\"":2}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":1.50}"#,
            r#"{"a":1E3}"#,
            r#"{"a":18446744073709551616}"#,
            r#"{"a":-9223372036854775809}"#,
            r#"{"a":tru}"#,
            r#"[1]"#,
            r#"{"a":1"#,
        ] {
            assert!(!canonical(text), "{text}");
        }
        assert!(canonical(
            r#"{"a":"\u001f\t","b":-9223372036854775808,"c":1.5}"#
        ));
    }

    #[test]
    fn the_top_two_levels_are_recorded() {
        let text = r#"{"kind":"Pod","metadata":{"labels":{"a":"b"},"name":"web"},"spec":[1]}"#;
        let layout = Layout::scan(text.as_bytes()).unwrap_or_default();
        let document = Document {
            bytes: text.as_bytes(),
            layout: &layout,
        };
        assert_eq!(document.value("kind"), Some(&br#""Pod""#[..]));
        assert_eq!(
            document.nested_value("metadata", "name"),
            Some(&br#""web""#[..])
        );
        assert_eq!(
            document.nested_value("metadata", "labels"),
            Some(&br#"{"a":"b"}"#[..])
        );
        assert_eq!(document.members("metadata").iter().count(), 2);
        assert_eq!(document.members("spec").iter().count(), 0);
        assert_eq!(document.nested_value("labels", "a"), None);
        assert_eq!(string(br#""a\"b""#).as_deref(), Some("a\"b"));
        assert_eq!(string(b"1"), None);
        let labels = string_members(br#"{"a":"b","c\"":"d\\"}"#).unwrap_or_default();
        let texts: Vec<String> = labels
            .iter()
            .flat_map(|(k, v)| [k, v])
            .map(|s| {
                let mut text = Vec::new();
                assert!(s.append_text(&mut text));
                String::from_utf8_lossy(&text).into_owned()
            })
            .collect();
        assert_eq!(texts, ["a", "b", "c\"", "d\\"]);
        assert_eq!(string_members(b"{}").map(|m| m.len()), Some(0));
        assert_eq!(string_members(br#"{"a":1}"#), None);
    }

    #[test]
    fn a_replaced_value_moves_what_follows() {
        let before = r#"{"a":1,"metadata":{"name":"x"},"spec":{"b":2,"c":[3]}}"#;
        let after = r#"{"a":1,"metadata":{"labels":{},"name":"xyz"},"spec":{"b":2,"c":[3]}}"#;
        let layout = Layout::scan(before.as_bytes()).unwrap_or_default();
        let expected = Layout::scan(after.as_bytes()).unwrap_or_default();
        let document = Document {
            bytes: after.as_bytes(),
            layout: &expected,
        };
        let members: Vec<Member> = document.members("metadata").iter().collect();
        let replaced = document.member("metadata").and_then(|metadata| {
            layout.with_replaced_value(before.as_bytes(), "metadata", metadata.value, &members)
        });
        assert_eq!(replaced.as_ref(), Some(&expected));
    }

    fn key() -> impl Strategy<Value = String> {
        "[a-c\"\\\\\\x00-\\x1f]{0,2}|\\PC{0,3}"
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "\\PC{0,8}|[\\x00-\\x1f\"\\\\a]{0,4}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map(key(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Tokens that glue into valid and invalid, canonical and non-canonical JSON.
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\"a\"",
        "\"b\"",
        "\"a\\\"\"",
        "\"\\\\\"",
        "\"\\n\"",
        "\"\\u000a\"",
        "\"\\u001f\"",
        "\"\\/\"",
        "\"é\"",
        "0",
        "-0",
        "7",
        "-7",
        "0.5",
        "1.0",
        "1e5",
        "1E+5",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "true",
        "false",
        "null",
        "nul",
    ];

    proptest! {
        #[test]
        fn serde_json_objects_scan_as_canonical(value in json_value()) {
            let object = json!({"x": value});
            let bytes = serde_json::to_vec(&object).unwrap_or_default();
            // serde_json may read back a float it wrote as a neighbour: then not canonical.
            let written_back = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|v| serde_json::to_vec(&v).ok());
            prop_assert_eq!(Layout::scan(&bytes).is_some(), written_back == Some(bytes));
        }

        #[test]
        fn canonical_bytes_are_exactly_what_serde_json_writes_back(
            tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..12)
        ) {
            let text = format!("{{\"a\":{}}}", tokens.concat());
            let written_back = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| serde_json::to_string(&v).ok());
            prop_assert_eq!(Layout::scan(text.as_bytes()).is_some(), written_back == Some(text));
        }

        #[test]
        fn scanning_against_a_reference_finds_what_scanning_alone_finds(
            reference in prop::collection::btree_map(key(), json_value(), 0..5),
            changed in prop::collection::btree_map(key(), json_value(), 0..3),
            insert in (any::<prop::sample::Index>(), prop::sample::select(&b" 1\"\\x{}"[..])),
        ) {
            let reference = Value::Object(reference.into_iter().collect());
            let mut document = reference.clone();
            if let Some(map) = document.as_object_mut() {
                for (key, value) in changed {
                    match (map.get_mut(&key), value) {
                        (Some(Value::Object(ours)), Value::Object(theirs)) => ours.extend(theirs),
                        (_, value) => drop(map.insert(key, value)),
                    }
                }
            }
            let reference = serde_json::to_vec(&reference).unwrap_or_default();
            let mut document = serde_json::to_vec(&document).unwrap_or_default();
            if let Some(reference_layout) = Layout::scan(&reference) {
                for mutate in [false, true] {
                    if mutate {
                        document.insert(insert.0.index(document.len()), insert.1);
                    }
                    prop_assert_eq!(
                        Layout::scan_against(&document, &reference, &reference_layout),
                        Layout::scan(&document)
                    );
                }
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic_the_scanner(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let _ = Layout::scan(&bytes);
        }
    }
}
