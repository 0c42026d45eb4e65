//! The fields of k8s.io/api's Go types (and apiextensions-apiserver's, kube-aggregator's) whose
//! zero value the OpenAPI schema rules of [`super::zero_value`] cannot see, by schema
//! definition (its name without `io.k8s.`) and JSON field, each citing the Go field (v0.37.2).
//! Found by comparing, for every struct type the served and captured groups reach, the
//! derived zero value with `json.Marshal` of the Go struct's zero value:
//!
//! - `Null`: a non-pointer `metav1.Time`/`MicroTime` (a string in the schema, `null` when
//!   zero), or a non-`omitempty` slice, map or pointer marked `+optional` (so not `required`);
//! - `Omitted`: an `omitempty` field marked `+required` (so `required`) or `+default=` of its
//!   zero (so given a `default`), such as an embedded LocalObjectReference's `name`;
//! - `Zero`: a non-pointer IntOrString or Quantity (`0`, `"0"`), which the schema types as a
//!   string without a default.

/// What the Go type writes for a field where the schema rules say otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoField {
    /// `null`.
    Null,
    /// Nothing: the field is left out.
    Omitted,
    /// This JSON text.
    Zero(&'static str),
}

/// (definition, field, what the Go type writes).
pub const GO_FIELDS: &[(&str, &str, GoField)] = &[
    (
        "api.admissionregistration.v1.MutatingWebhook",
        "sideEffects",
        GoField::Null,
    ), // api/admissionregistration/v1/types.go:1052
    (
        "api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec",
        "validationActions",
        GoField::Omitted,
    ), // api/admissionregistration/v1/types.go:543
    (
        "api.admissionregistration.v1.ValidatingWebhook",
        "sideEffects",
        GoField::Null,
    ), // api/admissionregistration/v1/types.go:902
    (
        "api.apps.v1.DaemonSetCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/apps/v1/types.go:801
    (
        "api.apps.v1.DeploymentCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/apps/v1/types.go:605
    (
        "api.apps.v1.DeploymentCondition",
        "lastUpdateTime",
        GoField::Null,
    ), // api/apps/v1/types.go:602
    (
        "api.apps.v1.ReplicaSetCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/apps/v1/types.go:996
    (
        "api.apps.v1.StatefulSetCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/apps/v1/types.go:365
    (
        "api.authentication.v1.TokenRequestSpec",
        "audiences",
        GoField::Null,
    ), // api/authentication/v1/types.go:207
    (
        "api.authentication.v1.TokenRequestSpec",
        "boundObjectRef",
        GoField::Null,
    ), // api/authentication/v1/types.go:221
    (
        "api.authentication.v1.TokenRequestSpec",
        "expirationSeconds",
        GoField::Null,
    ), // api/authentication/v1/types.go:213
    (
        "api.authentication.v1.TokenRequestStatus",
        "expirationTimestamp",
        GoField::Null,
    ), // api/authentication/v1/types.go:239
    ("api.autoscaling.v1.ScaleSpec", "replicas", GoField::Omitted), // api/autoscaling/v1/types.go:155
    (
        "api.autoscaling.v2.HorizontalPodAutoscalerCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/autoscaling/v2/types.go:472
    (
        "api.autoscaling.v2.HorizontalPodAutoscalerStatus",
        "currentMetrics",
        GoField::Null,
    ), // api/autoscaling/v2/types.go:430
    ("api.batch.v1.JobCondition", "lastProbeTime", GoField::Null),  // api/batch/v1/types.go:722
    (
        "api.batch.v1.JobCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/batch/v1/types.go:725
    (
        "api.certificates.v1.CertificateSigningRequestCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/certificates/v1/types.go:269
    (
        "api.certificates.v1.CertificateSigningRequestCondition",
        "lastUpdateTime",
        GoField::Null,
    ), // api/certificates/v1/types.go:264
    (
        "api.core.v1.AzureDiskVolumeSource",
        "readOnly",
        GoField::Omitted,
    ), // api/core/v1/types.go:1832
    (
        "api.core.v1.AzureFilePersistentVolumeSource",
        "secretNamespace",
        GoField::Null,
    ), // api/core/v1/types.go:1766
    ("api.core.v1.ConfigMapEnvSource", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.ConfigMapKeySelector", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.ConfigMapProjection", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    (
        "api.core.v1.ConfigMapVolumeSource",
        "name",
        GoField::Omitted,
    ), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.ContainerImage", "names", GoField::Null),        // api/core/v1/types.go:7204
    (
        "api.core.v1.ContainerStateRunning",
        "startedAt",
        GoField::Null,
    ), // api/core/v1/types.go:3492
    (
        "api.core.v1.ContainerStateTerminated",
        "finishedAt",
        GoField::Null,
    ), // api/core/v1/types.go:3513
    (
        "api.core.v1.ContainerStateTerminated",
        "startedAt",
        GoField::Null,
    ), // api/core/v1/types.go:3510
    ("api.core.v1.Event", "eventTime", GoField::Null),             // api/core/v1/types.go:7974
    ("api.core.v1.Event", "firstTimestamp", GoField::Null),        // api/core/v1/types.go:7958
    ("api.core.v1.Event", "lastTimestamp", GoField::Null),         // api/core/v1/types.go:7962
    ("api.core.v1.EventSeries", "lastObservedTime", GoField::Null), // api/core/v1/types.go:8003
    ("api.core.v1.EvictionResponder", "priority", GoField::Null),  // api/core/v1/types.go:5579
    ("api.core.v1.FileKeySelector", "optional", GoField::Omitted), // api/core/v1/types.go:2717
    ("api.core.v1.GRPCAction", "service", GoField::Null),          // api/core/v1/types.go:2892
    ("api.core.v1.HTTPGetAction", "port", GoField::Zero("0")),     // api/core/v1/types.go:2839
    ("api.core.v1.LocalObjectReference", "name", GoField::Omitted), // api/core/v1/types.go:7861
    (
        "api.core.v1.NamespaceCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:7493
    (
        "api.core.v1.NodeCondition",
        "lastHeartbeatTime",
        GoField::Null,
    ), // api/core/v1/types.go:7279
    (
        "api.core.v1.NodeCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:7282
    (
        "api.core.v1.PersistentVolumeClaimCondition",
        "lastProbeTime",
        GoField::Null,
    ), // api/core/v1/types.go:754
    (
        "api.core.v1.PersistentVolumeClaimCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:757
    ("api.core.v1.PodCondition", "lastProbeTime", GoField::Null),  // api/core/v1/types.go:3821
    (
        "api.core.v1.PodCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:3824
    (
        "api.core.v1.PodVolumeHealth",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:854
    (
        "api.core.v1.ProjectedVolumeSource",
        "sources",
        GoField::Null,
    ), // api/core/v1/types.go:2224
    (
        "api.core.v1.ReplicationControllerCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:5970
    (
        "api.core.v1.ReplicationControllerSpec",
        "minReadySeconds",
        GoField::Omitted,
    ), // api/core/v1/types.go:5894
    (
        "api.core.v1.ResourceFieldSelector",
        "divisor",
        GoField::Zero("\"0\""),
    ), // api/core/v1/types.go:2740
    ("api.core.v1.SecretEnvSource", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.SecretKeySelector", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.SecretProjection", "name", GoField::Omitted), // api/core/v1/types.go:7861 (its embedded LocalObjectReference)
    ("api.core.v1.ServicePort", "targetPort", GoField::Zero("0")), // api/core/v1/types.go:6560
    ("api.core.v1.TCPSocketAction", "port", GoField::Zero("0")), // api/core/v1/types.go:2875
    (
        "api.core.v1.TypedLocalObjectReference",
        "apiGroup",
        GoField::Null,
    ), // api/core/v1/types.go:7886
    (
        "api.core.v1.TypedObjectReference",
        "apiGroup",
        GoField::Null,
    ), // api/core/v1/types.go:633
    (
        "api.core.v1.VolumeHealthStatus",
        "lastTransitionTime",
        GoField::Null,
    ), // api/core/v1/types.go:827
    ("api.discovery.v1.EndpointSlice", "endpoints", GoField::Null), // api/discovery/v1/types.go:61
    ("api.discovery.v1.EndpointSlice", "ports", GoField::Null), // api/discovery/v1/types.go:71
    (
        "api.events.v1.Event",
        "deprecatedFirstTimestamp",
        GoField::Null,
    ), // api/events/v1/types.go:92
    (
        "api.events.v1.Event",
        "deprecatedLastTimestamp",
        GoField::Null,
    ), // api/events/v1/types.go:95
    (
        "api.flowcontrol.v1.FlowSchemaCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/flowcontrol/v1/types.go:390
    (
        "api.flowcontrol.v1.LimitedPriorityLevelConfiguration",
        "nominalConcurrencyShares",
        GoField::Null,
    ), // api/flowcontrol/v1/types.go:513
    (
        "api.flowcontrol.v1.PriorityLevelConfigurationCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/flowcontrol/v1/types.go:681
    (
        "api.flowcontrol.v1.ResourcePolicyRule",
        "namespaces",
        GoField::Null,
    ), // api/flowcontrol/v1/types.go:340
    (
        "api.networking.v1.HTTPIngressPath",
        "pathType",
        GoField::Null,
    ), // api/networking/v1/types.go:510
    (
        "api.networking.v1.IPAddressSpec",
        "parentRef",
        GoField::Omitted,
    ), // api/networking/v1/types.go:685
    (
        "api.networking.v1.IngressClassParametersReference",
        "scope",
        GoField::Null,
    ), // api/networking/v1/types.go:630
    ("api.rbac.v1.ClusterRole", "rules", GoField::Null),        // api/rbac/v1/types.go:205
    ("api.rbac.v1.Role", "rules", GoField::Null),               // api/rbac/v1/types.go:131
    (
        "api.resource.v1.AllocatedDeviceStatus",
        "conditions",
        GoField::Null,
    ), // api/resource/v1/types.go:2602
    (
        "api.resource.v1.CapacityRequestPolicy",
        "default",
        GoField::Null,
    ), // api/resource/v1/types.go:733
    (
        "api.resource.v1.CapacityRequestPolicyRange",
        "min",
        GoField::Omitted,
    ), // api/resource/v1/types.go:793
    ("api.resource.v1.Counter", "value", GoField::Zero("\"0\"")), // api/resource/v1/types.go:722
    ("api.resource.v1.CounterSet", "counters", GoField::Omitted), // api/resource/v1/types.go:294
    (
        "api.resource.v1.DeviceCapacity",
        "value",
        GoField::Zero("\"0\""),
    ), // api/resource/v1/types.go:700
    ("api.resource.v1.DeviceClaim", "requests", GoField::Null), // api/resource/v1/types.go:1241
    (
        "api.resource.v1.DeviceCounterConsumption",
        "counters",
        GoField::Omitted,
    ), // api/resource/v1/types.go:658
    (
        "api.storage.v1.CSINodeDriver",
        "topologyKeys",
        GoField::Null,
    ), // api/storage/v1/types.go:652
    (
        "api.storage.v1.StorageHealthCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // api/storage/v1/types.go:704
    ("api.storage.v1.VolumeError", "time", GoField::Null),      // api/storage/v1/types.go:238
    (
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go:349
    (
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus",
        "conditions",
        GoField::Null,
    ), // apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go:370
    (
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus",
        "storedVersions",
        GoField::Null,
    ), // apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go:385
    (
        "kube-aggregator.pkg.apis.apiregistration.v1.APIServiceCondition",
        "lastTransitionTime",
        GoField::Null,
    ), // kube-aggregator/pkg/apis/apiregistration/v1/types.go:126
];

/// What the Go type writes for `field` of `definition` where the schema rules are wrong.
pub fn go_field(definition: &str, field: &str) -> Option<GoField> {
    let definition = definition.strip_prefix("io.k8s.").unwrap_or(definition);
    GO_FIELDS
        .iter()
        .find(|(d, f, _)| *d == definition && *f == field)
        .map(|(_, _, go)| *go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_their_definition() {
        assert_eq!(
            go_field("io.k8s.api.core.v1.PodCondition", "lastProbeTime"),
            Some(GoField::Null)
        );
        assert_eq!(go_field("io.k8s.api.core.v1.PodCondition", "type"), None);
        for (_, _, go) in GO_FIELDS {
            if let GoField::Zero(text) = go {
                assert!(
                    serde_json::from_str::<serde_json::Value>(text).is_ok(),
                    "{text}"
                );
            }
        }
    }
}
