//! `kinformer watch RESOURCE[,RESOURCE…] [NAME]`: run one informer per resource and stream
//! their trace live.

use tokio::time::Instant;

use crate::informer::trace::Stage;

use super::args::WatchArgs;
use super::connect::{deadline_after, unless_interrupted};
use super::exit::CliError;
use super::inspect::Inspection;
use super::live::{live, stopped_before_start};
use super::reporting::ReportAtExit;
use super::stream::{Signals, StopWhen};

pub async fn run(args: WatchArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let mut shown = args.informer.output.show.stages();
    if args.count.is_some() {
        // --count counts notifications, shown or not.
        shown = shown.with(Stage::Handler);
    }
    let report = ReportAtExit::asked(args.report.path.as_deref());
    let (shown, hidden) =
        ReportAtExit::stages(report.as_ref(), shown, args.informer.output.hidden());
    let deadline = deadline_after(args.timeout);
    let preparing = Inspection::for_command(
        &args.informer,
        &args.resources.0,
        args.name.as_deref(),
        shown,
    );
    let inspection = match unless_interrupted(preparing, signals, deadline).await {
        Ok(prepared) => prepared?,
        Err(cut) => return stopped_before_start(cut, args.timeout),
    };
    let stop_when = StopWhen {
        count: args.count,
        timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        until_synced: args.until_synced,
        ..StopWhen::default()
    };
    live(inspection, hidden, stop_when, signals, report).await
}
