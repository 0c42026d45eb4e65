//! The fields a kind's strategy resets on a write, which kube-apiserver's field manager
//! therefore never records as the writer's (a registry's `GetResetFields`, applied by the
//! field manager's exclude filter: apiserver `pkg/endpoints/installer.go:704`). Every kind
//! with a status subresource resets `status` on main-resource writes and everything else on
//! status writes (the walk's own rule); this table has the kinds that reset more.

/// The field paths `group`'s `kind` resets on a write of `subresource` ("" for the object).
pub fn reset_fields(
    group: &str,
    kind: &str,
    subresource: &str,
) -> &'static [&'static [&'static str]] {
    match (group, kind, subresource) {
        // kubernetes pkg/registry/certificates/certificates/strategy.go:55 and :155.
        ("certificates.k8s.io", "CertificateSigningRequest", "") => &[&["spec"], &["status"]],
        ("certificates.k8s.io", "CertificateSigningRequest", "status") => {
            &[&["spec"], &["status", "conditions"]]
        }
        _ => &[],
    }
}

/// Whether the field `key` of the map at `path` is one of `reset`.
pub fn resets(reset: &[&[&str]], path: &[&str], key: &str) -> bool {
    reset.iter().any(|field| {
        field.len() == path.len() + 1 && field[..path.len()] == *path && field[path.len()] == key
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csr_s_spec_is_never_owned() {
        let main = reset_fields("certificates.k8s.io", "CertificateSigningRequest", "");
        assert!(resets(main, &[], "spec"));
        assert!(!resets(main, &[], "metadata"));
        let status = reset_fields("certificates.k8s.io", "CertificateSigningRequest", "status");
        assert!(resets(status, &["status"], "conditions"));
        assert!(!resets(status, &["status"], "certificate"));
        assert!(reset_fields("", "Pod", "").is_empty());
    }
}
