//! What the apps strategies of kube-apiserver set on a write beyond the common metadata
//! (kubernetes `pkg/registry/apps/*/strategy.go`):
//!
//! - `generation` moves with `spec` for every workload, and for a Deployment also with its
//!   annotations (deployment `strategy.go:120`: they are copied to its ReplicaSets); the
//!   ReplicaSet, StatefulSet and DaemonSet strategies compare `spec` only (replicaset
//!   `strategy.go:106`, statefulset `strategy.go:108`, daemonset `strategy.go:106`).
//! - A DaemonSet's internal `spec.templateGeneration` is the
//!   `deprecated.daemonset.template.generation` annotation of `apps/v1` (`pkg/apis/apps/v1/
//!   conversion.go:89,106`: parsed out of the annotations on decoding, written back on
//!   encoding, so the annotation is always there). The strategy makes it at least 1 on create
//!   (`strategy.go:75`), and on update keeps the stored one, plus one when the pod template
//!   changed (`strategy.go:93,106`). The field manager sees the object as decoded, before the
//!   strategy: the annotation as the client sent it (`0` when it sent none), so a creator owns
//!   the annotation and an update owns it only when its value differs from the stored one.

use serde_json::{Map, Value};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// The annotation that carries a DaemonSet's template generation in `apps/v1`.
pub const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// Whether an update of `old` to `new`, objects of `resource`, moves `generation`.
pub fn generation_moves(resource: &ResourceType, old: &Value, new: &Value) -> bool {
    if new.get("spec") != old.get("spec") {
        return true;
    }
    is_apps(resource, "Deployment") && annotations(new) != annotations(old)
}

/// Whether replacing only the annotations of an object of `resource` can change more than
/// them (its generation, or a DaemonSet's template-generation annotation).
pub fn annotations_are_read(resource: &ResourceType) -> bool {
    is_apps(resource, "Deployment") || is_apps(resource, "DaemonSet")
}

/// On create, decoding: a DaemonSet's template-generation annotation as the field manager
/// sees it (the client's value, `0` when absent); an unparsable value is refused as the
/// decoder refuses it.
pub fn decode_template_generation(
    value: &mut Value,
    resource: &ResourceType,
) -> Result<(), ApiError> {
    if !is_apps(resource, "DaemonSet") {
        return Ok(());
    }
    let given = template_generation(value, resource)?.unwrap_or(0);
    set_template_generation(value, given);
    Ok(())
}

/// `PrepareForCreate`: a DaemonSet's template generation is at least 1.
pub fn prepare_template_generation_for_create(value: &mut Value, resource: &ResourceType) {
    if !is_apps(resource, "DaemonSet") {
        return;
    }
    let given = template_generation(value, resource)
        .ok()
        .flatten()
        .unwrap_or(0);
    set_template_generation(value, given.max(1));
}

/// `PrepareForUpdate`: a DaemonSet's template generation is the stored one, plus one when
/// the pod template changed.
pub fn prepare_template_generation_for_update(
    value: &mut Value,
    old: &Value,
    resource: &ResourceType,
) {
    if !is_apps(resource, "DaemonSet") {
        return;
    }
    let stored = template_generation(old, resource)
        .ok()
        .flatten()
        .unwrap_or(0);
    let changed = value.pointer("/spec/template") != old.pointer("/spec/template");
    set_template_generation(value, stored.saturating_add(i64::from(changed)));
}

/// Whether `resource` is the apps kind `kind`.
fn is_apps(resource: &ResourceType, kind: &str) -> bool {
    !resource.custom && resource.group == "apps" && resource.kind == kind
}

/// The annotations of `value` (none and an empty map alike: `Semantic.DeepEqual`).
fn annotations(value: &Value) -> Option<&Map<String, Value>> {
    value
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .filter(|map| !map.is_empty())
}

/// The template-generation annotation of `value`, parsed; a value that is no integer is the
/// decoder's 400.
fn template_generation(value: &Value, resource: &ResourceType) -> Result<Option<i64>, ApiError> {
    let Some(text) = annotations(value)
        .and_then(|map| map.get(TEMPLATE_GENERATION))
        .and_then(Value::as_str)
    else {
        return Ok(None);
    };
    text.parse().map(Some).map_err(|_| {
        ApiError::bad_request(format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: strconv.ParseInt: parsing {text:?}: invalid syntax",
            kind = resource.kind
        ))
    })
}

/// Writes the template-generation annotation (the annotations made when absent).
fn set_template_generation(value: &mut Value, generation: i64) {
    let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    if let Some(map) = annotations.as_object_mut() {
        map.insert(TEMPLATE_GENERATION.into(), generation.to_string().into());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resources::builtins;

    fn resource(kind: &str) -> ResourceType {
        builtins()
            .into_iter()
            .find(|r| r.kind == kind)
            .unwrap_or_else(|| unreachable!("{kind} is built in"))
    }

    /// deployment `strategy.go:120`: annotations move a Deployment's generation, not a
    /// ReplicaSet's, StatefulSet's or DaemonSet's; an absent map equals an empty one.
    #[test]
    fn annotations_move_only_a_deployments_generation() {
        let old = json!({"metadata": {}, "spec": {"replicas": 1}});
        let annotated = json!({"metadata": {"annotations": {"a": "b"}}, "spec": {"replicas": 1}});
        let emptied = json!({"metadata": {"annotations": {}}, "spec": {"replicas": 1}});
        assert!(generation_moves(&resource("Deployment"), &old, &annotated));
        assert!(!generation_moves(&resource("Deployment"), &old, &emptied));
        for kind in ["ReplicaSet", "StatefulSet", "DaemonSet"] {
            assert!(
                !generation_moves(&resource(kind), &old, &annotated),
                "{kind}"
            );
        }
        let scaled = json!({"metadata": {}, "spec": {"replicas": 2}});
        assert!(generation_moves(&resource("StatefulSet"), &old, &scaled));
    }

    /// daemonset `strategy.go:75,93,106`: 1 on create (the field manager saw 0), kept on an
    /// update that leaves the template, one more when it changes it.
    #[test]
    fn a_daemonsets_template_generation_follows_its_template() -> Result<(), ApiError> {
        let daemonset = resource("DaemonSet");
        let mut created = json!({"metadata": {"name": "d"}, "spec": {"template": {"spec": {}}}});
        decode_template_generation(&mut created, &daemonset)?;
        assert_eq!(created["metadata"]["annotations"][TEMPLATE_GENERATION], "0");
        prepare_template_generation_for_create(&mut created, &daemonset);
        assert_eq!(created["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
        let mut relabeled = created.clone();
        relabeled["metadata"]["annotations"][TEMPLATE_GENERATION] = json!("7");
        prepare_template_generation_for_update(&mut relabeled, &created, &daemonset);
        assert_eq!(
            relabeled["metadata"]["annotations"][TEMPLATE_GENERATION],
            "1"
        );
        let mut changed = created.clone();
        changed["spec"]["template"]["spec"]["hostNetwork"] = json!(true);
        prepare_template_generation_for_update(&mut changed, &created, &daemonset);
        assert_eq!(changed["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
        let mut garbage = json!({"metadata": {"annotations": {TEMPLATE_GENERATION: "x"}}});
        assert!(decode_template_generation(&mut garbage, &daemonset).is_err_and(|e| e.code == 400));
        Ok(())
    }
}
