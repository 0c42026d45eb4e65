//! What selectors read from a stored object — its name, namespace, labels and the values of its
//! resource's other selectable fields — packed in one buffer: two allocations per object however
//! many labels it has, which matters when the store writes and drops objects by the hundred
//! thousand; and which field selector labels each resource accepts, as kube-apiserver's field
//! label conversions accept them.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::resources::ResourceType;

/// How a kind's field label conversion refuses a label it does not know.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// The kinds with an `AddFieldLabelConversionFunc` of their own (`pkg/apis/core/v1/
    /// conversion.go`) and custom resources (`apiextensions-apiserver/pkg/apiserver/conversion/
    /// converter.go`, `ConvertFieldLabel`).
    NotSupported,
    /// Every other kind: `runtime.DefaultMetaV1FieldSelectorConversion`
    /// (`apimachinery/pkg/runtime/conversion.go`).
    NotKnown,
}

/// `metadata.name` and `metadata.namespace`: what every kind without a conversion of its own
/// accepts.
const METADATA: &[&str] = &["metadata.name", "metadata.namespace"];

/// The field labels kube-apiserver's conversion accepts for a resource's kind, and how it
/// refuses the others (`pkg/apis/core/v1/conversion.go`: Pod, Node, Event, Namespace, Secret,
/// Service; apps/v1 registers none, so a ReplicaSet's `status.replicas`, selectable in its
/// strategy, is refused before it is looked at).
fn field_labels(resource: &ResourceType) -> (&'static [&'static str], Refusal) {
    const POD: &[&str] = &[
        "metadata.name",
        "metadata.namespace",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ];
    const EVENT: &[&str] = &[
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
        "metadata.namespace",
        "metadata.name",
    ];
    use Refusal::{NotKnown, NotSupported};
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "pods") => (POD, NotSupported),
        ("", "nodes") => (&["metadata.name", "spec.unschedulable"], NotSupported),
        ("", "events") => (EVENT, NotSupported),
        ("", "namespaces") => (&["status.phase", "metadata.name"], NotSupported),
        ("", "secrets") => (
            &["type", "metadata.namespace", "metadata.name"],
            NotSupported,
        ),
        ("", "services") => (
            &[
                "metadata.namespace",
                "metadata.name",
                "spec.clusterIP",
                "spec.type",
            ],
            NotSupported,
        ),
        _ if resource.custom && !resource.namespaced => (&["metadata.name"], NotSupported),
        _ if resource.custom => (METADATA, NotSupported),
        _ => (METADATA, NotKnown),
    }
}

/// The field a field selector's `label` selects on at `version`, converted as kube-apiserver
/// converts it (a pod's legacy `spec.host` is `spec.nodeName`; a custom resource's version
/// adds its declared `selectableFields`); the message of its 400 when the resource's kind does
/// not accept it.
pub fn convert_label(
    resource: &ResourceType,
    version: &str,
    label: &str,
) -> Result<String, String> {
    if resource.is_pod() && label == "spec.host" {
        return Ok("spec.nodeName".into());
    }
    if resource.declares_selectable(version, label) {
        return Ok(label.to_owned());
    }
    let (accepted, refusal) = field_labels(resource);
    accepted
        .iter()
        .find(|accepted| **accepted == label)
        .map(|accepted| (*accepted).to_owned())
        .ok_or_else(|| match refusal {
            Refusal::NotSupported => format!("field label not supported: {label}"),
            Refusal::NotKnown => format!(
                "{label:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
            ),
        })
}

/// The names of the fields beyond name and namespace whose values an object keeps.
#[derive(Debug, Clone)]
enum Fields {
    /// A built-in kind's, from its strategy.
    Builtin(&'static [&'static str]),
    /// A custom resource's declared `selectableFields`.
    Custom(Arc<[String]>),
}

impl Default for Fields {
    fn default() -> Self {
        Fields::Builtin(&[])
    }
}

