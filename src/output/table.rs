//! Live table mode, like `kubectl get -w`: a header once, then one aligned row per event.
//!
//! In a pipe, and on a terminal of at least [`FULL_WIDTH`] columns: `SEQ TIME STAGE EVENT KEY
//! RV DETAIL`, fixed widths so rows stay aligned however events arrive; a longer value pushes
//! the rest of its row instead of being cut (nothing is ever cut in a pipe). On a narrower
//! terminal the compact layout fits the width: no SEQ, the time without milliseconds, narrower
//! STAGE and EVENT, then the key and DETAIL, whose words wrap onto indented continuation lines
//! rather than past the edge. `wide` adds `HANDLER PENDING UID` before DETAIL and is never
//! fitted. Colours (by stage and event kind) only when the options say so.

use std::fmt::Write as _;
use std::time::Duration;

use crate::informer::trace::{DeltaType, FieldVisitor, Notification, Summary};
use crate::informer::trace::{Event, NotifyKind, Stage, TraceEvent, WatchEventType};
use crate::informer::trace::{duration_as_written, duration_name};

use super::bursts::Burst;
use super::diff::Change;
use super::object_columns::ObjectColumns;
use super::options::{OutputFormat, RenderOptions};
use super::status::StatusRow;
use crate::duration::format_duration;

/// Whether to colour output: only on a TTY that is not `TERM=dumb`, and never when `NO_COLOR`
/// is set to anything non-empty (<https://no-color.org>).
pub fn color_enabled(is_tty: bool, no_color_env: Option<&str>) -> bool {
    let term = std::env::var("TERM").ok();
    color_allowed(is_tty, no_color_env, term.as_deref())
}

/// [`color_enabled`] with `TERM` given.
fn color_allowed(is_tty: bool, no_color_env: Option<&str>, term: Option<&str>) -> bool {
    is_tty && no_color_env.is_none_or(str::is_empty) && term != Some("dumb")
}

/// One column: its header and fixed width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Column {
    name: &'static str,
    width: usize,
}

const fn col(name: &'static str, width: usize) -> Column {
    Column { name, width }
}

/// Columns before DETAIL in `table` mode.
const NARROW: [Column; 6] = [
    col("SEQ", 6),
    col("TIME", 12),
    col("STAGE", 9),
    col("EVENT", 21),
    col("KEY", 32),
    col("RV", 9),
];

/// Columns before DETAIL in `wide` mode.
const WIDE: [Column; 9] = [
    col("SEQ", 6),
    col("TIME", 12),
    col("STAGE", 9),
    col("EVENT", 21),
    col("KEY", 64),
    col("RV", 12),
    col("HANDLER", 16),
    col("PENDING", 7),
    col("UID", 36),
];

/// Columns before DETAIL in the compact layout (narrow terminals), one space apart, in the
/// order of the full layout.
const COMPACT: [Column; 5] = [
    col("TIME", 8),
    col("STAGE", 9),
    col("EVENT", 13),
    col("KEY", 28),
    col("RV", 6),
];

/// The RESOURCE column, after TIME, when one stream carries several resources.
const RESOURCE: Column = col("RESOURCE", 16);

/// `proxy`'s STREAM column, in place of RESOURCE: a longer name is cut (its client's name
/// first, `stream_name.rs`), and the first row of its stream names it whole (`stream=…` in
/// DETAIL).
const STREAM: Column = col("STREAM", 32);
const COMPACT_STREAM: Column = col("STREAM", 16);

/// The compact layout's KEY beside a RESOURCE or STREAM column (80 columns hold both).
const COMPACT_KEY_BESIDE_RESOURCE: usize = 16;

const GAP: &str = "  ";

/// A terminal narrower than this gets the compact layout.
pub const FULL_WIDTH: usize = 150;

/// Continuation lines start where DETAIL began when that leaves at least this much room, else
/// [`SHORT_INDENT`] columns in.
const MIN_WRAPPED: usize = 30;
const SHORT_INDENT: usize = 4;

/// ANSI colours for rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Color {
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
}

impl Color {
    fn code(self) -> &'static str {
        match self {
            Color::Red => "\x1b[31m",
            Color::Green => "\x1b[32m",
            Color::Yellow => "\x1b[33m",
            Color::Blue => "\x1b[34m",
            Color::Magenta => "\x1b[35m",
            Color::Cyan => "\x1b[36m",
        }
    }
}

const RESET: &str = "\x1b[0m";

