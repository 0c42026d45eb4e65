//! An in-process Kubernetes API server to test kube-rs clients and controllers against: a
//! loopback HTTP(S) server speaking enough of the Kubernetes REST protocol (discovery,
//! LIST/WATCH with selectors, paging, resourceVersion semantics, bookmarks and 410s, writes with
//! optimistic concurrency, strategic-merge and JSON patches, CRDs, `Status` errors, JSON and
//! protobuf bodies) that kubectl, kube-rs and kube-runtime work against it unchanged — with
//! faults on demand. It is the embedded server of the `kinformer` tool and knows nothing of it.
//!
//! A test starts an [`EmbeddedServer`] (seeded or empty, with or without TLS and the minimal
//! controllers), talks to it through [`EmbeddedServer::client`] (or a kubeconfig for kubectl),
//! reads and writes objects directly, injects a typed [`Fault`], waits for a condition with a
//! deadline ([`EmbeddedServer::wait_for`]) and stops it:
//!
//! ```
//! use std::time::Duration;
//!
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kinformer_apiserver::{EmbeddedServer, Fault, ServerConfig};
//! use kube::api::{Api, PostParams};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = EmbeddedServer::start(ServerConfig::default()).await?;
//! let configmaps: Api<ConfigMap> = Api::namespaced(server.client(), "default");
//! let mut settings = ConfigMap::default();
//! settings.metadata.name = Some("settings".into());
//! configmaps.create(&PostParams::default(), &settings).await?;
//!
//! // The object as stored, read directly; a write as another client would make it.
//! let stored = server.get_object("configmaps", "default", "settings")?;
//! assert!(stored.is_some_and(|o| o["metadata"]["resourceVersion"].is_string()));
//! server.create_object(serde_json::json!({
//!     "apiVersion": "v1", "kind": "ConfigMap",
//!     "metadata": {"name": "other", "namespace": "default"},
//! }))?;
//! server
//!     .wait_for("configmaps", Duration::from_secs(5), |all| all.len() == 2)
//!     .await?;
//!
//! // Every watch resumed from now on gets 410 Gone; the next two requests get a 503.
//! server.inject(&Fault::ExpireAll)?;
//! server.inject(&Fault::FailRequests {
//!     count: Some(2),
//!     fraction: None,
//!     status: Some(503),
//!     retry_after_seconds: Some(0),
//!     path: None,
//! })?;
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! The crate's README compares it with envtest and `tower_test` mocks and lists what differs
//! from kube-apiserver.

#![warn(missing_docs)]

mod anonymous;
mod app;
mod bootstrap;
mod catalog;
mod churn;
mod controllers;
mod discovery;
mod embedded;
mod error;
mod faults;
mod field_validation;
mod groups;
mod issuer;
mod json;
mod kinds;
mod kubeconfig;
mod list;
mod list_options;
mod listener;
mod negotiation;
mod objects;
mod openapi;
mod openapi_data;
pub mod protobuf;
mod resources;
mod scale;
mod schema_validation;
mod seed;
mod selectable;
mod selector;
mod server;
mod serving;
mod status;
mod store;
mod table;
mod tls;
mod validation;
mod watch;
mod write;

pub use self::embedded::{EmbeddedServer, Seed, ServerConfig, random_token};
pub use self::error::ServerError;
pub use self::faults::{FAULTS_PATH, Fault, FaultError};
pub use self::kubeconfig::{CONTEXT, Endpoint};
pub use self::seed::synthetic_pod;
pub use self::status::{ApiError, StatusCause, StatusDetails};
pub use self::tls::{ServingTls, TlsError};
