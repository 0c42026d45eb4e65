//! `kinformer top --attach URL`: the terminal view of a Go tap's live trace
//! (docs/debug-go-controller.md) — a controller's real informers, one view per resource, read
//! as JSONL from the tap's loopback endpoint (`GET /trace`) instead of from informers of our
//! own. Its lines become the trace events `top` draws ([`event_of`]); the Indexer box counts
//! the objects the tap said the cache held (`synced`) and the watch events since; the bottom
//! line shows the tap's latest diagnosis. Keys: `q`/Esc quit, Ctrl-C (exit 130), `p` pause,
//! `e` the last events, ↑/↓ scroll, Tab the next resource.

use std::sync::Arc;
use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::informer::trace::{
    CachedObject, DeltaObject, Event, Notification, NotifyKind, TraceEvent, WatchEventType,
};

use super::model::{IndexerSnapshot, Model};
use super::render::ViewState;
use super::screen::Screen;
use crate::cli::exit::CliError;
use crate::cli::stream::{Ending, Signals};

/// How often the view is redrawn.
const REDRAW: Duration = Duration::from_millis(100);

/// Where a tap listens: `http://HOST:PORT[/trace]` (or `HOST:PORT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::cli) struct TapUrl {
    pub authority: String,
    pub path: String,
}

impl TapUrl {
    pub fn parse(url: &str) -> Result<Self, CliError> {
        let rest = url.strip_prefix("http://").unwrap_or(url);
        if rest.starts_with("https://") || rest.contains("://") {
            return Err(CliError::Usage(format!(
                "--attach {url}: a Go tap's endpoint is plain http://HOST:PORT/trace on loopback"
            )));
        }
        let (authority, path) = match rest.split_once('/') {
            Some((authority, "")) => (authority, "/trace".to_owned()),
            Some((authority, path)) => (authority, format!("/{path}")),
            None => (rest, "/trace".to_owned()),
        };
        if !authority.contains(':') || authority.ends_with(':') {
            return Err(CliError::Usage(format!(
                "--attach {url}: give the tap's address as http://HOST:PORT (the port its Listen option or KINFORMER_TAP=listen:ADDR names)"
            )));
        }
        Ok(Self {
            authority: authority.to_owned(),
            path,
        })
    }
}

/// Connects to the tap and streams its lines into a channel (closed when the tap ends).
async fn connect(url: &TapUrl) -> Result<mpsc::UnboundedReceiver<Value>, CliError> {
    let unreachable = |e: std::io::Error| {
        CliError::Unreachable(format!("the Go tap at http://{}: {e}", url.authority))
    };
    let mut stream = TcpStream::connect(&url.authority)
        .await
        .map_err(unreachable)?;
    // HTTP/1.0: the tap's Go server then streams the body as it is, without chunks.
    let request = format!(
        "GET {} HTTP/1.0\r\nHost: {}\r\n\r\n",
        url.path, url.authority
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(unreachable)?;
    let mut lines = BufReader::new(stream).lines();
    let status = lines.next_line().await.map_err(unreachable)?;
    let status = status.unwrap_or_default();
    if status.split_whitespace().nth(1) != Some("200") {
        return Err(CliError::Client(format!(
            "http://{}{} is not a Go tap's trace endpoint: it answered {status:?}",
            url.authority, url.path
        )));
    }
    while let Some(header) = lines.next_line().await.map_err(unreachable)? {
        if header.is_empty() {
            break;
        }
    }
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && tx.send(value).is_err()
            {
                return;
            }
        }
    });
    Ok(rx)
}

/// One resource of the tap: its model and what the Indexer box counts.
struct ResourceView {
    resource: String,
    model: Model,
    /// Objects in the cache: the `synced` count, then each watch event's change.
    objects: Option<i64>,
}

