//! Draws a [`Model`] into a ratatui frame: the seeds' diagram as boxes.
//!
//! ```text
//!  kinformer top · pods · all namespaces · client-go 1.36 real-fifo · synced 104
//! ┌ Reflector ────────┐ ┌ Queue ────────────┐ ┌ Indexer ──────────┐
//! │state    watching  │▶│depth 0  pops/s 4.8│▶│objects 104        │
//! │…                  │ │▁▁▃▇▂▁             │ │namespace 4 values │
//! └───────────────────┘ └───────────────────┘ └───────────────────┘
//! ┌ handler fast ─────────────────────────────────────────────────┐
//! │pending     0 ░░░░░░░░  handled/s 4.8  latency 45µs  resync 8.2s│
//! └───────────────────────────────────────────────────────────────┘
//!  q quit  p pause  a add handler  r remove handler  e events  ↑↓ scroll
//! ```
//!
//! Small terminals (80×24 and up) stay usable: each handler gets a 3-row box while they all
//! fit; otherwise the lanes collapse into one `Handlers` box with one row per handler, which
//! scrolls (↑/↓) and says how many rows are out of view. The last-events panel (`e`) takes
//! the lower half of the lanes' area. A number is never cut: a line that does not fit shortens
//! its labels first, then drops whole words behind an ellipsis (`fit.rs`).

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Sparkline};

use crate::duration::{age, format_duration};

use super::fit::{first_fitting, fit_words};
use super::model::{Lane, Model, ReflectorState, short_duration};

/// Height of the Reflector / Queue / Indexer row, borders included.
const PIPELINE_HEIGHT: u16 = 7;
/// Height of one handler lane box.
const LANE_HEIGHT: u16 = 3;

/// What the view adds to the model: the header's resource line and the keys' state.
#[derive(Debug, Clone, Default)]
pub struct ViewState {
    /// What is informed on, e.g. `pods · all namespaces`.
    pub resource: String,
    pub paused: bool,
    pub show_events: bool,
    /// First handler row shown when the lanes are collapsed.
    pub scroll: usize,
    /// The outcome of the last key (`added handler sim-1`).
    pub message: Option<String>,
}

/// Draws the whole screen.
pub fn render(frame: &mut Frame, model: &Model, view: &ViewState) {
    let [header, pipeline, lanes, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(PIPELINE_HEIGHT),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(header_line(model, view), header);
    render_pipeline(frame, model, pipeline);
    if view.show_events {
        let [handlers, events] =
            Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(lanes);
        render_lanes(frame, model, view.scroll, handlers);
        render_events(frame, model, events);
    } else {
        render_lanes(frame, model, view.scroll, lanes);
    }
    frame.render_widget(footer_line(view), footer);
}

fn header_line<'a>(model: &'a Model, view: &'a ViewState) -> Line<'a> {
    let mut spans = vec![
        Span::from(" kinformer top").bold(),
        Span::from(format!(" · {}", view.resource)),
    ];
    if let Some(profile) = &model.profile {
        spans.push(Span::from(format!(" · {profile}")));
    }
    spans.push(Span::from(match model.synced {
        Some(n) => format!(" · synced {n}"),
        None => " · syncing".to_owned(),
    }));
    if let Some(reason) = &model.stopped {
        spans.push(Span::from(format!(" · stopped: {reason}")).red());
    }
    if view.paused {
        spans.push(Span::from("  PAUSED ").reversed());
    }
    Line::from(spans)
}

fn footer_line(view: &ViewState) -> Line<'_> {
    let keys = [
        ("q", "quit"),
        ("p", if view.paused { "resume" } else { "pause" }),
        ("a", "add handler"),
        ("r", "remove handler"),
        ("e", "events"),
        ("↑↓", "scroll"),
    ];
    let mut spans = Vec::new();
    for (key, what) in keys {
        spans.push(Span::from(format!(" {key}")).bold());
        spans.push(Span::from(format!(" {what} ")));
    }
    if let Some(message) = &view.message {
        spans.push(Span::from(format!(" {message}")).italic());
    }
    Line::from(spans)
}

fn render_pipeline(frame: &mut Frame, model: &Model, area: Rect) {
    let [reflector, arrow1, queue, arrow2, indexer] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(reflector_box(model, inner_width(reflector)), reflector);
    render_queue(frame, model, queue);
    frame.render_widget(indexer_box(model, inner_width(indexer)), indexer);
    for arrow in [arrow1, arrow2] {
        let [_, middle, _] = Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Fill(1),
        ])
        .areas(arrow);
        frame.render_widget(Span::from("▶"), middle);
    }
}

/// The width inside a bordered box.
fn inner_width(area: Rect) -> usize {
    usize::from(area.width.saturating_sub(2))
}

fn titled(title: &str) -> Block<'static> {
    Block::bordered().title(Span::from(format!(" {title} ")).bold())
}

