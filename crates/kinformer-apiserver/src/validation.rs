//! Object name validation as kube-apiserver's `ValidateObjectMeta` does it: most names are
//! DNS-1123 subdomains, namespaces DNS-1123 labels, services DNS-1035 labels; a violation is a
//! 422 Invalid naming the field, with kube-apiserver's wording.

use super::resources::ResourceType;
use super::status::{ApiError, StatusCause};

/// Which rule a resource's names follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameRule {
    /// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, at most 253.
    Dns1123Subdomain,
    /// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63.
    Dns1123Label,
    /// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63.
    Dns1035Label,
    /// Anything a URL path segment can carry: not `.` or `..`, no `/` or `%` (the RBAC kinds:
    /// `ValidateRBACName` is `path.IsValidPathSegmentName`, `pkg/apis/rbac/validation`; the
    /// bootstrap roles are named `system:…`).
    PathSegment,
}

const SUBDOMAIN_RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_RULE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_RULE: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

impl NameRule {
    fn of(resource: &ResourceType) -> Self {
        if resource.is_core("namespaces") {
            NameRule::Dns1123Label
        } else if resource.is_core("services") {
            NameRule::Dns1035Label
        } else if resource.group == "rbac.authorization.k8s.io" {
            NameRule::PathSegment
        } else {
            NameRule::Dns1123Subdomain
        }
    }

    /// What is wrong with `name`, in kube-apiserver's words; None when it is valid.
    fn violation(self, name: &str) -> Option<String> {
        if self == NameRule::PathSegment {
            return path_segment_violation(name);
        }
        let max = match self {
            NameRule::Dns1123Subdomain | NameRule::PathSegment => 253,
            NameRule::Dns1123Label | NameRule::Dns1035Label => 63,
        };
        if name.len() > max {
            return Some(format!("must be no more than {max} characters"));
        }
        let valid = match self {
            NameRule::Dns1123Subdomain => name.split('.').all(is_label),
            NameRule::Dns1123Label => is_label(name),
            NameRule::Dns1035Label => {
                is_label(name) && name.starts_with(|c: char| c.is_ascii_lowercase())
            }
            NameRule::PathSegment => true,
        };
        (!valid).then(|| {
            match self {
                NameRule::Dns1123Subdomain => SUBDOMAIN_RULE,
                NameRule::Dns1123Label => LABEL_RULE,
                NameRule::Dns1035Label => DNS1035_RULE,
                NameRule::PathSegment => "",
            }
            .to_owned()
        })
    }
}

/// apimachinery's `IsValidPathSegmentName`: its first complaint.
fn path_segment_violation(name: &str) -> Option<String> {
    if matches!(name, "." | "..") {
        return Some(format!("may not be '{name}'"));
    }
    ["/", "%"]
        .into_iter()
        .find(|c| name.contains(c))
        .map(|c| format!("may not contain '{c}'"))
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_label(text: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !text.is_empty()
        && text.starts_with(alphanumeric)
        && text.ends_with(alphanumeric)
        && text.chars().all(|c| alphanumeric(c) || c == '-')
}

/// 422 Invalid for `field` holding `value`, with the cause kubectl shows.
pub fn invalid_field(
    resource: &ResourceType,
    name: &str,
    field: &str,
    value: &str,
    why: &str,
) -> ApiError {
    let cause = format!("{field}: Invalid value: {value:?}: {why}");
    let mut error = ApiError::invalid(resource, name, &cause);
    if let Some(details) = error.details.as_mut() {
        details.causes.push(StatusCause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {value:?}: {why}"),
            field: field.to_owned(),
        });
    }
    error
}

/// Checks a new object's `metadata.name` (and, for a namespaced object, its namespace).
pub fn validate_names(
    resource: &ResourceType,
    name: &str,
    namespace: &str,
) -> Result<(), ApiError> {
    if let Some(why) = NameRule::of(resource).violation(name) {
        return Err(invalid_field(resource, name, "metadata.name", name, &why));
    }
    if resource.namespaced
        && let Some(why) = NameRule::Dns1123Label.violation(namespace)
    {
        return Err(invalid_field(
            resource,
            name,
            "metadata.namespace",
            namespace,
            &why,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_their_rule() {
        let subdomain = NameRule::Dns1123Subdomain;
        for good in ["a", "web-1", "example.com", "0abc", "a.b-c.d"] {
            assert_eq!(subdomain.violation(good), None, "{good}");
        }
        for bad in ["", "A", "-a", "a-", "a..b", "a_b", ".a", "a."] {
            assert!(subdomain.violation(bad).is_some(), "{bad:?}");
        }
        assert!(NameRule::Dns1123Label.violation("a.b").is_some());
        assert_eq!(NameRule::Dns1123Label.violation("1-a"), None);
        assert!(NameRule::Dns1035Label.violation("1-a").is_some());
        assert_eq!(NameRule::Dns1035Label.violation("a-1"), None);
        let long = "a".repeat(64);
        assert_eq!(
            NameRule::Dns1123Label.violation(&long).as_deref(),
            Some("must be no more than 63 characters")
        );
    }
}
