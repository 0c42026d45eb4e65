//! Discovery: `/version`, `/api`, `/apis`, `/apis/{group}` and the per-group-version resource
//! lists, in the legacy (unaggregated) JSON form kube-rs reads, and `/api` and `/apis` as the
//! aggregated `APIGroupDiscoveryList` kubectl and client-go ask for first.

use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;

use super::resources::{Registry, ResourceType, Subresource, group_version};
use super::status::{ApiError, json_response};

/// A discovery document as JSON, its members in the Go types' field order.
fn ok(value: &impl Serialize) -> Response {
    json_response(
        StatusCode::OK,
        serde_json::to_string(value).unwrap_or_default(),
    )
}

/// The release whose API the server serves (its captured OpenAPI, protobuf descriptors and
/// conformance reference): kube-apiserver v1.37.2.
const SERVED: (u32, u32) = (37, 2);

/// The release the server reports it is: `v1.37.2` as 1.37 (the release it serves), the `.0`
/// of any other minor (the one release every minor has).
pub fn git_version(minor: u32) -> String {
    let patch = if minor == SERVED.0 { SERVED.1 } else { 0 };
    format!("v1.{minor}.{patch}")
}

/// The Go release and build date of `v1.{minor}.0` (its `kubectl version` output); minors
/// after the table report its last row's, those before it its first row's.
fn release(minor: u32) -> (&'static str, &'static str) {
    const RELEASES: [(u32, &str, &str); 10] = [
        (26, "go1.19.4", "2022-12-08T10:08:09Z"),
        (27, "go1.20.3", "2023-04-11T17:04:24Z"),
        (28, "go1.20.7", "2023-08-15T10:15:54Z"),
        (29, "go1.21.5", "2023-12-13T08:43:59Z"),
        (30, "go1.22.2", "2024-04-17T17:27:09Z"),
        (31, "go1.22.5", "2024-08-13T07:28:49Z"),
        (32, "go1.23.3", "2024-12-11T17:56:14Z"),
        (33, "go1.24.2", "2025-04-23T13:03:27Z"),
        (34, "go1.24.6", "2025-08-27T10:17:09Z"),
        (35, "go1.25.5", "2025-12-17T12:32:41Z"),
    ];
    let row = RELEASES
        .iter()
        .rev()
        .find(|(first, _, _)| *first <= minor)
        .unwrap_or(&RELEASES[0]);
    (row.1, row.2)
}

/// The first minor whose `/version` reports the emulated and minimum compatibility versions
/// (KEP-4330's members of `version.Info`, added in 1.33).
const COMPATIBILITY_VERSIONS_IN: u32 = 33;

/// `version.Info` (`apimachinery/pkg/version/types.go`), members in its Go field order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionInfo {
    major: &'static str,
    minor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    emulation_major: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    emulation_minor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_compatibility_major: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_compatibility_minor: Option<String>,
    git_version: String,
    git_commit: &'static str,
    git_tree_state: &'static str,
    build_date: &'static str,
    go_version: &'static str,
    compiler: &'static str,
    platform: String,
}

/// This machine's platform as Go names it (`linux/amd64`).
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" => "ppc64le",
        other => other,
    };
    format!("{}/{arch}", std::env::consts::OS)
}

/// `/version`: the `version.Info` of `v1.{minor}.0` (32 by default, so kubectl's dispatcher runs
/// kubectl 1.32), indented as kube-apiserver's `responsewriters.WriteRawJSON` writes it.
pub fn version(minor: u32) -> Response {
    let (go_version, build_date) = release(minor);
    let compatibility = minor >= COMPATIBILITY_VERSIONS_IN;
    let info = VersionInfo {
        major: "1",
        minor: minor.to_string(),
        emulation_major: compatibility.then_some("1"),
        emulation_minor: compatibility.then(|| minor.to_string()),
        min_compatibility_major: compatibility.then_some("1"),
        min_compatibility_minor: compatibility.then(|| minor.saturating_sub(1).to_string()),
        git_version: git_version(minor),
        git_commit: "0000000000000000000000000000000000000000",
        git_tree_state: "clean",
        build_date,
        go_version,
        compiler: "gc",
        platform: platform(),
    };
    let text = serde_json::to_string_pretty(&info).unwrap_or_default();
    json_response(StatusCode::OK, text)
}

/// `/api`: the core group's versions, aggregated when the client asks for it.
pub fn core(registry: &Registry, address: &str, format: DiscoveryFormat) -> Response {
    match format {
        DiscoveryFormat::Aggregated(version) => {
            let core = group_discovery(registry, "", &["v1".to_owned()]);
            aggregated(version, vec![core])
        }
        DiscoveryFormat::Legacy => core_versions(address),
    }
}

