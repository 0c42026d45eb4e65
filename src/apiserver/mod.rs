//! The embedded Kubernetes API server: a loopback HTTP server speaking enough of the Kubernetes
//! REST protocol (discovery, LIST/WATCH with selectors, paging, resourceVersion semantics,
//! bookmarks and 410s, writes with optimistic concurrency, Status errors) that kubectl and
//! kube-rs work against it unchanged. It knows nothing of the informer pipeline.
//!
//! ```no_run
//! # async fn demo() -> Result<(), kinformer::apiserver::ServerError> {
//! use kinformer::apiserver::{EmbeddedServer, ServerConfig};
//! let server = EmbeddedServer::start(ServerConfig::default()).await?;
//! let client = server.client();
//! # drop(client);
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod app;
mod churn;
mod controllers;
mod discovery;
mod embedded;
mod error;
mod faults;
mod json;
mod kubeconfig;
mod list;
mod listener;
mod objects;
mod openapi;
mod protobuf;
mod resources;
mod scale;
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
pub use self::status::ApiError;
pub use self::tls::{ServingTls, TlsError};
