//! `kinformer report INPUT [-o FILE]`: the run INPUT holds (a JSONL trace, or a record file
//! replayed) drawn as one self-contained HTML page.

use super::args::ReportArgs;
use super::exit::CliError;
use super::reporting::write_page;
use super::stream::Signals;
use super::trace_input;

pub async fn run(args: ReportArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let input = match trace_input::read(&args.input, &args.replay, &args.pipeline, signals).await? {
        Ok(input) => input,
        Err(interrupted) => return Ok(interrupted),
    };
    write_page(args.out.as_deref(), &input.trace, &input.info)?;
    Ok(0)
}
