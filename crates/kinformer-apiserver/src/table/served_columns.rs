//! Column definitions of the printers of the kinds served beyond the first groups, as
//! kube-apiserver v1.37.2 answers them (`pkg/printers/internalversion/printers.go`
//! `AddHandlers`; the descriptions are the API types' swagger docs, taken from the reference
//! server's Tables).

use serde_json::Value;

use super::columns::{age, containers, images, name, unformatted as column};

/// The columns of `horizontalpodautoscalers`.
pub fn horizontal_pod_autoscaler() -> Vec<Value> {
    vec![
        name(),
        column(
            "Reference",
            "string",
            "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
            0,
        ),
        column(
            "Targets",
            "string",
            "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
            0,
        ),
        column(
            "MinPods",
            "string",
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
            0,
        ),
        column(
            "MaxPods",
            "string",
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
            0,
        ),
        column(
            "Replicas",
            "string",
            "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
            0,
        ),
        age(),
    ]
}

/// The columns of `ingressclasses`.
pub fn ingress_class() -> Vec<Value> {
    vec![
        name(),
        column(
            "Controller",
            "string",
            "Controller that is responsible for handling this class",
            0,
        ),
        column(
            "Parameters",
            "string",
            "A reference to a resource with additional parameters",
            0,
        ),
        age(),
    ]
}

/// The columns of `ingresses`.
pub fn ingress() -> Vec<Value> {
    vec![
        name(),
        column(
            "Class",
            "string",
            "The name of the IngressClass resource that should be used for additional configuration",
            0,
        ),
        column(
            "Hosts",
            "string",
            "Hosts that incoming requests are matched against before the ingress rule",
            0,
        ),
        column(
            "Address",
            "string",
            "Address is a list containing ingress points for the load-balancer",
            0,
        ),
        column(
            "Ports",
            "string",
            "Ports of TLS configurations that open",
            0,
        ),
        age(),
    ]
}

/// The columns of `networkpolicies`.
pub fn network_policy() -> Vec<Value> {
    vec![
        name(),
        column(
            "Pod-Selector",
            "string",
            "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.",
            0,
        ),
        age(),
    ]
}

/// The columns of `priorityclasses`.
pub fn priority_class() -> Vec<Value> {
    vec![
        name(),
        column(
            "Value",
            "integer",
            "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
            0,
        ),
        column(
            "Global-Default",
            "boolean",
            "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
            0,
        ),
        age(),
        column(
            "PreemptionPolicy",
            "string",
            "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
            0,
        ),
    ]
}

/// The columns of `storageclasses`.
pub fn storage_class() -> Vec<Value> {
    vec![
        name(),
        column(
            "Provisioner",
            "string",
            "provisioner indicates the type of the provisioner.",
            0,
        ),
        column(
            "ReclaimPolicy",
            "string",
            "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
            0,
        ),
        column(
            "VolumeBindingMode",
            "string",
            "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
            0,
        ),
        column(
            "AllowVolumeExpansion",
            "string",
            "allowVolumeExpansion shows whether the storage class allow volume expand.",
            0,
        ),
        age(),
    ]
}

/// The columns of `endpointslices`.
pub fn endpoint_slice() -> Vec<Value> {
    vec![
        name(),
        column(
            "AddressType",
            "string",
            "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" type.",
            0,
        ),
        column(
            "Ports",
            "string",
            "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list.",
            0,
        ),
        column(
            "Endpoints",
            "string",
            "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
            0,
        ),
        age(),
    ]
}

/// The columns of `persistentvolumeclaims`.
pub fn persistent_volume_claim() -> Vec<Value> {
    vec![
        name(),
        column(
            "Status",
            "string",
            "phase represents the current phase of PersistentVolumeClaim.",
            0,
        ),
        column(
            "Volume",
            "string",
            "volumeName is the binding reference to the PersistentVolume backing this claim.",
            0,
        ),
        column(
            "Capacity",
            "string",
            "capacity represents the actual resources of the underlying volume.",
            0,
        ),
        column(
            "Access Modes",
            "string",
            "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
            0,
        ),
        column("StorageClass", "string", "StorageClass of the pvc", 0),
        column(
            "VolumeAttributesClass",
            "string",
            "VolumeAttributesClass of the pvc",
            0,
        ),
        age(),
        column(
            "VolumeMode",
            "string",
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
            1,
        ),
    ]
}

/// The columns of `resourcequotas`.
pub fn resource_quota() -> Vec<Value> {
    vec![
        name(),
        column(
            "Request",
            "string",
            "Request represents a minimum amount of cpu/memory that a container may consume.",
            0,
        ),
        column(
            "Limit",
            "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
            0,
        ),
        age(),
    ]
}

/// The columns of `limitranges`.
pub fn limit_range() -> Vec<Value> {
    vec![
        name(),
        column(
            "Created At",
            "date",
            "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
            0,
        ),
    ]
}

/// The columns of `podtemplates`.
pub fn pod_template() -> Vec<Value> {
    vec![
        name(),
        containers(0),
        images(0),
        column(
            "Pod Labels",
            "string",
            "The labels for the pod template.",
            0,
        ),
    ]
}

/// The columns of `controllerrevisions`.
pub fn controller_revision() -> Vec<Value> {
    vec![
        name(),
        column("Controller", "string", "Controller of the object", 0),
        column(
            "Revision",
            "string",
            "Revision indicates the revision of the state represented by Data.",
            0,
        ),
        age(),
    ]
}
