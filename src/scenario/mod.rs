//! Scenario files (the shipped ones built in: [`builtin`]): a timed list of steps — writes to the embedded server, faults, and
//! inspector actions (add or remove a handler) — that `kinformer demo --scenario` and
//! `kinformer serve --scenario` play so a user can watch the informer react to events a real
//! cluster gives only by accident.
//!
//! ```yaml
//! description: relist after 410
//! queue: delta-fifo
//! handlers: [{name: fast, resync: 10s}, {name: slow, delay: 200ms}]
//! steps:
//!   - at: 1s
//!     create: {count: 20, rate: 10}
//!   - at: 4s
//!     fault: expire-all
//!   - at: 8s
//!     end: true
//! ```

pub mod builtin;
mod model;
mod parse;
mod run;

pub use self::model::{Action, Scenario, Step, WriteKind, Writes};
pub use self::parse::{ScenarioError, load, parse};
pub use self::run::{InspectorAction, play, play_reporting};
