//! What kube-apiserver's decoding and defaulting make of a written object of a served built-in
//! kind, on every create and update path (JSON, YAML, protobuf, every patch, apply):
//!
//! - decoding ([`decode`]): the fields the Go types always serialize (`status: {}`,
//!   `spec.strategy: {}`, a template's `metadata: {}`, a condition's `lastProbeTime: null`…),
//!   which every object decoded into them carries;
//! - [`apply_defaults`]: the defaulting functions, as tables of `(field, default)` per struct,
//!   each citing the Go file it follows;
//! - [`prepare_for_create`]: what the strategies and storages set on a new object after the
//!   field manager recorded its creator (so no manager owns it): a namespace's finalizer and
//!   phase, a pod's phase and QoS class, a Service's cluster IP and IP families.
//!
//! Admission plugins (service account, priority, tolerations) are neither and are not run.

use rand::Rng;
use serde_json::{Map, Value, json};

use super::zero_value::decode;
use crate::resources::ResourceType;

/// Fills in `value`'s zero value and defaults, as kube-apiserver decodes and defaults an object
/// of `resource`.
pub fn apply_defaults(value: &mut Value, resource: &ResourceType) {
    if resource.custom {
        return;
    }
    decode(value, resource);
    let Some(object) = value.as_object_mut() else {
        return;
    };
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Pod") => with_map(object, "spec", |spec| {
            pod_spec(spec);
            // SetDefaults_Pod: only pods, not templates.
            set(spec, "enableServiceLinks", json!(true));
        }),
        ("", "Service") => with_map(object, "spec", service_spec),
        ("", "Secret") => set(object, "type", json!("Opaque")),
        // A PodTemplate's `template` gets a pod template's defaults (the generated
        // `SetObjectDefaults_PodTemplate` runs `SetDefaults_PodSpec` on it).
        ("", "PodTemplate") => template(object),
        ("", "Namespace") => namespace_label(object),
        ("", "Node") => {
            with_map(object, "spec", node_pod_cidrs);
            crate::kinds::apply_defaults(object, resource);
        }
        ("apps", "Deployment") => with_map(object, "spec", deployment_spec),
        ("apps", "ReplicaSet") => with_map(object, "spec", |spec| {
            set(spec, "replicas", json!(1));
            template(spec);
        }),
        ("apps", "StatefulSet") => with_map(object, "spec", stateful_set_spec),
        ("apps", "DaemonSet") => with_map(object, "spec", daemon_set_spec),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            with_map(object, "spec", crd_spec);
        }
        _ => crate::kinds::apply_defaults(object, resource),
    }
}

/// `SetDefaults_CustomResourceDefinitionSpec` (apiextensions `v1/defaults.go`): the singular
/// name is the kind in lower case, the list kind the kind with `List`, conversion `None`.
fn crd_spec(spec: &mut Map<String, Value>) {
    with_map(spec, "names", |names| {
        let kind = names
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if names
            .get("singular")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
        {
            names.insert("singular".into(), kind.to_lowercase().into());
        }
        let list_kind = names
            .get("listKind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if list_kind.is_empty() && !kind.is_empty() {
            names.insert("listKind".into(), format!("{kind}List").into());
        }
    });
    set(spec, "conversion", json!({"strategy": "None"}));
}

/// What the strategies (`PrepareForCreate`) and the Service storage set on a new object of
/// `resource`: a pod's `Pending` phase and QoS class (`registry/core/pod/strategy.go`), a
/// namespace's `kubernetes` finalizer and `Active` phase (`registry/core/namespace/strategy.go`),
/// a Service's cluster IP and single-stack IPv4 families (`registry/core/service/storage`), a
/// DaemonSet's template generation ([`super::workloads`]).
pub fn prepare_for_create(value: &mut Value, resource: &ResourceType) {
    super::workloads::prepare_template_generation_for_create(value, resource);
    let Some(object) = value.as_object_mut() else {
        return;
    };
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Pod") if !resource.custom => {
            let qos = qos_class(object);
            with_map(object, "status", |status| {
                set(status, "phase", json!("Pending"));
                set(status, "qosClass", json!(qos));
            });
        }
        ("", "Namespace") if !resource.custom => {
            with_map(object, "spec", |spec| {
                set(spec, "finalizers", json!(["kubernetes"]));
            });
            with_map(object, "status", |status| {
                set(status, "phase", json!("Active"))
            });
        }
        ("", "Service") if !resource.custom => with_map(object, "spec", allocate_cluster_ip),
        _ if !resource.custom => crate::kinds::prepare_for_create(object, resource),
        _ => {}
    }
}

/// Sets `key` to `default` unless it has a value (`if obj.X == nil/"" { obj.X = default }`).
fn set(object: &mut Map<String, Value>, key: &str, default: Value) {
    let unset = match object.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    };
    if unset {
        object.insert(key.to_owned(), default);
    }
}

