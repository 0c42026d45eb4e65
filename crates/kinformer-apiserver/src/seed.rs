//! Initial objects: a small believable built-in cluster (nodes, namespaces, deployments owning
//! replicasets owning pods, configmaps, secrets, services...) or the documents of a YAML file.

use std::path::Path;

use serde_json::{Value, json};

use super::bootstrap;
use super::error::ServerError;
use super::objects::object_key;
use super::status::ApiError;
use super::store::Store;
use super::write::{DIRECT_WRITER, SYSTEM_WRITER, Writer, create_object, create_object_as};

/// Nodes of the built-in cluster.
const NODES: [&str; 3] = ["node-1", "node-2", "node-3"];

/// Namespaces of the built-in cluster.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "shop", "data"];

/// A workload of the built-in cluster: namespace, name, `app` label, replicas, image.
struct Workload {
    namespace: &'static str,
    name: &'static str,
    app: &'static str,
    replicas: usize,
    image: &'static str,
}

const DEPLOYMENTS: [Workload; 7] = [
    Workload {
        namespace: "default",
        name: "web",
        app: "web",
        replicas: 24,
        image: "nginx:1.27",
    },
    Workload {
        namespace: "shop",
        name: "web",
        app: "web",
        replicas: 20,
        image: "nginx:1.27",
    },
    Workload {
        namespace: "shop",
        name: "api",
        app: "api",
        replicas: 24,
        image: "ghcr.io/example/api:2.3.1",
    },
    Workload {
        namespace: "shop",
        name: "cart",
        app: "cart",
        replicas: 12,
        image: "ghcr.io/example/cart:1.9.0",
    },
    Workload {
        namespace: "data",
        name: "cache",
        app: "cache",
        replicas: 10,
        image: "redis:7.4",
    },
    Workload {
        namespace: "kube-system",
        name: "coredns",
        app: "coredns",
        replicas: 2,
        image: "registry.k8s.io/coredns/coredns:v1.11.3",
    },
    Workload {
        namespace: "kube-system",
        name: "metrics-server",
        app: "metrics-server",
        replicas: 1,
        image: "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
    },
];

/// A deterministic lowercase suffix in Kubernetes' name alphabet.
fn suffix(seed: &str, index: usize, len: usize) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut hash = seed
        .bytes()
        .fold(1469598103934665603u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(1099511628211)
        })
        .wrapping_add((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..len)
        .map(|_| {
            hash = hash
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(ALPHABET[(hash >> 33) as usize % ALPHABET.len()])
        })
        .collect()
}

/// The `uid` the store gave an object.
fn uid_of(object: &Value) -> Value {
    object
        .pointer("/metadata/uid")
        .cloned()
        .unwrap_or(Value::Null)
}

/// Creates an object and returns it as stored.
fn create(store: &Store, value: Value) -> Result<Value, ApiError> {
    create_object(store, value)?.to_value()
}

fn owner(api_version: &str, kind: &str, name: &str, uid: Value) -> Value {
    json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": true, "blockOwnerDeletion": true}])
}

fn pod(workload: &Workload, owner_refs: Value, name: String, index: usize, labels: Value) -> Value {
    let phase = match index % 13 {
        12 => "Pending",
        _ => "Running",
    };
    let node = NODES[index % NODES.len()];
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": workload.namespace, "labels": labels,
                     "ownerReferences": owner_refs},
        "spec": {
            "nodeName": node,
            "containers": [{"name": workload.app, "image": workload.image,
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
            "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "serviceAccountName": "default"
        },
        "status": {"phase": phase, "hostIP": format!("192.168.0.{}", index % NODES.len() + 10),
                   "podIP": format!("10.244.{}.{}", index % NODES.len(), index % 250 + 2)}
    })
}

