//! The exit summary: counts per stage/event and figures per handler, as tables for people,
//! as the JSONL `summary` line, or as one pretty JSON/YAML document.

use std::io::{self, Write};

use comfy_table::{CellAlignment, Table, presets};

use crate::informer::trace::{Event, Summary, TraceEvent};

use super::durations::format_duration;
use super::ordered::OrderedValue;
use super::{OutputFormat, RenderOptions, jsonl, write_document};

/// Renders `summary` in `format` to `out`; `seq`/`ts` stamp the JSONL/JSON/YAML forms (use the
/// summary event's own when rendering one from the trace stream).
pub fn render(
    out: &mut dyn Write,
    summary: &Summary,
    format: OutputFormat,
    seq: u64,
    ts: jiff::Timestamp,
) -> io::Result<()> {
    let mut buf = Vec::new();
    if format.is_table() {
        write_tables(&mut buf, summary)?;
    } else {
        let event = TraceEvent {
            seq,
            ts,
            event: Event::Summary(Box::new(summary.clone())),
        };
        jsonl::write_event(&mut buf, &event, &RenderOptions::new(format));
        if format != OutputFormat::Jsonl {
            let value = OrderedValue::from_slice(&buf).map_err(io::Error::other)?;
            buf.clear();
            write_document(&mut buf, &value, format)?;
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

/// The two summary tables (counts, handlers), each followed by a newline.
pub fn write_tables(out: &mut Vec<u8>, summary: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "Summary ({} elapsed)",
        format_duration(std::time::Duration::from_millis(
            u64::try_from(summary.duration.as_millis()).unwrap_or(u64::MAX)
        ))
    )?;
    writeln!(out, "{}", counts_table(summary))?;
    if !summary.handlers.is_empty() {
        writeln!(out, "\n{}", handlers_table(summary))?;
    }
    Ok(())
}

fn new_table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::ASCII_MARKDOWN)
        .set_header(header.to_vec());
    table
}

fn right_align(table: &mut Table, from: usize) {
    let n = table.column_count();
    for i in from..n {
        if let Some(c) = table.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

fn counts_table(summary: &Summary) -> Table {
    let mut table = new_table(&["STAGE", "EVENT", "COUNT"]);
    for (name, n) in &summary.counts {
        let (stage, event) = name.split_once('/').unwrap_or((name, ""));
        table.add_row(vec![stage.to_owned(), event.to_owned(), n.to_string()]);
    }
    right_align(&mut table, 2);
    table
}

fn handlers_table(summary: &Summary) -> Table {
    let mut table = new_table(&[
        "HANDLER",
        "NOTIFICATIONS",
        "ADDS",
        "UPDATES",
        "DELETES",
        "SYNCS",
        "HANDLED",
        "PANICS",
        "MAX PENDING",
        "MEAN LATENCY",
    ]);
    for h in &summary.handlers {
        let latency = std::time::Duration::from_micros(
            u64::try_from(h.mean_latency.as_micros()).unwrap_or(u64::MAX),
        );
        table.add_row(vec![
            h.name.clone(),
            h.notifications.to_string(),
            h.adds.to_string(),
            h.updates.to_string(),
            h.deletes.to_string(),
            h.syncs.to_string(),
            h.handled.to_string(),
            h.panics.to_string(),
            h.max_pending.to_string(),
            format_duration(latency),
        ]);
    }
    right_align(&mut table, 1);
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fixtures::summary;

    fn rendered(format: OutputFormat) -> String {
        let mut out = Vec::new();
        render(&mut out, &summary(), format, 9, jiff::Timestamp::UNIX_EPOCH).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table_lists_counts_and_handlers() {
        let text = rendered(OutputFormat::Table);
        assert!(text.contains("| fifo    | delta  |   744 |"), "{text}");
        assert!(text.contains("slow"));
        assert!(text.contains("250.04ms"));
        assert!(text.starts_with("Summary (12.345s elapsed)"));
    }

    #[test]
    fn jsonl_json_and_yaml_forms() {
        let line: serde_json::Value = serde_json::from_str(&rendered(OutputFormat::Jsonl)).unwrap();
        assert_eq!(line["counts"]["fifo/delta"], 744);
        assert_eq!(line["seq"], 9);
        let json: serde_json::Value = serde_json::from_str(&rendered(OutputFormat::Json)).unwrap();
        assert_eq!(json["handlers"][0]["max_pending"], 742);
        assert!(rendered(OutputFormat::Yaml).contains("duration_ms: 12345"));
    }
}
