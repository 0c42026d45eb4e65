//! The server's JSON machinery: the spans of an object's `kind` and `apiVersion` that LIST
//! items are written without ([`type_meta`]).

pub mod type_meta;