impl Fields {
    /// Field number `index`.
    fn get(&self, index: usize) -> Option<&str> {
        match self {
            Fields::Builtin(names) => names.get(index).copied(),
            Fields::Custom(names) => names.get(index).map(String::as_str),
        }
    }

    /// The number of `field`.
    fn position(&self, field: &str) -> Option<usize> {
        (0..64).map_while(|i| self.get(i)).position(|f| f == field)
    }
}

/// The fields whose values a resource's objects keep: a custom resource's declared
/// `selectableFields`, a built-in's [`builtin_value_fields`].
fn value_fields(resource: &ResourceType) -> Fields {
    if resource.custom {
        Fields::Custom(Arc::clone(&resource.selectable_union))
    } else {
        Fields::Builtin(builtin_value_fields(resource))
    }
}

/// The fields beyond name and namespace a built-in's strategy gives its objects' values of
/// (its `GetAttrs`); an accepted label not among them (a pod's `status.podIPs`) reads empty.
fn builtin_value_fields(resource: &ResourceType) -> &'static [&'static str] {
    const POD: &[&str] = &[
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ];
    const EVENT: &[&str] = &[
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ];
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "pods") => POD,
        ("", "nodes") => &["spec.unschedulable"],
        ("", "events") => EVENT,
        ("", "namespaces") => &["status.phase"],
        ("", "secrets") => &["type"],
        ("", "services") => &["spec.clusterIP", "spec.type"],
        _ => &[],
    }
}

/// The text of `field` in `object` as the strategies' `GetAttrs` write it: a boolean as
/// `true`/`false` (false when absent), a pod's IP its first `podIPs` entry's, an event's
/// `source` its source component or else its reporting controller; otherwise the scalar at
/// its path as Go's `fmt.Sprint` writes it (a custom resource's `selectableFields`).
pub fn field_text<'v>(object: &'v Value, field: &str) -> Option<Cow<'v, str>> {
    let at = |path: &str| path.split('.').try_fold(object, |at, name| at.get(name));
    let text = |path: &str| at(path).and_then(Value::as_str).map(Cow::Borrowed);
    match field {
        "spec.hostNetwork" | "spec.unschedulable" => {
            let set = at(field).and_then(Value::as_bool).unwrap_or(false);
            Some(Cow::Borrowed(if set { "true" } else { "false" }))
        }
        "status.podIP" => object
            .pointer("/status/podIPs/0/ip")
            .and_then(Value::as_str)
            .map(Cow::Borrowed)
            .or_else(|| text(field)),
        "source" => text("source.component")
            .filter(|c| !c.is_empty())
            .or_else(|| text("reportingComponent")),
        _ => match at(field)? {
            Value::String(text) => Some(Cow::Borrowed(text)),
            Value::Number(number) => Some(Cow::Owned(number.to_string())),
            Value::Bool(set) => Some(Cow::Borrowed(if *set { "true" } else { "false" })),
            _ => None,
        },
    }
}

/// A text to pack.
pub trait Text {
    /// Appends the text's UTF-8 bytes; false when it cannot.
    fn append_to(&self, out: &mut Vec<u8>) -> bool;
}

impl Text for &str {
    fn append_to(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(self.as_bytes());
        true
    }
}

impl Text for Cow<'_, str> {
    fn append_to(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(self.as_bytes());
        true
    }
}

/// The name, namespace, labels and selectable field values of one object.
#[derive(Debug, Default)]
pub struct Selectable {
    /// The texts, one after another.
    text: String,
    /// Where each text ends in `text`: the name, the namespace, each label's key and value (in
    /// key order), then the value of each field present.
    ends: Vec<u32>,
    /// How many labels there are.
    labels: usize,
    /// The resource's selectable fields beyond name and namespace.
    fields: Fields,
    /// Bit `i` set: `fields[i]` has a value.
    present: u64,
}

/// A [`Selectable`] being packed.
struct Packing {
    text: Vec<u8>,
    ends: Vec<u32>,
}

impl Packing {
    fn push(&mut self, text: &impl Text) -> Option<()> {
        text.append_to(&mut self.text).then_some(())?;
        self.ends.push(u32::try_from(self.text.len()).ok()?);
        Some(())
    }
}

