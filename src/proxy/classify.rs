//! What a request is, read from its method, path and query the way kube-apiserver routes it:
//! an informer's LIST or WATCH of a collection (with the options client-go's reflector sends),
//! or any other request (a write, a GET of one object, discovery).

use http::{Method, Uri};

use crate::informer::source::{ListOptions, WatchOptions};

/// The collection a LIST or WATCH reads: resource, namespace and selectors.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Collection {
    /// kubectl's spelling: `pods`, `deployments.apps`.
    pub resource: String,
    /// None: every namespace, or a cluster-scoped resource.
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
}

impl Collection {
    /// `pods`, `pods@default`, `pods@default,l=app=web`, `nodes,f=metadata.name=a`.
    pub fn describe(&self) -> String {
        let mut text = self.resource.clone();
        if let Some(ns) = &self.namespace {
            text.push('@');
            text.push_str(ns);
        }
        if let Some(l) = &self.label_selector {
            text.push_str(",l=");
            text.push_str(l);
        }
        if let Some(f) = &self.field_selector {
            text.push_str(",f=");
            text.push_str(f);
        }
        text
    }
}

/// A request as the proxy understands it.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// A LIST (one page of it when `continue` is set).
    List(Collection, ListRequest),
    Watch(Collection, WatchRequest),
    /// Anything else; `resource` when the path names one.
    Other {
        verb: String,
        resource: Option<String>,
    },
}

/// A LIST's options as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRequest {
    pub options: ListOptions,
    pub resource_version_match: Option<String>,
}

/// A WATCH's options as sent (a watch-list: `sendInitialEvents=true`).
#[derive(Debug, Clone, PartialEq)]
pub struct WatchRequest {
    pub options: WatchOptions,
    pub resource_version_match: Option<String>,
}

/// The path's parts: `/api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]]` or the same under
/// `/apis/GROUP/VERSION`.
#[derive(Debug, Default, PartialEq)]
struct ResourcePath {
    group: String,
    namespace: Option<String>,
    resource: String,
    name: Option<String>,
    subresource: Option<String>,
}

impl ResourcePath {
    fn parse(path: &str) -> Option<Self> {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let (group, rest) = match segments.as_slice() {
            ["api", _version, rest @ ..] => (String::new(), rest),
            ["apis", group, _version, rest @ ..] => ((*group).to_owned(), rest),
            _ => return None,
        };
        let (namespace, rest) = match rest {
            ["namespaces", ns, resource, rest @ ..] => (Some((*ns).to_owned()), {
                let mut r = vec![*resource];
                r.extend_from_slice(rest);
                r
            }),
            _ => (None, rest.to_vec()),
        };
        let (resource, name, subresource) = match rest.as_slice() {
            [resource] => (*resource, None, None),
            [resource, name] => (*resource, Some(*name), None),
            [resource, name, sub, ..] => (*resource, Some(*name), Some(*sub)),
            _ => return None,
        };
        Some(ResourcePath {
            group,
            namespace,
            resource: resource.to_owned(),
            name: name.map(str::to_owned),
            subresource: subresource.map(str::to_owned),
        })
    }

