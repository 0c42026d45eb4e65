//! What a DELETE asks and what it sets on the object before it goes, after kube-apiserver's
//! `registry/rest/delete.go` (`BeforeDelete`), the pod strategy's `CheckGracefulDelete`
//! (`pkg/registry/core/pod/strategy.go:175`) and the generic store's garbage-collection
//! finalizers (`registry/generic/registry/store.go:955-1104`): `DeleteOptions` from the body or,
//! when there is none, the query; a pod's grace period; the `orphan` and `foregroundDeletion`
//! finalizers a `propagationPolicy` asks for.

use serde_json::Value;

use super::meta::now;
use crate::app::ResourceRequest;
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusCause, StatusDetails};

/// `metav1.FinalizerOrphanDependents`.
pub const ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`.
pub const FOREGROUND: &str = "foregroundDeletion";

/// A `propagationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Dependents keep living, their owner reference removed.
    Orphan,
    /// The owner goes now, the garbage collector deletes its dependents after.
    Background,
    /// The owner waits (`foregroundDeletion`) until its blocking dependents are gone.
    Foreground,
}

/// The DeleteOptions a deletion honours.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    /// `gracePeriodSeconds`.
    pub grace_period: Option<i64>,
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
    /// The deprecated `orphanDependents`.
    pub orphan_dependents: Option<bool>,
    /// `preconditions.uid`.
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub resource_version: Option<String>,
    /// A storage-level delete (the server's churn): no graceful strategy runs.
    pub graceless: bool,
}

impl DeleteOptions {
    /// What the server's churn asks: removed at once (finalizers still hold an object), the
    /// default propagation.
    pub fn immediate() -> Self {
        DeleteOptions {
            graceless: true,
            ..DeleteOptions::default()
        }
    }

    /// The options of a DELETE: its body when it has one, else its query (kube-apiserver's
    /// `handlers/delete.go` decodes one or the other, never both); 422 as
    /// `ValidateDeleteOptions` answers a bad `propagationPolicy`.
    pub fn of(request: &ResourceRequest, body: &Value) -> Result<Self, ApiError> {
        let from_body = body.as_object().is_some_and(|map| !map.is_empty());
        let text = |pointer: &str, query: &str| -> Option<String> {
            if from_body {
                body.pointer(pointer)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            } else {
                request.param(query).map(str::to_owned)
            }
        };
        let grace_period = if from_body {
            body.get("gracePeriodSeconds").and_then(Value::as_i64)
        } else {
            request.integer("gracePeriodSeconds")?
        };
        let orphan_dependents = if from_body {
            body.get("orphanDependents").and_then(Value::as_bool)
        } else {
            request
                .param("orphanDependents")
                .map(|_| request.flag("orphanDependents"))
        };
        let propagation = text("/propagationPolicy", "propagationPolicy");
        let options = DeleteOptions {
            grace_period,
            propagation: propagation.as_deref().map(parse_propagation).transpose()?,
            orphan_dependents,
            uid: text("/preconditions/uid", "preconditions.uid"),
            resource_version: text(
                "/preconditions/resourceVersion",
                "preconditions.resourceVersion",
            ),
            graceless: false,
        };
        if options.orphan_dependents.is_some() && options.propagation.is_some() {
            let value = propagation.unwrap_or_default();
            return Err(invalid(
                "FieldValueInvalid",
                &format!(
                    "Invalid value: {value:?}: orphanDependents and deletionPropagation cannot be both set"
                ),
            ));
        }
        Ok(options)
    }
}

fn parse_propagation(text: &str) -> Result<Propagation, ApiError> {
    match text {
        "Orphan" => Ok(Propagation::Orphan),
        "Background" => Ok(Propagation::Background),
        "Foreground" => Ok(Propagation::Foreground),
        other => Err(invalid(
            "FieldValueNotSupported",
            &format!(
                "Unsupported value: {other:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
            ),
        )),
    }
}

/// `ValidateDeleteOptions`' 422 about `propagationPolicy`, with its cause (`NewInvalid` of the
/// group kind `meta.k8s.io/DeleteOptions`).
fn invalid(reason: &str, message: &str) -> ApiError {
    let mut error =
        ApiError::invalid_options("DeleteOptions", &[format!("propagationPolicy: {message}")]);
    error.details = Some(Box::new(StatusDetails {
        group: "meta.k8s.io".into(),
        kind: "DeleteOptions".into(),
        causes: vec![StatusCause {
            reason: reason.into(),
            message: message.into(),
            field: "propagationPolicy".into(),
        }],
        ..StatusDetails::default()
    }));
    error
}

/// What `BeforeDelete` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Graceful {
    /// Not a graceful deletion (no graceful strategy, or a deletion already at grace 0).
    No,
    /// A graceful deletion of this many seconds: the object was marked.
    Marked(i64),
    /// A graceful deletion is already under way and this one does not shorten it.
    Pending,
}

