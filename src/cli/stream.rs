//! The live loop of `watch`, `resync` and `demo`: render a session's trace events as they
//! arrive until a stop condition (count, timeout, synced, signal, closed pipe), then stop the
//! informer and print the exit summary.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::informer::reflector::ReflectorError;
use crate::informer::source::SourceError;
use crate::informer::trace::{Event, Summary, TraceEvent, Tracer};
use crate::output::EventRenderer;
use crate::scenario::InspectorAction;

use super::exit::CliError;
use super::session::{Session, SessionFailure};

/// How long a rendered line may wait for the lines after it before it is written: output stays
/// live (a person cannot see 2 ms) while a burst of events costs one write, not one per line.
const LINGER: Duration = Duration::from_millis(2);

/// stdout's buffer: a write per 64 KiB in a burst (or per [`LINGER`] when slower).
pub const STDOUT_BUFFER: usize = 64 * 1024;

/// Events taken from the trace channel at once.
const BATCH: usize = 256;

/// How many events may wait for stdout before a person is told, once, that they pile up in
/// memory (the trace never drops an event: observing never changes the pipeline).
const BACKLOG_WARNING: u64 = 50_000;

/// How often the backlog is looked at.
const BACKLOG_CHECK: Duration = Duration::from_secs(1);

/// When the live loop ends on its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct StopWhen {
    /// After this many notifications (`--count`: handler `notify` events, shown or not; the
    /// informer must deliver the handler stage).
    pub count: Option<u64>,
    /// After this long (`--timeout`, `--duration`).
    pub timeout: Option<Duration>,
    /// Once the informer synced (`--until-synced`).
    pub until_synced: bool,
    /// What an `End` action means, for the stop reason (default: a scenario's end step).
    pub end_action: Option<&'static str>,
}

/// The `informer stopped` reason for a signal's exit code.
pub fn signal_reason(code: i32) -> &'static str {
    match code {
        130 => "interrupted (SIGINT)",
        _ => "terminated (SIGTERM)",
    }
}

/// How the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The informer ended by itself: its first LIST was refused, or a handler panicked.
    Failed(SessionFailure),
    /// A stop condition was met.
    Done,
    /// SIGINT (130) or SIGTERM (143).
    Signal(i32),
    /// stdout was closed by the reader (`| head`): end quietly with success.
    PipeClosed,
}

/// Watches for SIGINT and SIGTERM.
pub struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

impl Signals {
    pub fn new() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
        })
    }

    /// The exit code of the next signal: 130 for SIGINT, 143 for SIGTERM.
    pub async fn recv(&mut self) -> i32 {
        tokio::select! {
            _ = self.int.recv() => 130,
            _ = self.term.recv() => 143,
        }
    }
}

/// Renders `session`'s events until a stop condition, then stops it and writes the summary
/// (to stdout in JSONL/JSON/YAML where it is part of the stream, to `summary_out` for tables).
pub async fn run<W: Write>(
    session: Session,
    renderer: &mut EventRenderer<W>,
    summary_out: &mut dyn Write,
    stop_when: StopWhen,
    observe: &mut dyn FnMut(&Event),
    signals: &mut Signals,
) -> io::Result<(Ending, Summary)> {
    let (_keep, mut none) = mpsc::unbounded_channel();
    run_with_actions(
        session,
        renderer,
        summary_out,
        stop_when,
        observe,
        signals,
        &mut none,
    )
    .await
}

