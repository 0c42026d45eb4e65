//! What every renderer is told: the output format, the rendering options (colour, width,
//! `--show-old`, `--diff`, secret redaction), which events are hidden, the extra lines a command
//! inserts, and the members a notification carries as those options ask.

use std::borrow::Cow;

use crate::informer::trace::{Event, Notification, NotifyKind, StageSet, Summary};
use crate::redact::REDACTED;

use super::object_columns::{ColumnsByResource, ObjectColumns};
use super::{diff, redact};

/// `-o/--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Table,
    Wide,
    Jsonl,
    Json,
    Yaml,
}

impl OutputFormat {
    /// Every format, in `--help` order.
    pub const ALL: [OutputFormat; 5] = [
        OutputFormat::Table,
        OutputFormat::Wide,
        OutputFormat::Jsonl,
        OutputFormat::Json,
        OutputFormat::Yaml,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Table => "table",
            OutputFormat::Wide => "wide",
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Json => "json",
            OutputFormat::Yaml => "yaml",
        }
    }

    /// Table or wide: output meant for people, aligned columns.
    pub fn is_table(self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Wide)
    }
}

/// How events and objects are rendered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    pub format: OutputFormat,
    /// `--no-headers`: no table header line.
    pub no_headers: bool,
    /// ANSI colours (only on a TTY without NO_COLOR; see [`super::table::color_enabled`]).
    pub color: bool,
    /// The terminal width when stdout is a TTY; table DETAIL is truncated to fit.
    pub width: Option<usize>,
    /// Include the `old` object in update notifications (JSONL/JSON/YAML).
    pub show_old: bool,
    /// `--diff`: field-level diffs of updates.
    pub diff: bool,
    /// The resource is core/v1 `secrets`: redact `data`/`stringData`...
    pub redact_secrets: bool,
    /// ...unless `--show-secret-data` was given.
    pub show_secret_data: bool,
    /// Several resources in one stream: tables get a RESOURCE column, and `redact_secrets`
    /// is decided per event (true for the events of `secrets_resource`).
    pub several_resources: bool,
    /// With `several_resources`: the events come from `proxy`, and name its informer streams
    /// (`CLIENT/RESOURCE@NAMESPACE`): the table's column is STREAM.
    pub streams: bool,
    /// With `several_resources`: the trace label of core/v1 secrets, when it is one of them.
    pub secrets_resource: Option<String>,
    /// The `NAME=value` pairs of each resource's notification rows (tables), by trace label.
    pub object_columns: ColumnsByResource,
    /// The table's story view: a burst of notifications of one kind to one handler is one
    /// row (`--show` left at its default).
    pub story: bool,
    /// The `--index` names whose values are a Secret's data (`field:data…`,
    /// `field:stringData…`, the last-applied annotation): shown `REDACTED` when redacting.
    pub secret_indices: Vec<String>,
}

impl RenderOptions {
    /// The object columns of `resource`'s notification rows, if it has some.
    pub(crate) fn columns_of(&self, resource: Option<&str>) -> Option<&ObjectColumns> {
        self.object_columns.get(resource?).map(|c| &**c)
    }

    /// Options for `format` with everything else off.
    pub fn new(format: OutputFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// Whether secret values must be hidden.
    pub fn redacts(&self) -> bool {
        self.redact_secrets && !self.show_secret_data
    }

    /// The `--diff` of an update as it may be shown: a Secret is diffed in full, then its
    /// changes are redacted, so the diff still says which keys changed.
    pub fn changes(&self, old: &[u8], new: &[u8]) -> Vec<diff::Change> {
        let changes = diff::diff_raw(old, new);
        if self.redacts() {
            changes.into_iter().map(redact::redact_change).collect()
        } else {
            changes
        }
    }

    /// Index `name`'s values as they may be shown: one `REDACTED` for a Secret data index.
    pub fn index_values<'a>(&self, name: &str, values: &'a [String]) -> Cow<'a, [String]> {
        if !values.is_empty() && self.hides_index(name) {
            Cow::Owned(vec![REDACTED.to_owned()])
        } else {
            Cow::Borrowed(values)
        }
    }

    /// The summary as it may be shown: a Secret data index's values are one `REDACTED` value
    /// holding every object.
    pub fn shown_summary<'a>(&self, summary: &'a Summary) -> Cow<'a, Summary> {
        if !summary
            .indices
            .iter()
            .any(|(name, _)| self.hides_index(name))
        {
            return Cow::Borrowed(summary);
        }
        let mut shown = summary.clone();
        for (name, counts) in &mut shown.indices {
            if self.hides_index(name) && !counts.is_empty() {
                let objects = counts.iter().map(|(_, n)| n).sum();
                *counts = vec![(REDACTED.to_owned(), objects)];
            }
        }
        Cow::Owned(shown)
    }

    /// Whether index `name` (`resource/name` in a summary of several resources) holds a
    /// Secret's data that must be hidden.
    fn hides_index(&self, name: &str) -> bool {
        let secret = |index: &str| self.secret_indices.iter().any(|s| s == index);
        let of_secrets = self
            .secrets_resource
            .as_deref()
            .and_then(|r| name.strip_prefix(r)?.strip_prefix('/'));
        !self.show_secret_data
            && ((self.redact_secrets && secret(name)) || of_secrets.is_some_and(secret))
    }

    /// An object's bytes as they may be shown (redacted when needed).
    pub fn object_bytes<'a>(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        if self.redacts() {
            crate::redact::redact_secret(raw)
        } else {
            Cow::Borrowed(raw)
        }
    }
}

