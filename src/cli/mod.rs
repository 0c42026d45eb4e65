//! The command line: parse, run the subcommand on a tokio runtime, map the outcome to an exit
//! code. Errors are one line on stderr; stdout carries data only.

mod aggregated_discovery;
mod args;
mod client;
mod connect;
mod demo;
mod discovered_group;
pub mod docs;
mod dump;
mod entry;
mod exit;
mod explain;
mod index_schema;
mod inspect;
mod live;
mod memory;
mod profiles;
mod proxy;
mod record;
mod recording;
mod replay;
mod replaying;
mod report;
mod reporting;
mod resolve;
mod resync;
mod scenario_play;
mod scenarios;
mod serve;
mod session;
mod stream;
mod top;
mod tour;
mod trace_input;
mod tui;
mod watch;

/// The parsers of user input, public for the fuzz and property tests.
pub use args::{parse_field_selector, parse_handler, parse_index, parse_label_selector};

pub use entry::main;
