//! Aggregated discovery (`apidiscovery.k8s.io/v2`, kube-apiserver 1.30+): every group, version
//! and resource in two requests, `/api` and `/apis`, asked with client-go's discovery `Accept`
//! (`k8s.io/client-go/discovery/discovery_client.go`: v2, then v2beta1, then the legacy
//! documents). A server that answers the legacy documents instead (older servers, aggregated
//! discovery turned off) gets `None`, and the caller walks the legacy documents group by group.
//! Versions marked `Stale` (an aggregated API server that did not answer) are left out, as
//! client-go leaves them out.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIResource, APIResourceList};
use serde::Deserialize;

use super::discovered_group::DiscoveredGroup;

/// client-go's discovery `Accept`: aggregated v2, then v2beta1, then the legacy documents.
const ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,\
                      application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,\
                      application/json";

/// `APIGroupDiscoveryList`, the fields resolving a name needs.
#[derive(Debug, Deserialize)]
struct GroupDiscoveryList {
    kind: String,
    #[serde(default)]
    items: Vec<GroupDiscovery>,
}

#[derive(Debug, Deserialize)]
struct GroupDiscovery {
    #[serde(default)]
    metadata: GroupMeta,
    /// In the server's order of preference.
    #[serde(default)]
    versions: Vec<VersionDiscovery>,
}

#[derive(Debug, Default, Deserialize)]
struct GroupMeta {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Deserialize)]
struct VersionDiscovery {
    version: String,
    #[serde(default)]
    resources: Vec<ResourceDiscovery>,
    #[serde(default)]
    freshness: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceDiscovery {
    resource: String,
    #[serde(default)]
    response_kind: Option<Kind>,
    #[serde(default)]
    scope: String,
    #[serde(default)]
    singular_resource: String,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    short_names: Option<Vec<String>>,
    #[serde(default)]
    categories: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Kind {
    #[serde(default)]
    kind: String,
}

/// Every group the server serves, core first, from its two aggregated documents; `None` when
/// the server does not answer them (then the legacy documents are walked).
pub async fn discover(client: &kube::Client) -> Option<Vec<DiscoveredGroup>> {
    let core = document(client, "/api").await?;
    let others = document(client, "/apis").await?;
    Some(
        core.items
            .into_iter()
            .chain(others.items)
            .map(discovered_group)
            .collect(),
    )
}

/// One aggregated document, or `None` for a failure or a legacy answer.
async fn document(client: &kube::Client, path: &str) -> Option<GroupDiscoveryList> {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, ACCEPT)
        .body(Vec::new())
        .ok()?;
    let text = client.request_text(request).await.ok()?;
    parse(&text)
}

/// `text` as an aggregated document; `None` when it is another kind (a legacy answer).
fn parse(text: &str) -> Option<GroupDiscoveryList> {
    let list: GroupDiscoveryList = serde_json::from_str(text).ok()?;
    (list.kind == "APIGroupDiscoveryList").then_some(list)
}

fn discovered_group(group: GroupDiscovery) -> DiscoveredGroup {
    let name = group.metadata.name;
    let fresh: Vec<VersionDiscovery> = group
        .versions
        .into_iter()
        .filter(|v| v.freshness != "Stale")
        .collect();
    DiscoveredGroup {
        preferred_version: fresh.first().map(|v| v.version.clone()).unwrap_or_default(),
        lists: fresh.into_iter().map(|v| resource_list(&name, v)).collect(),
        name,
    }
}

fn resource_list(group: &str, version: VersionDiscovery) -> APIResourceList {
    let group_version = if group.is_empty() {
        version.version
    } else {
        format!("{group}/{}", version.version)
    };
    APIResourceList {
        group_version,
        resources: version.resources.into_iter().map(api_resource).collect(),
    }
}

fn api_resource(r: ResourceDiscovery) -> APIResource {
    APIResource {
        name: r.resource,
        singular_name: r.singular_resource,
        namespaced: r.scope == "Namespaced",
        kind: r.response_kind.map(|k| k.kind).unwrap_or_default(),
        verbs: r.verbs,
        short_names: r.short_names,
        categories: r.categories,
        ..APIResource::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aggregated_document_gives_each_group_its_versions_in_preference_order() {
        let text = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2",
            "items":[{"metadata":{"name":"autoscaling"},"versions":[
              {"version":"v2","resources":[{"resource":"horizontalpodautoscalers",
                "responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"},
                "scope":"Namespaced","singularResource":"horizontalpodautoscaler",
                "verbs":["list","watch"],"shortNames":["hpa"],"categories":["all"]}]},
              {"version":"v1","resources":[],"freshness":"Current"},
              {"version":"v1beta9","resources":[],"freshness":"Stale"}]}]}"#;
        let groups: Vec<DiscoveredGroup> = parse(text)
            .expect("an aggregated document")
            .items
            .into_iter()
            .map(discovered_group)
            .collect();
        let autoscaling = &groups[0];
        assert_eq!(
            (
                autoscaling.name.as_str(),
                autoscaling.preferred_version.as_str()
            ),
            ("autoscaling", "v2")
        );
        let versions: Vec<&str> = autoscaling
            .lists
            .iter()
            .map(|l| l.group_version.as_str())
            .collect();
        assert_eq!(
            versions,
            ["autoscaling/v2", "autoscaling/v1"],
            "stale left out"
        );
        let hpa = &autoscaling.lists[0].resources[0];
        assert_eq!(
            (
                hpa.kind.as_str(),
                hpa.namespaced,
                hpa.short_names.as_deref()
            ),
            (
                "HorizontalPodAutoscaler",
                true,
                Some(&["hpa".to_owned()][..])
            )
        );
    }

    #[test]
    fn a_legacy_answer_is_not_an_aggregated_document() {
        assert!(parse(r#"{"kind":"APIVersions","versions":["v1"]}"#).is_none());
        assert!(parse("<html>").is_none());
    }
}
