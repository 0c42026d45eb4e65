//! Adding members to the captured `/openapi/v2` without rewriting it: the document's bytes stay
//! the real server's, and each new path or definition is written into its object at the place
//! kube-apiserver's sorted maps put it. kube-openapi marshals `paths` and `definitions` with
//! their keys sorted (k8s.io/kube-openapi/pkg/validation/spec/paths.go, swagger.go), and
//! apiextensions-apiserver's merge keeps the static spec's entry on a conflict
//! (pkg/controller/openapi/builder/merge.go:65-67,
//! `MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters`), which is what happens here
//! to a new key the document already has.

use std::ops::Range;

/// Where the members of one object of the document are.
#[derive(Debug, Default)]
pub struct ObjectIndex {
    /// The byte offset of the object's closing `}`.
    close: usize,
    /// Each member: its key and the byte range of the whole `"key":value`.
    members: Vec<(String, Range<usize>)>,
}

impl ObjectIndex {
    /// The byte range of a member's value.
    pub fn value_of<'a>(&self, document: &'a [u8], key: &str) -> Option<&'a [u8]> {
        let (_, range) = self.members.iter().find(|(k, _)| k == key)?;
        let member = &document[range.clone()];
        let colon = skip_string(member, 0)?;
        Some(&member[colon + 1..])
    }

    /// Whether the object has a member `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.members.iter().any(|(k, _)| k == key)
    }
}

/// The captured document's `paths` and `definitions`, indexed.
#[derive(Debug, Default)]
pub struct DocumentIndex {
    pub paths: ObjectIndex,
    pub definitions: ObjectIndex,
}

/// Indexes a document's top-level `paths` and `definitions` (None when it has no such objects
/// or is no JSON object).
pub fn index(document: &[u8]) -> Option<DocumentIndex> {
    let top = members(document, 0)?;
    let object_at = |key: &str| -> Option<ObjectIndex> {
        let (_, range) = top.members.iter().find(|(k, _)| k == key)?;
        let colon = skip_string(document, range.start)?;
        members(document, colon + 1)
    };
    Some(DocumentIndex {
        paths: object_at("paths")?,
        definitions: object_at("definitions")?,
    })
}

/// The document with `paths` and `definitions` added (each `(key, value JSON)`; keys the
/// document already has are left out, the document's entry wins).
pub fn splice(
    document: &[u8],
    index: &DocumentIndex,
    paths: &[(String, String)],
    definitions: &[(String, String)],
) -> Vec<u8> {
    let mut inserts: Vec<(usize, String)> = Vec::new();
    inserts.extend(placements(&index.paths, paths));
    inserts.extend(placements(&index.definitions, definitions));
    inserts.sort_by_key(|(offset, _)| *offset);
    let extra: usize = inserts.iter().map(|(_, text)| text.len()).sum();
    let mut out = Vec::with_capacity(document.len() + extra);
    let mut from = 0;
    for (offset, text) in inserts {
        out.extend_from_slice(&document[from..offset]);
        out.extend_from_slice(text.as_bytes());
        from = offset;
    }
    out.extend_from_slice(&document[from..]);
    out
}

/// Where each new member goes in `object` (before the first key sorting after it, else before
/// the closing brace) and the text to write there, commas included.
fn placements(object: &ObjectIndex, new: &[(String, String)]) -> Vec<(usize, String)> {
    let mut sorted: Vec<&(String, String)> = new
        .iter()
        .filter(|(key, _)| !object.contains(key))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    sorted.dedup_by(|a, b| a.0 == b.0);
    let mut out: Vec<(usize, String)> = Vec::new();
    for (key, value) in sorted {
        let member = format!("{}:{value}", serde_json::to_string(key).unwrap_or_default());
        let next = object
            .members
            .partition_point(|(k, _)| k.as_str() < key.as_str());
        match object.members.get(next) {
            Some((_, range)) => out.push((range.start, format!("{member},"))),
            None if object.members.is_empty() => out.push((object.close, member)),
            None => out.push((object.close, format!(",{member}"))),
        }
    }
    // Members placed at the same offset stay in key order; an empty object's first one
    // takes no comma, the others after it do.
    for i in 1..out.len() {
        if out[i].0 == object.close && out[i - 1].0 == object.close && !out[i].1.starts_with(',') {
            out[i].1.insert(0, ',');
        }
    }
    out
}

/// The members of the object starting at `start` (whitespace allowed before it).
fn members(bytes: &[u8], start: usize) -> Option<ObjectIndex> {
    let mut at = skip_space(bytes, start);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_space(bytes, at + 1);
    let mut members = Vec::new();
    if bytes.get(at) == Some(&b'}') {
        return Some(ObjectIndex { close: at, members });
    }
    loop {
        let key_end = skip_string(bytes, at)?;
        let key: String = serde_json::from_slice(&bytes[at..key_end]).ok()?;
        let colon = skip_space(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        let value_end = skip_value(bytes, skip_space(bytes, colon + 1))?;
        members.push((key, at..value_end));
        at = skip_space(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => return Some(ObjectIndex { close: at, members }),
            _ => return None,
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The offset just past the string literal starting at `at`.
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The offset just past the JSON value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn new_members_land_in_key_order_and_existing_ones_win() {
        let document =
            br#"{"swagger":"2.0","paths":{"/b":{"x":"}"},"/d":{}},"definitions":{},"x":1}"#;
        let index = index(document).unwrap();
        let out = splice(
            document,
            &index,
            &entries(&[("/e", "5"), ("/a", "1"), ("/c", "3"), ("/b", "0")]),
            &entries(&[("k2", "2"), ("k1", "1")]),
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"swagger":"2.0","paths":{"/a":1,"/b":{"x":"}"},"/c":3,"/d":{},"/e":5},"definitions":{"k1":1,"k2":2},"x":1}"#
        );
    }

    #[test]
    fn a_member_value_is_found_by_key() {
        let document = br#"{"paths":{"/a":{"get":[1,"]"]}},"definitions":{"d":{"type":"object"}}}"#;
        let index = index(document).unwrap();
        assert_eq!(
            index.definitions.value_of(document, "d").unwrap(),
            br#"{"type":"object"}"#
        );
        assert_eq!(
            index.paths.value_of(document, "/a").unwrap(),
            br#"{"get":[1,"]"]}"#
        );
    }
}
