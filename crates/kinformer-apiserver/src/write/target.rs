//! The object a PUT, PATCH or DELETE addresses: resource, namespace, name, and whether the
//! `status` subresource is written.

use std::sync::Arc;

use crate::app::ResourceRequest;
use crate::objects::object_key;
use crate::resources::ResourceType;

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
}

impl<'a> Target<'a> {
    /// The object named `name` at the request's resource and namespace.
    pub fn of(request: &'a ResourceRequest, name: &'a str) -> Self {
        Target {
            resource: &request.resource,
            namespace: request.namespace.as_deref().unwrap_or_default(),
            name,
            status_only: request.subresource.as_deref() == Some("status"),
        }
    }

    /// The whole object `namespace/name` of `resource`.
    pub fn object(resource: &'a Arc<ResourceType>, namespace: &'a str, name: &'a str) -> Self {
        Target {
            resource,
            namespace,
            name,
            status_only: false,
        }
    }

    /// Its store key.
    pub fn key(&self) -> String {
        object_key(self.namespace, self.name)
    }
}
