//! Renderers: trace events as live tables or JSONL (or pretty JSON/YAML documents), the exit
//! summary, the demo's narration, `dump`'s cache contents, the resync debugger's views and the LIST progress bar.
//!
//! Everything here depends only on [`crate::informer::trace`] and the types it carries; the
//! caller decides where output goes (any [`std::io::Write`]) and whether colour is on.

mod bursts;
mod columns;
pub mod diff;
mod document;
pub mod dump;
pub mod jsonl;
pub mod narration;
pub mod object_columns;
mod options;
pub mod ordered;
pub mod progress;
pub mod redact;
mod renderer;
pub mod resync;
pub mod status;
mod stream_name;
pub mod summary;
pub mod sync_cause;
pub mod table;

pub use options::{ExtraLine, Hidden, NotifyKinds, OutputFormat, RenderOptions};
pub use renderer::{BeforeSummary, EventRenderer, Tap};

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests;
