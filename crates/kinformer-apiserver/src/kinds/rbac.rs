//! rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings: stored as they are
//! (kube-apiserver's strategies do nothing else), the fields their validation requires checked.
//! The embedded server authorizes nothing with them: its one bearer token may do everything.

use serde_json::Value;

use super::Cause;

/// A binding's required fields (`ValidateRoleBinding`): a `roleRef` naming a Role or
/// ClusterRole of rbac.authorization.k8s.io, each subject's kind and name.
pub fn validate_binding(value: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let kind = text("/roleRef/kind");
    if !matches!(kind, "Role" | "ClusterRole") {
        causes.push(Cause::unsupported(
            "roleRef.kind",
            kind,
            &["Role", "ClusterRole"],
        ));
    }
    let group = text("/roleRef/apiGroup");
    if group != "rbac.authorization.k8s.io" {
        causes.push(Cause::unsupported(
            "roleRef.apiGroup",
            group,
            &["rbac.authorization.k8s.io"],
        ));
    }
    if text("/roleRef/name").is_empty() {
        causes.push(Cause::required("roleRef.name"));
    }
    let subjects = value.get("subjects").and_then(Value::as_array);
    for (i, subject) in subjects.into_iter().flatten().enumerate() {
        if subject
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
        {
            causes.push(Cause::required(&format!("subjects[{i}].name")));
        }
        let kind = subject
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !matches!(kind, "ServiceAccount" | "User" | "Group") {
            causes.push(Cause::unsupported(
                &format!("subjects[{i}].kind"),
                kind,
                &["ServiceAccount", "User", "Group"],
            ));
        }
    }
    causes
}

/// A role's required fields (`ValidatePolicyRule`): each rule's verbs, and resources or
/// nonResourceURLs.
pub fn validate_role(value: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let rules = value.get("rules").and_then(Value::as_array);
    for (i, rule) in rules.into_iter().flatten().enumerate() {
        let empty = |key: &str| {
            rule.get(key)
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
        };
        if empty("verbs") {
            causes.push(Cause::required(&format!("rules[{i}].verbs")));
        }
        if empty("resources") && empty("nonResourceURLs") {
            causes.push(Cause::required(&format!("rules[{i}].resources")));
        }
    }
    causes
}
