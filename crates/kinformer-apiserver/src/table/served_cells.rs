//! Row cells of the printers of the kinds served beyond the first groups, as kube-apiserver
//! v1.37.2's printers compute them (`pkg/printers/internalversion/printers.go`:
//! `printHorizontalPodAutoscaler`, `printIngressClass`, `printIngress`, `printNetworkPolicy`,
//! `printPriorityClass`, `printStorageClass`, `printEndpointSlice`,
//! `printPersistentVolumeClaim`, `printResourceQuota`, `printLimitRange`, `printPodTemplate`,
//! `printControllerRevision`). Quantities are written as the object holds them.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::cells::{age, containers, int, label_selector, label_set, list, name, or_none, text};

/// `listWithMoreString`: up to `max` items, comma-joined, `+ N more...` past them, `<unset>`
/// for none.
fn with_more(items: &[String], max: usize) -> String {
    let shown = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    if items.len() > max {
        return format!("{shown} + {} more...", items.len() - max);
    }
    if shown.is_empty() {
        "<unset>".into()
    } else {
        shown
    }
}

/// A quantity or number as text.
fn quantity(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => "0".into(),
    }
}

/// `formatHPAMetrics`: each metric's current value over its target, two at most.
fn hpa_metrics(object: &Value) -> String {
    let specs = list(object, "/spec/metrics");
    if specs.is_empty() {
        return "<none>".into();
    }
    let statuses = list(object, "/status/currentMetrics");
    let metrics: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| hpa_metric(spec, statuses.get(i)))
        .collect();
    let shown = metrics
        .iter()
        .take(2)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if metrics.len() > 2 {
        format!("{shown} + {} more...", metrics.len() - 2)
    } else {
        shown
    }
}

/// The member `key` of `value`, when present and not null.
fn field<'a>(value: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    value.and_then(|v| v.get(key)).filter(|v| !v.is_null())
}

/// One metric of `formatHPAMetrics`.
fn hpa_metric(spec: &Value, status: Option<&Value>) -> String {
    let (source, named) = match text(spec, "/type") {
        "Resource" => ("resource", true),
        "ContainerResource" => ("containerResource", true),
        "Pods" => ("pods", false),
        "Object" => ("object", false),
        "External" => ("external", false),
        _ => return "<unknown type>".into(),
    };
    let target = spec.pointer(&format!("/{source}/target"));
    let current = status.and_then(|s| s.pointer(&format!("/{source}/current")));
    let average = field(target, "averageValue");
    let (now, goal, suffix) = if let Some(average) = average {
        let now = field(current, "averageValue").map_or("<unknown>".into(), |v| quantity(Some(v)));
        let avg = if named || source == "pods" {
            ""
        } else {
            " (avg)"
        };
        (now, quantity(Some(average)), avg)
    } else if named {
        let percent = |v: Option<&Value>| v.and_then(Value::as_i64).map(|p| format!("{p}%"));
        let now = percent(field(current, "averageUtilization")).unwrap_or("<unknown>".into());
        let goal = percent(field(target, "averageUtilization")).unwrap_or("<auto>".into());
        (now, goal, "")
    } else {
        let now = field(current, "value").map_or("<unknown>".into(), |v| quantity(Some(v)));
        (now, quantity(field(target, "value")), "")
    };
    if named {
        let resource = text(spec, &format!("/{source}/name"));
        format!("{resource}: {now}/{goal}")
    } else {
        format!("{now}/{goal}{suffix}")
    }
}

/// `printHorizontalPodAutoscaler`.
pub fn horizontal_pod_autoscaler(object: &Value, now: Timestamp) -> Vec<Value> {
    let reference = format!(
        "{}/{}",
        text(object, "/spec/scaleTargetRef/kind"),
        text(object, "/spec/scaleTargetRef/name")
    );
    let min = object
        .pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .map_or("<unset>".into(), |m| m.to_string());
    vec![
        name(object),
        json!(reference),
        json!(hpa_metrics(object)),
        json!(min),
        json!(int(object, "/spec/maxReplicas")),
        json!(int(object, "/status/currentReplicas")),
        age(object, now),
    ]
}

