//! The server's JSON machinery: canonical JSON and the layout of a scanned object
//! ([`canonical`]), the fast path of a replace that splices stored bytes instead of going
//! through a `serde_json::Value` ([`splice`]), and the spans of an object's `kind` and
//! `apiVersion` that LIST items are written without ([`type_meta`]).

pub mod canonical;
pub mod splice;
pub mod type_meta;
