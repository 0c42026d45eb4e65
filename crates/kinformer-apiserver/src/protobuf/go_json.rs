//! A protobuf message written straight from the wire as the JSON bytes kube-apiserver's Go
//! types give under `encoding/json` (the JSON an answer in `application/json` holds): keys in
//! the Go struct's field order (the descriptor table's order), `omitempty` and `omitzero` as
//! Go applies them, `null` for a nil slice, map or pointer that has no `omitempty`, map keys
//! sorted, strings escaped as Go escapes them (`<`, `>`, `&`, U+2028/9 as `\u…`, invalid UTF-8
//! as U+FFFD), numbers as Go formats them, and the messages that marshal themselves (`Time`,
//! `Quantity`, `FieldsV1`, …) in their own form. No tree is built: one pass per message
//! collects its fields (they may come in any order), then the JSON is written in struct order.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;

use super::DecodeError;
use super::compiled::{self, Compiled, Field, Special};
use super::table::Ty;
use super::wire::{self, Wire};

/// How deep messages may nest (JSONSchemaProps nests itself): deeper is malformed.
const MAX_DEPTH: usize = 100;

fn malformed(why: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(why.into())
}

/// Writes JSON into `out`; `scratch` holds the fields of the messages being written.
pub struct Writer<'a> {
    pub out: Vec<u8>,
    scratch: Vec<(u16, Wire<'a>)>,
    entries: Vec<(&'a [u8], Option<Wire<'a>>)>,
}