/// A Deployment, its ReplicaSet and the ReplicaSet's pods.
fn seed_deployment(store: &Store, workload: &Workload) -> Result<(), ApiError> {
    let selector = json!({"matchLabels": {"app": workload.app}});
    let template = json!({"metadata": {"labels": {"app": workload.app}},
        "spec": {"containers": [{"name": workload.app, "image": workload.image}]}});
    let deployment = create(
        store,
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": workload.name, "namespace": workload.namespace, "labels": {"app": workload.app}},
            "spec": {"replicas": workload.replicas, "selector": selector, "template": template},
            "status": {"replicas": workload.replicas, "readyReplicas": workload.replicas,
                       "availableReplicas": workload.replicas, "updatedReplicas": workload.replicas}
        }),
    )?;
    let hash = suffix(workload.name, 0, 10);
    let rs_name = format!("{}-{hash}", workload.name);
    let labels = json!({"app": workload.app, "pod-template-hash": hash});
    // The Deployment's template with the hash label, as its controller makes the ReplicaSet:
    // the controllers then find it current instead of rolling out a new one at start.
    let mut rs_template = template;
    rs_template["metadata"]["labels"] = labels.clone();
    let replicaset = create(
        store,
        json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": workload.namespace, "labels": labels,
                         "ownerReferences": owner("apps/v1", "Deployment", workload.name, uid_of(&deployment))},
            "spec": {"replicas": workload.replicas, "selector": {"matchLabels": labels},
                     "template": rs_template},
            "status": {"replicas": workload.replicas, "readyReplicas": workload.replicas}
        }),
    )?;
    let rs_owner = owner("apps/v1", "ReplicaSet", &rs_name, uid_of(&replicaset));
    for index in 0..workload.replicas {
        let name = format!("{rs_name}-{}", suffix(&rs_name, index, 5));
        create(
            store,
            pod(workload, rs_owner.clone(), name, index, labels.clone()),
        )?;
    }
    Ok(())
}

/// kube-proxy: one pod per node, owned by a DaemonSet.
fn seed_daemonset(store: &Store) -> Result<(), ApiError> {
    let workload = Workload {
        namespace: "kube-system",
        name: "kube-proxy",
        app: "kube-proxy",
        replicas: NODES.len(),
        image: "registry.k8s.io/kube-proxy:v1.32.4",
    };
    let labels = json!({"k8s-app": "kube-proxy"});
    let daemonset = create(
        store,
        json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": workload.name, "namespace": workload.namespace, "labels": labels},
            "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
                     "spec": {"containers": [{"name": "kube-proxy", "image": workload.image}]}}},
            "status": {"desiredNumberScheduled": NODES.len(), "numberReady": NODES.len()}
        }),
    )?;
    let ds_owner = owner("apps/v1", "DaemonSet", workload.name, uid_of(&daemonset));
    for index in 0..NODES.len() {
        let name = format!("kube-proxy-{}", suffix("kube-proxy", index, 5));
        create(
            store,
            pod(&workload, ds_owner.clone(), name, index, labels.clone()),
        )?;
    }
    Ok(())
}

/// A StatefulSet with stable pod names.
fn seed_statefulset(store: &Store) -> Result<(), ApiError> {
    let workload = Workload {
        namespace: "data",
        name: "postgres",
        app: "postgres",
        replicas: 3,
        image: "postgres:17",
    };
    let labels = json!({"app": "postgres"});
    let statefulset = create(
        store,
        json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": workload.name, "namespace": workload.namespace, "labels": labels},
            "spec": {"replicas": workload.replicas, "serviceName": "postgres", "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "postgres", "image": workload.image}]}}},
            "status": {"replicas": workload.replicas, "readyReplicas": workload.replicas}
        }),
    )?;
    let sts_owner = owner(
        "apps/v1",
        "StatefulSet",
        workload.name,
        uid_of(&statefulset),
    );
    for index in 0..workload.replicas {
        create(
            store,
            pod(
                &workload,
                sts_owner.clone(),
                format!("postgres-{index}"),
                index,
                labels.clone(),
            ),
        )?;
    }
    Ok(())
}

