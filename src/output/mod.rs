//! Renderers: trace events as live tables or JSONL (or pretty JSON/YAML documents), the exit
//! summary, `dump`'s cache contents, the resync debugger's views and the LIST progress bar.
//!
//! Everything here depends only on [`crate::informer::trace`] and the types it carries; the
//! caller decides where output goes (any [`io::Write`]) and whether colour is on.

pub mod diff;
pub mod dump;
pub mod jsonl;
pub mod ordered;
pub mod progress;
pub mod redact;
pub mod resync;
pub mod status;
pub mod summary;
pub mod table;

use std::borrow::Cow;

pub(crate) use crate::json_scan::single_line;
use std::io::{self, Write};

use crate::informer::trace::{Event, TraceEvent};

use ordered::OrderedValue;

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
    /// ANSI colours (only on a TTY without NO_COLOR; see [`table::color_enabled`]).
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
    /// With `several_resources`: the trace label of core/v1 secrets, when it is one of them.
    pub secrets_resource: Option<String>,
}

impl RenderOptions {
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

    /// An object's bytes as they may be shown (redacted when needed).
    pub fn object_bytes<'a>(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        if self.redacts() {
            redact::redact_secret(raw)
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
}

impl Hidden {
    pub fn hides(&self, event: &Event) -> bool {
        match event {
            Event::WatchEvent { .. } => self.watch_events,
            Event::Bookmark { .. } => self.bookmarks,
            Event::Notify { .. } => self.notify,
            Event::Handled { .. } => self.handled,
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

/// Lines to write just before the exit summary.
pub type BeforeSummary = Box<dyn FnMut() -> Vec<ExtraLine>>;

/// Renders trace events one by one to a writer, in the chosen format. The caller flushes
/// whenever it has no further event at hand, so a live view (or `| jq`) sees every line at
/// once while a burst costs one write per buffer, not per line. Write errors are returned as
/// they are: the caller maps `BrokenPipe` to a quiet exit 0.
pub struct EventRenderer<W: Write> {
    out: W,
    opts: RenderOptions,
    buf: Vec<u8>,
    table: table::TableRenderer,
    /// How many extra lines were inserted: each later event's `seq` is moved up by as many.
    seq_shift: u64,
    /// The last `seq` written.
    last_seq: u64,
    before_summary: Option<BeforeSummary>,
    hidden: Hidden,
    /// Handler backlogs for the table's periodic status rows.
    backlog: status::Backlog,
}

impl<W: Write> EventRenderer<W> {
    pub fn new(out: W, opts: RenderOptions) -> Self {
        Self {
            out,
            table: table::TableRenderer::new(&opts),
            opts,
            buf: Vec::with_capacity(4096),
            seq_shift: 0,
            last_seq: 0,
            before_summary: None,
            hidden: Hidden::default(),
            backlog: status::Backlog::default(),
        }
    }

    /// Leaves `hidden` events out of the output.
    pub fn with_hidden(mut self, hidden: Hidden) -> Self {
        self.hidden = hidden;
        self
    }

    /// Whether `event` is printed (not left out by `--show`).
    pub fn shows(&self, event: &Event) -> bool {
        !self.hidden.hides(event)
    }

    /// Lines to insert before the summary in the machine formats (tables ignore them).
    pub fn with_before_summary(mut self, lines: BeforeSummary) -> Self {
        self.before_summary = Some(lines);
        self
    }

    /// Writes `line` with the next `seq` (machine formats only; tables ignore it).
    pub fn insert(&mut self, line: &ExtraLine) -> io::Result<()> {
        if self.opts.format.is_table() {
            return Ok(());
        }
        self.last_seq += 1;
        self.seq_shift += 1;
        self.buf.clear();
        jsonl::write_extra(&mut self.buf, self.last_seq, jiff::Timestamp::now(), line);
        if self.opts.format != OutputFormat::Jsonl {
            let value = OrderedValue::from_slice(&self.buf).map_err(io::Error::other)?;
            self.buf.clear();
            write_document(&mut self.buf, &value, self.opts.format)?;
        }
        self.out.write_all(&self.buf)
    }

    pub fn options(&self) -> &RenderOptions {
        &self.opts
    }

    /// Writes one event (without flushing). In table modes a summary event is rendered as the
    /// summary tables; callers that want the summary elsewhere (stderr) handle
    /// [`Event::Summary`] themselves with [`summary::render`].
    pub fn render(&mut self, event: &TraceEvent) -> io::Result<()> {
        if self.opts.format.is_table() && !self.hidden.notify {
            self.write_status_rows(event)?;
        }
        if !self.shows(&event.event) {
            return Ok(());
        }
        if self.opts.several_resources {
            self.opts.redact_secrets = event.resource.is_some()
                && event.resource.as_deref() == self.opts.secrets_resource.as_deref();
        }
        if matches!(event.event, Event::Summary(_))
            && let Some(mut before) = self.before_summary.take()
        {
            for line in before() {
                self.insert(&line)?;
            }
        }
        if self.seq_shift == 0 {
            self.last_seq = event.seq;
            return self.write_event(event);
        }
        let mut shifted = event.clone();
        shifted.seq += self.seq_shift;
        self.last_seq = shifted.seq;
        self.write_event(&shifted)
    }

    fn write_event(&mut self, event: &TraceEvent) -> io::Result<()> {
        self.buf.clear();
        match self.opts.format {
            OutputFormat::Table | OutputFormat::Wide => match &event.event {
                Event::Summary(s) => summary::write_tables(&mut self.buf, s)?,
                _ => self.table.write_event(&mut self.buf, event, &self.opts),
            },
            OutputFormat::Jsonl => jsonl::write_event(&mut self.buf, event, &self.opts),
            OutputFormat::Json | OutputFormat::Yaml => self.write_document(event)?,
        }
        self.out.write_all(&self.buf)
    }

    /// Every [`status::INTERVAL`], a `status` row per handler with a backlog (tables only).
    fn write_status_rows(&mut self, event: &TraceEvent) -> io::Result<()> {
        let rows = self.backlog.observe(event);
        if rows.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        for row in &rows {
            self.table
                .write_status(&mut self.buf, event.ts, row, &self.opts);
        }
        self.out.write_all(&self.buf)
    }

    /// `-o json`: each event as a pretty JSON object; `-o yaml`: each as a YAML document.
    fn write_document(&mut self, event: &TraceEvent) -> io::Result<()> {
        let mut line = Vec::new();
        jsonl::write_event(&mut line, event, &self.opts);
        let value = OrderedValue::from_slice(&line).map_err(io::Error::other)?;
        write_document(&mut self.buf, &value, self.opts.format)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes one value as pretty JSON (newline-terminated) or as a `---`-led YAML document.
pub(crate) fn write_document(
    out: &mut Vec<u8>,
    value: &OrderedValue,
    format: OutputFormat,
) -> io::Result<()> {
    if format == OutputFormat::Yaml {
        let yaml = serde_saphyr::to_string(value).map_err(io::Error::other)?;
        out.extend_from_slice(b"---\n");
        out.extend_from_slice(yaml.as_bytes());
        if !yaml.ends_with('\n') {
            out.push(b'\n');
        }
    } else {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
        out.push(b'\n');
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests;
