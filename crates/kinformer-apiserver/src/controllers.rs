//! A minimal kube-controller-manager and kubelet, level-triggered: after every write
//! transaction the loop compares what is stored with what should be and writes the difference,
//! through the same write path as API requests (so every step is a watch event).
//!
//! - Deployment → ReplicaSet: the ReplicaSet whose pod template equals the Deployment's gets
//!   `spec.replicas`; a changed template gets a new ReplicaSet (`NAME-HASH`, labels and selector
//!   carry `pod-template-hash`, a controller owner reference, a revision annotation) and the old
//!   ones are scaled to 0 — a rollout in one step.
//! - ReplicaSet → Pods: missing pods are created from the template (`generateName`, owner
//!   reference), extra ones deleted.
//! - Pods: Pending becomes Running as a kubelet reports it: on a stored Node (a Ready
//!   `kinformer-node` created when there is none), a pod IP no other pod holds, the conditions
//!   `PodReadyToStartContainers`, `Initialized`, `Ready`, `ContainersReady`, `PodScheduled`, and
//!   per container its state, resolved image, `imageID` and `containerID`.
//! - Status: ReplicaSets and Deployments report replicas, ready/available/updated replicas,
//!   `observedGeneration` and the conditions `kubectl rollout status` waits for.
//! - Garbage collection ([`garbage_collector`]): objects whose owners are all gone are
//!   deleted; `propagationPolicy` Foreground and Orphan finished as kube-controller-manager
//!   finishes them.
//! - Namespaces ([`namespaces`]): a Terminating namespace's objects are deleted, then it is
//!   finalized.
//! - Graceful deletion ([`kubelet`]): a pod on a node marked for deletion stays Terminating
//!   for a second, then the kubelet removes it (a timer wakes the loop for it).

mod events;
mod garbage_collector;
mod kubelet;
mod namespaces;

use events::Source;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use jiff::Timestamp;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::resources::ResourceType;
use super::store::Store;
use super::write::{DeleteOptions, create_object, delete_object_with, update_object};

/// The most passes [`settle`] makes; a seed that still changes after this many is left to the
/// background loop.
const SETTLE_PASSES: usize = 16;

/// Reconciles until a pass writes nothing, so a seeded cluster is in its steady state (pods
/// Running, statuses reported) before the first client request: a `--churn 0` server is static.
pub fn settle(store: &Store, minor: u32) {
    node_names(store, minor);
    for _ in 0..SETTLE_PASSES {
        let before = store.resource_version();
        reconcile(store, minor);
        if store.resource_version() == before {
            return;
        }
    }
}

/// How often the loop wakes without a write, for what waits on time (a Terminating pod's
/// containers stopping).
const TICK: std::time::Duration = std::time::Duration::from_millis(500);

/// Starts the loop on the current runtime.
pub fn spawn(store: Arc<Store>, minor: u32) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut writes = store.subscribe();
        let mut waiting = reconcile(&store, minor);
        loop {
            let woke = if waiting {
                tokio::time::timeout(TICK, writes.recv()).await
            } else {
                Ok(writes.recv().await)
            };
            match woke {
                Ok(Err(broadcast::error::RecvError::Closed)) => return,
                Ok(_) | Err(_) => {
                    while writes.try_recv().is_ok() {}
                    waiting = reconcile(&store, minor);
                }
            }
        }
    })
}

/// The resource types the controllers write.
struct Kinds {
    deployments: Arc<ResourceType>,
    replicasets: Arc<ResourceType>,
    pods: Arc<ResourceType>,
}

