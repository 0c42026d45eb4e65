//! `kinformer explain KEY INPUT`: one object's story in the run INPUT holds (a JSONL trace, or
//! a record file replayed), as text or JSONL on stdout — the words the report page's search
//! shows.

use std::io::{self, Write};

use crate::report::Trace;
use crate::report::explain::{find, nearest, write_jsonl, write_text};
use crate::report::story::stories;

use super::args::{ExplainArgs, ExplainFormat};
use super::exit::CliError;
use super::stream::Signals;
use super::trace_input;

pub async fn run(args: ExplainArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let input = match trace_input::read(&args.input, &args.replay, &args.pipeline, signals).await? {
        Ok(input) => input,
        Err(interrupted) => return Ok(interrupted),
    };
    let all = stories(&input.trace);
    let found = find(&all, &args.key);
    if found.is_empty() {
        return Err(unknown_key(
            &args.key,
            &nearest(&all, &args.key),
            &input.info.input,
        ));
    }
    warn_if_partial(&input.trace, &input.info.input);
    let mut out = Vec::new();
    match args.output {
        ExplainFormat::Text => write_text(&mut out, &found),
        ExplainFormat::Jsonl => write_jsonl(&mut out, &found),
    }
    match io::stdout().lock().write_all(&out) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

/// A trace printed with a narrower `--show` than `all` tells only part of each story: said
/// once on stderr. A Go tap's trace has no queue or indexer lines by nature (client-go's
/// queue and cache are not observable from inside without a fork): only its wire and
/// handler lines are expected.
fn warn_if_partial(trace: &Trace, input: &str) {
    let stages: Vec<&str> = trace.lines.iter().map(|l| l.stage.as_str()).collect();
    let expected: &[&str] = if trace.from_go_tap() {
        &["reflector", "handler"]
    } else {
        &["reflector", "fifo", "indexer", "handler"]
    };
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|stage| !stages.contains(stage))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "warning: {input} has no {} lines: the story lacks those steps (trace with -o jsonl --show all)",
            missing.join(", ")
        );
    }
}

fn unknown_key(key: &str, nearest: &[&str], input: &str) -> CliError {
    let hint = match nearest {
        [] => String::new(),
        keys => format!(" (did you mean {}?)", keys.join(", ")),
    };
    CliError::UnknownKey(format!(
        "no object with key {key:?} in {input}{hint}; a key is namespace/name, or name for a cluster-scoped object"
    ))
}
