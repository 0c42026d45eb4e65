//! The exit summary: counts per stage/event and figures per handler, as tables for people,
//! as the JSONL `summary` line, or as one pretty JSON/YAML document.

use std::io::{self, Write};

use crate::informer::trace::{Event, HandlerSummary, InformerMetrics, Summary, TraceEvent};

use super::columns::Columns;
use super::document::{self, write_document};
use super::jsonl;
use super::options::{OutputFormat, RenderOptions};
use crate::duration::format_duration;

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
            resource: None,
            event: Event::Summary(Box::new(summary.clone())),
        };
        let opts = RenderOptions::new(format);
        if format == OutputFormat::Jsonl {
            jsonl::write_event(&mut buf, &event, &opts);
        } else {
            write_document(&mut buf, &document::event_document(&event, &opts), format)?;
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

/// The two summary tables (counts, handlers), each followed by a newline.
pub fn write_tables(out: &mut Vec<u8>, summary: &Summary) -> io::Result<()> {
    let elapsed = format_duration(std::time::Duration::from_millis(
        u64::try_from(summary.duration.as_millis()).unwrap_or(u64::MAX),
    ));
    match summary.stop_reason.as_str() {
        "" => writeln!(out, "Summary ({elapsed} elapsed)")?,
        why => writeln!(out, "Summary ({elapsed} elapsed; stopped: {why})")?,
    }
    counts_table(summary).write(out);
    if !summary.handlers.is_empty() {
        out.push(b'\n');
        handlers_table(summary).write(out);
    }
    if !summary.metrics.is_empty() {
        out.push(b'\n');
        metrics_table(&summary.metrics).write(out);
    }
    for (name, counts) in &summary.indices {
        writeln!(out, "\nINDEX {name}")?;
        index_table(counts).write(out);
    }
    Ok(())
}

/// client-go 1.36's informer metrics: one column per informer (its `--name`, else its
/// resource), one row per metric, named as client-go's metrics provider names them.
fn metrics_table(metrics: &[InformerMetrics]) -> Columns {
    let mut header = vec!["INFORMER METRICS".to_owned()];
    header.extend(metrics.iter().map(|m| {
        m.name
            .clone()
            .or_else(|| m.resource.clone())
            .unwrap_or_else(|| "informer".into())
    }));
    let mut table = Columns::new(header, false).right_align_from(1);
    let figures: [(&str, MetricFigure); 5] = [
        ("informer_queued_items", |m| m.queued_items.to_string()),
        ("processing latency: count", |m| m.processed.to_string()),
        ("processing latency: mean", |m| latency(m.mean_processing)),
        ("processing latency: max", |m| latency(m.max_processing)),
        ("informer_store_resource_version", |m| {
            m.store_resource_version
                .map_or_else(|| "-".to_owned(), |rv| rv.to_string())
        }),
    ];
    for (label, value) in &figures {
        let mut row = vec![(*label).to_owned()];
        row.extend(metrics.iter().map(value));
        table.row(row);
    }
    table
}

/// One `--index` at the end of the run: each value and how many objects it holds.
fn index_table(counts: &[(String, usize)]) -> Columns {
    let mut table = Columns::new(["VALUE", "COUNT"], false).right_align_from(1);
    for (value, n) in counts {
        table.row([value.clone(), n.to_string()]);
    }
    table
}

/// One informer metric, as shown.
type MetricFigure = fn(&InformerMetrics) -> String;

/// A duration to the microsecond, as people read it.
/// A latency rounded to three significant digits (`58us`, `71.2ms`, `23.3s`): every figure
/// of a row in one style, whatever its unit.
fn latency(d: std::time::Duration) -> String {
    let nanos = d.as_nanos();
    let digits = nanos.checked_ilog10().map_or(1, |l| l + 1);
    let unit = 10u128.pow(digits.saturating_sub(3));
    let rounded = (nanos + unit / 2) / unit * unit;
    format_duration(std::time::Duration::from_nanos(
        u64::try_from(rounded).unwrap_or(u64::MAX),
    ))
}

fn counts_table(summary: &Summary) -> Columns {
    let mut table = Columns::new(["STAGE", "EVENT", "COUNT"], false).right_align_from(2);
    for (name, n) in &summary.counts {
        let (stage, event) = name.split_once('/').unwrap_or((name, ""));
        table.row([stage.to_owned(), event.to_owned(), n.to_string()]);
    }
    table
}

/// One figure of a handler, as shown.
type Figure = fn(&HandlerSummary) -> String;

/// One column per handler, one row per figure: fits 80 columns for a handful of handlers,
/// whatever the figures. With several resources a column is one resource×handler, named
/// `RESOURCE/HANDLER`.
fn handlers_table(summary: &Summary) -> Columns {
    let mut header = vec!["PER HANDLER".to_owned()];
    header.extend(summary.handlers.iter().map(|h| column_name(summary, h)));
    let mut table = Columns::new(header, false).right_align_from(1);
    let figures: [(&str, Figure); 10] = [
        ("notifications", |h| h.notifications.to_string()),
        ("adds", |h| h.adds.to_string()),
        ("updates", |h| h.updates.to_string()),
        ("deletes", |h| h.deletes.to_string()),
        ("sync notifications", |h| h.syncs.to_string()),
        ("handled", |h| h.handled.to_string()),
        ("panics", |h| h.panics.to_string()),
        ("dropped", |h| h.dropped.to_string()),
        ("max pending", |h| h.max_pending.to_string()),
        ("mean latency", |h| latency(h.mean_latency)),
    ];
    for (label, value) in &figures {
        let mut row = vec![(*label).to_owned()];
        row.extend(summary.handlers.iter().map(value));
        table.row(row);
    }
    table
}

/// The handler's column header: its name, prefixed by its resource when the summary spans
/// several resources.
fn column_name(summary: &Summary, handler: &HandlerSummary) -> String {
    let first = summary.handlers.first().map(|h| &h.resource);
    let several = summary.handlers.iter().any(|h| Some(&h.resource) != first);
    match &handler.resource {
        Some(resource) if several => format!("{resource}/{}", handler.name),
        _ => handler.name.clone(),
    }
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
    fn latencies_have_three_significant_digits_in_one_style() {
        let shown: Vec<String> = [58_000, 71_237_000, 23_284_458_000]
            .map(std::time::Duration::from_nanos)
            .iter()
            .map(|d| latency(*d))
            .collect();
        assert_eq!(shown, ["58us", "71.2ms", "23.3s"]);
    }

    #[test]
    fn table_lists_counts_and_handlers() {
        let text = rendered(OutputFormat::Table);
        let line = |start: &str| {
            text.lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no {start:?} line in\n{text}"))
                .split_whitespace()
                .collect::<Vec<_>>()
        };
        assert_eq!(line("fifo "), ["fifo", "delta", "744"], "{text}");
        assert_eq!(line("PER HANDLER")[2], "slow", "{text}");
        assert_eq!(line("sync notifications")[2], "0", "{text}");
        assert_eq!(line("dropped")[1], "0", "{text}");
        // Counts are right-aligned: every COUNT ends in the same column.
        let ends: std::collections::BTreeSet<usize> = text
            .lines()
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| l.chars().count())
            .collect();
        assert_eq!(ends.len(), 1, "{text}");
        assert!(text.contains("250ms"));
        assert!(
            text.starts_with(
                "Summary (12.345s elapsed; stopped: count of 3 notifications reached)"
            ),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }

    #[test]
    fn several_resources_name_each_column_resource_slash_handler() {
        let mut summary = summary();
        let mut deploy = summary.handlers[0].clone();
        summary.handlers[0].resource = Some("pods".into());
        deploy.resource = Some("deployments.apps".into());
        summary.handlers.push(deploy);
        let mut out = Vec::new();
        write_tables(&mut out, &summary).unwrap();
        let text = String::from_utf8(out).unwrap();
        let header: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with("PER HANDLER"))
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        assert_eq!(
            header,
            ["PER", "HANDLER", "pods/slow", "deployments.apps/slow"],
            "{text}"
        );
        let mut line = Vec::new();
        render(
            &mut line,
            &summary,
            OutputFormat::Jsonl,
            1,
            jiff::Timestamp::UNIX_EPOCH,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["handlers"][1]["resource"], "deployments.apps");
    }

    #[test]
    fn jsonl_json_and_yaml_forms() {
        let line: serde_json::Value = serde_json::from_str(&rendered(OutputFormat::Jsonl)).unwrap();
        assert_eq!(line["counts"]["fifo/delta"], 744);
        assert_eq!(line["seq"], 9);
        let json: serde_json::Value = serde_json::from_str(&rendered(OutputFormat::Json)).unwrap();
        assert_eq!(json["handlers"][0]["max_pending"], 742);
        assert!(rendered(OutputFormat::Yaml).contains("duration_ms: 12345"));
        assert_eq!(line["stop_reason"], "count of 3 notifications reached");
    }
}
