//! Field validation's first pass over a JSON body: whether it has any unknown or duplicate
//! field, found while serde_json reads it (no tree of the body, no field paths, no schema
//! copies). Most bodies have none, and are then written as they came; only a body with a
//! problem is read again into a tree to name, report and drop its fields.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{At, Member, Walker};

/// Whether the JSON `body` has a problem against `root` (None: it is not JSON).
pub(super) fn has_problem(
    walker: &Walker<'_>,
    root: &Value,
    structural: bool,
    body: &[u8],
) -> Option<bool> {
    let found = Cell::new(false);
    let at = At {
        path: "",
        resource_root: structural,
        structural,
    };
    let check = Check {
        walker,
        schema: root,
        at,
        found: &found,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    check.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(found.get())
}

/// One value's check: its schema and where it is.
struct Check<'w, 'a> {
    walker: &'w Walker<'a>,
    schema: &'w Value,
    at: At<'w>,
    found: &'w Cell<bool>,
}

impl<'w, 'a> Check<'w, 'a> {
    fn at(&self, schema: &'w Value, at: At<'w>) -> Self {
        Check {
            walker: self.walker,
            schema,
            at,
            found: self.found,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Check<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    /// A list: each item against the `items` schema (as [`Walker::node`] walks it).
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (schema, followed) = self.walker.resolve(self.schema);
        let at = At {
            path: "",
            resource_root: false,
            structural: self.at.structural && !followed,
        };
        while seq
            .next_element_seed(self.at(&schema["items"], at))?
            .is_some()
        {}
        Ok(())
    }

    /// An object: each member against its schema (as [`Walker::object`] walks it).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (schema, followed) = self.walker.resolve(self.schema);
        let at = At {
            path: "",
            resource_root: self.at.resource_root
                || schema["x-kubernetes-embedded-resource"] == Value::Bool(true),
            structural: self.at.structural && !followed,
        };
        let mut seen: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match self.walker.member_schema(schema, &key, at) {
                Member::Declared(child) => {
                    let child_at = At {
                        path: "",
                        resource_root: false,
                        structural: at.structural,
                    };
                    map.next_value_seed(self.at(child, child_at))?;
                }
                Member::Anything => {
                    map.next_value::<IgnoredAny>()?;
                }
                Member::Unknown => {
                    self.found.set(true);
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if seen.contains(&key) {
                self.found.set(true);
            }
            seen.push(key);
        }
        Ok(())
    }
}
