//! Sets of field paths, as structured-merge-diff keeps them (`fieldpath.Set`) and
//! `managedFields[].fieldsV1` serializes them: a tree whose edges are path elements — a field
//! (`f:name`), a list element by its key fields (`k:{"name":"web"}`), a set element by its value
//! (`v:"kubernetes"`) or an element by index (`i:0`) — and whose nodes may themselves be
//! members (`.` when the node also has children, `{}` when it has none). The union and the
//! difference of two such trees are also taken directly on their `fieldsV1` JSON
//! ([`union_v1`], [`subtract_v1`]), as the field manager and the entry cap use them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use crate::json::writer::write_str;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathElement {
    /// A field of a map or struct.
    Field(String),
    /// An element of an associative list, by its key fields (name and value, sorted by name).
    Key(Vec<(String, Atom)>),
    /// An element of a set, by its value.
    Value(Atom),
    /// An element of an atomic list addressed by index (only ever read from a client).
    Index(u64),
}

/// A scalar inside a path element, ordered as structured-merge-diff orders values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// `null`.
    Null,
    /// `true`/`false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Text(String),
    /// Any other JSON (floats, objects), by its JSON text.
    Json(String),
}

impl Atom {
    /// The atom of a JSON value.
    pub fn of(value: &Value) -> Atom {
        match value {
            Value::Null => Atom::Null,
            Value::Bool(b) => Atom::Bool(*b),
            Value::String(s) => Atom::Text(s.clone()),
            Value::Number(n) => n
                .as_i64()
                .map_or_else(|| Atom::Json(n.to_string()), Atom::Int),
            other => Atom::Json(other.to_string()),
        }
    }

    /// Appends the atom's JSON text (compact, as serde_json writes its value).
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Atom::Null => out.extend_from_slice(b"null"),
            Atom::Bool(true) => out.extend_from_slice(b"true"),
            Atom::Bool(false) => out.extend_from_slice(b"false"),
            Atom::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
            Atom::Text(text) => write_str(out, text),
            // Written by serde_json from a value (see `Atom::of`, `PathElement::decode`).
            Atom::Json(text) => out.extend_from_slice(text.as_bytes()),
        }
    }

    /// The JSON value back.
    fn to_value(&self) -> Value {
        match self {
            Atom::Null => Value::Null,
            Atom::Bool(b) => Value::Bool(*b),
            Atom::Int(i) => Value::from(*i),
            Atom::Text(s) => Value::String(s.clone()),
            Atom::Json(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        }
    }
}

/// The fieldsV1 key of the field `name` (`f:name`), built without `format!`: a create names
/// every field of the object.
pub fn field_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len() + 2);
    key.push_str("f:");
    key.push_str(name);
    key
}

/// The key fields of an associative list element as a JSON object holds them: by name, the
/// last of a repeated name.
fn by_name(fields: &[(String, Atom)]) -> Vec<&(String, Atom)> {
    let mut named: Vec<&(String, Atom)> = fields.iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named.dedup_by(|later, earlier| {
        let repeated = later.0 == earlier.0;
        if repeated {
            *earlier = *later;
        }
        repeated
    });
    named
}

/// Text this module wrote from strings and JSON (always UTF-8).
fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl PathElement {
    /// The fieldsV1 key of the element (`f:name`, `k:{…}`, `v:…`, `i:0`).
    pub fn encode(&self) -> String {
        match self {
            PathElement::Field(name) => field_key(name),
            PathElement::Key(fields) => {
                let mut out = b"k:{".to_vec();
                for (index, (name, atom)) in by_name(fields).into_iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    write_str(&mut out, name);
                    out.push(b':');
                    atom.write_json(&mut out);
                }
                out.push(b'}');
                utf8(out)
            }
            PathElement::Value(atom) => {
                let mut out = b"v:".to_vec();
                atom.write_json(&mut out);
                utf8(out)
            }
            PathElement::Index(index) => format!("i:{index}"),
        }
    }

    /// The element a fieldsV1 key names; None for a malformed key.
    fn decode(key: &str) -> Option<PathElement> {
        let (kind, rest) = key.split_once(':')?;
        match kind {
            "f" => Some(PathElement::Field(rest.to_owned())),
            "k" => match serde_json::from_str::<Value>(rest).ok()? {
                Value::Object(object) => Some(PathElement::Key(
                    object
                        .iter()
                        .map(|(k, v)| (k.clone(), Atom::of(v)))
                        .collect(),
                )),
                _ => None,
            },
            "v" => Some(PathElement::Value(Atom::of(
                &serde_json::from_str::<Value>(rest).ok()?,
            ))),
            "i" => rest.parse().ok().map(PathElement::Index),
            _ => None,
        }
    }

    /// The element as structured-merge-diff prints it in a path (`.name`, `[name="web"]`,
    /// `[="kubernetes"]`, `[0]`).
    fn print(&self, out: &mut String) {
        let _ = match self {
            PathElement::Field(name) => write!(out, ".{name}"),
            PathElement::Key(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(name, atom)| format!("{name}={}", atom.to_value()))
                    .collect();
                write!(out, "[{}]", parts.join(","))
            }
            PathElement::Value(atom) => write!(out, "[={}]", atom.to_value()),
            PathElement::Index(index) => write!(out, "[{index}]"),
        };
    }
}

