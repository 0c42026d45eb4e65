//! GET of one object and the writes, after kube-apiserver's request handlers and generic
//! registry: the handlers (`get`, `create`, `update`, `patch`, `delete`) parse a request and
//! answer it, [`registry`] writes inside a store transaction ([`deletion`]: what a DELETE
//! asks and marks), [`strategy`] sets and checks what
//! the server owns, [`crd`] starts and stops serving custom resources, [`custom_validation`]
//! checks a custom resource against its CRD's schema, [`direct`] writes
//! objects addressed by their own metadata (seeding, churn, controllers), [`defaults`] fills in
//! what kube-apiserver's decoding ([`zero_value`], with [`go_fields`]) and defaulting add,
//! [`admission`] what its default admission plugins add to a pod, and [`managed`] keeps
//! `managedFields` (over [`fieldset`]; list and map types from [`builtin_schema`] and, for a
//! custom resource, [`crd_schema`]; the fields a strategy resets from [`reset_fields`]) and
//! serves server-side apply; [`splice`] is the fast path of a replace that changes only labels
//! and annotations.

mod admission;
mod builtin_schema;
mod crd;
mod crd_schema;
mod create;
mod custom_validation;
mod defaults;
mod delete;
mod deletion;
mod direct;
mod fieldset;
mod get;
mod go_fields;
mod list_types;
mod managed;
mod managed_cap;
mod managed_raw;
mod meta;
mod node_taint;
mod options;
mod patch;
mod patch_meta;
pub(super) mod registry;
mod reset_fields;
mod splice;
mod strategic;
mod strategy;
mod target;
mod update;
mod workloads;
mod zero_value;

pub use self::create::{create, record_creation};
pub use self::delete::{delete, delete_collection};
pub use self::deletion::{DeleteOptions, Propagation};
pub use self::direct::{
    create_object, create_object_as, delete_object, delete_object_with, replace_many,
    seed_unrecorded, update_object,
};
pub use self::get::get;
pub use self::managed::Writer;
pub use self::meta::{parse_object, parse_yaml_body};
pub use self::options::{WriteKind, WriteOptions};
pub use self::patch::{PatchKind, patch};
pub use self::registry::update_in;
pub use self::target::Target;
pub use self::target::{DIRECT_WRITER, SYSTEM_WRITER};
pub use self::update::{replace, replace_keeping_managed_fields};
