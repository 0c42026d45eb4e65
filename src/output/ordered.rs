//! An order-preserving JSON value, for pretty JSON and YAML output.
//!
//! serde_json's `Value` sorts object keys (the crate is built without `preserve_order`); this
//! type keeps members in the order the server sent them, so `-o json`/`-o yaml` read like
//! kubectl's output. It is only built for the objects being printed, never cached.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON value whose objects keep their member order.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderedValue {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<OrderedValue>),
    Object(Vec<(String, OrderedValue)>),
}

impl OrderedValue {
    /// Parses JSON bytes.
    pub fn from_slice(raw: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(raw)
    }
}

impl Serialize for OrderedValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OrderedValue::Null => s.serialize_unit(),
            OrderedValue::Bool(b) => s.serialize_bool(*b),
            OrderedValue::Number(n) => n.serialize(s),
            OrderedValue::String(v) => s.serialize_str(v),
            OrderedValue::Array(items) => items.serialize(s),
            OrderedValue::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for OrderedValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = OrderedValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(OrderedValue::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(OrderedValue::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(OrderedValue::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(OrderedValue::Number(v.into()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(OrderedValue::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        serde_json::Number::from_f64(v)
            .map(OrderedValue::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(OrderedValue::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(OrderedValue::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(OrderedValue::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry()? {
            members.push((k, v));
        }
        Ok(OrderedValue::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_member_order_through_json_and_yaml() {
        let raw = br#"{"z":1,"a":[true,null,-2,1.5,"s"],"m":{"y":{},"b":"c"}}"#;
        let v = OrderedValue::from_slice(raw).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap().as_bytes(), raw);
        let yaml = serde_saphyr::to_string(&v).unwrap();
        assert!(
            yaml.find("z:").unwrap() < yaml.find("a:").unwrap(),
            "{yaml}"
        );
    }
}
