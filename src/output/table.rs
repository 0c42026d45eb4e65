//! Live table mode, like `kubectl get -w`: a header once, then one aligned row per event.
//!
//! Columns: `SEQ TIME STAGE EVENT KEY RV DETAIL` (`wide` adds `HANDLER PENDING UID` before
//! DETAIL and never truncates it). Widths are fixed so rows stay aligned however events
//! arrive; long keys are cut with `…`, and DETAIL is cut to the terminal width on a TTY.
//! Colours (by stage and event kind) only when the options say so.

use std::fmt::Write as _;
use std::time::Duration;

use crate::informer::delta_fifo::DeltaType;
use crate::informer::processor::Notification;
use crate::informer::trace::{Event, NotifyKind, Stage, TraceEvent, WatchEventType};

use super::diff::Change;
use super::durations::format_duration;
use super::{OutputFormat, RenderOptions};

/// Whether to colour output: only on a TTY, and never when `NO_COLOR` is set to anything
/// non-empty (<https://no-color.org>).
pub fn color_enabled(is_tty: bool, no_color_env: Option<&str>) -> bool {
    is_tty && no_color_env.is_none_or(str::is_empty)
}

/// One column: its header and fixed width.
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

const GAP: &str = "  ";

/// DETAIL is cut to the terminal width only when at least this much of it stays visible.
const MIN_DETAIL: usize = 40;

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
}

impl TableRenderer {
    pub fn new(opts: &RenderOptions) -> Self {
        Self {
            header_done: opts.no_headers,
        }
    }

    /// Appends the row(s) for `event` (the header first, once).
    pub fn write_event(&mut self, out: &mut Vec<u8>, event: &TraceEvent, opts: &RenderOptions) {
        let wide = opts.format == OutputFormat::Wide;
        if !self.header_done {
            self.header_done = true;
            out.extend_from_slice(header(wide).as_bytes());
        }
        let line = row(event, wide, opts.width.filter(|_| !wide));
        push_colored(
            out,
            &line,
            opts.color.then(|| row_color(&event.event)).flatten(),
        );
        if let Some(changes) = table_diff(&event.event, opts) {
            for change in &changes {
                let line = diff_line(change, opts.width);
                push_colored(out, &line, opts.color.then(|| change_color(change)));
            }
        }
    }
}

/// The header line, newline included.
pub fn header(wide: bool) -> String {
    let mut line = String::new();
    for c in columns(wide) {
        push_cell(&mut line, c.name, c.width);
    }
    line.push_str("DETAIL\n");
    line
}

fn columns(wide: bool) -> &'static [Column] {
    if wide { &WIDE } else { &NARROW }
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

/// One row, without newline. `width` limits the whole line (DETAIL is cut to fit).
fn row(event: &TraceEvent, wide: bool, width: Option<usize>) -> String {
    let cells = Cells::of(&event.event);
    let mut line = String::with_capacity(160);
    let mut values = vec![
        event.seq.to_string(),
        time_of_day(event.ts),
        event.event.stage().as_str().to_owned(),
        event.event.name().to_owned(),
        cells.key.clone(),
        cells.rv.clone(),
    ];
    if wide {
        values.extend([
            cells.handler.clone().unwrap_or_default(),
            cells.pending.map(|p| p.to_string()).unwrap_or_default(),
            cells.uid.clone(),
        ]);
    }
    for (c, v) in columns(wide).iter().zip(&values) {
        push_cell(&mut line, &sanitize(v), c.width);
    }
    let detail = sanitize(&detail(&event.event, wide));
    let used = line.chars().count();
    // A terminal too narrow to leave DETAIL a useful width wraps instead of hiding it.
    match width.map(|w| w.saturating_sub(used)) {
        Some(room) if room >= MIN_DETAIL => line.push_str(&truncate(&detail, room)),
        _ => line.push_str(&detail),
    }
    line.truncate(line.trim_end().len());
    line
}

/// Pads (or cuts with `…`) `value` to `width`, then the gap.
fn push_cell(line: &mut String, value: &str, width: usize) {
    let cut = truncate(value, width);
    let pad = width.saturating_sub(cut.chars().count());
    line.push_str(&cut);
    line.extend(std::iter::repeat_n(' ', pad));
    line.push_str(GAP);
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

/// `HH:MM:SS.mmm` in UTC.
fn time_of_day(ts: jiff::Timestamp) -> String {
    let t = jiff::tz::Offset::UTC.to_datetime(ts);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        t.hour(),
        t.minute(),
        t.second(),
        t.subsec_nanosecond() / 1_000_000
    )
}

/// The KEY, RV and wide-only cells of an event.
#[derive(Default)]
struct Cells {
    key: String,
    rv: String,
    handler: Option<String>,
    pending: Option<usize>,
    uid: String,
}

