//! Column definitions of the printers of the groups beyond core and apps, as kube-apiserver
//! v1.37.2 answers them (`pkg/printers/internalversion/printers.go` `AddHandlers`; the
//! descriptions are the API types' swagger docs; kube-aggregator's for APIServices).

use serde_json::Value;

use super::columns::{age, containers, images, name, unformatted as column};

/// The columns of `jobs`.
pub fn job() -> Vec<Value> {
    vec![
        name(),
        column("Status", "string", "Status of the job.", 0),
        column(
            "Completions",
            "string",
            "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
            0,
        ),
        column(
            "Duration",
            "string",
            "Time required to complete the job.",
            0,
        ),
        age(),
        containers(1),
        images(1),
        column(
            "Selector",
            "string",
            "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            1,
        ),
    ]
}

/// The columns of `cronjobs`.
pub fn cron_job() -> Vec<Value> {
    vec![
        name(),
        column(
            "Schedule",
            "string",
            "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
            0,
        ),
        column(
            "Timezone",
            "string",
            "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
            0,
        ),
        column(
            "Suspend",
            "boolean",
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
            0,
        ),
        column(
            "Active",
            "integer",
            "A list of pointers to currently running jobs.",
            0,
        ),
        column(
            "Last Schedule",
            "string",
            "Information when was the last time the job was successfully scheduled.",
            0,
        ),
        age(),
        containers(1),
        images(1),
        column(
            "Selector",
            "string",
            "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            1,
        ),
    ]
}

/// The columns of `poddisruptionbudgets`.
pub fn pod_disruption_budget() -> Vec<Value> {
    vec![
        name(),
        column(
            "Min Available",
            "string",
            "The minimum number of pods that must be available.",
            0,
        ),
        column(
            "Max Unavailable",
            "string",
            "The maximum number of pods that may be unavailable.",
            0,
        ),
        column(
            "Allowed Disruptions",
            "integer",
            "Calculated number of pods that may be disrupted at this time.",
            0,
        ),
        age(),
    ]
}

/// The columns of `roles`.
pub fn role() -> Vec<Value> {
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

/// The columns of `rolebindings`.
pub fn role_binding() -> Vec<Value> {
    vec![
        name(),
        column(
            "Role",
            "string",
            "roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
            0,
        ),
        age(),
        column("Users", "string", "Users in the roleBinding", 1),
        column("Groups", "string", "Groups in the roleBinding", 1),
        column(
            "ServiceAccounts",
            "string",
            "ServiceAccounts in the roleBinding",
            1,
        ),
    ]
}

/// The columns of `certificatesigningrequests`.
pub fn certificate_signing_request() -> Vec<Value> {
    vec![
        name(),
        age(),
        column(
            "SignerName",
            "string",
            "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.",
            0,
        ),
        column("Requestor", "string", "Base64-encoded PKCS#10 CSR data", 0),
        column(
            "RequestedDuration",
            "string",
            "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
            0,
        ),
        column(
            "Condition",
            "string",
            "Conditions applied to the request, such as approval or denial.",
            0,
        ),
    ]
}

/// The columns of `replicationcontrollers`.
pub fn replication_controller() -> Vec<Value> {
    vec![
        name(),
        column(
            "Desired",
            "integer",
            "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
            0,
        ),
        column(
            "Current",
            "integer",
            "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
            0,
        ),
        column(
            "Ready",
            "integer",
            "The number of ready replicas for this replication controller.",
            0,
        ),
        age(),
        containers(1),
        images(1),
        column(
            "Selector",
            "string",
            "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            1,
        ),
    ]
}

/// The columns of `apiservices`.
pub fn api_service() -> Vec<Value> {
    vec![
        name(),
        column(
            "Service",
            "string",
            "The reference to the service that hosts this API endpoint.",
            0,
        ),
        column(
            "Available",
            "string",
            "Whether this service is available.",
            0,
        ),
        age(),
    ]
}
