//! The JSON helpers every write shares: a request body as an object, a string at a JSON
//! pointer, an object's `metadata` to edit, and timestamps as Kubernetes writes them.

use std::cell::RefCell;

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use crate::status::ApiError;

/// The body of a request as a JSON object (400 otherwise).
pub fn parse_object(body: &[u8]) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(value)
}

/// A POST body as a JSON object of `kind`, or kube-apiserver's 400 for a body it cannot
/// decode: "the object provided is unrecognized (must be of type K): couldn't get
/// version/kind; json parse error: …" with the body's first 30 bytes
/// (`endpoints/handlers/rest.go`, `transformDecodeError`, `summarizeData`).
pub fn parse_body(body: &[u8], kind: &str) -> Result<Value, ApiError> {
    if std::str::from_utf8(body).is_err() {
        // Go's decoder reads bytes that are no UTF-8 inside a string as U+FFFD
        // (`encoding/json`, `unquote`); serde_json refuses them.
        return parse_body(String::from_utf8_lossy(body).as_bytes(), kind);
    }
    let error = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(members)) => return Ok(Value::Object(members)),
        Ok(Value::Null) => return parse_object(body),
        Ok(other) => format!(
            "json: cannot unmarshal {} into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}",
            go_type(&other)
        ),
        Err(e) => go_syntax_error(&e, body),
    };
    Err(ApiError::bad_request(format!(
        "the object provided is unrecognized (must be of type {kind}): couldn't get version/kind; json parse error: {error} ({})",
        summary(body)
    )))
}

/// A YAML POST or PUT body as JSON, or kube-apiserver's 400 for YAML it cannot read: the
/// YAML serializer's error (sigs.k8s.io/yaml over go-yaml v2) through `transformDecodeError`,
/// "the object provided is unrecognized (must be of type K): yaml: line N: …" and the body's
/// first 30 bytes.
pub fn parse_yaml_body(body: &[u8], kind: &str) -> Result<Value, ApiError> {
    if let Some(problem) = go_yaml_reader_error(body) {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): yaml: {problem} ({})",
            summary(body)
        )));
    }
    let text = String::from_utf8_lossy(body);
    serde_saphyr::from_str::<Value>(&text).map_err(|error| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): {} ({})",
            go_yaml_error(&text, &error.to_string()),
            summary(body)
        ))
    })
}

/// go-yaml's reader's refusal of the first byte sequence it cannot read as UTF-8 text YAML may
/// hold (go-yaml v2 `readerc.go:175-357`, `yaml_parser_update_buffer`; a reader error names no
/// line). A body that starts with a UTF-16 byte order mark is left to the parser.
fn go_yaml_reader_error(body: &[u8]) -> Option<&'static str> {
    if body.starts_with(&[0xFF, 0xFE]) || body.starts_with(&[0xFE, 0xFF]) {
        return None;
    }
    let mut at = 0;
    while at < body.len() {
        let octet = body[at];
        let width = match octet {
            _ if octet & 0x80 == 0 => 1,
            _ if octet & 0xE0 == 0xC0 => 2,
            _ if octet & 0xF0 == 0xE0 => 3,
            _ if octet & 0xF8 == 0xF0 => 4,
            _ => return Some("invalid leading UTF-8 octet"),
        };
        if at + width > body.len() {
            return Some("incomplete UTF-8 octet sequence");
        }
        let mut value = u32::from(octet) & [0x7F, 0x1F, 0x0F, 0x07][width - 1];
        for &trailing in &body[at + 1..at + width] {
            if trailing & 0xC0 != 0x80 {
                return Some("invalid trailing UTF-8 octet");
            }
            value = (value << 6) | (u32::from(trailing) & 0x3F);
        }
        let shortest = match width {
            1 => true,
            2 => value >= 0x80,
            3 => value >= 0x800,
            _ => value >= 0x10000,
        };
        if !shortest {
            return Some("invalid length of a UTF-8 sequence");
        }
        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
            return Some("invalid Unicode character");
        }
        let allowed = matches!(value, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85)
            || (0xA0..=0xD7FF).contains(&value)
            || (0xE000..=0xFFFD).contains(&value)
            || (0x10000..=0x10FFFF).contains(&value);
        if !allowed {
            return Some("control characters are not allowed");
        }
        at += width;
    }
    None
}

/// go-yaml's words for a YAML error where they are known: an unclosed flow sequence or
/// mapping is a parser error at the end of the input, reported at its 0-based line (go-yaml
/// v2 `decode.go` `parser.fail` adds 1 to scanner errors' lines only; `parserc.go`: "did not
/// find expected ',' or ']'"); otherwise the parser's own message at its line.
fn go_yaml_error(text: &str, message: &str) -> String {
    let end_line = text.matches('\n').count();
    if message.contains("unclosed bracket '['") {
        return format!("yaml: line {end_line}: did not find expected ',' or ']'");
    }
    if message.contains("unclosed bracket '{'") {
        return format!("yaml: line {end_line}: did not find expected ',' or '}}'");
    }
    let first = message.lines().next().unwrap_or(message);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match first.split_once(": ") {
        Some((place, what)) if place.starts_with("line ") => {
            let line = place.split_whitespace().nth(1).unwrap_or("0");
            format!("yaml: line {line}: {what}")
        }
        _ => format!("yaml: {first}"),
    }
}