impl Cells {
    fn of(event: &Event) -> Self {
        use Event::*;
        let kr = |key: &str, rv: &str| Cells {
            key: key.to_owned(),
            rv: rv.to_owned(),
            ..Cells::default()
        };
        match event {
            ListStart {
                resource_version, ..
            }
            | ListDone {
                resource_version, ..
            }
            | WatchStart {
                resource_version, ..
            }
            | Bookmark {
                resource_version, ..
            }
            | WatchEnd {
                resource_version, ..
            } => kr("", resource_version),
            WatchEvent {
                key,
                resource_version,
                ..
            }
            | Delta {
                key,
                resource_version,
                ..
            }
            | IndexerAdd {
                key,
                resource_version,
            }
            | IndexerUpdate {
                key,
                resource_version,
                ..
            }
            | IndexerDelete {
                key,
                resource_version,
                ..
            } => kr(key, resource_version),
            Pop { key, .. } => kr(key, ""),
            Notify {
                handler,
                notification,
                pending,
            } => Cells {
                key: notification.key().to_owned(),
                rv: notification.object().resource_version().to_owned(),
                handler: Some(handler.to_string()),
                pending: Some(*pending),
                uid: notification.object().meta().uid().to_owned(),
            },
            Handled {
                handler,
                key,
                resource_version,
                pending,
                ..
            } => Cells {
                handler: Some(handler.to_string()),
                pending: Some(*pending),
                ..kr(key, resource_version)
            },
            _ => Cells::default(),
        }
    }
}

/// The DETAIL text. In wide mode the handler and pending count have their own columns.
pub fn detail(event: &Event, wide: bool) -> String {
    let mut d = Detail::default();
    use Event::*;
    match event {
        ListStart {
            limit, watch_list, ..
        } => {
            d.opt("limit", *limit);
            d.flag("watch_list", *watch_list);
        }
        ListPage { page, items, more } => {
            d.kv("page", page);
            d.kv("items", items);
            d.flag("more", *more);
        }
        ListDone { items, pages, .. } => {
            d.kv("items", items);
            d.kv("pages", pages);
        }
        WatchStart {
            timeout_seconds,
            watch_list,
            ..
        } => {
            d.kv(
                "timeout",
                format_duration(Duration::from_secs(*timeout_seconds)),
            );
            d.flag("watch_list", *watch_list);
        }
        WatchEvent { event_type, .. } => d.kv("type", event_type.as_str()),
        Bookmark {
            initial_events_end, ..
        } => d.flag("initial_events_end", *initial_events_end),
        WatchEnd { events, reason, .. } => {
            d.kv("events", events);
            d.text("reason", reason);
        }
        WatchError {
            code,
            reason,
            message,
        } => {
            d.opt("code", *code);
            d.text("reason", reason);
            d.text("message", message);
        }
        Relist { reason } | Stopped { reason } => d.text("reason", reason),
        Backoff {
            reason,
            delay_ms,
            attempt,
        } => {
            d.kv("delay", format_duration(Duration::from_millis(*delay_ms)));
            d.kv("attempt", attempt);
            d.text("reason", reason);
        }
        _ => queue_detail(&mut d, event, wide),
    }
    d.0
}

fn queue_detail(d: &mut Detail, event: &Event, wide: bool) {
    use Event::*;
    match event {
        Delta {
            delta_type,
            depth,
            tombstone,
            ..
        } => {
            d.kv("type", delta_type.as_str());
            d.kv("depth", depth);
            d.flag("tombstone", *tombstone);
        }
        Pop {
            deltas,
            depth,
            initial,
            ..
        } => {
            d.kv("deltas", deltas);
            d.kv("depth", depth);
            d.flag("initial", *initial);
        }
        IndexerUpdate {
            old_resource_version,
            ..
        } => d.kv("old_rv", old_resource_version),
        IndexerDelete { tombstone, .. } => d.flag("tombstone", *tombstone),
        Notify {
            handler,
            notification,
            pending,
        } => {
            if !wide {
                d.text("handler", handler);
            }
            d.kv("kind", notification.kind().as_str());
            d.flag("initial", notification.is_initial());
            d.flag("sync", notification.is_sync());
            d.flag("tombstone", notification.is_tombstone());
            if !wide {
                d.kv("pending", pending);
            }
        }
        Handled {
            handler,
            kind,
            sync,
            pending,
            latency,
            panicked,
            ..
        } => {
            if !wide {
                d.text("handler", handler);
            }
            d.kv("kind", kind.as_str());
            d.flag("sync", *sync);
            d.kv("latency", format_duration(round_to_micros(*latency)));
            if !wide {
                d.kv("pending", pending);
            }
            d.flag("panicked", *panicked);
        }
        _ => informer_detail(d, event),
    }
}

