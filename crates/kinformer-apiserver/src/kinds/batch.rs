//! batch/v1 Jobs and CronJobs, and core ReplicationControllers: their defaulting
//! (`pkg/apis/batch/v1/defaults.go`, `pkg/apis/core/v1/defaults.go`), a Job's generated
//! selector (`pkg/registry/batch/job/strategy.go`, `generateSelector`) and the fields their
//! validation requires. Running a Job's pods and a CronJob's schedule is the controllers' work
//! (`--controllers`), not the API server's.

use serde_json::{Map, Value, json};

use super::Cause;

/// The value at JSON pointer `path` (`/a/b`) of `object`.
fn pointer<'a>(object: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut steps = path.trim_start_matches('/').split('/');
    let first = object.get(steps.next()?)?;
    steps.try_fold(first, |value, step| value.get(step))
}

/// Sets `key` to `default` when it is absent or null.
fn set(object: &mut Map<String, Value>, key: &str, default: Value) {
    if object.get(key).is_none_or(Value::is_null) {
        object.insert(key.to_owned(), default);
    }
}

/// The map at `key`, created empty when absent.
fn map<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    if object.get(key).is_none_or(Value::is_null) {
        object.insert(key.to_owned(), json!({}));
    }
    object.get_mut(key)?.as_object_mut()
}

/// A pod template's defaults (`SetDefaults_PodSpec` and `SetDefaults_Container`): the same
/// the apps workloads get.
fn template(spec: &mut Map<String, Value>, restart_policy: &str) {
    let Some(template) = map(spec, "template") else {
        return;
    };
    map(template, "metadata");
    let Some(pod) = map(template, "spec") else {
        return;
    };
    set(pod, "restartPolicy", json!(restart_policy));
    set(pod, "dnsPolicy", json!("ClusterFirst"));
    set(pod, "schedulerName", json!("default-scheduler"));
    set(pod, "securityContext", json!({}));
    set(pod, "terminationGracePeriodSeconds", json!(30));
    for key in ["containers", "initContainers"] {
        let Some(containers) = pod.get_mut(key).and_then(Value::as_array_mut) else {
            continue;
        };
        for container in containers.iter_mut().filter_map(Value::as_object_mut) {
            let image = container
                .get("image")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let latest = !image.contains(':') || image.ends_with(":latest");
            let latest = latest && !image.contains('@');
            set(
                container,
                "imagePullPolicy",
                json!(if latest { "Always" } else { "IfNotPresent" }),
            );
            set(container, "resources", json!({}));
            set(
                container,
                "terminationMessagePath",
                json!("/dev/termination-log"),
            );
            set(container, "terminationMessagePolicy", json!("File"));
        }
    }
}

/// A Job spec's defaults (`SetDefaults_Job`).
fn job_spec(spec: &mut Map<String, Value>) {
    let completions_unset = spec.get("completions").is_none_or(Value::is_null);
    let parallelism_unset = spec.get("parallelism").is_none_or(Value::is_null);
    if completions_unset && parallelism_unset {
        spec.insert("completions".into(), json!(1));
        spec.insert("parallelism".into(), json!(1));
    }
    set(spec, "parallelism", json!(1));
    set(spec, "backoffLimit", json!(6));
    set(spec, "completionMode", json!("NonIndexed"));
    set(spec, "suspend", json!(false));
    let pod_failure_policy = spec.get("podFailurePolicy").is_some_and(|p| !p.is_null());
    set(
        spec,
        "podReplacementPolicy",
        json!(if pod_failure_policy {
            "Failed"
        } else {
            "TerminatingOrFailed"
        }),
    );
    set(spec, "manualSelector", json!(false));
}

/// A Job's defaults.
pub fn job_defaults(object: &mut Map<String, Value>) {
    if let Some(spec) = map(object, "spec") {
        job_spec(spec);
        template(spec, "Never");
    }
}

/// A CronJob's defaults (`SetDefaults_CronJob`), its job template's too.
pub fn cron_job_defaults(object: &mut Map<String, Value>) {
    let Some(spec) = map(object, "spec") else {
        return;
    };
    set(spec, "concurrencyPolicy", json!("Allow"));
    set(spec, "suspend", json!(false));
    set(spec, "successfulJobsHistoryLimit", json!(3));
    set(spec, "failedJobsHistoryLimit", json!(1));
    let Some(job_template) = map(spec, "jobTemplate") else {
        return;
    };
    map(job_template, "metadata");
    if let Some(job) = map(job_template, "spec") {
        template(job, "Never");
    }
}