/// Runs `f` on the map at `key` (created when absent or null).
fn with_map(object: &mut Map<String, Value>, key: &str, f: impl FnOnce(&mut Map<String, Value>)) {
    let entry = object.entry(key).or_insert_with(|| json!({}));
    if entry.is_null() {
        *entry = json!({});
    }
    if let Some(map) = entry.as_object_mut() {
        f(map);
    }
}

/// Runs `f` on every map element of the list at `key`, if there is one.
fn each(object: &mut Map<String, Value>, key: &str, mut f: impl FnMut(&mut Map<String, Value>)) {
    if let Some(items) = object.get_mut(key).and_then(Value::as_array_mut) {
        items
            .iter_mut()
            .filter_map(Value::as_object_mut)
            .for_each(&mut f);
    }
}

/// Runs `f` on the map at `key` if it is there.
fn within(object: &mut Map<String, Value>, key: &str, f: impl FnOnce(&mut Map<String, Value>)) {
    if let Some(map) = object.get_mut(key).and_then(Value::as_object_mut) {
        f(map);
    }
}

/// A workload's pod template (`spec.template.spec`).
fn template(spec: &mut Map<String, Value>) {
    within(spec, "template", |template| {
        within(template, "spec", pod_spec)
    });
}

/// `core/v1/defaults.go` `SetDefaults_PodSpec` and, through the generated defaulters, the
/// containers, volumes and probes inside.
fn pod_spec(spec: &mut Map<String, Value>) {
    set(spec, "dnsPolicy", json!("ClusterFirst"));
    set(spec, "restartPolicy", json!("Always"));
    set(spec, "securityContext", json!({}));
    set(spec, "terminationGracePeriodSeconds", json!(30));
    set(spec, "schedulerName", json!("default-scheduler"));
    service_account_alias(spec);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        each(spec, list, container);
    }
    each(spec, "volumes", volume);
}

/// The v1 conversion of `serviceAccount`, the deprecated alias of `serviceAccountName`
/// (`core/v1/conversion.go`): read as the name when the name is empty, written as the name.
pub fn service_account_alias(spec: &mut Map<String, Value>) {
    let named = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or("");
    let name = match named("serviceAccountName") {
        "" => named("serviceAccount"),
        name => name,
    }
    .to_owned();
    if name.is_empty() {
        spec.remove("serviceAccount");
    } else {
        spec.insert("serviceAccountName".into(), name.clone().into());
        spec.insert("serviceAccount".into(), name.into());
    }
}

/// `SetDefaults_Container`, `SetDefaults_ContainerPort`, `SetDefaults_EnvVar` (field refs),
/// `SetDefaults_Probe` and `SetDefaults_HTTPGetAction`.
fn container(container: &mut Map<String, Value>) {
    let image = container.get("image").and_then(Value::as_str).unwrap_or("");
    let policy = if image_is_latest(image) {
        "Always"
    } else {
        "IfNotPresent"
    };
    set(container, "imagePullPolicy", json!(policy));
    set(
        container,
        "terminationMessagePath",
        json!("/dev/termination-log"),
    );
    set(container, "terminationMessagePolicy", json!("File"));
    set(container, "resources", json!({}));
    each(container, "ports", |port| {
        set(port, "protocol", json!("TCP"))
    });
    each(container, "env", |env| {
        within(env, "valueFrom", |from| {
            within(from, "fieldRef", |field| {
                set(field, "apiVersion", json!("v1"))
            });
        });
    });
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        within(container, probe, |probe| {
            set(probe, "timeoutSeconds", json!(1));
            set(probe, "periodSeconds", json!(10));
            set(probe, "successThreshold", json!(1));
            set(probe, "failureThreshold", json!(3));
            within(probe, "httpGet", |get| {
                set(get, "path", json!("/"));
                set(get, "scheme", json!("HTTP"));
            });
        });
    }
}

