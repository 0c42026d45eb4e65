//! The server's JSON machinery: the spans of an object's `kind` and `apiVersion` that LIST
//! items are written without ([`type_meta`]), the members of a compact object found without
//! parsing their values ([`members`]), where a managedFields value's entries are
//! ([`managed_entries`]), a value's compact text ([`writer`]) and built-in objects in Go's field order ([`go_order`]).

pub mod go_order;
pub mod managed_entries;
pub mod members;
pub mod type_meta;
pub mod writer;
