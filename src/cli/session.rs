//! One inspection session: one informer per resource through a SharedInformerFactory, each
//! with kinformer's simulated handlers, one trace stream for all of them, the stop token, and
//! how an informer ended when it ended by itself. The subcommands differ only in what they do
//! with the stream.
//!
//! The informer never gives up (Rule R8); the session stops in two cases only, told by an
//! informer's typed outcome, never by trace lines: the very first LIST of any resource was
//! refused or answered garbage (kubectl-like), or a handler panicked under `--on-panic crash`.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::args::HandlerSpec;
use crate::informer::factory::{InformerFactory, OnInformerError};
use crate::informer::processor::{HandlerPanic, Listener, SimulatedHandler};
use crate::informer::reflector::{ReflectorError, WatchErrorHandler};
use crate::informer::shared_informer::{
    InformerConfig, InformerError, Registration, SharedIndexInformer, StopReason,
};
use crate::informer::source::ListerWatcher;
use crate::informer::source::SourceError;
use crate::informer::store::IndexFunc;
use crate::informer::trace::{Event, StageSet, Summary, TraceClock, TraceEvent, Tracer};

/// One resource to inform on: its trace label (`pods`, `deployments.apps`) and its source.
pub struct ResourcePlan {
    pub resource: String,
    pub source: Arc<dyn ListerWatcher>,
    /// When its informer starts (None: at once): a replayed stream starts when its first
    /// request was recorded.
    pub starts_at: Option<tokio::time::Instant>,
    /// Its informer's configuration (None: the plan's): a proxy recording's streams each
    /// list as their client did.
    pub informer: Option<InformerConfig>,
}

/// Everything needed to start a session.
pub struct SessionPlan {
    /// At least one, each once.
    pub resources: Vec<ResourcePlan>,
    pub informer: InformerConfig,
    pub indexers: Vec<(String, IndexFunc)>,
    pub handlers: Vec<HandlerSpec>,
    pub shown: StageSet,
    /// Where trace timestamps come from (None: the wall clock).
    pub clock: Option<TraceClock>,
}

/// Why a session's informer ended by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionFailure {
    /// The very first LIST of `resource` was refused (400, 401, 403, 404) or could not be
    /// understood.
    InitialList {
        resource: String,
        error: ReflectorError,
    },
    /// A handler of `resource`'s informer panicked under `--on-panic crash`.
    Panicked {
        resource: String,
        panic: HandlerPanic,
    },
}

impl SessionFailure {
    /// The `informer stopped` reason.
    pub fn reason(&self) -> String {
        match self {
            Self::InitialList { resource, .. } => {
                format!("the first LIST of {resource} was refused")
            }
            Self::Panicked { resource, panic } => {
                format!("handler {:?} of {resource} panicked", panic.handler)
            }
        }
    }
}

/// Running informers whose trace events arrive on `events`.
pub struct Session {
    factory: InformerFactory,
    /// Each handler's registration, with the index of its informer.
    registrations: Vec<(usize, Registration)>,
    pub events: mpsc::UnboundedReceiver<TraceEvent>,
    pub stop: CancellationToken,
    /// Why the informers were stopped (every informer's `stopped` line says it).
    stop_reason: StopReason,
    /// Set once an informer ended by itself.
    pub failure: watch::Receiver<Option<SessionFailure>>,
}

impl Session {
    /// Builds one informer per resource, registers the handlers with each and starts them.
    pub fn start(plan: SessionPlan) -> Result<Self, InformerError> {
        let (tx, events) = mpsc::unbounded_channel();
        let tracer = match plan.clock {
            Some(clock) => Tracer::with_clock(tx, plan.shown, clock),
            None => Tracer::new(tx, plan.shown),
        };
        let factory = InformerFactory::new(tracer);
        let stop = CancellationToken::new();
        let stop_reason = StopReason::default();
        let failed = Arc::new(watch::Sender::new(None));
        let mut registrations = Vec::new();
        for (i, resource) in plan.resources.into_iter().enumerate() {
            let mut config = resource.informer.unwrap_or_else(|| plan.informer.clone());
            config.stop_reason = stop_reason.clone();
            config.watch_error_handler = Some(stop_on_initial_refusal(
                config.watch_error_handler.take(),
                &resource.resource,
                failed.clone(),
                (stop.clone(), stop_reason.clone()),
            ));
            let informer = factory.informer_for(&resource.resource, |tracer| {
                SharedIndexInformer::new(resource.source, config, tracer)
            });
            if let Some(at) = resource.starts_at {
                factory.start_at(&resource.resource, at);
            }
            for (name, func) in &plan.indexers {
                informer.add_indexer(name, func.clone())?;
            }
            for handler in &plan.handlers {
                registrations.push((i, register(&informer, handler, &stop)?));
            }
        }
        let failure = failed.subscribe();
        let on_error: OnInformerError = Arc::new(move |resource: &str, e: &InformerError| {
            if let InformerError::HandlerPanicked(panic) = e {
                failed.send_replace(Some(SessionFailure::Panicked {
                    resource: resource.to_owned(),
                    panic: panic.clone(),
                }));
            }
        });
        factory.start(&stop, &on_error);
        Ok(Self {
            factory,
            registrations,
            events,
            stop,
            stop_reason,
            failure,
        })
    }

