//! What a handler is told: client-go's addNotification, updateNotification and
//! deleteNotification, and their kind as the trace names it.

use super::object::ObjectRef;
use super::queue::DeltaObject;

/// The kind of a handler notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NotifyKind {
    Add,
    Update,
    Delete,
}

impl NotifyKind {
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
    Add {
        obj: ObjectRef,
        initial: bool,
    },
    Update {
        old: ObjectRef,
        new: ObjectRef,
        sync: bool,
    },
    Delete {
        obj: DeltaObject,
    },
}

impl Notification {
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

    pub fn key(&self) -> &str {
        match self {
            Notification::Delete { obj } => obj.key(),
            other => other.object().key(),
        }
    }

    pub fn is_sync(&self) -> bool {
        matches!(self, Notification::Update { sync: true, .. })
    }

    pub fn is_initial(&self) -> bool {
        matches!(self, Notification::Add { initial: true, .. })
    }

    pub fn is_tombstone(&self) -> bool {
        matches!(self, Notification::Delete { obj } if obj.is_tombstone())
    }
}