/// kube-apiserver's `BeforeDelete` on `value` (a pod's graceful deletion; other resources
/// have no graceful strategy): marks it (`deletionTimestamp` = now + grace,
/// `deletionGracePeriodSeconds`, the next `generation`) when the deletion is graceful.
pub fn before_delete(
    value: &mut Value,
    resource: &ResourceType,
    options: &DeleteOptions,
) -> Graceful {
    if !resource.is_core("pods") || options.graceless {
        return Graceful::No;
    }
    let requested = options.grace_period.map(|g| if g < 0 { 1 } else { g });
    let meta = &value["metadata"];
    if meta.get("deletionTimestamp").is_some_and(|t| !t.is_null()) {
        let current = meta
            .get("deletionGracePeriodSeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        return match requested {
            _ if current == 0 => Graceful::No,
            Some(period) if period < current => Graceful::Marked(shorten(value, current, period)),
            _ => Graceful::Pending,
        };
    }
    let period = pod_grace_period(value, requested);
    set_grace(value, period);
    if let Some(generation) = value
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        && generation > 0
    {
        value["metadata"]["generation"] = (generation + 1).into();
    }
    Graceful::Marked(period)
}

/// The pod strategy's `CheckGracefulDelete`: the grace asked for, else the pod's
/// `terminationGracePeriodSeconds`; 0 for a pod on no node or one already terminated.
fn pod_grace_period(pod: &Value, requested: Option<i64>) -> i64 {
    let scheduled = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let phase = pod.pointer("/status/phase").and_then(Value::as_str);
    if !scheduled || matches!(phase, Some("Succeeded" | "Failed")) {
        return 0;
    }
    let period = requested.unwrap_or_else(|| {
        pod.pointer("/spec/terminationGracePeriodSeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0)
    });
    if period < 0 { 1 } else { period }
}

/// Shortens a pending graceful deletion from `current` to `period` seconds: its
/// `deletionTimestamp` moves back by the difference, but not into the past (then it is now, and
/// a graceful `period` becomes 1 s); the period set.
fn shorten(value: &mut Value, current: i64, period: i64) -> i64 {
    let marked = value
        .pointer("/metadata/deletionTimestamp")
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<jiff::Timestamp>().ok());
    let now = jiff::Timestamp::now();
    let moved = marked
        .and_then(|at| {
            at.checked_sub(jiff::SignedDuration::from_secs(current - period))
                .ok()
        })
        .unwrap_or(now);
    let (at, period) = if moved < now {
        (now, if period == 0 { 0 } else { 1 })
    } else {
        (moved, period)
    };
    value["metadata"]["deletionTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string().into();
    value["metadata"]["deletionGracePeriodSeconds"] = period.into();
    period
}

/// Sets `deletionTimestamp` to now + `period` seconds and `deletionGracePeriodSeconds`.
fn set_grace(value: &mut Value, period: i64) {
    let at = jiff::Timestamp::now()
        .checked_add(jiff::SignedDuration::from_secs(period))
        .unwrap_or_else(|_| jiff::Timestamp::now());
    value["metadata"]["deletionTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string().into();
    value["metadata"]["deletionGracePeriodSeconds"] = period.into();
}

/// `markAsDeleting`: a deletion that waits on finalizers (`deletionTimestamp` now unless set,
/// grace 0, the next generation on the first marking).
pub fn mark_as_deleting(value: &mut Value) {
    let meta = &mut value["metadata"];
    if meta.get("deletionTimestamp").is_none_or(Value::is_null) {
        if let Some(generation) = meta.get("generation").and_then(Value::as_i64)
            && generation > 0
        {
            meta["generation"] = (generation + 1).into();
        }
        meta["deletionTimestamp"] = now().into();
    }
    meta["deletionGracePeriodSeconds"] = 0.into();
}

/// The finalizers the garbage collector needs on `value` for this deletion
/// (`deletionFinalizersForGarbageCollection`), when they differ from its own.
pub fn gc_finalizers(
    value: &Value,
    resource: &ResourceType,
    options: &DeleteOptions,
) -> Option<Vec<Value>> {
    if resource.is_core("events") || resource.group == "events.k8s.io" {
        return None; // the event strategy's policy is `Unsupported`
    }
    let current: Vec<Value> = value
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let has = |name: &str| current.iter().any(|f| f == name);
    let explicit = match (options.orphan_dependents, options.propagation) {
        (Some(true), _) => Some(Propagation::Orphan),
        (Some(false), _) => Some(Propagation::Background),
        (None, policy) => policy,
    };
    let policy = explicit.unwrap_or(if has(ORPHAN) {
        Propagation::Orphan
    } else if has(FOREGROUND) {
        Propagation::Foreground
    } else if orphans_by_default(resource) {
        Propagation::Orphan
    } else {
        Propagation::Background
    });
    let mut wanted: Vec<Value> = current
        .iter()
        .filter(|f| *f != ORPHAN && *f != FOREGROUND)
        .cloned()
        .collect();
    match policy {
        Propagation::Orphan => wanted.push(ORPHAN.into()),
        Propagation::Foreground => wanted.push(FOREGROUND.into()),
        Propagation::Background => {}
    }
    let same = wanted.len() == current.len() && wanted.iter().all(|f| current.contains(f));
    (!same).then_some(wanted)
}

/// The resources whose v1 strategy orphans dependents by default, for backwards compatibility:
/// Jobs (`pkg/registry/batch/job/strategy.go:62`) and ReplicationControllers
/// (`pkg/registry/core/replicationcontroller/strategy.go:60`).
fn orphans_by_default(resource: &ResourceType) -> bool {
    (resource.group == "batch" && resource.plural == "jobs")
        || resource.is_core("replicationcontrollers")
}