/// The pod's QoS class (`pkg/apis/core/helper/qos`, set by the pod strategy on create):
/// `BestEffort` without requests or limits, `Guaranteed` when every container's limits for
/// cpu and memory are set and its requests equal them, else `Burstable`.
fn qos_class(pod: &Map<String, Value>) -> &'static str {
    let containers: Vec<&Value> = ["initContainers", "containers"]
        .iter()
        .filter_map(|list| pod.get("spec")?.get(*list)?.as_array())
        .flatten()
        .collect();
    fn resources<'v>(container: &'v Value, kind: &str) -> Option<&'v Value> {
        container.get("resources")?.get(kind)
    }
    let empty = |v: Option<&Value>| {
        v.and_then(|v| v.as_object().map(Map::is_empty))
            .unwrap_or(true)
    };
    if containers
        .iter()
        .all(|c| empty(resources(c, "requests")) && empty(resources(c, "limits")))
    {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let limits = resources(c, "limits").unwrap_or(&Value::Null);
        let requests = resources(c, "requests").unwrap_or(limits);
        ["cpu", "memory"]
            .iter()
            .all(|r| limits.get(*r).is_some() && limits.get(*r) == requests.get(*r))
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// Whether an image pulls `Always` by default: tagged `:latest` or not tagged (and not pinned
/// by digest).
fn image_is_latest(image: &str) -> bool {
    if image.contains('@') {
        return false;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.rsplit_once(':') {
        Some((_, tag)) => tag == "latest",
        None => true,
    }
}

/// `SetDefaults_Volume` (no source is an `emptyDir`) and the `defaultMode: 420` of
/// `SetDefaults_ConfigMapVolumeSource`, `…SecretVolumeSource`, `…ProjectedVolumeSource`.
pub fn volume(volume: &mut Map<String, Value>) {
    if volume.keys().all(|k| k == "name") {
        volume.insert("emptyDir".into(), json!({}));
    }
    for source in ["configMap", "secret", "projected", "downwardAPI"] {
        within(volume, source, |source| {
            set(source, "defaultMode", json!(420))
        });
    }
}

/// The v1 conversion of a Node's `podCIDR`, the singular of `podCIDRs` (`core/v1/conversion.go`
/// v1.37.2, :212-227 decoding, :199-209 encoding): a `podCIDR` that `podCIDRs` lacks or does
/// not start with makes `podCIDRs` that one range (it is authoritative), and `podCIDR` is
/// written as the first of `podCIDRs`.
fn node_pod_cidrs(spec: &mut Map<String, Value>) {
    let single = spec
        .get("podCIDR")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let first = spec
        .get("podCIDRs")
        .and_then(Value::as_array)
        .and_then(|list| list.first())
        .cloned();
    if !single.is_empty() && first.as_ref().and_then(Value::as_str) != Some(single.as_str()) {
        spec.insert("podCIDRs".into(), json!([single]));
    } else if let Some(first) = first {
        spec.insert("podCIDR".into(), first);
    }
}

/// `apps/v1/defaults.go` `SetDefaults_Deployment`.
fn deployment_spec(spec: &mut Map<String, Value>) {
    set(spec, "replicas", json!(1));
    with_map(spec, "strategy", |strategy| {
        set(strategy, "type", json!("RollingUpdate"));
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            with_map(strategy, "rollingUpdate", |rolling| {
                set(rolling, "maxUnavailable", json!("25%"));
                set(rolling, "maxSurge", json!("25%"));
            });
        }
    });
    set(spec, "revisionHistoryLimit", json!(10));
    set(spec, "progressDeadlineSeconds", json!(600));
    template(spec);
}

/// `apps/v1/defaults.go` `SetDefaults_StatefulSet` (v1.37.2, :100): an update strategy without
/// a type becomes `RollingUpdate` with a `rollingUpdate` (one given a type keeps what it has);
/// a `rollingUpdate` of a rolling strategy gets `partition: 0` and, with the
/// `MaxUnavailableStatefulSet` gate (on by default from 1.37, `pkg/features/kube_features.go`),
/// `maxUnavailable: 1` (:114-124).
fn stateful_set_spec(spec: &mut Map<String, Value>) {
    set(spec, "podManagementPolicy", json!("OrderedReady"));
    with_map(spec, "updateStrategy", |strategy| {
        let typed = strategy
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty());
        if !typed {
            strategy.insert("type".into(), json!("RollingUpdate"));
            with_map(strategy, "rollingUpdate", |_| {});
        }
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            within(strategy, "rollingUpdate", |rolling| {
                set(rolling, "partition", json!(0));
                set(rolling, "maxUnavailable", json!(1));
            });
        }
    });
    with_map(spec, "persistentVolumeClaimRetentionPolicy", |policy| {
        set(policy, "whenDeleted", json!("Retain"));
        set(policy, "whenScaled", json!("Retain"));
    });
    set(spec, "replicas", json!(1));
    set(spec, "revisionHistoryLimit", json!(10));
    template(spec);
}

/// `apps/v1/defaults.go` `SetDefaults_DaemonSet`.
fn daemon_set_spec(spec: &mut Map<String, Value>) {
    with_map(spec, "updateStrategy", |strategy| {
        set(strategy, "type", json!("RollingUpdate"));
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            with_map(strategy, "rollingUpdate", |rolling| {
                set(rolling, "maxUnavailable", json!(1));
                set(rolling, "maxSurge", json!(0));
            });
        }
    });
    set(spec, "revisionHistoryLimit", json!(10));
    template(spec);
}

