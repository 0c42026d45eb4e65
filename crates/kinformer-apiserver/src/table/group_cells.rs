//! Row cells of the printers of the groups beyond core and apps, as kube-apiserver v1.37.2's
//! printers compute them (`pkg/printers/internalversion/printers.go`: `printJob`,
//! `printCronJob`, `printPodDisruptionBudget`, `printRole`, `printRoleBinding`,
//! `printCertificateSigningRequest`, `printReplicationController`; kube-aggregator's
//! `printAPIService`).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::cells::{age, containers, int, label_selector, label_set, list, name, or_none, text};
use super::duration::{human, since};

/// `metav1.FormatLabelSelector`: `<none>` for an empty selector, `<error>` for a bad one.
fn format_selector(selector: Option<&Value>) -> String {
    match label_selector(selector) {
        Some(text) if text.is_empty() => "<none>".into(),
        Some(text) => text,
        None => "<error>".into(),
    }
}

/// Whether `conditions` hold one of `kind` whose status is `True`.
fn has_condition(object: &Value, kind: &str) -> bool {
    list(object, "/status/conditions")
        .iter()
        .any(|c| text(c, "/type") == kind && text(c, "/status") == "True")
}

/// A Job's STATUS column.
fn job_status(object: &Value) -> &'static str {
    if has_condition(object, "Complete") {
        "Complete"
    } else if has_condition(object, "Failed") {
        "Failed"
    } else if object.pointer("/metadata/deletionTimestamp").is_some() {
        "Terminating"
    } else if has_condition(object, "Suspended") {
        "Suspended"
    } else if has_condition(object, "FailureTarget") {
        "FailureTarget"
    } else if has_condition(object, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    }
}

/// A Job's COMPLETIONS column: succeeded of the completions (or of the parallelism).
fn job_completions(object: &Value) -> String {
    let succeeded = int(object, "/status/succeeded");
    match object.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(completions) => format!("{succeeded}/{completions}"),
        None => match int(object, "/spec/parallelism") {
            parallelism if parallelism > 1 => format!("{succeeded}/1 of {parallelism}"),
            _ => format!("{succeeded}/1"),
        },
    }
}

/// A Job's DURATION column: from its start to its completion (or to now); empty before it
/// starts.
fn job_duration(object: &Value, now: Timestamp) -> String {
    let time = |pointer: &str| text(object, pointer).parse::<Timestamp>().ok();
    match (time("/status/startTime"), time("/status/completionTime")) {
        (None, _) => String::new(),
        (Some(_), None) => since(
            object.pointer("/status/startTime").and_then(Value::as_str),
            now,
        ),
        (Some(start), Some(end)) => human(end.as_second() - start.as_second()),
    }
}

/// `printJob`.
pub fn job(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    vec![
        name(object),
        json!(job_status(object)),
        json!(job_completions(object)),
        json!(job_duration(object, now)),
        age(object, now),
        names,
        images,
        json!(format_selector(object.pointer("/spec/selector"))),
    ]
}

/// `printBoolPtr`: `<unset>` for nil, else `True`/`False`.
fn bool_text(value: Option<&Value>) -> &'static str {
    match value.and_then(Value::as_bool) {
        None => "<unset>",
        Some(true) => "True",
        Some(false) => "False",
    }
}

/// `printCronJob`.
pub fn cron_job(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/jobTemplate/spec/template/spec/containers");
    let last = match object
        .pointer("/status/lastScheduleTime")
        .and_then(Value::as_str)
    {
        Some(time) => since(Some(time), now),
        None => "<none>".into(),
    };
    vec![
        name(object),
        json!(text(object, "/spec/schedule")),
        json!(or_none(text(object, "/spec/timeZone"))),
        json!(bool_text(object.pointer("/spec/suspend"))),
        json!(list(object, "/status/active").len()),
        json!(last),
        age(object, now),
        names,
        images,
        json!(format_selector(
            object.pointer("/spec/jobTemplate/spec/selector")
        )),
    ]
}