/// The state of one live table: whether its header was written.
#[derive(Debug, Default)]
pub struct TableRenderer {
    header_done: bool,
    /// The stream names cut in the STREAM column whose full name was told.
    told_streams: std::collections::HashSet<String>,
}

impl TableRenderer {
    pub fn new(opts: &RenderOptions) -> Self {
        Self {
            header_done: opts.no_headers,
            told_streams: std::collections::HashSet::new(),
        }
    }

    /// Appends the row(s) for `event` (the header first, once).
    pub fn write_event(&mut self, out: &mut Vec<u8>, event: &TraceEvent, opts: &RenderOptions) {
        let layout = Layout::of(opts);
        self.write_header(out, layout);
        let color = opts.color.then(|| row_color(&event.event)).flatten();
        let mut fields = RowFields::of(event, layout.shape == Shape::Wide, opts);
        let changes = fields.changes.take();
        let resource = self.resource_cell(layout, event.resource.as_deref(), &mut fields.detail);
        for line in layout.lines(&RowText::of(event, fields, layout, resource.as_deref())) {
            push_colored(out, &line, color);
        }
        if let Some(changes) = changes {
            for change in &changes {
                let color = opts.color.then(|| change_color(change));
                for line in diff_lines(change, layout.width()) {
                    push_colored(out, &line, color);
                }
            }
        }
    }

    /// Appends a handler `status` row: `handler=slow pending=37 handled/s=4.0`.
    pub fn write_status(
        &mut self,
        out: &mut Vec<u8>,
        ts: jiff::Timestamp,
        status: &StatusRow,
        opts: &RenderOptions,
    ) {
        let layout = Layout::of(opts);
        self.write_header(out, layout);
        let mut d = Detail::default();
        d.text("handler", &status.handler);
        d.kv("pending", status.pending);
        d.kv("handled/s", format!("{:.1}", status.handled_per_second));
        let row = RowText {
            seq: String::new(),
            ts,
            resource: layout.resource.map(|_| ""),
            stage: "handler",
            event: "status",
            key: String::new(),
            rv: String::new(),
            extra: Vec::new(),
            detail: d.0,
        };
        let color = opts.color.then_some(Color::Magenta);
        for line in layout.lines(&row) {
            push_colored(out, &line, color);
        }
    }

    /// Appends a story view's burst row: `notify ×100 … handler=fast kind=add initial …`.
    pub fn write_burst(&mut self, out: &mut Vec<u8>, burst: &Burst, opts: &RenderOptions) {
        let layout = Layout::of(opts);
        self.write_header(out, layout);
        let mut d = Detail::default();
        if layout.shape != Shape::Wide {
            d.text("handler", &burst.handler);
        }
        d.text("kind", burst.kind.as_str());
        d.flag("initial", burst.initial);
        d.flag("sync", burst.sync);
        d.flag("tombstone", burst.tombstone);
        d.kv("count", burst.count);
        d.text("last", &burst.last_key);
        if layout.shape != Shape::Wide {
            d.kv("pending", burst.pending_text());
        }
        d.sep();
        d.0.push_str(&format!("({}; --show all lists each)", burst.sentence()));
        let resource = self.resource_cell(layout, burst.resource.as_deref(), &mut d);
        let extra = if layout.shape == Shape::Wide {
            vec![
                burst.handler.to_string(),
                burst.pending_text(),
                String::new(),
            ]
        } else {
            Vec::new()
        };
        let event = format!("notify ×{}", burst.count);
        let row = RowText {
            seq: burst.seq.to_string(),
            ts: burst.ts,
            resource: resource.as_deref(),
            stage: "handler",
            event: &event,
            key: burst.first_key.clone(),
            rv: String::new(),
            extra,
            detail: d.0,
        };
        let color = opts.color.then(|| kind_color(burst.kind));
        for line in layout.lines(&row) {
            push_colored(out, &line, color);
        }
    }

