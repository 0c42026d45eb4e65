//! The objects kube-apiserver creates at start besides its namespaces and Service: the RBAC
//! roles and bindings of its `rbac/bootstrap-roles` post-start hook
//! (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy`) and the priority-and-fairness
//! FlowSchemas and PriorityLevelConfigurations of `priority-and-fairness-config-producer`
//! (apiserver `pkg/apis/flowcontrol/bootstrap`), captured from kube-apiserver 1.37.2 by
//! `scripts/bootstrap-capture` into `bootstrap/v1.37.2/objects.json`.

use std::sync::OnceLock;

use serde_json::Value;

/// The captured objects, parsed once.
pub fn objects() -> &'static [Value] {
    static OBJECTS: OnceLock<Vec<Value>> = OnceLock::new();
    OBJECTS.get_or_init(|| {
        serde_json::from_str(include_str!("../bootstrap/v1.37.2/objects.json")).unwrap_or_default()
    })
}

/// `object` as created now: its conditions' `lastTransitionTime` is the time of the create (the
/// capture leaves it out).
pub fn as_created(object: &Value, now: &str) -> Value {
    let mut object = object.clone();
    if let Some(conditions) = object
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    {
        for condition in conditions {
            condition["lastTransitionTime"] = now.into();
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capture_holds_kube_apiservers_bootstrap_objects() {
        let count = |kind: &str| objects().iter().filter(|o| o["kind"] == kind).count();
        assert_eq!(count("ClusterRole"), 73);
        assert!(
            count("ClusterRoleBinding") > 40,
            "{}",
            count("ClusterRoleBinding")
        );
        assert!(count("FlowSchema") > 10 && count("PriorityLevelConfiguration") > 5);
        let names: Vec<&str> = objects()
            .iter()
            .filter_map(|o| o.pointer("/metadata/name").and_then(Value::as_str))
            .collect();
        for name in ["cluster-admin", "admin", "edit", "view", "system:discovery"] {
            assert!(names.contains(&name), "{name} is missing");
        }
    }
}
