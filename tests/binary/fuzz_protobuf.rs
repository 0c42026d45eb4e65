//! Seeded fuzzing of the embedded server's protobuf request decoder, through POST requests with
//! `Content-Type: application/vnd.kubernetes.protobuf`: random byte mutations of valid bodies
//! (as kubectl sends them) and random bytes. Every answer must be a Status or the created
//! object with a 2xx/4xx code — never a panic or a dropped connection, and a 500 only where
//! kube-apiserver answers one: a create whose `metadata.resourceVersion` parses as a number other
//! than 0 (the etcd3 store's `ErrResourceVersionSetOnCreate`, a plain error answered 500).
//!
//! `KINFORMER_SEED=N` replays a run; `KINFORMER_FUZZ_ITERATIONS=N` (default 2 000) runs longer.

use crate::apiserver_http;
use crate::common;

use std::collections::BTreeMap;

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn iterations() -> usize {
    std::env::var("KINFORMER_FUZZ_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

/// `k8s\0` + runtime.Unknown around `raw`.
fn envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.encode_to_vec());
    body
}

fn metadata(name: &str) -> Option<ObjectMeta> {
    Some(ObjectMeta {
        name: Some(name.into()),
        labels: BTreeMap::from([("app".into(), name.into())]),
        ..Default::default()
    })
}

/// Valid bodies: (collection path, body).
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let config_map = core::ConfigMap {
        metadata: metadata("c"),
        data: BTreeMap::from([("k".into(), "v".into())]),
        ..Default::default()
    };
    let secret = core::Secret {
        metadata: metadata("s"),
        data: BTreeMap::from([("p".into(), b"pw".to_vec())]),
        r#type: Some("Opaque".into()),
        ..Default::default()
    };
    let deployment = apps::Deployment {
        metadata: metadata("d"),
        spec: Some(apps::DeploymentSpec {
            replicas: Some(2),
            selector: Some(LabelSelector {
                match_labels: BTreeMap::from([("app".into(), "d".into())]),
                ..Default::default()
            }),
            template: Some(core::PodTemplateSpec {
                metadata: metadata("d"),
                spec: Some(core::PodSpec {
                    containers: vec![core::Container {
                        name: Some("nginx".into()),
                        image: Some("nginx".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    vec![
        (
            "/api/v1/namespaces/default/configmaps",
            envelope("v1", "ConfigMap", config_map.encode_to_vec()),
        ),
        (
            "/api/v1/namespaces/default/secrets",
            envelope("v1", "Secret", secret.encode_to_vec()),
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            envelope("apps/v1", "Deployment", deployment.encode_to_vec()),
        ),
    ]
}

/// The one 500 kube-apiserver answers a create with: the storage's refusal of a set
/// resourceVersion (`apiserver/pkg/storage/errors.go`), with no reason.
fn is_resource_version_set_on_create(code: u16, answer: &serde_json::Value) -> bool {
    code == 500
        && answer["message"] == "resourceVersion should not be set on objects to be created"
        && answer.get("reason").is_none()
}

/// A random byte mutation of `sample`: bytes replaced, inserted, deleted, or the body cut.
fn mutate(rng: &mut StdRng, sample: &[u8]) -> Vec<u8> {
    let mut bytes = sample.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=bytes.len());
        match rng.random_range(0..4) {
            0 if at < bytes.len() => bytes[at] = rng.random(),
            1 => bytes.insert(at, rng.random()),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at),
        }
    }
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protobuf_bodies_never_break_the_server() {
    let seed = common::seed("fuzz_protobuf");
    let mut rng = StdRng::seed_from_u64(seed);
    let server = EmbeddedServer::start(ServerConfig::default())
        .await
        .unwrap();
    let client = apiserver_http::client(server.kube_config()).unwrap();
    let samples = samples();
    for i in 0..iterations() {
        let (path, sample) = &samples[i % samples.len()];
        let body = if rng.random_bool(0.1) {
            (0..rng.random_range(0..64)).map(|_| rng.random()).collect()
        } else {
            mutate(&mut rng, sample)
        };
        let request = http::Request::post(*path)
            .header(
                http::header::CONTENT_TYPE,
                "application/vnd.kubernetes.protobuf",
            )
            .body(body.clone())
            .unwrap();
        let response = client.send(request.map(Into::into)).await;
        let response = response.unwrap_or_else(|e| panic!("seed {seed}, body {body:?}: {e}"));
        let code = response.status().as_u16();
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        let answer = serde_json::from_slice::<serde_json::Value>(&bytes);
        let answer = answer.unwrap_or_else(|e| panic!("seed {seed}: {e}: {bytes:?}"));
        assert!(
            (200..500).contains(&code) || is_resource_version_set_on_create(code, &answer),
            "seed {seed}: {code} ({answer}) for body {body:?}"
        );
    }
    let version = client.apiserver_version().await;
    assert!(version.is_ok(), "the server still answers");
}
