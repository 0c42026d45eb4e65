//! `kinformer profiles`: the client-go release profiles `--client-go` chooses from, one row
//! per release, one column per feature gate that changes what an informer does.

use std::io::{self, Write};

use crate::informer::profile::{NEWEST, PROFILES, Profile};
use crate::informer::reflector::BackoffReset;

/// Columns: the release, its queue, then the gates `InOrderInformersBatchProcess`,
/// `AtomicFIFO`, `UnlockWhileProcessingFIFO` and `WatchListClient`, and when the reflector's
/// backoff starts again (Rule R12).
const HEADER: [&str; 7] = [
    "RELEASE",
    "QUEUE",
    "POP-BATCH",
    "ATOMIC",
    "UNLOCK",
    "INITIAL-LIST",
    "BACKOFF-RESET",
];

/// Writes the profile table, the default release marked.
pub fn print(out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<[String; 7]> = PROFILES.iter().map(row).collect();
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

fn row(p: &Profile) -> [String; 7] {
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
        assert!(lines[5].starts_with("1.36 (default)") && lines[5].contains("watch-list"));
        assert!(lines[4].ends_with("after 2m quiet") && lines[5].ends_with("every 2m"));
        let queue_col = lines[0].find("QUEUE").unwrap();
        assert!(
            lines
                .iter()
                .skip(1)
                .all(|l| l[queue_col..].starts_with(char::is_alphabetic))
        );
    }
}
