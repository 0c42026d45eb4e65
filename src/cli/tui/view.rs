//! The terminal view `top` and `replay --top` draw: takes the terminal and runs the redraw
//! loop — trace events into the model, the clock's ticks, the keys — until the user quits or a
//! signal ends it, while a driver (a scenario, a replay) runs beside it.

use std::future::Future;
use std::io;
use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::sync::{mpsc, watch};

use crate::informer::HandlerSpec;
use crate::informer::trace::Event;
use crate::scenario::InspectorAction;

use super::model::{IndexerSnapshot, Model};
use super::render::ViewState;
use super::screen::Screen;
use crate::cli::exit::CliError;
use crate::cli::session::{self, Session};
use crate::cli::stream::{Ending, Signals};

/// How often the view is redrawn.
const REDRAW: Duration = Duration::from_millis(100);
/// Trace events taken from the channel at once.
const BATCH: usize = 1024;
/// Processing time of a handler added with `a`: slow enough that its catch-up backlog shows.
const SIMULATED_DELAY: Duration = Duration::from_millis(100);

/// Where a driver of the view (a scenario, a replay) sends its handler steps and its lines.
pub(in crate::cli) struct Steps {
    pub actions: mpsc::UnboundedSender<InspectorAction>,
    pub reports: mpsc::UnboundedSender<String>,
}

/// Takes the terminal and draws `session`'s informers (one `scopes` entry each) until a way
/// out, while `drive` runs beside it; gives the terminal back and stops the informers. Told on
/// `synced` once an informer synced. The caller checks that stdout is a terminal.
pub(in crate::cli) async fn view<F: Future<Output = ()>>(
    session: Session,
    scopes: Vec<String>,
    default_resync: Duration,
    synced: watch::Sender<bool>,
    signals: &mut Signals,
    drive: impl FnOnce(Steps) -> F,
) -> Result<Ending, CliError> {
    let views = session
        .informers()
        .into_iter()
        .zip(scopes)
        .map(|((label, _), scope)| ResourceView {
            label,
            scope,
            model: Model::default(),
        })
        .collect();
    let (actions_tx, actions) = mpsc::unbounded_channel();
    let (reports_tx, reports) = mpsc::unbounded_channel();
    let mut top = Top {
        session,
        views,
        selected: 0,
        frozen: None,
        view: ViewState::default(),
        added: 0,
        default_resync,
        synced,
    };
    let ending = {
        let mut screen = Screen::enter()?;
        let driver = drive(Steps {
            actions: actions_tx,
            reports: reports_tx,
        });
        let running = top.run(&mut screen, signals, actions, reports);
        tokio::pin!(driver, running);
        loop {
            tokio::select! {
                ending = &mut running => break ending,
                () = &mut driver => {}
            }
        }
    };
    let _ = top.session.stop("the view was closed").await;
    ending
}

/// One informer's model, and what the header says of it.
struct ResourceView {
    /// The resource's trace label (`pods`, `deployments.apps`).
    label: String,
    /// `pods · all namespaces`.
    scope: String,
    model: Model,
}

/// The running view: the session, what it showed, and the keys' state.
struct Top {
    session: Session,
    /// One per informer, in the order the resources were given.
    views: Vec<ResourceView>,
    /// The one drawn (Tab moves on).
    selected: usize,
    /// The model as it was when `p` paused the view.
    frozen: Option<Model>,
    view: ViewState,
    /// Handlers added with `a` so far (for their names).
    added: u32,
    /// The informer's default resync period, which `a`'s handlers request.
    default_resync: Duration,
    /// Told once the informer synced (a scenario starts then).
    synced: watch::Sender<bool>,
}

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Quit,
    /// Ctrl-C: quit as SIGINT would (exit 130).
    Interrupt,
    Pause,
    AddHandler,
    RemoveHandler,
    Events,
    Up,
    Down,
    /// Tab: the next resource's view.
    NextResource,
}

/// The key bindings; None for keys that mean nothing (and for key releases).
fn key_of(event: KeyEvent) -> Option<Key> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    Some(match event.code {
        KeyCode::Char('c') if ctrl => Key::Interrupt,
        KeyCode::Char('q') | KeyCode::Esc => Key::Quit,
        KeyCode::Char('p') => Key::Pause,
        KeyCode::Char('a') => Key::AddHandler,
        KeyCode::Char('r') => Key::RemoveHandler,
        KeyCode::Char('e') => Key::Events,
        KeyCode::Up | KeyCode::Char('k') => Key::Up,
        KeyCode::Down | KeyCode::Char('j') => Key::Down,
        KeyCode::Tab => Key::NextResource,
        _ => return None,
    })
}