/// `/apis`: every non-core group, aggregated when the client asks for it.
pub fn groups(registry: &Registry, format: DiscoveryFormat) -> Response {
    match format {
        DiscoveryFormat::Aggregated(version) => {
            let groups = registry
                .groups()
                .iter()
                .map(|(name, versions)| group_discovery(registry, name, versions))
                .collect();
            aggregated(version, groups)
        }
        DiscoveryFormat::Legacy => group_list(registry),
    }
}

/// `APIVersions` (`apimachinery/pkg/apis/meta/v1/types.go`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiVersions<'a> {
    kind: &'static str,
    versions: [&'static str; 1],
    #[serde(rename = "serverAddressByClientCIDRs")]
    server_addresses: [ServerAddress<'a>; 1],
}

/// `ServerAddressByClientCIDR`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerAddress<'a> {
    #[serde(rename = "clientCIDR")]
    client_cidr: &'static str,
    server_address: &'a str,
}

/// The legacy `/api`: the core group's versions.
fn core_versions(address: &str) -> Response {
    ok(&ApiVersions {
        kind: "APIVersions",
        versions: ["v1"],
        server_addresses: [ServerAddress {
            client_cidr: "0.0.0.0/0",
            server_address: address,
        }],
    })
}

/// `GroupVersionForDiscovery`.
#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
struct GroupVersionForDiscovery {
    group_version: String,
    version: String,
}

/// `APIGroup`: `kind` and `apiVersion` only when it is a document of its own.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiGroup {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    name: String,
    versions: Vec<GroupVersionForDiscovery>,
    preferred_version: Option<GroupVersionForDiscovery>,
}

/// One APIGroup object (`standalone`: `/apis/{group}`, with its type meta).
fn api_group(name: &str, versions: &[String], standalone: bool) -> ApiGroup {
    let versions: Vec<GroupVersionForDiscovery> = versions
        .iter()
        .map(|v| GroupVersionForDiscovery {
            group_version: group_version(name, v),
            version: v.clone(),
        })
        .collect();
    ApiGroup {
        kind: standalone.then_some("APIGroup"),
        api_version: standalone.then_some("v1"),
        name: name.to_owned(),
        preferred_version: versions.first().cloned(),
        versions,
    }
}

/// `APIGroupList`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiGroupList {
    kind: &'static str,
    api_version: &'static str,
    groups: Vec<ApiGroup>,
}

/// The legacy `/apis`: every non-core group.
fn group_list(registry: &Registry) -> Response {
    let groups = registry
        .groups()
        .iter()
        .map(|(name, versions)| api_group(name, versions, false))
        .collect();
    ok(&ApiGroupList {
        kind: "APIGroupList",
        api_version: "v1",
        groups,
    })
}

/// `/apis/{group}`.
pub fn group(registry: &Registry, name: &str) -> Result<Response, ApiError> {
    let groups = registry.groups();
    let (_, versions) = groups
        .iter()
        .find(|(g, _)| g == name)
        .ok_or_else(ApiError::no_route)?;
    Ok(ok(&api_group(name, versions, true)))
}

/// `APIResource` (`apimachinery/pkg/apis/meta/v1/types.go`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResource<'a> {
    name: String,
    singular_name: &'a str,
    namespaced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'static str>,
    kind: &'a str,
    verbs: &'static [&'static str],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    short_names: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    categories: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_version_hash: Option<&'a str>,
}

/// One resource's APIResource.
fn api_resource(resource: &ResourceType) -> ApiResource<'_> {
    ApiResource {
        name: resource.plural.clone(),
        singular_name: &resource.singular,
        namespaced: resource.namespaced,
        group: None,
        version: None,
        kind: &resource.kind,
        verbs: resource.verbs,
        short_names: &resource.short_names,
        categories: &resource.categories,
        storage_version_hash: resource.storage_version_hash.as_deref(),
    }
}

/// One subresource's APIResource, as kube-apiserver's installer lists it
/// (`apiserver/pkg/endpoints/installer.go`, `registerResourceHandlers`): `plural/sub`, no
/// singular name, the parent's scope, the kind it answers (the parent's for `status`,
/// autoscaling/v1 `Scale` for `scale`, which kubectl's scale client looks up here, policy/v1
/// `Eviction` for `eviction`, …).
fn subresource_entry(resource: &ResourceType, subresource: Subresource) -> ApiResource<'_> {
    let foreign = subresource.foreign_kind();
    ApiResource {
        name: format!("{}/{}", resource.plural, subresource.name()),
        singular_name: "",
        namespaced: resource.namespaced,
        group: foreign.map(|(group, _, _)| group).filter(|g| !g.is_empty()),
        version: foreign
            .map(|(_, version, _)| version)
            .filter(|v| !v.is_empty()),
        kind: foreign.map_or(resource.kind.as_str(), |(_, _, kind)| kind),
        verbs: subresource.verbs(),
        short_names: &[],
        categories: &[],
        storage_version_hash: None,
    }
}

