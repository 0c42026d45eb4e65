//! What the server sets and checks on an object before it is stored (kube-apiserver's
//! `rest.BeforeCreate`/`BeforeUpdate` and the resources' strategies): type meta, namespace,
//! name and generateName, uid, timestamps, generation, defaults (see [`super::defaults`]), a
//! Secret's `stringData`.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use rand::Rng;
use serde_json::{Value, json};

use super::defaults::apply_defaults;
use super::meta::{metadata_mut, now, str_at};
use super::target::Target;
use super::workloads;
use super::zero_value::zero_value;
use crate::objects::object_key;
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::Txn;
use crate::validation::validate_names;

/// Validates a new object and fills in the server-set metadata.
pub fn prepare_create(
    txn: &Txn<'_>,
    resource: &ResourceType,
    path_namespace: Option<&str>,
    mut value: Value,
) -> Result<Value, ApiError> {
    set_type_meta(&mut value, resource)?;
    let namespace = resolve_namespace(&value, resource, path_namespace)?;
    let name = resolve_name(txn, &value, resource, &namespace)?;
    validate_names(resource, &name, &namespace)?;
    if txn
        .get(&resource.key(), &object_key(&namespace, &name))
        .is_some()
    {
        return Err(ApiError::already_exists(resource, &name));
    }
    let metadata = metadata_mut(&mut value)?;
    metadata.insert("name".into(), name.into());
    if resource.namespaced {
        metadata.insert("namespace".into(), namespace.into());
    } else {
        metadata.remove("namespace");
    }
    metadata.insert("uid".into(), new_uid().into());
    metadata.insert("creationTimestamp".into(), now().into());
    if resource.tracks_generation() {
        metadata.insert("generation".into(), 1.into());
    } else {
        metadata.remove("generation");
    }
    for server_set in [
        "resourceVersion",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        metadata.remove(server_set);
    }
    merge_string_data(&mut value, resource);
    apply_defaults(&mut value, resource);
    workloads::decode_template_generation(&mut value, resource)?;
    crate::kinds::validate(&value, resource)?;
    Ok(value)
}

