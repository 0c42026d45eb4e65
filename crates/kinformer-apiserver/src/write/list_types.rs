//! The two ways a list of an object is read: how a strategic merge patch merges it
//! (apimachinery strategicpatch's `patchStrategy`/`patchMergeKey`) and how server-side apply
//! owns it (structured-merge-diff's `x-kubernetes-list-type`). Where each comes from is
//! `builtin_schema` (built-in kinds), `crd_schema` (custom resources) and `patch_meta` (objects
//! without a schema of their own).

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
