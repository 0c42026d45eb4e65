//! RESOURCE → API resource, the way kubectl resolves `kubectl get RESOURCE`.
//!
//! Accepted spellings: plural (`pods`), singular (`pod`), kind (`Pod`, any case), short name
//! (`po`), `resource.group` (`deployments.apps`, `deploy.apps`) and `resource.version.group`
//! (`deployments.v1.apps`). The core group wins over the others, then groups in discovery
//! order; within a group the preferred version wins. Subresources (`pods/log`) are skipped,
//! and the resource must support `list` and `watch`. The documents are the aggregated ones
//! (`aggregated_discovery.rs`) when the server has them, else the legacy ones.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;

use super::discovered_group::DiscoveredGroup;

/// A resource the informer can list and watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedResource {
    /// The API group, empty for the core group.
    pub group: String,
    pub version: String,
    /// `v1` or `group/version`.
    pub api_version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
}

impl ResolvedResource {
    /// The dynamic-type descriptor kube's `Api<DynamicObject>` takes.
    pub fn api_resource(&self) -> kube::core::ApiResource {
        kube::core::ApiResource {
            group: self.group.clone(),
            version: self.version.clone(),
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            plural: self.plural.clone(),
        }
    }

    /// The name trace lines carry: kubectl's `resource.group` spelling (`pods`,
    /// `deployments.apps`).
    pub fn label(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// Why RESOURCE could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// `the server doesn't have a resource type "podz" (did you mean "pods"?)`
    #[error("the server doesn't have a resource type \"{resource}\"{}", suggestion_text(.suggestion))]
    Unknown {
        resource: String,
        suggestion: Option<String>,
    },
    /// The resource exists but cannot be listed and watched.
    #[error(
        "resource type \"{plural}\" does not support {missing} (an informer needs list and watch)"
    )]
    NotWatchable { plural: String, missing: String },
    /// A discovery request failed.
    #[error("discovery failed: {0}")]
    Discovery(#[from] kube::Error),
}

fn suggestion_text(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean \"{s}\"?)"))
        .unwrap_or_default()
}

/// Resolves RESOURCE against the server's discovery documents: the two aggregated ones when
/// the server serves them (as client-go asks), else the legacy ones group by group.
pub async fn resolve(
    client: &kube::Client,
    resource: &str,
) -> Result<ResolvedResource, ResolveError> {
    if let Some(groups) = super::aggregated_discovery::discover(client).await {
        return resolve_in(&groups, resource);
    }
    let query = Query::parse(resource);
    let mut groups = Vec::new();
    if query.group.is_none() {
        groups.push(discover_core(client).await?);
        if let Ok(found) = resolve_in(&groups, resource) {
            return Ok(found);
        }
    }
    let api_groups = client.list_api_groups().await?;
    let wanted = api_groups
        .groups
        .into_iter()
        .filter(|g| query.group.as_deref().is_none_or(|q| q == g.name))
        .map(|g| discover_group(client, g));
    groups.extend(futures_util::future::join_all(wanted).await);
    resolve_in(&groups, resource)
}

async fn discover_core(client: &kube::Client) -> Result<DiscoveredGroup, kube::Error> {
    let versions = client.list_core_api_versions().await?.versions;
    let mut lists = Vec::new();
    for v in &versions {
        lists.push(client.list_core_api_resources(v).await?);
    }
    Ok(DiscoveredGroup {
        name: String::new(),
        preferred_version: versions.first().cloned().unwrap_or_else(|| "v1".into()),
        lists,
    })
}

async fn discover_group(
    client: &kube::Client,
    group: k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroup,
) -> DiscoveredGroup {
    let preferred = group
        .preferred_version
        .map(|p| p.version)
        .or_else(|| group.versions.first().map(|v| v.version.clone()))
        .unwrap_or_default();
    let requests = group
        .versions
        .iter()
        .map(|v| client.list_api_group_resources(&v.group_version));
    let lists = futures_util::future::join_all(requests).await;
    DiscoveredGroup {
        name: group.name,
        preferred_version: preferred,
        // A group version whose discovery fails (an aggregated API that is down) is skipped,
        // as kubectl does; the rest still resolve.
        lists: lists.into_iter().filter_map(Result::ok).collect(),
    }
}

/// RESOURCE split into its name and optional version/group qualifiers.
#[derive(Debug, PartialEq, Eq)]
struct Query {
    name: String,
    version: Option<String>,
    group: Option<String>,
}

