//! `kinformer top RESOURCE`: connects (playing a scenario's settings, if given), then hands the
//! informers to the terminal view ([`super::tui`]) until the user quits or a signal ends it.
//! `top --attach URL` draws a Go tap's informers instead.

use std::io::{self, IsTerminal};

use tokio::sync::watch;

use crate::informer::trace::StageSet;
use crate::scenario::Scenario;

use super::args::{OutputArgs, PipelineArgs, TopArgs, parse_show, resource_names};
use super::connect::{ClusterChoice, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, Selection};
use super::resolve::ResolvedResource;
use super::scenario_play::{
    Given, load_scenario, play_after_sync, scenario_server, scenario_settings,
};
use super::session::Session;
use super::stream::Signals;
use super::tui::{attach, view};
use crate::output::OutputFormat;

/// The one line printed when stdout is not a terminal.
pub const NOT_A_TERMINAL: &str =
    "kinformer top draws on a terminal; use 'kinformer watch' for a stream";

pub async fn run(args: TopArgs, signals: &mut Signals) -> Result<i32, CliError> {
    if !io::stdout().is_terminal() {
        return Err(CliError::Usage(NOT_A_TERMINAL.into()));
    }
    if let Some(url) = &args.attach {
        return attach(url, signals).await?.into_exit();
    }
    let scenario = load_scenario(args.scenario.as_deref())?;
    let mut pipeline = args.pipeline;
    let mut cluster = ClusterChoice::from_args(&args.connection);
    if let Some(scenario) = &scenario {
        let given = Given {
            handlers: !pipeline.handlers.is_empty(),
            resync: !pipeline.resync.is_zero(),
        };
        scenario_settings(scenario, given, &mut pipeline);
        cluster.server = Some(scenario_server(scenario));
    }
    let selection = Selection::from_args(&resource_names(&args.resources), None, &args.connection);
    let output = unused_output()?;
    let preparing = Inspection::prepare(
        &cluster,
        &selection,
        Some(&output),
        &pipeline,
        StageSet::ALL,
    );
    let inspection = match unless_interrupted(preparing, signals, None).await {
        Ok(prepared) => prepared?,
        Err(crate::cli::connect::Interrupted::Signal(code)) => return Ok(code),
        Err(crate::cli::connect::Interrupted::TimedOut) => return Ok(0),
    };
    let scopes = inspection
        .resources
        .iter()
        .map(|resource| scope(resource, &inspection, &selection))
        .collect();
    show(inspection, &pipeline, scenario.as_ref(), scopes, signals).await
}

/// `top` prints no events; the inspection's render options only need some output flags.
fn unused_output() -> Result<OutputArgs, CliError> {
    Ok(OutputArgs {
        output: OutputFormat::Table,
        no_headers: false,
        show: parse_show("all").map_err(CliError::Usage)?,
        diff: false,
        show_secret_data: false,
        columns: None,
        kinds: None,
    })
}

/// What the header says is informed on: `pods · all namespaces`, `nodes · cluster-scoped`.
fn scope(resource: &ResolvedResource, inspection: &Inspection, selection: &Selection) -> String {
    let scope = if !resource.namespaced {
        "cluster-scoped".to_owned()
    } else if selection.all_namespaces {
        "all namespaces".to_owned()
    } else {
        let ns = selection
            .namespace
            .as_deref()
            .unwrap_or(&inspection.connection.default_namespace);
        format!("namespace {ns}")
    };
    let mut text = format!("{} · {scope}", resource.plural);
    if let Some(selector) = &selection.label_selector {
        text.push_str(&format!(" · -l {selector}"));
    }
    text
}

/// Runs the view over the inspection's informers (and the scenario, if any), then stops the
/// informers and closes the connection.
async fn show(
    inspection: Inspection,
    pipeline: &PipelineArgs,
    scenario: Option<&Scenario>,
    scopes: Vec<String>,
    signals: &mut Signals,
) -> Result<i32, CliError> {
    let session = Session::start(inspection.plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let connection = inspection.connection;
    let (synced_tx, synced) = watch::channel(false);
    let server = connection.server.as_ref();
    let ending = view(
        session,
        scopes,
        pipeline.resync,
        synced_tx,
        signals,
        |steps| async move {
            match (scenario, server) {
                (Some(s), Some(server)) => {
                    let report = |line: String| drop(steps.reports.send(line));
                    play_after_sync(s, server, synced, &steps.actions, &report).await;
                }
                _ => std::future::pending().await,
            }
        },
    )
    .await;
    connection.close().await;
    ending?.into_exit()
}
