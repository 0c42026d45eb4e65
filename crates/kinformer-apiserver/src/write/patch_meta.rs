//! How a strategic merge patch merges each list of the served built-in types: the
//! `patchStrategy`/`patchMergeKey` struct tags of `k8s.io/api` (published in the OpenAPI as
//! `x-kubernetes-patch-strategy`/`x-kubernetes-patch-merge-key`), as a small table over field
//! paths. A list the table does not name is replaced whole, as kube-apiserver replaces a list
//! without a patch strategy. The same table gives server-side apply its list semantics
//! ([`list_type`], `x-kubernetes-list-type`/`x-kubernetes-list-map-keys`): the keyed lists are
//! the associative lists, the merged scalar lists are sets, every other list is atomic.

/// How the list at a field path merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStrategy {
    /// No patch strategy: the patch's list replaces the object's.
    Replace,
    /// `patchStrategy:"merge"` with `patchMergeKey`: elements are matched by this key.
    MergeKey(&'static str),
    /// `patchStrategy:"merge"` on a list of scalars: the union, in order.
    MergeScalars,
}

/// How server-side apply treats the list at a field path (`x-kubernetes-list-type`); `'s` is
/// the schema the map keys are read from (`'static` for the built-in table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType<'s> {
    /// `atomic`: owned and replaced whole.
    Atomic,
    /// `set`: scalars, each owned on its own.
    Set,
    /// `map` keyed by these `x-kubernetes-list-map-keys`.
    Map(Vec<&'s str>),
}

/// The list type of the list at `path` of an object of `kind`: the strategic-merge table,
/// where the OpenAPI names more than the merge key as map keys (container and Service ports
/// are keyed by port and protocol, topology spread constraints by key and
/// `whenUnsatisfiable`).
pub fn list_type(kind: &str, path: &[&str]) -> ListType<'static> {
    match list_strategy(kind, path) {
        ListStrategy::Replace => ListType::Atomic,
        ListStrategy::MergeScalars => ListType::Set,
        ListStrategy::MergeKey(key @ ("containerPort" | "port")) => {
            ListType::Map(vec![key, "protocol"])
        }
        ListStrategy::MergeKey("topologyKey") => {
            ListType::Map(vec!["topologyKey", "whenUnsatisfiable"])
        }
        ListStrategy::MergeKey(key) => ListType::Map(vec![key]),
    }
}

/// Whether the map at `path` is `x-kubernetes-map-type: atomic` (label selectors and the
/// selector maps of pods and services), owned and replaced whole by server-side apply.
pub fn is_atomic_map(kind: &str, path: &[&str]) -> bool {
    is_builtin(kind)
        && matches!(
            path.last(),
            Some(&("selector" | "labelSelector" | "namespaceSelector" | "nodeSelector"))
        )
}

/// Whether `kind` is one of the served built-in kinds (whose schema this table describes).
fn is_builtin(kind: &str) -> bool {
    POD_TEMPLATE_KINDS.contains(&kind)
        || CONDITION_KINDS.contains(&kind)
        || matches!(
            kind,
            "ConfigMap" | "Secret" | "Service" | "ServiceAccount" | "Namespace" | "Event" | "Lease"
        )
}

/// The kinds whose `spec.template.spec` is a PodSpec.
const POD_TEMPLATE_KINDS: [&str; 4] = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"];

/// The kinds with `status.conditions` merged by `type` (a CRD's by its `+listType=map`,
/// `+listMapKey=type`).
const CONDITION_KINDS: [&str; 7] = [
    "Pod",
    "Node",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "CustomResourceDefinition",
];

