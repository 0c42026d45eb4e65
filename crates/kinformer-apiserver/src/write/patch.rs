//! PATCH (kube-apiserver's `handlers/patch.go`): JSON merge patch, strategic merge patch (see
//! [`super::strategic`]; refused for custom resources, as kube-apiserver refuses it), RFC 6902
//! JSON patch, and server-side apply with field ownership (see [`super::managed`]); with
//! PatchOptions (`dryRun=All`, `force` and `fieldManager` validated).

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use serde_json::Value;

use super::create::require_namespace;
use super::get::respond;
use super::managed;
use super::meta::{metadata_mut, str_at};
use super::options::{WriteKind, WriteOptions};
use super::registry::{Ownership, create_in, update_in, update_owned};
use super::strategic;
use super::strategy::reset_status_on_create;
use super::target::Target;
use super::zero_value::zero_value;
use crate::app::{App, ResourceRequest};
use crate::objects::StoredObject;
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::Txn;

/// Serves PATCH.
pub fn patch(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let kind = PatchKind::from_content_type(&request.content_type)?;
    if matches!(kind, PatchKind::Strategic) && request.resource.custom {
        return Err(custom_resource_media_types());
    }
    let options = WriteOptions::of(request, kind.write_kind(), &[])?;
    let patch = kind.parse(body)?;
    let target = Target::of(request, name);
    let force = request.flag("force");
    let (object, created) = app.store.transaction(options.dry_run, |txn| {
        let current = txn.get(&target.resource.key(), &target.key());
        if matches!(kind, PatchKind::Apply) {
            return apply_in(txn, &target, current.as_deref(), &patch, force);
        }
        let Some(current) = current else {
            return Err(ApiError::not_found(target.resource, name));
        };
        let mut value = current.to_value()?;
        kind.apply(&mut value, &patch, target.resource, name)?;
        update_in(txn, &target, value).map(|o| (o, false))
    })?;
    let code = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(respond(code, request, &object))
}

/// kube-apiserver's answer to a strategic merge patch of a custom resource: the patch types a
/// custom resource accepts (`apiextensions-apiserver`'s `crdHandler` serves no strategic
/// merge: there are no Go struct tags to merge by).
fn custom_resource_media_types() -> ApiError {
    ApiError::new(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    )
}

/// A server-side apply of `config` to the object `target` names (`current`, None when absent:
/// the apply creates it); true when it created it.
fn apply_in(
    txn: &mut Txn<'_>,
    target: &Target,
    current: Option<&StoredObject>,
    config: &Value,
    force: bool,
) -> Result<(Arc<StoredObject>, bool), ApiError> {
    if !config.is_object() {
        return Err(ApiError::bad_request(
            "an apply patch must be a YAML or JSON object",
        ));
    }
    let resource = target.resource;
    if let Some(current) = current {
        let live = current.to_value()?;
        let applied = managed::apply(resource, &live, config, target.writer, force)?;
        return update_owned(txn, target, applied, Ownership::Applied).map(|o| (o, false));
    }
    if target.status_only {
        return Err(ApiError::not_found(resource, target.name));
    }
    let given = str_at(config, "/metadata/name");
    if !given.is_empty() && given != target.name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({})",
            target.name
        )));
    }
    let zero = zero_value(resource);
    let mut value = managed::apply(resource, zero, config, target.writer, force)?;
    metadata_mut(&mut value)?.insert("name".into(), target.name.into());
    reset_status_on_create(&mut value, resource);
    let namespace = Some(target.namespace).filter(|ns| !ns.is_empty());
    require_namespace(txn, resource, namespace, &value)?;
    create_in(txn, resource, namespace, value, Ownership::Applied).map(|o| (o, true))
}

/// Which patch format a PATCH uses.
pub enum PatchKind {
    /// JSON merge patch (RFC 7386).
    Merge,
    /// Strategic merge patch.
    Strategic,
    /// RFC 6902 JSON patch.
    Json,
    /// Server-side apply: creates absent objects, merges into present ones with field
    /// ownership.
    Apply,
}

impl PatchKind {
    /// The format a `Content-Type` names; 415 for others.
    pub fn from_content_type(content_type: &str) -> Result<Self, ApiError> {
        let media = content_type.split(';').next().unwrap_or("").trim();
        match media {
            "application/merge-patch+json" => Ok(PatchKind::Merge),
            "application/strategic-merge-patch+json" => Ok(PatchKind::Strategic),
            "application/json-patch+json" => Ok(PatchKind::Json),
            "application/apply-patch+yaml" => Ok(PatchKind::Apply),
            other => Err(ApiError::unsupported_media_type(other)),
        }
    }

    /// The write kind whose options the patch takes.
    pub fn write_kind(&self) -> WriteKind {
        match self {
            PatchKind::Apply => WriteKind::Apply,
            PatchKind::Merge | PatchKind::Strategic | PatchKind::Json => WriteKind::Patch,
        }
    }

    /// Parses the body: YAML (a superset of JSON) for apply, JSON otherwise.
    pub fn parse(&self, body: &[u8]) -> Result<Value, ApiError> {
        let parsed = match self {
            PatchKind::Apply => std::str::from_utf8(body)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_saphyr::from_str::<Value>(text).map_err(|e| e.to_string())),
            _ => serde_json::from_slice(body).map_err(|e| e.to_string()),
        };
        parsed.map_err(|e| ApiError::bad_request(format!("invalid patch body: {e}")))
    }

    /// Applies `patch` to `value`.
    pub fn apply(
        &self,
        value: &mut Value,
        patch: &Value,
        resource: &ResourceType,
        name: &str,
    ) -> Result<(), ApiError> {
        match self {
            PatchKind::Merge | PatchKind::Apply => {
                if !patch.is_object() {
                    return Err(ApiError::bad_request("a merge patch must be a JSON object"));
                }
                json_patch::merge(value, patch);
                Ok(())
            }
            PatchKind::Strategic => strategic::apply(value, patch, resource),
            PatchKind::Json => {
                let operations: json_patch::Patch = serde_json::from_value(patch.clone())
                    .map_err(|e| ApiError::bad_request(format!("invalid JSON patch: {e}")))?;
                json_patch::patch(value, &operations).map_err(|e| {
                    ApiError::invalid(
                        resource,
                        name,
                        &format!("the JSON patch cannot be applied: {e}"),
                    )
                })
            }
        }
    }
}
