//! Replaying a record file through the pipeline, shared by `replay` and by `report` and
//! `explain` given a record file: the file loaded, one informer per recorded resource started on
//! its recorded answers, and the trace streamed into a renderer until the recording ends.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::informer::shared_informer::InformerConfig;
use crate::informer::source::record_file::{EntryKind, OBSERVED, RecordError, RecordFile};
use crate::informer::source::replay::{Replay, ReplayEnd};
use crate::informer::trace::{Event, StageSet, TraceClock};
use crate::output::EventRenderer;
use crate::scenario::InspectorAction;

use super::args::{ClockArg, PipelineArgs, ReplayFlags};
use super::exit::CliError;
use super::inspect::informer_config;
use super::session::{ResourcePlan, Session, SessionPlan};
use super::stream::{self, Ending, Signals, StopWhen};

/// How long the pipeline may settle after the last entry before the replay stops.
const SETTLE: Duration = Duration::from_millis(100);

/// At most this many `warning:` lines about calls that differ from the recording.
const MAX_NOTES: usize = 5;

/// A record file loaded and its informers started.
pub struct Replaying {
    pub session: Session,
    pub replay: Replay,
    /// The file, as messages name it.
    pub path: String,
    /// The recorded resources (the header's).
    pub resources: Vec<String>,
    /// The recorded server's version (the header's).
    pub server_version: Option<String>,
}

/// What a proxy recording of several streams replays when no `--stream` picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    /// `replay`: none; the error names them and asks for one.
    AskForOne,
    /// `report`, `explain`: every one, each with its client's list strategy.
    All,
}

/// Loads `file` and starts its informers with `pipeline`'s settings, delivering `shown`.
pub fn start(
    file: &Path,
    flags: &ReplayFlags,
    pipeline: &PipelineArgs,
    shown: StageSet,
    streams: Streams,
) -> Result<Replaying, CliError> {
    let path = file.display().to_string();
    let bad = |e: RecordError| CliError::BadRecord(format!("{path}:{e}"));
    let bytes = std::fs::read(file)
        .map_err(|e| CliError::BadRecord(format!("{path}: cannot read: {e}")))?;
    let mut recording = RecordFile::parse(&bytes).map_err(bad)?;
    if let Some(stream) = &flags.stream {
        recording
            .select_stream(stream)
            .map_err(|e| CliError::BadRecord(format!("{path}: {e}")))?;
    } else if streams == Streams::AskForOne {
        ask_for_one_stream(&recording, &path)?;
    }
    for (line, resource, kind) in recording.metadata_only() {
        eprintln!(
            "warning: {path}:{line}: {resource}: its {kind} objects are metadata only (recorded \
             from protobuf without a message for that kind)"
        );
    }
    let created: jiff::Timestamp = recording.header.created.parse().map_err(|e| {
        bad(RecordError {
            line: 1,
            message: format!("bad created time {:?}: {e}", recording.header.created),
        })
    })?;
    let resources = recording.header.resources.clone();
    let server_version = recording.header.server_version.clone();
    let virtual_clock = flags.clock == ClockArg::Virtual;
    let informers: Vec<InformerConfig> = resources
        .iter()
        .map(|r| replay_informer_config(pipeline, &recording, r, virtual_clock))
        .collect();
    let mut replay = Replay::new(recording, flags.speed).map_err(bad)?;
    let plan = SessionPlan {
        resources: replay
            .sources()
            .into_iter()
            .zip(informers)
            .map(|(replayed, informer)| ResourcePlan {
                resource: replayed.resource,
                source: replayed.source,
                starts_at: Some(replayed.starts_at),
                informer: Some(informer),
            })
            .collect(),
        informer: informer_config(pipeline),
        indexers: pipeline.index_functions(),
        handlers: pipeline.handler_specs(),
        shown,
        clock: virtual_clock.then(|| recorded_time(created)),
    };
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(Replaying {
        session,
        replay,
        path,
        resources,
        server_version,
    })
}

impl Replaying {
    /// Streams the replay into `renderer` until the end of the recording (or `timeout`, or a
    /// signal), with the summary tables on `summary_out`; says on stderr how the calls
    /// differed from the recording. A call of the other kind is exit 7.
    pub async fn stream<W: Write>(
        self,
        renderer: &mut EventRenderer<W>,
        summary_out: &mut dyn Write,
        timeout: Option<Duration>,
        observe: &mut dyn FnMut(&Event),
        signals: &mut Signals,
    ) -> Result<Ending, CliError> {
        let Replaying {
            session,
            replay,
            path,
            ..
        } = self;
        let stop_when = StopWhen {
            timeout,
            end_action: Some("end of the recording"),
            ..StopWhen::default()
        };
        let (actions_tx, mut actions) = mpsc::unbounded_channel();
        let mut end = None;
        let ending = {
            let streaming = stream::run_with_actions(
                session,
                renderer,
                summary_out,
                stop_when,
                observe,
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
                    result = &mut streaming => break result?.0,
                    e = &mut ended, if end.is_none() => end = Some(e),
                }
            }
        };
        warn_of_differences(&replay, &path, end.as_ref());
        if let Some(ReplayEnd::Mismatch(e)) = end {
            return Err(CliError::BadRecord(format!("{path}:{e}")));
        }
        Ok(ending)
    }
}

