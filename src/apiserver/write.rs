//! GET of one object and the writes: POST (generateName, AlreadyExists), PUT (resourceVersion
//! precondition), PATCH (merge, strategic-merge treated as merge, JSON patch, server-side apply
//! approximated as create-or-merge), DELETE (with finalizers; a namespace takes its objects with
//! it) and DELETE collection. CRD writes start and stop serving their resource.

use std::sync::Arc;

use axum::response::Response;
use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use http::StatusCode;
use jiff::Timestamp;
use rand::Rng;
use serde_json::{Map, Value, json};

use super::app::{App, Representation, ResourceRequest};
use super::list::{object_bytes, render_list};
use super::objects::{StoredObject, object_key};
use super::resources::{ResourceType, from_crd};
use super::selector::Selection;
use super::splice;
use super::status::{ApiError, json_response};
use super::store::{Store, Txn};
use super::table;
use super::validation::validate_names;

/// The conflict message kube-apiserver uses for a stale resourceVersion.
const STALE: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// Serves GET of one object.
pub fn get(app: &App, request: &ResourceRequest, name: &str) -> Result<Response, ApiError> {
    let key = object_key(request.namespace.as_deref().unwrap_or(""), name);
    let object = app
        .store
        .get(&request.resource.key(), &key)
        .ok_or_else(|| ApiError::not_found(&request.resource, name))?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// Serves POST.
pub fn create(app: &App, request: &ResourceRequest, body: &[u8]) -> Result<Response, ApiError> {
    let value = parse_object(body)?;
    let namespace = request.namespace.as_deref();
    let object = app.store.write(|txn| {
        require_namespace(txn, &request.resource, namespace, &value)?;
        if is_dry_run(request)? {
            let prepared = prepare_create(txn, &request.resource, namespace, value)?;
            return StoredObject::new(&prepared, &request.resource, 0).map(Arc::new);
        }
        create_in(txn, &request.resource, namespace, value)
    })?;
    Ok(respond(StatusCode::CREATED, request, &object))
}

/// `dryRun=All` (`kubectl create --dry-run=server`): validate and answer, store nothing. Any
/// other value is 400, as kube-apiserver answers.
fn is_dry_run(request: &ResourceRequest) -> Result<bool, ApiError> {
    match request.param("dryRun") {
        None => Ok(false),
        Some("All") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!(
            "dryRun: Unsupported value: {other:?}: supported values: \"All\""
        ))),
    }
}

/// 404 `namespaces "x" not found` when a namespaced object is created in a namespace that does
/// not exist (API requests only: the library's seeding and churn do not ask).
fn require_namespace(
    txn: &Txn<'_>,
    resource: &ResourceType,
    path_namespace: Option<&str>,
    value: &Value,
) -> Result<(), ApiError> {
    if !resource.namespaced {
        return Ok(());
    }
    let namespace = resolve_namespace(value, resource, path_namespace)?;
    let namespaces = txn
        .registry()
        .find("", "v1", "namespaces")
        .ok_or_else(ApiError::no_route)?;
    match txn.get(&namespaces.key(), &namespace) {
        Some(_) => Ok(()),
        None => Err(ApiError::not_found(&namespaces, &namespace)),
    }
}

/// Serves PUT (of the object or its status).
pub fn replace(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let target = Target::of(request, name);
    let object = app.store.write(|txn| replace_in(txn, &target, body))?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// Replaces the object `target` names with a PUT body: spliced when it can be (see
/// [`splice`]), else parsed and updated.
fn replace_in(
    txn: &mut Txn<'_>,
    target: &Target,
    body: &[u8],
) -> Result<Arc<StoredObject>, ApiError> {
    if !target.status_only
        && let Some(object) =
            splice::replace(txn, target.resource, target.namespace, target.name, body)
    {
        return Ok(object);
    }
    let value = named_object(body, target.name)?;
    update_in(txn, target, value)
}

/// A PUT body as an object named `name`: its `metadata.name` is filled in when missing and must
/// not differ.
fn named_object(body: &[u8], name: &str) -> Result<Value, ApiError> {
    let mut value = parse_object(body)?;
    match value.pointer("/metadata/name").and_then(Value::as_str) {
        Some(given) if given != name => {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({given}) does not match the name on the URL ({name})"
            )));
        }
        Some(_) => {}
        None => {
            metadata_mut(&mut value)?.insert("name".into(), name.into());
        }
    }
    Ok(value)
}