/// Draws the tap at `url` until the user quits or a signal ends it.
pub(in crate::cli) async fn attach(url: &str, signals: &mut Signals) -> Result<Ending, CliError> {
    let url = TapUrl::parse(url)?;
    let mut lines = connect(&url).await?;
    let mut screen = Screen::enter()?;
    let mut views: Vec<ResourceView> = Vec::new();
    let mut selected = 0;
    let mut frozen: Option<Model> = None;
    let mut view = ViewState::default();
    let mut ticker = tokio::time::interval(REDRAW);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut open = true;
    loop {
        tokio::select! {
            code = signals.recv() => return Ok(Ending::Signal(code)),
            key = screen.next_key() => {
                let Some(key) = key_of(key?) else { continue };
                match key {
                    KeyCode::Char('q') | KeyCode::Esc => return Ok(Ending::Done),
                    KeyCode::Char('c') => return Ok(Ending::Signal(130)),
                    KeyCode::Char('p') => {
                        view.paused = !view.paused;
                        frozen = view.paused.then(|| views.get(selected).map(|v| v.model.clone())).flatten();
                    }
                    KeyCode::Char('e') => view.show_events = !view.show_events,
                    KeyCode::Up => view.scroll = view.scroll.saturating_sub(1),
                    KeyCode::Down => view.scroll += 1,
                    KeyCode::Tab => {
                        selected = (selected + 1) % views.len().max(1);
                        view.scroll = 0;
                    }
                    _ => {}
                }
            }
            line = lines.recv(), if open => match line {
                Some(line) => observe(&mut views, &mut view, &line),
                None => {
                    open = false;
                    view.message = Some("the tap closed its stream (q quits)".to_owned());
                }
            },
            _ = ticker.tick() => {
                let now_ms = jiff::Timestamp::now().as_millisecond();
                for v in &mut views {
                    let objects = usize::try_from(v.objects.unwrap_or(0).max(0)).unwrap_or(0);
                    v.model.tick(now_ms, IndexerSnapshot { objects, ..IndexerSnapshot::default() });
                }
                view.resource = header(&views, selected, &url);
                if let Some(current) = views.get(selected) {
                    screen.draw(frozen.as_ref().unwrap_or(&current.model), &view)?;
                }
            }
        }
    }
}

/// The keys the attached view knows (Ctrl-C as `c`); None for the others and releases.
fn key_of(event: KeyEvent) -> Option<KeyCode> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    match event.code {
        KeyCode::Char('c') if ctrl => Some(KeyCode::Char('c')),
        KeyCode::Char('c') => None,
        KeyCode::Char('k') => Some(KeyCode::Up),
        KeyCode::Char('j') => Some(KeyCode::Down),
        code => Some(code),
    }
}

fn header(views: &[ResourceView], selected: usize, url: &TapUrl) -> String {
    let Some(current) = views.get(selected) else {
        return format!(
            "Go tap at http://{}: waiting for its informers",
            url.authority
        );
    };
    let mut text = format!("{} · Go tap at {}", current.resource, url.authority);
    if views.len() > 1 {
        text.push_str(&format!(" · {}/{} · Tab: next", selected + 1, views.len()));
    }
    text
}

/// One tap line into its resource's model; a diagnosis goes to the bottom line.
fn observe(views: &mut Vec<ResourceView>, view: &mut ViewState, line: &Value) {
    if line["stage"] == "diagnosis" {
        view.message = line["cause"]
            .as_str()
            .map(|cause| format!("diagnosis: {cause}"));
    }
    let Some(event) = event_of(line) else {
        return;
    };
    let Some(resource) = event.resource.as_deref() else {
        return;
    };
    let at = match views.iter().position(|v| v.resource == resource) {
        Some(at) => at,
        None => {
            views.push(ResourceView {
                resource: resource.to_owned(),
                model: Model::default(),
                objects: None,
            });
            views.len() - 1
        }
    };
    let v = &mut views[at];
    match &event.event {
        Event::Synced { objects, .. } => v.objects = Some(i64::try_from(*objects).unwrap_or(0)),
        Event::WatchEvent { event_type, .. } if v.objects.is_some() => {
            v.objects = v.objects.map(|n| match event_type {
                WatchEventType::Added => n + 1,
                WatchEventType::Deleted => n - 1,
                WatchEventType::Modified => n,
            });
        }
        _ => {}
    }
    v.model.observe(&event);
}

fn text(line: &Value, field: &str) -> String {
    line[field].as_str().unwrap_or_default().to_owned()
}

fn number(line: &Value, field: &str) -> u64 {
    line[field].as_u64().unwrap_or(0)
}

fn count(line: &Value, field: &str) -> usize {
    usize::try_from(number(line, field)).unwrap_or(usize::MAX)
}

fn code(line: &Value) -> Option<u16> {
    line["code"].as_u64().and_then(|c| u16::try_from(c).ok())
}

