//! A progress indicator for the initial LIST (objects and pages so far), fed by the
//! reflector's `list-start`/`list-page`/`list-done` events. Drawn on stderr, only when stderr
//! is a TTY, and cleared once the list completes.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::informer::trace::Event;

/// The LIST progress spinner (inert when disabled).
pub struct ListProgress {
    bar: Option<ProgressBar>,
    items: u64,
    pages: u32,
}

impl ListProgress {
    /// `enabled` should be "stderr is a TTY".
    pub fn new(enabled: bool) -> Self {
        Self {
            bar: enabled.then(spinner),
            items: 0,
            pages: 0,
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
            Event::ListDone { .. } => self.finish(),
            _ => {}
        }
    }

    /// `listing… 1500 objects, 3 pages`.
    pub fn message(&self) -> String {
        let noun = if self.pages == 1 { "page" } else { "pages" };
        format!("listing… {} objects, {} {noun}", self.items, self.pages)
    }

    fn show(&self) {
        if let Some(bar) = &self.bar {
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
    }
}