fn seed_infrastructure(store: &Store) -> Result<(), ApiError> {
    for (index, node) in NODES.iter().enumerate() {
        create(
            store,
            json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node, "kubernetes.io/os": "linux",
                             "topology.kubernetes.io/zone": format!("zone-{}", index + 1)}},
                "spec": {"podCIDR": format!("10.244.{index}.0/24")},
                "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                           "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                           "nodeInfo": {"kubeletVersion": "v1.32.4", "osImage": "Debian GNU/Linux 13"}}
            }),
        )?;
    }
    for namespace in NAMESPACES {
        create_namespace(store, namespace, DIRECT_WRITER)?;
        create(
            store,
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default", "namespace": namespace}}),
        )?;
        create(
            store,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kube-root-ca.crt", "namespace": namespace},
            "data": {"ca.crt": "-----BEGIN CERTIFICATE-----\nMIIBkinformer\n-----END CERTIFICATE-----\n"}}),
        )?;
    }
    create(
        store,
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "spec": {"holderIdentity": "node-1_kube-scheduler", "leaseDurationSeconds": 15}}),
    )?;
    Ok(())
}

fn seed_config(store: &Store) -> Result<(), ApiError> {
    for (namespace, name, data) in [
        (
            "shop",
            "api-config",
            json!({"LOG_LEVEL": "info", "CART_URL": "http://cart.shop:8080"}),
        ),
        (
            "data",
            "cache-config",
            json!({"maxmemory": "256mb", "maxmemory-policy": "allkeys-lru"}),
        ),
        (
            "default",
            "web-config",
            json!({"index.html": "<h1>hello from kinformer</h1>\n"}),
        ),
    ] {
        create(
            store,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace}, "data": data}),
        )?;
    }
    for (namespace, name, data) in [
        (
            "shop",
            "api-credentials",
            json!({"username": "YXBp", "password": "czNjcjN0LXBhc3N3b3Jk"}),
        ),
        (
            "data",
            "cache-auth",
            json!({"password": "cmVkaXMtcGFzcw=="}),
        ),
    ] {
        create(
            store,
            json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": name, "namespace": namespace}, "data": data}),
        )?;
    }
    for (namespace, name, app) in [
        ("default", "web", "web"),
        ("shop", "web", "web"),
        ("shop", "api", "api"),
        ("shop", "cart", "cart"),
        ("data", "cache", "cache"),
        ("kube-system", "kube-dns", "coredns"),
    ] {
        create(
            store,
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "labels": {"app": app}},
            "spec": {"selector": {"app": app}, "type": "ClusterIP",
                     "ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]}}),
        )?;
    }
    create(
        store,
        json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web.scaled", "namespace": "default"},
        "involvedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "default"},
        "reason": "ScalingReplicaSet", "message": "Scaled up replica set web to 24", "type": "Normal"}),
    )?;
    Ok(())
}

/// Seeds the built-in cluster.
pub fn seed_builtin(store: &Store) -> Result<(), ServerError> {
    let seeded = seed_infrastructure(store)
        .and_then(|()| seed_config(store))
        .and_then(|()| {
            DEPLOYMENTS
                .iter()
                .try_for_each(|w| seed_deployment(store, w))
        })
        .and_then(|()| seed_daemonset(store))
        .and_then(|()| seed_statefulset(store));
    seeded.map_err(|e| ServerError::Seed(format!("built-in cluster: {}", e.message)))
}

/// A 5-character suffix that is distinct for every index below 27^5 (a scrambled bijection).
fn unique_suffix(index: usize) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    const SPACE: u64 = 27 * 27 * 27 * 27 * 27;
    // 7_777_777 is coprime with 27, so multiplication permutes 0..SPACE.
    let mut value = (index as u64 % SPACE) * 7_777_777 % SPACE;
    (0..5)
        .map(|_| {
            let digit = (value % 27) as usize;
            value /= 27;
            char::from(ALPHABET[digit])
        })
        .collect()
}

