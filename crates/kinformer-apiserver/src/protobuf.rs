//! Protobuf request bodies (`application/vnd.kubernetes.protobuf`), as kubectl's imperative
//! `create configmap|secret|namespace|deployment|service|serviceaccount` sends them: the
//! `k8s\0` magic, a `runtime.Unknown` envelope naming apiVersion and kind, and the object's
//! message inside. Messages are decoded with k8s-pb (prost) and turned into the JSON the store
//! keeps. Only the fields those commands (and typical clients) set are carried over; a kind
//! outside that list is 415, as kube-apiserver answers for types it has no protobuf for.

use std::collections::BTreeMap;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::Unknown;
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::Message;
use serde_json::{Map, Value, json};

/// The media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// What every protobuf body starts with.
const MAGIC: &[u8] = b"k8s\0";

/// Why a body could not be decoded (the caller answers 400 or 415).
#[derive(Debug, PartialEq)]
pub enum DecodeError {
    /// Not a valid envelope or message.
    Malformed(String),
    /// A kind this server decodes no protobuf for.
    UnsupportedKind(String),
}

fn malformed(error: impl std::fmt::Display) -> DecodeError {
    DecodeError::Malformed(error.to_string())
}

/// Decodes a protobuf request body into the object's JSON.
pub fn decode(body: &[u8]) -> Result<Value, DecodeError> {
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| malformed("the body does not start with the k8s protobuf magic"))?;
    let unknown = Unknown::decode(envelope).map_err(malformed)?;
    let type_meta = unknown.type_meta.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    let raw = unknown.raw.unwrap_or_default();
    let mut object = match (api_version.as_str(), kind.as_str()) {
        ("v1", "ConfigMap") => config_map(core::ConfigMap::decode(&*raw).map_err(malformed)?),
        ("v1", "Secret") => secret(core::Secret::decode(&*raw).map_err(malformed)?),
        ("v1", "Namespace") => namespace(core::Namespace::decode(&*raw).map_err(malformed)?),
        ("v1", "ServiceAccount") => {
            service_account(core::ServiceAccount::decode(&*raw).map_err(malformed)?)
        }
        ("v1", "Service") => service(core::Service::decode(&*raw).map_err(malformed)?),
        ("apps/v1", "Deployment") => {
            deployment(apps::Deployment::decode(&*raw).map_err(malformed)?)
        }
        _ => {
            return Err(DecodeError::UnsupportedKind(format!(
                "{api_version}/{kind}"
            )));
        }
    };
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    Ok(Value::Object(object))
}

/// Inserts `value` under `key` unless it is null, an empty string or an empty object, array or
/// map: protobuf carries a Go struct's unset strings as `""`, which its JSON leaves out
/// (`omitempty`), and defaulting then fills in.
fn put(object: &mut Map<String, Value>, key: &str, value: Value) {
    let empty = match &value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    if !empty {
        object.insert(key.into(), value);
    }
}

fn object_with_metadata(metadata: Option<meta::ObjectMeta>) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("metadata".into(), object_meta(metadata.unwrap_or_default()));
    object
}

fn object_meta(metadata: meta::ObjectMeta) -> Value {
    let mut out = Map::new();
    put(&mut out, "name", json!(metadata.name));
    put(&mut out, "generateName", json!(metadata.generate_name));
    put(&mut out, "namespace", json!(metadata.namespace));
    put(
        &mut out,
        "resourceVersion",
        json!(metadata.resource_version),
    );
    put(&mut out, "labels", json!(metadata.labels));
    put(&mut out, "annotations", json!(metadata.annotations));
    put(&mut out, "finalizers", json!(metadata.finalizers));
    Value::Object(out)
}

fn base64_map(map: BTreeMap<String, Vec<u8>>) -> Value {
    map.into_iter()
        .map(|(key, bytes)| (key, Value::String(BASE64_STANDARD.encode(bytes))))
        .collect::<Map<String, Value>>()
        .into()
}

fn config_map(message: core::ConfigMap) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    put(&mut object, "data", json!(message.data));
    put(&mut object, "binaryData", base64_map(message.binary_data));
    put(&mut object, "immutable", json!(message.immutable));
    object
}

fn secret(message: core::Secret) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    put(&mut object, "data", base64_map(message.data));
    put(&mut object, "stringData", json!(message.string_data));
    put(&mut object, "type", json!(message.r#type));
    put(&mut object, "immutable", json!(message.immutable));
    object
}

fn namespace(message: core::Namespace) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    let mut spec = Map::new();
    let finalizers = message.spec.map(|s| s.finalizers).unwrap_or_default();
    put(&mut spec, "finalizers", json!(finalizers));
    put(&mut object, "spec", Value::Object(spec));
    object
}

fn service_account(message: core::ServiceAccount) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    put(
        &mut object,
        "automountServiceAccountToken",
        json!(message.automount_service_account_token),
    );
    object
}

fn int_or_string(value: Option<IntOrString>) -> Value {
    match value {
        Some(IntOrString {
            r#type: Some(1),
            str_val,
            ..
        }) => json!(str_val),
        Some(IntOrString { int_val, .. }) => json!(int_val),
        None => Value::Null,
    }
}