/// A random UUID (version 4 layout).
fn new_uid() -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let bytes: [u8; 16] = rand::rng().random();
    let hex: String = bytes
        .iter()
        .flat_map(|b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
        .map(char::from)
        .collect();
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// A 5-character suffix from Kubernetes' generateName alphabet.
pub fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

/// A Secret's `stringData` written into `data` (base64, overriding keys of the same name) and
/// dropped, as kube-apiserver's Secret strategy does on create and update.
pub fn merge_string_data(value: &mut Value, resource: &ResourceType) {
    if !resource.is_core("secrets") {
        return;
    }
    let Some(object) = value.as_object_mut() else {
        return;
    };
    let Some(Value::Object(strings)) = object.remove("stringData") else {
        return;
    };
    let data = object.entry("data").or_insert_with(|| json!({}));
    if !data.is_object() {
        *data = json!({});
    }
    if let Some(data) = data.as_object_mut() {
        for (key, text) in strings {
            let text = text.as_str().unwrap_or_default();
            data.insert(key, BASE64_STANDARD.encode(text).into());
        }
    }
}

/// Checks `kind`/`apiVersion` against the resource and fills them in when missing: an
/// apiVersion the resource is not served in, or another kind, is kube-apiserver's 400 (the
/// decoder's error as `transformDecodeError` words it: "K in version \"v\" cannot be handled
/// as a R: …").
pub fn set_type_meta(value: &mut Value, resource: &ResourceType) -> Result<(), ApiError> {
    let kind = str_at(value, "/kind");
    let api_version = str_at(value, "/apiVersion");
    let given_kind = if kind.is_empty() {
        &resource.kind
    } else {
        kind
    };
    let version = api_version.rsplit('/').next().unwrap_or_default();
    let undecodable = |why: String| {
        ApiError::bad_request(format!(
            "{given_kind} in version {version:?} cannot be handled as a {}: {why}",
            resource.kind
        ))
    };
    if !api_version.is_empty() && !resource.serves_api_version(api_version) {
        return Err(undecodable(format!(
            "no kind {given_kind:?} is registered for version {api_version:?} in scheme \"pkg/runtime/scheme.go:111\""
        )));
    }
    if !kind.is_empty() && kind != resource.kind {
        let internal = match resource.group.split('.').next() {
            Some("") | None => "core",
            Some(group) => group,
        };
        return Err(undecodable(format!(
            "converting ({version}.{kind}) to ({internal}.{}): unknown conversion",
            resource.kind
        )));
    }
    let api_version = if api_version.is_empty() {
        resource.api_version()
    } else {
        api_version.to_owned()
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("kind".into(), resource.kind.clone().into());
        object.insert("apiVersion".into(), api_version.into());
    }
    Ok(())
}

/// The namespace of a new object: the request path's, which the body may repeat but not
/// contradict; else the body's; else `default`; empty for cluster-scoped resources.
pub fn resolve_namespace(
    value: &Value,
    resource: &ResourceType,
    path: Option<&str>,
) -> Result<String, ApiError> {
    if !resource.namespaced {
        return Ok(String::new());
    }
    let body = str_at(value, "/metadata/namespace");
    match path {
        Some(path) if !body.is_empty() && body != path => Err(ApiError::invalid(
            resource,
            str_at(value, "/metadata/name"),
            &format!(
                "metadata.namespace: Invalid value: {body:?}: the namespace of the provided object does not match the namespace sent on the request ({path:?})"
            ),
        )),
        Some(path) => Ok(path.to_owned()),
        None if body.is_empty() => Ok("default".to_owned()),
        None => Ok(body.to_owned()),
    }
}

/// The name of a new object: `metadata.name`, else `metadata.generateName` with a random
/// suffix no object of the namespace has.
fn resolve_name(
    txn: &Txn<'_>,
    value: &Value,
    resource: &ResourceType,
    namespace: &str,
) -> Result<String, ApiError> {
    let name = str_at(value, "/metadata/name");
    if !name.is_empty() {
        return Ok(name.to_owned());
    }
    let prefix = str_at(value, "/metadata/generateName");
    if prefix.is_empty() {
        return Err(ApiError::invalid(
            resource,
            "",
            "metadata.name: Required value: name or generateName is required",
        ));
    }
    let taken = |name: &str| {
        txn.get(&resource.key(), &object_key(namespace, name))
            .is_some()
    };
    (0..16)
        .map(|_| format!("{prefix}{}", random_suffix()))
        .find(|candidate| !taken(candidate))
        .ok_or_else(|| ApiError::already_exists(resource, prefix))
}

/// `old` with the `status` of `new`, and `new`'s `metadata.managedFields` when it has them
/// (`metav1.ResetObjectMetaForStatus` keeps the new object's: the field manager recorded the
/// status write in them — a server-side apply to `/status` — or the client sent them).
pub fn with_status_of(mut old: Value, new: &Value) -> Value {
    if let Some(object) = old.as_object_mut() {
        let status = new.get("status").cloned().unwrap_or_else(|| json!({}));
        object.insert("status".into(), status);
    }
    if let Some(managed) = new.pointer("/metadata/managedFields")
        && let Some(metadata) = old.get_mut("metadata").and_then(Value::as_object_mut)
    {
        metadata.insert("managedFields".into(), managed.clone());
    }
    old
}

/// What a create request may not set (the strategies' `PrepareForCreate`): the `status` of a
/// resource with a status subresource starts as its type's zero value (a custom resource's as
/// none), except a Node's, which its kubelet registers with one.
pub fn reset_status_on_create(value: &mut Value, resource: &ResourceType) {
    if !resource.status_subresource || resource.is_core("nodes") {
        return;
    }
    let Some(object) = value.as_object_mut() else {
        return;
    };
    match zero_value(resource).get("status") {
        Some(zero) if !resource.custom => object.insert("status".into(), zero.clone()),
        _ => object.remove("status"),
    };
}

/// `new` with `old`'s status (none when `old` has none): what kube-apiserver's strategies'
/// `PrepareForUpdate` make of a write of an object whose resource has a `status` subresource.
pub fn with_stored_status(mut new: Value, old: &Value) -> Value {
    if let Some(object) = new.as_object_mut() {
        match old.get("status") {
            Some(status) => object.insert("status".into(), status.clone()),
            None => object.remove("status"),
        };
    }
    new
}

/// Restores fields clients cannot change and bumps `generation` on a spec change (and what
/// else moves it: [`workloads::generation_moves`]); a DaemonSet's template generation as
/// decoded ([`workloads::decode_template_generation`]).
pub fn keep_server_metadata(
    value: &mut Value,
    old: &Value,
    target: &Target,
) -> Result<(), ApiError> {
    workloads::decode_template_generation(value, target.resource)?;
    let spec_changed = workloads::generation_moves(target.resource, old, value);
    let old_generation = old
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let metadata = metadata_mut(value)?;
    if metadata.get("name").and_then(Value::as_str) != Some(target.name) {
        return Err(ApiError::bad_request(format!(
            "the name of the object does not match the name on the URL ({})",
            target.name
        )));
    }
    if target.resource.namespaced {
        metadata.insert("namespace".into(), target.namespace.into());
    }
    for kept in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        match old.pointer(&format!("/metadata/{kept}")) {
            Some(v) => metadata.insert(kept.into(), v.clone()),
            None => metadata.remove(kept),
        };
    }
    if !target.resource.tracks_generation() {
        metadata.remove("generation");
        return Ok(());
    }
    let generation = if spec_changed {
        old_generation.saturating_add(1)
    } else {
        old_generation
    };
    metadata.insert("generation".into(), generation.into());
    Ok(())
}
