//! The INPUT of `report` and `explain`: a JSONL trace read as it is, or a record file replayed
//! through the pipeline (`replay`'s code, with its flags) and read as the JSONL it renders.

use std::io;
use std::path::Path;

use crate::informer::source::record_file::looks_like_record;
use crate::informer::trace::StageSet;
use crate::output::{EventRenderer, OutputFormat, RenderOptions};
use crate::report::{RunInfo, Trace, TraceWriter, parse_jsonl};

use super::args::{PipelineArgs, ReplayFlags};
use super::exit::CliError;
use super::replaying;
use super::stream::Signals;

/// The run INPUT holds, and where it came from.
pub struct TraceInput {
    pub trace: Trace,
    pub info: RunInfo,
}

/// Reads `input`: a record file is replayed with `flags` and `pipeline`, anything else must be
/// a JSONL trace. A file that is neither is exit 7; an interrupted replay is its signal's code.
pub async fn read(
    input: &Path,
    flags: &ReplayFlags,
    pipeline: &PipelineArgs,
    signals: &mut Signals,
) -> Result<Result<TraceInput, i32>, CliError> {
    let path = input.display().to_string();
    let bytes = std::fs::read(input)
        .map_err(|e| CliError::BadRecord(format!("{path}: cannot read: {e}")))?;
    if looks_like_record(&bytes) {
        return replayed(input, flags, pipeline, signals).await;
    }
    let trace = parse_jsonl(&bytes).map_err(|e| {
        CliError::BadRecord(format!(
            "{path}:{}: {} (INPUT is a JSONL trace, `-o jsonl --show all`, or a record file)",
            e.line, e.message
        ))
    })?;
    if trace.lines.is_empty() {
        return Err(CliError::BadRecord(format!(
            "{path}: empty: no trace lines (INPUT is a JSONL trace, `-o jsonl --show all`, or a record file)"
        )));
    }
    let info = RunInfo {
        input: path,
        server: None,
    };
    Ok(Ok(TraceInput { trace, info }))
}

/// Replays the record file at `input`, every stage delivered, into a trace.
async fn replayed(
    input: &Path,
    flags: &ReplayFlags,
    pipeline: &PipelineArgs,
    signals: &mut Signals,
) -> Result<Result<TraceInput, i32>, CliError> {
    let replaying = replaying::start(
        input,
        flags,
        pipeline,
        StageSet::ALL,
        replaying::Streams::All,
    )?;
    let info = RunInfo {
        input: replaying.path.clone(),
        server: replaying
            .server_version
            .as_ref()
            .map(|v| format!("recorded from a server {v}")),
    };
    let mut renderer = EventRenderer::new(
        TraceWriter::default(),
        RenderOptions::new(OutputFormat::Jsonl),
    );
    let ending = replaying
        .stream(&mut renderer, &mut io::sink(), None, &mut |_| {}, signals)
        .await?;
    match ending.into_exit()? {
        0 => {}
        interrupted => return Ok(Err(interrupted)),
    }
    let trace = renderer
        .into_inner()
        .finish()
        .map_err(CliError::ReplayTrace)?;
    Ok(Ok(TraceInput { trace, info }))
}