fn informer_detail(d: &mut Detail, event: &Event) {
    use Event::*;
    match event {
        ResyncTick { due, check_period } => {
            let names: Vec<&str> = due.iter().map(|n| &**n).collect();
            d.kv("due", names.join(","));
            d.kv("check", format_duration(*check_period));
        }
        SyncQueued { count } => d.kv("count", count),
        Synced { objects } => d.kv("objects", objects),
        HandlerAdded {
            handler,
            requested_resync,
            effective_resync,
            check_period,
            after_start,
            adjustment,
        } => {
            d.text("handler", handler);
            d.kv("requested", format_duration(*requested_resync));
            d.kv("resync", format_duration(*effective_resync));
            d.kv("check", format_duration(*check_period));
            d.flag("after_start", *after_start);
            if let Some(a) = adjustment {
                d.text("adjustment", a);
            }
        }
        HandlerRemoved { handler } => d.text("handler", handler),
        ResyncPeriodChanged {
            handler,
            effective_resync,
            check_period,
        } => {
            d.text("handler", handler);
            d.kv("resync", format_duration(*effective_resync));
            d.kv("check", format_duration(*check_period));
        }
        Summary(s) => {
            d.kv("handlers", s.handlers.len());
            d.kv("duration", format_duration(s.duration));
        }
        // Reflector and queue events are handled by `detail` and `queue_detail`.
        _ => {}
    }
}

fn round_to_micros(d: Duration) -> Duration {
    Duration::from_micros(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
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

    fn opt(&mut self, key: &str, value: Option<impl std::fmt::Display>) {
        if let Some(v) = value {
            self.kv(key, v);
        }
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

/// The `--diff` changes to print under an update notification row.
fn table_diff(event: &Event, opts: &RenderOptions) -> Option<Vec<Change>> {
    match event {
        Event::Notify {
            notification: Notification::Update { old, new, .. },
            ..
        } if opts.diff => Some(opts.changes(old.raw(), new.raw())),
        _ => None,
    }
}

/// `      ~ metadata.labels.app: "web" -> "api"` (`+` added, `-` removed); a Secret datum:
/// `      ~ data.token: (redacted) changed`.
fn diff_line(change: &Change, width: Option<usize>) -> String {
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or_else(|| "<none>".to_owned(), serde_json::Value::to_string)
    };
    let mark = match (&change.old, &change.new) {
        (None, _) => '+',
        (_, None) => '-',
        _ => '~',
    };
    let line = if change.redacted {
        let what = match mark {
            '+' => "added",
            '-' => "removed",
            _ => "changed",
        };
        format!("        {mark} {}: (redacted) {what}", change.path)
    } else {
        format!(
            "        {mark} {}: {} -> {}",
            change.path,
            show(&change.old),
            show(&change.new)
        )
    };
    let line = sanitize(&line);
    width.map_or_else(|| line.clone(), |w| truncate(&line, w))
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
        WatchError { .. } | Backoff { .. } => Some(Color::Red),
        Handled { panicked: true, .. } => Some(Color::Red),
        Relist { .. } => Some(Color::Magenta),
        WatchEvent { event_type, .. } => Some(match event_type {
            WatchEventType::Added => Color::Green,
            WatchEventType::Modified => Color::Yellow,
            WatchEventType::Deleted => Color::Red,
        }),
        Delta { delta_type, .. } => Some(match delta_type {
            DeltaType::Added => Color::Green,
            DeltaType::Updated | DeltaType::Replaced => Color::Yellow,
            DeltaType::Deleted => Color::Red,
            DeltaType::Sync => Color::Blue,
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
    fn no_headers_no_colour_and_width_truncation() {
        let mut opts = RenderOptions::new(OutputFormat::Table);
        opts.no_headers = true;
        opts.width = Some(150);
        let text = render(&opts);
        assert!(!text.contains("SEQ"));
        assert!(!text.contains('\x1b'));
        assert!(text.lines().all(|l| l.chars().count() <= 150), "{text}");
        // Too narrow to leave DETAIL 40 columns: rows are not cut, the terminal wraps them.
        opts.width = Some(100);
        assert!(render(&opts).contains("handler=slow kind=update pending=12"));
        opts.color = true;
        assert!(render(&opts).contains("\x1b[31m"));
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
    fn colour_only_on_tty_without_no_color() {
        assert!(color_enabled(true, None));
        assert!(color_enabled(true, Some("")));
        assert!(!color_enabled(true, Some("1")));
        assert!(!color_enabled(false, None));
    }

    #[test]
    fn long_keys_are_cut_and_control_chars_removed() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(sanitize("a\nb"), "a b");
    }
}
