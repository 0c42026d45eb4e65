//! Protobuf request bodies (`application/vnd.kubernetes.protobuf`), as kubectl's imperative
//! commands send them: the `k8s\0` magic, a `runtime.Unknown` envelope naming apiVersion and
//! kind, and the object's message inside. Any built-in kind is decoded, by the message
//! descriptors of its `generated.proto` (`table`, captured by `scripts/protobuf-capture`), into
//! the JSON kube-apiserver's Go types would write for it (`json`); the JSON path then takes it
//! as any JSON body. A kind with no message (a custom resource) is 415, as kube-apiserver
//! answers for types it has no protobuf for.
//!
//! The server's own protobuf answers are written by [`encode`] and negotiated by [`respond`].
//! Clients and proxies reading a protobuf stream go the other way:
//! [`object_json`], [`list_json`] and [`watch_event_json`] write, straight from the wire, the
//! JSON bytes kube-apiserver gives for the same answer in `application/json` (`answer`,
//! `go_json`, over the table compiled for speed in `compiled`).

mod answer;
mod compiled;
pub mod encode;
mod go_json;
mod json;
pub mod respond;
mod special;
mod table;
mod wire;

use serde_json::Value;

use wire::Wire;

pub use answer::{EventJson, ListJson, list_json, object_json, watch_event_json};

/// The media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// What every protobuf body starts with.
const MAGIC: &[u8] = b"k8s\0";

/// Why a body could not be decoded (the caller answers 400 or 415).
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum DecodeError {
    /// Not a valid envelope or message.
    #[error("{0}")]
    Malformed(String),
    /// A kind this server decodes no protobuf for.
    #[error("no protobuf message for {0}")]
    UnsupportedKind(String),
}

/// Whether a kind (`apps/v1`, `Deployment`) has a message: its objects decode whole.
pub fn knows_kind(api_version: &str, kind: &str) -> bool {
    compiled::kind_index(api_version, kind).is_some()
}

fn malformed(error: impl std::fmt::Display) -> DecodeError {
    DecodeError::Malformed(error.to_string())
}

/// Decodes a protobuf request body into the object's JSON.
pub fn decode(body: &[u8]) -> Result<Value, DecodeError> {
    decode_at(body, 0)
}

/// [`decode`] of a body `depth` messages deep (a `RawExtension` may hold one).
fn decode_at(body: &[u8], depth: usize) -> Result<Value, DecodeError> {
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| malformed("the body does not start with the k8s protobuf magic"))?;
    let unknown = Envelope::read(envelope)?;
    let message = table::kind(&unknown.api_version, &unknown.kind).ok_or_else(|| {
        DecodeError::UnsupportedKind(format!("{}/{}", unknown.api_version, unknown.kind))
    })?;
    let Value::Object(mut object) = json::message(message.name, unknown.raw, depth)? else {
        return Err(malformed(format!("{} is not an object", message.name)));
    };
    object.insert("apiVersion".into(), unknown.api_version.into());
    object.insert("kind".into(), unknown.kind.into());
    Ok(Value::Object(object))
}

/// `runtime.Unknown`: typeMeta 1 (apiVersion 1, kind 2), raw 2; contentEncoding 3 and
/// contentType 4 are empty for a protobuf object.
struct Envelope<'a> {
    api_version: String,
    kind: String,
    raw: &'a [u8],
}

impl<'a> Envelope<'a> {
    fn read(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut envelope = Envelope {
            api_version: String::new(),
            kind: String::new(),
            raw: &[],
        };
        for (number, value) in wire::fields(bytes)? {
            match (number, value) {
                (1, Wire::Bytes(type_meta)) => {
                    for (number, value) in wire::fields(type_meta)? {
                        match (number, value) {
                            (1, Wire::Bytes(text)) => envelope.api_version = utf8(text)?,
                            (2, Wire::Bytes(text)) => envelope.kind = utf8(text)?,
                            _ => {}
                        }
                    }
                }
                (2, Wire::Bytes(raw)) => envelope.raw = raw,
                (3, Wire::Bytes(encoding)) if !encoding.is_empty() => {
                    return Err(malformed(
                        "a content-encoded protobuf body is not supported",
                    ));
                }
                _ => {}
            }
        }
        Ok(envelope)
    }
}

fn utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| malformed("a string is not valid UTF-8"))
}