    /// Appends one row for one change notified to several handlers at once (the story view):
    /// `handlers=fast,slow kind=add pending=1,101`.
    pub fn write_change(&mut self, out: &mut Vec<u8>, events: &[TraceEvent], opts: &RenderOptions) {
        let Some((first, notification)) = events.first().and_then(|e| match &e.event {
            Event::Notify { notification, .. } => Some((e, notification)),
            _ => None,
        }) else {
            return;
        };
        let layout = Layout::of(opts);
        self.write_header(out, layout);
        let (mut handlers, mut pending) = (Vec::new(), Vec::new());
        for event in events {
            if let Event::Notify {
                handler,
                pending: p,
                ..
            } = &event.event
            {
                handlers.push(handler.to_string());
                pending.push(p.to_string());
            }
        }
        let mut d = Detail::default();
        d.text("handlers", &handlers.join(","));
        d.text("kind", notification.kind().as_str());
        d.flag("initial", notification.is_initial());
        d.flag("sync", notification.is_sync());
        d.kv("pending", pending.join(","));
        d.flag("tombstone", notification.is_tombstone());
        if let Some(columns) = opts.columns_of(first.resource.as_deref()) {
            object_columns(&mut d, columns, notification, opts);
        }
        let resource = self.resource_cell(layout, first.resource.as_deref(), &mut d);
        let extra = if layout.shape == Shape::Wide {
            vec![
                handlers.join(","),
                pending.join(","),
                notification.object().meta().uid().to_owned(),
            ]
        } else {
            Vec::new()
        };
        let row = RowText {
            seq: first.seq.to_string(),
            ts: first.ts,
            resource: resource.as_deref(),
            stage: "handler",
            event: "notify",
            key: notification.key().to_owned(),
            rv: notification.object().resource_version().to_owned(),
            extra,
            detail: d.0,
        };
        let color = opts.color.then(|| kind_color(notification.kind()));
        for line in layout.lines(&row) {
            push_colored(out, &line, color);
        }
    }

    /// The RESOURCE (or STREAM) cell of a row of `resource`, when the layout has the column:
    /// a stream name too long for STREAM fitted to it (its client's name cut first, never
    /// its resource: `stream_name.rs`), named whole in `detail` the first time.
    fn resource_cell(
        &mut self,
        layout: Layout,
        resource: Option<&str>,
        detail: &mut Detail,
    ) -> Option<String> {
        let column = layout.resource?;
        let name = resource.unwrap_or("");
        if column.name != STREAM.name || name.chars().count() <= column.width {
            return Some(name.to_owned());
        }
        if self.told_streams.insert(name.to_owned()) {
            detail.text("stream", name);
        }
        Some(super::stream_name::fit(name, column.width))
    }

    fn write_header(&mut self, out: &mut Vec<u8>, layout: Layout) {
        if !self.header_done {
            self.header_done = true;
            out.extend_from_slice(layout.header().as_bytes());
        }
    }
}

/// How rows are laid out: the full columns (a pipe, a wide terminal), `-o wide`, or the
/// compact layout fitted to a narrow terminal's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `Some(width)` on a terminal: DETAIL wraps there.
    Full(Option<usize>),
    Wide,
    Compact(usize),
}

/// A [`Shape`], with or without the RESOURCE column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    shape: Shape,
    /// RESOURCE (or `proxy`'s STREAM), when the stream carries several.
    resource: Option<Column>,
}

impl Layout {
    fn of(opts: &RenderOptions) -> Self {
        let shape = match (opts.format, opts.width) {
            (OutputFormat::Wide, _) => Shape::Wide,
            (_, Some(w)) if w < FULL_WIDTH => Shape::Compact(w),
            (_, width) => Shape::Full(width),
        };
        let column = match (opts.streams, shape) {
            (false, _) => RESOURCE,
            (true, Shape::Compact(_)) => COMPACT_STREAM,
            (true, _) => STREAM,
        };
        Self {
            shape,
            resource: opts.several_resources.then_some(column),
        }
    }

    /// Where RESOURCE goes among the cells: after TIME.
    fn resource_at(self) -> usize {
        if matches!(self.shape, Shape::Compact(_)) {
            1
        } else {
            2
        }
    }

    fn width(self) -> Option<usize> {
        match self.shape {
            Shape::Full(w) => w,
            Shape::Wide => None,
            Shape::Compact(w) => Some(w),
        }
    }

    /// The columns before DETAIL, RESOURCE left out.
    fn columns(self) -> Vec<Column> {
        match self.shape {
            Shape::Full(_) => NARROW.to_vec(),
            Shape::Wide => WIDE.to_vec(),
            Shape::Compact(_) => {
                let mut columns = COMPACT.to_vec();
                if self.resource.is_some() {
                    columns[3].width = COMPACT_KEY_BESIDE_RESOURCE;
                }
                columns
            }
        }
    }

