//! Mutating admission of pods, as kube-apiserver's default admission chain changes a pod after
//! the field manager has recorded its writer, so that no manager owns what admission adds
//! (`apiserver/pkg/endpoints/handlers/create.go`: `FieldManager.UpdateNoErrors`, then `Admit`):
//!
//! - ServiceAccount (`plugin/pkg/admission/serviceaccount`), on create: the `default` account
//!   when none is named, and unless the pod or its account opts out, the projected
//!   `kube-api-access-XXXXX` token volume mounted read-only at
//!   `/var/run/secrets/kubernetes.io/serviceaccount` in every init and app container that does
//!   not mount that path already; the account's `imagePullSecrets` when the pod has none. Mirror
//!   pods are left alone, and refused when they name an account.
//! - DefaultTolerationSeconds (`.../defaulttolerationseconds`), on create and update: 300 s
//!   tolerations of the `not-ready` and `unreachable` NoExecute taints the pod does not
//!   tolerate yet.
//! - Priority (`.../priority`): on create the class's priority and preemption policy (0 and
//!   `PreemptLowerPriority` without a class), refusing a pod whose own values differ; on update
//!   the stored values when the new object leaves them out.
//!
//! What differs from a cluster: no service-account controller runs here, so a pod naming an
//! account that does not exist is admitted as if it did (kube-apiserver refuses it until the
//! account exists); an account that does exist is read. PriorityClasses are not served: the two
//! built-in system classes are known and any other name is refused, as on a cluster without it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::defaults;
use super::meta::str_at;
use super::strategy::random_suffix;
use crate::json::members::member_value;
use crate::json::type_meta::TypeMetaSpans;
use crate::objects::{StoredObject, object_key};
use crate::resources::ResourceType;
use crate::status::ApiError;
use crate::store::Txn;

/// The annotation that marks a kubelet's mirror of a static pod.
const MIRROR_POD: &str = "kubernetes.io/config.mirror";
const DEFAULT_ACCOUNT: &str = "default";
/// The token volume's name: this prefix and five random characters.
const TOKEN_VOLUME_PREFIX: &str = "kube-api-access-";
const TOKEN_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// `serviceaccount.WarnOnlyBoundTokenExpirationSeconds`.
const TOKEN_EXPIRATION_SECONDS: i64 = 3607;
/// kube-apiserver's `--default-not-ready-toleration-seconds` and
/// `--default-unreachable-toleration-seconds`.
const TOLERATION_SECONDS: i64 = 300;
const NODE_FAILURE_TAINTS: [&str; 2] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
];
/// The built-in PriorityClasses (`scheduling.SystemCriticalPriority` and 1000 above it).
const SYSTEM_PRIORITY_CLASSES: [(&str, i64); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];
/// A PriorityClass's default preemption policy, and the one a pod without a class gets.
const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// Admits a new object of `resource`: a pod as the module doc says, anything else unchanged.
/// Runs after the writer is recorded; what it adds is defaulted as kube-apiserver's storage
/// decodes (and defaults) the admitted object: the token volume's mode, the account alias.
pub fn admit_create(
    txn: &Txn<'_>,
    resource: &ResourceType,
    value: &mut Value,
) -> Result<(), ApiError> {
    if !is_pod(resource) {
        return Ok(());
    }
    let name = str_at(value, "/metadata/name").to_owned();
    let namespace = str_at(value, "/metadata/namespace").to_owned();
    let mirror = value
        .pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(MIRROR_POD))
        .is_some();
    let refuse = |why: String| ApiError::forbidden(resource, &name, &why);
    let Some(spec) = value.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if mirror {
        refuse_mirror_account(spec).map_err(refuse)?;
    } else {
        service_account(txn, &namespace, spec);
    }
    default_tolerations(spec);
    priority_on_create(spec).map_err(refuse)
}