impl<'a> Writer<'a> {
    pub fn new(capacity: usize) -> Self {
        Writer {
            out: Vec::with_capacity(capacity),
            scratch: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The message (index `message`) in `bytes` as a JSON value.
    pub fn message(
        &mut self,
        message: usize,
        bytes: &'a [u8],
        depth: usize,
    ) -> Result<(), DecodeError> {
        if depth > MAX_DEPTH {
            return Err(malformed(format!("messages nest deeper than {MAX_DEPTH}")));
        }
        let compiled = &compiled::all()[message];
        if let Some(special) = compiled.special {
            return self.special(special, compiled, bytes, depth);
        }
        if compiled.message.items_wrapper {
            return self.items_wrapper(compiled, bytes, depth);
        }
        self.out.push(b'{');
        let mut first = true;
        self.fields(compiled, bytes, depth, &mut first)?;
        self.out.push(b'}');
        Ok(())
    }

    /// An object: `{"kind":…,"apiVersion":…,` then the message's fields (TypeMeta comes first
    /// in every kind's struct).
    pub fn object(
        &mut self,
        message: usize,
        api_version: &str,
        kind: &str,
        bytes: &'a [u8],
        depth: usize,
    ) -> Result<(), DecodeError> {
        self.out.push(b'{');
        let mut first = true;
        for (key, value) in [
            (&b"\"kind\":"[..], kind),
            (&b"\"apiVersion\":"[..], api_version),
        ] {
            if !value.is_empty() {
                self.key(&mut first, key);
                string(&mut self.out, value.as_bytes());
            }
        }
        self.fields(&compiled::all()[message], bytes, depth, &mut first)?;
        self.out.push(b'}');
        Ok(())
    }

    fn key(&mut self, first: &mut bool, key: &[u8]) {
        if !*first {
            self.out.push(b',');
        }
        *first = false;
        self.out.extend_from_slice(key);
    }

    /// The message's fields as members of the object being written (an embedded Go struct's
    /// fields are its parent's).
    fn fields(
        &mut self,
        compiled: &Compiled,
        bytes: &'a [u8],
        depth: usize,
        first: &mut bool,
    ) -> Result<(), DecodeError> {
        let base = self.scratch.len();
        let mut input = bytes;
        while !input.is_empty() {
            let (number, value) = wire::field(&mut input)?;
            // Unknown fields are skipped, as gogo-protobuf's Unmarshal skips them.
            if let Some(index) = compiled.field_index(number) {
                let index = u16::try_from(index).map_err(|_| malformed("too many fields"))?;
                self.scratch.push((index, value));
            }
        }
        self.scratch[base..].sort_by_key(|(index, _)| *index);
        let end = self.scratch.len();
        let mut at = base;
        for (index, field) in compiled.fields.iter().enumerate() {
            let start = at;
            while at < end && usize::from(self.scratch[at].0) == index {
                at += 1;
            }
            if start == at {
                if field.null_when_absent && !field.key.is_empty() {
                    self.key(first, &field.key);
                    self.out.extend_from_slice(b"null");
                }
                continue;
            }
            self.field(field, start..at, depth, first)?;
        }
        self.scratch.truncate(base);
        Ok(())
    }

    /// One field present on the wire (its occurrences are `scratch[range]`).
    fn field(
        &mut self,
        field: &Field,
        range: std::ops::Range<usize>,
        depth: usize,
        first: &mut bool,
    ) -> Result<(), DecodeError> {
        let spec = field.spec;
        if let Ty::Map(value_ty) = &spec.ty {
            self.key(first, &field.key);
            return self.map(field, value_ty, range, depth);
        }
        if spec.repeated {
            self.key(first, &field.key);
            return self.array(field, range, depth);
        }
        // The last occurrence of a singular field wins (a message's occurrences would merge;
        // Go's marshallers never repeat one).
        let value = self.scratch[range.end - 1].1;
        if let (Some(message), Wire::Bytes(bytes)) = (field.message, value) {
            if field.key.is_empty() {
                let inner = &compiled::all()[message];
                return self.fields(inner, bytes, depth + 1, first);
            }
            let zero_time = bytes.is_empty()
                && matches!(
                    compiled::all()[message].special,
                    Some(Special::Time | Special::MicroTime)
                );
            if zero_time && spec.omitzero {
                return Ok(());
            }
            self.key(first, &field.key);
            return self.message(message, bytes, depth + 1);
        }
        if !spec.keep_zero && is_zero(&spec.ty, value) {
            return Ok(());
        }
        self.key(first, &field.key);
        self.scalar(&spec.ty, value, field)
    }

    fn array(
        &mut self,
        field: &Field,
        range: std::ops::Range<usize>,
        depth: usize,
    ) -> Result<(), DecodeError> {
        self.out.push(b'[');
        let mut first = true;
        for at in range {
            let value = self.scratch[at].1;
            match (field.message, &field.spec.ty, value) {
                (Some(message), _, Wire::Bytes(bytes)) => {
                    self.comma(&mut first);
                    self.message(message, bytes, depth + 1)?;
                }
                (None, Ty::String | Ty::Bytes, _) => {
                    self.comma(&mut first);
                    self.scalar(&field.spec.ty, value, field)?;
                }
                (None, ty, Wire::Bytes(mut packed)) => {
                    while !packed.is_empty() {
                        let item = packed_item(ty, &mut packed)?;
                        self.comma(&mut first);
                        self.scalar(ty, item, field)?;
                    }
                }
                (None, ty, value) => {
                    self.comma(&mut first);
                    self.scalar(ty, value, field)?;
                }
                _ => return Err(wrong_wire(field)),
            }
        }
        self.out.push(b']');
        Ok(())
    }

    fn comma(&mut self, first: &mut bool) {
        if !*first {
            self.out.push(b',');
        }
        *first = false;
    }

    /// A `map<string, V>`: entries sorted by key (Go's encoding/json sorts them), the last of
    /// a repeated key winning.
    fn map(
        &mut self,
        field: &Field,
        value_ty: &Ty,
        range: std::ops::Range<usize>,
        depth: usize,
    ) -> Result<(), DecodeError> {
        let base = self.entries.len();
        for at in range {
            let Wire::Bytes(entry) = self.scratch[at].1 else {
                return Err(wrong_wire(field));
            };
            let (mut key, mut value): (&[u8], _) = (&[], None);
            let mut input = entry;
            while !input.is_empty() {
                match wire::field(&mut input)? {
                    (1, Wire::Bytes(bytes)) => key = bytes,
                    (2, wire) => value = Some(wire),
                    _ => {}
                }
            }
            self.entries.push((key, value));
        }
        let entries = &mut self.entries[base..];
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            entries.sort_by(|a, b| a.0.cmp(b.0));
        }
        self.out.push(b'{');
        let mut first = true;
        for at in base..self.entries.len() {
            let (key, value) = self.entries[at];
            if self.entries.get(at + 1).is_some_and(|next| next.0 == key) {
                continue;
            }
            self.comma(&mut first);
            string(&mut self.out, key);
            self.out.push(b':');
            match (field.message, value) {
                (Some(message), Some(Wire::Bytes(bytes))) => {
                    self.message(message, bytes, depth + 1)?
                }
                (Some(message), None) => self.message(message, &[], depth + 1)?,
                (None, Some(value)) => self.scalar(value_ty, value, field)?,
                (None, None) => self.zero(value_ty),
                (Some(_), Some(_)) => return Err(wrong_wire(field)),
            }
        }
        self.entries.truncate(base);
        self.out.push(b'}');
        Ok(())
    }

    fn zero(&mut self, ty: &Ty) {
        self.out.extend_from_slice(match ty {
            Ty::Bool => b"false",
            Ty::String | Ty::Bytes => b"\"\"",
            _ => b"0",
        });
    }

    fn scalar(&mut self, ty: &Ty, value: Wire<'_>, field: &Field) -> Result<(), DecodeError> {
        let out = &mut self.out;
        match (ty, value) {
            (Ty::String, Wire::Bytes(bytes)) => string(out, bytes),
            (Ty::Bytes, Wire::Bytes(bytes)) => {
                out.push(b'"');
                let start = out.len();
                out.resize(
                    start + base64::encoded_len(bytes.len(), true).unwrap_or(0),
                    0,
                );
                let written = BASE64_STANDARD.encode_slice(bytes, &mut out[start..]);
                out.truncate(start + written.unwrap_or(0));
                out.push(b'"');
            }
            (Ty::Bool, Wire::Varint(v)) => {
                out.extend_from_slice(if v != 0 { b"true" } else { b"false" })
            }
            (Ty::Int32, Wire::Varint(v)) => {
                out.extend_from_slice(itoa::Buffer::new().format(wire::int32(v)).as_bytes())
            }
            (Ty::Int64, Wire::Varint(v)) => {
                out.extend_from_slice(itoa::Buffer::new().format(v.cast_signed()).as_bytes())
            }
            (Ty::Double, Wire::Fixed64(v)) => float(out, f64::from_bits(v))?,
            _ => return Err(wrong_wire(field)),
        }
        Ok(())
    }

    /// A `+protobuf.nullable=true` wrapper of a Go slice (`ExtraValue`): its items array.
    fn items_wrapper(
        &mut self,
        compiled: &Compiled,
        bytes: &'a [u8],
        depth: usize,
    ) -> Result<(), DecodeError> {
        let Some(field) = compiled.fields.first() else {
            self.out.extend_from_slice(b"[]");
            return Ok(());
        };
        let base = self.scratch.len();
        let mut input = bytes;
        while !input.is_empty() {
            let (number, value) = wire::field(&mut input)?;
            if number == field.spec.number {
                self.scratch.push((0, value));
            }
        }
        let end = self.scratch.len();
        self.array(field, base..end, depth)?;
        self.scratch.truncate(base);
        Ok(())
    }

    fn special(
        &mut self,
        special: Special,
        compiled: &Compiled,
        bytes: &'a [u8],
        depth: usize,
    ) -> Result<(), DecodeError> {
        let out = &mut self.out;
        match special {
            Special::Time => super::special::write_time(out, bytes, false)?,
            Special::MicroTime => super::special::write_time(out, bytes, true)?,
            Special::Duration => {
                let text = super::special::duration(bytes)?;
                string(out, text.as_str().unwrap_or_default().as_bytes());
            }
            Special::Quantity => match super::special::bytes_field(bytes, 1)? {
                Some(text) => string(out, text),
                None => out.extend_from_slice(b"\"0\""),
            },
            Special::IntOrString => {
                if super::special::varint_field(bytes, 1)? == Some(1) {
                    string(
                        out,
                        super::special::bytes_field(bytes, 3)?.unwrap_or_default(),
                    );
                } else {
                    let int = wire::int32(super::special::varint_field(bytes, 2)?.unwrap_or(0));
                    out.extend_from_slice(itoa::Buffer::new().format(int).as_bytes());
                }
            }
            Special::RawJson => return self.raw_json(bytes, depth),
            Special::SchemaOrBool | Special::SchemaOrArray | Special::SchemaOrStringArray => {
                return self.schema_or(special, compiled, bytes, depth);
            }
        }
        Ok(())
    }

    /// Raw JSON in field 1 as Go's encoding/json copies a Marshaler's output (compacted, HTML
    /// characters escaped); `null` when empty; a nested protobuf object (magic first) decoded.
    fn raw_json(&mut self, bytes: &'a [u8], depth: usize) -> Result<(), DecodeError> {
        match super::special::bytes_field(bytes, 1)? {
            None | Some([]) => self.out.extend_from_slice(b"null"),
            Some(raw) if raw.starts_with(super::MAGIC) => {
                super::answer::nested_object(self, raw, depth + 1)?
            }
            Some(raw) => compact(&mut self.out, raw)?,
        }
        Ok(())
    }

    /// apiextensions' `JSONSchemaPropsOr*` (`types_jsonschema.go` MarshalJSON): the schema,
    /// or the bool / array beside it.
    fn schema_or(
        &mut self,
        special: Special,
        compiled: &Compiled,
        bytes: &'a [u8],
        depth: usize,
    ) -> Result<(), DecodeError> {
        let schema_number = if special == Special::SchemaOrBool {
            2
        } else {
            1
        };
        let (mut schema, mut others, mut allows) = (None, Vec::new(), false);
        let mut input = bytes;
        while !input.is_empty() {
            match wire::field(&mut input)? {
                (number, Wire::Bytes(b)) if number == schema_number => schema = Some(b),
                (1, Wire::Varint(v)) => allows = v != 0,
                (2, wire) => others.push(wire),
                _ => {}
            }
        }
        let schema_index = compiled
            .fields
            .iter()
            .find(|f| f.spec.number == schema_number)
            .and_then(|f| f.message)
            .ok_or_else(|| malformed("no schema message"))?;
        match (special, schema) {
            (Special::SchemaOrBool, Some(schema)) => self.message(schema_index, schema, depth + 1),
            (Special::SchemaOrBool, None) => {
                self.out
                    .extend_from_slice(if allows { b"true" } else { b"false" });
                Ok(())
            }
            (_, schema) if others.is_empty() => match schema {
                Some(schema) => self.message(schema_index, schema, depth + 1),
                None => {
                    self.out.extend_from_slice(b"null");
                    Ok(())
                }
            },
            _ => {
                let field = compiled
                    .fields
                    .iter()
                    .find(|f| f.spec.number == 2)
                    .ok_or_else(|| malformed("no items field"))?;
                let base = self.scratch.len();
                self.scratch.extend(others.into_iter().map(|w| (0, w)));
                let end = self.scratch.len();
                self.array(field, base..end, depth)?;
                self.scratch.truncate(base);
                Ok(())
            }
        }
    }
}

fn wrong_wire(field: &Field) -> DecodeError {
    malformed(format!("field {} has the wrong wire type", field.spec.json))
}

fn is_zero(ty: &Ty, value: Wire<'_>) -> bool {
    match (ty, value) {
        (Ty::String | Ty::Bytes, Wire::Bytes(bytes)) => bytes.is_empty(),
        (Ty::Int32, Wire::Varint(v)) => wire::int32(v) == 0,
        (_, Wire::Varint(v)) => v == 0,
        (_, Wire::Fixed64(v)) => f64::from_bits(v) == 0.0,
        _ => false,
    }
}

/// One element of a packed repeated scalar field.
fn packed_item<'a>(ty: &Ty, packed: &mut &'a [u8]) -> Result<Wire<'a>, DecodeError> {
    if !matches!(ty, Ty::Double) {
        return Ok(Wire::Varint(wire::varint(packed)?));
    }
    let (head, rest) = packed
        .split_first_chunk::<8>()
        .ok_or_else(|| malformed("a packed field is truncated"))?;
    *packed = rest;
    Ok(Wire::Fixed64(u64::from_le_bytes(*head)))
}