    fn gap(self) -> &'static str {
        if matches!(self.shape, Shape::Compact(_)) {
            " "
        } else {
            GAP
        }
    }

    /// The header line, newline included.
    fn header(self) -> String {
        let mut line = String::new();
        for (i, c) in self.columns().iter().enumerate() {
            if let Some(resource) = self.resource.filter(|_| i == self.resource_at()) {
                push_cell(&mut line, resource.name, resource.width, self.gap());
            }
            push_cell(&mut line, c.name, c.width, self.gap());
        }
        line.push_str("DETAIL");
        line.push('\n');
        line
    }

    /// A row as one line, or (on a terminal) as many as its DETAIL needs to fit the width.
    /// In the compact layout a KEY or RV too long for the line flows with DETAIL instead.
    fn lines(self, row: &RowText<'_>) -> Vec<String> {
        let cells = row.cells(self);
        let line = self.cells_line(&cells);
        let detail = sanitize(&row.detail);
        match self.width() {
            Some(width)
                if line.chars().count() > width && matches!(self.shape, Shape::Compact(_)) =>
            {
                let before_key = cells.len() - 2;
                let line = self.cells_line(&cells[..before_key]);
                let words = [&cells[before_key..], &[detail]].concat().join(" ");
                wrap(line, &words, width)
            }
            Some(width) => wrap(line, &detail, width),
            None => {
                let mut line = line;
                line.push_str(&detail);
                line.truncate(line.trim_end().len());
                vec![line]
            }
        }
    }

    /// `cells` in their columns: each padded to where its column ends; a longer value pushes
    /// the next cell only as far as it must, so the cells after it fall back into line.
    fn cells_line(self, cells: &[String]) -> String {
        let mut line = String::with_capacity(160);
        let mut columns = self.columns();
        if let Some(resource) = self.resource {
            columns.insert(self.resource_at(), resource);
        }
        let mut end = 0;
        for (c, v) in columns.into_iter().zip(cells) {
            end += c.width;
            line.push_str(v);
            let used = line.chars().count();
            line.extend(std::iter::repeat_n(' ', end.saturating_sub(used)));
            line.push_str(self.gap());
            end += self.gap().len();
        }
        line
    }
}

/// The text of one row's cells.
struct RowText<'a> {
    seq: String,
    ts: jiff::Timestamp,
    /// The RESOURCE cell, when the layout has the column.
    resource: Option<&'a str>,
    stage: &'a str,
    event: &'a str,
    key: String,
    rv: String,
    /// `wide`'s HANDLER, PENDING and UID.
    extra: Vec<String>,
    detail: String,
}

impl<'a> RowText<'a> {
    fn of(
        event: &'a TraceEvent,
        fields: RowFields<'_>,
        layout: Layout,
        resource: Option<&'a str>,
    ) -> Self {
        let extra = if layout.shape == Shape::Wide {
            vec![fields.handler, fields.pending, fields.uid]
        } else {
            Vec::new()
        };
        RowText {
            seq: event.seq.to_string(),
            ts: event.ts,
            resource,
            stage: event.event.stage().as_str(),
            event: event.event.name(),
            key: fields.key,
            rv: fields.rv,
            extra,
            detail: fields.detail.0,
        }
    }

    /// The cells before DETAIL, sanitised.
    fn cells(&self, layout: Layout) -> Vec<String> {
        let mut cells = match layout.shape {
            Shape::Compact(_) => vec![time_of_day(self.ts, false)],
            _ => vec![self.seq.clone(), time_of_day(self.ts, true)],
        };
        cells.extend(self.resource.map(str::to_owned));
        cells.extend([
            self.stage.to_owned(),
            self.event.to_owned(),
            self.key.clone(),
        ]);
        cells.push(self.rv.clone());
        cells.extend(self.extra.iter().cloned());
        cells.iter().map(|c| sanitize(c)).collect()
    }
}

/// `first` followed by `words`, broken between words so that no line is longer than `width`;
/// continuation lines are indented to where the words began (or [`SHORT_INDENT`] when that
/// leaves less than [`MIN_WRAPPED`], or for a word too long for it). A word longer than a whole
/// line is split, never dropped.
pub(super) fn wrap(first: String, words: &str, width: usize) -> Vec<String> {
    let start = first.chars().count();
    let indent = if width.saturating_sub(start) >= MIN_WRAPPED {
        start
    } else {
        SHORT_INDENT.min(width.saturating_sub(1))
    };
    let mut lines = Vec::new();
    let mut line = first;
    // Whether `line` holds a word yet (a separating space goes before the next one).
    let mut has_word = false;
    for word in words.split(' ').filter(|w| !w.is_empty()) {
        let mut rest: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used + usize::from(has_word) + rest.len() > width && !line.trim().is_empty() {
            // A word too long for a continuation line gets a line of its own, indented less.
            let deep_enough = width.saturating_sub(indent) >= rest.len();
            let next = if deep_enough { indent } else { SHORT_INDENT };
            lines.push(std::mem::replace(&mut line, " ".repeat(next)));
            has_word = false;
        }
        if has_word {
            line.push(' ');
        }
        // A word that does not fit even on a line of its own is split across lines.
        while line.chars().count() + rest.len() > width && rest.len() > 1 {
            let room = width.saturating_sub(line.chars().count()).max(1);
            line.extend(rest.drain(..room.min(rest.len())));
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
        }
        line.extend(rest);
        has_word = true;
    }
    lines.push(line);
    for l in &mut lines {
        l.truncate(l.trim_end().len());
    }
    lines
}

