//! Test doubles for the pipeline (client-go's `tools/cache/testing`): an in-memory
//! ListerWatcher and a trace sink that records.

mod memory_sink;
mod memory_source;

pub use memory_sink::MemorySink;
pub use memory_source::MemorySource;