/// The stored objects of one resource type, as JSON values.
fn objects(store: &Store, resource: &ResourceType) -> Vec<Value> {
    store
        .write(|txn| Ok(txn.objects(&resource.key())))
        .unwrap_or_default()
        .iter()
        .filter_map(|o| o.to_value().ok())
        .collect()
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn number(value: &Value, pointer: &str) -> i64 {
    value.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The uid of `object`'s controlling owner of kind `kind`.
fn controller_uid<'a>(object: &'a Value, kind: &str) -> Option<&'a str> {
    object
        .pointer("/metadata/ownerReferences")?
        .as_array()?
        .iter()
        .find(|r| r.get("kind").and_then(Value::as_str) == Some(kind))
        .and_then(|r| r.get("uid")?.as_str())
}

fn owned_by<'a>(items: &'a [Value], owner: &Value, kind: &str) -> Vec<&'a Value> {
    let uid = text(owner, "/metadata/uid");
    items
        .iter()
        .filter(|item| controller_uid(item, kind) == Some(uid))
        .collect()
}

fn is_deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
}

/// One pass over every Deployment, ReplicaSet and Pod (and the collector's and the namespace
/// controller's objects); whether something waits on time (a Terminating pod).
fn reconcile(store: &Store, minor: u32) -> bool {
    let registry = store.registry();
    let (Some(deployments), Some(replicasets), Some(pods)) = (
        registry.find("apps", "v1", "deployments"),
        registry.find("apps", "v1", "replicasets"),
        registry.find("", "v1", "pods"),
    ) else {
        return false;
    };
    let kinds = Kinds {
        deployments,
        replicasets,
        pods,
    };
    garbage_collector::collect(store);
    namespaces::finish_terminating(store);
    let deployments = objects(store, &kinds.deployments);
    let replicasets = objects(store, &kinds.replicasets);
    let pods = objects(store, &kinds.pods);
    let terminating = kubelet::finish_terminating(store, &kinds.pods, &pods);
    let probing = kubelet::probe_readiness(store, &kinds.pods, &pods);
    let waiting = terminating || probing;
    for deployment in deployments.iter().filter(|d| !is_deleting(d)) {
        reconcile_deployment(
            store,
            &kinds,
            deployment,
            &owned_by(&replicasets, deployment, "Deployment"),
        );
    }
    for replicaset in replicasets.iter().filter(|r| !is_deleting(r)) {
        reconcile_replicaset(
            store,
            &kinds,
            replicaset,
            &owned_by(&pods, replicaset, "ReplicaSet"),
        );
    }
    let pending: Vec<&Value> = pods
        .iter()
        .filter(|pod| text(pod, "/status/phase") == "Pending" && !is_deleting(pod))
        .collect();
    if pending.is_empty() {
        return waiting;
    }
    let nodes = node_names(store, minor);
    let mut used = pod_ips(&pods);
    for pod in pending {
        run_pod(store, &kinds, pod, &nodes, &mut used);
    }
    waiting
}

/// Writes `updated` over `current` when they differ (a conflict is retried by the next pass).
fn update_if_changed(store: &Store, resource: &Arc<ResourceType>, current: &Value, updated: Value) {
    if *current != updated
        && let Err(e) = update_object(store, resource, updated)
    {
        tracing::debug!("controller update skipped: {}", e.message);
    }
}

/// Deletes an object as a controller's DELETE does (a pod gracefully).
fn delete(store: &Store, resource: &ResourceType, object: &Value) {
    let namespace = text(object, "/metadata/namespace");
    let name = text(object, "/metadata/name");
    let options = DeleteOptions::default();
    if let Err(e) = delete_object_with(store, resource, namespace, name, &options) {
        tracing::debug!("controller delete skipped: {}", e.message);
    }
}

/// A template without the `pod-template-hash` label (what a ReplicaSet's is compared by).
fn without_hash(template: &Value) -> Value {
    let mut template = template.clone();
    if let Some(labels) = template
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove("pod-template-hash");
    }
    template
}

/// kube-controller-manager's pod-template-hash shape: FNV-1a of the template, its decimal
/// digits spelled in Kubernetes' safe alphabet.
fn pod_template_hash(template: &Value) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let hash = template.to_string().bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    hash.to_string()
        .bytes()
        .map(|b| char::from(ALPHABET[usize::from(b) % ALPHABET.len()]))
        .collect()
}