/// A set of field paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    /// Whether the path leading here is itself in the set.
    member: bool,
    /// The paths below, by their next element.
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    /// Whether it holds no path.
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.is_empty()
    }

    /// Whether the path leading here is in the set.
    pub fn is_member(&self) -> bool {
        self.member
    }

    /// Marks the path leading here as a member.
    pub fn insert_self(&mut self) {
        self.member = true;
    }

    /// Puts `child` under `element` (nothing when it is empty).
    pub fn insert_child(&mut self, element: PathElement, child: FieldSet) {
        if !child.is_empty() {
            self.children.entry(element).or_default().union_with(child);
        }
    }

    /// The set below `element`, if any.
    pub fn child(&self, element: &PathElement) -> Option<&FieldSet> {
        self.children.get(element)
    }

    /// Removes and returns the set below `element`.
    pub fn take_child(&mut self, element: &PathElement) -> Option<FieldSet> {
        self.children.remove(element)
    }

    /// Adds every path of `other`.
    pub fn union_with(&mut self, other: FieldSet) {
        self.member |= other.member;
        for (element, child) in other.children {
            self.insert_child(element, child);
        }
    }

    /// Removes every path of `other` (paths below a removed member stay unless `other` has them
    /// too, as `fieldpath.Set.Difference`).
    pub fn subtract(&mut self, other: &FieldSet) {
        if other.member {
            self.member = false;
        }
        for (element, theirs) in &other.children {
            if let Some(mine) = self.children.get_mut(element) {
                mine.subtract(theirs);
                if mine.is_empty() {
                    self.children.remove(element);
                }
            }
        }
    }

    /// The paths in both.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (element, mine) in &self.children {
            if let Some(theirs) = other.children.get(element) {
                out.insert_child(element.clone(), mine.intersection(theirs));
            }
        }
        out
    }

    /// Every member path, printed as structured-merge-diff prints paths, in order.
    pub fn paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_paths(&mut String::new(), &mut out);
        out
    }

    fn collect_paths(&self, prefix: &mut String, out: &mut Vec<String>) {
        if self.member {
            out.push(prefix.clone());
        }
        for (element, child) in &self.children {
            let length = prefix.len();
            element.print(prefix);
            child.collect_paths(prefix, out);
            prefix.truncate(length);
        }
    }

    /// The set as `fieldsV1`.
    pub fn to_fields_v1(&self) -> Value {
        let mut object = Map::new();
        if self.member && !self.children.is_empty() {
            object.insert(".".into(), Value::Object(Map::new()));
        }
        for (element, child) in &self.children {
            object.insert(element.encode(), child.to_fields_v1());
        }
        Value::Object(object)
    }

    /// The set a `fieldsV1` object describes; None when it is malformed.
    pub fn from_fields_v1(value: &Value) -> Option<FieldSet> {
        let object = value.as_object()?;
        let mut set = FieldSet {
            member: object.is_empty(),
            children: BTreeMap::new(),
        };
        for (key, child) in object {
            if key == "." {
                set.member = true;
                continue;
            }
            let element = PathElement::decode(key)?;
            let child = FieldSet::from_fields_v1(child)?;
            set.children.insert(element, child);
        }
        Some(set)
    }
}

/// Whether a `fieldsV1` node holds its own path (`{}`, or a `.` among children).
fn is_member_v1(node: &Map<String, Value>) -> bool {
    node.is_empty() || node.contains_key(".")
}

/// Removes `other`'s paths from the `fieldsV1` node `node` (paths below a removed member stay
/// unless `other` has them too); false when `node` is left holding no path.
pub fn subtract_v1(node: &mut Map<String, Value>, other: &Map<String, Value>) -> bool {
    let member = is_member_v1(node) && !is_member_v1(other);
    node.remove(".");
    for (key, theirs) in other {
        let (Some(Value::Object(mine)), Value::Object(theirs)) = (node.get_mut(key), theirs) else {
            continue;
        };
        if key != "." && !subtract_v1(mine, theirs) {
            node.remove(key);
        }
    }
    if node.is_empty() {
        return member;
    }
    if member {
        node.insert(".".into(), json!({}));
    }
    true
}