/// The trace event a tap's line stands for (the events `top` draws); None for the lines it
/// does not draw (diagnoses, the tap's own, the summary).
pub(in crate::cli) fn event_of(line: &Value) -> Option<TraceEvent> {
    let stage = line["stage"].as_str()?;
    let name = line["event"].as_str()?;
    let event = match (stage, name) {
        ("reflector", _) => reflector_event(name, line)?,
        ("handler", _) => handler_event(name, line)?,
        ("informer", _) => informer_event(name, line)?,
        _ => return None,
    };
    Some(TraceEvent {
        seq: number(line, "seq"),
        ts: line["ts"].as_str()?.parse().ok()?,
        resource: line["resource"].as_str().map(Arc::from),
        event,
    })
}

fn reflector_event(name: &str, line: &Value) -> Option<Event> {
    let rv = text(line, "rv");
    Some(match name {
        "list-start" => Event::ListStart {
            resource_version: rv,
            resource_version_match: None,
            limit: line["limit"].as_u64().and_then(|l| u32::try_from(l).ok()),
            watch_list: line["watch_list"] == true,
        },
        "list-page" => Event::ListPage {
            page: u32::try_from(number(line, "page")).unwrap_or(u32::MAX),
            items: count(line, "items"),
            more: line["more"] == true,
        },
        "list-done" => Event::ListDone {
            items: count(line, "items"),
            pages: u32::try_from(number(line, "pages")).unwrap_or(u32::MAX),
            resource_version: rv,
        },
        "watch-start" => Event::WatchStart {
            resource_version: rv,
            timeout_seconds: number(line, "timeout_s"),
            watch_list: line["watch_list"] == true,
        },
        "watch-event" => Event::WatchEvent {
            event_type: match line["type"].as_str()? {
                "ADDED" => WatchEventType::Added,
                "MODIFIED" => WatchEventType::Modified,
                "DELETED" => WatchEventType::Deleted,
                _ => return None,
            },
            key: text(line, "key"),
            resource_version: rv,
        },
        "bookmark" => Event::Bookmark {
            resource_version: rv,
            initial_events_end: line["initial_events_end"] == true,
        },
        "watch-end" => Event::WatchEnd {
            resource_version: rv,
            events: number(line, "events"),
            reason: text(line, "reason"),
        },
        "watch-error" | "error" => Event::WatchError {
            code: code(line),
            reason: text(line, "reason"),
            message: text(line, "message"),
        },
        "list-error" => Event::ListError {
            code: code(line),
            reason: text(line, "reason"),
            message: text(line, "message"),
        },
        "relist" => Event::Relist {
            reason: text(line, "reason"),
        },
        _ => return None,
    })
}

/// A metadata-only object for a notification: the key and resourceVersion the line names.
fn object_of(line: &Value) -> Option<Arc<CachedObject>> {
    let key = text(line, "key");
    let (namespace, name) = match key.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, key.as_str()),
    };
    let json = serde_json::json!({"metadata": {"name": name, "namespace": namespace, "resourceVersion": text(line, "rv")}});
    CachedObject::from_json(json.to_string().into_bytes())
        .ok()
        .map(Arc::new)
}

fn handler_event(name: &str, line: &Value) -> Option<Event> {
    let handler: Arc<str> = Arc::from(line["handler"].as_str()?);
    let kind = line["kind"].as_str()?;
    let sync = line["sync"] == true;
    Some(match name {
        "notify" => {
            let obj = object_of(line)?;
            let notification = match kind {
                "add" => Notification::Add {
                    obj,
                    initial: line["initial"] == true,
                },
                "update" => Notification::Update {
                    old: obj.clone(),
                    new: obj,
                    sync,
                },
                _ => Notification::Delete {
                    obj: DeltaObject::Object(obj),
                },
            };
            Event::Notify {
                handler,
                notification,
                pending: count(line, "pending"),
            }
        }
        "handled" => Event::Handled {
            handler,
            kind: match kind {
                "add" => NotifyKind::Add,
                "update" => NotifyKind::Update,
                _ => NotifyKind::Delete,
            },
            key: text(line, "key"),
            resource_version: text(line, "rv"),
            sync,
            pending: count(line, "pending"),
            latency: Duration::from_micros(number(line, "latency_us")),
            panicked: false,
        },
        _ => return None,
    })
}

