//! `kinformer profiles`: the client-go release profiles `--client-go` chooses from, one row
//! per release, one column per feature gate that changes what an informer does.

use std::io::{self, Write};

use crate::informer::profile::{NEWEST, PROFILES, Profile};
use crate::informer::reflector::BackoffReset;

/// Columns: the release, its queue, then the gates `InOrderInformersBatchProcess`,
/// `AtomicFIFO`, `UnlockWhileProcessingFIFO` and `WatchListClient`, when the reflector's
/// backoff starts again (Rule R12), and how kinformer removes a handler (Rule P6: `remove`,
/// RemoveEventHandler; `shut-down`, 1.37's ShutDownEventHandler, which waits for the callback
/// in hand).
const HEADER: [&str; 8] = [
    "RELEASE",
    "QUEUE",
    "POP-BATCH",
    "ATOMIC",
    "UNLOCK",
    "INITIAL-LIST",
    "BACKOFF-RESET",
    "REMOVAL",
];

/// Writes the profile table, the default release marked.
pub fn print(out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<[String; 8]> = PROFILES.iter().map(row).collect();
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([HEADER[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let header = HEADER.map(str::to_owned);
    for cells in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        writeln!(out, "{}", line.join("  ").trim_end())?;
    }
    Ok(())
}

fn row(p: &Profile) -> [String; 8] {
    let on = |b: bool| if b { "on" } else { "-" }.to_owned();
    let version = if p.version == NEWEST {
        format!("{} (default)", p.version)
    } else {
        p.version.to_owned()
    };
    [
        version,
        p.queue().as_str().to_owned(),
        on(p.batch_process),
        on(p.atomic_fifo),
        on(p.unlock_while_processing),
        if p.watch_list_client {
            "watch-list"
        } else {
            "list"
        }
        .to_owned(),
        match p.backoff_reset {
            BackoffReset::AfterQuietPeriod => "after 2m quiet",
            BackoffReset::Interval => "every 2m",
        }
        .to_owned(),
        if p.shut_down_event_handler {
            "shut-down"
        } else {
            "remove"
        }
        .to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_aligned_row_per_release_with_the_default_marked() {
        let mut out = Vec::new();
        print(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + PROFILES.len());
        assert!(lines[0].starts_with("RELEASE"));
        assert!(lines[1].starts_with("1.32 ") && lines[1].contains("delta-fifo"));
        assert!(lines[5].starts_with("1.36 ") && lines[5].contains("watch-list"));
        assert!(lines[6].starts_with("1.37 (default)") && lines[6].ends_with("shut-down"));
        assert!(lines[4].contains("after 2m quiet") && lines[5].contains("every 2m"));
        assert!(lines[5].ends_with("remove"));
        let queue_col = lines[0].find("QUEUE").unwrap();
        assert!(
            lines
                .iter()
                .skip(1)
                .all(|l| l[queue_col..].starts_with(char::is_alphabetic))
        );
    }
}
