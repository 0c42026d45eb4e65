//! Column definitions as kube-apiserver registers them (kubernetes v1.37.2
//! `pkg/printers/internalversion/printers.go` `AddHandlers`, from line 100). Descriptions are
//! the API types' swagger docs the printers cite (k8s.io/api v0.37.2
//! `*/v1/types_swagger_doc_generated.go`, apimachinery `meta/v1`).

use serde_json::{Value, json};

const NAME_DOC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DOC: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const POD_IP: &str = "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.";
const POD_NODE: &str = "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename";
const POD_NOMINATED: &str = "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.";
const POD_GATES: &str = "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates";
const RS_DESIRED: &str = "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset";
const RS_CURRENT: &str = "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset";
const RS_READY: &str =
    "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.";
const RS_SELECTOR: &str = "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";
const DEPLOY_UPDATED: &str = "Total number of non-terminating pods targeted by this deployment that have the desired template spec.";
const DEPLOY_AVAILABLE: &str = "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.";
const DEPLOY_SELECTOR: &str = "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.";
const SVC_TYPE: &str = "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types";
const SVC_CLUSTER_IP: &str = "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";
const SVC_EXTERNAL_IPS: &str = "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.";
const SVC_PORTS: &str = "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";
const SVC_SELECTOR: &str = "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/";
const NODE_VERSION: &str = "Kubelet Version reported by the node.";
const NODE_ADDRESSES: &str = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";
const NODE_OS_IMAGE: &str =
    "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).";
const NODE_KERNEL: &str =
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).";
const NODE_RUNTIME: &str = "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).";
const DS_DESIRED: &str = "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/";
const DS_CURRENT: &str = "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/";
const DS_READY: &str = "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.";
const DS_UPDATED: &str = "The total number of nodes that are running updated daemon pod";
const DS_AVAILABLE: &str = "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)";
const DS_NODE_SELECTOR: &str = "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/";
const DS_SELECTOR: &str = "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";
const EV_LAST: &str = "The time at which the most recent occurrence of this event was recorded.";
const EV_TYPE: &str =
    "Type of this event (Normal, Warning), new types could be added in the future";
const EV_REASON: &str = "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.";
const EV_OBJECT: &str = "The object that this event is about.";
const EV_SUBOBJECT: &str = "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.";
const EV_SOURCE: &str =
    "The component reporting this event. Should be a short machine understandable string.";
const EV_MESSAGE: &str = "A human-readable description of the status of this operation.";
const EV_FIRST: &str =
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)";
const EV_COUNT: &str = "The number of times this event has occurred.";
const SECRET_TYPE: &str = "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
const SECRET_DATA: &str = "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4";
const CM_DATA: &str = "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.";
const LEASE_HOLDER: &str = "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.";
const CONTAINERS: &str = "Names of each container in the template.";
const IMAGES: &str = "Images referenced by each container in the template.";
const POD_READY: &str = "Number of the pod with ready state";

/// One `TableColumnDefinition`.
fn column(name: &str, kind: &str, format: &str, description: &str, priority: u8) -> Value {
    json!({"name": name, "type": kind, "format": format, "description": description,
        "priority": priority})
}

/// A column of no `format` (what most printers declare).
pub(super) fn unformatted(name: &str, kind: &str, description: &str, priority: u8) -> Value {
    column(name, kind, "", description, priority)
}

/// A pod template's Containers column, at `priority`.
pub(super) fn containers(priority: u8) -> Value {
    unformatted("Containers", "string", CONTAINERS, priority)
}

/// A pod template's Images column, at `priority`.
pub(super) fn images(priority: u8) -> Value {
    unformatted("Images", "string", IMAGES, priority)
}

fn string(name: &str, description: &str) -> Value {
    column(name, "string", "", description, 0)
}

fn wide(name: &str, description: &str) -> Value {
    column(name, "string", "", description, 1)
}

fn integer(name: &str, description: &str) -> Value {
    column(name, "integer", "", description, 0)
}

/// The Name column every printer starts with.
pub fn name() -> Value {
    column("Name", "string", "name", NAME_DOC, 0)
}

/// The Age column (`creationTimestamp`'s doc).
pub fn age() -> Value {
    string("Age", AGE_DOC)
}

/// printers.go:101.
pub fn pod() -> Vec<Value> {
    vec![
        name(),
        string(
            "Ready",
            "The aggregate readiness state of this pod for accepting traffic.",
        ),
        string(
            "Status",
            "The aggregate status of the containers in this pod.",
        ),
        string(
            "Restarts",
            "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
        ),
        age(),
        wide("IP", POD_IP),
        wide("Node", POD_NODE),
        wide("Nominated Node", POD_NOMINATED),
        wide("Readiness Gates", POD_GATES),
    ]
}

/// printers.go:149.
pub fn replica_set() -> Vec<Value> {
    vec![
        name(),
        integer("Desired", RS_DESIRED),
        integer("Current", RS_CURRENT),
        integer("Ready", RS_READY),
        age(),
        containers(1),
        images(1),
        wide("Selector", RS_SELECTOR),
    ]
}