fn revision(replicaset: &Value) -> i64 {
    text(
        replicaset,
        "/metadata/annotations/deployment.kubernetes.io~1revision",
    )
    .parse()
    .unwrap_or(0)
}

fn reconcile_deployment(store: &Store, kinds: &Kinds, deployment: &Value, owned: &[&Value]) {
    let desired = deployment
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let template = deployment
        .pointer("/spec/template")
        .cloned()
        .unwrap_or(Value::Null);
    let current = owned
        .iter()
        .find(|rs| {
            rs.pointer("/spec/template")
                .is_some_and(|t| without_hash(t) == template)
        })
        .or_else(|| {
            owned
                .iter()
                .find(|rs| rs.pointer("/spec/template").is_none())
        });
    let Some(current) = current else {
        let next_revision = owned.iter().map(|rs| revision(rs)).max().unwrap_or(0) + 1;
        // The first ReplicaSet starts at the desired count; a rollout's new one at 0, scaled
        // up step by step.
        let replicas = if owned.is_empty() { desired } else { 0 };
        create_replicaset(store, deployment, &template, replicas, next_revision);
        return;
    };
    let olds: Vec<&Value> = owned
        .iter()
        .filter(|rs| !std::ptr::eq(**rs, *current))
        .copied()
        .collect();
    roll(store, kinds, deployment, current, &olds, desired);
    let old_replicas: i64 = owned
        .iter()
        .filter(|rs| !std::ptr::eq(**rs, *current))
        .map(|rs| number(rs, "/status/replicas"))
        .sum();
    let updated = number(current, "/status/replicas");
    let ready: i64 = owned
        .iter()
        .map(|rs| number(rs, "/status/readyReplicas"))
        .sum();
    let available: i64 = owned
        .iter()
        .map(|rs| number(rs, "/status/availableReplicas"))
        .sum();
    let complete = updated == desired && old_replicas == 0 && available >= updated;
    let mut status = json!({
        "observedGeneration": number(deployment, "/metadata/generation"),
        "replicas": updated + old_replicas,
        "updatedReplicas": updated,
        "readyReplicas": ready,
        "availableReplicas": available,
        "conditions": [
            condition(deployment, "Available", available >= desired, "MinimumReplicasAvailable", "Deployment has minimum availability."),
            condition(deployment, "Progressing", true,
                if complete { "NewReplicaSetAvailable" } else { "ReplicaSetUpdated" },
                &format!("ReplicaSet \"{}\" is progressing.", text(current, "/metadata/name"))),
        ],
    });
    if updated + old_replicas > available
        && let Some(map) = status.as_object_mut()
    {
        map.insert(
            "unavailableReplicas".into(),
            (updated + old_replicas - available).into(),
        );
    }
    let mut updated_deployment = deployment.clone();
    updated_deployment["status"] = status;
    update_if_changed(store, &kinds.deployments, deployment, updated_deployment);
}

/// How a Deployment replaces its pods (`spec.strategy`).
enum Strategy {
    /// All old pods go before new ones come.
    Recreate,
    /// At most `surge` pods over the desired count, at most `unavailable` under it.
    Rolling { surge: i64, unavailable: i64 },
}

