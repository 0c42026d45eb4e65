//! kinformer: an informer inspector for Kubernetes.
//!
//! The library runs client-go's shared informer pipeline ([`informer`]), renders what it does
//! ([`output`]), serves an embedded Kubernetes API server ([`apiserver`]) and wires it all into
//! the command line ([`cli`]); [`scenario`] plays scripted writes and faults against it;
//! [`duration`] parses and prints durations the way kubectl does, [`redact`] hides Secret
//! values and [`private_file`] creates owner-only files, for all of them. [`report`] draws a
//! run as a self-contained HTML page and tells one object's story (`report`, `explain`).

pub mod apiserver;
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
