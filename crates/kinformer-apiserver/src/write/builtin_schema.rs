//! Server-side apply's list and map types for a built-in kind, read from the kind's schema in
//! kube-apiserver's captured OpenAPI v3 documents ([`crate::openapi_data`]), as its field
//! manager's type converter reads them (kube-openapi `pkg/schemaconv/smd.go`,
//! `getListElementRelationship` and `getMapElementRelationship`):
//!
//! - a list is what its `x-kubernetes-list-type` says (`map` keyed by
//!   `x-kubernetes-list-map-keys`); without one, a `x-kubernetes-patch-strategy` of `merge` makes
//!   it a map keyed by its `x-kubernetes-patch-merge-key` (a set without a key); any other list
//!   is atomic;
//! - a map or struct is atomic when it (or the type it refers to) says
//!   `x-kubernetes-map-type: atomic` (`+structType=atomic`: a label selector, a RoleBinding's
//!   `roleRef`, an ObjectReference), granular otherwise.
//!
//! The same schemas give strategic merge patch its list strategies ([`BuiltinSchema::
//! patch_strategy`]): `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` are the
//! `patchStrategy`/`patchMergeKey` struct tags kube-apiserver's strategicpatch reads
//! (`PatchMetaFromStruct`). [`BuiltinSchema::object_meta`] is ObjectMeta's alone, for the
//! metadata of the objects without a built-in schema (custom resources).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use serde_json::{Map, Value};

use super::list_types::{ListStrategy, ListType};
use crate::field_validation::find_kind;
use crate::openapi_data;
use crate::resources::ResourceType;

/// One built-in kind's schema and the document's schemas its references name.
pub struct BuiltinSchema {
    schemas: &'static Map<String, Value>,
    root: Value,
}

/// The schemas found so far, by group, version and kind (None: not in the capture).
type Found = HashMap<(String, String, String), Option<&'static BuiltinSchema>>;

static FOUND: LazyLock<Mutex<Found>> = LazyLock::new(Mutex::default);

impl BuiltinSchema {
    /// The schema of `resource` (a built-in) in `version`, found once and kept.
    pub fn of(resource: &ResourceType, version: &str) -> Option<&'static BuiltinSchema> {
        if resource.custom {
            return None;
        }
        let key = (
            resource.group.clone(),
            version.to_owned(),
            resource.kind.clone(),
        );
        let mut found = FOUND
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *found.entry(key).or_insert_with(|| {
            let schema = Self::find(&resource.group, version, &resource.kind)?;
            Some(Box::leak(Box::new(schema)))
        })
    }

    fn find(group: &str, version: &str, kind: &str) -> Option<BuiltinSchema> {
        let path = match group {
            "" => format!("api/{version}"),
            group => format!("apis/{group}/{version}"),
        };
        let document = openapi_data::v3_static(&path)?;
        Some(BuiltinSchema {
            schemas: document["components"]["schemas"].as_object()?,
            root: find_kind(document, group, version, kind)?,
        })
    }

    /// The list type of the list at `path` (field names from the object's root, list
    /// elements not counted); atomic where the schema does not describe it.
    pub fn list_type(&'static self, path: &[&str]) -> ListType<'static> {
        let Some(node) = self.node_at(path) else {
            return ListType::Atomic;
        };
        let strings = |name: &str| -> Vec<&'static str> {
            match node.get(name) {
                Some(Value::Array(keys)) => keys.iter().filter_map(Value::as_str).collect(),
                Some(Value::String(key)) => vec![key.as_str()],
                _ => Vec::new(),
            }
        };
        match extension(node, "x-kubernetes-list-type") {
            Some("set") => return ListType::Set,
            Some("map") => return map_or_atomic(strings("x-kubernetes-list-map-keys")),
            Some(_) => return ListType::Atomic,
            None => {}
        }
        match extension(node, "x-kubernetes-patch-strategy") {
            Some("merge" | "merge,retainKeys") => match strings("x-kubernetes-patch-merge-key") {
                keys if keys.is_empty() => ListType::Set,
                keys => ListType::Map(keys),
            },
            _ => ListType::Atomic,
        }
    }

    /// How a strategic merge patch merges the list at `path`: by its merge key, or as a
    /// union of scalars, when its patch strategy names `merge` (`merge,retainKeys` too);
    /// replaced otherwise, and where the schema does not describe the path.
    pub fn patch_strategy(&'static self, path: &[&str]) -> ListStrategy {
        let Some(node) = self.node_at(path) else {
            return ListStrategy::Replace;
        };
        let merges = extension(node, "x-kubernetes-patch-strategy")
            .is_some_and(|strategy| strategy.split(',').any(|s| s == "merge"));
        match (merges, extension(node, "x-kubernetes-patch-merge-key")) {
            (false, _) => ListStrategy::Replace,
            (true, Some(key)) => ListStrategy::MergeKey(key),
            (true, None) => ListStrategy::MergeScalars,
        }
    }

    /// ObjectMeta's schema (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` of the core
    /// document), its paths starting inside `metadata`.
    pub fn object_meta() -> Option<&'static BuiltinSchema> {
        static OBJECT_META: LazyLock<Option<BuiltinSchema>> = LazyLock::new(|| {
            let schemas =
                openapi_data::v3_static("api/v1")?["components"]["schemas"].as_object()?;
            let root = schemas
                .get("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")?
                .clone();
            Some(BuiltinSchema { schemas, root })
        });
        OBJECT_META.as_ref()
    }

    /// Whether the map or struct at `path` is atomic: marked so, or an object the schema
    /// gives neither properties nor additional properties (a `RawExtension`, a
    /// ControllerRevision's `data`), which the field manager's converter types as
    /// `__untyped_atomic_` (kube-openapi `pkg/schemaconv/smd.go`, `convertKind` of an object
    /// without fields; `untypedDef`).
    pub fn is_atomic_map(&self, path: &[&str]) -> bool {
        self.node_at(path).is_some_and(|node| {
            let atomic = |n: &Value| extension(n, "x-kubernetes-map-type") == Some("atomic");
            let resolved = self.resolve(node);
            atomic(node) || atomic(resolved) || is_untyped_object(resolved)
        })
    }

    /// The (unresolved) schema of the value at `path`: each name a property (or the
    /// `additionalProperties`) of the object before it, through any list's `items`.
    fn node_at(&self, path: &[&str]) -> Option<&Value> {
        let mut node = &self.root;
        for name in path {
            let object = self.element(node);
            node = object
                .get("properties")
                .and_then(|p| p.get(*name))
                .or_else(|| object.get("additionalProperties").filter(|a| a.is_object()))?;
        }
        Some(node)
    }

    /// The object schema a node's values are: its lists' elements, references followed.
    fn element<'s>(&'s self, mut node: &'s Value) -> &'s Value {
        for _ in 0..8 {
            node = self.resolve(node);
            match (extension(node, "type"), node.get("items")) {
                (Some("array"), Some(items)) => node = items,
                _ => break,
            }
        }
        node
    }

    /// Follows `$ref` and `allOf: [{$ref}]` to the schema meant.
    fn resolve<'s>(&'s self, mut node: &'s Value) -> &'s Value {
        for _ in 0..8 {
            let reference = node["$ref"]
                .as_str()
                .or_else(|| node["allOf"][0]["$ref"].as_str())
                .and_then(|r| r.strip_prefix("#/components/schemas/"));
            match reference.and_then(|name| self.schemas.get(name)) {
                Some(next) => node = next,
                None => break,
            }
        }
        node
    }
}

