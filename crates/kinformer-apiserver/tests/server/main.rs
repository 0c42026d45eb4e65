//! The embedded API server's integration tests, one test binary (one link) with a module per
//! area: kube-rs clients (`kube_clients`, `runtime_clients`, a kube-runtime `controller`), kubectl, the resourceVersion
//! contract, request semantics, writes, custom resources validated against their CRD
//! (`crd_validation`), pod admission, faults, bad input and answers compared
//! with kube-apiserver's (`fidelity`). `support` holds the raw-HTTP
//! helpers, shared with the kinformer package's tests that drive a server.

mod admission;
mod bad_input;
mod controller;
mod crd_validation;
mod deletion;
mod encoding;
mod faults;
mod fidelity;
mod groups;
mod kube_clients;
mod kubectl;
mod kubelet;
mod openapi;
mod resource_versions;
mod rollout;
mod runtime_clients;
mod semantics;
mod served;
mod support;
mod write_answers;
mod writes;
