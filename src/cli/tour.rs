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
    /// The handlers, in the order they were added.
    handlers: Vec<String>,
    /// The relist being told: how many sync updates reached which handlers so far (told at
    /// the next resync tick or the end).
    relisting: Option<Relisting>,
}

/// What the relist's sync updates and missed deletes reached so far.
#[derive(Debug, Default)]
struct Relisting {
    /// Why the informer relisted (`410 Expired`).
    reason: String,
    /// Each handler reached and how many sync updates it got.
    reached: Vec<(String, usize)>,
    /// Each handler and how many deletes of tombstones (objects deleted while the watch was
    /// down, DeletedFinalStateUnknown) it got.
    missed_deletes: Vec<(String, usize)>,
}

/// Adds one to `handler`'s count in `counts`.
fn count(counts: &mut Vec<(String, usize)>, handler: &str) {
    match counts.iter_mut().find(|(h, _)| h == handler) {
        Some((_, n)) => *n += 1,
        None => counts.push((handler.to_owned(), 1)),
    }
}

impl Narrator {
    /// The line to print for `event`, when it starts a phase not told yet.
    pub fn observe(&mut self, event: &Event) -> Option<String> {
        if let Event::HandlerAdded { handler, .. } = event {
            self.handlers.push(handler.to_string());
        }
        if let Some(told) = self.relist_reached(event) {
            return told;
        }
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
            Event::Relist { reason } if !self.relist => {
                self.relist = true;
                self.relisting = Some(Relisting {
                    reason: reason.clone(),
                    ..Relisting::default()
                });
                Some(format!(
                    "── 410 Gone: the server no longer has the watch's resourceVersion, so the \
                     Reflector relists ({reason}); each pod it brings back unchanged is a \
                     Replaced delta, an update with equal resourceVersions for the handlers in \
                     the syncing set; a pod deleted while the watch was down is a missed delete, \
                     a delete of a tombstone (DeletedFinalStateUnknown) to the handlers"
                ))
            }
            _ => None,
        }
    }

    /// While the relist is told: counts its sync updates (Some(None)); at the next resync
    /// tick or the end says which handlers they reached (Some(Some(line))). The relist's
    /// other notifications (changed objects, deletes) come between them, so only the next
    /// tick, which may send sync updates of its own, ends them for sure.
    fn relist_reached(&mut self, event: &Event) -> Option<Option<String>> {
        let relisting = self.relisting.as_mut()?;
        let ends = match event {
            Event::Notify {
                handler,
                notification,
                ..
            } if notification.is_sync() => {
                count(&mut relisting.reached, handler);
                return Some(None);
            }
            Event::Notify {
                handler,
                notification,
                ..
            } if notification.is_tombstone() => {
                count(&mut relisting.missed_deletes, handler);
                return Some(None);
            }
            Event::ResyncTick { .. } | Event::Stopped { .. } => true,
            _ => false,
        };
        let relisting = self.relisting.take_if(|_| ends)?;
        Some(Some(self.relist_text(&relisting)))
    }

    /// Which handlers the relist's sync updates reached, which they did not, and the deletes
    /// it found missed. Told at the next resync tick, whose own sync updates may be the rows
    /// just above: the line names the relist it is about.
    fn relist_text(&self, relisting: &Relisting) -> String {
        let about = format!("── back to the relist after {}:", relisting.reason);
        let missed_deletes = missed_deletes_text(&relisting.missed_deletes);
        if relisting.reached.is_empty() {
            return format!(
                "{about} its sync updates: none — no handler was in the syncing set (due at the \
                 resync tick before it){missed_deletes}"
            );
        }
        let missed: Vec<&str> = self
            .handlers
            .iter()
            .filter(|h| !relisting.reached.iter().any(|(r, _)| r == *h))
            .map(String::as_str)
            .collect();
        let missed = match missed.as_slice() {
            [] => String::new(),
            names => format!("; {} got none of them", names.join(", ")),
        };
        let reached: Vec<String> = relisting
            .reached
            .iter()
            .map(|(h, n)| format!("{h} ({n})"))
            .collect();
        format!(
            "{about} its sync updates reached {}: updates with equal resourceVersions for the \
             pods it brought back unchanged, to the syncing set (the handlers due at the resync \
             tick before it){missed}{missed_deletes}",
            reached.join(", ")
        )
    }
}

/// `; the deletes it found missed reached fast (5), slow (5) as tombstones (…)`, or nothing.
fn missed_deletes_text(missed: &[(String, usize)]) -> String {
    if missed.is_empty() {
        return String::new();
    }
    let reached: Vec<String> = missed.iter().map(|(h, n)| format!("{h} ({n})")).collect();
    format!(
        "; the pods deleted while the watch was down reached {} as missed deletes (tombstones, \
         DeletedFinalStateUnknown)",
        reached.join(", ")
    )
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

    fn added(handler: &str) -> Event {
        Event::HandlerAdded {
            handler: handler.into(),
            requested_resync: Duration::ZERO,
            effective_resync: Duration::ZERO,
            check_period: Duration::ZERO,
            after_start: false,
            adjustment: None,
        }
    }

    /// What the narrator tells of `events`, from the relist on.
    fn told_after_relist(events: &[Event]) -> Vec<String> {
        let mut narrator = Narrator::default();
        let told: Vec<String> = events.iter().filter_map(|e| narrator.observe(e)).collect();
        let from = told.iter().position(|l| l.starts_with("── 410 Gone"));
        told[from.expect("the relist is told")..].to_vec()
    }

    #[test]
    fn the_relist_is_told_with_the_handlers_its_sync_updates_reached() {
        let relist = Event::Relist {
            reason: "410 Expired".into(),
        };
        let churn = notify_add(9, "slow", "churn-2", false).event;
        let tick = Event::ResyncTick {
            due: Vec::new(),
            check_period: Duration::from_secs(10),
        };
        let events = [
            added("fast"),
            added("slow"),
            relist,
            notify_sync_update(7, "fast", "web-1").event,
            churn,
            notify_sync_update(8, "fast", "web-2").event,
            tick,
        ];
        let told = told_after_relist(&events);
        assert_eq!(told.len(), 2, "{told:?}");
        assert!(!told[0].contains("every handler"), "{}", told[0]);
        assert_eq!(
            told[1],
            "── back to the relist after 410 Expired: its sync updates reached fast (2): \
             updates with equal resourceVersions for the pods it brought back unchanged, to the \
             syncing set (the handlers due at the resync tick before it); slow got none of them"
        );
    }

    #[test]
    fn the_deletes_a_relist_found_are_told_as_missed_deletes() {
        let relist = Event::Relist {
            reason: "410 Expired".into(),
        };
        let gone = |handler| {
            crate::output::fixtures::notify(handler, crate::output::fixtures::tombstone_delete(), 1)
        };
        let events = [
            added("fast"),
            added("slow"),
            relist,
            gone("fast"),
            gone("slow"),
            gone("fast"),
            Event::Stopped {
                reason: "end".into(),
            },
        ];
        let told = told_after_relist(&events);
        assert_eq!(told.len(), 2, "{told:?}");
        assert!(told[0].contains("missed delete"), "{}", told[0]);
        assert!(
            told[1].starts_with("── back to the relist after 410 Expired:")
                && told[1].ends_with(
                    "the pods deleted while the watch was down reached fast (2), slow (1) as \
                     missed deletes (tombstones, DeletedFinalStateUnknown)"
                ),
            "{}",
            told[1]
        );
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
