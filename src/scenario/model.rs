//! What a scenario file says, once parsed: its handlers, queue and timed steps.

use std::time::Duration;

use crate::informer::processor::HandlerSpec;
use crate::informer::queue::QueueKind;
use kinformer_apiserver::Fault;

/// A parsed scenario file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// What the scenario shows (printed on stderr when it starts).
    pub description: String,
    /// The informer's queue (`delta-fifo` or `real-fifo`); None keeps the command's.
    pub queue: Option<QueueKind>,
    /// `client-go: 1.33`: the release profile to model; None keeps the command's.
    pub client_go: Option<&'static crate::informer::profile::Profile>,
    /// The informer's resync check period; None keeps the command's.
    pub resync: Option<Duration>,
    /// Handlers registered before the informer starts; empty keeps the command's.
    pub handlers: Vec<HandlerSpec>,
    /// Start the server with the builtin cluster (default: empty but for namespaces).
    pub builtin_seed: bool,
    /// Watch events the server keeps (None: the server's default).
    pub history: Option<usize>,
    /// The steps, in file order.
    pub steps: Vec<Step>,
}

/// One timed step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Offset from the scenario's start (the informer's first sync in `demo`).
    pub at: Duration,
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Writes to the server.
    Write(WriteKind, Writes),
    /// A fault on the server.
    Fault(Fault),
    /// Register a handler on the running informer.
    AddHandler(HandlerSpec),
    /// Remove a handler by name.
    RemoveHandler(String),
    /// The scenario is over: `demo` stops.
    End,
}

/// Which write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    Create,
    Update,
    Delete,
    Label,
}

/// The objects a write step touches.
#[derive(Debug, Clone, PartialEq)]
pub struct Writes {
    /// Resource plural (default `pods`; creates make pods only).
    pub resource: String,
    pub namespace: String,
    /// How many objects.
    pub count: usize,
    /// Writes per second (None: all at once).
    pub rate: Option<f64>,
    /// Only objects whose name starts with this (creates name them `PREFIX-N`).
    pub prefix: String,
    /// `key=value` for label steps.
    pub label: Option<(String, String)>,
}
