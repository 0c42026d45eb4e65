//! The object a PUT, PATCH or DELETE addresses: resource, namespace, name, and whether the
//! `status` subresource is written, and who writes it.

use std::sync::Arc;

use super::managed::Writer;
use crate::app::ResourceRequest;
use crate::objects::object_key;
use crate::resources::ResourceType;

/// The field manager of the writes the library makes without a request (seeding, churn, the
/// controllers, [`crate::EmbeddedServer`]'s write methods).
pub const DIRECT_WRITER: Writer<'static> = Writer {
    manager: "kinformer-apiserver",
    subresource: "",
};

/// The field manager of what kube-apiserver creates itself (the system namespaces, the
/// `default/kubernetes` Service), as kube-apiserver names it.
pub const SYSTEM_WRITER: Writer<'static> = Writer {
    manager: "kube-apiserver",
    subresource: "",
};

/// The object a PUT, PATCH or DELETE addresses.
pub struct Target<'a> {
    /// Its resource type.
    pub resource: &'a Arc<ResourceType>,
    /// Its namespace, empty for cluster-scoped objects.
    pub namespace: &'a str,
    /// Its name.
    pub name: &'a str,
    /// Whether only its `status` is written (the `status` subresource).
    pub status_only: bool,
    /// Whether the write keeps the stored `status` whatever it sends: a request to a resource
    /// with a `status` subresource that does not go through it.
    pub keeps_status: bool,
    /// Who writes it, for its managedFields.
    pub writer: Writer<'a>,
}

impl<'a> Target<'a> {
    /// The object named `name` at the request's resource and namespace.
    pub fn of(request: &'a ResourceRequest, name: &'a str) -> Self {
        Target {
            resource: &request.resource,
            namespace: request.namespace.as_deref().unwrap_or_default(),
            name,
            status_only: request.subresource.as_deref() == Some("status"),
            keeps_status: request.subresource.is_none() && request.resource.status_subresource,
            writer: Writer {
                manager: &request.field_manager,
                subresource: request.subresource.as_deref().unwrap_or_default(),
            },
        }
    }

    /// The whole object `namespace/name` of `resource`, status included (the library's own
    /// writes: seeding, churn, the controllers, benchmarks).
    pub fn object(resource: &'a Arc<ResourceType>, namespace: &'a str, name: &'a str) -> Self {
        Target {
            resource,
            namespace,
            name,
            status_only: false,
            keeps_status: false,
            writer: DIRECT_WRITER,
        }
    }

    /// Its store key.
    pub fn key(&self) -> String {
        object_key(self.namespace, self.name)
    }
}
