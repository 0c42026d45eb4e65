//! `kinformer proxy`: a recording reverse proxy between any Kubernetes client and the API
//! server, that shows what the client's informers did.
//!
//! Clients connect over TLS (HTTP/2 or HTTP/1.1) with the proxy's own CA, serving certificate
//! and bearer token (`kinformer_apiserver::ServingTls` and `kinformer_apiserver::Endpoint`, shared with the
//! embedded server); every request is relayed upstream through a `kube::Client` with the
//! user's credentials, and every answer streams back byte for byte (`forward.rs`, `tap.rs`).
//! Each LIST/WATCH stream is attributed to one client-side informer and traced in the
//! informer's vocabulary (`classify.rs`, `decode.rs` — protobuf answers through the informer's protobuf decoding —, `streams.rs`); `--record` writes the
//! streams as a record file (`record.rs`) that `kinformer replay --stream` runs through the
//! pipeline; `running.rs` binds and runs a [`Proxy`]. Only the CLI's `proxy` command uses this
//! module.

mod classify;
mod decode;
mod forward;
mod record;
mod running;
mod serve;
mod streams;
mod tap;

pub use forward::{OnUpstream, Upstream};
pub use record::Recorded;
pub use running::{Proxy, ProxyConfig, ProxyError, Stopped};
