//! `kinformer replay FILE`: feed a record file through the informer pipeline offline, with
//! any queue, client-go profile, handlers and resync, at `--speed`, streamed like `watch`.
//!
//! It runs on a single-threaded runtime so that the same file and flags give the same trace;
//! `--clock virtual` pauses tokio's clock (timers fire in recorded time, without waiting) and
//! stamps trace lines with the recording's time, so the output is identical byte for byte.
//! The end of the file ends the run like `--timeout` does.

use std::io::{self, BufWriter, IsTerminal};

use tokio::sync::watch;

use std::time::Duration;

use crate::duration::format_duration;
use crate::informer::source::replay::{Replay, ReplayEnd, Speed};
use crate::informer::trace::StageSet;
use crate::output::EventRenderer;

use super::args::{ClockArg, ReplayArgs};
use super::connect::deadline_after;
use super::exit::CliError;
use super::inspect::{list_progress, render_options};
use super::replaying::{self, Streams, time_left, warn_of_differences};
use super::reporting::{ReportAtExit, tap_of};
use super::session::Session;
use super::stream::{STDOUT_BUFFER, Signals};
use super::tui;

pub async fn run(args: ReplayArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let report = ReportAtExit::asked(args.report.path.as_deref());
    let (shown, hidden) =
        ReportAtExit::stages(report.as_ref(), shown_stages(&args), args.output.hidden());
    let replaying = replaying::start(
        &args.file,
        &args.replay,
        &args.pipeline,
        shown,
        Streams::AskForOne,
    )?;
    if args.top {
        let replaying::Replaying {
            session,
            mut replay,
            path,
            resources,
            ..
        } = replaying;
        return view(session, resources, &args, &mut replay, &path, signals).await;
    }
    say_how_long(&args, &replaying.replay, &replaying.path);
    let render = render_options(&args.output, &replaying.resources, &args.pipeline);
    let server = replaying.server_version.clone();
    let mut progress = list_progress();
    let stdout = progress.writer(io::stdout(), io::stdout().is_terminal());
    let mut renderer = EventRenderer::new(BufWriter::with_capacity(STDOUT_BUFFER, stdout), render)
        .with_hidden(hidden)
        .with_tap(tap_of(report.as_ref()));
    let mut stderr = progress.writer(io::stderr(), true);
    let timeout = time_left(deadline_after(args.timeout));
    let ending = {
        let mut observe = |e: &_| progress.observe(e);
        replaying
            .stream(&mut renderer, &mut stderr, timeout, &mut observe, signals)
            .await?
    };
    progress.finish();
    if let Some(report) = report {
        report.write(server.map(|v| format!("recorded from a server {v}")))?;
    }
    ending.into_exit()
}

/// `replay --top`: the recording drawn as `kinformer top` draws a live informer; the end of
/// the file is said in the bottom line and the view stays until `q`.
async fn view(
    session: Session,
    resources: Vec<String>,
    args: &ReplayArgs,
    replay: &mut Replay,
    path: &str,
    signals: &mut Signals,
) -> Result<i32, CliError> {
    if !io::stdout().is_terminal() {
        return Err(CliError::Usage(format!(
            "replay --top draws on a terminal; leave --top out to stream {path}"
        )));
    }
    let scopes = resources
        .iter()
        .map(|r| format!("{r} · replay of {path}"))
        .collect();
    let (synced, _) = watch::channel(false);
    let mut end = None;
    let (recording, ended_as) = (&mut *replay, &mut end);
    let ending = tui::view(
        session,
        scopes,
        args.pipeline.resync,
        synced,
        signals,
        |steps| async move {
            let ended = recording.ended().await;
            let line = match &ended {
                ReplayEnd::Finished => "replay ended: end of file (q quits)".to_owned(),
                ReplayEnd::Mismatch(e) => format!("replay stopped at line {e} (q quits)"),
            };
            let _ = steps.reports.send(line);
            *ended_as = Some(ended);
            std::future::pending::<()>().await;
        },
    )
    .await;
    warn_of_differences(replay, path, end.as_ref());
    if let Some(ReplayEnd::Mismatch(e)) = end {
        return Err(CliError::BadRecord(format!("{path}:{e}")));
    }
    ending?.into_exit()
}

/// A replay on the wall clock takes the recording's time (divided by `--speed`): said on
/// stderr when that is a second or more, with how to replay it at once.
fn say_how_long(args: &ReplayArgs, replay: &Replay, path: &str) {
    let Speed::Factor(factor) = args.replay.speed else {
        return;
    };
    if args.replay.clock != ClockArg::Wall {
        return;
    }
    let takes = replay
        .recorded_length()
        .div_f64(factor.max(f64::MIN_POSITIVE));
    if takes < Duration::from_secs(1) {
        return;
    }
    eprintln!(
        "replaying {path} on the wall clock: it takes {} (--clock virtual replays it at once, with the recorded times)",
        format_duration(takes)
    );
}

/// The stages the pipeline delivers: `--show`'s for a stream; every stage for `--top`, whose
/// boxes count every event whatever `--show` says.
fn shown_stages(args: &ReplayArgs) -> StageSet {
    if args.top {
        StageSet::ALL
    } else {
        args.output.show.stages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Command, parse_from};
    use crate::informer::trace::Stage;

    fn replay_args(args: &[&str]) -> ReplayArgs {
        let argv = ["kinformer", "replay", "rec.jsonl"].iter().chain(args);
        match parse_from(argv).unwrap().command {
            Command::Replay(r) => r,
            other => panic!("not replay: {other:?}"),
        }
    }

    #[test]
    fn the_top_view_gets_every_stage_whatever_show_says() {
        for show in [&[][..], &["--show", "notifications"]] {
            let mut args = vec!["--top"];
            args.extend_from_slice(show);
            assert_eq!(shown_stages(&replay_args(&args)), StageSet::ALL, "{show:?}");
        }
        let stream = shown_stages(&replay_args(&["--show", "notifications"]));
        assert!(
            !stream.contains(Stage::Fifo),
            "a stream delivers what it shows"
        );
    }
}
