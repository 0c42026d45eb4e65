//! Playing a scenario file, shared by `demo --scenario`, `top --scenario` and `serve
//! --scenario`: loading it, the pipeline settings and server it asks for, and playing its
//! steps once the informer synced.

use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::scenario::{self, InspectorAction, Scenario};
use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};

use super::args::PipelineArgs;
use super::exit::CliError;

/// `--scenario FILE`, loaded; a bad file is a configuration error (exit 3).
pub(super) fn load_scenario(
    path: Option<&std::path::Path>,
) -> Result<Option<scenario::Scenario>, CliError> {
    path.map(scenario::load)
        .transpose()
        .map_err(|e| CliError::Config(e.to_string()))
}

/// Which pipeline flags were given on the command line.
#[derive(Clone, Copy)]
pub(super) struct Given {
    pub handlers: bool,
    pub resync: bool,
}

/// A scenario's pipeline settings replace the demo's defaults, not flags given on the command
/// line.
pub(super) fn scenario_settings(scenario: &Scenario, given: Given, pipeline: &mut PipelineArgs) {
    if !given.handlers && !scenario.handlers.is_empty() {
        pipeline.handlers.clone_from(&scenario.handlers);
    }
    if let Some(period) = scenario.resync.filter(|_| !given.resync) {
        pipeline.resync = period;
    }
    if let Some(profile) = scenario.client_go {
        pipeline.client_go = profile;
    }
    if let Some(queue) = scenario.queue {
        pipeline.queue = Some(queue.into());
    }
}

/// The server a scenario runs against: no churn, its seed and history, frequent bookmarks.
pub(super) fn scenario_server(scenario: &Scenario) -> ServerConfig {
    let defaults = ServerConfig::default();
    ServerConfig {
        seed: if scenario.builtin_seed {
            vec![Seed::Builtin]
        } else {
            Vec::new()
        },
        history: scenario.history.unwrap_or(defaults.history),
        bookmark_interval: Duration::from_secs(1),
        ..defaults
    }
}

/// Waits for the informer's first sync, then plays the scenario, its lines going to `report`.
pub(super) async fn play_after_sync(
    scenario: &Scenario,
    server: &EmbeddedServer,
    mut synced: watch::Receiver<bool>,
    actions: &mpsc::UnboundedSender<InspectorAction>,
    report: &(dyn Fn(String) + Sync),
) {
    if synced.wait_for(|s| *s).await.is_ok() {
        scenario::play_reporting(scenario, server, Some(actions), report).await;
    }
}