fn reflector_box(model: &Model, width: usize) -> Paragraph<'_> {
    let r = &model.reflector;
    let now = model.now_ms;
    let state = match &r.state {
        ReflectorState::Starting => Span::from("starting"),
        ReflectorState::Listing { relist: false } => Span::from("listing").yellow(),
        ReflectorState::Listing { relist: true } => Span::from("relisting").yellow(),
        ReflectorState::Watching => Span::from("watching").green(),
        ReflectorState::Backoff {
            until_ms, attempt, ..
        } => Span::from(format!("backoff #{attempt} {}", countdown(*until_ms - now))).red(),
    };
    let rv = if r.resource_version.is_empty() {
        "-"
    } else {
        &r.resource_version
    };
    let mut lines = vec![
        Line::from(vec![Span::from("state    "), state]),
        Line::from(format!("RV       {rv}")),
        Line::from(format!("events/s {:.1}", r.events.per_second(now))),
        Line::from(format!("lists {}  relists {}", r.lists, r.relists)),
    ];
    let errors = match &r.last_error {
        Some(last) => format!("errors {} ({last})", r.errors),
        None => format!("errors {}", r.errors),
    };
    lines.push(Line::from(fit_words(&errors, width)));
    Paragraph::new(lines).block(titled("Reflector"))
}

fn render_queue(frame: &mut Frame, model: &Model, area: Rect) {
    let q = &model.queue;
    let block = titled("Queue");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [numbers, spark] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let shown = usize::from(spark.width).min(q.history.len());
    let samples: Vec<u64> = q
        .history
        .iter()
        .skip(q.history.len() - shown)
        .copied()
        .collect();
    // The sparkline scales to its highest sample: say which it is.
    let (depth, pops) = (q.depth, q.pops.per_second(model.now_ms));
    let peak = samples.iter().max().unwrap_or(&0);
    let mut wordings = vec![
        format!("depth {depth}  peak {peak}  pops/s {pops:.1}"),
        format!("depth {depth} peak {peak} pops/s {pops:.1}"),
        format!("d {depth} pk {peak} /s {pops:.1}"),
    ];
    // client-go's informer_processing_latency_seconds, its mean: when there is room.
    if let Some(mean) = model.indexer.snapshot.mean_processing {
        let mean = format_duration(mean);
        wordings.insert(
            0,
            format!("depth {depth} peak {peak} pops/s {pops:.1} proc {mean}"),
        );
        wordings.insert(
            0,
            format!("depth {depth}  peak {peak}  pops/s {pops:.1}  proc {mean}"),
        );
    }
    let line = first_fitting(&wordings, usize::from(numbers.width));
    frame.render_widget(Line::from(line), numbers);
    frame.render_widget(Sparkline::default().data(&samples).cyan(), spark);
}

fn indexer_box(model: &Model, width: usize) -> Paragraph<'_> {
    let ix = &model.indexer;
    let objects = ix.snapshot.objects;
    let first = match ix.snapshot.store_resource_version {
        // client-go 1.36's LastStoreSyncResourceVersion.
        Some(rv) => first_fitting(
            &[
                format!("objects  {objects}  store rv {rv}"),
                format!("objects {objects} rv {rv}"),
                format!("objects  {objects}"),
            ],
            width,
        ),
        None => format!("objects  {objects}"),
    };
    let mut lines = vec![
        Line::from(first),
        Line::from(format!(
            "writes/s {:.1}",
            ix.writes.per_second(model.now_ms)
        )),
    ];
    let room = usize::from(PIPELINE_HEIGHT - 4);
    let indices = &ix.snapshot.indices;
    let listed = if indices.len() > room { room - 1 } else { room };
    for index in indices.iter().take(listed) {
        let (name, values) = (&index.name, index.values);
        let largest = index.largest.as_ref().map(|(v, n)| {
            let v = if v.is_empty() { "\"\"" } else { v };
            format!("{v}={n}")
        });
        let wordings = match largest {
            Some(max) => vec![
                format!("{name} {values} values  max {max}"),
                format!("{name} {values} vals max {max}"),
                format!("{name} {values} {max}"),
                format!("{name} {values}"),
            ],
            None => vec![
                format!("{name} {values} values"),
                format!("{name} {values}"),
            ],
        };
        lines.push(Line::from(first_fitting(&wordings, width)));
    }
    if indices.len() > listed {
        lines.push(Line::from(format!(
            "+{} more indices",
            indices.len() - listed
        )));
    }
    Paragraph::new(lines).block(titled("Indexer"))
}

