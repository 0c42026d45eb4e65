//! A protobuf message into the JSON kube-apiserver's Go types would write for it, walked by
//! the descriptor table: scalars as JSON values (bytes as base64), repeated fields as arrays,
//! maps as objects, and kube's messages with their own JSON form (`Time`, `MicroTime`,
//! `Duration`, `Quantity`, `IntOrString`, `RawExtension`, `FieldsV1`, apiextensions' `JSON`
//! and `JSONSchemaPropsOr*`) as that form. A zero scalar is left out where Go's `omitempty`
//! leaves it out, a zero `Time` where `omitzero` does; absent fields stay absent (defaulting
//! fills them in as for JSON).

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use serde_json::{Map, Value};

use super::DecodeError;
use super::table::{self, F, Ty};
use super::wire::{self, Wire};

const META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1";
const EXTENSIONS: &str = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions";

fn malformed(why: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(why.into())
}

/// How deep messages may nest (JSONSchemaProps nests itself): deeper is malformed rather
/// than a stack overflow.
const MAX_DEPTH: usize = 100;

/// The message `name` in `bytes`, `depth` messages deep, as JSON.
pub fn message(name: &str, bytes: &[u8], depth: usize) -> Result<Value, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(malformed(format!("messages nest deeper than {MAX_DEPTH}")));
    }
    match special(name, bytes, depth)? {
        Some(value) => Ok(value),
        None => plain(name, bytes, depth),
    }
}

/// The message `name` in `bytes` as JSON by its descriptor alone.
pub fn plain(name: &str, bytes: &[u8], depth: usize) -> Result<Value, DecodeError> {
    let descriptor = table::message(name)
        .ok_or_else(|| malformed(format!("no descriptor for message {name}")))?;
    let mut values: Vec<Option<Value>> = vec![None; descriptor.fields.len()];
    for (number, wire) in wire::fields(bytes)? {
        // Unknown fields are skipped, as gogo-protobuf's Unmarshal skips them.
        let Some(index) = descriptor.fields.iter().position(|f| f.number == number) else {
            continue;
        };
        let field = &descriptor.fields[index];
        merge(&mut values[index], field, wire, depth)?;
    }
    if descriptor.items_wrapper {
        return Ok(values
            .into_iter()
            .flatten()
            .next()
            .unwrap_or(Value::Array(Vec::new())));
    }
    let mut object = Map::new();
    for (field, value) in descriptor.fields.iter().zip(values) {
        match value {
            // An embedded Go struct (`json:",inline"`): its fields are the parent's.
            Some(Value::Object(inner)) if field.json.is_empty() => object.extend(inner),
            Some(Value::Null) if field.omitzero => {}
            Some(value) if field.keep_zero || !is_zero_scalar(&value) => {
                object.insert(field.json.to_owned(), value);
            }
            _ => {}
        }
    }
    Ok(Value::Object(object))
}

fn is_zero_scalar(value: &Value) -> bool {
    match value {
        Value::String(text) => text.is_empty(),
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::Bool(flag) => !flag,
        _ => false,
    }
}