    /// `pods`, `deployments.apps`.
    fn label(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

/// The query parameters an informer's requests carry.
#[derive(Debug, Default)]
struct Query {
    watch: bool,
    resource_version: Option<String>,
    resource_version_match: Option<String>,
    limit: Option<u32>,
    continue_token: Option<String>,
    timeout_seconds: Option<u64>,
    send_initial_events: bool,
    label_selector: Option<String>,
    field_selector: Option<String>,
}

impl Query {
    fn parse(query: &str) -> Self {
        let mut q = Query::default();
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let value = value.into_owned();
            // Go's strconv.ParseBool, as kube-apiserver decodes query booleans.
            let truthy = matches!(value.as_str(), "1" | "t" | "T" | "true" | "TRUE" | "True");
            match key.as_ref() {
                "watch" => q.watch = truthy,
                "resourceVersion" => q.resource_version = Some(value),
                "resourceVersionMatch" => q.resource_version_match = Some(value),
                "limit" => q.limit = value.parse().ok().filter(|n| *n > 0),
                "continue" => q.continue_token = Some(value).filter(|v| !v.is_empty()),
                "timeoutSeconds" => q.timeout_seconds = value.parse().ok(),
                "sendInitialEvents" => q.send_initial_events = truthy,
                "labelSelector" => q.label_selector = Some(value).filter(|v| !v.is_empty()),
                "fieldSelector" => q.field_selector = Some(value).filter(|v| !v.is_empty()),
                _ => {}
            }
        }
        q
    }
}

/// Reads what `method uri` is.
pub fn classify(method: &Method, uri: &Uri) -> Call {
    let path = ResourcePath::parse(uri.path());
    let query = Query::parse(uri.query().unwrap_or_default());
    let collection = path.as_ref().filter(|p| p.name.is_none());
    match collection {
        Some(p) if method == Method::GET => {
            let collection = Collection {
                resource: p.label(),
                namespace: p.namespace.clone(),
                label_selector: query.label_selector.clone(),
                field_selector: query.field_selector.clone(),
            };
            if query.watch {
                Call::Watch(collection, watch_request(query))
            } else {
                Call::List(collection, list_request(query))
            }
        }
        _ => Call::Other {
            verb: verb(method, path.as_ref(), query.watch),
            resource: path.map(|p| p.label()),
        },
    }
}

fn list_request(q: Query) -> ListRequest {
    ListRequest {
        options: ListOptions {
            resource_version: q.resource_version.unwrap_or_default(),
            limit: q.limit,
            continue_token: q.continue_token,
        },
        resource_version_match: q.resource_version_match,
    }
}

fn watch_request(q: Query) -> WatchRequest {
    WatchRequest {
        options: WatchOptions {
            resource_version: q.resource_version.unwrap_or_default(),
            timeout_seconds: q.timeout_seconds.unwrap_or(0),
            send_initial_events: q.send_initial_events,
        },
        resource_version_match: q.resource_version_match,
    }
}

/// kube-apiserver's verb: `get`, `create`, `update`, `patch`, `delete`, `deletecollection`,
/// `watch` (of one object); a path outside the resource API is `get`/`post`/… of that path.
fn verb(method: &Method, path: Option<&ResourcePath>, watch: bool) -> String {
    let named = path.is_some_and(|p| p.name.is_some());
    let word = match *method {
        Method::GET if watch => "watch",
        Method::GET => "get",
        Method::POST if path.is_some() => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => return method.as_str().to_ascii_lowercase(),
    };
    match path.and_then(|p| p.subresource.as_deref()) {
        Some(sub) => format!("{word} {sub}"),
        None => word.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(method: Method, uri: &str) -> Call {
        classify(&method, &uri.parse().unwrap_or_default())
    }

    #[test]
    fn informer_requests_are_lists_and_watches_of_a_collection() {
        let Call::List(c, l) = call(
            Method::GET,
            "/api/v1/namespaces/default/pods?limit=500&resourceVersion=0&labelSelector=app%3Dweb",
        ) else {
            panic!("not a list");
        };
        assert_eq!(c.describe(), "pods@default,l=app=web");
        assert_eq!(l.options.limit, Some(500));
        assert_eq!(l.options.resource_version, "0");
        let Call::Watch(c, w) = call(
            Method::GET,
            "/apis/apps/v1/deployments?watch=1&resourceVersion=42&timeoutSeconds=300&allowWatchBookmarks=true",
        ) else {
            panic!("not a watch");
        };
        assert_eq!(c.describe(), "deployments.apps");
        assert_eq!(w.options.resource_version, "42");
        assert_eq!(w.options.timeout_seconds, 300);
        assert!(matches!(
            call(Method::GET, "/api/v1/pods?watch=True"),
            Call::Watch(..)
        ));
        let Call::List(c, _) = call(Method::GET, "/api/v1/namespaces") else {
            panic!("namespaces are a collection");
        };
        assert_eq!(c.describe(), "namespaces");
    }

    #[test]
    fn other_requests_are_named_by_verb_and_resource() {
        let cases = [
            (
                Method::GET,
                "/api/v1/namespaces/a/pods/web",
                "get",
                Some("pods"),
            ),
            (
                Method::POST,
                "/api/v1/namespaces/a/pods",
                "create",
                Some("pods"),
            ),
            (
                Method::PATCH,
                "/apis/apps/v1/namespaces/a/deployments/web/scale",
                "patch scale",
                Some("deployments.apps"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/a/pods/x",
                "delete",
                Some("pods"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/default",
                "get",
                Some("namespaces"),
            ),
            (Method::GET, "/version", "get", None),
            (Method::GET, "/apis", "get", None),
        ];
        for (method, uri, verb, resource) in cases {
            assert_eq!(
                call(method, uri),
                Call::Other {
                    verb: verb.into(),
                    resource: resource.map(str::to_owned)
                },
                "{uri}"
            );
        }
    }
}