/// `APIResourceList`; kube-apiserver writes no `apiVersion` in the core group's.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResourceList<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    group_version: String,
    resources: Vec<ApiResource<'a>>,
}

/// `/api/v1` and `/apis/{group}/{version}`: each resource followed by its subresources (the
/// resources come by plural, so this is kube-apiserver's order, sorted by path).
pub fn resource_list(
    registry: &Registry,
    group: &str,
    version: &str,
) -> Result<Response, ApiError> {
    let resources = registry.in_group_version(group, version);
    if resources.is_empty() {
        return Err(ApiError::no_route());
    }
    let entries = resources
        .iter()
        .flat_map(|r| {
            let subresources = r.subresources_of(version).into_iter();
            std::iter::once(api_resource(r)).chain(subresources.map(|s| subresource_entry(r, s)))
        })
        .collect();
    Ok(ok(&ApiResourceList {
        kind: "APIResourceList",
        api_version: (!group.is_empty()).then_some("v1"),
        group_version: group_version(group, version),
        resources: entries,
    }))
}

/// The group of aggregated discovery's types.
const DISCOVERY_GROUP: &str = "apidiscovery.k8s.io";

/// The kind aggregated discovery answers `/api` and `/apis` with.
const DISCOVERY_LIST: &str = "APIGroupDiscoveryList";

/// The first minor whose kube-apiserver no longer serves aggregated discovery's `v2beta1`
/// (`AggregatedDiscoveryRemoveBetaType` defaults to on from 1.33:
/// `apiserver/pkg/features/kube_features.go`).
const V2BETA1_REMOVED_IN: u32 = 33;

/// What a client asks `/api` and `/apis` for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryFormat {
    /// The legacy `APIVersions` and `APIGroupList`.
    Legacy,
    /// An `APIGroupDiscoveryList` of this apidiscovery.k8s.io version (`v2`, `v2beta1`).
    Aggregated(&'static str),
}

impl DiscoveryFormat {
    /// The format of the first clause of `accept` the server answers, as kube-apiserver's
    /// `WrappedHandler` negotiates it (`apiserver/pkg/endpoints/discovery/aggregated/wrapper.go`,
    /// `negotiation.go`): a JSON clause asking `as=APIGroupDiscoveryList` in
    /// apidiscovery.k8s.io at `v2` (or `v2beta1` before 1.33) is aggregated discovery, a clause
    /// asking for any other `as` is passed over, a plain one is the legacy types.
    pub fn negotiate(accept: &str, minor: u32) -> Self {
        accept
            .split(',')
            .find_map(|clause| Self::of_clause(clause, minor))
            .unwrap_or(DiscoveryFormat::Legacy)
    }

    /// The format one `Accept` clause asks for; None when the server cannot answer it.
    fn of_clause(clause: &str, minor: u32) -> Option<Self> {
        let mut parts = clause.split(';').map(str::trim);
        let media = parts.next().unwrap_or_default();
        if !matches!(media, "application/json" | "application/*" | "*/*") {
            return None;
        }
        let params: Vec<(&str, &str)> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(key, value)| (key.trim(), value.trim()))
            .collect();
        let param = |name: &str| params.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        if param("q") == Some("0") {
            return None;
        }
        let Some(kind) = param("as") else {
            return Some(DiscoveryFormat::Legacy);
        };
        if kind != DISCOVERY_LIST || param("g") != Some(DISCOVERY_GROUP) {
            return None;
        }
        match param("v") {
            Some("v2") => Some(DiscoveryFormat::Aggregated("v2")),
            Some("v2beta1") if minor < V2BETA1_REMOVED_IN => {
                Some(DiscoveryFormat::Aggregated("v2beta1"))
            }
            _ => None,
        }
    }
}

/// `APIGroupDiscoveryList`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupDiscoveryList {
    kind: &'static str,
    api_version: String,
    metadata: Empty,
    items: Vec<GroupDiscovery>,
}

/// An empty `metadata`.
#[derive(Serialize)]
struct Empty {}

/// `APIGroupDiscovery`: the group (unnamed for the core group) with each served version.
#[derive(Serialize)]
struct GroupDiscovery {
    metadata: GroupName,
    versions: Vec<VersionDiscovery>,
}