/// [`run`], also carrying out a scenario's inspector actions as they arrive (add or remove a
/// handler; `End` stops like a timeout).
pub async fn run_with_actions<W: Write>(
    mut session: Session,
    renderer: &mut EventRenderer<W>,
    summary_out: &mut dyn Write,
    stop_when: StopWhen,
    observe: &mut dyn FnMut(&Event),
    signals: &mut Signals,
    actions: &mut mpsc::UnboundedReceiver<InspectorAction>,
) -> io::Result<(Ending, Summary)> {
    let deadline = stop_when.timeout.map(|t| Instant::now() + t);
    let written = Arc::new(AtomicU64::new(0));
    let watchdog = tokio::spawn(warn_of_backlog(session.tracer(), written.clone()));
    let mut notified = 0u64;
    let mut batch = Vec::with_capacity(BATCH);
    // Events of `batch` handled so far; the rest are printed after the stop if due.
    let mut handled = 0;
    let mut flush_at: Option<Instant> = None;
    let mut failure = session.failure.clone();
    // Synced = every informer synced (client-go's WaitForCacheSync over the factory).
    let mut unsynced = session.resource_count();
    let ended = |ending: Ending| {
        let reason = ending.reason();
        (ending, reason)
    };
    let (ending, reason) = 'stream: loop {
        tokio::select! {
            code = signals.recv() => break ended(Ending::Signal(code)),
            failed = super::session::failure(&mut failure) => break ended(Ending::Failed(failed)),
            _ = sleep_until(deadline) => break (Ending::Done, "timeout reached".to_owned()),
            // Due: the flush below writes what waited.
            _ = sleep_until(flush_at) => {}
            Some(action) = actions.recv() => {
                if !carry_out(&mut session, action) {
                    let reason = stop_when.end_action.unwrap_or("the scenario's end step");
                    break (Ending::Done, reason.to_owned());
                }
                continue;
            }
            received = session.events.recv_many(&mut batch, BATCH) => if received == 0 {
                break ended(Ending::Done);
            },
        }
        handled = 0;
        while let Some(event) = batch.get(handled) {
            handled += 1;
            observe(&event.event);
            if closed_pipe(renderer.render(event))? {
                break 'stream ended(Ending::PipeClosed);
            }
            written.store(event.seq, Ordering::Relaxed);
            notified += u64::from(matches!(event.event, Event::Notify { .. }));
            let synced = matches!(event.event, Event::Synced { .. }) && {
                unsynced = unsynced.saturating_sub(1);
                unsynced == 0
            };
            if synced {
                super::memory::release_free_heap();
            }
            if let Some(n) = stop_when.count.filter(|n| notified >= *n) {
                break 'stream (Ending::Done, format!("count of {n} notifications reached"));
            }
            if stop_when.until_synced && synced {
                break 'stream (Ending::Done, "synced (--until-synced)".to_owned());
            }
        }
        batch.clear();
        // A line waits at most LINGER for the lines after it: one write per burst.
        let now = Instant::now();
        let due = *flush_at.get_or_insert(now + LINGER);
        if now >= due {
            if closed_pipe(renderer.flush_idle())? {
                break ended(Ending::PipeClosed);
            }
            // The table's story view may hold a burst a moment longer.
            flush_at = renderer.held_until().map(Instant::from_std);
        }
    };
    watchdog.abort();
    // The line that ended the stream is visible before the informer stops.
    closed_pipe(renderer.flush())?;
    // Events emitted after a count was reached are not printed but the `stopped` lines; after
    // a timeout or signal everything up to the summary is, so the summary's counts match the
    // lines.
    let print_rest = stop_when.count.is_none()
        && matches!(ending, Ending::Done | Ending::Signal(_) | Ending::Failed(_));
    let (summary, mut rest) = session.stop(&reason).await;
    let unprinted = batch.into_iter().skip(handled).filter(|_| print_rest);
    for event in unprinted.chain(std::iter::from_fn(|| rest.try_recv().ok())) {
        let is_summary = matches!(event.event, Event::Summary(_));
        if is_summary {
            finish(renderer, summary_out, &event, &ending)?;
            break;
        }
        let stopped = matches!(event.event, Event::Stopped { .. });
        let print = print_rest || (stopped && ending != Ending::PipeClosed);
        if print && closed_pipe(renderer.render(&event))? {
            return Ok((Ending::PipeClosed, summary));
        }
    }
    Ok((ending, summary))
}

/// Says once on stderr when more than [`BACKLOG_WARNING`] events wait for stdout (its reader
/// is slower than the informer; the backlog grows in memory).
async fn warn_of_backlog(tracer: Tracer, written: Arc<AtomicU64>) {
    loop {
        tokio::time::sleep(BACKLOG_CHECK).await;
        let behind = tracer
            .last_seq()
            .saturating_sub(written.load(Ordering::Relaxed));
        if behind >= BACKLOG_WARNING {
            eprintln!(
                "warning: stdout is read slower than events arrive: {behind} events wait in memory (none is dropped); narrow --show or read faster"
            );
            return;
        }
    }
}