/// Admits an update of `old` to `value` (not of a subresource): the tolerations and the
/// priority fields, as the module doc says.
pub fn admit_update(resource: &ResourceType, old: &Value, value: &mut Value) {
    if !is_pod(resource) {
        return;
    }
    let Some(spec) = value.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    default_tolerations(spec);
    for field in ["priority", "preemptionPolicy"] {
        let stored = old
            .pointer(&format!("/spec/{field}"))
            .filter(|v| !v.is_null());
        if let (None | Some(Value::Null), Some(stored)) = (spec.get(field), stored) {
            spec.insert(field.to_owned(), stored.clone());
        }
    }
}

fn is_pod(resource: &ResourceType) -> bool {
    resource.is_pod() && !resource.custom
}

/// The text at `key` of `map`; empty when absent or not a string.
fn text<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The ServiceAccount plugin's Validate for mirror pods (which it never mutates).
fn refuse_mirror_account(spec: &Map<String, Value>) -> Result<(), String> {
    if text(spec, "serviceAccountName").is_empty() {
        Ok(())
    } else {
        Err("a mirror pod may not reference service accounts".to_owned())
    }
}

/// The ServiceAccount plugin's Admit for a pod that is not a mirror pod.
fn service_account(txn: &Txn<'_>, namespace: &str, spec: &mut Map<String, Value>) {
    if text(spec, "serviceAccountName").is_empty() {
        spec.insert("serviceAccountName".into(), DEFAULT_ACCOUNT.into());
    }
    defaults::service_account_alias(spec);
    let account_name = text(spec, "serviceAccountName").to_owned();
    let account = stored_account(txn, namespace, &account_name);
    if automounts(spec, account.as_ref()) {
        mount_token(spec);
    }
    let no_pull_secrets = spec
        .get("imagePullSecrets")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    if no_pull_secrets && let Some(secrets) = account.as_ref().and_then(pull_secret_names) {
        spec.insert("imagePullSecrets".into(), secrets);
    }
}

/// The service account `name` in `namespace`, when it is stored.
fn stored_account(txn: &Txn<'_>, namespace: &str, name: &str) -> Option<Value> {
    let accounts = txn.registry().find("", "v1", "serviceaccounts")?;
    let stored = txn.get(&accounts.key(), &object_key(namespace, name))?;
    stored.to_value().ok()
}

/// `shouldAutomount`: the pod's choice, else the account's, else true.
fn automounts(spec: &Map<String, Value>, account: Option<&Value>) -> bool {
    let choice = |value: Option<&Value>| value.and_then(Value::as_bool);
    choice(spec.get("automountServiceAccountToken"))
        .or_else(|| choice(account.and_then(|a| a.get("automountServiceAccountToken"))))
        .unwrap_or(true)
}

/// The account's `imagePullSecrets` as the pod gets them (names only); None when it has none.
fn pull_secret_names(account: &Value) -> Option<Value> {
    let secrets = account.get("imagePullSecrets")?.as_array()?;
    let names: Vec<Value> = secrets
        .iter()
        .map(|secret| json!({"name": secret.get("name").and_then(Value::as_str).unwrap_or("")}))
        .collect();
    (!names.is_empty()).then_some(Value::Array(names))
}

/// `mountServiceAccountToken` with bound token volumes: every init and app container without a
/// mount at the token path mounts the pod's `kube-api-access-*` volume, which is added when a
/// container needed it and the pod had none.
fn mount_token(spec: &mut Map<String, Value>) {
    let existing = spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|volume| volume.get("name").and_then(Value::as_str))
        .find(|name| name.starts_with(TOKEN_VOLUME_PREFIX))
        .map(str::to_owned);
    let volume_name = existing
        .clone()
        .unwrap_or_else(|| format!("{TOKEN_VOLUME_PREFIX}{}", random_suffix()));
    let mut mounted = false;
    for list in ["initContainers", "containers"] {
        let containers = spec.get_mut(list).and_then(Value::as_array_mut);
        for container in containers.into_iter().flatten() {
            if let Some(container) = container.as_object_mut() {
                mounted |= mount_in(container, &volume_name);
            }
        }
    }
    if existing.is_none() && mounted {
        push(spec, "volumes", token_volume(&volume_name));
    }
}

