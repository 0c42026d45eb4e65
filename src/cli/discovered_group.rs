//! The discovery documents of one API group, as resolving a name reads them: from the two
//! aggregated documents (`aggregated_discovery.rs`) or group by group from the legacy ones
//! (`resolve.rs`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;

/// The discovery documents of one API group.
#[derive(Debug, Clone, Default)]
pub struct DiscoveredGroup {
    /// Empty for the core group.
    pub name: String,
    pub preferred_version: String,
    /// One list per version, as served.
    pub lists: Vec<APIResourceList>,
}
