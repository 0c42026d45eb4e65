//! What selectors read from a stored object — its name, namespace, labels and the values of its
//! resource's other selectable fields — packed in one buffer: two allocations per object however
//! many labels it has, which matters when the store writes and drops objects by the hundred
//! thousand.

use super::resources::ResourceType;

/// The field selectors a resource supports.
pub fn selectable_fields(resource: &ResourceType) -> &'static [&'static str] {
    const COMMON: &[&str] = &["metadata.name", "metadata.namespace"];
    const POD: &[&str] = &[
        "metadata.name",
        "metadata.namespace",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "status.phase",
        "status.podIP",
    ];
    const SECRET: &[&str] = &["metadata.name", "metadata.namespace", "type"];
    const EVENT: &[&str] = &[
        "metadata.name",
        "metadata.namespace",
        "involvedObject.apiVersion",
        "involvedObject.fieldPath",
        "involvedObject.kind",
        "involvedObject.name",
        "involvedObject.namespace",
        "involvedObject.resourceVersion",
        "involvedObject.uid",
        "reason",
        "reportingComponent",
        "type",
    ];
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "pods") => POD,
        ("", "secrets") => SECRET,
        ("", "events") => EVENT,
        _ => COMMON,
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
    fields: &'static [&'static str],
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
        mut field: impl FnMut(&'static str) -> Option<T>,
    ) -> Option<Selectable> {
        let fields = selectable_fields(resource).get(2..).unwrap_or_default();
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
        for (bit, path) in fields.iter().enumerate().take(64) {
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
                let bit = self.fields.iter().position(|f| *f == field)?;
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
