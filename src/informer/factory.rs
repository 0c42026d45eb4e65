//! SharedInformerFactory: one informer per resource, shared by every handler of that
//! resource, started together and waited on together (client-go's `WaitForCacheSync`).
//!
//! Every informer reports through its own [`Tracer::for_resource`] of the factory's tracer:
//! one trace stream with one `seq`, each event naming its resource, each informer counting
//! its own events.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::shared_informer::{InformerError, SharedIndexInformer};
use super::trace::Tracer;

/// Told when a started informer returned an error by itself (a handler panic under
/// `PanicPolicy::Crash`): the informer's resource and the error.
pub type OnInformerError = Arc<dyn Fn(&str, &InformerError) + Send + Sync>;

/// Runs several resources' informers in one process.
pub struct InformerFactory {
    tracer: Tracer,
    /// In order of creation.
    informers: Mutex<Vec<Entry>>,
}

struct Entry {
    resource: String,
    informer: SharedIndexInformer,
    task: Option<JoinHandle<Result<(), InformerError>>>,
    /// Started at this instant rather than at once (a replay's stream that began late).
    starts_at: Option<Instant>,
}

impl InformerFactory {
    /// Every informer reports through a resource-labelled tracer of `tracer`.
    pub fn new(tracer: Tracer) -> Self {
        Self {
            tracer,
            informers: Mutex::new(Vec::new()),
        }
    }

    /// The factory's own tracer (events of no one resource, such as the exit summary).
    pub fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    /// The informer for `resource`, built by `new` (given the resource's tracer) the first
    /// time `resource` is asked for (client-go's `InformerFor`).
    pub fn informer_for(
        &self,
        resource: &str,
        new: impl FnOnce(Tracer) -> SharedIndexInformer,
    ) -> SharedIndexInformer {
        let mut informers = self.lock();
        if let Some(entry) = informers.iter().find(|e| e.resource == resource) {
            return entry.informer.clone();
        }
        let informer = new(self.tracer.for_resource(resource));
        informers.push(Entry {
            resource: resource.to_owned(),
            informer: informer.clone(),
            task: None,
            starts_at: None,
        });
        informer
    }

    /// Every informer with its resource, in order of creation.
    pub fn informers(&self) -> Vec<(String, SharedIndexInformer)> {
        self.lock()
            .iter()
            .map(|e| (e.resource.clone(), e.informer.clone()))
            .collect()
    }

    /// Starts every informer not yet started; `on_error` hears of any that ends by itself
    /// with an error.
    pub fn start(&self, stop: &CancellationToken, on_error: &OnInformerError) {
        for entry in self.lock().iter_mut() {
            if entry.task.is_none() {
                let (informer, stop) = (entry.informer.clone(), stop.clone());
                let (resource, on_error) = (entry.resource.clone(), Arc::clone(on_error));
                let starts_at = entry.starts_at;
                entry.task = Some(tokio::spawn(async move {
                    if let Some(at) = starts_at {
                        tokio::select! {
                            () = tokio::time::sleep_until(at) => {}
                            () = stop.cancelled() => return Ok(()),
                        }
                    }
                    let result = informer.run(stop).await;
                    if let Err(e) = &result {
                        on_error(&resource, e);
                    }
                    result
                }));
            }
        }
    }

    /// `resource`'s informer, not started yet, starts at `at` instead of at once (a replayed
    /// stream whose first request came after the recording began).
    pub fn start_at(&self, resource: &str, at: Instant) {
        if let Some(entry) = self.lock().iter_mut().find(|e| e.resource == resource) {
            entry.starts_at = Some(at);
        }
    }

    /// Waits until every informer synced; false if `stop` fired first.
    pub async fn wait_for_cache_sync(&self, stop: &CancellationToken) -> bool {
        for (_, informer) in self.informers() {
            if !informer.wait_for_sync(stop).await {
                return false;
            }
        }
        true
    }

    /// Waits for every started informer to return after `stop` was cancelled; the errors
    /// they ended with (a handler panic under `PanicPolicy::Crash`).
    pub async fn shutdown(&self) -> Vec<InformerError> {
        let tasks: Vec<JoinHandle<Result<(), InformerError>>> = self
            .lock()
            .iter_mut()
            .filter_map(|e| e.task.take())
            .collect();
        let mut errors = Vec::new();
        for task in tasks {
            if let Ok(Err(e)) = task.await {
                errors.push(e);
            }
        }
        errors
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.informers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::shared_informer::InformerConfig;
    use crate::informer::testing::{MemorySink, MemorySource};
    use crate::informer::trace::{Event, StageSet};

    #[tokio::test(start_paused = true)]
    async fn one_informer_per_resource_shared_by_handlers_and_synced_together() {
        let sink = MemorySink::new();
        let factory = InformerFactory::new(Tracer::new(sink.clone(), StageSet::minimal()));
        let new = |source: Arc<MemorySource>| {
            move |tracer| SharedIndexInformer::new(source, InformerConfig::default(), tracer)
        };
        let pods = Arc::new(MemorySource::new());
        pods.apply(serde_json::json!({"metadata": {"name": "p", "namespace": "ns"}}));
        let nodes = Arc::new(MemorySource::new());
        nodes.apply(serde_json::json!({"metadata": {"name": "n1"}}));
        let a = factory.informer_for("pods", new(pods.clone()));
        let b = factory.informer_for("pods", |_| unreachable!("already created"));
        let n = factory.informer_for("nodes", new(nodes));
        assert!(a.indexer().is_same(&b.indexer()));
        let stop = CancellationToken::new();
        factory.start(
            &stop,
            &(Arc::new(|_: &str, _: &InformerError| {}) as OnInformerError),
        );
        assert!(factory.wait_for_cache_sync(&stop).await);
        assert_eq!(a.indexer().list_keys(), ["ns/p"]);
        assert_eq!(n.indexer().list_keys(), ["n1"]);
        stop.cancel();
        factory.shutdown().await;
        let synced: Vec<Option<String>> = sink
            .events()
            .iter()
            .filter(|e| matches!(e.event, Event::Synced { .. }))
            .map(|e| e.resource.as_deref().map(str::to_owned))
            .collect();
        assert_eq!(synced.len(), 2, "one synced line per informer");
        assert!(synced.contains(&Some("pods".into())) && synced.contains(&Some("nodes".into())));
        assert_eq!(
            a.tracer().count_of("informer/synced"),
            1,
            "counts are per informer"
        );
    }
}