/// The Deployment's strategy, its `maxSurge` and `maxUnavailable` (25% each by default)
/// resolved against `desired`: surge rounded up, unavailability down, never both 0
/// (`pkg/controller/deployment/util/deployment_util.go`, `ResolveFenceposts`).
fn strategy(deployment: &Value, desired: i64) -> Strategy {
    if text(deployment, "/spec/strategy/type") == "Recreate" {
        return Strategy::Recreate;
    }
    let resolve = |pointer: &str, round_up: bool| -> i64 {
        match deployment.pointer(pointer) {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
            Some(Value::String(p)) if p.ends_with('%') => {
                let percent: i64 = p.trim_end_matches('%').parse().unwrap_or(25);
                let scaled = desired * percent;
                if round_up {
                    (scaled + 99) / 100
                } else {
                    scaled / 100
                }
            }
            _ => {
                let scaled = desired * 25;
                if round_up {
                    (scaled + 99) / 100
                } else {
                    scaled / 100
                }
            }
        }
    };
    let surge = resolve("/spec/strategy/rollingUpdate/maxSurge", true);
    let mut unavailable = resolve("/spec/strategy/rollingUpdate/maxUnavailable", false);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    Strategy::Rolling { surge, unavailable }
}

/// One step of a rollout (`pkg/controller/deployment/rolling.go`, `recreate.go`): the new
/// ReplicaSet scaled up within the surge, the old ones down (oldest first) while enough pods
/// stay available; with Recreate, the old ones to 0 first, then the new one up.
fn roll(
    store: &Store,
    kinds: &Kinds,
    deployment: &Value,
    new: &Value,
    olds: &[&Value],
    desired: i64,
) {
    match strategy(deployment, desired) {
        Strategy::Recreate => {
            for old in olds {
                scale(store, kinds, deployment, old, 0);
            }
            let old_pods: i64 = olds.iter().map(|rs| number(rs, "/status/replicas")).sum();
            if old_pods == 0 {
                scale(store, kinds, deployment, new, desired);
            }
        }
        Strategy::Rolling { surge, unavailable } => {
            let total: i64 = replicas(new) + olds.iter().map(|rs| replicas(rs)).sum::<i64>();
            if replicas(new) > desired {
                scale(store, kinds, deployment, new, desired);
            } else if replicas(new) < desired && total < desired + surge {
                let up = (replicas(new) + desired + surge - total).min(desired);
                scale(store, kinds, deployment, new, up);
            }
            let new_unavailable = replicas(new) - number(new, "/status/availableReplicas");
            let mut budget = total - (desired - unavailable) - new_unavailable.max(0);
            let mut olds: Vec<&Value> = olds.to_vec();
            olds.sort_by_key(|rs| revision(rs));
            for old in olds {
                if budget <= 0 {
                    break;
                }
                let down = replicas(old).min(budget);
                if down > 0 {
                    scale(store, kinds, deployment, old, replicas(old) - down);
                    budget -= down;
                }
            }
        }
    }
}

/// A ReplicaSet's `spec.replicas`.
fn replicas(replicaset: &Value) -> i64 {
    number(replicaset, "/spec/replicas")
}

/// A condition, keeping its transition time while its status is unchanged (no write loop).
fn condition(object: &Value, kind: &str, holds: bool, reason: &str, message: &str) -> Value {
    let status = if holds { "True" } else { "False" };
    let previous = object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|all| {
            all.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
        });
    let since = previous
        .filter(|c| c.get("status").and_then(Value::as_str) == Some(status))
        .and_then(|c| c.get("lastTransitionTime").cloned())
        .unwrap_or_else(|| now().into());
    json!({"type": kind, "status": status, "reason": reason, "message": message,
           "lastTransitionTime": since, "lastUpdateTime": since})
}

