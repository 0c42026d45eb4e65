//! rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings: stored as they are
//! (kube-apiserver's strategies do nothing else), the fields their validation requires checked.
//! The embedded server authorizes nothing with them: its one bearer token may do everything.

use serde_json::{Map, Value};

use super::Cause;

/// The rbac v1 defaults of a binding (kubernetes `pkg/apis/rbac/v1/defaults.go`): the
/// `roleRef`'s `apiGroup` is rbac.authorization.k8s.io (`SetDefaults_RoleBinding`,
/// `SetDefaults_ClusterRoleBinding`), as is a User or Group subject's (`SetDefaults_Subject`).
pub fn binding_defaults(object: &mut Map<String, Value>) {
    const GROUP: &str = "rbac.authorization.k8s.io";
    let unset = |map: &Map<String, Value>| {
        map.get("apiGroup")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
    };
    if let Some(role_ref) = object.get_mut("roleRef").and_then(Value::as_object_mut)
        && unset(role_ref)
    {
        role_ref.insert("apiGroup".into(), GROUP.into());
    }
    let subjects = object.get_mut("subjects").and_then(Value::as_array_mut);
    for subject in subjects
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        let user_or_group = matches!(
            subject.get("kind").and_then(Value::as_str),
            Some("User" | "Group")
        );
        if user_or_group && unset(subject) {
            subject.insert("apiGroup".into(), GROUP.into());
        }
    }
}

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A binding without a `roleRef.apiGroup` is defaulted before validation, so only the
    /// kind and name are missing (as kube-apiserver answers).
    #[test]
    fn a_binding_s_api_groups_are_defaulted_before_validation() {
        let mut binding = json!({
            "roleRef": {"apiGroup": "", "kind": "", "name": ""},
            "subjects": [{"kind": "User", "name": "alice"},
                         {"kind": "ServiceAccount", "name": "default", "namespace": "ns"}],
        });
        binding_defaults(binding.as_object_mut().expect("an object"));
        assert_eq!(binding["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
        assert_eq!(
            binding["subjects"][0]["apiGroup"],
            "rbac.authorization.k8s.io"
        );
        assert!(binding["subjects"][1].get("apiGroup").is_none());
        assert_eq!(validate_binding(&binding).len(), 2);
    }
}
