//! The server's JSON machinery: the spans of an object's `kind` and `apiVersion` that LIST
//! items are written without ([`type_meta`]), and the members of a compact object found without
//! parsing their values ([`members`]).

pub mod members;
pub mod type_meta;
