//! A request that carries no credentials, as kube-apiserver answers it: authenticated as
//! `system:anonymous` (anonymous auth is on by default) and refused by RBAC, which grants that
//! user only `/healthz`, `/livez`, `/readyz` and `/version` (`system:public-info-viewer`):
//! 403 in the authorization filter's words (apiserver
//! `pkg/endpoints/handlers/responsewriters/errors.go:60` `forbiddenMessage`), the request's
//! attributes read from its path as `pkg/endpoints/request/requestinfo.go` reads them.

use http::Method;

use crate::status::{ApiError, StatusDetails};

/// The user kube-apiserver gives a request without credentials.
const ANONYMOUS: &str = "system:anonymous";

/// What the authorizer is asked about a request.
#[derive(Debug, PartialEq)]
struct Attributes {
    verb: String,
    group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
}

/// The 403 for an anonymous request of `method` at `path` (with `query`).
pub fn forbidden(method: &Method, path: &str, query: &str) -> ApiError {
    let Some(attributes) = resource_attributes(method, path, query) else {
        let verb = method.as_str().to_ascii_lowercase();
        let message = format!("forbidden: User {ANONYMOUS:?} cannot {verb} path {path:?}");
        let mut error = ApiError::new(403, "Forbidden", message);
        error.details = Some(Box::default());
        return error;
    };
    let mut resource = attributes.resource.clone();
    if !attributes.subresource.is_empty() {
        resource = format!("{resource}/{}", attributes.subresource);
    }
    let scope = if attributes.namespace.is_empty() {
        "at the cluster scope".to_owned()
    } else {
        format!("in the namespace {:?}", attributes.namespace)
    };
    let why = format!(
        "User {ANONYMOUS:?} cannot {} resource {resource:?} in API group {:?} {scope}",
        attributes.verb, attributes.group
    );
    let qualified = if attributes.group.is_empty() {
        attributes.resource.clone()
    } else {
        format!("{}.{}", attributes.resource, attributes.group)
    };
    let message = if attributes.name.is_empty() {
        format!("{qualified} is forbidden: {why}")
    } else {
        format!("{qualified} {:?} is forbidden: {why}", attributes.name)
    };
    let mut error = ApiError::new(403, "Forbidden", message);
    error.details = Some(Box::new(StatusDetails {
        name: attributes.name,
        group: attributes.group,
        kind: attributes.resource,
        ..StatusDetails::default()
    }));
    error
}

/// The attributes of a resource request; None for any other path.
fn resource_attributes(method: &Method, path: &str, query: &str) -> Option<Attributes> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match parts.as_slice() {
        ["api", _version, rest @ ..] if !rest.is_empty() => ("", rest),
        ["apis", group, _version, rest @ ..] if !rest.is_empty() => (*group, rest),
        _ => return None,
    };
    let mut rest = rest;
    let mut namespace = "";
    if rest[0] == "namespaces" && rest.len() > 1 {
        namespace = rest[1];
        if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
            rest = &rest[2..];
        }
    }
    let name = rest.get(1).copied().unwrap_or_default();
    let watching = query
        .split('&')
        .any(|pair| matches!(pair, "watch=true" | "watch=1" | "watch"));
    let verb = match (method.as_str(), name.is_empty()) {
        ("GET" | "HEAD", _) if watching => "watch",
        ("GET" | "HEAD", true) => "list",
        ("GET" | "HEAD", false) => "get",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "deletecollection",
        ("DELETE", false) => "delete",
        (other, _) => return Some(attributes(other, group, rest, namespace, name)),
    };
    Some(attributes(verb, group, rest, namespace, name))
}

fn attributes(verb: &str, group: &str, rest: &[&str], namespace: &str, name: &str) -> Attributes {
    Attributes {
        verb: verb.to_ascii_lowercase(),
        group: group.to_owned(),
        resource: rest[0].to_owned(),
        subresource: rest.get(2).copied().unwrap_or_default().to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_requests_are_refused_in_rbacs_words() {
        let list = forbidden(&Method::GET, "/api/v1/namespaces/default/configmaps", "");
        assert_eq!(
            list.message,
            r#"configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default""#
        );
        let get = forbidden(&Method::GET, "/apis/apps/v1/deployments", "watch=true");
        assert_eq!(
            get.message,
            r#"deployments.apps is forbidden: User "system:anonymous" cannot watch resource "deployments" in API group "apps" at the cluster scope"#
        );
        let log = forbidden(&Method::GET, "/api/v1/namespaces/ns/pods/p/log", "");
        assert_eq!(
            log.message,
            r#"pods "p" is forbidden: User "system:anonymous" cannot get resource "pods/log" in API group "" in the namespace "ns""#
        );
        let path = forbidden(&Method::GET, "/api", "");
        assert_eq!(
            path.message,
            r#"forbidden: User "system:anonymous" cannot get path "/api""#
        );
        assert_eq!(path.code, 403);
    }
}