/// A map list keyed by `keys` (atomic without keys, as the field manager's converter makes
/// it after its error).
fn map_or_atomic(keys: Vec<&'static str>) -> ListType<'static> {
    match keys.is_empty() {
        true => ListType::Atomic,
        false => ListType::Map(keys),
    }
}

/// An object schema with no fields of its own, nor free ones: opaque to the field manager.
fn is_untyped_object(node: &Value) -> bool {
    extension(node, "type") == Some("object")
        && node.get("properties").is_none()
        && node.get("additionalProperties").is_none()
        && node.get("x-kubernetes-preserve-unknown-fields").is_none()
}

fn extension<'s>(node: &'s Value, name: &str) -> Option<&'s str> {
    node.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(group: &str, version: &str, kind: &str) -> &'static BuiltinSchema {
        let mut resource = crate::resources::builtins().remove(0);
        resource.group = group.into();
        resource.kind = kind.into();
        BuiltinSchema::of(&resource, version).expect("captured")
    }

    #[test]
    fn lists_follow_list_types_then_patch_strategies() {
        let job = schema("batch", "v1", "Job");
        let containers = ["spec", "template", "spec", "containers"];
        assert_eq!(job.list_type(&containers), ListType::Map(vec!["name"]));
        let ports = ["spec", "template", "spec", "containers", "ports"];
        assert_eq!(
            job.list_type(&ports),
            ListType::Map(vec!["containerPort", "protocol"])
        );
        let args = ["spec", "template", "spec", "containers", "args"];
        assert_eq!(job.list_type(&args), ListType::Atomic);
        assert_eq!(job.list_type(&["metadata", "finalizers"]), ListType::Set);
        let pod = schema("", "v1", "Pod");
        assert_eq!(
            pod.list_type(&["status", "conditions"]),
            ListType::Map(vec!["type"])
        );
        assert_eq!(pod.list_type(&["spec", "tolerations"]), ListType::Atomic);
    }

    #[test]
    fn structs_and_maps_marked_atomic_are_atomic() {
        let job = schema("batch", "v1", "Job");
        assert!(job.is_atomic_map(&["spec", "selector"]));
        assert!(!job.is_atomic_map(&["spec"]));
        assert!(!job.is_atomic_map(&["metadata", "labels"]));
        let binding = schema("rbac.authorization.k8s.io", "v1", "RoleBinding");
        assert!(binding.is_atomic_map(&["roleRef"]));
        let controller = schema("", "v1", "ReplicationController");
        assert!(controller.is_atomic_map(&["spec", "selector"]));
        let revision = schema("apps", "v1", "ControllerRevision");
        assert!(
            revision.is_atomic_map(&["data"]),
            "a RawExtension is opaque"
        );
        assert!(!revision.is_atomic_map(&["metadata"]));
    }
}
