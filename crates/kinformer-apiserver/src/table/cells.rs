//! Row cells as kube-apiserver's printers compute them
//! (kubernetes v1.37.2 `pkg/printers/internalversion/printers.go`; the server always prints
//! wide: `pkg/printers/storage/storage.go:46` passes `Wide: true`). Objects are read as JSON;
//! an absent field reads as Go's zero value, as it does in the typed printers.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::duration::since;

/// The string at `pointer`, "" when absent (Go's zero value).
pub(super) fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The integer at `pointer`, 0 when absent.
pub(super) fn int(object: &Value, pointer: &str) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The array at `pointer`, empty when absent.
pub(super) fn list<'a>(object: &'a Value, pointer: &str) -> &'a [Value] {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub(super) fn name(object: &Value) -> Value {
    json!(text(object, "/metadata/name"))
}

pub(super) fn age(object: &Value, now: Timestamp) -> Value {
    json!(since(
        object
            .pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str),
        now
    ))
}

pub(super) fn or_none(value: &str) -> &str {
    if value.is_empty() { "<none>" } else { value }
}

/// `layoutContainerCells` (printers.go:2866): container names and images, comma-joined.
pub(super) fn containers(object: &Value, pointer: &str) -> [Value; 2] {
    let containers = list(object, pointer);
    let names: Vec<&str> = containers.iter().map(|c| text(c, "/name")).collect();
    let images: Vec<&str> = containers.iter().map(|c| text(c, "/image")).collect();
    [json!(names.join(",")), json!(images.join(","))]
}