fn now() -> String {
    Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn owner_reference(owner: &Value) -> Value {
    json!([{"apiVersion": text(owner, "/apiVersion"), "kind": text(owner, "/kind"),
        "name": text(owner, "/metadata/name"), "uid": text(owner, "/metadata/uid"),
        "controller": true, "blockOwnerDeletion": true}])
}

fn create_replicaset(
    store: &Store,
    deployment: &Value,
    template: &Value,
    replicas: i64,
    revision: i64,
) {
    let hash = pod_template_hash(template);
    let mut labels: BTreeMap<String, Value> = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|l| l.clone().into_iter().collect())
        .unwrap_or_default();
    labels.insert("pod-template-hash".into(), hash.clone().into());
    let mut selector = deployment
        .pointer("/spec/selector")
        .cloned()
        .unwrap_or_else(|| json!({}));
    selector["matchLabels"]["pod-template-hash"] = hash.clone().into();
    let mut template = template.clone();
    template["metadata"]["labels"] = json!(labels);
    let replicaset = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {
            "name": format!("{}-{hash}", text(deployment, "/metadata/name")),
            "namespace": text(deployment, "/metadata/namespace"),
            "labels": labels,
            "annotations": {"deployment.kubernetes.io/revision": revision.to_string()},
            "ownerReferences": owner_reference(deployment),
        },
        "spec": {"replicas": replicas, "selector": selector, "template": template},
    });
    match create_object(store, replicaset) {
        Ok(created) if replicas > 0 => {
            let name = created.name().to_owned();
            let message = format!("Scaled up replica set {name} from 0 to {replicas}");
            events::record(
                store,
                deployment,
                None,
                "ScalingReplicaSet",
                &message,
                DEPLOYMENTS,
            );
        }
        Ok(_) => {}
        Err(e) => tracing::debug!("controller create skipped: {}", e.message),
    }
}

/// The deployment controller, as events name it.
const DEPLOYMENTS: Source<'static> = Source::Controller("deployment-controller");
/// The replicaset controller, as events name it.
const REPLICASETS: Source<'static> = Source::Controller("replicaset-controller");

/// Scales a Deployment's ReplicaSet, recording `ScalingReplicaSet` on the Deployment.
fn scale(store: &Store, kinds: &Kinds, deployment: &Value, replicaset: &Value, replicas: i64) {
    let before = number(replicaset, "/spec/replicas");
    if before == replicas && replicaset.pointer("/spec/replicas").is_some() {
        return;
    }
    let mut scaled = replicaset.clone();
    scaled["spec"]["replicas"] = replicas.into();
    if update_object(store, &kinds.replicasets, scaled).is_ok() {
        let direction = if replicas > before { "up" } else { "down" };
        let name = text(replicaset, "/metadata/name");
        let message = format!("Scaled {direction} replica set {name} from {before} to {replicas}");
        events::record(
            store,
            deployment,
            None,
            "ScalingReplicaSet",
            &message,
            DEPLOYMENTS,
        );
    }
}

fn reconcile_replicaset(store: &Store, kinds: &Kinds, replicaset: &Value, pods: &[&Value]) {
    let desired = usize::try_from(number(replicaset, "/spec/replicas")).unwrap_or(0);
    let live: Vec<&&Value> = pods.iter().filter(|p| !is_deleting(p)).collect();
    if let Some(template) = replicaset.pointer("/spec/template") {
        for _ in live.len()..desired {
            create_pod(store, replicaset, template);
        }
    }
    for extra in live.iter().skip(desired) {
        delete(store, &kinds.pods, extra);
        let message = format!("Deleted pod: {}", text(extra, "/metadata/name"));
        events::record(
            store,
            replicaset,
            None,
            "SuccessfulDelete",
            &message,
            REPLICASETS,
        );
    }
    let running = live
        .iter()
        .filter(|p| kubelet::is_ready(p))
        .count()
        .min(desired);
    let mut updated = replicaset.clone();
    updated["status"] = json!({
        "replicas": live.len(),
        "fullyLabeledReplicas": live.len(),
        "readyReplicas": running,
        "availableReplicas": running,
        "observedGeneration": number(replicaset, "/metadata/generation"),
    });
    update_if_changed(store, &kinds.replicasets, replicaset, updated);
}