fn service(message: core::Service) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    let spec = message.spec.unwrap_or_default();
    let ports: Vec<Value> = spec
        .ports
        .into_iter()
        .map(|port| {
            let mut out = Map::new();
            put(&mut out, "name", json!(port.name));
            put(&mut out, "protocol", json!(port.protocol));
            put(&mut out, "port", json!(port.port));
            put(&mut out, "targetPort", int_or_string(port.target_port));
            put(
                &mut out,
                "nodePort",
                json!(port.node_port.filter(|p| *p != 0)),
            );
            Value::Object(out)
        })
        .collect();
    let mut out = Map::new();
    put(&mut out, "ports", Value::Array(ports));
    put(&mut out, "selector", json!(spec.selector));
    put(&mut out, "clusterIP", json!(spec.cluster_ip));
    put(&mut out, "type", json!(spec.r#type));
    put(&mut out, "externalName", json!(spec.external_name));
    put(&mut object, "spec", Value::Object(out));
    object
}

fn label_selector(selector: Option<meta::LabelSelector>) -> Value {
    let Some(selector) = selector else {
        return Value::Null;
    };
    let expressions: Vec<Value> = selector
        .match_expressions
        .into_iter()
        .map(|e| json!({"key": e.key, "operator": e.operator, "values": e.values}))
        .collect();
    let mut out = Map::new();
    put(&mut out, "matchLabels", json!(selector.match_labels));
    put(&mut out, "matchExpressions", Value::Array(expressions));
    Value::Object(out)
}

fn container(container: core::Container) -> Value {
    let ports: Vec<Value> = container
        .ports
        .into_iter()
        .map(|p| {
            let mut out = Map::new();
            put(&mut out, "name", json!(p.name));
            put(&mut out, "containerPort", json!(p.container_port));
            put(&mut out, "protocol", json!(p.protocol));
            Value::Object(out)
        })
        .collect();
    let env: Vec<Value> = container
        .env
        .into_iter()
        .map(|e| json!({"name": e.name, "value": e.value.unwrap_or_default()}))
        .collect();
    let mut out = Map::new();
    put(&mut out, "name", json!(container.name));
    put(&mut out, "image", json!(container.image));
    put(&mut out, "command", json!(container.command));
    put(&mut out, "args", json!(container.args));
    put(&mut out, "workingDir", json!(container.working_dir));
    put(&mut out, "ports", Value::Array(ports));
    put(&mut out, "env", Value::Array(env));
    put(
        &mut out,
        "imagePullPolicy",
        json!(container.image_pull_policy),
    );
    out.insert("resources".into(), json!({}));
    Value::Object(out)
}

fn pod_template(template: Option<core::PodTemplateSpec>) -> Value {
    let template = template.unwrap_or_default();
    let spec = template.spec.unwrap_or_default();
    let containers: Vec<Value> = spec.containers.into_iter().map(container).collect();
    let mut pod_spec = Map::new();
    pod_spec.insert("containers".into(), Value::Array(containers));
    put(&mut pod_spec, "restartPolicy", json!(spec.restart_policy));
    put(
        &mut pod_spec,
        "serviceAccountName",
        json!(spec.service_account_name),
    );
    put(&mut pod_spec, "nodeSelector", json!(spec.node_selector));
    json!({"metadata": object_meta(template.metadata.unwrap_or_default()), "spec": pod_spec})
}

fn deployment(message: apps::Deployment) -> Map<String, Value> {
    let mut object = object_with_metadata(message.metadata);
    let spec = message.spec.unwrap_or_default();
    let mut out = Map::new();
    put(&mut out, "replicas", json!(spec.replicas));
    put(&mut out, "selector", label_selector(spec.selector));
    out.insert("template".into(), pod_template(spec.template));
    let mut strategy = Map::new();
    put(
        &mut strategy,
        "type",
        json!(spec.strategy.and_then(|s| s.r#type)),
    );
    put(&mut out, "strategy", Value::Object(strategy));
    put(
        &mut out,
        "minReadySeconds",
        json!(spec.min_ready_seconds.filter(|s| *s != 0)),
    );
    put(&mut out, "paused", json!(spec.paused.filter(|p| *p)));
    put(&mut object, "spec", Value::Object(out));
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body as kubectl sends it.
    fn envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
        let unknown = Unknown {
            type_meta: Some(k8s_pb::apimachinery::pkg::runtime::TypeMeta {
                api_version: Some(api_version.into()),
                kind: Some(kind.into()),
            }),
            raw: Some(raw),
            content_encoding: Some(String::new()),
            content_type: Some(String::new()),
        };
        let mut body = MAGIC.to_vec();
        body.extend(unknown.encode_to_vec());
        body
    }

    #[test]
    fn a_config_map_round_trips_into_json() {
        let message = core::ConfigMap {
            metadata: Some(meta::ObjectMeta {
                name: Some("c".into()),
                ..Default::default()
            }),
            data: BTreeMap::from([("k".into(), "v".into())]),
            binary_data: BTreeMap::from([("b".into(), vec![0, 255])]),
            immutable: None,
        };
        let decoded = decode(&envelope("v1", "ConfigMap", message.encode_to_vec()));
        assert_eq!(
            decoded,
            Ok(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                "data": {"k": "v"}, "binaryData": {"b": "AP8="}})
            )
        );
    }

    #[test]
    fn bad_bodies_are_errors() {
        assert!(matches!(decode(b"{}"), Err(DecodeError::Malformed(_))));
        assert!(matches!(
            decode(b"k8s\0\xff\xff\xff"),
            Err(DecodeError::Malformed(_))
        ));
        let pod = envelope("v1", "Pod", Vec::new());
        assert_eq!(
            decode(&pod),
            Err(DecodeError::UnsupportedKind("v1/Pod".into()))
        );
    }
}
