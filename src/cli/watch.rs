//! `kinformer watch RESOURCE [NAME]`: run the informer and stream its trace live.

use std::io::{self, BufWriter};

use crate::output::EventRenderer;

use super::args::WatchArgs;
use super::exit::CliError;
use super::inspect::{Inspection, list_progress};
use super::session::Session;
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen};

pub async fn run(args: WatchArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let shown = args.informer.output.show.stages();
    let inspection =
        Inspection::for_command(&args.informer, &args.resource, args.name.as_deref(), shown)
            .await?;
    let stop_when = StopWhen {
        count: args.count,
        timeout: args.timeout,
        until_synced: args.until_synced,
    };
    live(inspection, stop_when, signals).await
}

/// Starts the session and streams it to stdout until `stop_when`; the exit code.
pub async fn live(
    inspection: Inspection,
    stop_when: StopWhen,
    signals: &mut Signals,
) -> Result<i32, CliError> {
    let Inspection {
        connection: _connection,
        resource,
        plan,
        render,
    } = inspection;
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut renderer = EventRenderer::new(
        BufWriter::with_capacity(STDOUT_BUFFER, io::stdout()),
        render,
    );
    let mut progress = list_progress();
    let (ending, _) = stream::run(
        session,
        &mut renderer,
        &mut io::stderr(),
        stop_when,
        &mut |e| progress.observe(e),
        signals,
    )
    .await?;
    progress.finish();
    ending.into_exit(&resource.plural)
}