fn push_colored(out: &mut Vec<u8>, line: &str, color: Option<Color>) {
    match color {
        Some(c) => {
            out.extend_from_slice(c.code().as_bytes());
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(RESET.as_bytes());
        }
        None => out.extend_from_slice(line.as_bytes()),
    }
    out.push(b'\n');
}

/// Pads `value` to `width`, then the gap; a longer value is kept whole and pushes the row.
fn push_cell(line: &mut String, value: &str, width: usize, gap: &str) {
    let pad = width.saturating_sub(value.chars().count());
    line.push_str(value);
    line.extend(std::iter::repeat_n(' ', pad));
    line.push_str(gap);
}

/// `s` cut to at most `width` characters, the last one `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// Control characters (a server's message may hold newlines) become spaces.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `HH:MM:SS.mmm` (or `HH:MM:SS`) in UTC.
fn time_of_day(ts: jiff::Timestamp, millis: bool) -> String {
    let t = jiff::tz::Offset::UTC.to_datetime(ts);
    let seconds = format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second());
    if millis {
        format!("{seconds}.{:03}", t.subsec_nanosecond() / 1_000_000)
    } else {
        seconds
    }
}

/// An event's cells and DETAIL words, collected from its fields
/// ([`Event::visit_fields`]): `key` and `rv` fill their columns; in wide mode `handler` and
/// `pending` fill theirs (and the object's uid the UID column); every other field is a DETAIL
/// word — `name=value`, a bare name for a true boolean, a duration formatted for people.
struct RowFields<'o> {
    key: String,
    rv: String,
    handler: String,
    pending: String,
    uid: String,
    detail: Detail,
    /// `--diff` changes of an update notification, printed under its row.
    changes: Option<Vec<Change>>,
    wide: bool,
    opts: &'o RenderOptions,
    /// The notification's object columns (`phase=Running node=node-a`).
    columns: Option<&'o ObjectColumns>,
}

impl<'o> RowFields<'o> {
    fn of(event: &TraceEvent, wide: bool, opts: &'o RenderOptions) -> Self {
        let columns = opts.columns_of(event.resource.as_deref());
        let event = &event.event;
        let mut fields = RowFields {
            key: String::new(),
            rv: String::new(),
            handler: String::new(),
            pending: String::new(),
            uid: String::new(),
            detail: Detail::default(),
            changes: None,
            wide,
            opts,
            columns,
        };
        if let Event::ListStart {
            resource_version, ..
        } = event
        {
            fields
                .detail
                .flag("consistent", resource_version.is_empty());
        }
        event.visit_fields(&mut fields);
        fields
    }
}

impl FieldVisitor for RowFields<'_> {
    /// `NAME=v1,v2` per index (`NAME=` for none), after the other details.
    fn indices(&mut self, indices: &[(String, Vec<String>)]) {
        for (name, values) in indices {
            self.detail
                .kv(name, self.opts.index_values(name, values).join(","));
        }
    }

    fn str(&mut self, key: &'static str, value: &str) {
        match key {
            "key" => value.clone_into(&mut self.key),
            "rv" => value.clone_into(&mut self.rv),
            "handler" if self.wide => value.clone_into(&mut self.handler),
            _ => self.detail.text(key, value),
        }
    }

    fn u64(&mut self, key: &'static str, value: u64) {
        match key {
            "pending" if self.wide => self.pending = value.to_string(),
            _ => self.detail.kv(key, value),
        }
    }

    fn bool(&mut self, key: &'static str, value: bool) {
        self.detail.flag(key, value);
    }

    fn strs(&mut self, key: &'static str, values: &[&str]) {
        if !values.is_empty() {
            self.detail.kv(key, values.join(","));
        }
    }

    fn duration(&mut self, key: &'static str, value: Duration) {
        self.detail.kv(
            duration_name(key),
            format_duration(duration_as_written(key, value)),
        );
    }

    fn notification(&mut self, notification: &Notification) {
        notification.object().meta().uid().clone_into(&mut self.uid);
        if let Some(columns) = self.columns {
            object_columns(&mut self.detail, columns, notification, self.opts);
        }
        if let Notification::Update { old, new, .. } = notification
            && self.opts.diff
        {
            self.changes = Some(self.opts.changes(old.raw(), new.raw()));
        }
    }

    fn summary(&mut self, summary: &Summary) {
        self.detail.kv("handlers", summary.handlers.len());
        self.duration("duration_ms", summary.duration);
    }
}

