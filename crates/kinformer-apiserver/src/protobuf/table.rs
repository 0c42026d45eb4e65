//! The message descriptors of the built-in kinds' protobuf, captured from the `generated.proto`
//! files of k8s.io/api, apimachinery, apiextensions-apiserver and kube-aggregator by
//! `scripts/protobuf-capture` into `protobuf/v1.37.2/messages.rs`, with each field's JSON name,
//! and whether Go's JSON keeps its zero value (a pointer, or no `omitempty`), from the Go
//! structs beside them.

/// A field's type: a scalar, a message by full name, or a `map<string, V>`.
#[derive(Debug)]
pub enum Ty {
    String,
    Bytes,
    Bool,
    Int32,
    Int64,
    Double,
    Message(&'static str),
    Map(&'static Ty),
}

/// One field of a message.
#[derive(Debug)]
pub struct F {
    /// The protobuf field number.
    pub number: u32,
    /// The JSON name (the Go struct's `json` tag); empty for an embedded struct, whose
    /// fields are inlined.
    pub json: &'static str,
    pub ty: Ty,
    pub repeated: bool,
    /// Go's JSON writes the field's zero value (`""`, `0`, `false`): a pointer, or not
    /// `omitempty`.
    pub keep_zero: bool,
    /// Go's JSON leaves out the zero value of a struct too (`omitzero`: a zero `Time` is
    /// absent rather than null).
    pub omitzero: bool,
}

/// One message.
#[derive(Debug)]
pub struct Message {
    /// The full name, e.g. `k8s.io.api.core.v1.ConfigMap`.
    pub name: &'static str,
    /// A `+protobuf.nullable=true` wrapper of a Go slice type (`ExtraValue`): its JSON is the
    /// `items` array itself.
    pub items_wrapper: bool,
    pub fields: &'static [F],
}

include!("../../protobuf/v1.37.2/messages.rs");

/// The message of that full name.
pub fn message(name: &str) -> Option<&'static Message> {
    MESSAGES
        .binary_search_by(|m| m.name.cmp(name))
        .ok()
        .map(|index| &MESSAGES[index])
}

/// The message of a kind in an apiVersion (`apps/v1`, `Deployment`).
pub fn kind(api_version: &str, kind: &str) -> Option<&'static Message> {
    let (_, package) = PACKAGES.iter().find(|(v, _)| *v == api_version)?;
    message(&format!("{package}.{kind}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_are_sorted_for_binary_search() {
        assert!(MESSAGES.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn every_served_kind_has_a_message() {
        let missing: Vec<String> = crate::catalog::ROWS
            .iter()
            .filter_map(|row| {
                let api_version = if row.group.is_empty() {
                    row.version.to_owned()
                } else {
                    format!("{}/{}", row.group, row.version)
                };
                kind(&api_version, row.kind)
                    .is_none()
                    .then(|| format!("{api_version} {}", row.kind))
            })
            .collect();
        assert_eq!(missing, Vec::<String>::new());
    }

    #[test]
    fn every_referenced_message_is_in_the_table() {
        let missing: Vec<&str> = MESSAGES
            .iter()
            .flat_map(|m| m.fields)
            .filter_map(|f| match &f.ty {
                Ty::Message(name) | Ty::Map(Ty::Message(name)) => Some(*name),
                _ => None,
            })
            .filter(|name| message(name).is_none())
            .collect();
        assert_eq!(missing, Vec::<&str>::new());
    }
}
