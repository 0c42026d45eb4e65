//! One inspection session: an informer with kinformer's simulated handlers, its trace stream,
//! the stop token, and how the informer ended when it ended by itself. The subcommands differ
//! only in what they do with the stream.
//!
//! The informer never gives up (Rule R8); the session stops it in two cases only, told by the
//! informer's typed outcome, never by trace lines: its very first LIST was refused or
//! answered garbage (kubectl-like), or a handler panicked under `--on-panic crash`.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::args::HandlerSpec;
use crate::informer::processor::{HandlerPanic, SimulatedHandler};
use crate::informer::reflector::{ReflectorError, WatchErrorHandler};
use crate::informer::shared_informer::{
    InformerConfig, InformerError, Registration, SharedIndexInformer,
};
use crate::informer::source::ListerWatcher;
use crate::informer::source::SourceError;
use crate::informer::store::IndexFunc;
use crate::informer::trace::{Event, StageSet, Summary, TraceEvent, Tracer};

/// Everything needed to start a session.
pub struct SessionPlan {
    pub source: Arc<dyn ListerWatcher>,
    pub informer: InformerConfig,
    pub indexers: Vec<(String, IndexFunc)>,
    pub handlers: Vec<HandlerSpec>,
    pub shown: StageSet,
}

/// Why a session's informer ended by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionFailure {
    /// The very first LIST was refused (400, 401, 403, 404) or could not be understood.
    InitialList(ReflectorError),
    /// A handler panicked under `--on-panic crash`.
    Panicked(HandlerPanic),
}

/// A running informer whose trace events arrive on `events`.
pub struct Session {
    pub informer: SharedIndexInformer,
    pub registrations: Vec<Registration>,
    pub events: mpsc::UnboundedReceiver<TraceEvent>,
    pub stop: CancellationToken,
    /// Set once the informer ended by itself.
    pub failure: watch::Receiver<Option<SessionFailure>>,
    task: JoinHandle<()>,
}

impl Session {
    /// Builds the informer, registers the handlers and starts it.
    pub fn start(mut plan: SessionPlan) -> Result<Self, InformerError> {
        let (tx, events) = mpsc::unbounded_channel();
        let tracer = Tracer::new(tx, plan.shown);
        let stop = CancellationToken::new();
        let failed = Arc::new(watch::Sender::new(None));
        plan.informer.watch_error_handler = Some(stop_on_initial_refusal(
            plan.informer.watch_error_handler.take(),
            failed.clone(),
            stop.clone(),
        ));
        let informer = SharedIndexInformer::new(plan.source, plan.informer, tracer);
        for (name, func) in plan.indexers {
            informer.add_indexer(&name, func)?;
        }
        let registrations = plan
            .handlers
            .iter()
            .map(|h| register(&informer, h, &stop))
            .collect::<Result<Vec<_>, _>>()?;
        let failure = failed.subscribe();
        let task = {
            let informer = informer.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                if let Err(InformerError::HandlerPanicked(panic)) = informer.run(stop).await {
                    failed.send_replace(Some(SessionFailure::Panicked(panic)));
                }
            })
        };
        Ok(Self {
            informer,
            registrations,
            events,
            stop,
            failure,
            task,
        })
    }

    /// Adds a handler while the informer runs (a late handler, Rule P3).
    pub fn add_handler(&mut self, plan: &HandlerSpec) -> Result<(), InformerError> {
        let registration = register(&self.informer, plan, &self.stop)?;
        self.registrations.push(registration);
        Ok(())
    }

    /// Removes the handler called `name`; false when there is none.
    pub fn remove_handler(&mut self, name: &str) -> bool {
        let Some(pos) = self.registrations.iter().position(|r| r.name() == name) else {
            return false;
        };
        let registration = self.registrations.remove(pos);
        self.informer.remove_event_handler(&registration)
    }

    /// Stops the informer and emits the exit summary as the stream's last event; returns the
    /// summary and the stream to drain up to it.
    pub async fn stop(self) -> (Summary, mpsc::UnboundedReceiver<TraceEvent>) {
        self.stop.cancel();
        let _ = self.task.await;
        let summary = self.informer.summary();
        self.informer
            .tracer()
            .emit(Event::Summary(Box::new(summary.clone())));
        (summary, self.events)
    }
}

/// Resolves with the reason once the informer ended by itself (never otherwise).
pub async fn failure(rx: &mut watch::Receiver<Option<SessionFailure>>) -> SessionFailure {
    let failed = rx
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|f| f.clone());
    match failed {
        Some(failure) => failure,
        None => std::future::pending().await,
    }
}

/// A WatchErrorHandler that, after telling `inner`, stops the session when the very first
/// LIST was refused or answered garbage: what `kubectl get` would exit on. Later failures
/// are the informer's to retry (Rule R8).
fn stop_on_initial_refusal(
    inner: Option<WatchErrorHandler>,
    failed: Arc<watch::Sender<Option<SessionFailure>>>,
    stop: CancellationToken,
) -> WatchErrorHandler {
    Arc::new(move |e: &ReflectorError| {
        if let Some(inner) = &inner {
            inner(e);
        }
        let refused = e
            .source_error()
            .is_none_or(|s| s.is_refusal() || matches!(s, SourceError::Decode(_)));
        if e.is_initial_list() && refused {
            failed.send_if_modified(|f| {
                let first = f.is_none();
                if first {
                    *f = Some(SessionFailure::InitialList(e.clone()));
                }
                first
            });
            stop.cancel();
        }
    })
}

fn register(
    informer: &SharedIndexInformer,
    plan: &HandlerSpec,
    stop: &CancellationToken,
) -> Result<Registration, InformerError> {
    let handler = Arc::new(
        SimulatedHandler::new(plan.delay)
            .panic_every(plan.panic_every)
            .stopped_by(stop.clone()),
    );
    match plan.resync {
        Some(period) => informer.add_event_handler_with_resync(&plan.name, handler, period),
        None => informer.add_event_handler(&plan.name, handler),
    }
}