/// `core/v1/defaults.go` `SetDefaults_Service`.
fn service_spec(spec: &mut Map<String, Value>) {
    set(spec, "sessionAffinity", json!("None"));
    set(spec, "type", json!("ClusterIP"));
    each(spec, "ports", |port| {
        set(port, "protocol", json!("TCP"));
        let target_unset = match port.get("targetPort") {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => n.as_i64() == Some(0),
            Some(Value::String(s)) => s.is_empty(),
            Some(_) => false,
        };
        if target_unset && let Some(number) = port.get("port").cloned() {
            port.insert("targetPort".into(), number);
        }
    });
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if kind == "NodePort" || kind == "LoadBalancer" {
        set(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        set(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
    if kind != "ExternalName" {
        set(spec, "internalTrafficPolicy", json!("Cluster"));
    }
}

/// A new Service's cluster IP (unless it is headless or an ExternalName) and IP families.
fn allocate_cluster_ip(spec: &mut Map<String, Value>) {
    if spec.get("type").and_then(Value::as_str) == Some("ExternalName") {
        return;
    }
    set(spec, "clusterIP", json!(random_cluster_ip()));
    if let Some(ip) = spec.get("clusterIP").cloned() {
        set(spec, "clusterIPs", json!([ip]));
    }
    set(spec, "ipFamilies", json!(["IPv4"]));
    set(spec, "ipFamilyPolicy", json!("SingleStack"));
}

/// A cluster IP in kube-apiserver's default service range, 10.96.0.0/12 (the first addresses
/// left to `kubernetes` and DNS).
fn random_cluster_ip() -> String {
    let mut rng = rand::rng();
    format!(
        "10.{}.{}.{}",
        rng.random_range(96..112),
        rng.random_range(0..=255),
        rng.random_range(11..=254)
    )
}

/// `SetDefaults_Namespace`: the `kubernetes.io/metadata.name` label.
fn namespace_label(object: &mut Map<String, Value>) {
    let name = object
        .get("metadata")
        .and_then(|m| m.get("name"))
        .cloned()
        .unwrap_or(Value::Null);
    with_map(object, "metadata", |metadata| {
        with_map(metadata, "labels", |labels| {
            set(labels, "kubernetes.io/metadata.name", name);
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_pull_always_only_when_latest_or_untagged() {
        assert!(image_is_latest("nginx"));
        assert!(image_is_latest("nginx:latest"));
        assert!(image_is_latest("localhost:5000/nginx"));
        assert!(!image_is_latest("localhost:5000/nginx:1.27"));
        assert!(!image_is_latest("nginx:1.27"));
        assert!(!image_is_latest("nginx@sha256:abc"));
    }

    /// `SetDefaults_StatefulSet` (apps `v1/defaults.go:105-124`, 1.37's gate on): a strategy
    /// without a type gets a rolling one with `partition: 0` and `maxUnavailable: 1`; a given
    /// `maxUnavailable` stays; a `RollingUpdate` type given without `rollingUpdate` gets none.
    #[test]
    fn a_statefulsets_rolling_update_is_defaulted_with_max_unavailable() {
        let mut spec = Map::new();
        stateful_set_spec(&mut spec);
        assert_eq!(
            spec["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}})
        );
        let mut spec = json!({"updateStrategy": {"rollingUpdate": {"maxUnavailable": "50%"}}});
        if let Some(spec) = spec.as_object_mut() {
            stateful_set_spec(spec);
        }
        assert_eq!(
            spec["updateStrategy"]["rollingUpdate"]["maxUnavailable"],
            "50%"
        );
        assert_eq!(spec["updateStrategy"]["rollingUpdate"]["partition"], 0);
        let mut spec = json!({"updateStrategy": {"type": "RollingUpdate"}});
        if let Some(spec) = spec.as_object_mut() {
            stateful_set_spec(spec);
        }
        assert_eq!(spec["updateStrategy"], json!({"type": "RollingUpdate"}));
    }

    /// `core/v1/conversion.go:199-227`: `podCIDR` fills `podCIDRs` and wins over a list that
    /// does not start with it; `podCIDRs` alone fills `podCIDR`.
    #[test]
    fn a_nodes_pod_cidrs_follow_its_pod_cidr() {
        let converted = |spec: Value| {
            let mut spec = spec;
            if let Some(map) = spec.as_object_mut() {
                node_pod_cidrs(map);
            }
            spec
        };
        assert_eq!(
            converted(json!({"podCIDR": "10.0.1.0/24"})),
            json!({"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24"]})
        );
        assert_eq!(
            converted(json!({"podCIDRs": ["10.0.2.0/24", "fd00::/64"]})),
            json!({"podCIDR": "10.0.2.0/24", "podCIDRs": ["10.0.2.0/24", "fd00::/64"]})
        );
        assert_eq!(
            converted(json!({"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.2.0/24", "fd00::/64"]})),
            json!({"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24"]})
        );
        assert_eq!(converted(json!({})), json!({}));
    }
}