/// A realistic pod of about 2.5 KB (labels, annotations, ownerReferences, managedFields, a
/// container with probes and resources, status with conditions) for large benchmarks through
/// `EmbeddedServer::seed_objects`. Deterministic for a given namespace and index.
pub fn synthetic_pod(namespace: &str, index: usize) -> Value {
    let app = format!("app-{}", index % 40);
    let hash = suffix(&app, 0, 10);
    let name = format!("{app}-{hash}-{}", unique_suffix(index));
    let node = format!("node-{}", index % 50 + 1);
    let time = "2025-01-01T00:00:00Z";
    let tier = ["web", "api", "worker"][index % 3];
    let phase = if index.is_multiple_of(17) {
        "Pending"
    } else {
        "Running"
    };
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": name, "namespace": namespace,
            "labels": {"app": app, "pod-template-hash": hash, "tier": tier},
            "annotations": {"kubectl.kubernetes.io/restartedAt": time, "prometheus.io/scrape": "true"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-{hash}"),
                "uid": format!("00000000-0000-4000-a000-{:012}", index % 40), "controller": true, "blockOwnerDeletion": true}],
            "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": time,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                    "f:ownerReferences": {".": {}, "k:{\"uid\":\"x\"}": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:image": {}, "f:name": {}, "f:ports": {}, "f:resources": {}}}}}},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": time, "subresource": "status",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}}}
            ]
        },
        "spec": {
            "nodeName": node, "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "serviceAccountName": "default", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}],
            "containers": [{"name": "main", "image": format!("registry.example.com/{app}:1.{}.0", index % 7),
                "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
                "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"}]
        },
        "status": {
            "phase": phase,
            "hostIP": format!("192.168.{}.{}", index % 50 / 250, index % 50 + 10),
            "podIP": format!("10.{}.{}.{}", index / 65_536 % 256, index / 256 % 256, index % 256),
            "startTime": time, "qosClass": "Burstable",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": time},
                           {"type": "PodScheduled", "status": "True", "lastTransitionTime": time}],
            "containerStatuses": [{"name": "main", "ready": true, "restartCount": 0, "started": true,
                "image": format!("registry.example.com/{app}:1.{}.0", index % 7), "imageID": "",
                "state": {"running": {"startedAt": time}}}]
        }
    })
}

/// The YAML documents of a file (`---`-separated), numbered from 1, empty ones skipped.
fn documents(text: &str) -> Vec<(usize, String)> {
    let mut documents = vec![String::new()];
    for line in text.lines() {
        if line == "---" || line.starts_with("--- ") {
            documents.push(String::new());
        } else if let Some(current) = documents.last_mut() {
            current.push_str(line);
            current.push('\n');
        }
    }
    documents
        .into_iter()
        .enumerate()
        .map(|(i, d)| (i + 1, d))
        .filter(|(_, d)| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

/// The namespaces every cluster has.
const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// Creates namespace `name` unless it exists, recorded as `writer`'s.
fn create_namespace(store: &Store, name: &str, writer: Writer<'static>) -> Result<(), ApiError> {
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}});
    match create_object_as(store, namespace, writer) {
        Err(e) if e.reason != "AlreadyExists" => Err(e),
        _ => Ok(()),
    }
}

/// The Service kube-apiserver keeps for itself in `default`
/// (`pkg/controlplane/controller/kubernetesservice/controller.go`,
/// `CreateOrUpdateMasterServiceIfNeeded`): the first address of the service range
/// (10.96.0.0/12, the one new Services' cluster IPs come from), port 443 named `https` to the
/// apiserver's secure port 6443, single-stack (its `IPFamilyPolicy`, line 237: the controller
/// sets it, so its managedFields own it), labelled as kube-apiserver labels it.
fn kubernetes_service() -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.1", "sessionAffinity": "None",
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": 6443}]}})
}

/// The two PriorityClasses kube-apiserver creates at start
/// (`pkg/registry/scheduling/rest/storage_scheduling.go`, `AddSystemPriorityClasses`; the
/// values and descriptions of `pkg/apis/scheduling/types.go`'s `SystemPriorityClasses`).
fn system_priority_classes() -> [Value; 2] {
    let class = |name: &str, value: i64, description: &str| {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "description": description,
            "preemptionPolicy": "PreemptLowerPriority"})
    };
    [
        class(
            "system-node-critical",
            2_000_001_000,
            "Used for system critical pods that must not be moved from their current node.",
        ),
        class(
            "system-cluster-critical",
            2_000_000_000,
            "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
        ),
    ]
}

