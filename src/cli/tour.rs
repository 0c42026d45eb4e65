//! The demo's narration: as the trace shows each phase of the tour — the initial sync, the
//! churn, the slow handler falling behind, a resync, the relist after a 410 — one line on
//! stderr says what is happening and why, in client-go's words, once per phase. The demo
//! (table output, no scenario) also forces the 410 at [`RELIST_AFTER`] so the relist is seen.

use std::time::Duration;

use crate::informer::trace::Event;

/// How long after the first sync the demo expires every resourceVersion (a 410, a relist).
pub const RELIST_AFTER: Duration = Duration::from_secs(20);

/// A handler this far behind beyond the initial list has visibly fallen behind: right after
/// the sync every handler may still hold the whole initial list, so only a backlog that grows
/// past it means the handler does not keep up with the churn.
const BEHIND: usize = 10;

/// The phases, each told once.
#[derive(Debug, Default)]
pub struct Narrator {
    synced: bool,
    /// How many objects the initial list held.
    listed: usize,
    churn: bool,
    behind: bool,
    resync: bool,
    relist: bool,
}

impl Narrator {
    /// The line to print for `event`, when it starts a phase not told yet.
    pub fn observe(&mut self, event: &Event) -> Option<String> {
        match event {
            Event::Synced { objects, .. } if !self.synced => {
                self.synced = true;
                self.listed = *objects;
                Some(format!(
                    "── initial sync: the Reflector listed {objects} pods into the Indexer; every \
                     handler got an add per pod (the ×{objects} rows: initial list)"
                ))
            }
            Event::Notify {
                handler,
                notification,
                pending,
            } => {
                let after_sync = self.synced && !notification.is_initial();
                if after_sync && *pending >= self.listed + BEHIND && !self.behind {
                    self.behind = true;
                    return Some(format!(
                        "── {handler} falls behind: {pending} notifications pending in its own \
                         buffer; the queue, the Indexer and the other handlers are not slowed"
                    ));
                }
                if notification.is_sync() && !self.resync {
                    self.resync = true;
                    return Some(format!(
                        "── resync: {handler}'s resync period is due, so it gets an update for \
                         every cached pod with an unchanged resourceVersion (the sync row)"
                    ));
                }
                if after_sync && !self.churn {
                    self.churn = true;
                    return Some(
                        "── churn: the server writes pods; each change is one row — the \
                         Reflector's watch event became a delta, an Indexer write and a \
                         notification to each handler"
                            .to_owned(),
                    );
                }
                None
            }
            Event::Relist { .. } if !self.relist => {
                self.relist = true;
                Some(
                    "── 410 Gone: the server no longer has the watch's resourceVersion, so the \
                     Reflector relists; the relist reaches every handler as updates (Replaced)"
                        .to_owned(),
                )
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::trace::Notification;
    use crate::output::fixtures::{notify, notify_add, notify_sync_update, pod};

    /// A tour's events: the initial adds, sync, churn, a backlog, a resync, a relist.
    fn tour_events() -> Vec<Event> {
        let churn = |pending| {
            let obj = pod("churn-1", "200", "churn");
            let add = Notification::Add {
                obj,
                initial: false,
            };
            notify("slow", add, pending)
        };
        vec![
            notify_add(1, "fast", "web-1", true).event,
            Event::Synced {
                objects: 1,
                store_rv: None,
            },
            churn(2),
            churn(3),
            churn(1 + BEHIND - 1),
            churn(1 + BEHIND),
            notify_sync_update(7, "fast", "web-1").event,
            Event::Relist {
                reason: "410".into(),
            },
            Event::Relist {
                reason: "410".into(),
            },
        ]
    }

    #[test]
    fn a_handler_still_holding_the_initial_list_is_not_behind() {
        let mut narrator = Narrator::default();
        let synced = Event::Synced {
            objects: 100,
            store_rv: None,
        };
        assert!(narrator.observe(&synced).is_some());
        let obj = pod("churn-1", "200", "churn");
        let churn = notify(
            "fast",
            Notification::Add {
                obj,
                initial: false,
            },
            101,
        );
        let told = narrator.observe(&churn).unwrap_or_default();
        assert!(told.starts_with("── churn"), "{told}");
    }

    #[test]
    fn each_phase_is_told_once_in_the_order_it_happens() {
        let mut narrator = Narrator::default();
        let told: Vec<String> = tour_events()
            .iter()
            .filter_map(|e| narrator.observe(e))
            .map(|line| line.split(':').next().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            told,
            [
                "── initial sync",
                "── churn",
                "── slow falls behind",
                "── resync",
                "── 410 Gone"
            ]
        );
    }
}