fn informer_event(name: &str, line: &Value) -> Option<Event> {
    let ms = |field: &str| Duration::from_millis(number(line, field));
    Some(match name {
        "started" => Event::Started {
            name: line["name"].as_str().map(str::to_owned),
            what_if: None,
            profile: line["client_go"].as_str().map(|v| format!("{v} (Go tap)")),
            queue: "inside the process".to_owned(),
            pop_batch: false,
            atomic_fifo: false,
            unlock_while_processing: false,
            watch_list: false,
            overrides: Vec::new(),
        },
        "synced" => Event::Synced {
            objects: count(line, "objects"),
            store_rv: line["store_rv"].as_str().map(str::to_owned),
        },
        "handler-added" => Event::HandlerAdded {
            handler: Arc::from(line["handler"].as_str()?),
            requested_resync: ms("requested_resync_ms"),
            effective_resync: ms("requested_resync_ms"),
            check_period: Duration::ZERO,
            after_start: line["after_start"] == true,
            adjustment: None,
        },
        "handler-removed" => Event::HandlerRemoved {
            handler: Arc::from(line["handler"].as_str()?),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(json: &str) -> Value {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn an_attach_address_is_a_plain_http_loopback_endpoint() {
        let url = TapUrl::parse("http://127.0.0.1:7070/trace").unwrap();
        assert_eq!(
            (url.authority.as_str(), url.path.as_str()),
            ("127.0.0.1:7070", "/trace")
        );
        assert_eq!(TapUrl::parse("127.0.0.1:7070").unwrap().path, "/trace");
        assert_eq!(
            TapUrl::parse("http://[::1]:9/").unwrap().authority,
            "[::1]:9"
        );
        assert!(TapUrl::parse("https://127.0.0.1:7070").is_err());
        assert!(TapUrl::parse("http://127.0.0.1").is_err());
    }

    #[test]
    fn a_taps_handler_lines_drive_the_models_lanes() {
        let mut views = Vec::new();
        let mut view = ViewState::default();
        for l in [
            r#"{"seq":1,"ts":"2026-11-22T10:00:00.000000Z","stage":"informer","event":"started","resource":"configmaps","name":"configmaps","client_go":"v0.37.2","source":"tap"}"#,
            r#"{"seq":2,"ts":"2026-11-22T10:00:00.000000Z","stage":"informer","event":"handler-added","resource":"configmaps","handler":"slow","after_start":false}"#,
            r#"{"seq":3,"ts":"2026-11-22T10:00:00.100000Z","stage":"informer","event":"synced","resource":"configmaps","objects":2,"store_rv":"9"}"#,
            r#"{"seq":4,"ts":"2026-11-22T10:00:00.200000Z","stage":"reflector","event":"watch-event","resource":"configmaps","type":"ADDED","key":"ns/c","rv":"10"}"#,
            r#"{"seq":5,"ts":"2026-11-22T10:00:00.300000Z","stage":"handler","event":"notify","resource":"configmaps","handler":"slow","kind":"add","key":"ns/c","rv":"10","initial":false,"sync":false,"pending":7}"#,
            r#"{"seq":6,"ts":"2026-11-22T10:00:00.400000Z","stage":"handler","event":"handled","resource":"configmaps","handler":"slow","kind":"add","key":"ns/c","rv":"10","sync":false,"pending":6,"latency_us":250000,"call_us":60000}"#,
            r#"{"seq":7,"ts":"2026-11-22T10:00:00.500000Z","stage":"diagnosis","event":"backlog-growing","resource":"configmaps","handler":"slow","cause":"handler slow falls behind"}"#,
        ] {
            observe(&mut views, &mut view, &line(l));
        }
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].objects, Some(3), "synced 2, then one ADDED");
        let lane = views[0].model.lane("slow").expect("slow's lane");
        assert_eq!((lane.pending, lane.handled), (6, 1));
        assert_eq!(
            view.message.as_deref(),
            Some("diagnosis: handler slow falls behind")
        );
    }

    #[test]
    fn lines_top_does_not_draw_are_no_events() {
        for l in [
            r#"{"seq":1,"ts":"2026-11-22T10:00:00.000000Z","stage":"tap","event":"started"}"#,
            r#"{"seq":2,"ts":"2026-11-22T10:00:00.000000Z","stage":"summary","event":"summary","handlers":[]}"#,
            r#"{"seq":3,"ts":"2026-11-22T10:00:00.000000Z","stage":"reflector","event":"watch-event","resource":"pods","type":"BOOKMARKED"}"#,
        ] {
            assert!(event_of(&line(l)).is_none(), "{l}");
        }
    }
}