/// Serves PATCH.
pub fn patch(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let kind = PatchKind::from_content_type(&request.content_type)?;
    let patch = kind.parse(body)?;
    let target = Target::of(request, name);
    let (object, created) = app.store.write(|txn| {
        let Some(current) = txn.get(&target.resource.key(), &target.key()) else {
            return apply_create(txn, &kind, &target, &patch).map(|o| (o, true));
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

/// A server-side apply of an absent object creates it; other patches of it are 404.
fn apply_create(
    txn: &mut Txn<'_>,
    kind: &PatchKind,
    target: &Target,
    patch: &Value,
) -> Result<Arc<StoredObject>, ApiError> {
    if !matches!(kind, PatchKind::Apply) || target.status_only {
        return Err(ApiError::not_found(target.resource, target.name));
    }
    let mut value = patch.clone();
    let given = str_at(&value, "/metadata/name");
    if !given.is_empty() && given != target.name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({})",
            target.name
        )));
    }
    metadata_mut(&mut value)?.insert("name".into(), target.name.into());
    let namespace = Some(target.namespace).filter(|ns| !ns.is_empty());
    require_namespace(txn, target.resource, namespace, &value)?;
    create_in(txn, target.resource, namespace, value)
}

/// Serves DELETE of one object.
pub fn delete(
    app: &App,
    request: &ResourceRequest,
    name: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let preconditions = Preconditions::from_body(body)?;
    let target = Target::of(request, name);
    let object = app.store.write(|txn| {
        let current = txn
            .get(&target.resource.key(), &target.key())
            .ok_or_else(|| ApiError::not_found(target.resource, name))?;
        preconditions.check(&current, &target)?;
        delete_in(txn, target.resource, &current)
    })?;
    Ok(respond(StatusCode::OK, request, &object))
}

/// Serves DELETE of a collection (honouring selectors).
pub fn delete_collection(app: &App, request: &ResourceRequest) -> Result<Response, ApiError> {
    let selection = Selection::from_request(request)?;
    let resource = &request.resource;
    let (deleted, rv) = app.store.write(|txn| {
        let mut deleted = Vec::new();
        for object in txn.objects(&resource.key()) {
            if selection.matches(&object) {
                deleted.push(delete_in(txn, resource, &object)?);
            }
        }
        let rv = deleted.last().map_or(0, |o| o.rv);
        Ok((deleted, rv))
    })?;
    let rv = if rv == 0 {
        app.store.resource_version()
    } else {
        rv
    };
    let body = render_list(resource, request.representation, deleted, rv, None);
    Ok(json_response(StatusCode::OK, body))
}

/// Creates an object addressed by its own `apiVersion`, `kind` and `metadata.namespace`
/// (seeding and churn).
pub fn create_object(store: &Store, value: Value) -> Result<Arc<StoredObject>, ApiError> {
    store.write(|txn| {
        let resource = resource_of(txn, &value)?;
        create_in(txn, &resource, None, value)
    })
}

/// Replaces an object addressed by its own metadata (churn).
pub fn update_object(
    store: &Store,
    resource: &Arc<ResourceType>,
    value: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    let namespace = str_at(&value, "/metadata/namespace").to_owned();
    let name = str_at(&value, "/metadata/name").to_owned();
    let target = Target {
        resource,
        namespace: &namespace,
        name: &name,
        status_only: false,
    };
    store.write(|txn| update_in(txn, &target, value))
}

/// Deletes an object by namespace and name (churn).
pub fn delete_object(
    store: &Store,
    resource: &ResourceType,
    namespace: &str,
    name: &str,
) -> Result<Arc<StoredObject>, ApiError> {
    store.write(|txn| {
        let current = txn
            .get(&resource.key(), &object_key(namespace, name))
            .ok_or_else(|| ApiError::not_found(resource, name))?;
        delete_in(txn, resource, &current)
    })
}

/// Updates per write transaction in [`replace_many`]: long enough to
/// amortise the lock, short enough that watchers catching up are not starved.
const UPDATE_BATCH: usize = 256;

