//! The informer pipeline, one client-go box per file: Reflector → DeltaFIFO/RealFIFO →
//! process loop (HandleDeltas) → Indexer → sharedProcessor → one listener per handler.
//! Nothing here prints: every stage reports through [`trace::Tracer`].

pub mod delta_fifo;
pub mod factory;
pub mod ingest;
pub mod notification;
pub mod object;
pub mod processor;
pub mod profile;
pub mod queue;
pub mod real_fifo;
pub mod reflector;
pub mod rest_retry;
pub mod shared_informer;
pub mod source;
pub mod store;
pub mod testing;
pub mod trace;
