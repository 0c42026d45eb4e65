//! The custom resource strategy's validation (apiextensions-apiserver
//! `pkg/registry/customresource/strategy.go` v0.37.2, `Validate` on a create, `ValidateUpdate`
//! on an update of the object or its status): the object checked against its version's
//! structural schema ([`crate::schema_validation`]), the field errors answered as
//! kube-apiserver's 422 Invalid (`Widget.example.com "w1" is invalid: spec.replicas: Invalid
//! value: 11: spec.replicas in body should be less than or equal to 10`, one `details.causes`
//! entry per error).

use serde_json::Value;

use super::meta::str_at;
use crate::kinds::{Cause, invalid};
use crate::resources::ResourceType;
use crate::status::ApiError;

/// Checks `value` (an object of `resource`, as it would be stored) against its CRD's schema,
/// after filling in its `default`s and dropping the nulls the schema does not allow (as
/// kube-apiserver's decoding does); `old` is the
/// stored object on an update (unchanged values are not checked again); `status_only`: a write
/// of the `status` subresource. Built-in kinds pass.
pub fn check(
    resource: &ResourceType,
    value: &mut Value,
    old: Option<&Value>,
    status_only: bool,
) -> Result<(), ApiError> {
    if !resource.custom {
        return Ok(());
    }
    let api_version = str_at(value, "/apiVersion");
    let version = api_version
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    resource.validation.apply_defaults(&version, value);
    resource.validation.drop_nulls(&version, value);
    let errors = resource
        .validation
        .validate(&version, value, old, status_only);
    if errors.is_empty() {
        return Ok(());
    }
    let causes = errors
        .iter()
        .map(|e| Cause {
            field: e.field.clone(),
            reason: e.reason(),
            message: e.body(),
        })
        .collect();
    Err(invalid(resource, str_at(value, "/metadata/name"), causes))
}