/// An `IntOrString` as its `String()`; `N/A` when absent.
fn int_or_string(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => "N/A".into(),
    }
}

/// `printPodDisruptionBudget`.
pub fn pod_disruption_budget(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        name(object),
        json!(int_or_string(object.pointer("/spec/minAvailable"))),
        json!(int_or_string(object.pointer("/spec/maxUnavailable"))),
        json!(int(object, "/status/disruptionsAllowed")),
        age(object, now),
    ]
}

/// `printRole` and `printClusterRole`: the name and when it was created.
pub fn role(object: &Value) -> Vec<Value> {
    vec![
        name(object),
        json!(text(object, "/metadata/creationTimestamp")),
    ]
}

/// `printRoleBinding` and `printClusterRoleBinding`: the role, and the subjects by kind
/// (`rbac.SubjectsStrings`).
pub fn role_binding(object: &Value, now: Timestamp) -> Vec<Value> {
    let subjects = list(object, "/subjects");
    let of_kind = |kind: &str| -> String {
        subjects
            .iter()
            .filter(|s| text(s, "/kind") == kind)
            .map(|s| match (kind, text(s, "/namespace")) {
                ("ServiceAccount", namespace) => format!("{namespace}/{}", text(s, "/name")),
                _ => text(s, "/name").to_owned(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        name(object),
        json!(format!(
            "{}/{}",
            text(object, "/roleRef/kind"),
            text(object, "/roleRef/name")
        )),
        age(object, now),
        json!(of_kind("User")),
        json!(of_kind("Group")),
        json!(of_kind("ServiceAccount")),
    ]
}

/// `printCertificateSigningRequest`: the condition types (`Pending` without any), `Issued`
/// once it has a certificate.
pub fn certificate_signing_request(object: &Value, now: Timestamp) -> Vec<Value> {
    let mut conditions: Vec<&str> = list(object, "/status/conditions")
        .iter()
        .map(|c| text(c, "/type"))
        .collect();
    if !text(object, "/status/certificate").is_empty() {
        conditions.push("Issued");
    }
    let condition = if conditions.is_empty() {
        "Pending".to_owned()
    } else {
        conditions.join(",")
    };
    let duration = match object
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
    {
        Some(seconds) => human(seconds),
        None => "<none>".into(),
    };
    vec![
        name(object),
        age(object, now),
        json!(text(object, "/spec/signerName")),
        json!(text(object, "/spec/username")),
        json!(duration),
        json!(condition),
    ]
}

/// `printReplicationController`.
pub fn replication_controller(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    let selector = label_set(object.pointer("/spec/selector"));
    vec![
        name(object),
        json!(int(object, "/spec/replicas")),
        json!(int(object, "/status/replicas")),
        json!(int(object, "/status/readyReplicas")),
        age(object, now),
        names,
        images,
        json!(or_none(&selector)),
    ]
}

/// kube-aggregator's APIService printer: `Local` or the service, and its `Available`
/// condition (with the reason when it is not true).
pub fn api_service(object: &Value, now: Timestamp) -> Vec<Value> {
    let service = match object.pointer("/spec/service").filter(|s| !s.is_null()) {
        Some(service) => format!("{}/{}", text(service, "/namespace"), text(service, "/name")),
        None => "Local".into(),
    };
    let available = list(object, "/status/conditions")
        .iter()
        .find(|c| text(c, "/type") == "Available")
        .map_or_else(
            || "Unknown".to_owned(),
            |c| match (text(c, "/status"), text(c, "/reason")) {
                ("True", _) | (_, "") => text(c, "/status").to_owned(),
                (status, reason) => format!("{status} ({reason})"),
            },
        );
    vec![
        name(object),
        json!(service),
        json!(available),
        age(object, now),
    ]
}