/// Whether a write failed because the reader closed stdout (a quiet end); other errors stay.
fn closed_pipe(written: io::Result<()>) -> io::Result<bool> {
    match written {
        Ok(()) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(true),
        Err(e) => Err(e),
    }
}

/// Carries out one inspector action; false for `End`.
fn carry_out(session: &mut Session, action: InspectorAction) -> bool {
    match action {
        InspectorAction::AddHandler(spec) => {
            if let Err(e) = session.add_handler(&spec) {
                eprintln!("warning: scenario: cannot add handler {}: {e}", spec.name);
            }
        }
        InspectorAction::RemoveHandler(name) => {
            if !session.remove_handler(&name) {
                eprintln!("warning: scenario: no handler {name} to remove");
            }
        }
        InspectorAction::End => return false,
    }
    true
}

/// Writes the summary: into the stream for machine formats, as tables on `summary_out` for
/// people — but for a first LIST that was refused, where nothing ran and the one `error:` line
/// says all there is (kubectl prints nothing else either). A closed pipe is not an error here
/// either.
fn finish<W: Write>(
    renderer: &mut EventRenderer<W>,
    summary_out: &mut dyn Write,
    event: &TraceEvent,
    ending: &Ending,
) -> io::Result<()> {
    if matches!(ending, Ending::PipeClosed) {
        return Ok(());
    }
    if ending.refused_first_list() && renderer.options().format.is_table() {
        return closed_pipe(renderer.flush()).map(drop);
    }
    let written = renderer
        .flush()
        .and_then(|()| write_summary(renderer, summary_out, event));
    closed_pipe(written).map(drop)
}

/// The summary: tables on `summary_out` for people, the stream's last line otherwise.
fn write_summary<W: Write>(
    renderer: &mut EventRenderer<W>,
    summary_out: &mut dyn Write,
    event: &TraceEvent,
) -> io::Result<()> {
    if renderer.options().format.is_table() {
        renderer.tap(event);
        let Event::Summary(summary) = &event.event else {
            return Ok(());
        };
        let mut buf = Vec::new();
        let shown = renderer.options().shown_summary(summary);
        crate::output::summary::write_tables(&mut buf, &shown)?;
        summary_out.write_all(&buf)
    } else {
        renderer.render(event).and_then(|()| renderer.flush())
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Ending {
    /// The `informer stopped` reason of an ending that is not a stop condition (a signal, a
    /// failure, a closed stdout); `Done` is "every informer ended".
    pub fn reason(&self) -> String {
        match self {
            Ending::Signal(code) => signal_reason(*code).to_owned(),
            Ending::Failed(failure) => failure.reason(),
            Ending::PipeClosed => "stdout closed".to_owned(),
            Ending::Done => "every informer ended".to_owned(),
        }
    }

    /// Whether the session ended because its first LIST was refused (nothing ran).
    pub fn refused_first_list(&self) -> bool {
        matches!(self, Ending::Failed(SessionFailure::InitialList { .. }))
    }

    /// The process exit code, or the error to report, for a session that ended this way.
    pub fn into_exit(self) -> Result<i32, CliError> {
        match self {
            Ending::Done | Ending::PipeClosed => Ok(0),
            Ending::Signal(code) => Ok(code),
            Ending::Failed(SessionFailure::Panicked { resource, panic }) => {
                Err(CliError::HandlerPanicked { resource, panic })
            }
            Ending::Failed(SessionFailure::InitialList { resource, error }) => {
                Err(initial_list_error(&error, &resource))
            }
        }
    }
}

/// The one-line error for a first LIST that was refused or not understood.
fn initial_list_error(e: &ReflectorError, resource: &str) -> CliError {
    match e.source_error() {
        // A 401 names the request too ("list pods: Unauthorized").
        Some(SourceError::Api(status)) if status.code == Some(401) => {
            CliError::Unauthorized(format!("list {resource}: {}", status.message))
        }
        Some(SourceError::Api(status)) => match status.code {
            Some(code) => CliError::from_status(code, "list", resource, &status.message),
            None => CliError::List {
                resource: resource.to_owned(),
                source: e.clone(),
            },
        },
        _ => CliError::List {
            resource: resource.to_owned(),
            source: e.clone(),
        },
    }
}