fn create_pod(store: &Store, replicaset: &Value, template: &Value) {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "generateName": format!("{}-", text(replicaset, "/metadata/name")),
            "namespace": text(replicaset, "/metadata/namespace"),
            "labels": template.pointer("/metadata/labels").cloned().unwrap_or_else(|| json!({})),
            "ownerReferences": owner_reference(replicaset),
        },
        "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
    });
    match create_object(store, pod) {
        Ok(created) => {
            let message = format!("Created pod: {}", created.name());
            events::record(
                store,
                replicaset,
                None,
                "SuccessfulCreate",
                &message,
                REPLICASETS,
            );
        }
        Err(e) => tracing::debug!("controller create skipped: {}", e.message),
    }
}

/// The name of the Node the controllers create when the store has none, for their pods to run on.
const FAKE_NODE: &str = "kinformer-node";

/// The names of the stored Nodes; when there are none, [`FAKE_NODE`] (created, Ready, as a
/// kubelet of release 1.`minor` registers its node: its version, OS, runtime and capacity).
fn node_names(store: &Store, minor: u32) -> Vec<String> {
    let registry = store.registry();
    let Some(nodes) = registry.find("", "v1", "nodes") else {
        return Vec::new();
    };
    let names: Vec<String> = objects(store, &nodes)
        .iter()
        .map(|n| text(n, "/metadata/name").to_owned())
        .collect();
    if !names.is_empty() {
        return names;
    }
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": FAKE_NODE, "labels": {"kubernetes.io/hostname": FAKE_NODE,
            "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"]},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
            "message": "kubelet is posting ready status", "lastHeartbeatTime": now(),
            "lastTransitionTime": now()}],
            "addresses": [{"type": "InternalIP", "address": "192.168.0.10"},
                {"type": "Hostname", "address": FAKE_NODE}],
            "capacity": {"cpu": "4", "memory": "16384Mi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": "4", "memory": "16384Mi", "pods": "110", "ephemeral-storage": "100Gi"},
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "6b696e666f726d65726e6f6465000001",
                "systemUUID": "6b696e66-6f72-6d65-726e-6f6465000001", "bootID": "6b696e66-6f72-6d65-726e-6f6465000002",
                "kernelVersion": "6.1.0-28-amd64", "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": "containerd://1.7.24", "kubeletVersion": format!("v1.{minor}.0"),
                "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}});
    match create_object(store, node) {
        Ok(_) => vec![FAKE_NODE.to_owned()],
        Err(e) => {
            tracing::debug!("controller node create skipped: {}", e.message);
            Vec::new()
        }
    }
}

/// The pod IPs the stored pods hold.
fn pod_ips(pods: &[Value]) -> HashSet<String> {
    pods.iter()
        .map(|p| text(p, "/status/podIP").to_owned())
        .filter(|ip| !ip.is_empty())
        .collect()
}

/// The first address of the pod range (10.244.0.0/16, from .2) no pod holds; it is taken.
fn free_pod_ip(used: &mut HashSet<String>) -> String {
    let ip = (0u32..)
        .map(|n| format!("10.244.{}.{}", n / 250 % 256, n % 250 + 2))
        .find(|ip| !used.contains(ip))
        .unwrap_or_default();
    used.insert(ip.clone());
    ip
}