/// Adds the token mount to `container` unless it mounts something at the token path; whether
/// it did.
fn mount_in(container: &mut Map<String, Value>, volume_name: &str) -> bool {
    let has_token_path = container
        .get("volumeMounts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|mount| mount.get("mountPath").and_then(Value::as_str) == Some(TOKEN_MOUNT_PATH));
    if has_token_path {
        return false;
    }
    let mount = json!({"mountPath": TOKEN_MOUNT_PATH, "name": volume_name, "readOnly": true});
    push(container, "volumeMounts", mount);
    true
}

/// The projected volume of a bound service account token (`TokenVolumeSource`): the token, the
/// cluster's CA bundle and the pod's namespace; defaulted.
fn token_volume(name: &str) -> Value {
    let mut volume = json!({
        "name": name,
        "projected": {"sources": [
            {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
            {"downwardAPI": {"items": [{
                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                "path": "namespace"
            }]}}
        ]}
    });
    if let Some(volume) = volume.as_object_mut() {
        defaults::volume(volume);
    }
    volume
}

/// Appends `item` to the array at `key`, made (or replaced, when not an array) as needed.
fn push(map: &mut Map<String, Value>, key: &str, item: Value) {
    let list = map.entry(key).or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    if let Some(list) = list.as_array_mut() {
        list.push(item);
    }
}

/// DefaultTolerationSeconds: a 300 s NoExecute toleration of each node-failure taint the pod
/// does not tolerate.
fn default_tolerations(spec: &mut Map<String, Value>) {
    let tolerations = spec.get("tolerations").and_then(Value::as_array);
    let pairs: Vec<(&str, &str)> = tolerations
        .into_iter()
        .flatten()
        .map(|toleration| (str_at(toleration, "/key"), str_at(toleration, "/effect")))
        .collect();
    let missing = untolerated(&pairs);
    for taint in missing {
        let toleration = json!({
            "effect": "NoExecute", "key": taint, "operator": "Exists",
            "tolerationSeconds": TOLERATION_SECONDS
        });
        push(spec, "tolerations", toleration);
    }
}

/// The node-failure taints `tolerations` (each its key and effect, absent: empty) do not
/// tolerate with NoExecute (a toleration with no key tolerates every taint, one with no effect
/// every effect).
fn untolerated(tolerations: &[(&str, &str)]) -> Vec<&'static str> {
    let tolerates = |taint: &str| {
        tolerations.iter().any(|(key, effect)| {
            (key.is_empty() || *key == taint) && (effect.is_empty() || *effect == "NoExecute")
        })
    };
    NODE_FAILURE_TAINTS
        .into_iter()
        .filter(|taint| !tolerates(taint))
        .collect()
}

/// Whether an update of `current` that keeps its spec as it is passes admission unchanged (the
/// replace fast path's question; asked once per stored object): always, but for a pod that
/// lacks what admission would add on update.
pub fn admits_unchanged_spec(resource: &ResourceType, current: &StoredObject) -> bool {
    !is_pod(resource) || current.spec_admitted(admits_stored_spec)
}

/// Whether an update that keeps the `stored` pod's spec (compact JSON, TypeMeta at
/// `type_meta`) as it is passes admission unchanged: the pod tolerates both node-failure
/// taints already (the Priority plugin only copies what the stored pod has). For the replace
/// fast path, which does not parse the object: the spec is found right after `metadata`, as
/// the server writes it, without scanning metadata again.
fn admits_stored_spec(stored: &[u8], type_meta: TypeMetaSpans) -> bool {
    const SPEC: &[u8] = b",\"spec\":";
    let after_metadata = type_meta
        .metadata()
        .filter(|metadata| {
            stored
                .get(metadata.end..)
                .is_some_and(|rest| rest.starts_with(SPEC))
        })
        .map(|metadata| metadata.end + SPEC.len()..stored.len());
    let spec = after_metadata.or_else(|| member_value(stored, 0..stored.len(), b"spec"));
    let tolerations = spec
        .and_then(|spec| member_value(stored, spec, b"tolerations"))
        .and_then(|range| stored.get(range))
        .and_then(|raw| serde_json::from_slice::<Vec<StoredToleration<'_>>>(raw).ok());
    tolerations.is_some_and(|tolerations| {
        let pairs: Vec<(&str, &str)> = tolerations.iter().map(|t| (&*t.key, &*t.effect)).collect();
        untolerated(&pairs).is_empty()
    })
}

/// What the node-failure check reads of a stored toleration, read without the rest. A key or
/// effect that is not a string fails the read, and the caller's answer is "not admitted" (the
/// general path decides).
#[derive(Deserialize)]
struct StoredToleration<'a> {
    #[serde(default, borrow)]
    key: Cow<'a, str>,
    #[serde(default, borrow)]
    effect: Cow<'a, str>,
}

/// The Priority plugin on create: the priority and preemption policy of the pod's class (or of
/// no class), refusing values the pod gives that differ.
fn priority_on_create(spec: &mut Map<String, Value>) -> Result<(), String> {
    let class = text(spec, "priorityClassName");
    let priority = if class.is_empty() {
        0
    } else {
        SYSTEM_PRIORITY_CLASSES
            .into_iter()
            .find(|(name, _)| *name == class)
            .map(|(_, priority)| priority)
            .ok_or_else(|| format!("no PriorityClass with name {class} was found"))?
    };
    if let Some(given) = spec.get("priority").filter(|v| !v.is_null())
        && given.as_i64() != Some(priority)
    {
        return Err(format!(
            "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
        ));
    }
    spec.insert("priority".into(), priority.into());
    let policy = PREEMPT_LOWER_PRIORITY;
    match text(spec, "preemptionPolicy") {
        "" => {}
        given if given == policy => {}
        given => {
            return Err(format!(
                "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name"
            ));
        }
    }
    spec.insert("preemptionPolicy".into(), policy.into());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::type_meta::serialise;

    /// A stored pod with `tolerations` (and `extra` members, which sort before `spec`).
    fn stored(tolerations: Value, extra: Value) -> (Vec<u8>, TypeMetaSpans) {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"containers": [{"name": "a"}], "tolerations": tolerations}});
        for (key, value) in extra.as_object().into_iter().flatten() {
            pod[key] = value.clone();
        }
        serialise(&pod, false)
    }

    #[test]
    fn a_stored_spec_is_admitted_unchanged_only_when_it_tolerates_both_taints() {
        let both = json!([
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists"}
        ]);
        let no_schedule = json!([
            {"operator": "Exists", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists"}
        ]);
        let everything = json!([{"operator": "Exists"}]);
        let with = |extra: Value| {
            let mut list = both.as_array().cloned().unwrap_or_default();
            list.push(extra);
            Value::Array(list)
        };
        let escaped = with(json!({"key": "a\"b", "effect": "No\\Schedule"}));
        // Not a string: not read, so left to the general path (which reads it as absent).
        let numbered = with(json!({"key": 5}));
        // `metadataX` sorts between metadata and spec: spec is then found by scanning.
        for extra in [json!({}), json!({"metadataX": {"a": [1, "]}"]}})] {
            for (tolerations, admitted) in [
                (both.clone(), true),
                (no_schedule.clone(), false),
                (everything.clone(), true),
                (escaped.clone(), true),
                (numbered.clone(), false),
                (json!(null), false),
            ] {
                let (bytes, type_meta) = stored(tolerations.clone(), extra.clone());
                assert_eq!(
                    admits_stored_spec(&bytes, type_meta),
                    admitted,
                    "{tolerations} with {extra}"
                );
            }
        }
    }
}
