//! kinformer: an informer inspector for Kubernetes.
//!
//! The library runs client-go's shared informer pipeline ([`informer`]), renders what it does
//! ([`output`]) and wires it all into the command line ([`cli`]), with the embedded Kubernetes
//! API server of the workspace's `kinformer-apiserver` crate; [`scenario`] plays scripted
//! writes and faults against that server; [`proxy`] sits between a user's own controller and
//! its API server; [`duration`] parses and prints durations the way kubectl does, [`redact`]
//! hides Secret values and [`private_file`] creates owner-only record files, for all of them. [`report`] draws a run as
//! a self-contained HTML page and tells one object's story (`report`, `explain`).

pub mod cli;
pub mod duration;
pub mod informer;
pub mod json_scan;
pub mod output;
pub mod private_file;
pub mod proxy;
pub mod redact;
pub mod report;
pub mod scenario;
