//! The server's shared state ([`App`]) and what a request addressed to a resource carries
//! ([`ResourceRequest`], [`Representation`]): the types every handler takes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use http::{HeaderMap, header};
use tokio::sync::watch;

use super::faults::{Fault, Faults};
use super::listener::ConnectionId;
use super::resources::ResourceType;
use super::status::ApiError;
use super::store::Store;

/// Shared server state.
pub struct App {
    /// The objects.
    pub store: Arc<Store>,
    /// Required bearer token (None: no authentication).
    pub token: Option<String>,
    /// Interval between BOOKMARK events on watches that allow them.
    pub bookmark_interval: Duration,
    /// The Kubernetes minor the server behaves as (`/version`, discovery).
    pub kubernetes_minor: u32,
    /// Whether LISTs at resourceVersion "0" are served like kube-apiserver's watch cache.
    pub watch_cache: bool,
    /// How long a request for a too-new resourceVersion waits for it.
    pub resource_version_wait: Duration,
    /// How long reading a request body may take.
    pub request_read_timeout: Duration,
    /// Bumped to end every open watch.
    pub closer: watch::Sender<u64>,
    /// Set once shutdown began: new watches end at once.
    pub shutting_down: AtomicBool,
    /// `host:port` the server listens on.
    pub address: String,
    /// Faults armed on purpose (admin endpoint, scenarios).
    pub faults: Faults,
    /// Signs and checks the service account tokens the server issues.
    pub issuer: crate::issuer::Issuer,
}

/// How the client wants objects represented (from its `Accept` header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Representation {
    /// The objects themselves.
    Object,
    /// `PartialObjectMetadata` / `PartialObjectMetadataList`.
    Metadata,
    /// A `meta.k8s.io/v1` Table (kubectl's printing).
    Table,
}

/// The media type of an answer's body (negotiated from the `Accept` header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// `application/json`.
    Json,
    /// `application/vnd.kubernetes.protobuf`.
    Protobuf,
}

/// The request's `Accept` header ("" when absent).
pub fn accept(headers: &HeaderMap) -> &str {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// A request addressed to a resource (collection, object or subresource).
pub struct ResourceRequest {
    /// The resource type.
    pub resource: Arc<ResourceType>,
    /// The version from the path.
    pub version: String,
    /// Namespace from the path.
    pub namespace: Option<String>,
    /// Object name from the path.
    pub name: Option<String>,
    /// Subresource (`status`, `scale`).
    pub subresource: Option<String>,
    /// Query parameters.
    pub params: HashMap<String, String>,
    /// Requested representation.
    pub representation: Representation,
    /// The media type of the answer.
    pub media: Media,
    /// The request's `Content-Type`.
    pub content_type: String,
    /// The field manager its writes are recorded under: `fieldManager`, else derived from the
    /// `User-Agent` (see [`field_manager`]).
    pub field_manager: String,
}

/// The longest field manager name kube-apiserver accepts.
const FIELD_MANAGER_MAX_LENGTH: usize = 128;

/// A write's field manager as kube-apiserver picks it (`handlers/rest.go`,
/// `managerOrUserAgent`): the `fieldManager` parameter, else the `User-Agent` up to its first
/// `/` (`kubectl/v1.32.4 (linux/amd64) …` is `kubectl`), printable characters only, at most
/// 128 bytes; `unknown` when that leaves nothing (managedfields' `buildManagerInfo`,
/// apimachinery `pkg/util/managedfields/internal/buildmanagerinfo.go` v0.37.2:70-72).
pub fn field_manager(params: &HashMap<String, String>, headers: &HeaderMap) -> String {
    if let Some(manager) = params.get("fieldManager").filter(|m| !m.is_empty()) {
        return manager.clone();
    }
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mut out = String::new();
    for c in agent.split('/').next().unwrap_or("").chars() {
        if c.is_control() {
            continue;
        }
        if out.len() + c.len_utf8() > FIELD_MANAGER_MAX_LENGTH {
            break;
        }
        out.push(c);
    }
    if out.is_empty() {
        out.push_str("unknown");
    }
    out
}

impl ResourceRequest {
    /// A query parameter, if present and non-empty.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A boolean query parameter as kube-apiserver reads one: absent, `0` and `false` (any
    /// case) are false, anything else — `True`, `yes`, even an empty value — is true
    /// (`apimachinery/pkg/runtime/conversion.go`, `Convert_Slice_string_To_bool`).
    pub fn flag(&self, name: &str) -> bool {
        self.params
            .get(name)
            .is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"))
    }

    /// An integer query parameter as kube-apiserver reads one (`strconv.ParseInt`): absent or
    /// empty is None, garbage is `400 BadRequest`, as its handlers answer a query that does not
    /// decode (`DecodeParameters` errors become `errors.NewBadRequest`).
    pub fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        let Some(text) = self.param(name) else {
            return Ok(None);
        };
        text.parse::<i64>().map(Some).map_err(|_| {
            ApiError::bad_request(format!(
                "strconv.ParseInt: parsing {text:?}: invalid syntax (query parameter {name})"
            ))
        })
    }
}

impl App {
    /// Whether the request carries the token: `Bearer TOKEN`, or `Basic` with TOKEN as the
    /// password (kubectl sends no bearer token over plain http, but does send the userinfo of
    /// the server URL in the generated kubeconfig as basic credentials).
    pub fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let Some(credentials) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
        else {
            return false;
        };
        if let Some(given) = credentials.strip_prefix("Bearer ") {
            return given.trim() == token;
        }
        credentials
            .strip_prefix("Basic ")
            .and_then(|encoded| BASE64_STANDARD.decode(encoded.trim()).ok())
            .and_then(|decoded| String::from_utf8(decoded).ok())
            .is_some_and(|pair| {
                pair.split_once(':')
                    .is_some_and(|(_, password)| password == token)
            })
    }

    /// Causes `fault` on this server; `caller` is the connection that asked for it over HTTP
    /// (a restart spares it so that its answer arrives).
    pub fn inject(&self, fault: &Fault, caller: Option<ConnectionId>) {
        match fault {
            Fault::CloseWatches => self.close_watches(),
            Fault::TrimHistory => self.store.trim_history(),
            Fault::ExpireAll => self.store.expire_all(),
            Fault::Restart => {
                self.faults.restart(caller);
                self.close_watches();
            }
            _ => self.faults.arm(fault),
        }
    }

    /// Ends every open watch cleanly.
    fn close_watches(&self) {
        self.closer.send_modify(|generation| *generation += 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_without_field_manager_or_user_agent_is_recorded_as_unknown() {
        let none = HashMap::new();
        let mut headers = HeaderMap::new();
        assert_eq!(field_manager(&none, &headers), "unknown");
        headers.insert(header::USER_AGENT, "/v1".parse().unwrap());
        assert_eq!(field_manager(&none, &headers), "unknown");
        headers.insert(
            header::USER_AGENT,
            "kubectl/v1.37.2 (linux/amd64)".parse().unwrap(),
        );
        assert_eq!(field_manager(&none, &headers), "kubectl");
    }
}