/// Creates what kube-apiserver creates itself, as every cluster has it: the namespaces
/// `default`, `kube-node-lease`, `kube-public` and `kube-system`, the Service
/// `default/kubernetes`, the system PriorityClasses, and the RBAC and priority-and-fairness
/// objects of its bootstrap ([`bootstrap`]).
pub fn seed_system_objects(store: &Store) -> Result<(), ServerError> {
    let now = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let seeded = SYSTEM_NAMESPACES
        .iter()
        .try_for_each(|name| create_namespace(store, name, SYSTEM_WRITER))
        .and_then(|()| create_object_as(store, kubernetes_service(), SYSTEM_WRITER).map(drop))
        .and_then(|()| {
            system_priority_classes()
                .into_iter()
                .try_for_each(|class| create_object_as(store, class, SYSTEM_WRITER).map(drop))
        })
        .and_then(|()| {
            bootstrap::objects().iter().try_for_each(|object| {
                create_object_as(store, bootstrap::as_created(object, &now), SYSTEM_WRITER)
                    .map(drop)
            })
        });
    seeded.map_err(|e| ServerError::Seed(e.message))
}

/// Whether `object` is one [`seed_system_objects`] made that already exists (a seed file may
/// list them): a Namespace, or the `default/kubernetes` Service.
fn existing_system_object(store: &Store, object: &Value) -> bool {
    let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str);
    let (plural, namespace) = match (text("/kind"), text("/metadata/namespace")) {
        (Some("Namespace"), _) => ("namespaces", ""),
        (Some("Service"), Some("default")) if text("/metadata/name") == Some("kubernetes") => {
            ("services", "default")
        }
        _ => return false,
    };
    let registry = store.registry();
    match (text("/metadata/name"), registry.find("", "v1", plural)) {
        (Some(name), Some(resource)) => store
            .get(&resource.key(), &object_key(namespace, name))
            .is_some(),
        _ => false,
    }
}

/// Seeds every object of a multi-document YAML file (a `List` document seeds its items).
pub fn seed_file(store: &Store, path: &Path) -> Result<(), ServerError> {
    let text = std::fs::read_to_string(path).map_err(|source| ServerError::SeedRead {
        path: path.to_owned(),
        source,
    })?;
    for (number, document) in documents(&text) {
        let invalid = |message: String| ServerError::SeedFile {
            path: path.to_owned(),
            document: number,
            message,
        };
        let value: Value = serde_saphyr::from_str(&document).map_err(|e| invalid(e.to_string()))?;
        let objects = match value.get("items").and_then(Value::as_array) {
            Some(items) if value.get("kind").and_then(Value::as_str) == Some("List") => {
                items.clone()
            }
            _ => vec![value],
        };
        for object in objects {
            if !object.is_object() {
                return Err(invalid(
                    "not a Kubernetes object (expected a mapping)".into(),
                ));
            }
            if existing_system_object(store, &object) {
                continue;
            }
            create_object(store, object).map_err(|e| invalid(e.message))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_pods_are_realistically_sized_and_unique() {
        let size = serde_json::to_vec(&synthetic_pod("bench", 7)).map_or(0, |b| b.len());
        assert!((2_000..=3_500).contains(&size), "{size} bytes");
        let names: std::collections::BTreeSet<String> = (0..2_000)
            .map(|i| {
                synthetic_pod("bench", i)["metadata"]["name"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            })
            .collect();
        assert_eq!(names.len(), 2_000);
        let suffixes: std::collections::BTreeSet<String> =
            (0..200_000).map(unique_suffix).collect();
        assert_eq!(suffixes.len(), 200_000);
    }

    #[test]
    fn documents_are_numbered_and_empty_ones_skipped() {
        let docs = documents("a: 1\n---\n# only a comment\n---\nb: 2\n");
        let numbers: Vec<usize> = docs.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 3]);
    }

    #[test]
    fn builtin_cluster_has_about_a_hundred_pods() {
        let store = Store::new(10_000);
        assert!(seed_builtin(&store).is_ok());
        let registry = store.registry();
        let pods = registry.find("", "v1", "pods").map(|p| p.key());
        let count = pods
            .and_then(|key| {
                let filter = |_: &super::super::objects::StoredObject| true;
                let query = super::super::store::ListQuery {
                    namespace: None,
                    at: None,
                    after: None,
                    limit: None,
                    filter: &filter,
                    count_remaining: false,
                };
                store.list(&key, &query).ok()
            })
            .map_or(0, |page| page.items.len());
        assert!((90..=110).contains(&count), "{count} pods");
    }
}
