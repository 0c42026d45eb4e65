//! policy/v1 PodDisruptionBudgets: a new budget's zero status and the validation of its spec
//! (`pkg/registry/policy/poddisruptionbudget/strategy.go`).

use serde_json::{Map, Value, json};

use super::Cause;

/// A new PodDisruptionBudget's status: its counters zero (they are not `omitempty`).
pub fn zero_status(object: &mut Map<String, Value>) {
    object.insert(
        "status".into(),
        json!({"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}),
    );
}

/// A budget's required fields (`ValidatePodDisruptionBudgetSpec`): not both `minAvailable` and
/// `maxUnavailable`.
pub fn validate(value: &Value) -> Vec<Cause> {
    let given = |key: &str| {
        value
            .pointer(&format!("/spec/{key}"))
            .is_some_and(|v| !v.is_null())
    };
    if given("minAvailable") && given("maxUnavailable") {
        return vec![Cause::invalid(
            "spec",
            "policy.PodDisruptionBudgetSpec",
            "minAvailable and maxUnavailable cannot be both set",
        )];
    }
    Vec::new()
}