    /// The tracer every informer of the session reports through.
    pub fn tracer(&self) -> Tracer {
        self.factory.tracer().clone()
    }

    /// Every informer with its resource, in the order the resources were given.
    pub fn informers(&self) -> Vec<(String, SharedIndexInformer)> {
        self.factory.informers()
    }

    /// How many informers the session runs.
    pub fn resource_count(&self) -> usize {
        self.factory.informers().len()
    }

    /// Every handler's listener, informer by informer.
    pub fn listeners(&self) -> Vec<Arc<Listener>> {
        self.informers()
            .iter()
            .flat_map(|(_, informer)| informer.listeners())
            .collect()
    }

    /// Adds a handler to every informer while they run (a late handler, Rule P3).
    pub fn add_handler(&mut self, plan: &HandlerSpec) -> Result<(), InformerError> {
        for (i, (_, informer)) in self.informers().iter().enumerate() {
            let registration = register(informer, plan, &self.stop)?;
            self.registrations.push((i, registration));
        }
        Ok(())
    }

    /// The name of the handler registered last (late ones included).
    pub fn newest_handler(&self) -> Option<&str> {
        self.registrations.last().map(|(_, r)| r.name())
    }

    /// Removes the handlers called `name`; false when there is none.
    pub fn remove_handler(&mut self, name: &str) -> bool {
        let informers = self.informers();
        let (gone, kept) = std::mem::take(&mut self.registrations)
            .into_iter()
            .partition::<Vec<_>, _>(|(_, r)| r.name() == name);
        self.registrations = kept;
        let mut removed = false;
        for (i, registration) in gone {
            removed |= informers[i].1.remove_handler_as_released(&registration);
        }
        removed
    }

    /// Stops the informers because of `reason` (unless one stopped itself first, with its own
    /// reason) and emits the exit summary as the stream's last event; returns the summary and
    /// the stream to drain up to it.
    pub async fn stop(self, reason: &str) -> (Summary, mpsc::UnboundedReceiver<TraceEvent>) {
        self.stop_reason.set(reason);
        self.stop.cancel();
        self.factory.shutdown().await;
        let informers = self.informers();
        let several = informers.len() > 1;
        let summaries = informers
            .iter()
            .map(|(resource, i)| named_indices(i.summary(), several.then_some(resource)))
            .collect();
        let summary = Summary {
            stop_reason: reason.to_owned(),
            ..merged(summaries)
        };
        self.factory
            .tracer()
            .emit(Event::Summary(Box::new(summary.clone())));
        (summary, self.events)
    }
}

/// `summary` with its indices named `resource/index` when `resource` is given (a run of
/// several resources).
fn named_indices(mut summary: Summary, resource: Option<&String>) -> Summary {
    if let Some(resource) = resource {
        for (name, _) in &mut summary.indices {
            *name = format!("{resource}/{name}");
        }
    }
    summary
}

/// One summary for several informers: counts added up, every resource×handler, the longest
/// duration.
fn merged(summaries: Vec<Summary>) -> Summary {
    let mut total = Summary::default();
    for summary in summaries {
        for (name, n) in summary.counts {
            *total.counts.entry(name).or_default() += n;
        }
        total.handlers.extend(summary.handlers);
        total.metrics.extend(summary.metrics);
        total.indices.extend(summary.indices);
        total.duration = total.duration.max(summary.duration);
    }
    total
}

/// Resolves with the reason once an informer ended by itself (never otherwise).
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
/// LIST of `resource` was refused or answered garbage: what `kubectl get` would exit on.
/// Later failures are the informer's to retry (Rule R8).
fn stop_on_initial_refusal(
    inner: Option<WatchErrorHandler>,
    resource: &str,
    failed: Arc<watch::Sender<Option<SessionFailure>>>,
    (stop, reason): (CancellationToken, StopReason),
) -> WatchErrorHandler {
    let resource = resource.to_owned();
    Arc::new(move |e: &ReflectorError| {
        if let Some(inner) = &inner {
            inner(e);
        }
        let refused = e
            .source_error()
            .is_none_or(|s| s.is_refusal() || matches!(s, SourceError::Decode(_)));
        if e.is_initial_list() && refused {
            let failure = SessionFailure::InitialList {
                resource: resource.clone(),
                error: e.clone(),
            };
            reason.set(failure.reason());
            failed.send_if_modified(|f| {
                let first = f.is_none();
                if first {
                    *f = Some(failure.clone());
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
