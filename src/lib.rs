//! kinformer: an informer inspector for Kubernetes.
//!
//! The library runs client-go's shared informer pipeline ([`informer`]), renders what it does
//! ([`output`]), serves an embedded Kubernetes API server ([`apiserver`]) and wires it all into
//! the command line ([`cli`]); [`scenario`] plays scripted writes and faults against it.

pub mod apiserver;
pub mod cli;
pub mod informer;
pub mod output;
pub mod scenario;