/// Replaces many existing objects of one resource, each given as namespace, name and PUT body
/// (see [`replace_in`]), a batch per write transaction (benchmarks).
pub fn replace_many<N, B>(
    store: &Store,
    resource: &Arc<ResourceType>,
    objects: impl IntoIterator<Item = (N, N, B)>,
) -> Result<usize, ApiError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    let mut objects = objects.into_iter().peekable();
    let mut count = 0;
    while objects.peek().is_some() {
        count += store.write(|txn| {
            let mut written = 0;
            for (namespace, name, body) in objects.by_ref().take(UPDATE_BATCH) {
                let target = Target {
                    resource,
                    namespace: namespace.as_ref(),
                    name: name.as_ref(),
                    status_only: false,
                };
                replace_in(txn, &target, body.as_ref())?;
                written += 1;
            }
            Ok(written)
        })?;
    }
    Ok(count)
}

/// Stores many objects at once without watch events (benchmark seeding).
pub fn seed_unrecorded(
    store: &Store,
    values: impl IntoIterator<Item = Value>,
) -> Result<usize, ApiError> {
    store.write(|txn| {
        let mut count = 0;
        for value in values {
            let resource = resource_of(txn, &value)?;
            let prepared = prepare_create(txn, &resource, None, value)?;
            txn.put_unrecorded(&resource, prepared)?;
            count += 1;
        }
        Ok(count)
    })
}

/// The served resource of an object, from its `apiVersion` and `kind`.
fn resource_of(txn: &Txn<'_>, value: &Value) -> Result<Arc<ResourceType>, ApiError> {
    let api_version = str_at(value, "/apiVersion");
    let kind = str_at(value, "/kind");
    txn.registry().find_kind(api_version, kind).ok_or_else(|| {
        ApiError::new(
            404,
            "NotFound",
            format!("no resource is served for apiVersion {api_version:?} kind {kind:?}"),
        )
    })
}

/// The object a PUT/PATCH addresses.
pub struct Target<'a> {
    /// Its resource type.
    pub resource: &'a Arc<ResourceType>,
    namespace: &'a str,
    name: &'a str,
    status_only: bool,
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

    /// Its store key.
    pub fn key(&self) -> String {
        object_key(self.namespace, self.name)
    }
}

/// The body of a request as a JSON object (400 otherwise).
pub fn parse_object(body: &[u8]) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(value)
}

/// A string at a JSON pointer, or "".
fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `metadata` as a mutable map (created when missing).
fn metadata_mut(value: &mut Value) -> Result<&mut Map<String, Value>, ApiError> {
    let object = value
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
    object
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be a JSON object"))
}

/// RFC 3339 timestamp with second precision, as Kubernetes writes them.
fn now() -> String {
    Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A random UUID (version 4 layout).
fn new_uid() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
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
fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..5)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

fn create_in(
    txn: &mut Txn<'_>,
    resource: &Arc<ResourceType>,
    path_namespace: Option<&str>,
    value: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    let mut prepared = prepare_create(txn, resource, path_namespace, value)?;
    if resource.is_crd() {
        register_crd(txn, &prepared)?;
        let status = crd_status(&prepared);
        if let Some(object) = prepared.as_object_mut() {
            object.insert("status".into(), status);
        }
    }
    txn.put(resource, prepared)
}

/// Validates a new object and fills in the server-set metadata.
fn prepare_create(
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
    apply_defaults(&mut value, resource);
    merge_string_data(&mut value, resource);
    Ok(value)
}