fn render_lanes(frame: &mut Frame, model: &Model, scroll: usize, area: Rect) {
    let lanes = &model.lanes;
    if lanes.is_empty() {
        let empty = Paragraph::new("no handlers (a adds one)").block(titled("Handlers"));
        frame.render_widget(empty, area);
        return;
    }
    let scale = lanes.iter().map(|l| l.peak_pending).max().unwrap_or(0);
    let boxes_fit = lanes.len() * usize::from(LANE_HEIGHT) <= usize::from(area.height);
    if boxes_fit {
        let rows =
            Layout::vertical(lanes.iter().map(|_| Constraint::Length(LANE_HEIGHT))).split(area);
        for (lane, row) in lanes.iter().zip(rows.iter()) {
            let line = lane_line(lane, model.now_ms, scale, row.width.saturating_sub(2), "");
            let block = titled(&format!("handler {}", lane.name));
            frame.render_widget(Paragraph::new(line).block(block), *row);
        }
    } else {
        render_collapsed(frame, model, scroll, scale, area);
    }
}

/// One `Handlers` box, one row per handler, scrolled to `scroll`.
fn render_collapsed(frame: &mut Frame, model: &Model, scroll: usize, scale: usize, area: Rect) {
    let lanes = &model.lanes;
    let block = titled(&format!("Handlers ({})", lanes.len()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    if height == 0 {
        return;
    }
    let name_width = lanes
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    // Rows for lanes: all of them, or all but the last row, which then says what is hidden.
    let rows = if lanes.len() <= height {
        height
    } else {
        height - 1
    };
    let first = scroll.min(lanes.len().saturating_sub(rows));
    let mut lines: Vec<Line> = lanes
        .iter()
        .skip(first)
        .take(rows)
        .map(|lane| {
            let name = format!("{:<name_width$}", lane.name);
            lane_line(lane, model.now_ms, scale, inner.width, &name)
        })
        .collect();
    let below = lanes.len() - first - lines.len();
    if lanes.len() > rows {
        let more = format!("↑ {first} above  ↓ {below} below (↑/↓ scroll)");
        lines.push(Line::from(more).dim());
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A lane's figures in `width` columns: pending (with a bar scaled to `scale`, the deepest
/// backlog any handler had), handled/s, mean latency, next resync.
fn lane_line(lane: &Lane, now_ms: i64, scale: usize, width: u16, name: &str) -> Line<'static> {
    let latency = lane
        .mean_latency(now_ms)
        .map_or_else(|| "-".to_owned(), short_duration);
    let resync = match lane.next_resync_ms {
        Some(at) => countdown(at - now_ms),
        None => "never".to_owned(),
    };
    let head = format!("{name}pending {:>5} ", lane.pending);
    let rate = lane.handled_per_second(now_ms);
    let panics = match lane.panics {
        0 => String::new(),
        n => format!("  panics {n}"),
    };
    let wordings = [
        format!("  handled/s {rate:>5.1}  latency {latency:>6}  resync {resync:>6}{panics}"),
        format!(" handled/s {rate:.1} latency {latency} resync {resync}{panics}"),
        format!(" /s {rate:.1} lat {latency} rs {resync}{panics}"),
    ];
    let room_for_tail = usize::from(width).saturating_sub(head.chars().count());
    let tail = first_fitting(&wordings, room_for_tail);
    let room = usize::from(width).saturating_sub(head.chars().count() + tail.chars().count());
    let bar_width = room.min(30);
    let mut spans = vec![Span::from(head)];
    if bar_width >= 4 {
        spans.push(pending_bar(lane.pending, scale, bar_width));
    }
    spans.push(Span::from(tail));
    Line::from(spans)
}

/// `pending` of `scale` as a bar `width` cells long.
fn pending_bar(pending: usize, scale: usize, width: usize) -> Span<'static> {
    let filled = if scale == 0 {
        0
    } else {
        (pending * width).div_ceil(scale).min(width)
    };
    let bar = format!("{}{}", "█".repeat(filled), "░".repeat(width - filled));
    let style = if pending > 0 {
        Style::default().yellow()
    } else {
        Style::default().add_modifier(Modifier::DIM)
    };
    Span::styled(bar, style)
}

fn render_events(frame: &mut Frame, model: &Model, area: Rect) {
    let block = titled("Last events");
    let height = usize::from(block.inner(area).height);
    let width = inner_width(area);
    let skip = model.recent.len().saturating_sub(height);
    let lines: Vec<Line> = model
        .recent
        .iter()
        .skip(skip)
        .map(|e| Line::from(fit_words(&format!("{} {}", clock(e.at_ms), e.text), width)))
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `HH:MM:SS.mmm` (UTC, as the trace's `ts`).
fn clock(at_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(at_ms)
        .map(|t| t.strftime("%H:%M:%S%.3f").to_string())
        .unwrap_or_default()
}

/// Time left until something due: `8.2s`, `4m10s`, or `due` once passed.
fn countdown(left_ms: i64) -> String {
    let Ok(left) = u64::try_from(left_ms) else {
        return "due".to_owned();
    };
    if left == 0 {
        return "due".to_owned();
    }
    if left < 60_000 {
        format!("{:.1}s", Duration::from_millis(left).as_secs_f64())
    } else {
        age(Duration::from_millis(left))
    }
}

#[cfg(test)]
mod tests;
