//! The informer pipeline, one client-go box per file: Reflector → DeltaFIFO/RealFIFO →
//! process loop (HandleDeltas) → Indexer → sharedProcessor → one listener per handler.
//! Nothing here prints: every stage reports through [`trace::Tracer`].
//!
//! This module is the library's front door: every type a user of the pipeline needs is
//! re-exported here, at one path ([`SharedIndexInformer`] and its [`InformerConfig`], the
//! [`InformerFactory`], handlers, the Indexer ([`Store`], [`Cache`]), queues, the Reflector's
//! configuration, client-go release [`Profile`]s). Three modules stay public as vocabularies of
//! their own: [`source`] (the ListerWatcher contract and its implementations), [`trace`] (the
//! events the pipeline reports) and [`testing`] (in-memory doubles, as client-go's
//! `tools/cache/testing`). The files behind the re-exports are private to the crate.

pub(crate) mod delta_fifo;
pub(crate) mod factory;
pub(crate) mod ingest;
pub(crate) mod notification;
pub(crate) mod object;
pub(crate) mod processor;
pub(crate) mod profile;
pub(crate) mod queue;
pub(crate) mod real_fifo;
pub(crate) mod reflector;
pub(crate) mod rest_retry;
pub(crate) mod shared_informer;
pub mod source;
pub(crate) mod store;
pub mod testing;
pub mod trace;

pub use self::delta_fifo::DeltaFifo;
pub use self::factory::{InformerFactory, OnInformerError};
pub use self::ingest::{Ingest, Transform, TransformError, strip_managed_fields};
pub use self::notification::{Notification, NotifyKind};
pub use self::object::{CachedObject, DecodeError, ObjectMeta, ObjectRef, OwnerReference};
pub use self::processor::{
    EventHandler, FnHandler, HandlerFuture, HandlerPanic, HandlerSpec, PANIC_PAUSE, PanicPolicy,
    SLOW_HANDLER_CALL, SLOW_HANDLER_PENDING, SimulatedHandler,
};
pub use self::profile::{NEWEST, PROFILES, Profile, UnknownVersion};
pub use self::queue::{
    Delta, DeltaObject, DeltaType, PopFuture, PopProcess, ProcessError, ProcessFn, Queue,
    QueueClosed, QueueKind, ReplacedAll, Tombstone,
};
pub use self::real_fifo::{BATCH_SIZE, RealFifo, RealFifoOptions};
pub use self::reflector::{
    AfterReplace, Backoff, BackoffConfig, BackoffReset, DEFAULT_PAGE_SIZE, ReflectorConfig,
    ReflectorError, ShouldResync, WatchErrorHandler,
};
pub use self::shared_informer::{
    InformerConfig, InformerError, MINIMUM_RESYNC_PERIOD, Registration, SharedIndexInformer,
    StopReason,
};
pub use self::store::{
    Cache, CustomIndexFunc, IndexError, IndexFunc, Indexers, NAMESPACE_INDEX, Store, Transaction,
};