/// A Secret's `stringData` written into `data` (base64, overriding keys of the same name) and
/// dropped, as kube-apiserver's Secret strategy does on create and update.
fn merge_string_data(value: &mut Value, resource: &ResourceType) {
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

/// Checks `kind`/`apiVersion` against the resource and fills them in when missing.
fn set_type_meta(value: &mut Value, resource: &ResourceType) -> Result<(), ApiError> {
    let kind = str_at(value, "/kind");
    if !kind.is_empty() && kind != resource.kind {
        return Err(ApiError::bad_request(format!(
            "the kind {kind:?} of the object does not match the resource {:?} (kind {:?})",
            resource.plural, resource.kind
        )));
    }
    let api_version = str_at(value, "/apiVersion");
    let api_version = if resource.serves_api_version(api_version) {
        api_version.to_owned()
    } else {
        resource.api_version()
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("kind".into(), resource.kind.clone().into());
        object.insert("apiVersion".into(), api_version.into());
    }
    Ok(())
}

fn resolve_namespace(
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

/// Server-side defaults: pod and namespace phases.
fn apply_defaults(value: &mut Value, resource: &ResourceType) {
    let phase = match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "pods") => "Pending",
        ("", "namespaces") => "Active",
        _ => return,
    };
    if value.pointer("/status/phase").is_some() {
        return;
    }
    if let Some(object) = value.as_object_mut() {
        let status = object.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            status.insert("phase".into(), phase.into());
        }
    }
}

/// Starts serving the resource a CRD defines and marks the CRD established.
fn register_crd(txn: &mut Txn<'_>, crd: &Value) -> Result<(), ApiError> {
    let crd_resource = txn
        .registry()
        .find_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition")
        .ok_or_else(ApiError::no_route)?;
    let name = str_at(crd, "/metadata/name");
    let defined = from_crd(crd).map_err(|cause| ApiError::invalid(&crd_resource, name, &cause))?;
    if txn.registry().is_builtin_group(&defined.group) {
        return Err(ApiError::invalid(
            &crd_resource,
            name,
            "spec.group: Invalid value: the group is served by built-in resources",
        ));
    }
    txn.register(defined);
    Ok(())
}

/// The CRD's status as kube-apiserver reports an established CRD.
fn crd_status(crd: &Value) -> Value {
    let condition = |kind: &str, reason: &str| json!({"type": kind, "status": "True", "lastTransitionTime": now(), "reason": reason, "message": ""});
    let stored: Vec<Value> = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").cloned())
        .collect();
    json!({
        "conditions": [condition("NamesAccepted", "NoConflicts"), condition("Established", "InitialNamesAccepted")],
        "acceptedNames": crd.pointer("/spec/names").cloned().unwrap_or(Value::Null),
        "storedVersions": stored,
    })
}

/// Replaces an object, keeping server-owned metadata; removes it when its deletion was pending
/// and its last finalizer is gone.
pub fn update_in(
    txn: &mut Txn<'_>,
    target: &Target,
    new: Value,
) -> Result<Arc<StoredObject>, ApiError> {
    let resource = target.resource;
    let current = txn
        .get(&resource.key(), &target.key())
        .ok_or_else(|| ApiError::not_found(resource, target.name))?;
    let requested_rv = str_at(&new, "/metadata/resourceVersion");
    if !requested_rv.is_empty() && requested_rv != current.rv.to_string() {
        return Err(ApiError::conflict(resource, target.name, STALE));
    }
    let old = current.to_value()?;
    let mut value = if target.status_only {
        with_status_of(old.clone(), &new)
    } else {
        new
    };
    set_type_meta(&mut value, resource)?;
    keep_server_metadata(&mut value, &old, target)?;
    merge_string_data(&mut value, resource);
    if resource.is_crd() {
        register_crd(txn, &value)?;
        let status = crd_status(&value);
        if let Some(object) = value.as_object_mut() {
            object.insert("status".into(), status);
        }
    }
    if is_deleting(&value) && finalizers(&value).is_empty() {
        return finish_delete(txn, resource, &target.key());
    }
    txn.put(resource, value)
}

/// `old` with the `status` of `new`.
fn with_status_of(mut old: Value, new: &Value) -> Value {
    if let Some(object) = old.as_object_mut() {
        let status = new.get("status").cloned().unwrap_or_else(|| json!({}));
        object.insert("status".into(), status);
    }
    old
}

/// Restores fields clients cannot change and bumps `generation` on a spec change.
fn keep_server_metadata(value: &mut Value, old: &Value, target: &Target) -> Result<(), ApiError> {
    let spec_changed = value.get("spec") != old.get("spec");
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

fn is_deleting(value: &Value) -> bool {
    value
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null())
}

