//! The built-in resources: every resource kube-apiserver 1.37.2's discovery lists, with its
//! verbs, names, scope, categories, `storageVersionHash` and subresources, captured from the
//! real server by `scripts/discovery-capture` into `discovery/v1.37.2/resources.rs`. The
//! registry describes the built-ins from these rows, so discovery answers what the reference
//! server answers, in its order (the core group, then the groups as `/apis` lists them, each
//! group's preferred version first).

/// One resource of one group version, as its `APIResourceList` lists it.
pub struct Row {
    /// API group, empty for the core group.
    pub group: &'static str,
    /// The version.
    pub version: &'static str,
    /// Plural name (`pods`).
    pub plural: &'static str,
    /// Singular name (`pod`).
    pub singular: &'static str,
    /// Kind (`Pod`).
    pub kind: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// The verbs it serves.
    pub verbs: &'static [&'static str],
    /// kubectl short names.
    pub short_names: &'static [&'static str],
    /// Categories (`all`).
    pub categories: &'static [&'static str],
    /// `storageVersionHash`; None for what is not stored (reviews, bindings).
    pub storage_version_hash: Option<&'static str>,
    /// Its subresources, by name.
    pub subresources: &'static [Sub],
}

/// One subresource, as its `APIResource` (`pods/log`) lists it.
pub struct Sub {
    /// The name after the slash (`log`).
    pub name: &'static str,
    /// The group of the kind it answers when not its parent's (`policy` for `eviction`).
    pub group: &'static str,
    /// That kind's version, empty when the group is.
    pub version: &'static str,
    /// The kind it answers (`Pod`, `Scale`, `PodExecOptions`).
    pub kind: &'static str,
    /// The verbs it serves.
    pub verbs: &'static [&'static str],
}

/// Every built-in resource of kube-apiserver 1.37.2, in discovery order.
pub const ROWS: &[Row] = include!("../discovery/v1.37.2/resources.rs");
