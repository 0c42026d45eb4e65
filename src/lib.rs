//! kinformer: an informer inspector for Kubernetes.
//!
//! The library runs client-go's shared informer pipeline ([`informer`], its front door),
//! renders what it does ([`output`]) and draws a run as a self-contained HTML page or tells one
//! object's story ([`report`]); [`scenario`] plays scripted writes and faults against the
//! embedded Kubernetes API server (the workspace's `kinformer-apiserver` crate); [`proxy`] sits
//! between a user's own controller and its API server; [`duration`] parses and prints durations
//! the way kubectl does. The command line (`cli`) wires it all.

// Public for the binary (`cli::main`) and the parser fuzz tests; not a library API.
#[doc(hidden)]
pub mod cli;
pub mod duration;
pub mod informer;
// Public for the scanner benchmark; not a library API.
#[doc(hidden)]
pub mod json_scan;
pub mod output;
pub(crate) mod private_file;
pub mod proxy;
pub(crate) mod redact;
pub mod report;
pub mod scenario;
pub(crate) mod yaml_error;