/// `printIngressClass`.
pub fn ingress_class(object: &Value, now: Timestamp) -> Vec<Value> {
    let mut shown = text(object, "/metadata/name").to_owned();
    if text(
        object,
        "/metadata/annotations/ingressclass.kubernetes.io~1is-default-class",
    ) == "true"
    {
        shown.push_str(" (default)");
    }
    let parameters = match object.pointer("/spec/parameters").filter(|p| !p.is_null()) {
        None => "<none>".to_owned(),
        Some(p) => {
            let group = p
                .get("apiGroup")
                .and_then(Value::as_str)
                .map(|g| format!(".{g}"));
            format!(
                "{}{}/{}",
                text(p, "/kind"),
                group.unwrap_or_default(),
                text(p, "/name")
            )
        }
    };
    vec![
        json!(shown),
        json!(text(object, "/spec/controller")),
        json!(parameters),
        age(object, now),
    ]
}

/// `printIngress`: `formatHosts`, the load balancer's addresses, `formatPorts`.
pub fn ingress(object: &Value, now: Timestamp) -> Vec<Value> {
    let class = object
        .pointer("/spec/ingressClassName")
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    let rules = list(object, "/spec/rules");
    let hosts: Vec<&str> = rules
        .iter()
        .map(|r| text(r, "/host"))
        .filter(|h| !h.is_empty())
        .take(3)
        .collect();
    let hosts = match (hosts.is_empty(), rules.len() > 3) {
        (true, _) => "*".to_owned(),
        (false, true) => format!("{} + {} more...", hosts.join(","), rules.len() - 3),
        (false, false) => hosts.join(","),
    };
    let address: Vec<&str> = list(object, "/status/loadBalancer/ingress")
        .iter()
        .map(|i| match text(i, "/ip") {
            "" => text(i, "/hostname"),
            ip => ip,
        })
        .collect();
    let ports = if list(object, "/spec/tls").is_empty() {
        "80"
    } else {
        "80, 443"
    };
    vec![
        name(object),
        json!(class),
        json!(hosts),
        json!(address.join(",")),
        json!(ports),
        age(object, now),
    ]
}

/// `printNetworkPolicy`: the pod selector as `metav1.FormatLabelSelector`.
pub fn network_policy(object: &Value, now: Timestamp) -> Vec<Value> {
    let selector = match label_selector(object.pointer("/spec/podSelector")) {
        Some(text) if text.is_empty() => "<none>".to_owned(),
        Some(text) => text,
        None => "<error>".to_owned(),
    };
    vec![name(object), json!(selector), age(object, now)]
}

/// `printPriorityClass`, wide.
pub fn priority_class(object: &Value, now: Timestamp) -> Vec<Value> {
    let global = object
        .pointer("/globalDefault")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    vec![
        name(object),
        json!(int(object, "/value")),
        json!(global),
        age(object, now),
        json!(text(object, "/preemptionPolicy")),
    ]
}

/// `printStorageClass` (no `(default)` mark: kube-apiserver marks none in a Table).
pub fn storage_class(object: &Value, now: Timestamp) -> Vec<Value> {
    let or = |pointer: &str, default: &'static str| match text(object, pointer) {
        "" => default.to_owned(),
        given => given.to_owned(),
    };
    let expansion = object
        .pointer("/allowVolumeExpansion")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    vec![
        name(object),
        json!(text(object, "/provisioner")),
        json!(or("/reclaimPolicy", "Delete")),
        json!(or("/volumeBindingMode", "Immediate")),
        json!(expansion),
        age(object, now),
    ]
}