/// Adds `other`'s paths to the `fieldsV1` node `node`. A `.` marks a member with fields below
/// it: kept where the node has one already (not removed and put back), added or dropped
/// otherwise.
pub fn union_v1(node: &mut Map<String, Value>, other: Map<String, Value>) {
    let member = is_member_v1(node) || is_member_v1(&other);
    for (key, theirs) in other {
        if key == "." {
            continue;
        }
        match (node.get_mut(&key), theirs) {
            (Some(Value::Object(mine)), Value::Object(theirs)) => union_v1(mine, theirs),
            (_, theirs) => {
                node.insert(key, theirs);
            }
        }
    }
    let has_fields = node.keys().any(|key| key != ".");
    let marked = match node.get(".") {
        None => None,
        Some(Value::Object(mark)) => Some(mark.is_empty()),
        Some(_) => Some(false),
    };
    match (member && has_fields, marked) {
        (true, Some(true)) | (false, None) => {}
        (true, _) => drop(node.insert(".".into(), json!({}))),
        (false, Some(_)) => drop(node.remove(".")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_v1_round_trips_and_prints_paths() {
        let fields = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"web\"}": {".": {}, "f:image": {}},
            }}}},
            "f:finalizers": {"v:\"kubernetes\"": {}},
        });
        let set = FieldSet::from_fields_v1(&fields).expect("valid fieldsV1");
        assert_eq!(set.to_fields_v1(), fields);
        assert_eq!(
            set.paths(),
            [
                ".finalizers[=\"kubernetes\"]",
                ".metadata.labels",
                ".metadata.labels.app",
                ".spec.template.spec.containers[name=\"web\"]",
                ".spec.template.spec.containers[name=\"web\"].image",
            ]
        );
    }

    #[test]
    fn set_operations_follow_fieldpath() {
        let set = |v: Value| FieldSet::from_fields_v1(&v).expect("valid");
        let mut a = set(json!({"f:spec": {"f:replicas": {}, "f:paused": {}}}));
        let b = set(json!({"f:spec": {"f:replicas": {}}}));
        assert_eq!(a.intersection(&b), b);
        a.subtract(&b);
        assert_eq!(a, set(json!({"f:spec": {"f:paused": {}}})));
        a.subtract(&set(json!({"f:spec": {"f:paused": {}}})));
        assert!(a.is_empty());
        assert!(FieldSet::from_fields_v1(&json!({"x:bad": {}})).is_none());
    }

    /// Atoms as `Atom::of` and `PathElement::decode` make them.
    fn atom() -> impl proptest::strategy::Strategy<Value = Atom> {
        use proptest::prelude::*;
        prop_oneof![
            Just(json!(null)),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            // Floats serde_json reads back exactly (it moves the last of 17 digits; the key
            // keeps the text it read).
            (any::<i32>(), 0..8).prop_map(|(m, e)| Value::from(f64::from(m) / 2f64.powi(e))),
            "[a-z\"\\\\\u{1}é]{0,6}".prop_map(Value::from),
            prop::collection::vec(any::<u8>(), 0..3).prop_map(Value::from),
        ]
        .prop_map(|value| Atom::of(&value))
    }

    proptest::proptest! {
        /// The keys are what kube-apiserver writes: the JSON object (or value) serde_json
        /// prints, names in order and a repeated name's last value kept.
        #[test]
        fn list_element_keys_are_the_json_serde_json_prints(
            fields in proptest::collection::vec(("[abc]{1,2}", atom()), 1..5),
            value in atom(),
        ) {
            let object: Map<String, Value> = fields
                .iter()
                .map(|(name, atom)| (name.clone(), atom.to_value()))
                .collect();
            let key = PathElement::Key(fields).encode();
            proptest::prop_assert_eq!(key, format!("k:{}", Value::Object(object)));
            let expected = format!("v:{}", value.to_value());
            proptest::prop_assert_eq!(PathElement::Value(value).encode(), expected);
        }
    }

    /// `union_v1` as first written: `.` removed, the paths added, `.` put back when the
    /// result is a member with fields below it.
    fn union_by_removal(node: &mut Map<String, Value>, other: Map<String, Value>) {
        let member = is_member_v1(node) || is_member_v1(&other);
        node.remove(".");
        for (key, theirs) in other {
            if key == "." {
                continue;
            }
            match (node.get_mut(&key), theirs) {
                (Some(Value::Object(mine)), Value::Object(theirs)) => {
                    union_by_removal(mine, theirs)
                }
                (_, theirs) => {
                    node.insert(key, theirs);
                }
            }
        }
        if member && !node.is_empty() {
            node.insert(".".into(), json!({}));
        }
    }

    /// `fieldsV1` nodes of a few keys, `.` among them, nested three deep.
    fn node() -> impl proptest::strategy::Strategy<Value = Map<String, Value>> {
        use proptest::prelude::*;
        let key = prop_oneof![Just("."), Just("f:a"), Just("f:b"), Just("k:{\"n\":1}")];
        let leaf = Just(Map::new());
        leaf.prop_recursive(3, 24, 4, move |inner| {
            proptest::collection::btree_map(key.clone(), inner, 0..4).prop_map(|members| {
                let members = members.into_iter();
                members
                    .map(|(k, v)| (k.to_owned(), Value::Object(v)))
                    .collect()
            })
        })
    }

    proptest::proptest! {
        #[test]
        fn a_union_is_the_one_that_removes_and_restores_the_member_mark(
            node in node(),
            other in node(),
        ) {
            let mut expected = node.clone();
            union_by_removal(&mut expected, other.clone());
            let mut united = node;
            union_v1(&mut united, other);
            proptest::prop_assert_eq!(united, expected);
        }
    }
}