/// Adds one wire occurrence of `field` to what was read of it so far.
fn merge(slot: &mut Option<Value>, field: &F, wire: Wire, depth: usize) -> Result<(), DecodeError> {
    match (&field.ty, field.repeated) {
        (Ty::Map(value_ty), _) => {
            let Wire::Bytes(entry) = wire else {
                return Err(wrong_wire(field));
            };
            let (key, value) = map_entry(value_ty, entry, depth)?;
            let map = slot.get_or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(map) = map {
                map.insert(key, value);
            }
        }
        (ty, true) => {
            let items = slot.get_or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = items {
                match (ty, wire) {
                    (Ty::String | Ty::Bytes | Ty::Message(_), _) => {
                        items.push(single(ty, wire, field, depth)?)
                    }
                    (_, Wire::Bytes(mut packed)) => {
                        while !packed.is_empty() {
                            let item = packed_item(ty, &mut packed)?;
                            items.push(single(ty, item, field, depth)?);
                        }
                    }
                    (_, wire) => items.push(single(ty, wire, field, depth)?),
                }
            }
        }
        (ty, false) => *slot = Some(single(ty, wire, field, depth)?),
    }
    Ok(())
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

fn wrong_wire(field: &F) -> DecodeError {
    malformed(format!("field {} has the wrong wire type", field.json))
}

/// A map entry: key (field 1, a string) and value (field 2).
fn map_entry(value_ty: &Ty, entry: &[u8], depth: usize) -> Result<(String, Value), DecodeError> {
    let mut key = String::new();
    let mut value = None;
    let value_field = F {
        number: 2,
        json: "value",
        ty: Ty::Bool,
        repeated: false,
        keep_zero: true,
        omitzero: false,
    };
    for (number, wire) in wire::fields(entry)? {
        match (number, wire) {
            (1, Wire::Bytes(bytes)) => key = utf8(bytes)?,
            (2, wire) => value = Some(single(value_ty, wire, &value_field, depth)?),
            _ => {}
        }
    }
    let value = match value {
        Some(value) => value,
        None => zero(value_ty, depth)?,
    };
    Ok((key, value))
}

/// The value of a map entry that carries none: the type's zero value.
fn zero(ty: &Ty, depth: usize) -> Result<Value, DecodeError> {
    match ty {
        Ty::Message(name) => message(name, &[], depth + 1),
        Ty::Bool => Ok(Value::Bool(false)),
        Ty::String | Ty::Bytes => Ok(Value::String(String::new())),
        _ => Ok(Value::from(0)),
    }
}

fn utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| malformed("a string is not valid UTF-8"))
}

/// One value of type `ty`.
fn single(ty: &Ty, wire: Wire, field: &F, depth: usize) -> Result<Value, DecodeError> {
    Ok(match (ty, wire) {
        (Ty::String, Wire::Bytes(bytes)) => Value::String(utf8(bytes)?),
        (Ty::Bytes, Wire::Bytes(bytes)) => Value::String(BASE64_STANDARD.encode(bytes)),
        (Ty::Message(name), Wire::Bytes(bytes)) => message(name, bytes, depth + 1)?,
        (Ty::Bool, Wire::Varint(v)) => Value::Bool(v != 0),
        (Ty::Int32, Wire::Varint(v)) => Value::from(wire::int32(v)),
        (Ty::Int64, Wire::Varint(v)) => Value::from(v as i64),
        (Ty::Double, Wire::Fixed64(v)) => float(f64::from_bits(v))?,
        _ => return Err(wrong_wire(field)),
    })
}

fn float(number: f64) -> Result<Value, DecodeError> {
    serde_json::Number::from_f64(number)
        .map(Value::Number)
        .ok_or_else(|| malformed("a number is not finite"))
}

/// The JSON of the messages whose Go types marshal themselves; None for the others.
fn special(name: &str, bytes: &[u8], depth: usize) -> Result<Option<Value>, DecodeError> {
    let Some((package, short)) = name.rsplit_once('.') else {
        return Ok(None);
    };
    let value = match (package, short) {
        (META, "Time") => super::special::time(bytes, false)?,
        (META, "MicroTime") => super::special::time(bytes, true)?,
        (META, "Duration") => super::special::duration(bytes)?,
        (META, "FieldsV1") | ("k8s.io.apimachinery.pkg.runtime", "RawExtension") => {
            super::special::raw_json(bytes, depth)?
        }
        ("k8s.io.apimachinery.pkg.api.resource", "Quantity") => super::special::quantity(bytes)?,
        ("k8s.io.apimachinery.pkg.util.intstr", "IntOrString") => {
            super::special::int_or_string(bytes)?
        }
        (p, "JSON") if p.starts_with(EXTENSIONS) => super::special::raw_json(bytes, depth)?,
        (
            p,
            "JSONSchemaPropsOrBool" | "JSONSchemaPropsOrArray" | "JSONSchemaPropsOrStringArray",
        ) if p.starts_with(EXTENSIONS) => {
            super::special::schema_or(name, plain(name, bytes, depth)?)?
        }
        _ => return Ok(None),
    };
    Ok(Some(value))
}