/// `printEndpointSlice`: `formatDiscoveryPorts`, `formatDiscoveryEndpoints`.
pub fn endpoint_slice(object: &Value, now: Timestamp) -> Vec<Value> {
    let ports: Vec<String> = list(object, "/ports")
        .iter()
        .map(
            |p| match (p.get("port").and_then(Value::as_i64), p.get("name")) {
                (Some(port), _) => port.to_string(),
                (None, Some(Value::String(name))) => name.clone(),
                _ => "*".into(),
            },
        )
        .collect();
    let addresses: Vec<String> = list(object, "/endpoints")
        .iter()
        .flat_map(|e| list(e, "/addresses"))
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    vec![
        name(object),
        json!(text(object, "/addressType")),
        json!(with_more(&ports, 3)),
        json!(with_more(&addresses, 3)),
        age(object, now),
    ]
}

/// `helper.GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order, each once.
fn access_modes(object: &Value) -> String {
    let given: Vec<&str> = list(object, "/status/accessModes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| given.contains(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `printPersistentVolumeClaim`.
pub fn persistent_volume_claim(object: &Value, now: Timestamp) -> Vec<Value> {
    let phase = if object.pointer("/metadata/deletionTimestamp").is_some() {
        "Terminating"
    } else {
        text(object, "/status/phase")
    };
    let volume = text(object, "/spec/volumeName");
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        let capacity = object.pointer("/status/capacity/storage");
        (quantity(capacity), access_modes(object))
    };
    let class = match text(
        object,
        "/metadata/annotations/volume.beta.kubernetes.io~1storage-class",
    ) {
        "" => text(object, "/spec/storageClassName"),
        annotated => annotated,
    };
    let unset = |pointer: &str| match object.pointer(pointer).and_then(Value::as_str) {
        Some(given) => given.to_owned(),
        None => "<unset>".to_owned(),
    };
    vec![
        name(object),
        json!(phase),
        json!(volume),
        json!(capacity),
        json!(modes),
        json!(class),
        json!(unset("/spec/volumeAttributesClassName")),
        age(object, now),
        json!(unset("/spec/volumeMode")),
    ]
}

/// `printResourceQuota`: `resource: used/hard` of each hard limit, sorted; `limits.*` apart.
pub fn resource_quota(object: &Value, now: Timestamp) -> Vec<Value> {
    let hard = object.pointer("/status/hard").and_then(Value::as_object);
    let mut resources: Vec<&String> = hard.into_iter().flat_map(|h| h.keys()).collect();
    resources.sort();
    let (mut requests, mut limits) = (Vec::new(), Vec::new());
    for resource in resources {
        let used = quantity(object.pointer(&format!("/status/used/{resource}")));
        let limit = quantity(hard.and_then(|h| h.get(resource)));
        let entry = format!("{resource}: {used}/{limit}");
        if resource.starts_with("limits.") {
            limits.push(entry);
        } else {
            requests.push(entry);
        }
    }
    vec![
        name(object),
        json!(requests.join(", ")),
        json!(limits.join(", ")),
        age(object, now),
    ]
}

/// `printLimitRange`: the name and the creation time itself.
pub fn limit_range(object: &Value) -> Vec<Value> {
    vec![
        name(object),
        json!(text(object, "/metadata/creationTimestamp")),
    ]
}

/// `printPodTemplate`: containers, images, `labels.FormatLabels` of the template.
pub fn pod_template(object: &Value) -> Vec<Value> {
    let [names, images] = containers(object, "/template/spec/containers");
    let labels = label_set(object.pointer("/template/metadata/labels"));
    vec![name(object), names, images, json!(or_none(&labels))]
}

/// `printControllerRevision`: the controller as `kind.group/name`, lower-cased kind.
pub fn controller_revision(object: &Value, now: Timestamp) -> Vec<Value> {
    let controller = list(object, "/metadata/ownerReferences")
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .map_or("<none>".to_owned(), |r| {
            let kind = text(r, "/kind").to_ascii_lowercase();
            match text(r, "/apiVersion").rsplit_once('/') {
                Some((group, _)) => format!("{kind}.{group}/{}", text(r, "/name")),
                None => format!("{kind}/{}", text(r, "/name")),
            }
        });
    vec![
        name(object),
        json!(controller),
        json!(int(object, "/revision")),
        age(object, now),
    ]
}
