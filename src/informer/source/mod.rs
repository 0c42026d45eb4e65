//! ListerWatcher: where a Reflector's LIST pages and WATCH frames come from — the contract
//! (`lister_watcher.rs`: the options of a LIST or WATCH, and the errors a source reports).
//!
//! [`KubeSource`] (`kube.rs`) talks to an API server for any GVR through kube's client;
//! `wire.rs` decodes the bodies so that objects stay raw JSON bytes, `protobuf.rs` protobuf
//! bodies into the same JSON bytes; `transport.rs` tells
//! transport failures apart as client-go's callers do (refused, probable EOF, timeout). The in-memory source for
//! tests is [`crate::informer::testing::MemorySource`]; `record.rs` wraps any source to write
//! its traffic to a record file (`record_file.rs`), which `replay.rs` answers from.

mod kube;
mod lister_watcher;
pub(crate) mod protobuf;
pub(crate) mod record;
pub(crate) mod record_file;
pub(crate) mod replay;
mod transport;
pub(crate) mod wire;

pub use kube::{KubeSource, KubeTarget};
pub use lister_watcher::{
    ApiStatus, ListOptions, ListPage, ListerWatcher, SourceError, SourceFuture, WatchFrame,
    WatchObject, WatchOptions, WatchStream,
};
pub use transport::error_chain;
pub use wire::{INITIAL_EVENTS_END, frames, parse_list, parse_watch_frame, status_from_body};