/// The name encoding/json gives a JSON value's type.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "array",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Null | Value::Object(_) => "object",
    }
}

/// encoding/json's words for a syntax error where it has the same words for it: the end of
/// the input, a character where a value should start; serde_json's otherwise.
fn go_syntax_error(error: &serde_json::Error, body: &[u8]) -> String {
    if error.is_eof() {
        return "unexpected end of JSON input".to_owned();
    }
    let offset = body
        .split(|b| *b == b'\n')
        .take(error.line().saturating_sub(1))
        .map(|line| line.len() + 1)
        .sum::<usize>()
        + error.column().saturating_sub(1);
    match body.get(offset) {
        Some(&byte)
            if error.to_string().starts_with("expected value") && byte.is_ascii_graphic() =>
        {
            format!(
                "invalid character '{}' looking for beginning of value",
                char::from(byte)
            )
        }
        _ => error.to_string(),
    }
}

/// The start of a body for an error message: its first 30 bytes (as text when it starts
/// with `{`, else in hex), " ..." when there are more; "<empty>" for none.
fn summary(body: &[u8]) -> String {
    const MAX: usize = 30;
    let (start, more) = match body.len() > MAX {
        true => (&body[..MAX], " ..."),
        false => (body, ""),
    };
    let text = match body.first() {
        None => return "<empty>".to_owned(),
        Some(b'{') => String::from_utf8_lossy(start).into_owned(),
        Some(_) => start.iter().map(|b| format!("{b:02x}")).collect(),
    };
    format!("{text}{more}")
}

/// A string at a JSON pointer, or "".
pub fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value_at(value, pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The value at a JSON pointer (RFC 6901), as [`Value::pointer`] finds it, without the two
/// strings that makes per token when the pointer escapes nothing (every pointer the writes
/// use: they run on each object written).
fn value_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.contains('~') {
        return value.pointer(pointer);
    }
    if pointer.is_empty() {
        return Some(value);
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .try_fold(value, |target, token| match target {
            Value::Object(map) => map.get(token),
            Value::Array(items) => array_index(token).and_then(|i| items.get(i)),
            _ => None,
        })
}

/// A pointer token as an array index: decimal digits without a sign or a leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// `metadata` as a mutable map (created when missing).
pub fn metadata_mut(value: &mut Value) -> Result<&mut Map<String, Value>, ApiError> {
    let object = value
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
    object
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be a JSON object"))
}

/// RFC 3339 timestamp with second precision, as Kubernetes writes them (formatted once a
/// second per thread: every write stamps its managedFields entry).
pub fn now() -> String {
    thread_local! {
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    let at = Timestamp::now();
    LAST.with_borrow_mut(|(second, text)| {
        if *second != at.as_second() {
            *second = at.as_second();
            *text = at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        }
        text.clone()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// kube-apiserver's answer to the conformance corpus' malformed YAML, word for word.
    #[test]
    fn malformed_yaml_is_refused_in_go_yaml_s_words() {
        let body = b"apiVersion: v1\nkind: ConfigMap\nmetadata: [name: x\n";
        let error = parse_yaml_body(body, "ConfigMap").expect_err("malformed");
        assert_eq!(
            error.message,
            "the object provided is unrecognized (must be of type ConfigMap): yaml: line 3: \
             did not find expected ',' or ']' \
             (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)"
        );
        let body = b"kind: ConfigMap\ndata: {a: b\n";
        let error = parse_yaml_body(body, "ConfigMap").expect_err("malformed");
        assert!(
            error
                .message
                .contains("yaml: line 2: did not find expected ',' or '}'"),
            "{}",
            error.message
        );
        let parsed = parse_yaml_body(b"kind: ConfigMap\ndata: {a: b}\n", "ConfigMap");
        assert_eq!(
            parsed.ok(),
            Some(json!({"kind": "ConfigMap", "data": {"a": "b"}}))
        );
    }

    #[test]
    fn a_pointer_finds_what_serde_json_finds() {
        let value = json!({
            "a": {"b": [10, {"c": "d"}, null], "": {"": 1}, "0": "zero"},
            "e/f": 2, "g~h": 3, "+1": 4,
        });
        let pointers = [
            "",
            "/",
            "a",
            "/a",
            "/a/b",
            "/a/b/0",
            "/a/b/1/c",
            "/a/b/2",
            "/a/b/3",
            "/a/b/00",
            "/a/b/+1",
            "/a/b/-1",
            "/a/b/1/c/x",
            "/a/0",
            "/a/",
            "/a//",
            "/e~1f",
            "/g~0h",
            "/e/f",
            "/+1",
            "/a/b/18446744073709551616",
            "//",
        ];
        for pointer in pointers {
            assert_eq!(
                value_at(&value, pointer),
                value.pointer(pointer),
                "{pointer:?}"
            );
        }
    }
}
