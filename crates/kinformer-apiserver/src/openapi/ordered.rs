//! JSON whose object members keep the order they were written or read in: what kube-apiserver's
//! OpenAPI v2 is made of (Go struct fields in declaration order, map keys sorted), and what
//! its protobuf form follows member by member. `serde_json::Value` sorts every object's keys,
//! so the documents here are built and read as [`Node`]s and written Go's way (numbers as Go
//! formats a float64, strings escaped as Go's JSON encoder escapes them without HTML escaping).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// One JSON value, objects in member order.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    /// A string node.
    pub fn str(text: impl Into<String>) -> Node {
        Node::String(text.into())
    }

    /// An array of strings.
    pub fn strs(texts: &[&str]) -> Node {
        Node::Array(texts.iter().map(|t| Node::str(*t)).collect())
    }

    /// An object of the given members, in that order.
    pub fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, Node)>) -> Node {
        Node::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// A member of an object (None for a missing member or a non-object).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string node.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(text) => Some(text),
            _ => None,
        }
    }

    /// A `serde_json::Value` as a node: object keys sorted, as Go marshals a map.
    pub fn from_value(value: &Value) -> Node {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.clone()),
            Value::String(s) => Node::String(s.clone()),
            Value::Array(items) => Node::Array(items.iter().map(Node::from_value).collect()),
            Value::Object(map) => Node::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Node::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// The compact JSON text, as Go writes it.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// Appends the compact JSON text to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Node::Number(n) => out.push_str(&go_number(n)),
            Node::String(s) => write_string(s, out),
            Node::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Node::Object(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// A JSON string literal, escaped as Go's encoder escapes one (quote, backslash, control
/// characters; `serde_json` escapes the same set the same way).
fn write_string(text: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned()));
}

/// A number as Go writes a float64 that holds it: integers without a fraction, others in
/// the shortest form (`1.5`, `1e+21`, `1e-7`).
fn go_number(number: &Number) -> String {
    if number.is_i64() || number.is_u64() {
        return number.to_string();
    }
    let value = number.as_f64().unwrap_or_default();
    if value.fract() == 0.0 && value.abs() < 1e21 {
        return format!("{value:.0}");
    }
    if value.abs() >= 1e21 || (value != 0.0 && value.abs() < 1e-6) {
        let formatted = format!("{value:e}");
        return match formatted.split_once('e') {
            Some((mantissa, exponent)) if !exponent.starts_with('-') => {
                format!("{mantissa}e+{exponent}")
            }
            _ => formatted,
        };
    }
    value.to_string()
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// Reads any JSON value into a [`Node`], members in document order.
struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Node, E> {
        Ok(Number::from_f64(n).map_or(Node::Null, Node::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Node>()? {
            members.push((key, value));
        }
        Ok(Node::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_through_a_read_and_a_write() {
        let text = r#"{"b":1,"a":[true,null,"x\n<>"],"c":{"z":1.5,"y":-2}}"#;
        let node: Node = serde_json::from_str(text).unwrap();
        assert_eq!(node.to_json(), text);
    }

    #[test]
    fn numbers_are_written_as_go_writes_a_float64() {
        let write = |text: &str| Node::Number(serde_json::from_str(text).unwrap()).to_json();
        assert_eq!(write("10.0"), "10");
        assert_eq!(write("0.5"), "0.5");
        assert_eq!(write("1e21"), "1e+21");
        assert_eq!(write("-3"), "-3");
    }
}
