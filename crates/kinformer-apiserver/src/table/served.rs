//! The printers of the kinds served beyond the first groups: which kind a resource is, and its
//! columns (`served_columns.rs`) and cells (`served_cells.rs`).

use jiff::Timestamp;
use serde_json::Value;

use super::{served_cells as cells, served_columns as columns};

/// A kind with a printer of its own in kube-apiserver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    HorizontalPodAutoscaler,
    IngressClass,
    Ingress,
    NetworkPolicy,
    PriorityClass,
    StorageClass,
    EndpointSlice,
    PersistentVolumeClaim,
    ResourceQuota,
    LimitRange,
    PodTemplate,
    ControllerRevision,
}

impl Kind {
    /// The kind served at `group`/`plural`, when it is one of these.
    pub fn of(group: &str, plural: &str) -> Option<Kind> {
        Some(match (group, plural) {
            ("autoscaling", "horizontalpodautoscalers") => Kind::HorizontalPodAutoscaler,
            ("networking.k8s.io", "ingressclasses") => Kind::IngressClass,
            ("networking.k8s.io", "ingresses") => Kind::Ingress,
            ("networking.k8s.io", "networkpolicies") => Kind::NetworkPolicy,
            ("scheduling.k8s.io", "priorityclasses") => Kind::PriorityClass,
            ("storage.k8s.io", "storageclasses") => Kind::StorageClass,
            ("discovery.k8s.io", "endpointslices") => Kind::EndpointSlice,
            ("", "persistentvolumeclaims") => Kind::PersistentVolumeClaim,
            ("", "resourcequotas") => Kind::ResourceQuota,
            ("", "limitranges") => Kind::LimitRange,
            ("", "podtemplates") => Kind::PodTemplate,
            ("apps", "controllerrevisions") => Kind::ControllerRevision,
            _ => return None,
        })
    }

    /// Its column definitions.
    pub fn columns(self) -> Vec<Value> {
        match self {
            Kind::HorizontalPodAutoscaler => columns::horizontal_pod_autoscaler(),
            Kind::IngressClass => columns::ingress_class(),
            Kind::Ingress => columns::ingress(),
            Kind::NetworkPolicy => columns::network_policy(),
            Kind::PriorityClass => columns::priority_class(),
            Kind::StorageClass => columns::storage_class(),
            Kind::EndpointSlice => columns::endpoint_slice(),
            Kind::PersistentVolumeClaim => columns::persistent_volume_claim(),
            Kind::ResourceQuota => columns::resource_quota(),
            Kind::LimitRange => columns::limit_range(),
            Kind::PodTemplate => columns::pod_template(),
            Kind::ControllerRevision => columns::controller_revision(),
        }
    }

    /// The cells of `object`'s row.
    pub fn cells(self, object: &Value, now: Timestamp) -> Vec<Value> {
        match self {
            Kind::HorizontalPodAutoscaler => cells::horizontal_pod_autoscaler(object, now),
            Kind::IngressClass => cells::ingress_class(object, now),
            Kind::Ingress => cells::ingress(object, now),
            Kind::NetworkPolicy => cells::network_policy(object, now),
            Kind::PriorityClass => cells::priority_class(object, now),
            Kind::StorageClass => cells::storage_class(object, now),
            Kind::EndpointSlice => cells::endpoint_slice(object, now),
            Kind::PersistentVolumeClaim => cells::persistent_volume_claim(object, now),
            Kind::ResourceQuota => cells::resource_quota(object, now),
            Kind::LimitRange => cells::limit_range(object),
            Kind::PodTemplate => cells::pod_template(object),
            Kind::ControllerRevision => cells::controller_revision(object, now),
        }
    }
}