/// How the list at `path` (field names from the object's root, list elements not counted)
/// of an object of `kind` merges.
pub fn list_strategy(kind: &str, path: &[&str]) -> ListStrategy {
    if let Some(rest) = pod_spec_path(kind, path) {
        return pod_spec(rest);
    }
    if let Some(rest) = object_meta_path(kind, path) {
        return object_meta(rest);
    }
    match (kind, path) {
        (kind, ["status", "conditions"]) if CONDITION_KINDS.contains(&kind) => {
            ListStrategy::MergeKey("type")
        }
        ("Pod", ["status", "podIPs"]) => ListStrategy::MergeKey("ip"),
        ("Node", ["status", "addresses"]) => ListStrategy::MergeKey("type"),
        ("Node", ["spec", "podCIDRs"]) => ListStrategy::MergeScalars,
        ("Service", ["spec", "ports"]) => ListStrategy::MergeKey("port"),
        ("ServiceAccount", ["secrets"]) => ListStrategy::MergeKey("name"),
        _ => ListStrategy::Replace,
    }
}

/// The part of `path` inside the object's PodSpec, if it is inside one.
fn pod_spec_path<'p>(kind: &str, path: &'p [&'p str]) -> Option<&'p [&'p str]> {
    match path {
        ["spec", rest @ ..] if kind == "Pod" => Some(rest),
        ["spec", "template", "spec", rest @ ..] if POD_TEMPLATE_KINDS.contains(&kind) => Some(rest),
        _ => None,
    }
}

/// The part of `path` inside an ObjectMeta: the object's own or its pod template's.
fn object_meta_path<'p>(kind: &str, path: &'p [&'p str]) -> Option<&'p [&'p str]> {
    match path {
        ["metadata", rest @ ..] => Some(rest),
        ["spec", "template", "metadata", rest @ ..] if POD_TEMPLATE_KINDS.contains(&kind) => {
            Some(rest)
        }
        _ => None,
    }
}

/// ObjectMeta (`k8s.io/apimachinery/pkg/apis/meta/v1/types.go`).
fn object_meta(path: &[&str]) -> ListStrategy {
    match path {
        ["finalizers"] => ListStrategy::MergeScalars,
        ["ownerReferences"] => ListStrategy::MergeKey("uid"),
        _ => ListStrategy::Replace,
    }
}

/// PodSpec and Container (`k8s.io/api/core/v1/types.go`).
fn pod_spec(path: &[&str]) -> ListStrategy {
    const CONTAINERS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];
    match path {
        [list] if CONTAINERS.contains(list) => ListStrategy::MergeKey("name"),
        [container, field] if CONTAINERS.contains(container) => container_list(field),
        ["volumes" | "imagePullSecrets" | "schedulingGates" | "resourceClaims"] => {
            ListStrategy::MergeKey("name")
        }
        ["hostAliases"] => ListStrategy::MergeKey("ip"),
        ["topologySpreadConstraints"] => ListStrategy::MergeKey("topologyKey"),
        _ => ListStrategy::Replace,
    }
}

/// The lists of a Container.
fn container_list(field: &str) -> ListStrategy {
    match field {
        "ports" => ListStrategy::MergeKey("containerPort"),
        "env" => ListStrategy::MergeKey("name"),
        "volumeMounts" => ListStrategy::MergeKey("mountPath"),
        "volumeDevices" => ListStrategy::MergeKey("devicePath"),
        _ => ListStrategy::Replace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_follows_the_struct_tags() {
        let template = ["spec", "template", "spec", "containers"];
        assert_eq!(
            list_strategy("Deployment", &template),
            ListStrategy::MergeKey("name")
        );
        assert_eq!(
            list_strategy("Pod", &["spec", "containers", "env"]),
            ListStrategy::MergeKey("name")
        );
        assert_eq!(
            list_strategy("Pod", &["spec", "containers", "ports"]),
            ListStrategy::MergeKey("containerPort")
        );
        assert_eq!(
            list_strategy("ConfigMap", &["metadata", "finalizers"]),
            ListStrategy::MergeScalars
        );
        assert_eq!(
            list_strategy("Pod", &["spec", "tolerations"]),
            ListStrategy::Replace
        );
        assert_eq!(
            list_strategy("Widget", &["spec", "containers"]),
            ListStrategy::Replace
        );
    }
}