/// The object columns of `notification`'s object, after its details (Secret values
/// redacted unless `--show-secret-data`).
fn object_columns(
    detail: &mut Detail,
    columns: &ObjectColumns,
    notification: &Notification,
    opts: &RenderOptions,
) {
    let raw = notification.object().raw();
    let raw = if opts.redacts() {
        crate::redact::redact_secret(raw)
    } else {
        std::borrow::Cow::Borrowed(raw)
    };
    for (name, value) in columns.values(&raw) {
        detail.text(name, &value);
    }
}

/// Space-separated `key=value` / bare-flag words.
#[derive(Default)]
struct Detail(String);

impl Detail {
    fn sep(&mut self) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
    }

    fn kv(&mut self, key: &str, value: impl std::fmt::Display) {
        self.sep();
        let _ = write!(self.0, "{key}={value}");
    }

    /// Free text: quoted when it is empty or holds spaces or quotes.
    fn text(&mut self, key: &str, value: &str) {
        if value.is_empty() || value.contains([' ', '"', '=']) {
            let quoted = serde_json::to_string(value).unwrap_or_default();
            self.kv(key, quoted);
        } else {
            self.kv(key, value);
        }
    }

    fn flag(&mut self, name: &str, on: bool) {
        if on {
            self.sep();
            self.0.push_str(name);
        }
    }
}

fn diff_lines(change: &Change, width: Option<usize>) -> Vec<String> {
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or_else(|| "<none>".to_owned(), serde_json::Value::to_string)
    };
    let mark = match (&change.old, &change.new) {
        (None, _) => '+',
        (_, None) => '-',
        _ => '~',
    };
    let text = if change.redacted {
        let what = match mark {
            '+' => "added",
            '-' => "removed",
            _ => "changed",
        };
        format!("{}: (redacted) {what}", change.path)
    } else {
        format!(
            "{}: {} -> {}",
            change.path,
            show(&change.old),
            show(&change.new)
        )
    };
    let first = format!("        {mark} ");
    match width {
        Some(w) => wrap(first, &sanitize(&text), w),
        None => vec![format!("{first}{}", sanitize(&text))],
    }
}

fn change_color(change: &Change) -> Color {
    match (&change.old, &change.new) {
        (None, _) => Color::Green,
        (_, None) => Color::Red,
        _ => Color::Yellow,
    }
}

/// Errors and deletes red, adds green, updates yellow, resync blue, informer lifecycle cyan.
fn row_color(event: &Event) -> Option<Color> {
    use Event::*;
    match event {
        WatchError { .. } | ListError { .. } | Backoff { .. } | Retry { .. } => Some(Color::Red),
        Handled { panicked: true, .. } => Some(Color::Red),
        Relist { .. } => Some(Color::Magenta),
        WatchEvent { event_type, .. } => Some(match event_type {
            WatchEventType::Added => Color::Green,
            WatchEventType::Modified => Color::Yellow,
            WatchEventType::Deleted => Color::Red,
        }),
        Delta { delta_type, .. } => Some(match delta_type {
            DeltaType::Added => Color::Green,
            DeltaType::Updated | DeltaType::Replaced | DeltaType::ReplacedAll => Color::Yellow,
            DeltaType::Deleted => Color::Red,
            DeltaType::Sync | DeltaType::SyncAll => Color::Blue,
            DeltaType::Bookmark => Color::Cyan,
        }),
        IndexerAdd { .. } => Some(Color::Green),
        IndexerUpdate { .. } => Some(Color::Yellow),
        IndexerDelete { .. } => Some(Color::Red),
        Notify { notification, .. } if notification.is_sync() => Some(Color::Blue),
        Notify { notification, .. } => Some(kind_color(notification.kind())),
        Handled { sync: true, .. } => Some(Color::Blue),
        Handled { kind, .. } => Some(kind_color(*kind)),
        _ => stage_color(event.stage()),
    }
}

