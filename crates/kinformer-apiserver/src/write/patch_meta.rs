//! How a strategic merge patch merges each list of the served built-in types, and how
//! server-side apply treats the lists and maps of an object without a built-in schema. Both
//! come from kube-apiserver's captured OpenAPI schemas ([`BuiltinSchema`]): a list's
//! `x-kubernetes-patch-strategy`/`x-kubernetes-patch-merge-key` (the `patchStrategy`/
//! `patchMergeKey` struct tags of `k8s.io/api` that strategicpatch reads) say how a strategic
//! merge patch merges it; a list without a merge strategy is replaced whole, as kube-apiserver
//! replaces it. An object without a built-in schema (a custom resource) has ObjectMeta's for
//! its `metadata` and nothing else: its other lists are atomic, its maps granular.

use super::builtin_schema::BuiltinSchema;
use super::list_types::{ListStrategy, ListType};

/// How the list at `path` (field names from the object's root, list elements not counted)
/// merges in a strategic merge patch of an object whose kind has the built-in `schema`
/// (none: only `metadata`'s lists merge, by ObjectMeta's schema).
pub fn list_strategy(schema: Option<&'static BuiltinSchema>, path: &[&str]) -> ListStrategy {
    match (schema, path) {
        (Some(schema), path) => schema.patch_strategy(path),
        (None, ["metadata", rest @ ..]) => BuiltinSchema::object_meta()
            .map_or(ListStrategy::Replace, |meta| meta.patch_strategy(rest)),
        (None, _) => ListStrategy::Replace,
    }
}

/// Server-side apply's list type at `path` of an object without a built-in schema:
/// ObjectMeta's in `metadata`, atomic elsewhere.
pub fn list_type(path: &[&str]) -> ListType<'static> {
    match (path, BuiltinSchema::object_meta()) {
        (["metadata", rest @ ..], Some(meta)) => meta.list_type(rest),
        _ => ListType::Atomic,
    }
}

/// Whether the map at `path` of an object without a built-in schema is atomic: as ObjectMeta
/// says in `metadata`, never elsewhere.
pub fn is_atomic_map(path: &[&str]) -> bool {
    match (path, BuiltinSchema::object_meta()) {
        (["metadata", rest @ ..], Some(meta)) => meta.is_atomic_map(rest),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strategy(group: &str, kind: &str, path: &[&str]) -> ListStrategy {
        let resource = crate::resources::builtins()
            .into_iter()
            .find(|r| r.group == group && r.kind == kind)
            .unwrap_or_else(|| unreachable!("{kind} is built in"));
        let version = resource.versions.first().cloned().unwrap_or_default();
        list_strategy(BuiltinSchema::of(&resource, &version), path)
    }

    /// The lists the hand table this replaced named (the struct tags of `k8s.io/api`), as the
    /// schemas give them; where they disagreed the schemas were right: a Namespace's and a
    /// Service's conditions merge by `type` (`patchStrategy:"merge"`), a CRD's are replaced
    /// (`+listType=map` alone, no patch strategy: server-side apply keys them, strategic
    /// merge does not).
    #[test]
    fn strategies_follow_the_struct_tags() {
        use ListStrategy::{MergeKey, MergeScalars, Replace};
        let template = ["spec", "template", "spec"];
        let in_template = |rest: &[&'static str]| -> Vec<&'static str> {
            template.iter().chain(rest).copied().collect()
        };
        let cases: Vec<(&str, &str, Vec<&str>, ListStrategy)> = vec![
            (
                "apps",
                "Deployment",
                in_template(&["containers"]),
                MergeKey("name"),
            ),
            (
                "apps",
                "DaemonSet",
                in_template(&["initContainers", "env"]),
                MergeKey("name"),
            ),
            (
                "apps",
                "StatefulSet",
                in_template(&["volumes"]),
                MergeKey("name"),
            ),
            (
                "apps",
                "ReplicaSet",
                in_template(&["hostAliases"]),
                MergeKey("ip"),
            ),
            (
                "",
                "Pod",
                vec!["spec", "containers", "ports"],
                MergeKey("containerPort"),
            ),
            (
                "",
                "Pod",
                vec!["spec", "containers", "volumeMounts"],
                MergeKey("mountPath"),
            ),
            (
                "",
                "Pod",
                vec!["spec", "containers", "volumeDevices"],
                MergeKey("devicePath"),
            ),
            ("", "Pod", vec!["spec", "containers", "args"], Replace),
            (
                "",
                "Pod",
                vec!["spec", "topologySpreadConstraints"],
                MergeKey("topologyKey"),
            ),
            (
                "",
                "Pod",
                vec!["spec", "imagePullSecrets"],
                MergeKey("name"),
            ),
            ("", "Pod", vec!["spec", "schedulingGates"], MergeKey("name")),
            ("", "Pod", vec!["spec", "resourceClaims"], MergeKey("name")),
            ("", "Pod", vec!["spec", "tolerations"], Replace),
            ("", "Pod", vec!["status", "podIPs"], MergeKey("ip")),
            ("", "Pod", vec!["status", "conditions"], MergeKey("type")),
            ("", "Node", vec!["status", "addresses"], MergeKey("type")),
            ("", "Node", vec!["spec", "podCIDRs"], MergeScalars),
            ("", "Node", vec!["spec", "taints"], Replace),
            ("", "Service", vec!["spec", "ports"], MergeKey("port")),
            (
                "",
                "Service",
                vec!["status", "conditions"],
                MergeKey("type"),
            ),
            (
                "",
                "Namespace",
                vec!["status", "conditions"],
                MergeKey("type"),
            ),
            ("", "ServiceAccount", vec!["secrets"], MergeKey("name")),
            (
                "",
                "ConfigMap",
                vec!["metadata", "finalizers"],
                MergeScalars,
            ),
            (
                "",
                "ConfigMap",
                vec!["metadata", "ownerReferences"],
                MergeKey("uid"),
            ),
            (
                "apps",
                "Deployment",
                vec!["spec", "template", "metadata", "finalizers"],
                MergeScalars,
            ),
            (
                "apps",
                "Deployment",
                vec!["status", "conditions"],
                MergeKey("type"),
            ),
            (
                "apiextensions.k8s.io",
                "CustomResourceDefinition",
                vec!["status", "conditions"],
                Replace,
            ),
        ];
        for (group, kind, path, expected) in cases {
            assert_eq!(strategy(group, kind, &path), expected, "{kind} {path:?}");
        }
    }

    /// Without a built-in schema only `metadata`'s lists merge, by ObjectMeta's.
    #[test]
    fn an_object_without_a_schema_has_object_metas_lists() {
        assert_eq!(
            list_strategy(None, &["metadata", "finalizers"]),
            ListStrategy::MergeScalars
        );
        assert_eq!(
            list_strategy(None, &["spec", "template", "spec", "containers"]),
            ListStrategy::Replace
        );
        assert_eq!(list_type(&["metadata", "finalizers"]), ListType::Set);
        assert_eq!(
            list_type(&["metadata", "ownerReferences"]),
            ListType::Map(vec!["uid"])
        );
        assert_eq!(list_type(&["spec", "items"]), ListType::Atomic);
        assert!(!is_atomic_map(&["metadata", "labels"]));
        assert!(!is_atomic_map(&["spec", "selector"]));
    }
}
