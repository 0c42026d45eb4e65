//! What sent a burst of sync updates. client-go sends an update with equal resourceVersions
//! after a resync tick (to the handlers due) and after a relist (for every object it brought
//! back unchanged, to the listeners in the syncing set): a resync storm and a relist storm
//! look alike, and a controller author must tell them apart. The table's folded rows and the
//! report's markers name the cause from the relists and ticks seen before.

use std::collections::HashMap;

/// What sent sync updates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncCause {
    ResyncTick,
    /// A relist, and the reflector's reason for it (`410 Expired`).
    Relist(String),
}

impl SyncCause {
    /// `resync tick`, `relist after 410 Expired`.
    pub fn text(&self) -> String {
        match self {
            SyncCause::ResyncTick => "resync tick".into(),
            SyncCause::Relist(reason) => format!("relist after {reason}"),
        }
    }
}

/// The last relist of each resource and the last tick each of its handlers was due at.
#[derive(Debug, Default)]
pub struct SyncCauses {
    /// (resource, handler) → what last sent sync updates to that handler.
    due: HashMap<(String, String), SyncCause>,
    /// resource → the last relist's reason (every handler's cause until its next tick).
    relists: HashMap<String, String>,
}

impl SyncCauses {
    /// `resource` relisted for `reason`.
    pub fn relisted(&mut self, resource: &str, reason: &str) {
        self.due.retain(|(r, _), _| r != resource);
        self.relists.insert(resource.to_owned(), reason.to_owned());
    }

    /// A resync tick of `resource` found `due` handlers due.
    pub fn ticked<'a>(&mut self, resource: &str, due: impl IntoIterator<Item = &'a str>) {
        for handler in due {
            self.due.insert(
                (resource.to_owned(), handler.to_owned()),
                SyncCause::ResyncTick,
            );
        }
    }

    /// What last sent sync updates to `handler` of `resource` (None: nothing seen).
    pub fn of(&self, resource: &str, handler: &str) -> Option<SyncCause> {
        self.due
            .get(&(resource.to_owned(), handler.to_owned()))
            .cloned()
            .or_else(|| self.relists.get(resource).cloned().map(SyncCause::Relist))
    }
}
