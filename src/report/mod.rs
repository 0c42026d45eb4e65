//! The picture of a run: `kinformer report` (one self-contained HTML page: the timeline of
//! every stage and handler, plots, markers, the summary) and `kinformer explain KEY` (one
//! object's story in words).
//!
//! Both read the run's JSONL trace through [`trace::TraceReader`] — a file, a replay rendered
//! as JSONL, or a live run's [`capture::Capture`] — and tell stories with one implementation,
//! [`story::stories`]: the page embeds every story, `explain` prints one.

pub mod capture;
pub mod explain;
pub mod page;
pub mod story;
pub mod timeline;
pub mod trace;

pub use page::{RunInfo, render};
pub use trace::{Trace, TraceWriter, parse_jsonl};
