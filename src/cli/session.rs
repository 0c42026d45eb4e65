//! One inspection session: an informer with kinformer's simulated handlers, its trace stream,
//! and the stop token. The subcommands differ only in what they do with the stream.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::args::HandlerSpec;
use crate::informer::processor::SimulatedHandler;
use crate::informer::shared_informer::{
    InformerConfig, InformerError, Registration, SharedIndexInformer,
};
use crate::informer::source::ListerWatcher;
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

/// A running informer whose trace events arrive on `events`.
pub struct Session {
    pub informer: SharedIndexInformer,
    pub registrations: Vec<Registration>,
    pub events: mpsc::UnboundedReceiver<TraceEvent>,
    pub stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Session {
    /// Builds the informer, registers the handlers and starts it.
    pub fn start(plan: SessionPlan) -> Result<Self, InformerError> {
        let (tx, events) = mpsc::unbounded_channel();
        let tracer = Tracer::new(tx, plan.shown);
        let informer = SharedIndexInformer::new(plan.source, plan.informer, tracer);
        for (name, func) in plan.indexers {
            informer.add_indexer(&name, func)?;
        }
        let registrations = plan
            .handlers
            .iter()
            .map(|h| register(&informer, h))
            .collect::<Result<Vec<_>, _>>()?;
        let stop = CancellationToken::new();
        let task = {
            let informer = informer.clone();
            let stop = stop.clone();
            tokio::spawn(async move { informer.run(stop).await })
        };
        Ok(Self {
            informer,
            registrations,
            events,
            stop,
            task,
        })
    }

    /// Adds a handler while the informer runs (a late handler, Rule P3).
    pub fn add_handler(&mut self, plan: &HandlerSpec) -> Result<(), InformerError> {
        let registration = register(&self.informer, plan)?;
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

fn register(
    informer: &SharedIndexInformer,
    plan: &HandlerSpec,
) -> Result<Registration, InformerError> {
    let handler = Arc::new(SimulatedHandler { delay: plan.delay });
    match plan.resync {
        Some(period) => informer.add_event_handler_with_resync(&plan.name, handler, period),
        None => informer.add_event_handler(&plan.name, handler),
    }
}