/// A float64 as Go's encoding/json writes it: the shortest form, in exponent form below 1e-6
/// and from 1e21 (`1e+21`, `1e-7`).
fn float(out: &mut Vec<u8>, number: f64) -> Result<(), DecodeError> {
    if !number.is_finite() {
        return Err(malformed("a number is not finite"));
    }
    let abs = number.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{number:e}");
        match text.split_once('e') {
            Some((mantissa, exponent)) if !exponent.starts_with('-') => {
                out.extend_from_slice(format!("{mantissa}e+{exponent}").as_bytes());
            }
            _ => out.extend_from_slice(text.as_bytes()),
        }
    } else {
        out.extend_from_slice(format!("{number}").as_bytes());
    }
    Ok(())
}

/// Bytes Go's encoding/json writes as they are inside a string (with HTML escaping on).
static PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte: u8 = 0x20;
    while byte < 0x80 {
        table[byte as usize] = !matches!(byte, b'"' | b'\\' | b'<' | b'>' | b'&');
        byte += 1;
    }
    table
};

/// A string as Go's encoding/json writes it.
pub fn string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    if bytes.iter().all(|b| PLAIN[usize::from(*b)]) {
        out.extend_from_slice(bytes);
    } else {
        escape(out, bytes);
    }
    out.push(b'"');
}

