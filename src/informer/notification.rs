//! What a handler is told: client-go's addNotification, updateNotification and
//! deleteNotification, and their kind as the trace names it.

use super::object::ObjectRef;
use super::queue::DeltaObject;

/// The kind of a handler notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NotifyKind {
    /// OnAdd.
    Add,
    /// OnUpdate.
    Update,
    /// OnDelete.
    Delete,
}

impl NotifyKind {
    /// `add`, `update` or `delete`, as the trace writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            NotifyKind::Add => "add",
            NotifyKind::Update => "update",
            NotifyKind::Delete => "delete",
        }
    }
}

/// What a handler is told (client-go's addNotification / updateNotification /
/// deleteNotification).
#[derive(Debug, Clone)]
pub enum Notification {
    /// OnAdd(obj, isInInitialList).
    Add {
        /// The added object.
        obj: ObjectRef,
        /// Part of the informer's initial list (client-go's isInInitialList).
        initial: bool,
    },
    /// OnUpdate(old, new); a resync's update has equal objects.
    Update {
        /// The state the handler saw before.
        old: ObjectRef,
        /// The new state.
        new: ObjectRef,
        /// Sent by a resync (old and new are the same object).
        sync: bool,
    },
    /// OnDelete(obj): the last known state, or a tombstone.
    Delete {
        /// The deleted object or its DeletedFinalStateUnknown tombstone.
        obj: DeltaObject,
    },
}

impl Notification {
    /// Add, update or delete.
    pub fn kind(&self) -> NotifyKind {
        match self {
            Notification::Add { .. } => NotifyKind::Add,
            Notification::Update { .. } => NotifyKind::Update,
            Notification::Delete { .. } => NotifyKind::Delete,
        }
    }

    /// The object the notification is about (the new state for updates, the last known
    /// state for deletes).
    pub fn object(&self) -> &ObjectRef {
        match self {
            Notification::Add { obj, .. } => obj,
            Notification::Update { new, .. } => new,
            Notification::Delete { obj } => obj.object(),
        }
    }

    /// The object's key (`namespace/name` or `name`).
    pub fn key(&self) -> &str {
        match self {
            Notification::Delete { obj } => obj.key(),
            other => other.object().key(),
        }
    }

    /// Whether a resync sent it.
    pub fn is_sync(&self) -> bool {
        matches!(self, Notification::Update { sync: true, .. })
    }

    /// Whether it is an add of the initial list.
    pub fn is_initial(&self) -> bool {
        matches!(self, Notification::Add { initial: true, .. })
    }

    /// Whether it is a delete carrying a tombstone (the delete itself was missed).
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Notification::Delete { obj } if obj.is_tombstone())
    }
}