impl Selectable {
    /// Packs an object's name, namespace (empty for cluster-scoped objects), labels (in key
    /// order) and, for each of `resource`'s other selectable fields, the text `field` finds at
    /// its path (None: the object has no string there). None when a text is not valid UTF-8.
    pub fn new<T: Text>(
        name: &str,
        namespace: &str,
        labels: impl IntoIterator<Item = (T, T)>,
        resource: &ResourceType,
        mut field: impl FnMut(&str) -> Option<T>,
    ) -> Option<Selectable> {
        let fields = value_fields(resource);
        let mut packing = Packing {
            text: Vec::with_capacity(name.len() + namespace.len() + 160),
            ends: Vec::with_capacity(16),
        };
        packing.push(&name)?;
        packing.push(&namespace)?;
        let mut count = 0;
        for (key, value) in labels {
            packing.push(&key)?;
            packing.push(&value)?;
            count += 1;
        }
        let mut present = 0;
        for (bit, path) in (0..64).map_while(|i| fields.get(i)).enumerate() {
            if let Some(value) = field(path) {
                packing.push(&value)?;
                present |= 1 << bit;
            }
        }
        Some(Selectable {
            // Not shrunk to fit: a reallocation costs more than the spare bytes.
            text: String::from_utf8(packing.text).ok()?,
            ends: packing.ends,
            labels: count,
            fields,
            present,
        })
    }

    /// Text number `index`.
    fn piece(&self, index: usize) -> &str {
        let start = index
            .checked_sub(1)
            .and_then(|before| self.ends.get(before))
            .map_or(0, |end| *end as usize);
        let end = self.ends.get(index).map_or(start, |end| *end as usize);
        self.text.get(start..end).unwrap_or_default()
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.piece(0)
    }

    /// `metadata.namespace`, empty for cluster-scoped objects.
    pub fn namespace(&self) -> &str {
        self.piece(1)
    }

    /// The value of label `key`.
    pub fn label(&self, key: &str) -> Option<&str> {
        (0..self.labels)
            .find(|i| self.piece(2 + 2 * i) == key)
            .map(|i| self.piece(3 + 2 * i))
    }

    /// The value of a selectable field.
    pub fn field(&self, field: &str) -> Option<&str> {
        match field {
            "metadata.name" => Some(self.name()),
            "metadata.namespace" => Some(self.namespace()),
            _ => {
                let bit = self.fields.position(field)?;
                let mask = 1u64.checked_shl(u32::try_from(bit).ok()?)?;
                if self.present & mask == 0 {
                    return None;
                }
                let before = (self.present & (mask - 1)).count_ones() as usize;
                Some(self.piece(2 + 2 * self.labels + before))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::Registry;

    #[test]
    fn every_piece_reads_back() {
        let registry = Registry::with_builtins();
        let Some(pods) = registry.find("", "v1", "pods") else {
            unreachable!("pods are built in")
        };
        let Some(selectable) = Selectable::new(
            "web",
            "prod",
            [("app", "web"), ("tier", "")],
            &pods,
            |field| match field {
                "spec.restartPolicy" => None,
                "spec.nodeName" => Some("<spec.nodeName>"),
                "status.podIP" => Some("<status.podIP>"),
                _ => Some("<other>"),
            },
        ) else {
            unreachable!("valid texts")
        };
        assert_eq!((selectable.name(), selectable.namespace()), ("web", "prod"));
        assert_eq!(selectable.label("app"), Some("web"));
        assert_eq!(selectable.label("tier"), Some(""));
        assert_eq!(selectable.label("web"), None);
        assert_eq!(selectable.field("metadata.name"), Some("web"));
        assert_eq!(selectable.field("spec.nodeName"), Some("<spec.nodeName>"));
        assert_eq!(selectable.field("spec.restartPolicy"), None);
        assert_eq!(selectable.field("status.podIP"), Some("<status.podIP>"));
        assert_eq!(selectable.field("type"), None);
    }
}