fn finalizers(value: &Value) -> Vec<Value> {
    value
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Deletes an object now, or marks it for deletion while finalizers remain.
fn delete_in(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    current: &StoredObject,
) -> Result<Arc<StoredObject>, ApiError> {
    let mut value = current.to_value()?;
    if finalizers(&value).is_empty() {
        return finish_delete(txn, resource, &current.key());
    }
    if is_deleting(&value) {
        return txn
            .get(&resource.key(), &current.key())
            .ok_or_else(|| ApiError::not_found(resource, current.name()));
    }
    let metadata = metadata_mut(&mut value)?;
    metadata.insert("deletionTimestamp".into(), now().into());
    metadata.insert("deletionGracePeriodSeconds".into(), 0.into());
    txn.put(resource, value)
}

/// Removes an object (and, for a CRD, the resource it defines with all its objects).
fn finish_delete(
    txn: &mut Txn<'_>,
    resource: &ResourceType,
    key: &str,
) -> Result<Arc<StoredObject>, ApiError> {
    let removed = txn
        .remove(resource, key)?
        .ok_or_else(|| ApiError::not_found(resource, key))?;
    if resource.is_crd() {
        let value = removed.to_value()?;
        if let Ok(defined) = from_crd(&value) {
            txn.unregister(&defined)?;
        }
    }
    if resource.group.is_empty() && resource.plural == "namespaces" {
        delete_namespace_contents(txn, removed.name())?;
    }
    Ok(removed)
}

/// Removes every object in a deleted namespace.
fn delete_namespace_contents(txn: &mut Txn<'_>, namespace: &str) -> Result<(), ApiError> {
    let namespaced: Vec<Arc<ResourceType>> = txn
        .registry()
        .all()
        .into_iter()
        .filter(|r| r.namespaced)
        .collect();
    for resource in namespaced {
        for object in txn.objects(&resource.key()) {
            if object.namespace() == namespace {
                txn.remove(&resource, &object.key())?;
            }
        }
    }
    Ok(())
}

/// Which patch format a PATCH uses.
pub enum PatchKind {
    /// JSON merge patch; strategic merge patches are treated as merge patches.
    Merge,
    /// RFC 6902 JSON patch.
    Json,
    /// Server-side apply, approximated: creates absent objects, merges into present ones (no
    /// field ownership, so fields dropped from the applied configuration are not removed).
    Apply,
}

impl PatchKind {
    /// The format a `Content-Type` names; 415 for others.
    pub fn from_content_type(content_type: &str) -> Result<Self, ApiError> {
        let media = content_type.split(';').next().unwrap_or("").trim();
        match media {
            "application/merge-patch+json" | "application/strategic-merge-patch+json" => {
                Ok(PatchKind::Merge)
            }
            "application/json-patch+json" => Ok(PatchKind::Json),
            "application/apply-patch+yaml" => Ok(PatchKind::Apply),
            other => Err(ApiError::unsupported_media_type(other)),
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

/// DeleteOptions preconditions.
struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

impl Preconditions {
    fn from_body(body: &[u8]) -> Result<Self, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Preconditions {
                uid: None,
                resource_version: None,
            });
        }
        let options = parse_object(body)?;
        let text = |pointer: &str| {
            options
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(Preconditions {
            uid: text("/preconditions/uid"),
            resource_version: text("/preconditions/resourceVersion"),
        })
    }

    fn check(&self, current: &StoredObject, target: &Target) -> Result<(), ApiError> {
        if let Some(rv) = &self.resource_version
            && *rv != current.rv.to_string()
        {
            let why = format!(
                "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                current.rv
            );
            return Err(ApiError::conflict(target.resource, target.name, &why));
        }
        if let Some(uid) = &self.uid {
            let value = current.to_value()?;
            let actual = str_at(&value, "/metadata/uid");
            if uid != actual {
                let why = format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({actual}). The object might have been deleted and then recreated"
                );
                return Err(ApiError::conflict(target.resource, target.name, &why));
            }
        }
        Ok(())
    }
}

/// The response for one object in the requested representation.
fn respond(code: StatusCode, request: &ResourceRequest, object: &StoredObject) -> Response {
    let body = match request.representation {
        Representation::Table => table::render(&request.resource, &[object], object.rv, None),
        representation => object_bytes(representation, object),
    };
    json_response(code, body)
}

#[cfg(test)]
#[path = "replace_tests.rs"]
mod replace_tests;
