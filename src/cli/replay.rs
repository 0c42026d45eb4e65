//! `kinformer replay FILE`: feed a record file through the informer pipeline offline, with
//! any queue, client-go profile, handlers and resync, at `--speed`, streamed like `watch`.
//!
//! It runs on a single-threaded runtime so that the same file and flags give the same trace;
//! `--clock virtual` pauses tokio's clock (timers fire in recorded time, without waiting) and
//! stamps trace lines with the recording's time, so the output is identical byte for byte.
//! The end of the file ends the run like `--timeout` does.

use std::io::{self, BufWriter, IsTerminal};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::informer::shared_informer::InformerConfig;
use crate::informer::source::record_file::{RecordError, RecordFile};
use crate::informer::source::replay::{Replay, ReplayEnd};
use crate::informer::trace::{StageSet, TraceClock};
use crate::output::EventRenderer;
use crate::scenario::InspectorAction;

use super::args::{ClockArg, PipelineArgs, ReplayArgs};
use super::connect::deadline_after;
use super::exit::CliError;
use super::inspect::{informer_config, list_progress, render_options};
use super::session::{ResourcePlan, Session, SessionPlan};
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen};
use super::tui;

/// How long the pipeline may settle after the last entry before the replay stops.
const SETTLE: Duration = Duration::from_millis(100);

/// At most this many `warning:` lines about calls that differ from the recording.
const MAX_NOTES: usize = 5;

pub async fn run(args: ReplayArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let path = args.file.display().to_string();
    let bad = |e: RecordError| CliError::BadRecord(format!("{path}:{e}"));
    let bytes = std::fs::read(&args.file)
        .map_err(|e| CliError::BadRecord(format!("{path}: cannot read: {e}")))?;
    let mut file = RecordFile::parse(&bytes).map_err(bad)?;
    if let Some(stream) = &args.stream {
        file.select_stream(stream)
            .map_err(|e| CliError::BadRecord(format!("{path}: {e}")))?;
    }
    let created: jiff::Timestamp = file.header.created.parse().map_err(|e| {
        bad(RecordError {
            line: 1,
            message: format!("bad created time {:?}: {e}", file.header.created),
        })
    })?;
    let resources = file.header.resources.clone();
    let virtual_clock = args.clock == ClockArg::Virtual;
    let mut replay = Replay::new(file, args.speed).map_err(bad)?;
    let plan = SessionPlan {
        resources: replay
            .sources()
            .into_iter()
            .map(|(resource, source)| ResourcePlan { resource, source })
            .collect(),
        informer: replay_informer_config(&args.pipeline, virtual_clock),
        indexers: args.pipeline.index_functions(),
        handlers: args.pipeline.handler_specs(),
        shown: shown_stages(&args),
        clock: virtual_clock.then(|| recorded_time(created)),
    };
    let render = render_options(&args.output, &resources, &args.pipeline);
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    if args.top {
        return view(session, resources, &args, &mut replay, &path, signals).await;
    }
    let mut progress = list_progress();
    let stdout = progress.writer(io::stdout(), io::stdout().is_terminal());
    let mut renderer = EventRenderer::new(BufWriter::with_capacity(STDOUT_BUFFER, stdout), render)
        .with_hidden(args.output.show.hidden());
    let stop_when = StopWhen {
        timeout: deadline_after(args.timeout).map(|d| d.saturating_duration_since(Instant::now())),
        end_action: Some("end of the recording"),
        ..StopWhen::default()
    };
    let (actions_tx, mut actions) = mpsc::unbounded_channel();
    let mut stderr = progress.writer(io::stderr(), true);
    let mut end = None;
    let (ending, _) = {
        let mut observe = |e: &_| progress.observe(e);
        let streaming = stream::run_with_actions(
            session,
            &mut renderer,
            &mut stderr,
            stop_when,
            &mut observe,
            signals,
            &mut actions,
        );
        let ended = async {
            let end = replay.ended().await;
            if end == ReplayEnd::Finished {
                tokio::time::sleep(SETTLE).await;
            }
            let _ = actions_tx.send(InspectorAction::End);
            end
        };
        tokio::pin!(streaming, ended);
        loop {
            tokio::select! {
                result = &mut streaming => break result?,
                e = &mut ended, if end.is_none() => end = Some(e),
            }
        }
    };
    progress.finish();
    report(&replay, &path, end.as_ref());
    if let Some(ReplayEnd::Mismatch(e)) = end {
        return Err(bad(e));
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
    report(replay, path, end.as_ref());
    if let Some(ReplayEnd::Mismatch(e)) = end {
        return Err(CliError::BadRecord(format!("{path}:{e}")));
    }
    ending?.into_exit()
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

/// The virtual clock's timestamps: the recording's start plus the paused clock's progress.
fn recorded_time(created: jiff::Timestamp) -> TraceClock {
    let start = Instant::now();
    Arc::new(move || {
        let elapsed = jiff::SignedDuration::try_from(start.elapsed()).unwrap_or_default();
        created.checked_add(elapsed).unwrap_or(created)
    })
}

/// Warnings on stderr: calls answered although they differ from the recording, and — when the
/// replay reached the end of the file (not after Ctrl-C or `--timeout`) — entries it never
/// asked for.
fn report(replay: &Replay, path: &str, end: Option<&ReplayEnd>) {
    let notes = replay.notes();
    for note in notes.iter().take(MAX_NOTES) {
        eprintln!("warning: {path}:{note}");
    }
    if notes.len() > MAX_NOTES {
        eprintln!(
            "warning: {path}: {} more calls differ from the recording",
            notes.len() - MAX_NOTES
        );
    }
    let left = replay.left_over();
    if left > 0 && end == Some(&ReplayEnd::Finished) {
        eprintln!("warning: {path}: {left} recorded entries were never asked for");
    }
}

/// The informer's configuration; on a virtual clock its randomness (backoff jitter, watch
/// timeouts) is seeded, so that a replay prints the same trace every time.
fn replay_informer_config(pipeline: &PipelineArgs, virtual_clock: bool) -> InformerConfig {
    let mut config = informer_config(pipeline);
    if virtual_clock {
        config.reflector.jitter_seed = Some(0);
    }
    config
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
