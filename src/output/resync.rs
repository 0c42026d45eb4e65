//! Views of `kinformer resync`, the resync debugger: the per-handler schedule and, at exit, each
//! handler's timeline of the resync ticks it was due at, as tables or as JSONL `schedule` and
//! `timeline` lines. The caller fills the plain data structs; durations print kubectl-style
//! (`2s`, `1m30s`).

use std::io::{self, Write};
use std::time::Duration;

use serde_json::json;

use super::ExtraLine;
use super::columns::Columns;
use super::table::truncate;
use crate::duration::format_duration;

/// One handler's row in the schedule table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleRow {
    pub handler: String,
    /// The period the handler asked for.
    pub requested: Duration,
    /// The period in force after client-go's adjustments (0 = never).
    pub effective: Duration,
    /// Why `effective` differs from `requested`, if it does.
    pub adjustment: Option<String>,
    /// Resync ticks at which the handler was due so far.
    pub resyncs: u64,
    /// Time from now to the next resync; `None` when the handler never resyncs.
    pub next_due: Option<Duration>,
}

/// The resync ticks at which one handler was due (times since start). Each such tick queues a
/// sync notification per cached object for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    pub handler: String,
    pub ticks: Vec<Duration>,
}

/// The schedule as JSONL `schedule` lines, one per handler; `phase` is `start` or `end`.
pub fn schedule_lines(rows: &[ScheduleRow], phase: &'static str) -> Vec<ExtraLine> {
    rows.iter()
        .map(|r| {
            let mut fields = vec![
                ("phase", json!(phase)),
                ("handler", json!(r.handler)),
                ("requested_ms", json!(millis(r.requested))),
                ("resync_ms", json!(millis(r.effective))),
                ("ticks_due", json!(r.resyncs)),
            ];
            if let Some(next) = r.next_due {
                fields.push(("next_due_ms", json!(millis(next))));
            }
            if let Some(adjustment) = &r.adjustment {
                fields.push(("adjustment", json!(adjustment)));
            }
            ExtraLine {
                stage: "resync",
                event: "schedule",
                fields,
            }
        })
        .collect()
}

/// The timelines as JSONL `timeline` lines, one per handler.
pub fn timeline_lines(timelines: &[Timeline]) -> Vec<ExtraLine> {
    timelines
        .iter()
        .map(|t| ExtraLine {
            stage: "resync",
            event: "timeline",
            fields: vec![
                ("handler", json!(t.handler)),
                (
                    "ticks_ms",
                    json!(t.ticks.iter().map(|d| millis(*d)).collect::<Vec<_>>()),
                ),
            ],
        })
        .collect()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The schedule table; on a terminal (`width`) the ADJUSTMENT text wraps under itself.
pub fn write_schedule(
    out: &mut dyn Write,
    rows: &[ScheduleRow],
    no_headers: bool,
    width: Option<usize>,
) -> io::Result<()> {
    let header = [
        "HANDLER",
        "REQUESTED",
        "EFFECTIVE",
        "TICKS DUE",
        "NEXT DUE",
        "ADJUSTMENT",
    ];
    let mut table = Columns::new(header, no_headers).wrap_last_to(width);
    for r in rows {
        let next = r.next_due.map_or_else(
            || "never".to_owned(),
            |d| format!("in {}", format_duration(whole_ms(d))),
        );
        table.row([
            r.handler.clone(),
            period(r.requested),
            period(r.effective),
            r.resyncs.to_string(),
            next,
            r.adjustment.clone().unwrap_or_else(|| "-".to_owned()),
        ]);
    }
    let mut text = Vec::new();
    table.write(&mut text);
    out.write_all(&text)?;
    out.flush()
}

/// Per handler: `fast              due at 3 resync ticks: +1s +2s +3s` (or `never due`).
pub fn write_timeline(out: &mut dyn Write, timelines: &[Timeline]) -> io::Result<()> {
    let mut text = String::new();
    for t in timelines {
        let name = truncate(&t.handler, 16);
        if t.ticks.is_empty() {
            text.push_str(&format!("{name:<16}  never due\n"));
            continue;
        }
        let times: Vec<String> = t
            .ticks
            .iter()
            .map(|d| format!("+{}", format_duration(whole_ms(*d))))
            .collect();
        let noun = if t.ticks.len() == 1 { "tick" } else { "ticks" };
        text.push_str(&format!(
            "{name:<16}  due at {} resync {noun}: {}\n",
            t.ticks.len(),
            times.join(" ")
        ));
    }
    out.write_all(text.as_bytes())?;
    out.flush()
}

fn period(d: Duration) -> String {
    if d.is_zero() {
        "0 (never)".to_owned()
    } else {
        format_duration(d)
    }
}

/// Milliseconds are plenty for people; finer digits are noise.
fn whole_ms(d: Duration) -> Duration {
    Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_table_and_lines() {
        let rows = [
            ScheduleRow {
                handler: "fast".into(),
                requested: Duration::from_millis(500),
                effective: Duration::from_secs(1),
                adjustment: Some("raised to the 1s minimum".into()),
                resyncs: 3,
                next_due: Some(Duration::from_millis(400)),
            },
            ScheduleRow {
                handler: "never".into(),
                requested: Duration::ZERO,
                effective: Duration::ZERO,
                adjustment: None,
                resyncs: 0,
                next_due: None,
            },
        ];
        let mut out = Vec::new();
        write_schedule(&mut out, &rows, false, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "HANDLER   REQUESTED   EFFECTIVE   TICKS DUE   NEXT DUE   ADJUSTMENT"
        );
        assert_eq!(
            lines[1],
            "fast      500ms       1s          3           in 400ms   raised to the 1s minimum"
        );
        assert!(lines[2].contains("0 (never)") && lines[2].contains("never"));
        let mut narrow = Vec::new();
        write_schedule(&mut narrow, &rows, false, Some(70)).unwrap();
        let narrow = String::from_utf8(narrow).unwrap();
        assert!(narrow.lines().all(|l| l.chars().count() <= 70), "{narrow}");
        let words = narrow.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("raised to the 1s minimum"), "{narrow}");
        let jsonl = schedule_lines(&rows, "end");
        assert_eq!(jsonl[0].event, "schedule");
        assert!(jsonl[0].fields.contains(&("next_due_ms", json!(400))));
        assert!(!jsonl[1].fields.iter().any(|(k, _)| *k == "next_due_ms"));
    }

    #[test]
    fn timeline_counts_ticks_and_jsonl_lines() {
        let mut out = Vec::new();
        let timelines = [
            Timeline {
                handler: "fast".into(),
                ticks: vec![Duration::from_secs(1), Duration::from_secs(2)],
            },
            Timeline {
                handler: "slow".into(),
                ticks: vec![],
            },
        ];
        write_timeline(&mut out, &timelines).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("fast              due at 2 resync ticks: +1s +2s"),
            "{text}"
        );
        assert!(text.contains("slow              never due"));
        let lines = timeline_lines(&timelines);
        assert_eq!(lines[0].fields[1], ("ticks_ms", json!([1000, 2000])));
    }
}
