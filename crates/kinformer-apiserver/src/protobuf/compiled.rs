//! The descriptor table compiled once for the answer decoder's speed: per message, a field
//! number → field index lookup, each message-typed field's message resolved to an index (no
//! name lookup per object), each field's JSON key written out (`"name":`), whether Go's JSON
//! writes `null` for the field when the wire leaves it out, and which messages write their
//! own JSON (`special`).

use std::sync::OnceLock;

use super::table::{self, F, MESSAGES, Message, Ty};

const META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1";
const EXTENSIONS: &str = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions";

/// The messages whose Go types marshal themselves (see `special.rs` for their forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Time,
    MicroTime,
    Duration,
    /// `FieldsV1`, `RawExtension`, apiextensions' `JSON`: the raw JSON in field 1.
    RawJson,
    Quantity,
    IntOrString,
    SchemaOrBool,
    SchemaOrArray,
    SchemaOrStringArray,
}

/// One field, compiled.
pub struct Field {
    pub spec: &'static F,
    /// `"json":`, or empty for an embedded struct (its fields are inlined).
    pub key: Box<[u8]>,
    /// The message (index in [`MESSAGES`]) of a message or map-of-message field.
    pub message: Option<usize>,
    /// Go's JSON writes `null` for the field when it is absent on the wire: a slice or map
    /// without `omitempty` (nil after decoding), a pointer without `omitempty`.
    pub null_when_absent: bool,
}

/// One message, compiled.
pub struct Compiled {
    pub message: &'static Message,
    pub fields: Box<[Field]>,
    /// Field number → index in `fields` + 1 (0: unknown), for numbers below its length.
    by_number: Box<[u16]>,
    pub special: Option<Special>,
}

impl Compiled {
    /// The index of the field numbered `number`.
    pub fn field_index(&self, number: u32) -> Option<usize> {
        let slot = *self.by_number.get(usize::try_from(number).ok()?)?;
        (slot != 0).then(|| usize::from(slot) - 1)
    }
}

include!("../../protobuf/v1.37.2/null_pointers.rs");

/// Every message, compiled, in [`MESSAGES`] order.
pub fn all() -> &'static [Compiled] {
    static ALL: OnceLock<Vec<Compiled>> = OnceLock::new();
    ALL.get_or_init(|| MESSAGES.iter().map(compile).collect())
}

/// The index in [`MESSAGES`] of the message named `name`.
pub fn index_of(name: &str) -> Option<usize> {
    MESSAGES.binary_search_by(|m| m.name.cmp(name)).ok()
}

/// The index of the message of a kind in an apiVersion (`v1`, `Pod`); `Status` is meta's.
pub fn kind_index(api_version: &str, kind: &str) -> Option<usize> {
    if kind == "Status" && api_version == "v1" {
        return index_of(&format!("{META}.Status"));
    }
    index_of(table::kind(api_version, kind)?.name)
}

fn compile(message: &'static Message) -> Compiled {
    let top = message.fields.iter().map(|f| f.number).max().unwrap_or(0);
    let mut by_number = vec![0u16; usize::try_from(top).unwrap_or(0) + 1];
    for (index, field) in message.fields.iter().enumerate() {
        if let (Ok(number), Ok(slot)) = (usize::try_from(field.number), u16::try_from(index + 1)) {
            by_number[number] = slot;
        }
    }
    let fields = message
        .fields
        .iter()
        .map(|spec| compile_field(message.name, spec))
        .collect();
    Compiled {
        message,
        fields,
        by_number: by_number.into(),
        special: special(message.name),
    }
}

fn compile_field(message: &str, spec: &'static F) -> Field {
    let key = if spec.json.is_empty() {
        Box::default()
    } else {
        format!("\"{}\":", spec.json).into_bytes().into()
    };
    let target = match &spec.ty {
        Ty::Message(name) | Ty::Map(Ty::Message(name)) => index_of(name),
        _ => None,
    };
    let collection = spec.repeated || matches!(spec.ty, Ty::Map(_));
    let pointer = NULL_POINTERS.binary_search(&(message, spec.number)).is_ok();
    Field {
        spec,
        key,
        message: target,
        null_when_absent: (collection && spec.keep_zero) || pointer,
    }
}

fn special(name: &str) -> Option<Special> {
    let (package, short) = name.rsplit_once('.')?;
    Some(match (package, short) {
        (META, "Time") => Special::Time,
        (META, "MicroTime") => Special::MicroTime,
        (META, "Duration") => Special::Duration,
        (META, "FieldsV1") | ("k8s.io.apimachinery.pkg.runtime", "RawExtension") => {
            Special::RawJson
        }
        ("k8s.io.apimachinery.pkg.api.resource", "Quantity") => Special::Quantity,
        ("k8s.io.apimachinery.pkg.util.intstr", "IntOrString") => Special::IntOrString,
        (p, "JSON") if p.starts_with(EXTENSIONS) => Special::RawJson,
        (p, "JSONSchemaPropsOrBool") if p.starts_with(EXTENSIONS) => Special::SchemaOrBool,
        (p, "JSONSchemaPropsOrArray") if p.starts_with(EXTENSIONS) => Special::SchemaOrArray,
        (p, "JSONSchemaPropsOrStringArray") if p.starts_with(EXTENSIONS) => {
            Special::SchemaOrStringArray
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_null_pointer_names_a_field_of_the_table() {
        let missing: Vec<_> = NULL_POINTERS
            .iter()
            .filter(|(name, number)| {
                table::message(name).is_none_or(|m| m.fields.iter().all(|f| f.number != *number))
            })
            .collect();
        assert_eq!(missing, Vec::<&(&str, u32)>::new());
        assert!(NULL_POINTERS.windows(2).all(|w| w[0] < w[1]), "sorted");
    }

    #[test]
    fn fields_are_found_by_number_and_messages_resolved() {
        let pod_spec = &all()[index_of("k8s.io.api.core.v1.PodSpec").unwrap_or(usize::MAX)];
        let node_name = pod_spec
            .field_index(10)
            .map(|i| pod_spec.fields[i].spec.json);
        assert_eq!(node_name, Some("nodeName"));
        assert_eq!(pod_spec.field_index(9999), None);
        let containers = pod_spec.field_index(2).map(|i| &pod_spec.fields[i]);
        assert!(containers.is_some_and(|f| f.message.is_some() && f.null_when_absent));
    }
}
