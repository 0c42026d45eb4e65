//! The TaintNodesByCondition admission plugin (kubernetes `plugin/pkg/admission/nodetaint/
//! admission.go`, on by default): a created Node gets the `node.kubernetes.io/not-ready`
//! `NoSchedule` taint unless it has a taint of that key and effect already (`MatchTaint`: the
//! value is not compared), appended to its taints. It admits creates of `nodes` only (not
//! their subresources), after the field manager recorded the creator: no manager owns it.

use serde_json::{Map, Value, json};

use crate::resources::ResourceType;

/// The taint's key (`v1.TaintNodeNotReady`).
const NOT_READY: &str = "node.kubernetes.io/not-ready";
/// The taint's effect.
const NO_SCHEDULE: &str = "NoSchedule";

/// Adds the not-ready taint to a new Node of `resource`; anything else is left alone.
pub fn admit_create(resource: &ResourceType, value: &mut Value) {
    if !resource.is_core("nodes") {
        return;
    }
    let Some(object) = value.as_object_mut() else {
        return;
    };
    let spec = object.entry("spec").or_insert_with(|| json!({}));
    if !spec.is_object() {
        *spec = json!({});
    }
    if let Some(spec) = spec.as_object_mut() {
        add_not_ready(spec);
    }
}

/// `addNotReadyTaint`: appends the taint unless one matches it.
fn add_not_ready(spec: &mut Map<String, Value>) {
    let taints = spec.entry("taints").or_insert_with(|| json!([]));
    if !taints.is_array() {
        *taints = json!([]);
    }
    let Some(taints) = taints.as_array_mut() else {
        return;
    };
    let matches = |taint: &Value| taint["key"] == NOT_READY && taint["effect"] == NO_SCHEDULE;
    if !taints.iter().any(matches) {
        taints.push(json!({"key": NOT_READY, "effect": NO_SCHEDULE}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::builtins;

    fn nodes() -> ResourceType {
        builtins()
            .into_iter()
            .find(|r| r.is_core("nodes"))
            .unwrap_or_else(|| unreachable!("nodes are built in"))
    }

    /// nodetaint `admission.go` `addNotReadyTaint`: appended after the node's own taints;
    /// not added twice, whatever the matching taint's value.
    #[test]
    fn a_new_node_gets_the_not_ready_taint_once() {
        let mut node = json!({"metadata": {"name": "n"}, "spec": {}});
        admit_create(&nodes(), &mut node);
        assert_eq!(
            node["spec"]["taints"],
            json!([{"key": NOT_READY, "effect": NO_SCHEDULE}])
        );
        let own = json!({"key": "dedicated", "value": "gpu", "effect": "NoExecute"});
        let mut node = json!({"spec": {"taints": [own.clone()]}});
        admit_create(&nodes(), &mut node);
        assert_eq!(
            node["spec"]["taints"],
            json!([own, {"key": NOT_READY, "effect": NO_SCHEDULE}])
        );
        let valued = json!({"key": NOT_READY, "value": "x", "effect": NO_SCHEDULE});
        let mut node = json!({"spec": {"taints": [valued.clone()]}});
        admit_create(&nodes(), &mut node);
        assert_eq!(node["spec"]["taints"], json!([valued]));
        let mut pod = json!({"spec": {}});
        let pods = builtins()
            .into_iter()
            .find(|r| r.is_core("pods"))
            .unwrap_or_else(|| unreachable!("pods are built in"));
        admit_create(&pods, &mut pod);
        assert_eq!(pod, json!({"spec": {}}));
    }
}
