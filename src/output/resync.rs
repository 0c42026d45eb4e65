//! Views of `kinformer resync`, the resync debugger: the per-handler schedule, one line per
//! resync tick, and at exit each handler's timeline of sync notifications. The caller fills
//! the plain data structs; durations print kubectl-style (`2s`, `1m30s`).

use std::io::{self, Write};
use std::time::Duration;

use super::durations::format_duration;
use super::table::truncate;

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
    /// Resyncs delivered so far.
    pub resyncs: u64,
    /// Time from now to the next resync; `None` when the handler never resyncs.
    pub next_due: Option<Duration>,
}

/// One resync check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tick {
    /// Time since the run started.
    pub at: Duration,
    /// The handlers that were due.
    pub due: Vec<String>,
    /// How many Sync deltas the queue received.
    pub queued: usize,
}

/// When one handler received sync notifications (times since start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    pub handler: String,
    pub syncs: Vec<Duration>,
}

/// The schedule table.
pub fn write_schedule(
    out: &mut dyn Write,
    rows: &[ScheduleRow],
    no_headers: bool,
) -> io::Result<()> {
    const WIDTHS: [usize; 5] = [16, 10, 10, 8, 9];
    let mut text = String::new();
    if !no_headers {
        push_row(
            &mut text,
            &WIDTHS,
            &[
                "HANDLER",
                "REQUESTED",
                "EFFECTIVE",
                "RESYNCS",
                "NEXT DUE",
                "ADJUSTMENT",
            ],
        );
    }
    for r in rows {
        let next = r.next_due.map_or_else(
            || "never".to_owned(),
            |d| format!("in {}", format_duration(whole_ms(d))),
        );
        push_row(
            &mut text,
            &WIDTHS,
            &[
                &r.handler,
                &period(r.requested),
                &period(r.effective),
                &r.resyncs.to_string(),
                &next,
                r.adjustment.as_deref().unwrap_or("-"),
            ],
        );
    }
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// `+30s  resync check: due=fast,default  queued=742` (or `due=none`).
pub fn tick_line(tick: &Tick) -> String {
    let due = if tick.due.is_empty() {
        "none".to_owned()
    } else {
        tick.due.join(",")
    };
    format!(
        "+{:<8} resync check: due={due} queued={}",
        format_duration(whole_ms(tick.at)),
        tick.queued
    )
}

/// Per handler: `fast       3 syncs at +1s +2s +3s` (or `no syncs`).
pub fn write_timeline(out: &mut dyn Write, timelines: &[Timeline]) -> io::Result<()> {
    let mut text = String::new();
    for t in timelines {
        let name = truncate(&t.handler, 16);
        if t.syncs.is_empty() {
            text.push_str(&format!("{name:<16}  no syncs\n"));
            continue;
        }
        let times: Vec<String> = t
            .syncs
            .iter()
            .map(|d| format!("+{}", format_duration(whole_ms(*d))))
            .collect();
        let noun = if t.syncs.len() == 1 { "sync" } else { "syncs" };
        text.push_str(&format!(
            "{name:<16}  {} {noun} at {}\n",
            t.syncs.len(),
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

fn push_row(text: &mut String, widths: &[usize], cells: &[&str]) {
    let mut line = String::new();
    for (i, cell) in cells.iter().enumerate() {
        match widths.get(i) {
            Some(w) => {
                let cut = truncate(cell, *w);
                line.push_str(&format!("{cut:<w$}  "));
            }
            None => line.push_str(cell),
        }
    }
    text.push_str(line.trim_end());
    text.push('\n');
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
        write_schedule(&mut out, &rows, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "HANDLER           REQUESTED   EFFECTIVE   RESYNCS   NEXT DUE   ADJUSTMENT"
        );
        assert_eq!(
            lines[1],
            "fast              500ms       1s          3         in 400ms   raised to the 1s minimum"
        );
        assert!(lines[2].contains("0 (never)") && lines[2].contains("never"));
    }

    #[test]
    fn tick_and_timeline() {
        let tick = Tick {
            at: Duration::from_secs(90),
            due: vec!["fast".into(), "default".into()],
            queued: 742,
        };
        assert_eq!(
            tick_line(&tick),
            "+1m30s    resync check: due=fast,default queued=742"
        );
        let mut out = Vec::new();
        let timelines = [
            Timeline {
                handler: "fast".into(),
                syncs: vec![Duration::from_secs(1), Duration::from_secs(2)],
            },
            Timeline {
                handler: "slow".into(),
                syncs: vec![],
            },
        ];
        write_timeline(&mut out, &timelines).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("fast              2 syncs at +1s +2s"),
            "{text}"
        );
        assert!(text.contains("slow              no syncs"));
    }
}