/// Decodes a protobuf body of a known message (a subresource's request: `TokenRequest`)
/// into its JSON, whatever kind the envelope names.
pub fn decode_as(body: &[u8], api_version: &str, kind: &str) -> Result<Value, DecodeError> {
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| malformed("the body does not start with the k8s protobuf magic"))?;
    let unknown = Envelope::read(envelope)?;
    let message = table::kind(api_version, kind)
        .ok_or_else(|| DecodeError::UnsupportedKind(format!("{api_version}/{kind}")))?;
    json::message(message.name, unknown.raw, 0)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_pb::api::apps::v1 as apps;
    use k8s_pb::api::core::v1 as core;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
    use k8s_pb::apimachinery::pkg::runtime::Unknown;
    use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
    use prost::Message;
    use serde_json::json;

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
        let custom = envelope("example.com/v1", "Widget", Vec::new());
        assert_eq!(
            decode(&custom),
            Err(DecodeError::UnsupportedKind("example.com/v1/Widget".into()))
        );
    }

    #[test]
    fn any_kind_decodes_with_go_json_zero_values_and_special_messages() {
        let message = apps::Deployment {
            metadata: Some(meta::ObjectMeta {
                name: Some("d".into()),
                namespace: Some(String::new()),
                creation_timestamp: Some(meta::Time::default()),
                ..Default::default()
            }),
            spec: Some(apps::DeploymentSpec {
                replicas: Some(0),
                min_ready_seconds: Some(0),
                strategy: Some(apps::DeploymentStrategy {
                    rolling_update: Some(apps::RollingUpdateDeployment {
                        max_surge: Some(IntOrString {
                            r#type: Some(1),
                            int_val: Some(0),
                            str_val: Some("25%".into()),
                        }),
                        max_unavailable: Some(IntOrString {
                            r#type: Some(0),
                            int_val: Some(1),
                            str_val: Some(String::new()),
                        }),
                    }),
                    r#type: Some("RollingUpdate".into()),
                }),
                template: Some(core::PodTemplateSpec {
                    metadata: None,
                    spec: Some(core::PodSpec {
                        containers: vec![core::Container {
                            name: Some("c".into()),
                            resources: Some(core::ResourceRequirements {
                                limits: BTreeMap::from([(
                                    "cpu".into(),
                                    k8s_pb::apimachinery::pkg::api::resource::Quantity {
                                        string: Some("100m".into()),
                                    },
                                )]),
                                ..Default::default()
                            }),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }),
                }),
                ..Default::default()
            }),
            status: None,
        };
        let decoded = decode(&envelope("apps/v1", "Deployment", message.encode_to_vec()));
        assert_eq!(
            decoded,
            Ok(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d"},
                "spec": {"replicas": 0, "strategy": {"type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
                    "template": {"spec": {"containers": [{"name": "c",
                        "resources": {"limits": {"cpu": "100m"}}}]}}}}))
        );
    }

    #[test]
    fn messages_nested_too_deep_are_malformed_not_a_stack_overflow() {
        // JSONSchemaProps.not (field 28) holding JSONSchemaProps, 10 000 deep.
        let mut raw: Vec<u8> = Vec::new();
        for _ in 0..10_000 {
            let mut outer = vec![0xe2, 0x01];
            let mut length = raw.len();
            while length >= 0x80 {
                outer.push(u8::try_from(length & 0x7f).unwrap_or(0) | 0x80);
                length >>= 7;
            }
            outer.push(u8::try_from(length).unwrap_or(0));
            outer.extend(raw);
            raw = outer;
        }
        let nested = json::message(
            "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps",
            &raw,
            0,
        );
        assert!(
            matches!(nested, Err(DecodeError::Malformed(_))),
            "{nested:?}"
        );
    }

    #[test]
    fn an_embedded_go_struct_is_inlined() {
        let message = core::Volume {
            name: Some("v".into()),
            volume_source: Some(core::VolumeSource {
                empty_dir: Some(core::EmptyDirVolumeSource::default()),
                ..Default::default()
            }),
        };
        let pod = core::Pod {
            spec: Some(core::PodSpec {
                volumes: vec![message],
                ..Default::default()
            }),
            ..Default::default()
        };
        let decoded = decode(&envelope("v1", "Pod", pod.encode_to_vec()));
        assert_eq!(
            decoded.map(|pod| pod["spec"]["volumes"].clone()),
            Ok(json!([{"name": "v", "emptyDir": {}}]))
        );
    }

    #[test]
    fn a_token_request_decodes_whatever_the_envelope_names() {
        let message = k8s_pb::api::authentication::v1::TokenRequest {
            spec: Some(k8s_pb::api::authentication::v1::TokenRequestSpec {
                audiences: vec!["a".into()],
                expiration_seconds: Some(900),
                bound_object_ref: None,
            }),
            ..Default::default()
        };
        let body = envelope("", "", message.encode_to_vec());
        assert_eq!(
            decode_as(&body, "authentication.k8s.io/v1", "TokenRequest"),
            Ok(json!({"spec": {"audiences": ["a"], "expirationSeconds": 900}}))
        );
    }
}
