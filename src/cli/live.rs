//! What `watch`, `demo`, `record` and `resync` share: streaming a session live to stdout (and
//! its `--report` page at exit), and the end of a run cut short while still connecting.

use std::io::{self, BufWriter, IsTerminal};
use std::time::Duration;

use crate::duration::format_duration;
use crate::output::{EventRenderer, Hidden};

use super::connect::Interrupted;
use super::exit::CliError;
use super::inspect::{Inspection, list_progress};
use super::reporting::{ReportAtExit, server_of, tap_of};
use super::session::Session;
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen, signal_reason};

/// Ctrl-C, SIGTERM or the time limit while still connecting: nothing ran, so there is no
/// summary — one stderr line saying so, then 130/143, or exit 5 for a limit that ran out before
/// the server answered.
pub fn stopped_before_start(cut: Interrupted, limit: Option<Duration>) -> Result<i32, CliError> {
    match cut {
        Interrupted::Signal(code) => {
            eprintln!("{} while connecting to the server", signal_reason(code));
            Ok(code)
        }
        Interrupted::TimedOut => Err(CliError::Unreachable(format!(
            "no answer from the server within the {} limit",
            format_duration(limit.unwrap_or_default())
        ))),
    }
}

/// Starts the session and streams it to stdout (without the `hidden` events) until
/// `stop_when`, then writes the `report` page if asked; the exit code.
pub async fn live(
    inspection: Inspection,
    hidden: Hidden,
    stop_when: StopWhen,
    signals: &mut Signals,
    report: Option<ReportAtExit>,
) -> Result<i32, CliError> {
    let Inspection {
        connection,
        plan,
        render,
        ..
    } = inspection;
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut progress = list_progress();
    let stdout = progress.writer(io::stdout(), io::stdout().is_terminal());
    let mut renderer = EventRenderer::new(BufWriter::with_capacity(STDOUT_BUFFER, stdout), render)
        .with_hidden(hidden)
        .with_tap(tap_of(report.as_ref()));
    let (ending, _) = stream::run(
        session,
        &mut renderer,
        &mut progress.writer(io::stderr(), true),
        stop_when,
        &mut |e| progress.observe(e),
        signals,
    )
    .await?;
    progress.finish();
    if let Some(report) = report {
        report.write(server_of(&connection).await)?;
    }
    connection.close().await;
    ending.into_exit()
}
