//! Ingest: raw JSON from the reflector becomes a cached object — the transform (Rule F7) runs
//! once, the metadata is read, and every index function's values are computed, all before the
//! object is queued.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::object::{CachedObject, DecodeError, ObjectMeta, ObjectRef, Text};
use super::store::Indexers;

/// A transform run once on every object before it is queued (Rule F7), on its raw JSON.
pub type Transform = Arc<dyn Fn(&[u8]) -> Result<Vec<u8>, TransformError> + Send + Sync>;

/// Why a transform refused an object: any error, as client-go's `TransformFunc` returns an
/// `error`. The object is dropped (a listed one fails the LIST; a watched one is traced and
/// the watch goes on).
pub type TransformError = Box<dyn std::error::Error + Send + Sync>;

/// The built-in `--transform strip-managed-fields`.
pub fn strip_managed_fields() -> Transform {
    Arc::new(|raw| remove_metadata_field(raw, "managedFields"))
}

/// Turns raw JSON into cached objects: transform, parse metadata, compute index values.
#[derive(Clone)]
pub struct Ingest {
    indexers: Indexers,
    transform: Option<Transform>,
}

impl Ingest {
    /// Decodes with `indexers`' functions and, if given, `transform` first.
    pub fn new(indexers: Indexers, transform: Option<Transform>) -> Self {
        Self {
            indexers,
            transform,
        }
    }

    /// `raw` becomes the cached object's bytes, unless a transform rewrites them.
    pub fn decode(&self, raw: impl Into<Bytes>) -> Result<ObjectRef, DecodeError> {
        let raw = raw.into();
        let obj = match &self.transform {
            Some(t) => {
                let transformed = t(&raw).map_err(|e| DecodeError::Transform(e.to_string()))?;
                CachedObject::from_json(transformed)?
            }
            // The reflector's bytes were delimited by a JSON parser: valid, so read only the head.
            None => CachedObject::from_valid_json(raw)?,
        };
        Ok(self.indexed(obj))
    }

    /// [`Ingest::decode`] for a watched object whose metadata the frame parser read while it
    /// validated the bytes `raw` holds (a copy of them): that metadata is used as it is, unless
    /// a transform rewrites the bytes.
    pub fn decode_scanned(
        &self,
        raw: Bytes,
        meta: Option<ObjectMeta>,
    ) -> Result<ObjectRef, DecodeError> {
        match meta {
            Some(meta) if self.transform.is_none() => {
                Ok(self.indexed(CachedObject::from_scanned(meta, raw)))
            }
            _ => self.decode(raw),
        }
    }

    /// `obj` with the values of every index function.
    fn indexed(&self, obj: CachedObject) -> ObjectRef {
        let values = self.indexers.compute(&obj);
        Arc::new(obj.with_index_values(values))
    }
}

/// Rewrites `raw` without `metadata.<field>`, keeping every other byte's order and text.
fn remove_metadata_field(raw: &[u8], field: &str) -> Result<Vec<u8>, TransformError> {
    let top: OrderedObject<'_> = serde_json::from_slice(raw)?;
    let mut out = Vec::with_capacity(raw.len());
    write_object(
        &mut out,
        top.0.iter().map(|(k, v)| {
            if k != "metadata" {
                return Ok((k, v.get().to_owned()));
            }
            let meta: OrderedObject<'_> = serde_json::from_str(v.get())?;
            let mut inner = Vec::new();
            write_object(
                &mut inner,
                meta.0
                    .iter()
                    .filter(|(mk, _)| mk != field)
                    .map(|(mk, mv)| Ok((mk, mv.get().to_owned()))),
            )?;
            Ok((k, String::from_utf8_lossy(&inner).into_owned()))
        }),
    )?;
    Ok(out)
}

fn write_object<'k>(
    out: &mut Vec<u8>,
    fields: impl Iterator<Item = Result<(&'k Cow<'k, str>, String), serde_json::Error>>,
) -> Result<(), serde_json::Error> {
    out.push(b'{');
    for (i, field) in fields.enumerate() {
        let (k, v) = field?;
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, k.as_ref())?;
        out.push(b':');
        out.extend_from_slice(v.as_bytes());
    }
    out.push(b'}');
    Ok(())
}

/// A JSON object's members in document order, values left raw.
struct OrderedObject<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for OrderedObject<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Members<'a> {
            type Value = OrderedObject<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Self::Value, M::Error> {
                let mut members = Vec::new();
                // Keys borrow from the input unless escaped (serde's Cow<str> would copy each).
                while let Some(Text(k)) = m.next_key::<Text<'de>>()? {
                    members.push((k, m.next_value::<&'de RawValue>()?));
                }
                Ok(OrderedObject(members))
            }
        }
        d.deserialize_map(Members(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_managed_fields_removes_only_that_field_and_keeps_order() {
        let raw = br#"{"kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"kubectl"}],"uid":"u"},"spec":{"a":1}}"#;
        let out = strip_managed_fields()(raw).unwrap();
        assert_eq!(
            out,
            br#"{"kind":"Pod","metadata":{"name":"p","uid":"u"},"spec":{"a":1}}"#
        );
        assert!(strip_managed_fields()(b"nope").is_err());
    }
}