impl Top {
    /// Feeds, ticks and draws until a key, a signal or the informer ends it.
    async fn run(
        &mut self,
        screen: &mut Screen,
        signals: &mut Signals,
        mut actions: mpsc::UnboundedReceiver<InspectorAction>,
        mut reports: mpsc::UnboundedReceiver<String>,
    ) -> Result<Ending, CliError> {
        let mut ticker = tokio::time::interval(REDRAW);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut failure = self.session.failure.clone();
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            tokio::select! {
                code = signals.recv() => return Ok(Ending::Signal(code)),
                failed = session::failure(&mut failure) => return Ok(Ending::Failed(failed)),
                key = screen.next_key() => {
                    if let Some(ending) = key_of(key?).and_then(|k| self.on_key(k)) {
                        return Ok(ending);
                    }
                }
                Some(action) = actions.recv() => self.carry_out(action),
                Some(line) = reports.recv() => self.view.message = Some(line),
                received = self.session.events.recv_many(&mut batch, BATCH) => {
                    if received == 0 {
                        return Ok(Ending::Done);
                    }
                    self.observe(&mut batch);
                }
                _ = ticker.tick() => self.tick(screen)?,
            }
        }
    }

    fn observe(&mut self, batch: &mut Vec<crate::informer::trace::TraceEvent>) {
        for event in batch.drain(..) {
            if matches!(event.event, Event::Synced { .. }) {
                self.synced.send_replace(true);
            }
            let view = self.views.iter_mut().find(|v| {
                event
                    .resource
                    .as_deref()
                    .is_some_and(|r| r == v.label.as_str())
            });
            if let Some(view) = view {
                view.model.observe(&event);
            }
        }
    }

    fn tick(&mut self, screen: &mut Screen) -> io::Result<()> {
        let now_ms = jiff::Timestamp::now().as_millisecond();
        for (view, (_, informer)) in self.views.iter_mut().zip(self.session.informers()) {
            view.model.tick(
                now_ms,
                IndexerSnapshot::of(&informer.indexer()).with_metrics(&informer.metrics()),
            );
        }
        self.view.resource = self.header();
        let Some(current) = self.views.get(self.selected) else {
            return Ok(());
        };
        let shown = self.frozen.as_ref().unwrap_or(&current.model);
        screen.draw(shown, &self.view)
    }

    /// The header's scope, with the resource's place among several (`2/3 · Tab: next`).
    fn header(&self) -> String {
        let Some(current) = self.views.get(self.selected) else {
            return String::new();
        };
        if self.views.len() == 1 {
            return current.scope.clone();
        }
        format!(
            "{} · {}/{} · Tab: next",
            current.scope,
            self.selected + 1,
            self.views.len()
        )
    }

    /// The model of the resource on screen.
    fn current(&self) -> &Model {
        &self.views[self.selected].model
    }

    /// Carries out a key; the ending when it quits.
    fn on_key(&mut self, key: Key) -> Option<Ending> {
        match key {
            Key::Quit => return Some(Ending::Done),
            Key::Interrupt => return Some(Ending::Signal(130)),
            Key::Pause => {
                self.view.paused = !self.view.paused;
                self.frozen = self.view.paused.then(|| self.current().clone());
            }
            Key::AddHandler => self.add_simulated_handler(),
            Key::RemoveHandler => self.remove_last_handler(),
            Key::Events => self.view.show_events = !self.view.show_events,
            Key::Up => self.view.scroll = self.view.scroll.saturating_sub(1),
            Key::NextResource => {
                self.selected = (self.selected + 1) % self.views.len().max(1);
                self.view.scroll = 0;
                if self.view.paused {
                    self.frozen = Some(self.current().clone());
                }
            }
            Key::Down => {
                let last = self.current().lanes.len().saturating_sub(1);
                self.view.scroll = (self.view.scroll + 1).min(last);
            }
        }
        None
    }

    /// `a`: a handler `sim-N` joins the running informer (it first gets an add per cached
    /// object, Rule P3).
    fn add_simulated_handler(&mut self) {
        let name = loop {
            self.added += 1;
            let name = format!("sim-{}", self.added);
            if self.current().lane(&name).is_none() {
                break name;
            }
        };
        let spec = HandlerSpec {
            resync: Some(self.default_resync),
            delay: SIMULATED_DELAY,
            ..HandlerSpec::named(&name)
        };
        self.add_handler(&spec);
    }

    fn add_handler(&mut self, spec: &HandlerSpec) {
        self.view.message = Some(match self.session.add_handler(spec) {
            Ok(()) => format!("added handler {}", spec.name),
            Err(e) => format!("cannot add handler {}: {e}", spec.name),
        });
    }

    /// `r`: the most recently added handler is removed (its pending notifications dropped).
    fn remove_last_handler(&mut self) {
        let last = self.session.newest_handler().map(str::to_owned);
        self.view.message = Some(match last {
            Some(name) => self.remove_handler(&name),
            None => "no handler to remove".to_owned(),
        });
    }

    fn remove_handler(&mut self, name: &str) -> String {
        if self.session.remove_handler(name) {
            format!("removed handler {name}")
        } else {
            format!("no handler {name} to remove")
        }
    }

    /// A scenario's handler step; its `end` leaves the view up (q quits).
    fn carry_out(&mut self, action: InspectorAction) {
        match action {
            InspectorAction::AddHandler(spec) => self.add_handler(&spec),
            InspectorAction::RemoveHandler(name) => {
                self.view.message = Some(self.remove_handler(&name));
            }
            InspectorAction::End => {
                self.view.message = Some("scenario ended (q quits)".to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
        key_of(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn the_documented_keys_do_what_the_help_says() {
        let none = KeyModifiers::NONE;
        assert_eq!(press(KeyCode::Char('q'), none), Some(Key::Quit));
        assert_eq!(press(KeyCode::Esc, none), Some(Key::Quit));
        assert_eq!(
            press(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::Interrupt)
        );
        assert_eq!(press(KeyCode::Char('c'), none), None);
        assert_eq!(press(KeyCode::Char('p'), none), Some(Key::Pause));
        assert_eq!(press(KeyCode::Char('a'), none), Some(Key::AddHandler));
        assert_eq!(press(KeyCode::Char('r'), none), Some(Key::RemoveHandler));
        assert_eq!(press(KeyCode::Char('e'), none), Some(Key::Events));
        assert_eq!(press(KeyCode::Down, none), Some(Key::Down));
        assert_eq!(press(KeyCode::Up, none), Some(Key::Up));
        assert_eq!(press(KeyCode::Tab, none), Some(Key::NextResource));
        let mut release = KeyEvent::new(KeyCode::Char('q'), none);
        release.kind = KeyEventKind::Release;
        assert_eq!(key_of(release), None, "a key release is no second press");
    }
}