fn escape(out: &mut Vec<u8>, bytes: &[u8]) {
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\u{8}' => out.extend_from_slice(b"\\b"),
                '\u{c}' => out.extend_from_slice(b"\\f"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' => {
                    out.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes());
                }
                c => {
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
            }
        }
        if !chunk.invalid().is_empty() {
            out.extend_from_slice(b"\\ufffd");
        }
    }
}

/// Raw JSON compacted as Go's `json.Compact` with HTML escaping (what encoding/json does to a
/// Marshaler's output): whitespace outside strings dropped, `<`, `>`, `&`, U+2028/9 escaped.
fn compact(out: &mut Vec<u8>, raw: &[u8]) -> Result<(), DecodeError> {
    let needs_work = raw
        .iter()
        .any(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'<' | b'>' | b'&' | 0xe2));
    if !needs_work {
        out.extend_from_slice(raw);
        return Ok(());
    }
    let (mut in_string, mut escaped) = (false, false);
    let mut at = 0;
    while at < raw.len() {
        let byte = raw[at];
        at += 1;
        if !in_string {
            match byte {
                b' ' | b'\n' | b'\r' | b'\t' => {}
                b'"' => {
                    in_string = true;
                    out.push(byte);
                }
                _ => out.push(byte),
            }
            continue;
        }
        match byte {
            _ if escaped => {
                escaped = false;
                out.push(byte);
            }
            b'\\' => {
                escaped = true;
                out.push(byte);
            }
            b'"' => {
                in_string = false;
                out.push(byte);
            }
            b'<' | b'>' | b'&' => out.extend_from_slice(format!("\\u{byte:04x}").as_bytes()),
            0xe2 if raw.get(at) == Some(&0x80) && matches!(raw.get(at + 1), Some(0xa8 | 0xa9)) => {
                let last = raw[at + 1];
                at += 2;
                out.extend_from_slice(if last == 0xa8 { b"\\u2028" } else { b"\\u2029" });
            }
            _ => out.push(byte),
        }
    }
    if in_string {
        return Err(malformed("an embedded JSON value is not valid JSON"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &[u8]) -> String {
        let mut out = Vec::new();
        string(&mut out, text);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn strings_are_escaped_as_go_escapes_them() {
        assert_eq!(escaped(b"plain"), r#""plain""#);
        assert_eq!(
            escaped("a<b>&\"\\\n\t\u{1}\u{8}é\u{2028}".as_bytes()),
            r#""a\u003cb\u003e\u0026\"\\\n\t\u0001\bé\u2028""#
        );
        assert_eq!(escaped(b"x\xffy"), r#""x\ufffdy""#);
    }

    #[test]
    fn floats_are_formatted_as_go_formats_them() {
        let text = |n: f64| {
            let mut out = Vec::new();
            float(&mut out, n).map(|()| String::from_utf8_lossy(&out).into_owned())
        };
        assert_eq!(text(100.0), Ok("100".into()));
        assert_eq!(text(0.5), Ok("0.5".into()));
        assert_eq!(text(1e21), Ok("1e+21".into()));
        assert_eq!(text(1.5e-7), Ok("1.5e-7".into()));
        assert!(text(f64::NAN).is_err());
    }

    #[test]
    fn raw_json_is_compacted_with_html_escaping() {
        let mut out = Vec::new();
        assert_eq!(
            compact(&mut out, b"{ \"a\" : \"<x y>\",\n \"b\":[1, 2] }"),
            Ok(())
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"a":"\u003cx y\u003e","b":[1,2]}"#
        );
    }
}
