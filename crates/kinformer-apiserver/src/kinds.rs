//! What kube-apiserver's strategies for the built-in kinds do that generic storage does not:
//! defaulting ([`apply_defaults`]), what a new object is given ([`prepare_for_create`]) and
//! validation ([`validate`]). The write path calls these hooks; they read and change JSON
//! only (no store, no request), so nothing here calls back into the server.

mod batch;
mod budgets;
mod csr;
mod network;
mod rbac;
mod scheduling;
mod size_limits;
mod storage;

use serde_json::{Map, Value, json};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// Fills in the defaults kube-apiserver's defaulting functions give the objects of these groups
/// (`SetDefaults_Job`, `SetDefaults_CronJob`, a ReplicationController's, the simple ones of
/// the storage, network and scheduling kinds).
pub fn apply_defaults(object: &mut Map<String, Value>, resource: &ResourceType) {
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::job_defaults(object),
        ("batch", "cronjobs") => batch::cron_job_defaults(object),
        ("", "replicationcontrollers") => batch::replication_controller_defaults(object),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
            rbac::binding_defaults(object);
        }
        ("scheduling.k8s.io", "priorityclasses") => scheduling::priority_class(object),
        ("autoscaling", "horizontalpodautoscalers") => scheduling::autoscaler(object),
        ("", "limitranges") => scheduling::limit_range(object),
        ("storage.k8s.io", "storageclasses") => storage::storage_class(object),
        ("", "persistentvolumeclaims") => storage::claim(object),
        ("", "persistentvolumes") => storage::volume(object),
        ("networking.k8s.io", "networkpolicies") => network::network_policy(object),
        ("discovery.k8s.io", "endpointslices") => network::endpoint_slice(object),
        ("", "endpoints") => network::endpoints(object),
        _ => {}
    }
}

/// What these groups' strategies set on a new object (`PrepareForCreate`): a Job's generated
/// selector and labels, the zero status of a PDB, a ReplicationController, an HPA, an Ingress
/// or a ResourceQuota, a CSR's username, a claim's or volume's phase and protection finalizer.
pub fn prepare_for_create(object: &mut Map<String, Value>, resource: &ResourceType) {
    match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::job_selector(object),
        ("batch", "cronjobs") => batch::empty_status(object),
        ("policy", "poddisruptionbudgets") => budgets::zero_status(object),
        ("", "replicationcontrollers") => batch::replication_controller_status(object),
        ("certificates.k8s.io", "certificatesigningrequests") => {
            csr::prepare_for_create(object);
        }
        ("", "persistentvolumeclaims") => {
            storage::new_claim_or_volume(object, "kubernetes.io/pvc-protection");
        }
        ("", "persistentvolumes") => {
            storage::new_claim_or_volume(object, "kubernetes.io/pv-protection");
        }
        ("autoscaling", "horizontalpodautoscalers") => {
            object.insert("status".into(), scheduling::new_autoscaler_status());
        }
        ("networking.k8s.io", "ingresses") => {
            object.insert("status".into(), json!({"loadBalancer": {}}));
        }
        ("", "resourcequotas") => {
            object.insert("status".into(), json!({}));
        }
        _ => {}
    }
}

/// The required fields these groups' validation checks, as kube-apiserver's 422 Invalid.
pub fn validate(value: &Value, resource: &ResourceType) -> Result<(), ApiError> {
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let causes = match (resource.group.as_str(), resource.plural.as_str()) {
        ("batch", "jobs") => batch::validate_job(value),
        ("batch", "cronjobs") => batch::validate_cron_job(value),
        ("policy", "poddisruptionbudgets") => budgets::validate(value),
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
            rbac::validate_binding(value)
        }
        ("rbac.authorization.k8s.io", "roles" | "clusterroles") => rbac::validate_role(value),
        ("certificates.k8s.io", "certificatesigningrequests") => csr::validate(value),
        ("", "configmaps") => size_limits::config_map(value),
        ("", "secrets") => size_limits::secret(value),
        _ => Vec::new(),
    };
    if causes.is_empty() {
        return Ok(());
    }
    Err(invalid(resource, name, causes))
}

/// Sets `key` in `object` when absent (a `SetDefaults_` of a nil pointer or empty string).
fn default(object: &mut Map<String, Value>, key: &str, value: Value) {
    object.entry(key).or_insert(value);
}

/// A field the validation refuses: its path and kube-apiserver's words (`Required value`, …).
pub struct Cause {
    /// `spec.template.spec.containers`.
    pub field: String,
    /// The cause's reason (`FieldValueRequired`).
    pub reason: &'static str,
    /// `Required value`.
    pub message: String,
}

impl Cause {
    /// `field: Required value`.
    pub fn required(field: &str) -> Cause {
        Cause {
            field: field.to_owned(),
            reason: "FieldValueRequired",
            message: "Required value".into(),
        }
    }

    /// `field: Unsupported value: "x": supported values: …`.
    pub fn unsupported(field: &str, value: &str, supported: &[&str]) -> Cause {
        let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        Cause {
            field: field.to_owned(),
            reason: "FieldValueNotSupported",
            message: format!(
                "Unsupported value: {value:?}: supported values: {}",
                quoted.join(", ")
            ),
        }
    }

    /// `field: Invalid value: value: why`.
    pub fn invalid(field: &str, value: &str, why: &str) -> Cause {
        Cause {
            field: field.to_owned(),
            reason: "FieldValueInvalid",
            message: format!("Invalid value: {value}: {why}"),
        }
    }
}

/// kube-apiserver's 422 for `causes`: `Kind "name" is invalid: [a, b]` (`NewInvalid`: the
/// message lists each distinct cause once, `ErrorList.ToAggregate`; `details.causes` all).
pub fn invalid(resource: &ResourceType, name: &str, causes: Vec<Cause>) -> ApiError {
    let mut texts: Vec<String> = Vec::with_capacity(causes.len());
    for cause in &causes {
        let text = format!("{}: {}", cause.field, cause.message);
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    let joined = if texts.len() == 1 {
        texts[0].clone()
    } else {
        format!("[{}]", texts.join(", "))
    };
    let mut error = ApiError::invalid(resource, name, &joined);
    if let Some(details) = error.details.as_mut() {
        details.causes = causes
            .into_iter()
            .map(|c| crate::status::StatusCause {
                reason: c.reason.into(),
                message: c.message,
                field: c.field,
            })
            .collect();
    }
    error
}