/// `labels.Set.String()`: `k=v` sorted by key, comma-joined ("" when empty).
pub(super) fn label_set(map: Option<&Value>) -> String {
    let Some(map) = map.and_then(Value::as_object) else {
        return String::new();
    };
    let mut pairs: Vec<(&String, &str)> = map
        .iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.LabelSelectorAsSelector(s).String()` (apimachinery `pkg/apis/meta/v1/helpers.go`):
/// requirements sorted by key, `in`/`notin` values sorted; None for an invalid operator.
pub(super) fn label_selector(selector: Option<&Value>) -> Option<String> {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return Some(String::new());
    };
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in labels {
            requirements.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
        }
    }
    for expression in list(selector, "/matchExpressions") {
        let key = text(expression, "/key");
        let mut values: Vec<&str> = list(expression, "/values")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        let values = values.join(",");
        let requirement = match text(expression, "/operator") {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        };
        requirements.push((key.to_owned(), requirement));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    Some(
        requirements
            .into_iter()
            .map(|(_, r)| r)
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// `printDeployment` (printers.go:2506).
pub fn deployment(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    let selector =
        label_selector(object.pointer("/spec/selector")).unwrap_or_else(|| "<invalid>".into());
    vec![
        name(object),
        json!(format!(
            "{}/{}",
            int(object, "/status/readyReplicas"),
            int(object, "/spec/replicas")
        )),
        json!(int(object, "/status/updatedReplicas")),
        json!(int(object, "/status/availableReplicas")),
        age(object, now),
        names,
        images,
        json!(selector),
    ]
}

/// `printReplicaSet` (printers.go:1264); the selector through `FormatLabelSelector`.
pub fn replica_set(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    let selector = label_selector(object.pointer("/spec/selector"))
        .map_or_else(|| "<error>".to_owned(), |s| or_none(&s).to_owned());
    vec![
        name(object),
        json!(int(object, "/spec/replicas")),
        json!(int(object, "/status/replicas")),
        json!(int(object, "/status/readyReplicas")),
        age(object, now),
        names,
        images,
        json!(selector),
    ]
}

/// `loadBalancerStatusStringer` (printers.go:1394), wide (never clipped): the ingress IPs or
/// hostnames, sorted and deduplicated.
fn load_balancer(object: &Value) -> Vec<String> {
    let mut result: Vec<String> = list(object, "/status/loadBalancer/ingress")
        .iter()
        .filter_map(|i| {
            let ip = text(i, "/ip");
            let host = text(i, "/hostname");
            (!ip.is_empty())
                .then_some(ip)
                .or((!host.is_empty()).then_some(host))
        })
        .map(str::to_owned)
        .collect();
    result.sort();
    result.dedup();
    result
}

/// `getServiceExternalIP` (printers.go:1412).
fn service_external_ip(object: &Value) -> String {
    let external: Vec<&str> = list(object, "/spec/externalIPs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    match text(object, "/spec/type") {
        "ClusterIP" | "NodePort" if !external.is_empty() => external.join(","),
        "ClusterIP" | "NodePort" => "<none>".into(),
        "LoadBalancer" => {
            let mut all = load_balancer(object);
            if all.is_empty() && external.is_empty() {
                return "<pending>".into();
            }
            all.extend(external.iter().map(|s| (*s).to_owned()));
            all.join(",")
        }
        "ExternalName" => text(object, "/spec/externalName").to_owned(),
        _ => "<unknown>".into(),
    }
}

/// `makePortString` (printers.go:1444): `port/protocol` or `port:nodePort/protocol`.
pub fn service_ports(object: &Value) -> String {
    list(object, "/spec/ports")
        .iter()
        .map(|p| {
            let port = int(p, "/port");
            let protocol = text(p, "/protocol");
            match int(p, "/nodePort") {
                n if n > 0 => format!("{port}:{n}/{protocol}"),
                _ => format!("{port}/{protocol}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `printService` (printers.go:1456).
pub fn service(object: &Value, now: Timestamp) -> Vec<Value> {
    // clusterIPs[0] is clusterIP once kube-apiserver has stored a service (its registry fills
    // clusterIPs from clusterIP); an object with only clusterIP prints that.
    let cluster_ip = list(object, "/spec/clusterIPs")
        .first()
        .and_then(Value::as_str)
        .or_else(|| object.pointer("/spec/clusterIP").and_then(Value::as_str))
        .filter(|ip| !ip.is_empty())
        .unwrap_or("<none>");
    let ports = service_ports(object);
    vec![
        name(object),
        json!(text(object, "/spec/type")),
        json!(cluster_ip),
        json!(service_external_ip(object)),
        json!(or_none(&ports)),
        age(object, now),
        json!(or_none(&label_set(object.pointer("/spec/selector")))),
    ]
}

/// `findNodeRoles` (printers.go:2102): `node-role.kubernetes.io/<role>` label keys and
/// `kubernetes.io/role` label values, sorted and deduplicated.
fn node_roles(object: &Value) -> Vec<String> {
    let mut roles: Vec<String> = Vec::new();
    if let Some(labels) = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
    {
        for (key, value) in labels {
            let value = value.as_str().unwrap_or("");
            if let Some(role) = key.strip_prefix("node-role.kubernetes.io/") {
                if !role.is_empty() {
                    roles.push(role.to_owned());
                }
            } else if key == "kubernetes.io/role" && !value.is_empty() {
                roles.push(value.to_owned());
            }
        }
    }
    roles.sort();
    roles.dedup();
    roles
}

/// The first address of `kind` (`getNodeInternalIP` / `getNodeExternalIP`, printers.go:2077).
fn node_address<'a>(object: &'a Value, kind: &str) -> &'a str {
    list(object, "/status/addresses")
        .iter()
        .find(|a| text(a, "/type") == kind)
        .map_or("<none>", |a| text(a, "/address"))
}

fn or_unknown(value: &str) -> String {
    if value.is_empty() {
        "<unknown>".into()
    } else {
        value.to_owned()
    }
}

/// `printNode` (printers.go:2021).
pub fn node(object: &Value, now: Timestamp) -> Vec<Value> {
    // Only the Ready condition counts; a later duplicate of a type wins (the printers' map).
    let ready = list(object, "/status/conditions")
        .iter()
        .rev()
        .find(|c| text(c, "/type") == "Ready");
    let mut status = vec![match ready {
        Some(c) if text(c, "/status") == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if object
        .pointer("/spec/unschedulable")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        status.push("SchedulingDisabled");
    }
    let roles = node_roles(object).join(",");
    let mut kernel = or_unknown(text(object, "/status/nodeInfo/kernelVersion"));
    let arch = text(object, "/status/nodeInfo/architecture");
    if !arch.is_empty() {
        kernel = format!("{kernel} ({arch})");
    }
    vec![
        name(object),
        json!(status.join(",")),
        json!(or_none(&roles)),
        age(object, now),
        json!(text(object, "/status/nodeInfo/kubeletVersion")),
        json!(node_address(object, "InternalIP")),
        json!(node_address(object, "ExternalIP")),
        json!(or_unknown(text(object, "/status/nodeInfo/osImage"))),
        json!(kernel),
        json!(or_unknown(text(
            object,
            "/status/nodeInfo/containerRuntimeVersion"
        ))),
    ]
}

fn condition_true(object: &Value, kind: &str) -> bool {
    list(object, "/status/conditions")
        .iter()
        .any(|c| text(c, "/type") == kind && text(c, "/status") == "True")
}

/// A container status's `lastState.terminated.finishedAt`.
fn finished_at(status: &Value) -> Option<Timestamp> {
    status
        .pointer("/lastState/terminated/finishedAt")
        .and_then(Value::as_str)
        .and_then(|t| t.parse().ok())
}

/// The reason of a terminated state: its reason, else `{prefix}Signal:n`, else
/// `{prefix}ExitCode:n`.
fn terminated_reason(terminated: &Value, prefix: &str) -> String {
    let reason = text(terminated, "/reason");
    if !reason.is_empty() {
        return format!("{prefix}{reason}");
    }
    match int(terminated, "/signal") {
        0 => format!("{prefix}ExitCode:{}", int(terminated, "/exitCode")),
        signal => format!("{prefix}Signal:{signal}"),
    }
}

/// `printPod` (printers.go:967): NAME, READY, STATUS, RESTARTS, AGE, IP, NODE, NOMINATED NODE,
/// READINESS GATES.
pub fn pod(object: &Value, now: Timestamp) -> Vec<Value> {
    let init_specs = list(object, "/spec/initContainers");
    let restartable = |name: &str| {
        init_specs
            .iter()
            .any(|c| text(c, "/name") == name && text(c, "/restartPolicy") == "Always")
    };
    // printers.go:999: restartable (sidecar) init containers count as containers.
    let total = list(object, "/spec/containers").len()
        + init_specs
            .iter()
            .filter(|c| text(c, "/restartPolicy") == "Always")
            .count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut sidecar_restarts = 0;
    let mut last_restart: Option<Timestamp> = None;
    let mut last_sidecar_restart: Option<Timestamp> = None;

    let phase = text(object, "/status/phase");
    let status_reason = text(object, "/status/reason");
    let mut reason = if status_reason.is_empty() {
        phase.to_owned()
    } else {
        status_reason.to_owned()
    };
    // printers.go:983: a SchedulingGated PodScheduled condition names the reason.
    if list(object, "/status/conditions")
        .iter()
        .any(|c| text(c, "/type") == "PodScheduled" && text(c, "/reason") == "SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }

    // printers.go:1005-1050: init containers, stopping at the first one not done.
    let mut initializing = false;
    let init_statuses = list(object, "/status/initContainerStatuses");
    for (i, container) in init_statuses.iter().enumerate() {
        let name = text(container, "/name");
        restarts += int(container, "/restartCount");
        let finished = finished_at(container);
        last_restart = last_restart.max(finished);
        if restartable(name) {
            sidecar_restarts += int(container, "/restartCount");
            last_sidecar_restart = last_sidecar_restart.max(finished);
        }
        let terminated = container.pointer("/state/terminated");
        let waiting_reason = text(container, "/state/waiting/reason");
        if terminated.is_some_and(|t| int(t, "/exitCode") == 0) {
            continue;
        }
        if restartable(name)
            && container
                .get("started")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        {
            if container
                .get("ready")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            {
                ready += 1;
            }
            continue;
        }
        reason = if let Some(terminated) = terminated {
            terminated_reason(terminated, "Init:")
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            format!("Init:{waiting_reason}")
        } else {
            format!("Init:{i}/{}", init_specs.len())
        };
        initializing = true;
        break;
    }

    // printers.go:1052-1095: regular containers, last to first.
    if !initializing || condition_true(object, "Initialized") {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut has_running = false;
        let mut error_reason = String::new();
        for container in list(object, "/status/containerStatuses").iter().rev() {
            restarts += int(container, "/restartCount");
            last_restart = last_restart.max(finished_at(container));
            let waiting_reason = text(container, "/state/waiting/reason");
            if !waiting_reason.is_empty() {
                reason = waiting_reason.to_owned();
            } else if let Some(terminated) = container.pointer("/state/terminated") {
                reason = terminated_reason(terminated, "");
                if int(terminated, "/exitCode") != 0 {
                    error_reason.clone_from(&reason);
                }
            } else if container
                .get("ready")
                .and_then(Value::as_bool)
                .unwrap_or(false)
                && container.pointer("/state/running").is_some()
            {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" {
            if has_running && condition_true(object, "Ready") {
                reason = "Running".into();
            } else if !error_reason.is_empty() {
                reason = error_reason;
            } else if has_running {
                reason = "NotReady".into();
            }
        }
    }

    // printers.go:1097-1101.
    let deleting = object
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null());
    if deleting && status_reason == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }

    let restarts_cell = match last_restart {
        Some(last) if restarts != 0 => {
            format!("{restarts} ({} ago)", since(Some(&last.to_string()), now))
        }
        _ => restarts.to_string(),
    };

    // kube-apiserver's defaulting keeps podIP and podIPs in sync
    // (pkg/apis/core/v1/defaults.go:226), so a stored pod with only podIP prints it.
    let pod_ip = list(object, "/status/podIPs")
        .first()
        .map_or_else(|| text(object, "/status/podIP"), |ip| text(ip, "/ip"));
    let gates = list(object, "/spec/readinessGates");
    let readiness_gates = if gates.is_empty() {
        "<none>".to_owned()
    } else {
        let conditions = list(object, "/status/conditions");
        let true_gates = gates
            .iter()
            .filter(|gate| {
                let kind = text(gate, "/conditionType");
                conditions
                    .iter()
                    .find(|c| text(c, "/type") == kind)
                    .is_some_and(|c| text(c, "/status") == "True")
            })
            .count();
        format!("{true_gates}/{}", gates.len())
    };
    vec![
        name(object),
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts_cell),
        age(object, now),
        json!(or_none(pod_ip)),
        json!(or_none(text(object, "/spec/nodeName"))),
        json!(or_none(text(object, "/status/nominatedNodeName"))),
        json!(readiness_gates),
    ]
}

/// A pod row's `conditions` (printers.go:951 `podSuccessConditions` / `podFailedConditions`).
pub fn pod_conditions(object: &Value) -> Option<Value> {
    match text(object, "/status/phase") {
        "Succeeded" => Some(json!([{"type": "Completed", "status": "True",
            "reason": "Succeeded", "message": "The pod has completed successfully."}])),
        "Failed" => Some(json!([{"type": "Completed", "status": "True",
            "reason": "Failed", "message": "The pod failed."}])),
        _ => None,
    }
}

/// NAME and AGE.
pub fn default(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![name(object), age(object, now)]
}

/// `printStatefulSet` (printers.go:1603).
pub fn stateful_set(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    vec![
        name(object),
        json!(format!(
            "{}/{}",
            int(object, "/status/readyReplicas"),
            int(object, "/spec/replicas")
        )),
        age(object, now),
        names,
        images,
    ]
}

/// `printDaemonSet` (printers.go:1630).
pub fn daemon_set(object: &Value, now: Timestamp) -> Vec<Value> {
    let [names, images] = containers(object, "/spec/template/spec/containers");
    let node_selector = label_set(object.pointer("/spec/template/spec/nodeSelector"));
    let selector = label_selector(object.pointer("/spec/selector"))
        .map_or_else(|| "<error>".to_owned(), |s| or_none(&s).to_owned());
    vec![
        name(object),
        json!(int(object, "/status/desiredNumberScheduled")),
        json!(int(object, "/status/currentNumberScheduled")),
        json!(int(object, "/status/numberReady")),
        json!(int(object, "/status/updatedNumberScheduled")),
        json!(int(object, "/status/numberAvailable")),
        json!(or_none(&node_selector)),
        age(object, now),
        names,
        images,
        json!(selector),
    ]
}

/// `printNamespace` (printers.go:1961).
pub fn namespace(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        name(object),
        json!(text(object, "/status/phase")),
        age(object, now),
    ]
}

/// How many keys the object at `pointer` has.
fn keys(object: &Value, pointer: &str) -> i64 {
    object
        .pointer(pointer)
        .and_then(Value::as_object)
        .map_or(0, |m| i64::try_from(m.len()).unwrap_or(i64::MAX))
}

/// `printSecret` (printers.go:1981).
pub fn secret(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        name(object),
        json!(text(object, "/type")),
        json!(keys(object, "/data")),
        age(object, now),
    ]
}

/// `printConfigMap` (printers.go:2675): data and binaryData keys.
pub fn config_map(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        name(object),
        json!(keys(object, "/data") + keys(object, "/binaryData")),
        age(object, now),
    ]
}

/// `printLease` (printers.go:2810).
pub fn lease(object: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        name(object),
        json!(text(object, "/spec/holderIdentity")),
        age(object, now),
    ]
}

/// A timestamp field's age, None when it is absent (Go's zero time).
fn age_of(object: &Value, pointer: &str, now: Timestamp) -> Option<String> {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(|t| since(Some(t), now))
}

/// `printEvent` (printers.go:2227), wide: LAST SEEN, TYPE, REASON, OBJECT, SUBOBJECT, SOURCE,
/// MESSAGE, FIRST SEEN, COUNT, NAME.
pub fn event(object: &Value, now: Timestamp) -> Vec<Value> {
    let first = age_of(object, "/firstTimestamp", now)
        .unwrap_or_else(|| since(object.pointer("/eventTime").and_then(Value::as_str), now));
    let mut last = age_of(object, "/lastTimestamp", now).unwrap_or_else(|| first.clone());
    let mut count = int(object, "/count");
    match object.get("series").filter(|s| !s.is_null()) {
        Some(series) => {
            last = since(series.get("lastObservedTime").and_then(Value::as_str), now);
            count = int(series, "/count");
        }
        // Singleton events of the events.k8s.io API have no count.
        None if count == 0 => count = 1,
        None => {}
    }
    let kind = text(object, "/involvedObject/kind").to_lowercase();
    let involved = text(object, "/involvedObject/name");
    let target = if involved.is_empty() {
        kind
    } else {
        format!("{kind}/{involved}")
    };
    // formatEventSource (printers.go:2884): component (else reportingController), then
    // ", host" (else reportingInstance) when there is one.
    let first_non_empty = |a: &str, b: &str| {
        let a = text(object, a);
        if a.is_empty() { text(object, b) } else { a }
    };
    let component = first_non_empty("/source/component", "/reportingComponent");
    let instance = first_non_empty("/source/host", "/reportingInstance");
    let source = if instance.is_empty() {
        component.to_owned()
    } else {
        format!("{component}, {instance}")
    };
    vec![
        json!(last),
        json!(text(object, "/type")),
        json!(text(object, "/reason")),
        json!(target),
        json!(text(object, "/involvedObject/fieldPath")),
        json!(source),
        json!(text(object, "/message").trim()),
        json!(first),
        json!(count),
        name(object),
    ]
}

/// A CRD's row (apiextensions-apiserver
/// `pkg/registry/customresourcedefinition/tableconvertor/tableconvertor.go:57`): served versions
/// sorted, the storage one marked `(storage)`; Created At as RFC 3339 in UTC.
pub fn crd(object: &Value) -> Vec<Value> {
    let mut versions: Vec<String> = list(object, "/spec/versions")
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool).unwrap_or(false))
        .map(|v| {
            let storage = v.get("storage").and_then(Value::as_bool).unwrap_or(false);
            let name = text(v, "/name");
            if storage {
                format!("{name}(storage)")
            } else {
                name.to_owned()
            }
        })
        .collect();
    versions.sort();
    let created = object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<Timestamp>().ok())
        .map_or_else(
            // Go's zero time formatted.
            || "0001-01-01T00:00:00Z".to_owned(),
            |t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        );
    let short_names: Vec<&str> = list(object, "/spec/names/shortNames")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    vec![
        name(object),
        json!(text(object, "/spec/scope")),
        json!(versions.join(",")),
        json!(created),
        json!(text(object, "/spec/group")),
        json!(text(object, "/spec/names/kind")),
        json!(short_names.join(",")),
        json!(condition_true(object, "Established")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        "2026-01-10T12:00:00Z".parse().unwrap()
    }

    /// A pod created a day ago with `containers` specs and `status`.
    fn pod_with(spec: Value, status: Value) -> Value {
        json!({"metadata": {"name": "p", "creationTimestamp": "2026-01-09T12:00:00Z"},
            "spec": spec, "status": status})
    }

    fn two_containers() -> Value {
        json!({"containers": [{"name": "a", "image": "i:1"}, {"name": "b", "image": "i:2"}]})
    }

    fn status_cells(pod_value: &Value) -> (String, String, String) {
        let cells = pod(pod_value, now());
        let s = |i: usize| cells[i].as_str().unwrap().to_owned();
        (s(1), s(2), s(3))
    }

    #[test]
    fn pending_pod_without_statuses() {
        let p = pod_with(two_containers(), json!({"phase": "Pending"}));
        let cells = pod(&p, now());
        assert_eq!(
            cells,
            vec![
                json!("p"),
                json!("0/2"),
                json!("Pending"),
                json!("0"),
                json!("24h"),
                json!("<none>"),
                json!("<none>"),
                json!("<none>"),
                json!("<none>")
            ]
        );
    }

    #[test]
    fn running_pod_counts_ready_containers_and_restarts_with_their_age() {
        let p = pod_with(
            two_containers(),
            json!({"phase": "Running", "podIPs": [{"ip": "10.0.0.5"}],
                "containerStatuses": [
                    {"name": "a", "ready": true, "restartCount": 2,
                     "state": {"running": {}},
                     "lastState": {"terminated": {"exitCode": 1,
                        "finishedAt": "2026-01-10T11:55:00Z"}}},
                    {"name": "b", "ready": false, "restartCount": 1, "state": {"running": {}}}]}),
        );
        let cells = pod(&p, now());
        assert_eq!(
            status_cells(&p),
            ("1/2".into(), "Running".into(), "3 (5m ago)".into())
        );
        assert_eq!(cells[5], json!("10.0.0.5"));
    }

    #[test]
    fn waiting_and_terminated_reasons() {
        let waiting = pod_with(
            two_containers(),
            json!({"phase": "Pending", "containerStatuses": [
                {"name": "a", "state": {"waiting": {"reason": "ImagePullBackOff"}}},
                {"name": "b", "state": {"waiting": {"reason": "ContainerCreating"}}}]}),
        );
        // The statuses are walked last to first, so the first container's reason wins.
        assert_eq!(status_cells(&waiting).1, "ImagePullBackOff");
        let crashed = pod_with(
            two_containers(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "restartCount": 4,
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}),
        );
        assert_eq!(status_cells(&crashed).1, "CrashLoopBackOff");
        assert_eq!(status_cells(&crashed).2, "4");
        let signal = pod_with(
            two_containers(),
            json!({"phase": "Failed", "containerStatuses": [
                {"name": "a", "state": {"terminated": {"exitCode": 137, "signal": 9}}}]}),
        );
        assert_eq!(status_cells(&signal).1, "Signal:9");
        let code = pod_with(
            two_containers(),
            json!({"phase": "Failed", "containerStatuses": [
                {"name": "a", "state": {"terminated": {"exitCode": 3}}}]}),
        );
        assert_eq!(status_cells(&code).1, "ExitCode:3");
    }

    #[test]
    fn completed_pod_and_its_row_condition() {
        let p = pod_with(
            json!({"containers": [{"name": "a"}]}),
            json!({"phase": "Succeeded", "containerStatuses": [
                {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}),
        );
        assert_eq!(status_cells(&p).1, "Completed");
        assert_eq!(
            pod_conditions(&p),
            Some(
                json!([{"type": "Completed", "status": "True", "reason": "Succeeded",
                "message": "The pod has completed successfully."}])
            )
        );
        // Completed with one container still running and the pod Ready: Running.
        let mixed = pod_with(
            two_containers(),
            json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [
                {"name": "a", "ready": true, "state": {"running": {}}},
                {"name": "b", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}),
        );
        assert_eq!(status_cells(&mixed).1, "Running");
        let not_ready = pod_with(
            two_containers(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "ready": true, "state": {"running": {}}},
                {"name": "b", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}),
        );
        assert_eq!(status_cells(&not_ready).1, "NotReady");
    }

    #[test]
    fn init_containers_and_sidecars() {
        let spec = json!({"initContainers": [{"name": "init"}, {"name": "side", "restartPolicy": "Always"}],
            "containers": [{"name": "a"}]});
        let p = pod_with(
            spec.clone(),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "init", "state": {"running": {}}},
                {"name": "side", "state": {"waiting": {"reason": "PodInitializing"}}}]}),
        );
        // A sidecar counts as a container; the running init container is 0 of 2 done.
        assert_eq!(status_cells(&p).0, "0/2");
        assert_eq!(status_cells(&p).1, "Init:0/2");
        let failed = pod_with(
            spec.clone(),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "init", "state": {"terminated": {"exitCode": 2}}}]}),
        );
        assert_eq!(status_cells(&failed).1, "Init:ExitCode:2");
        let pulling = pod_with(
            spec,
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "init", "state": {"waiting": {"reason": "ErrImagePull"}}}]}),
        );
        assert_eq!(status_cells(&pulling).1, "Init:ErrImagePull");
    }

    #[test]
    fn deletion_gives_terminating_or_unknown() {
        let mut p = pod_with(two_containers(), json!({"phase": "Running"}));
        p["metadata"]["deletionTimestamp"] = json!("2026-01-10T11:59:00Z");
        assert_eq!(status_cells(&p).1, "Terminating");
        p["status"]["reason"] = json!("NodeLost");
        assert_eq!(status_cells(&p).1, "Unknown");
        let mut done = pod_with(two_containers(), json!({"phase": "Succeeded"}));
        done["metadata"]["deletionTimestamp"] = json!("2026-01-10T11:59:00Z");
        assert_eq!(status_cells(&done).1, "Succeeded");
    }

    #[test]
    fn scheduling_gated_and_readiness_gates() {
        let mut spec = two_containers();
        spec["readinessGates"] = json!([{"conditionType": "x"}, {"conditionType": "y"}]);
        let p = pod_with(
            spec,
            json!({"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"},
                {"type": "x", "status": "True"}, {"type": "y", "status": "False"}]}),
        );
        assert_eq!(status_cells(&p).1, "SchedulingGated");
        assert_eq!(pod(&p, now())[8], json!("1/2"));
    }

    #[test]
    fn service_ports_and_external_ips() {
        let svc = json!({"metadata": {"name": "s"}, "spec": {"type": "NodePort",
            "clusterIPs": ["10.96.0.9"], "selector": {"b": "2", "a": "1"},
            "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080},
                      {"port": 53, "protocol": "UDP"}]}});
        assert_eq!(
            service(&svc, now()),
            vec![
                json!("s"),
                json!("NodePort"),
                json!("10.96.0.9"),
                json!("<none>"),
                json!("80:30080/TCP,53/UDP"),
                json!("<unknown>"),
                json!("a=1,b=2")
            ]
        );
        let lb = json!({"spec": {"type": "LoadBalancer", "externalIPs": ["1.1.1.1"]},
            "status": {"loadBalancer": {"ingress": [{"hostname": "h.example"}, {"ip": "2.2.2.2"}]}}});
        assert_eq!(service_external_ip(&lb), "2.2.2.2,h.example,1.1.1.1");
        let pending = json!({"spec": {"type": "LoadBalancer"}});
        assert_eq!(service_external_ip(&pending), "<pending>");
        let external = json!({"spec": {"type": "ExternalName", "externalName": "db.example"}});
        assert_eq!(service_external_ip(&external), "db.example");
        assert_eq!(service(&external, now())[4], json!("<none>"));
        assert_eq!(service(&external, now())[2], json!("<none>"));
    }

    #[test]
    fn selectors_are_printed_sorted() {
        let selector = json!({"matchLabels": {"z": "1", "app": "web"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "gone", "operator": "DoesNotExist"}]});
        assert_eq!(
            label_selector(Some(&selector)).as_deref(),
            Some("app=web,!gone,tier in (a,b),z=1")
        );
        assert_eq!(label_selector(None).as_deref(), Some(""));
        let bad = json!({"matchExpressions": [{"key": "k", "operator": "Near"}]});
        assert_eq!(label_selector(Some(&bad)), None);
    }

    #[test]
    fn node_status_roles_and_addresses() {
        let n = json!({"metadata": {"name": "n1", "labels": {
                "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "edge"}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "MemoryPressure", "status": "False"},
                                      {"type": "Ready", "status": "False"}],
                "addresses": [{"type": "Hostname", "address": "n1"},
                              {"type": "InternalIP", "address": "172.18.0.2"}],
                "nodeInfo": {"kubeletVersion": "v1.32.0", "architecture": "amd64",
                             "kernelVersion": "6.1.0"}}});
        assert_eq!(
            node(&n, now()),
            vec![
                json!("n1"),
                json!("NotReady,SchedulingDisabled"),
                json!("control-plane,edge"),
                json!("<unknown>"),
                json!("v1.32.0"),
                json!("172.18.0.2"),
                json!("<none>"),
                json!("<unknown>"),
                json!("6.1.0 (amd64)"),
                json!("<unknown>")
            ]
        );
        assert_eq!(node(&json!({}), now())[1], json!("Unknown"));
    }

    #[test]
    fn deployment_and_replica_set_cells() {
        let d = json!({"metadata": {"name": "web", "creationTimestamp": "2026-01-10T11:59:15Z"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [{"name": "c", "image": "nginx:1"},
                                                      {"name": "s", "image": "envoy"}]}}},
            "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}});
        assert_eq!(
            deployment(&d, now()),
            vec![
                json!("web"),
                json!("2/3"),
                json!(3),
                json!(2),
                json!("45s"),
                json!("c,s"),
                json!("nginx:1,envoy"),
                json!("app=web")
            ]
        );
        let rs = json!({"metadata": {"name": "web-1"}, "spec": {"replicas": 3}});
        assert_eq!(
            replica_set(&rs, now()),
            vec![
                json!("web-1"),
                json!(3),
                json!(0),
                json!(0),
                json!("<unknown>"),
                json!(""),
                json!(""),
                json!("<none>")
            ]
        );
    }

    #[test]
    fn event_times_counts_and_source() {
        let core = json!({"metadata": {"name": "e"}, "type": "Normal", "reason": "Pulled",
            "involvedObject": {"kind": "Pod", "name": "p"}, "message": " done \n",
            "source": {"component": "kubelet"},
            "firstTimestamp": "2026-01-10T11:00:00Z", "lastTimestamp": "2026-01-10T11:58:00Z"});
        assert_eq!(
            event(&core, now()),
            vec![
                json!("2m"),
                json!("Normal"),
                json!("Pulled"),
                json!("pod/p"),
                json!(""),
                json!("kubelet"),
                json!("done"),
                json!("60m"),
                json!(1),
                json!("e")
            ]
        );
        // An events.k8s.io-style event: eventTime, a series, reporting fields, no name.
        let series = json!({"metadata": {"name": "s"}, "involvedObject": {"kind": "Node"},
            "eventTime": "2026-01-10T10:00:00.123456Z", "reportingComponent": "ctrl",
            "reportingInstance": "ctrl-1",
            "series": {"count": 7, "lastObservedTime": "2026-01-10T11:59:30.000000Z"}});
        let cells = event(&series, now());
        assert_eq!(cells[0], json!("30s"));
        assert_eq!(cells[3], json!("node"));
        assert_eq!(cells[5], json!("ctrl, ctrl-1"));
        // 1h59m59.877s: HumanDuration truncates to whole minutes.
        assert_eq!(cells[7], json!("119m"));
        assert_eq!(cells[8], json!(7));
        let bare = json!({"metadata": {"name": "b"}});
        assert_eq!(event(&bare, now())[0], json!("<unknown>"));
    }

    #[test]
    fn data_counts_holders_and_daemon_sets() {
        let cm = json!({"metadata": {"name": "c"}, "data": {"a": "1"}, "binaryData": {"b": ""}});
        assert_eq!(config_map(&cm, now())[1], json!(2));
        let secret_value = json!({"metadata": {"name": "s"}, "type": "Opaque"});
        assert_eq!(
            secret(&secret_value, now())[1..3],
            [json!("Opaque"), json!(0)]
        );
        assert_eq!(lease(&json!({}), now())[1], json!(""));
        let ds = json!({"spec": {"template": {"spec": {}}}});
        let cells = daemon_set(&ds, now());
        assert_eq!(cells[6], json!("<none>"));
        assert_eq!(cells[10], json!("<none>"));
        assert_eq!(
            stateful_set(&json!({"spec": {"replicas": 2}}), now())[1],
            json!("0/2")
        );
    }

    #[test]
    fn crd_rows() {
        let crd_value = json!({"metadata": {"name": "ws.example.com",
                "creationTimestamp": "2026-01-10T11:00:00Z"},
            "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "W"},
                "versions": [{"name": "v2", "served": true, "storage": true},
                             {"name": "v1", "served": true}, {"name": "v0", "served": false}]},
            "status": {"conditions": [{"type": "Established", "status": "True"}]}});
        assert_eq!(
            crd(&crd_value),
            vec![
                json!("ws.example.com"),
                json!("Cluster"),
                json!("v1,v2(storage)"),
                json!("2026-01-10T11:00:00Z"),
                json!("example.com"),
                json!("W"),
                json!(""),
                json!(true)
            ]
        );
        assert_eq!(crd(&json!({}))[3], json!("0001-01-01T00:00:00Z"));
        assert_eq!(crd(&json!({}))[7], json!(false));
    }
}
