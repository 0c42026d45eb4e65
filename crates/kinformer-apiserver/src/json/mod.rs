//! The server's JSON machinery: canonical JSON and the layout of a scanned object
//! ([`canonical`]), and the spans of an object's `kind` and `apiVersion` that LIST items are
//! written without ([`type_meta`]). The replace fast path that splices stored bytes is the
//! registry's, in `write/splice.rs`.

pub mod canonical;
pub mod type_meta;
