//! [`EventRenderer`]: trace events rendered one by one to a writer, in the chosen format.

use std::io::{self, Write};

use crate::informer::trace::{Event, TraceEvent};

use super::bursts::{Bursts, Row};
use super::document::{self, write_document};
use super::narration::Narration;
use super::options::{ExtraLine, Hidden, OutputFormat, RenderOptions};
use super::{jsonl, status, summary, table};

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
    /// The story view's notifications held back (tables with [`RenderOptions::story`]).
    bursts: Bursts,
    /// Sees every event rendered, shown or hidden (`--report`'s capture).
    tap: Option<Tap>,
    /// The demo's narration, written after the rows it follows.
    narration: Option<Narration>,
}

/// A function that sees every event a renderer is given.
pub type Tap = Box<dyn FnMut(&TraceEvent)>;

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
            bursts: Bursts::default(),
            tap: None,
            narration: None,
        }
    }

    /// Tells `narration`'s lines (on its own writer) once the rows before them are flushed.
    pub fn with_narration(mut self, narration: Option<Narration>) -> Self {
        self.narration = narration;
        self
    }

    /// Hands every event to `tap` as well, hidden ones included.
    pub fn with_tap(mut self, tap: Option<Tap>) -> Self {
        self.tap = tap;
        self
    }

    /// Hands `event` to the tap only (an event written elsewhere, e.g. the summary tables).
    pub fn tap(&mut self, event: &TraceEvent) {
        if let Some(tap) = &mut self.tap {
            tap(event);
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
        let ts = jiff::Timestamp::now();
        if self.opts.format == OutputFormat::Jsonl {
            jsonl::write_extra(&mut self.buf, self.last_seq, ts, line, &self.opts);
        } else {
            let value = document::extra_document(self.last_seq, ts, line, &self.opts);
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
        self.tap(event);
        if let Some(narration) = &mut self.narration {
            narration.observe(&event.event);
        }
        self.bursts.observe(event);
        if self.opts.format.is_table() && !self.hidden.notify {
            self.write_status_rows(event)?;
        }
        if !self.shows(&event.event) {
            return Ok(());
        }
        if self.tells_a_story() {
            if self.bursts.hold(event) {
                return Ok(());
            }
            self.write_held()?;
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
                Event::Summary(s) => {
                    summary::write_tables(&mut self.buf, &self.opts.shown_summary(s))?;
                }
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
        self.write_held()?;
        self.buf.clear();
        for row in &rows {
            self.table
                .write_status(&mut self.buf, event.ts, row, &self.opts);
        }
        self.out.write_all(&self.buf)
    }

    /// `-o json`: each event as a pretty JSON object; `-o yaml`: each as a YAML document.
    fn write_document(&mut self, event: &TraceEvent) -> io::Result<()> {
        let value = document::event_document(event, &self.opts);
        write_document(&mut self.buf, &value, self.opts.format)
    }

    /// Writes what the story view held back, then flushes the writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.write_held()?;
        self.out.flush()?;
        self.write_told()
    }

    /// The narration told so far, now that the rows it follows are written.
    fn write_told(&mut self) -> io::Result<()> {
        match &mut self.narration {
            Some(narration) => narration.write_told(),
            None => Ok(()),
        }
    }

    /// [`Self::flush`] for a live stream that is idle now: the story view's held
    /// notifications stay held until they have been quiet for a moment (their burst may go on);
    /// [`Self::held_until`] says when to call again.
    pub fn flush_idle(&mut self) -> io::Result<()> {
        if self
            .bursts
            .quiet_at()
            .is_none_or(|at| at <= std::time::Instant::now())
        {
            self.write_held()?;
        }
        self.out.flush()?;
        if self.bursts.is_empty() {
            self.write_told()?;
        }
        Ok(())
    }

    /// When the notifications held back will have been quiet long enough to write (None:
    /// nothing held).
    pub fn held_until(&self) -> Option<std::time::Instant> {
        self.bursts.quiet_at()
    }

    /// Whether bursts of notifications fold into one row (tables, the story view).
    fn tells_a_story(&self) -> bool {
        self.opts.story && self.opts.format.is_table()
    }

    /// The held notifications: bursts as one row each, the rest one row per notification.
    fn write_held(&mut self) -> io::Result<()> {
        if self.bursts.is_empty() {
            return Ok(());
        }
        for row in self.bursts.take() {
            match row {
                Row::Change(events) if events.len() == 1 => self.write_event(&events[0])?,
                Row::Change(events) => {
                    self.buf.clear();
                    self.table.write_change(&mut self.buf, &events, &self.opts);
                    self.out.write_all(&self.buf)?;
                }
                Row::Burst(burst) => {
                    self.buf.clear();
                    self.table.write_burst(&mut self.buf, &burst, &self.opts);
                    self.out.write_all(&self.buf)?;
                }
            }
        }
        Ok(())
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}
