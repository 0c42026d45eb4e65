//! SharedInformerFactory: one informer per resource, shared by every handler of that
//! resource, started together and waited on together (client-go's `WaitForCacheSync`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::shared_informer::{InformerConfig, InformerError, SharedIndexInformer};
use super::source::{KubeSource, KubeTarget, ListerWatcher};
use super::trace::Tracer;

/// Runs several resources' informers in one process.
pub struct InformerFactory {
    config: InformerConfig,
    tracer: Tracer,
    informers: Mutex<BTreeMap<String, Entry>>,
}

struct Entry {
    informer: SharedIndexInformer,
    task: Option<JoinHandle<Result<(), InformerError>>>,
}

impl InformerFactory {
    /// Every informer gets `config` and reports through `tracer`.
    pub fn new(config: InformerConfig, tracer: Tracer) -> Self {
        Self {
            config,
            tracer,
            informers: Mutex::new(BTreeMap::new()),
        }
    }

    /// The informer for `key`, created from `source` the first time `key` is asked for.
    pub fn informer_for(
        &self,
        key: &str,
        source: impl FnOnce() -> Arc<dyn ListerWatcher>,
    ) -> SharedIndexInformer {
        let mut informers = self.lock();
        informers
            .entry(key.to_owned())
            .or_insert_with(|| Entry {
                informer: SharedIndexInformer::new(
                    source(),
                    self.config.clone(),
                    self.tracer.clone(),
                ),
                task: None,
            })
            .informer
            .clone()
    }

    /// The informer for a GVR (plus namespace and selectors) on a kube client.
    pub fn for_target(&self, client: &kube::Client, target: &KubeTarget) -> SharedIndexInformer {
        let key = format!(
            "{}/{}/{} ns={:?} l={:?} f={:?} meta={}",
            target.resource.group,
            target.resource.version,
            target.resource.plural,
            target.namespace,
            target.label_selector,
            target.field_selector,
            target.metadata_only
        );
        self.informer_for(&key, || {
            Arc::new(KubeSource::new(client.clone(), target.clone()))
        })
    }

    /// Starts every informer not yet started.
    pub fn start(&self, stop: &CancellationToken) {
        for entry in self.lock().values_mut() {
            if entry.task.is_none() {
                let informer = entry.informer.clone();
                let stop = stop.clone();
                entry.task = Some(tokio::spawn(async move { informer.run(stop).await }));
            }
        }
    }

    /// Waits until every informer synced; false if `stop` fired first.
    pub async fn wait_for_cache_sync(&self, stop: &CancellationToken) -> bool {
        let informers: Vec<SharedIndexInformer> =
            self.lock().values().map(|e| e.informer.clone()).collect();
        for informer in informers {
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
            .values_mut()
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

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.informers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::testing::MemorySource;

    #[tokio::test(start_paused = true)]
    async fn one_informer_per_resource_shared_by_handlers_and_synced_together() {
        let factory = InformerFactory::new(InformerConfig::default(), Tracer::counting_only());
        let pods = Arc::new(MemorySource::new());
        pods.apply(serde_json::json!({"metadata": {"name": "p", "namespace": "ns"}}));
        let nodes = Arc::new(MemorySource::new());
        nodes.apply(serde_json::json!({"metadata": {"name": "n1"}}));
        let a = factory.informer_for("pods", || pods.clone());
        let b = factory.informer_for("pods", || unreachable!("already created"));
        let n = factory.informer_for("nodes", || nodes.clone());
        assert!(a.indexer().is_same(&b.indexer()));
        let stop = CancellationToken::new();
        factory.start(&stop);
        assert!(factory.wait_for_cache_sync(&stop).await);
        assert_eq!(a.indexer().list_keys(), ["ns/p"]);
        assert_eq!(n.indexer().list_keys(), ["n1"]);
        stop.cancel();
        factory.shutdown().await;
    }
}
