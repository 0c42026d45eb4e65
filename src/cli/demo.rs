//! `kinformer demo`: the cluster-free tour. An embedded API server with the builtin seed and
//! pod churn; an informer on pods in all namespaces with a fast handler (short resync) and a
//! slow one (processing delay), every stage shown live until Ctrl-C or `--duration`.
//! `--scenario FILE` replaces the churn with a scenario's timed writes, faults and handler
//! changes, played from the informer's first sync; the scenario's `end` step stops the demo.

use std::io::{self, BufWriter, IsTerminal};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::apiserver::{EmbeddedServer, Seed, ServerConfig};
use crate::informer::source::record_file::SecretData;
use crate::informer::trace::Event;
use crate::output::{EventRenderer, Hidden};
use crate::scenario::{self, InspectorAction, Scenario};

use super::args::{DemoArgs, PipelineArgs};
use super::connect::ClusterChoice;
use super::connect::{deadline_after, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, Selection, list_progress};
use super::session::Session;
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen};
use super::watch::{live, stopped_before_start};

/// `--scenario FILE`, loaded; a bad file is a configuration error (exit 3).
pub(super) fn load_scenario(
    path: Option<&std::path::Path>,
) -> Result<Option<scenario::Scenario>, CliError> {
    path.map(scenario::load)
        .transpose()
        .map_err(|e| CliError::Config(e.to_string()))
}

pub async fn run(mut args: DemoArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let scenario = load_scenario(args.scenario.as_deref())?;
    if let Some(scenario) = &scenario {
        let keep = Given {
            handlers: args.was_given("handlers"),
            resync: args.was_given("resync"),
        };
        scenario_settings(scenario, keep, &mut args.pipeline);
    }
    let cluster = ClusterChoice {
        embedded: true,
        churn: Some(f64::from(args.churn)).filter(|c| *c > 0.0),
        server: scenario.as_ref().map(scenario_server),
        ..ClusterChoice::default()
    };
    let selection = Selection {
        resources: vec!["pods".into()],
        all_namespaces: true,
        ..Selection::default()
    };
    let (shown, hidden) = (args.output.show.stages(), args.output.show.hidden());
    let started = Instant::now();
    let deadline = deadline_after(args.timeout);
    let preparing = Inspection::prepare(
        &cluster,
        &selection,
        Some(&args.output),
        &args.pipeline,
        shown,
    );
    let mut inspection = match unless_interrupted(preparing, signals, deadline).await {
        Ok(prepared) => prepared?,
        Err(cut) => {
            let handlers = &args.pipeline.handlers;
            let format = args.output.output;
            return stopped_before_start(cut, format, handlers, started, args.timeout);
        }
    };
    let stop_when = StopWhen {
        timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..StopWhen::default()
    };
    let recording = match &args.record {
        Some(path) => {
            let version = args.pipeline.client_go.version;
            let secrets = SecretData::shown(args.output.show_secret_data);
            let recorder = super::record::start(path, &mut inspection, version, secrets).await?;
            Some((recorder, path, inspection.labels()))
        }
        None => None,
    };
    let code = match scenario {
        Some(scenario) => play(inspection, &scenario, hidden, stop_when, signals).await,
        None => live(inspection, hidden, stop_when, signals).await,
    };
    if let Some((recorder, path, labels)) = recording {
        super::record::finish(recorder, path, &labels).await?;
    }
    code
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

/// Streams the session while the scenario plays; inspector steps reach the stream loop.
async fn play(
    inspection: Inspection,
    scenario: &Scenario,
    hidden: Hidden,
    stop_when: StopWhen,
    signals: &mut Signals,
) -> Result<i32, CliError> {
    let Inspection {
        connection,
        plan,
        render,
        ..
    } = inspection;
    let Some(server) = connection.server.as_ref() else {
        return Err(CliError::Runtime("the demo has no embedded server".into()));
    };
    if !scenario.description.is_empty() {
        eprintln!("scenario: {}", scenario.description);
    }
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut progress = list_progress();
    let stdout = progress.writer(io::stdout(), io::stdout().is_terminal());
    let mut renderer = EventRenderer::new(BufWriter::with_capacity(STDOUT_BUFFER, stdout), render)
        .with_hidden(hidden);
    let mut stderr = progress.writer(io::stderr(), true);
    let (actions_tx, mut actions) = mpsc::unbounded_channel();
    let (synced_tx, synced) = watch::channel(false);
    let mut observe = |e: &Event| {
        progress.observe(e);
        if matches!(e, Event::Synced { .. }) {
            synced_tx.send_replace(true);
        }
    };
    let (ending, _) = {
        let streaming = stream::run_with_actions(
            session,
            &mut renderer,
            &mut stderr,
            stop_when,
            &mut observe,
            signals,
            &mut actions,
        );
        let report = |line| eprintln!("{line}");
        let player = play_after_sync(scenario, server, synced, &actions_tx, &report);
        tokio::pin!(streaming, player);
        let mut playing = true;
        loop {
            tokio::select! {
                result = &mut streaming => break result?,
                () = &mut player, if playing => playing = false,
            }
        }
    };
    progress.finish();
    ending.into_exit()
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