/// An `APIGroupDiscovery`'s `metadata`.
#[derive(Serialize)]
struct GroupName {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// `APIVersionDiscovery`.
#[derive(Serialize)]
struct VersionDiscovery {
    version: String,
    resources: Vec<ResourceDiscovery>,
    freshness: &'static str,
}

/// A `GroupVersionKind` as aggregated discovery writes one (every member, even an empty group).
#[derive(Serialize)]
struct ResponseKind {
    group: String,
    version: String,
    kind: String,
}

/// `APIResourceDiscovery`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceDiscovery {
    resource: String,
    response_kind: ResponseKind,
    scope: &'static str,
    singular_resource: String,
    verbs: &'static [&'static str],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    short_names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    categories: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    subresources: Vec<SubresourceDiscovery>,
}

/// `APISubresourceDiscovery`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubresourceDiscovery {
    subresource: &'static str,
    response_kind: ResponseKind,
    verbs: &'static [&'static str],
}

/// An `APIGroupDiscoveryList` of `version` holding `items`, its media type as `Content-Type`
/// (`responsewriters.WriteObjectNegotiated` with `generateMediaTypeWithGVK`).
fn aggregated(version: &str, items: Vec<GroupDiscovery>) -> Response {
    let list = GroupDiscoveryList {
        kind: DISCOVERY_LIST,
        api_version: format!("{DISCOVERY_GROUP}/{version}"),
        metadata: Empty {},
        items,
    };
    let mut response = ok(&list);
    let media = format!("application/json;g={DISCOVERY_GROUP};v={version};as={DISCOVERY_LIST}");
    if let Ok(value) = HeaderValue::from_str(&media) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

/// One `APIGroupDiscovery`: the group (unnamed for the core group) with each served version's
/// resources.
fn group_discovery(registry: &Registry, group: &str, versions: &[String]) -> GroupDiscovery {
    let versions = versions
        .iter()
        .map(|version| VersionDiscovery {
            version: version.clone(),
            resources: registry
                .in_group_version(group, version)
                .iter()
                .map(|r| resource_discovery(r, version))
                .collect(),
            freshness: "Current",
        })
        .collect();
    GroupDiscovery {
        metadata: GroupName {
            name: (!group.is_empty()).then(|| group.to_owned()),
        },
        versions,
    }
}

/// The kind a resource or subresource answers: its own (group and version left empty, as
/// kube-apiserver writes a kind of the resource's own group version), or a foreign one.
fn response_kind(foreign: Option<(&str, &str, &str)>, own: &str) -> ResponseKind {
    let (group, version, kind) = foreign.unwrap_or(("", "", own));
    ResponseKind {
        group: group.to_owned(),
        version: version.to_owned(),
        kind: kind.to_owned(),
    }
}

/// One `APIResourceDiscovery`.
fn resource_discovery(resource: &ResourceType, version: &str) -> ResourceDiscovery {
    let subresources = resource
        .subresources_of(version)
        .into_iter()
        .map(|subresource| SubresourceDiscovery {
            subresource: subresource.name(),
            response_kind: response_kind(subresource.foreign_kind(), &resource.kind),
            verbs: subresource.verbs(),
        })
        .collect();
    ResourceDiscovery {
        resource: resource.plural.clone(),
        response_kind: response_kind(None, &resource.kind),
        scope: if resource.namespaced {
            "Namespaced"
        } else {
            "Cluster"
        },
        singular_resource: resource.singular.clone(),
        verbs: resource.verbs,
        short_names: resource.short_names.clone(),
        categories: resource.categories.clone(),
        subresources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_clauses_negotiate_as_kube_apiserver_does() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        let beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        let cases = [
            (kubectl, 32, DiscoveryFormat::Aggregated("v2")),
            (kubectl, 35, DiscoveryFormat::Aggregated("v2")),
            (beta, 32, DiscoveryFormat::Aggregated("v2beta1")),
            (beta, 33, DiscoveryFormat::Legacy),
            (table, 33, DiscoveryFormat::Legacy),
            ("", 33, DiscoveryFormat::Legacy),
            ("*/*", 33, DiscoveryFormat::Legacy),
            (
                "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json ; g=apidiscovery.k8s.io ; v=v2 ; as=APIGroupDiscoveryList",
                33,
                DiscoveryFormat::Aggregated("v2"),
            ),
        ];
        for (accept, minor, format) in cases {
            assert_eq!(
                DiscoveryFormat::negotiate(accept, minor),
                format,
                "{accept}"
            );
        }
    }
}
