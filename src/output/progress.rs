//! A progress indicator for the initial LIST (objects and pages so far), fed by the
//! reflector's `list-start`/`list-page`/`list-done` events. Drawn on stderr, only when stderr
//! is a terminal that is not `TERM=dumb`; cleared once the list completes (or the informer
//! synced, for a `--show` without the reflector), when the run ends, and for good as soon as a
//! row is written to the same terminal (through [`ListProgress::writer`]): rows and the spinner
//! never share the screen.

use std::io::{self, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::informer::trace::Event;

/// The LIST progress spinner (inert when disabled).
pub struct ListProgress {
    bar: Option<ProgressBar>,
    items: u64,
    pages: u32,
}

impl ListProgress {
    /// `enabled` should be "stderr is a TTY"; a `TERM=dumb` terminal never gets a spinner.
    pub fn new(enabled: bool) -> Self {
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Self {
            bar: (enabled && !dumb).then(spinner),
            items: 0,
            pages: 0,
        }
    }

    /// `inner`, which shares the terminal with the spinner when `same_terminal`: the first
    /// write there ends the spinner for good (the rows are the progress from then on). Writes
    /// elsewhere (a pipe, a file) leave it running.
    pub fn writer<W: Write>(&self, inner: W, same_terminal: bool) -> AroundProgress<W> {
        AroundProgress {
            inner,
            bar: self.bar.clone().filter(|_| same_terminal),
        }
    }

    /// Updates the indicator from a reflector event; other events are ignored.
    pub fn observe(&mut self, event: &Event) {
        match event {
            Event::ListStart { .. } => {
                self.items = 0;
                self.pages = 0;
                self.show();
            }
            Event::ListPage { items, .. } => {
                self.items += u64::try_from(*items).unwrap_or(u64::MAX);
                self.pages += 1;
                self.show();
            }
            Event::ListDone { .. } | Event::Synced { .. } => self.finish(),
            _ => {}
        }
    }

    /// `listing… 1500 objects, 3 pages`.
    pub fn message(&self) -> String {
        let noun = if self.pages == 1 { "page" } else { "pages" };
        format!("listing… {} objects, {} {noun}", self.items, self.pages)
    }

    fn show(&self) {
        if let Some(bar) = self.bar.as_ref().filter(|b| !b.is_finished()) {
            bar.set_message(self.message());
            bar.tick();
        }
    }

    /// Clears the indicator (also done on drop).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    pub fn is_active(&self) -> bool {
        self.bar.is_some()
    }
}

impl Drop for ListProgress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A writer that ends the spinner before its first write (see [`ListProgress::writer`]).
pub struct AroundProgress<W> {
    inner: W,
    bar: Option<ProgressBar>,
}

impl<W: Write> Write for AroundProgress<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn spinner() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pages_and_items_and_clears_on_done() {
        let mut p = ListProgress::new(false);
        p.observe(&Event::ListStart {
            resource_version: "0".into(),
            resource_version_match: None,
            limit: Some(2),
            watch_list: false,
        });
        for _ in 0..2 {
            p.observe(&Event::ListPage {
                page: 1,
                items: 2,
                more: true,
            });
        }
        assert_eq!(p.message(), "listing… 4 objects, 2 pages");
        let mut shown = ListProgress::new(true);
        assert!(shown.is_active());
        shown.observe(&Event::ListDone {
            items: 4,
            pages: 2,
            resource_version: "9".into(),
        });
        assert!(!shown.is_active());
        let mut synced = ListProgress::new(true);
        synced.observe(&Event::Synced {
            objects: 4,
            store_rv: None,
        });
        assert!(
            !synced.is_active(),
            "a --show without the reflector still clears it"
        );
        let listing = ListProgress::new(true);
        let mut out = listing.writer(Vec::new(), true);
        out.write_all(b"row\n").unwrap();
        assert_eq!(out.inner, b"row\n");
        assert!(listing.bar.as_ref().is_some_and(ProgressBar::is_finished));
        let piped = ListProgress::new(true);
        piped.writer(Vec::new(), false).write_all(b"row\n").unwrap();
        assert!(piped.bar.as_ref().is_some_and(|b| !b.is_finished()));
    }
}
