//! LIST items as kube-apiserver writes them for built-in types: without `kind` and
//! `apiVersion` (the list's own kind names them). Each stored object remembers where its two
//! top-level TypeMeta members are, found while it is serialised, so a list writes the bytes
//! around them instead of rewriting the object; and where its `metadata` is, so the replace
//! fast path finds it without a scan.

use std::borrow::Cow;

use serde_json::Value;

use super::go_order;
use super::writer::{write_str, write_value};

/// A byte range of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// `start..end`; None past 4 GiB.
    fn new(start: usize, end: usize) -> Option<Span> {
        Some(Span {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
        })
    }

    fn start(self) -> usize {
        self.start as usize
    }

    fn end(self) -> usize {
        self.end as usize
    }
}

/// Where an object's top-level `apiVersion` and `kind` members are (each from its key's opening
/// quote to the end of its value, commas excluded), in document order.
/// And where its `metadata` value is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TypeMetaSpans {
    members: [Option<Span>; 2],
    metadata: Option<Span>,
}

impl TypeMetaSpans {
    fn sorted(first: Option<Span>, second: Option<Span>, metadata: Option<Span>) -> Self {
        let mut members = [first, second];
        members.sort_by_key(|m| m.map(Span::start));
        TypeMetaSpans { members, metadata }
    }

    /// The object's `apiVersion` (None: it has none that is a string), borrowed from `object`
    /// unless it has an escape.
    pub fn api_version<'a>(&self, object: &'a [u8]) -> Option<Cow<'a, str>> {
        const KEY: &[u8] = b"\"apiVersion\":";
        self.members.iter().flatten().find_map(|span| {
            let value = object.get(span.start()..span.end())?.strip_prefix(KEY)?;
            match serde_json::from_slice::<&str>(value) {
                Ok(text) => Some(Cow::Borrowed(text)),
                Err(_) => serde_json::from_slice::<String>(value).ok().map(Cow::Owned),
            }
        })
    }

    /// Where the object's `metadata` value is (None: it has none).
    pub fn metadata(&self) -> Option<std::ops::Range<usize>> {
        self.metadata.map(|span| span.start()..span.end())
    }

    /// These spans with the `metadata` value at `metadata` instead (a value rewritten where it
    /// was, after both TypeMeta members); past 4 GiB, with no `metadata` span.
    pub fn with_metadata(self, metadata: std::ops::Range<usize>) -> Self {
        let metadata = Span::new(metadata.start, metadata.end);
        TypeMetaSpans { metadata, ..self }
    }

    /// Where the last of the two members ends (0 when the object has neither): bytes from there
    /// on can change without moving them.
    pub fn end(&self) -> usize {
        self.members
            .iter()
            .flatten()
            .map(|span| span.end())
            .max()
            .unwrap_or(0)
    }

    /// Appends `object` (a JSON object whose members these spans describe) without its
    /// `apiVersion` and `kind` members.
    pub fn write_without(&self, object: &[u8], out: &mut Vec<u8>) {
        let spans = || self.members.iter().flatten();
        if spans().next().is_none() || object.len() < 2 {
            out.extend_from_slice(object);
            return;
        }
        out.push(b'{');
        let mut from = 1;
        let mut first = true;
        let kept = spans()
            .map(|span| (span.start(), span.end()))
            .chain(std::iter::once((object.len() - 1, object.len())));
        for (start, end) in kept {
            let piece = object.get(from..start).unwrap_or_default();
            let piece = piece.strip_prefix(b",").unwrap_or(piece);
            let piece = piece.strip_suffix(b",").unwrap_or(piece);
            if !piece.is_empty() {
                if !first {
                    out.push(b',');
                }
                out.extend_from_slice(piece);
                first = false;
            }
            from = end;
        }
        out.push(b'}');
    }
}

/// `value` serialised compact, with the spans of its TypeMeta, in a buffer of its own length (a
/// stored object keeps it): a built-in object in Go's field order (as kube-apiserver writes it),
/// a custom resource (`custom`) with its keys sorted (as kube-apiserver writes unstructured
/// objects).
pub fn serialise(value: &Value, custom: bool) -> (Vec<u8>, TypeMetaSpans) {
    let Value::Object(members) = value else {
        let mut out = Vec::new();
        write_value(&mut out, value);
        return (out, TypeMetaSpans::default());
    };
    let shape = (!custom).then(|| {
        let text = |key: &str| members.get(key).and_then(Value::as_str).unwrap_or("");
        go_order::object_shape(text("apiVersion"), text("kind"))
    });
    let ordered = match shape {
        Some(shape) => shape.ordered(members),
        None => members.iter().collect(),
    };
    let mut out = Vec::with_capacity(4096);
    let mut api_version = None;
    let mut kind = None;
    let mut metadata = None;
    out.push(b'{');
    for (index, (key, member)) in ordered.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let start = out.len();
        write_str(&mut out, key);
        out.push(b':');
        let value_start = out.len();
        match shape {
            Some(shape) => go_order::write_inner(&mut out, member, shape.inner(key)),
            None => write_value(&mut out, member),
        }
        match key.as_str() {
            "apiVersion" => api_version = Span::new(start, out.len()),
            "kind" => kind = Span::new(start, out.len()),
            "metadata" => metadata = Span::new(value_start, out.len()),
            _ => {}
        }
    }
    out.push(b'}');
    out.shrink_to_fit();
    (out, TypeMetaSpans::sorted(api_version, kind, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stripped(value: &Value) -> Value {
        let (bytes, spans) = serialise(value, true);
        assert_eq!(serde_json::to_vec(value).ok(), Some(bytes.clone()));
        let metadata = spans.metadata().and_then(|at| bytes.get(at));
        let expected = value
            .get("metadata")
            .and_then(|m| serde_json::to_vec(m).ok());
        assert_eq!(metadata.map(<[u8]>::to_vec), expected);
        let api_version = value.get("apiVersion").and_then(Value::as_str);
        assert_eq!(spans.api_version(&bytes).as_deref(), api_version);
        let mut out = Vec::new();
        spans.write_without(&bytes, &mut out);
        serde_json::from_slice(&out).unwrap_or(Value::Null)
    }

    #[test]
    fn type_meta_is_cut_wherever_it_stands() {
        let cases = [
            (
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
                json!({"metadata": {"name": "a"}}),
            ),
            (
                json!({"apiVersion": "v1", "data": {"kind": "x"}, "kind": "ConfigMap"}),
                json!({"data": {"kind": "x"}}),
            ),
            (
                json!({"aa": 1, "apiVersion": "v1", "kind": "K", "z": 2}),
                json!({"aa": 1, "z": 2}),
            ),
            (json!({"apiVersion": "v1", "kind": "K"}), json!({})),
            (json!({"apiVersion": "a\"b/v1", "kind": "K"}), json!({})),
            (json!({"apiVersion": 1, "kind": "K"}), json!({})),
            (json!({"kind": "K"}), json!({})),
            (json!({"metadata": {}}), json!({"metadata": {}})),
            (json!({}), json!({})),
        ];
        for (object, expected) in cases {
            assert_eq!(stripped(&object), expected, "{object}");
        }
    }
}