/// printers.go:351 (Up-to-date and Available are typed `string` there, their cells integers).
pub fn deployment() -> Vec<Value> {
    vec![
        name(),
        string("Ready", POD_READY),
        string("Up-to-date", DEPLOY_UPDATED),
        string("Available", DEPLOY_AVAILABLE),
        age(),
        containers(1),
        images(1),
        wide("Selector", DEPLOY_SELECTOR),
    ]
}

/// printers.go:206.
pub fn service() -> Vec<Value> {
    vec![
        name(),
        string("Type", SVC_TYPE),
        string("Cluster-IP", SVC_CLUSTER_IP),
        string("External-IP", SVC_EXTERNAL_IPS),
        string("Port(s)", SVC_PORTS),
        age(),
        wide("Selector", SVC_SELECTOR),
    ]
}

/// printers.go:257.
pub fn node() -> Vec<Value> {
    vec![
        name(),
        string("Status", "The status of the node"),
        string("Roles", "The roles of the node"),
        age(),
        string("Version", NODE_VERSION),
        wide("Internal-IP", NODE_ADDRESSES),
        wide("External-IP", NODE_ADDRESSES),
        wide("OS-Image", NODE_OS_IMAGE),
        wide("Kernel-Version", NODE_KERNEL),
        wide("Container-Runtime", NODE_RUNTIME),
    ]
}

/// printers.go:162.
pub fn daemon_set() -> Vec<Value> {
    vec![
        name(),
        integer("Desired", DS_DESIRED),
        integer("Current", DS_CURRENT),
        integer("Ready", DS_READY),
        integer("Up-to-date", DS_UPDATED),
        integer("Available", DS_AVAILABLE),
        string("Node Selector", DS_NODE_SELECTOR),
        age(),
        containers(1),
        images(1),
        wide("Selector", DS_SELECTOR),
    ]
}

/// printers.go:239.
pub fn stateful_set() -> Vec<Value> {
    vec![
        name(),
        string("Ready", POD_READY),
        age(),
        containers(1),
        images(1),
    ]
}

/// printers.go:273: Name comes last, at priority 1.
pub fn event() -> Vec<Value> {
    vec![
        string("Last Seen", EV_LAST),
        string("Type", EV_TYPE),
        string("Reason", EV_REASON),
        string("Object", EV_OBJECT),
        wide("Subobject", EV_SUBOBJECT),
        wide("Source", EV_SOURCE),
        string("Message", EV_MESSAGE),
        wide("First Seen", EV_FIRST),
        wide("Count", EV_COUNT),
        column("Name", "string", "name", NAME_DOC, 1),
    ]
}

/// printers.go:288.
pub fn namespace() -> Vec<Value> {
    vec![
        name(),
        string("Status", "The status of the namespace"),
        age(),
    ]
}

/// printers.go:296.
pub fn secret() -> Vec<Value> {
    vec![
        name(),
        string("Type", SECRET_TYPE),
        string("Data", SECRET_DATA),
        age(),
    ]
}

/// printers.go:305 (and the default Name/Age).
pub fn name_age() -> Vec<Value> {
    vec![name(), age()]
}

/// printers.go:376.
pub fn config_map() -> Vec<Value> {
    vec![name(), string("Data", CM_DATA), age()]
}

/// printers.go:444.
pub fn lease() -> Vec<Value> {
    vec![name(), string("Holder", LEASE_HOLDER), age()]
}

/// apiextensions-apiserver `pkg/registry/customresourcedefinition/tableconvertor/tableconvertor.go:46`.
pub fn crd() -> Vec<Value> {
    vec![
        name(),
        string("Scope", "Cluster/Namespaced"),
        string("Versions", "Served versions"),
        column("Created At", "date", "", AGE_DOC, 0),
        wide("Group", "API group"),
        wide("Kind", "CustomResource kind"),
        wide("ShortNames", "Short names"),
        column("Established", "boolean", "", "Established status", 1),
    ]
}

/// A custom resource column: `additionalPrinterColumns` entry `declared`
/// (apiextensions-apiserver `pkg/registry/customresource/tableconvertor/tableconvertor.go:49`).
pub fn custom(declared: &Value) -> Value {
    let text = |k: &str| declared.get(k).and_then(Value::as_str).unwrap_or("");
    let description = match text("description") {
        "" => format!(
            "Custom resource definition column (in JSONPath format): {}",
            text("jsonPath")
        ),
        d => d.to_owned(),
    };
    json!({"name": text("name"), "type": text("type"), "format": text("format"),
        "description": description,
        "priority": declared.get("priority").and_then(Value::as_i64).unwrap_or(0)})
}

/// The column a CRD version without `additionalPrinterColumns` is served with
/// (apiextensions-apiserver `pkg/apiserver/helpers.go:86`).
pub fn default_custom() -> Value {
    json!({"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
        "description": AGE_DOC})
}