/// A ReplicationController's defaults (`SetDefaults_ReplicationController`): the selector and
/// labels from the template's labels, one replica.
pub fn replication_controller_defaults(object: &mut Map<String, Value>) {
    let labels = pointer(object, "/spec/template/metadata/labels")
        .cloned()
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()));
    if let Some(labels) = labels {
        if let Some(spec) = map(object, "spec") {
            set(spec, "selector", labels.clone());
        }
        if let Some(metadata) = map(object, "metadata") {
            set(metadata, "labels", labels);
        }
    }
    if let Some(spec) = map(object, "spec") {
        set(spec, "replicas", json!(1));
        template(spec, "Always");
    }
}

/// A new ReplicationController's status: `replicas: 0` (a non-omitempty int).
pub fn replication_controller_status(object: &mut Map<String, Value>) {
    object.insert("status".into(), json!({"replicas": 0}));
}

/// A new object's empty status.
pub fn empty_status(object: &mut Map<String, Value>) {
    object.insert("status".into(), json!({}));
}

/// The labels kube-apiserver puts on a Job and its template when it generates the selector.
fn controller_labels(uid: &str, name: &str) -> [(&'static str, String); 4] {
    [
        ("batch.kubernetes.io/controller-uid", uid.to_owned()),
        ("batch.kubernetes.io/job-name", name.to_owned()),
        ("controller-uid", uid.to_owned()),
        ("job-name", name.to_owned()),
    ]
}

/// A new Job's status (empty) and, unless `spec.manualSelector`, its generated selector
/// (`batch.kubernetes.io/controller-uid`) with the controller labels on the Job (when it has
/// none) and its pod template (`job/strategy.go`, `generateSelector`).
pub fn job_selector(object: &mut Map<String, Value>) {
    empty_status(object);
    if pointer(object, "/spec/manualSelector") == Some(&json!(true)) {
        return;
    }
    let text = |path: &str| {
        pointer(object, path)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (uid, name) = (text("/metadata/uid"), text("/metadata/name"));
    let labels: Map<String, Value> = controller_labels(&uid, &name)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::String(v)))
        .collect();
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert(
            "selector".into(),
            json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}),
        );
        if let Some(template_meta) = map(spec, "template").and_then(|t| map(t, "metadata"))
            && let Some(template_labels) = map(template_meta, "labels")
        {
            for (k, v) in &labels {
                template_labels.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(metadata) = map(object, "metadata") {
        let has_labels = metadata
            .get("labels")
            .and_then(Value::as_object)
            .is_some_and(|l| !l.is_empty());
        if !has_labels {
            metadata.insert("labels".into(), Value::Object(labels));
        }
    }
}

/// What a pod template must have: containers, and a restart policy a Job accepts.
fn template_causes(template: Option<&Value>, prefix: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let containers = template
        .and_then(|t| t.pointer("/spec/containers"))
        .and_then(Value::as_array);
    if containers.is_none_or(Vec::is_empty) {
        causes.push(Cause::required(&format!("{prefix}.spec.containers")));
    }
    let policy = template
        .and_then(|t| t.pointer("/spec/restartPolicy"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !matches!(policy, "Never" | "OnFailure") {
        causes.push(Cause {
            field: format!("{prefix}.spec.restartPolicy"),
            reason: "FieldValueRequired",
            message: r#"Required value: valid values: "OnFailure", "Never""#.into(),
        });
    }
    causes
}

/// A Job's required fields (`ValidateJob`): a template with containers and a restart policy
/// of `Never` or `OnFailure`.
pub fn validate_job(value: &Value) -> Vec<Cause> {
    template_causes(value.pointer("/spec/template"), "spec.template")
}

/// A CronJob's required fields (`ValidateCronJob`): a schedule and a job template as a Job's.
pub fn validate_cron_job(value: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let schedule = value
        .pointer("/spec/schedule")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if schedule.is_empty() {
        causes.push(Cause::required("spec.schedule"));
    }
    causes.extend(template_causes(
        value.pointer("/spec/jobTemplate/spec/template"),
        "spec.jobTemplate.spec.template",
    ));
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_gets_kube_apiservers_defaults_and_selector() {
        let mut job = json!({"metadata": {"name": "j", "uid": "u1"},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox"}]}}}});
        let object = job.as_object_mut().unwrap();
        job_defaults(object);
        job_selector(object);
        assert_eq!(job["spec"]["completions"], 1);
        assert_eq!(job["spec"]["backoffLimit"], 6);
        assert_eq!(
            job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
            "u1"
        );
        assert_eq!(job["metadata"]["labels"]["job-name"], "j");
        assert_eq!(
            job["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
            "Always"
        );
    }

    #[test]
    fn a_job_without_containers_or_with_restart_always_is_invalid() {
        let job = json!({"spec": {"template": {"spec": {"restartPolicy": "Always"}}}});
        let fields: Vec<String> = validate_job(&job).into_iter().map(|c| c.field).collect();
        assert_eq!(
            fields,
            [
                "spec.template.spec.containers",
                "spec.template.spec.restartPolicy"
            ]
        );
    }
}
