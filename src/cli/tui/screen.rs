//! The terminal `kinformer top` draws on: raw mode and the alternate screen for as long as a
//! [`Screen`] lives, keys read on a thread of their own, and the terminal given back on every
//! way out — drop (quit, error, signal) and panic.
//!
//! Panics: one on the view's own thread restores the terminal before its message prints. A
//! panic elsewhere (a simulated handler's `panic-every` under `--on-panic skip`, caught by
//! its listener) would scribble over the view, so its message is kept and printed on stderr
//! once the terminal is back.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{JoinHandle, ThreadId};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event as TermEvent, KeyEvent};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};
use tokio::sync::mpsc;

use super::model::Model;
use super::render::{ViewState, render};

/// How long the key thread waits for input before it checks whether to stop.
const KEY_POLL: Duration = Duration::from_millis(50);

type PanicHook = dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync + 'static;

/// The terminal, taken.
pub struct Screen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    keys: mpsc::UnboundedReceiver<io::Result<KeyEvent>>,
    stop_keys: Arc<AtomicBool>,
    key_thread: Option<JoinHandle<()>>,
    previous_hook: Arc<PanicHook>,
    /// Panic messages from other threads, printed once the terminal is back.
    deferred: Arc<Mutex<Vec<String>>>,
}

impl Screen {
    /// Raw mode, alternate screen, hidden cursor; the key thread starts.
    pub fn enter() -> io::Result<Self> {
        let (previous_hook, deferred) = install_panic_hook();
        let screen = Self::take_terminal(previous_hook.clone(), deferred.clone());
        if screen.is_err() {
            give_back_terminal();
            restore_hook(previous_hook);
        }
        screen
    }

    fn take_terminal(
        previous_hook: Arc<PanicHook>,
        deferred: Arc<Mutex<Vec<String>>>,
    ) -> io::Result<Self> {
        enable_raw_mode()?;
        execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)?;
        let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        let (tx, keys) = mpsc::unbounded_channel();
        let stop_keys = Arc::new(AtomicBool::new(false));
        let key_thread = {
            let stop = stop_keys.clone();
            std::thread::Builder::new()
                .name("top-keys".into())
                .spawn(move || read_keys(&tx, &stop))?
        };
        Ok(Self {
            terminal,
            keys,
            stop_keys,
            key_thread: Some(key_thread),
            previous_hook,
            deferred,
        })
    }

    /// The next key pressed; an error when the terminal cannot be read.
    pub async fn next_key(&mut self) -> io::Result<KeyEvent> {
        match self.keys.recv().await {
            Some(key) => key,
            None => std::future::pending().await,
        }
    }

    /// Draws `model` (resizing to the terminal first).
    pub fn draw(&mut self, model: &Model, view: &ViewState) -> io::Result<()> {
        self.terminal.draw(|frame| render(frame, model, view))?;
        Ok(())
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.stop_keys.store(true, Ordering::Release);
        if let Some(thread) = self.key_thread.take() {
            let _ = thread.join();
        }
        give_back_terminal();
        restore_hook(self.previous_hook.clone());
        let deferred = std::mem::take(&mut *lock(&self.deferred));
        for message in deferred {
            eprintln!("{message}");
        }
    }
}

/// Forwards key presses until `stop` (other terminal events need nothing: a resize is picked
/// up by the next draw).
fn read_keys(tx: &mpsc::UnboundedSender<io::Result<KeyEvent>>, stop: &AtomicBool) {
    while !stop.load(Ordering::Acquire) {
        let key = match event::poll(KEY_POLL) {
            Ok(false) => continue,
            Ok(true) => match event::read() {
                Ok(TermEvent::Key(key)) => Ok(key),
                Ok(_) => continue,
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        let failed = key.is_err();
        if tx.send(key).is_err() || failed {
            return;
        }
    }
}

/// Leaves raw mode and the alternate screen and shows the cursor; harmless when repeated.
fn give_back_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
}

/// Installs the view's panic hook; returns the hook it replaced and the deferred messages.
fn install_panic_hook() -> (Arc<PanicHook>, Arc<Mutex<Vec<String>>>) {
    let previous: Arc<PanicHook> = Arc::from(std::panic::take_hook());
    let deferred = Arc::new(Mutex::new(Vec::new()));
    let view_thread = std::thread::current().id();
    let hook = {
        let previous = previous.clone();
        let deferred = deferred.clone();
        move |info: &std::panic::PanicHookInfo<'_>| {
            on_panic(info, view_thread, previous.as_ref(), &deferred);
        }
    };
    std::panic::set_hook(Box::new(hook));
    (previous, deferred)
}

fn on_panic(
    info: &std::panic::PanicHookInfo<'_>,
    view_thread: ThreadId,
    previous: &PanicHook,
    deferred: &Mutex<Vec<String>>,
) {
    if std::thread::current().id() == view_thread {
        give_back_terminal();
        previous(info);
    } else {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        lock(deferred).push(format!("thread '{name}' {info}"));
    }
}

fn restore_hook(previous: Arc<PanicHook>) {
    std::panic::set_hook(Box::new(move |info| previous(info)));
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
