//! GET of one object and the writes, after kube-apiserver's request handlers and generic
//! registry: the handlers (`get`, `create`, `update`, `patch`, `delete`) parse a request and
//! answer it, [`registry`] writes inside a store transaction, [`strategy`] sets and checks what
//! the server owns, [`crd`] starts and stops serving custom resources, [`direct`] writes
//! objects addressed by their own metadata (seeding, churn, controllers), [`defaults`] fills in
//! what kube-apiserver's decoding and defaulting add, [`admission`] what its default admission
//! plugins add to a pod, and [`managed`] keeps `managedFields`
//! (over [`fieldset`]; a custom resource's list and map types from [`crd_schema`]) and serves
//! server-side apply; [`splice`] is the fast path of a replace
//! that changes only labels and annotations.

mod admission;
mod crd;
mod crd_schema;
mod create;
mod defaults;
mod delete;
mod direct;
mod fieldset;
mod get;
mod managed;
mod managed_cap;
mod managed_raw;
mod meta;
mod options;
mod patch;
mod patch_meta;
pub(super) mod registry;
mod splice;
mod strategic;
mod strategy;
mod target;
mod update;

pub use self::create::create;
pub use self::delete::{delete, delete_collection};
pub use self::direct::{
    create_object, create_object_as, delete_object, replace_many, seed_unrecorded, update_object,
};
pub use self::get::get;
pub use self::managed::{Writer, record_update};
pub use self::meta::parse_object;
pub use self::options::{WriteKind, WriteOptions};
pub use self::patch::{PatchKind, patch};
pub use self::registry::update_in;
pub use self::target::Target;
pub use self::target::{DIRECT_WRITER, SYSTEM_WRITER};
pub use self::update::replace;