fn kind_color(kind: NotifyKind) -> Color {
    match kind {
        NotifyKind::Add => Color::Green,
        NotifyKind::Update => Color::Yellow,
        NotifyKind::Delete => Color::Red,
    }
}

fn stage_color(stage: Stage) -> Option<Color> {
    match stage {
        Stage::Resync => Some(Color::Blue),
        Stage::Informer | Stage::Summary => Some(Color::Cyan),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fixtures::{all_events, stamp};

    fn render(opts: &RenderOptions) -> String {
        let mut table = TableRenderer::new(opts);
        let mut out = Vec::new();
        for (i, e) in all_events().into_iter().enumerate() {
            if !matches!(e, Event::Summary(_)) {
                table.write_event(&mut out, &stamp(i as u64 + 1, e), opts);
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn header_once_and_columns_stay_aligned() {
        let text = render(&RenderOptions::new(OutputFormat::Table));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("SEQ     TIME          STAGE"));
        assert_eq!(lines.iter().filter(|l| l.starts_with("SEQ")).count(), 1);
        let detail_at = lines[0].find("DETAIL").unwrap();
        let rv_at = lines[0].find("RV").unwrap();
        for line in &lines[1..] {
            let chars: Vec<char> = line.chars().collect();
            assert!(
                chars.len() <= detail_at || chars[detail_at - 1] == ' ',
                "{line}"
            );
            assert_eq!(chars[rv_at - 1], ' ', "{line}");
        }
        assert!(text.contains("handler=slow kind=update pending=12"));
        assert!(text.contains("type=Replaced depth=3"));
        assert!(text.contains("code=410 reason=Expired"));
        assert!(text.contains("due=fast,default"));
    }

    #[test]
    fn no_headers_no_colour_and_lines_fit_the_terminal() {
        let mut opts = RenderOptions::new(OutputFormat::Table);
        opts.no_headers = true;
        opts.width = Some(150);
        let text = render(&opts);
        assert!(!text.contains("SEQ"));
        assert!(!text.contains('\x1b'));
        assert!(text.lines().all(|l| l.chars().count() <= 150), "{text}");
        opts.color = true;
        assert!(render(&opts).contains("\x1b[31m"));
    }

    /// Two pods whose keys share their first 40 characters.
    fn long_key_events() -> Vec<Event> {
        ["abcde", "fghij"]
            .iter()
            .map(|suffix| Event::IndexerAdd {
                key: format!("default/a-very-long-deployment-name-7d9f8c6b5-{suffix}"),
                resource_version: "4711".into(),
                indices: Vec::new(),
            })
            .collect()
    }

    fn render_events(events: Vec<Event>, opts: &RenderOptions) -> String {
        let mut table = TableRenderer::new(opts);
        let mut out = Vec::new();
        for (i, e) in events.into_iter().enumerate() {
            table.write_event(&mut out, &stamp(i as u64 + 1, e), opts);
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_pipe_never_cuts_a_key() {
        let text = render_events(long_key_events(), &RenderOptions::new(OutputFormat::Table));
        for suffix in ["abcde", "fghij"] {
            let key = format!("default/a-very-long-deployment-name-7d9f8c6b5-{suffix}  4711");
            assert!(text.contains(&key), "{text}");
        }
    }

    #[test]
    fn eighty_columns_fit_every_row_without_losing_data() {
        let mut opts = RenderOptions::new(OutputFormat::Table);
        opts.width = Some(80);
        opts.diff = true;
        let mut events = all_events();
        events.retain(|e| !matches!(e, Event::Summary(_)));
        events.extend(long_key_events());
        let text = render_events(events, &opts);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let header = text.lines().next().unwrap();
        assert!(
            header.starts_with("TIME     STAGE") && !header.contains("SEQ"),
            "{header}"
        );
        assert!(
            text.contains("\n10:00:01 reflector list-start"),
            "no SEQ, no ms: {text}"
        );
        let words = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        for key in [
            "default/a-very-long-deployment-name-7d9f8c6b5-abcde",
            "pending=12",
        ] {
            assert!(words(&text).iter().any(|w| w == key), "{key} lost: {text}");
        }
        // The adjustment text is longer than a line: wrapped, every word kept.
        let adjustment = "raised to the 1s minimum";
        let all = words(&text).join(" ");
        assert!(all.contains(adjustment), "{text}");
    }

    #[test]
    fn compact_header_names_every_column_in_the_full_order_and_rows_stay_in_line() {
        let mut opts = RenderOptions::new(OutputFormat::Table);
        opts.width = Some(80);
        let text = render(&opts);
        let header = text.lines().next().unwrap();
        let at = |name: &str| {
            let found = header.split_whitespace().position(|w| w == name);
            found.unwrap_or_else(|| panic!("{name} not a column: {header}"))
        };
        assert!(
            at("TIME") < at("STAGE") && at("STAGE") < at("EVENT"),
            "{header}"
        );
        assert!(at("EVENT") < at("KEY") && at("KEY") < at("RV"), "{header}");
        assert!(at("RV") < at("DETAIL"), "{header}");
        let column = |name: &str| header.find(&format!(" {name}")).unwrap() + 1;
        // A longer EVENT (`resync-period-changed`) may run into an empty KEY: the cells
        // after it are back in line.
        let starts = [column("EVENT"), column("RV"), column("DETAIL")];
        let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
        assert!(rows.iter().any(|l| l.contains("handler-added")), "{text}");
        for row in &rows[1..] {
            let chars: Vec<char> = row.chars().collect();
            for start in starts.into_iter().filter(|s| *s < chars.len()) {
                assert_eq!(chars[start - 1], ' ', "out of line at {start}: {row}");
            }
        }
    }

    #[test]
    fn proxy_stream_names_fit_their_column_and_each_is_named_whole_once() {
        let long = "OpenAPI-Generator-with-a-long-name/pods@default,l=app=web";
        let short = "kubectl/pods@default";
        for width in [None, Some(80)] {
            let mut opts = RenderOptions::new(OutputFormat::Table);
            (opts.width, opts.several_resources, opts.streams) = (width, true, true);
            let mut table = TableRenderer::new(&opts);
            let mut out = Vec::new();
            for (i, e) in all_events().into_iter().take(12).enumerate() {
                let mut event = stamp(i as u64 + 1, e);
                event.resource = Some(if i % 2 == 0 { long } else { short }.into());
                table.write_event(&mut out, &event, &opts);
            }
            let text = String::from_utf8(out).unwrap();
            let header = text.lines().next().unwrap();
            assert!(
                header.contains(" STREAM ") && !header.contains("RESOURCE"),
                "{header}"
            );
            let fits = width.is_none_or(|w| header.chars().count() <= w);
            assert!(fits, "{header}");
            let stage_at = header.find("STAGE").unwrap();
            for row in text.lines().skip(1).filter(|l| !l.starts_with(' ')) {
                assert!(row.chars().nth(stage_at - 1) == Some(' '), "{row}");
                assert!(!row.contains(&format!(" {long} ")), "{row}");
            }
            let whole = format!("stream=\"{long}\"");
            let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(words.matches(&whole).count(), 1, "{text}");
            assert!(text.contains(short) && text.contains("OpenAPI"), "{text}");
        }
    }

    #[test]
    fn wrap_breaks_between_words_and_splits_only_overlong_ones() {
        let lines = wrap("abc ".to_owned(), "one two three", 11);
        assert_eq!(lines, ["abc one two", "    three"]);
        let lines = wrap(String::new(), "xxxxxxxxxxxxxxxxxxxx", 8);
        assert!(lines.iter().all(|l| l.chars().count() <= 8), "{lines:?}");
        assert_eq!(lines.concat().replace(' ', ""), "xxxxxxxxxxxxxxxxxxxx");
    }

    #[test]
    fn wide_has_handler_pending_uid_columns() {
        let text = render(&RenderOptions::new(OutputFormat::Wide));
        let header = text.lines().next().unwrap();
        assert!(header.contains("HANDLER ") && header.contains("PENDING  UID"));
        assert!(text.contains("6f1c2a9e-0000-4000-8000-000000000001"));
    }

    #[test]
    fn diff_lines_follow_update_rows() {
        let mut opts = RenderOptions::new(OutputFormat::Table);
        opts.diff = true;
        let text = render(&opts);
        assert!(
            text.contains("~ metadata.labels.app: \"web\" -> \"api\""),
            "{text}"
        );
    }

    #[test]
    fn colour_only_on_tty_without_no_color_or_a_dumb_terminal() {
        let xterm = Some("xterm-256color");
        assert!(color_allowed(true, None, xterm));
        assert!(color_allowed(true, Some(""), xterm));
        assert!(!color_allowed(true, Some("1"), xterm));
        assert!(!color_allowed(false, None, xterm));
        assert!(!color_allowed(true, None, Some("dumb")));
    }

    #[test]
    fn truncate_and_control_chars() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(sanitize("a\nb"), "a b");
    }
}