/// `--timeout` as the time left from now (None: until the end of the recording).
pub fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
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
pub fn warn_of_differences(replay: &Replay, path: &str, end: Option<&ReplayEnd>) {
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
        eprintln!("warning: {path}: {}", never_asked(left));
    }
}

/// `1 recorded entry was never asked for`, `3 recorded entries were never asked for`.
fn never_asked(left: usize) -> String {
    match left {
        1 => "1 recorded entry was never asked for".to_owned(),
        n => format!("{n} recorded entries were never asked for"),
    }
}

/// A proxy recording of several streams, replayed without `--stream`: a usage error naming
/// them (their clients may list differently, and one replay runs one client's informers).
fn ask_for_one_stream(recording: &RecordFile, path: &str) -> Result<(), CliError> {
    let streams = &recording.header.resources;
    if recording.header.client_go != OBSERVED || streams.len() < 2 {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "{path} is a proxy recording of {} client-side informer streams; replay one with --stream NAME: {} (report and explain take them all)",
        streams.len(),
        streams.join(", ")
    )))
}

/// The informer's configuration for `resource`; on a virtual clock its randomness (backoff
/// jitter, watch timeouts) is seeded, so that a replay prints the same trace every time. A
/// stream of a client kinformer only observed (a proxy's) is replayed with the list strategy
/// and paging of its first request, unless `--watch-list` or `--page-size` says otherwise.
fn replay_informer_config(
    pipeline: &PipelineArgs,
    recording: &RecordFile,
    resource: &str,
    virtual_clock: bool,
) -> InformerConfig {
    let mut config = informer_config(pipeline);
    if virtual_clock {
        config.reflector.jitter_seed = Some(0);
    }
    let observed = recording.header.client_go == OBSERVED;
    let mut of_resource = recording.entries.iter().filter(|e| e.resource == resource);
    let first = of_resource.find_map(|e| match &e.kind {
        EntryKind::List(opts) => Some(Some(opts.limit)),
        EntryKind::Watch(opts) if opts.send_initial_events => Some(None),
        _ => None,
    });
    match first.filter(|_| observed) {
        Some(Some(limit)) => {
            if pipeline.watch_list.is_none() {
                config.reflector.watch_list = false;
            }
            if pipeline.page_size.is_none() {
                config.reflector.page_size = limit;
            }
        }
        Some(None) if pipeline.watch_list.is_none() => config.reflector.watch_list = true,
        _ => {}
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Command, parse_from};

    fn pipeline(args: &[&str]) -> PipelineArgs {
        let argv = ["kinformer", "replay", "rec.jsonl"].iter().chain(args);
        match parse_from(argv).unwrap().command {
            Command::Replay(r) => r.pipeline,
            other => panic!("not replay: {other:?}"),
        }
    }

    /// A proxy's recording of a client that LISTs 100 at a time.
    fn observed() -> RecordFile {
        let text = concat!(
            r#"{"kinformer-record":1,"created":"2026-11-23T17:17:08Z","client_go":"observed","resources":["OpenAPI-Generator/pods@default"]}"#,
            "\n",
            r#"{"t":0,"r":"OpenAPI-Generator/pods@default","list":{"rv":"0","limit":100}}"#,
            "\n"
        );
        RecordFile::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_entries_never_asked_for_are_counted_in_good_english() {
        assert_eq!(never_asked(1), "1 recorded entry was never asked for");
        assert_eq!(never_asked(3), "3 recorded entries were never asked for");
    }

    #[test]
    fn an_observed_client_is_replayed_with_its_recorded_list_strategy_and_paging() {
        let stream = "OpenAPI-Generator/pods@default";
        let config = replay_informer_config(&pipeline(&[]), &observed(), stream, false);
        assert_eq!(
            (config.reflector.watch_list, config.reflector.page_size),
            (false, Some(100))
        );
        let asked = pipeline(&["--watch-list=true", "--page-size", "7"]);
        let config = replay_informer_config(&asked, &observed(), stream, false);
        assert_eq!(
            (config.reflector.watch_list, config.reflector.page_size),
            (true, Some(7)),
            "the flags given win"
        );
    }
}