/// Events of the delivered stages that `--show` leaves out of the output (the default view is
/// one line per change per handler plus the reflector's lifecycle).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Reflector `watch-event` lines.
    pub watch_events: bool,
    /// Reflector `bookmark` lines.
    pub bookmarks: bool,
    /// Handler `notify` lines.
    pub notify: bool,
    /// Handler `handled` lines.
    pub handled: bool,
    /// The stages printed, when the tracer delivers more than `--show` asks (a `--report` run
    /// delivers every stage to its page); None: every delivered stage.
    pub only: Option<StageSet>,
    /// `--kinds`: the notifications (and handled lines) shown, by kind; None: all.
    pub kinds: Option<NotifyKinds>,
}

/// `--kinds add,update,delete,sync`: notifications by kind, a sync update (equal
/// resourceVersions: a resync or a relist) apart from other updates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotifyKinds {
    add: bool,
    update: bool,
    delete: bool,
    sync: bool,
}

impl NotifyKinds {
    /// Parses `add,update,delete,sync` (any of them, comma-separated).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut kinds = Self::default();
        for name in text.split(',').map(str::trim) {
            let kind = match name {
                "add" => &mut kinds.add,
                "update" => &mut kinds.update,
                "delete" => &mut kinds.delete,
                "sync" => &mut kinds.sync,
                _ => {
                    return Err(format!(
                        "unknown kind {name:?} in --kinds: expected add, update, delete or sync"
                    ));
                }
            };
            *kind = true;
        }
        Ok(kinds)
    }

    /// Whether a notification of `kind` (`sync`: a sync update) is shown.
    pub fn shows(self, kind: NotifyKind, sync: bool) -> bool {
        match kind {
            NotifyKind::Add => self.add,
            NotifyKind::Update if sync => self.sync,
            NotifyKind::Update => self.update,
            NotifyKind::Delete => self.delete,
        }
    }
}

impl Hidden {
    pub fn hides(&self, event: &Event) -> bool {
        if self.only.is_some_and(|only| !only.contains(event.stage())) {
            return true;
        }
        let shows_kind = |kind, sync| self.kinds.is_none_or(|k| k.shows(kind, sync));
        match event {
            Event::WatchEvent { .. } => self.watch_events,
            Event::Bookmark { .. } => self.bookmarks,
            Event::Notify { notification, .. } => {
                self.notify || !shows_kind(notification.kind(), notification.is_sync())
            }
            Event::Handled { kind, sync, .. } => self.handled || !shows_kind(*kind, *sync),
            _ => false,
        }
    }
}

/// A line a command adds to the JSONL/JSON/YAML stream besides the pipeline's trace events
/// (`resync`'s `schedule` and `timeline`): it gets the next `seq`, and the events after it are
/// numbered on from there, so `seq` stays strictly increasing.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraLine {
    pub stage: &'static str,
    pub event: &'static str,
    /// The other members, in order.
    pub fields: Vec<(&'static str, serde_json::Value)>,
}

/// What a notification adds after its fields, as the options ask: the `object`, and for an
/// update the `old` object (`--show-old`) and the `diff` (`--diff`).
pub(crate) enum NotificationMember<'a> {
    Object(&'static str, Cow<'a, [u8]>),
    Diff(Vec<diff::Change>),
}

impl<'a> NotificationMember<'a> {
    pub(crate) fn of(
        notification: &'a Notification,
        opts: &RenderOptions,
    ) -> impl Iterator<Item = NotificationMember<'a>> {
        let object =
            NotificationMember::Object("object", opts.object_bytes(notification.object().raw()));
        let (old, diff) = match notification {
            Notification::Update { old, new, .. } => (
                opts.show_old
                    .then(|| NotificationMember::Object("old", opts.object_bytes(old.raw()))),
                opts.diff
                    .then(|| NotificationMember::Diff(opts.changes(old.raw(), new.raw()))),
            ),
            _ => (None, None),
        };
        std::iter::once(object).chain(old).chain(diff)
    }
}