/// A content digest for an image, as a runtime reports one (`sha256:` and 64 hex digits,
/// derived from the image's name: stable across runs).
fn image_digest(image: &str) -> String {
    use std::hash::{Hash, Hasher};
    (0u64..4)
        .map(|round| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (round, image).hash(&mut hasher);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

/// An image reference as the container runtime resolves it: `nginx` → `docker.io/library/nginx:latest`.
fn resolved_image(image: &str) -> String {
    let (name, tag) = match image.rsplit_once(':').filter(|(_, tag)| !tag.contains('/')) {
        Some((name, tag)) => (name, tag),
        None => (image, "latest"),
    };
    let first = name.split('/').next().unwrap_or_default();
    let registry_given =
        name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let name = match (registry_given, name.contains('/')) {
        (true, _) => name.to_owned(),
        (false, true) => format!("docker.io/{name}"),
        (false, false) => format!("docker.io/library/{name}"),
    };
    format!("{name}:{tag}")
}

/// A started container's status, as a kubelet reports it.
fn container_status(container: &Value, pod_uid: &str, started: &str) -> Value {
    let name = container
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let image = resolved_image(
        container
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or_default(),
    );
    let repository = image.rsplit_once(':').map_or(image.as_str(), |(r, _)| r);
    let image_id = format!("{repository}@sha256:{}", image_digest(&image));
    let container_id = format!(
        "containerd://{}",
        image_digest(&format!("{pod_uid}/{name}"))
    );
    json!({"name": name, "state": {"running": {"startedAt": started}}, "lastState": {},
        "ready": kubelet::readiness_delay(container) == 0, "restartCount": 0, "image": image,
        "imageID": image_id, "containerID": container_id, "started": true})
}

/// What a kubelet reports for a started pod: its node, unique IPs, the five conditions in the
/// kubelet's order, a status per container with its image ID.
fn run_pod(
    store: &Store,
    kinds: &Kinds,
    pod: &Value,
    nodes: &[String],
    used: &mut HashSet<String>,
) {
    let mut running = pod.clone();
    let scheduled = text(pod, "/spec/nodeName").is_empty();
    let node = match text(pod, "/spec/nodeName") {
        "" => nodes
            .get(used.len() % nodes.len().max(1))
            .cloned()
            .unwrap_or_default(),
        node => node.to_owned(),
    };
    if !node.is_empty() {
        running["spec"]["nodeName"] = node.clone().into();
    }
    let started = now();
    let uid = text(pod, "/metadata/uid");
    let containers: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| container_status(c, uid, &started))
        .collect();
    let ready = containers.iter().all(|c| c["ready"] == true);
    let conditions = kubelet::pod_conditions(&started, ready, &containers);
    let host_ip = "192.168.0.10";
    let pod_ip = free_pod_ip(used);
    let mut status = pod.get("status").cloned().unwrap_or_else(|| json!({}));
    for (key, value) in [
        ("phase", json!("Running")),
        ("conditions", json!(conditions)),
        ("hostIP", json!(host_ip)),
        ("hostIPs", json!([{"ip": host_ip}])),
        ("podIP", json!(pod_ip)),
        ("podIPs", json!([{"ip": pod_ip}])),
        ("startTime", json!(started)),
        ("containerStatuses", json!(containers)),
    ] {
        status[key] = value;
    }
    running["status"] = status;
    if *pod == running || update_object(store, &kinds.pods, running).is_err() {
        return;
    }
    let namespace = text(pod, "/metadata/namespace");
    let name = text(pod, "/metadata/name");
    if scheduled {
        let message = format!("Successfully assigned {namespace}/{name} to {node}");
        events::record(store, pod, None, "Scheduled", &message, Source::Scheduler);
    }
    let kubelet = Source::Kubelet(&node);
    for container in pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let container_name = text(container, "/name");
        let path = format!("spec.containers{{{container_name}}}");
        let image = text(container, "/image");
        let pulled = format!(
            "Container image {image:?} already present on machine and can be accessed by the pod"
        );
        events::record(store, pod, Some(&path), "Pulled", &pulled, kubelet);
        events::record(
            store,
            pod,
            Some(&path),
            "Created",
            "Container created",
            kubelet,
        );
        events::record(
            store,
            pod,
            Some(&path),
            "Started",
            "Container started",
            kubelet,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_hashes_are_stable_and_safe() {
        let template = json!({"metadata": {"labels": {"app": "web"}}});
        let hash = pod_template_hash(&template);
        assert_eq!(hash, pod_template_hash(&template));
        assert!(
            hash.len() >= 8
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() && !b.is_ascii_uppercase())
        );
        assert_ne!(
            hash,
            pod_template_hash(&json!({"metadata": {"labels": {"app": "api"}}}))
        );
    }
}