impl Query {
    fn parse(text: &str) -> Self {
        let lower = text.to_ascii_lowercase();
        let mut parts = lower.splitn(3, '.');
        let name = parts.next().unwrap_or_default().to_owned();
        match (parts.next(), parts.next()) {
            (None, _) => Query {
                name,
                version: None,
                group: None,
            },
            (Some(second), Some(rest)) if looks_like_version(second) => Query {
                name,
                version: Some(second.to_owned()),
                group: Some(rest.to_owned()),
            },
            (Some(_), _) => Query {
                group: lower.split_once('.').map(|(_, g)| g.to_owned()),
                name,
                version: None,
            },
        }
    }

    /// Whether `r` in `group` at `version` is what was asked for.
    fn matches(&self, group: &str, version: &str, r: &APIResource) -> bool {
        self.group.as_deref().is_none_or(|g| g == group)
            && self.version.as_deref().is_none_or(|v| v == version)
            && names_of(r).any(|n| n.eq_ignore_ascii_case(&self.name))
    }
}

/// `v1`, `v1beta2`, `v2alpha1`.
fn looks_like_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let tail = &rest[digits..];
    tail.is_empty()
        || ["alpha", "beta"].iter().any(|p| {
            tail.strip_prefix(p)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Every name a resource answers to: plural, singular, kind, short names.
fn names_of(r: &APIResource) -> impl Iterator<Item = &str> {
    [r.name.as_str(), r.singular_name.as_str(), r.kind.as_str()]
        .into_iter()
        .chain(r.short_names.iter().flatten().map(String::as_str))
        .filter(|n| !n.is_empty())
}

/// The version part of `group/version` (or of `v1`).
fn version_of(group_version: &str) -> &str {
    group_version.rsplit('/').next().unwrap_or(group_version)
}

/// Resolves `resource` in discovery documents (core group first, then others in order).
pub fn resolve_in(
    groups: &[DiscoveredGroup],
    resource: &str,
) -> Result<ResolvedResource, ResolveError> {
    let query = Query::parse(resource);
    let mut sorted: Vec<&DiscoveredGroup> = groups.iter().collect();
    sorted.sort_by_key(|g| !g.name.is_empty());
    for group in sorted {
        if let Some(found) = find_in_group(group, &query) {
            return check_verbs(group, found.0, found.1);
        }
    }
    Err(ResolveError::Unknown {
        resource: resource.to_owned(),
        suggestion: suggest(groups, &query.name),
    })
}

/// The best match in one group: the preferred version first, then the others in order.
fn find_in_group<'a>(
    group: &'a DiscoveredGroup,
    query: &Query,
) -> Option<(&'a str, &'a APIResource)> {
    let preferred = group
        .lists
        .iter()
        .filter(|l| version_of(&l.group_version) == group.preferred_version);
    let others = group
        .lists
        .iter()
        .filter(|l| version_of(&l.group_version) != group.preferred_version);
    preferred.chain(others).find_map(|list| {
        let version = version_of(&list.group_version);
        list.resources
            .iter()
            .filter(|r| !r.name.contains('/'))
            .find(|r| query.matches(&group.name, version, r))
            .map(|r| (version, r))
    })
}

fn check_verbs(
    group: &DiscoveredGroup,
    version: &str,
    r: &APIResource,
) -> Result<ResolvedResource, ResolveError> {
    let missing: Vec<&str> = ["list", "watch"]
        .into_iter()
        .filter(|v| !r.verbs.iter().any(|have| have == v))
        .collect();
    if !missing.is_empty() {
        return Err(ResolveError::NotWatchable {
            plural: r.name.clone(),
            missing: missing.join(" and "),
        });
    }
    let api_version = if group.name.is_empty() {
        version.to_owned()
    } else {
        format!("{}/{version}", group.name)
    };
    Ok(ResolvedResource {
        group: group.name.clone(),
        version: version.to_owned(),
        api_version,
        kind: r.kind.clone(),
        plural: r.name.clone(),
        namespaced: r.namespaced,
    })
}

/// The closest plural name: edit distance ≤ 2, or a prefix either way (≥ 2 characters).
fn suggest(groups: &[DiscoveredGroup], name: &str) -> Option<String> {
    let resources = groups
        .iter()
        .flat_map(|g| &g.lists)
        .flat_map(|l| &l.resources)
        .filter(|r| !r.name.contains('/'));
    let mut best: Option<(usize, &str)> = None;
    for r in resources {
        for candidate in names_of(r) {
            let candidate = candidate.to_ascii_lowercase();
            let distance = strsim::levenshtein(name, &candidate);
            let prefix =
                name.len() >= 2 && (candidate.starts_with(name) || name.starts_with(&candidate));
            let score = if distance <= 2 {
                distance
            } else if prefix {
                3
            } else {
                continue;
            };
            if best.is_none_or(|(b, _)| score < b) {
                best = Some((score, r.name.as_str()));
            }
        }
    }
    best.map(|(_, plural)| plural.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;

    fn res(name: &str, singular: &str, kind: &str, short: &[&str], verbs: &[&str]) -> APIResource {
        APIResource {
            name: name.into(),
            singular_name: singular.into(),
            kind: kind.into(),
            namespaced: true,
            short_names: (!short.is_empty()).then(|| short.iter().map(|s| s.to_string()).collect()),
            verbs: verbs.iter().map(|s| s.to_string()).collect(),
            ..APIResource::default()
        }
    }

    const LW: &[&str] = &["get", "list", "watch"];

    fn discovery() -> Vec<DiscoveredGroup> {
        let core = DiscoveredGroup {
            name: String::new(),
            preferred_version: "v1".into(),
            lists: vec![APIResourceList {
                group_version: "v1".into(),
                resources: vec![
                    res("pods", "pod", "Pod", &["po"], LW),
                    res("pods/log", "", "Pod", &[], &["get"]),
                    res("bindings", "binding", "Binding", &[], &["create"]),
                    res("secrets", "secret", "Secret", &[], LW),
                ],
            }],
        };
        let apps = DiscoveredGroup {
            name: "apps".into(),
            preferred_version: "v1".into(),
            lists: vec![
                APIResourceList {
                    group_version: "apps/v1beta2".into(),
                    resources: vec![res(
                        "deployments",
                        "deployment",
                        "Deployment",
                        &["deploy"],
                        LW,
                    )],
                },
                APIResourceList {
                    group_version: "apps/v1".into(),
                    resources: vec![res(
                        "deployments",
                        "deployment",
                        "Deployment",
                        &["deploy"],
                        LW,
                    )],
                },
            ],
        };
        let events = DiscoveredGroup {
            name: "events.k8s.io".into(),
            preferred_version: "v1".into(),
            lists: vec![APIResourceList {
                group_version: "events.k8s.io/v1".into(),
                resources: vec![res("events", "event", "Event", &["ev"], LW)],
            }],
        };
        vec![apps, events, core]
    }

    fn resolved(arg: &str) -> ResolvedResource {
        resolve_in(&discovery(), arg).unwrap_or_else(|e| panic!("{arg}: {e}"))
    }

    #[test]
    fn every_kubectl_spelling_resolves() {
        for arg in ["pods", "pod", "Pod", "POD", "po"] {
            let r = resolved(arg);
            assert_eq!(
                (r.plural.as_str(), r.api_version.as_str()),
                ("pods", "v1"),
                "{arg}"
            );
        }
        for arg in [
            "deployments",
            "deploy",
            "Deployment",
            "deployments.apps",
            "deploy.apps",
        ] {
            let r = resolved(arg);
            assert_eq!(r.api_version, "apps/v1", "{arg}");
            assert_eq!(r.kind, "Deployment");
        }
        assert_eq!(
            resolved("deployments.v1beta2.apps").api_version,
            "apps/v1beta2"
        );
        assert_eq!(resolved("events.events.k8s.io").group, "events.k8s.io");
        assert_eq!(resolved("secrets").label(), "secrets");
        assert_eq!(resolved("deploy").label(), "deployments.apps");
        let ar = resolved("ev").api_resource();
        assert_eq!(
            (ar.group.as_str(), ar.plural.as_str()),
            ("events.k8s.io", "events")
        );
    }

    #[test]
    fn unknown_resources_suggest_the_closest_name() {
        let err = resolve_in(&discovery(), "podz").unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"the server doesn't have a resource type "podz" (did you mean "pods"?)"#
        );
        let err = resolve_in(&discovery(), "deploymen").unwrap_err();
        assert!(
            err.to_string()
                .ends_with(r#"(did you mean "deployments"?)"#)
        );
        let err = resolve_in(&discovery(), "zzzzzz").unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"the server doesn't have a resource type "zzzzzz""#
        );
        assert!(resolve_in(&discovery(), "deployments.batch").is_err());
        assert!(resolve_in(&discovery(), "pods.v2.apps").is_err());
    }

    #[test]
    fn subresources_are_skipped_and_verbs_required() {
        assert!(matches!(
            resolve_in(&discovery(), "pods/log"),
            Err(ResolveError::Unknown { .. })
        ));
        let err = resolve_in(&discovery(), "bindings").unwrap_err();
        assert!(matches!(err, ResolveError::NotWatchable { .. }));
        assert!(err.to_string().contains("list and watch"));
    }

    /// A kube client whose "server" answers discovery from fixed JSON, or 403s everything.
    fn fake_client(forbidden: bool) -> kube::Client {
        use http_body_util::Full;
        let service = tower::service_fn(move |req: http::Request<kube::client::Body>| async move {
            let body = match req.uri().path() {
                _ if forbidden => None,
                "/api" => Some(
                    r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}"#,
                ),
                "/api/v1" => Some(
                    r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["list","watch"],"shortNames":["po"]}]}"#,
                ),
                "/apis" => Some(
                    r#"{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}"#,
                ),
                "/apis/apps/v1" => Some(
                    r#"{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["list","watch"],"shortNames":["deploy"]}]}"#,
                ),
                _ => None,
            };
            let (status, text) = match body {
                Some(b) => (200, b.to_owned()),
                None => (403, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","reason":"Forbidden","code":403}"#.to_owned()),
            };
            let response = http::Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Full::new(bytes::Bytes::from(text)))
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(response)
        });
        kube::Client::new(service, "default")
    }

    #[tokio::test]
    async fn resolves_through_discovery_requests() {
        let client = fake_client(false);
        assert_eq!(resolve(&client, "po").await.unwrap().plural, "pods");
        let deploy = resolve(&client, "deploy").await.unwrap();
        assert_eq!(
            (deploy.api_version.as_str(), deploy.namespaced),
            ("apps/v1", true)
        );
        assert_eq!(
            resolve(&client, "deployments.apps").await.unwrap().kind,
            "Deployment"
        );
        let err = resolve(&client, "deploymnts").await.unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"the server doesn't have a resource type "deploymnts" (did you mean "deployments"?)"#
        );
    }

    /// A kube client whose "server" has only the two aggregated discovery documents: every
    /// other request (a legacy group document among them) is answered 404.
    fn aggregated_only_client() -> kube::Client {
        use http_body_util::Full;
        let service = tower::service_fn(|req: http::Request<kube::client::Body>| async move {
            let aggregated = req
                .headers()
                .get(http::header::ACCEPT)
                .and_then(|a| a.to_str().ok())
                .is_some_and(|a| a.starts_with("application/json;g=apidiscovery.k8s.io;v=v2;"));
            let body = match req.uri().path() {
                "/api" if aggregated => Some(
                    r#"{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":""},"versions":[{"version":"v1","resources":[{"resource":"pods","responseKind":{"kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["list","watch"],"shortNames":["po"]}]}]}]}"#,
                ),
                "/apis" if aggregated => Some(
                    r#"{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["list","watch"],"shortNames":["deploy"]}]}]}]}"#,
                ),
                _ => None,
            };
            let (status, text) = match body {
                Some(b) => (200, b.to_owned()),
                None => (404, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}"#.to_owned()),
            };
            let response = http::Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Full::new(bytes::Bytes::from(text)))
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(response)
        });
        kube::Client::new(service, "default")
    }

    #[tokio::test]
    async fn resolves_from_the_two_aggregated_documents_alone() {
        let client = aggregated_only_client();
        assert_eq!(resolve(&client, "po").await.unwrap().plural, "pods");
        let deploy = resolve(&client, "deploy.apps").await.unwrap();
        assert_eq!(
            (deploy.api_version.as_str(), deploy.kind.as_str()),
            ("apps/v1", "Deployment")
        );
    }

    #[tokio::test]
    async fn discovery_refusal_is_an_api_error() {
        // (exit.rs maps an Api error to exit code 4.)
        let err = resolve(&fake_client(true), "pods").await.unwrap_err();
        assert!(
            matches!(&err, ResolveError::Discovery(kube::Error::Api(s)) if s.code == 403),
            "{err:?}"
        );
    }

    #[test]
    fn query_parsing() {
        assert_eq!(
            Query::parse("deployments.v1.apps").version.as_deref(),
            Some("v1")
        );
        assert_eq!(
            Query::parse("events.events.k8s.io").group.as_deref(),
            Some("events.k8s.io")
        );
        assert!(
            looks_like_version("v2beta1")
                && !looks_like_version("vx")
                && !looks_like_version("v1beta")
        );
    }
}
