//! Raw HTTP against the embedded API server for the `apiserver_*` tests: one request, its code
//! and JSON body, through a kube client with kube's transparent retry off (a retried 504 would
//! hide the answer under test).

#![allow(dead_code)] // each test binary uses a different part

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use serde_json::Value;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub const JSON: &str = "application/json";
pub const MERGE: &str = "application/merge-patch+json";

/// A server seeded with `seed`, other settings default.
pub async fn seeded(seed: Vec<Seed>) -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        seed,
        ..ServerConfig::default()
    })
    .await?)
}

/// A kube client of `config` without transparent retries.
pub fn client(mut config: kube::Config) -> Result<kube::Client, kube::Error> {
    config.default_retry = false;
    kube::Client::try_from(config)
}

/// One request with an optional `(content type, body)`: the HTTP code and the JSON body.
pub async fn call(
    server: &EmbeddedServer,
    method: &str,
    path: &str,
    body: Option<(&str, Value)>,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    call_with(&client(server.kube_config())?, method, path, body).await
}

/// [`call`] through `client`.
pub async fn call_with(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<(&str, Value)>,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    let mut request = http::Request::builder().method(method).uri(path);
    let bytes = match body {
        Some((content_type, body)) => {
            request = request.header(http::header::CONTENT_TYPE, content_type);
            serde_json::to_vec(&body)?
        }
        None => Vec::new(),
    };
    let response = client.send(request.body(bytes)?.map(Into::into)).await?;
    let code = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    let value = serde_json::from_slice(&body)
        .map_err(|e| format!("{method} {path}: {e}: {}", String::from_utf8_lossy(&body)))?;
    Ok((code, value))
}

/// One request: the HTTP code and the body's bytes as the server wrote them.
pub async fn raw(
    server: &EmbeddedServer,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Result<(u16, String), Box<dyn std::error::Error>> {
    let mut request = http::Request::builder().method(method).uri(path);
    let bytes = match body {
        Some(body) => {
            request = request.header(http::header::CONTENT_TYPE, JSON);
            serde_json::to_vec(&body)?
        }
        None => Vec::new(),
    };
    let response = client(server.kube_config())?
        .send(request.body(bytes)?.map(Into::into))
        .await?;
    let code = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    Ok((code, String::from_utf8(body.to_vec())?))
}

/// `kubectl` from PATH; its absence fails the test.
pub fn kubectl_binary() -> Result<std::path::PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("kubectl"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| "kubectl not found: install Debian's kubernetes-client".to_owned())
}
