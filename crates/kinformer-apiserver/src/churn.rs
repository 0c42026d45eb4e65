//! Background pod churn: creates, updates (labels, `status.phase`) and deletes pods in the
//! `default` namespace at a steady rate with a deterministic RNG, so a watch has something to show.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::objects::object_key;
use super::resources::ResourceType;
use super::store::Store;
use super::write::{create_object, delete_object, update_object};

/// Namespace churned pods live in.
const NAMESPACE: &str = "default";

/// Upper bound on simultaneously live churned pods.
const MAX_LIVE: usize = 50;

/// The churn loop's state.
struct Churn {
    store: Arc<Store>,
    pods: Arc<ResourceType>,
    rng: StdRng,
    live: Vec<String>,
    created: u64,
}

/// Starts churning at `writes_per_second`; None when the rate is not a positive number or the
/// store does not serve pods.
pub fn spawn(store: Arc<Store>, writes_per_second: f64) -> Option<JoinHandle<()>> {
    if !writes_per_second.is_finite() || writes_per_second <= 0.0 {
        return None;
    }
    let pods = store.registry().find("", "v1", "pods")?;
    let period = Duration::from_secs_f64((1.0 / writes_per_second).max(1e-6));
    let churn = Churn {
        store,
        pods,
        rng: StdRng::seed_from_u64(0x6b69_6e66),
        live: Vec::new(),
        created: 0,
    };
    Some(tokio::spawn(churn.run(period)))
}

impl Churn {
    async fn run(mut self, period: Duration) {
        let mut ticker = tokio::time::interval(period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Burst);
        loop {
            ticker.tick().await;
            self.step();
        }
    }

    /// One write: create while few pods live, otherwise mostly update, sometimes delete.
    fn step(&mut self) {
        let roll = self.rng.random_range(0..10);
        if self.live.is_empty() || (roll < 3 && self.live.len() < MAX_LIVE) {
            self.create();
        } else if roll < 8 {
            self.update();
        } else {
            self.delete();
        }
    }

    fn create(&mut self) {
        self.created += 1;
        let name = format!("churn-{}", self.created);
        let node = format!("node-{}", self.rng.random_range(1..=3));
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": "churn", "generation": "0"}},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "busybox:1.37"}]},
            "status": {"phase": "Pending"}
        });
        if create_object(&self.store, pod).is_ok() {
            self.live.push(name);
        }
    }

    fn pick(&mut self) -> Option<usize> {
        (!self.live.is_empty()).then(|| self.rng.random_range(0..self.live.len()))
    }

    fn update(&mut self) {
        let Some(index) = self.pick() else { return };
        let key = object_key(NAMESPACE, &self.live[index]);
        let current = self
            .store
            .get(&self.pods.key(), &key)
            .and_then(|o| o.to_value().ok());
        let Some(mut pod) = current else {
            self.live.swap_remove(index);
            return;
        };
        let phase = ["Pending", "Running", "Running", "Succeeded"][self.rng.random_range(0..4)];
        let generation = self.rng.random_range(0..1000).to_string();
        if let Some(labels) = pod
            .pointer_mut("/metadata/labels")
            .and_then(Value::as_object_mut)
        {
            labels.insert("generation".into(), generation.into());
        }
        if let Some(status) = pod.get_mut("status").and_then(Value::as_object_mut) {
            status.insert("phase".into(), phase.into());
        }
        if update_object(&self.store, &self.pods, pod).is_err() {
            self.live.swap_remove(index);
        }
    }

    fn delete(&mut self) {
        let Some(index) = self.pick() else { return };
        let name = self.live.swap_remove(index);
        // Already gone (deleted by a user) is fine: the pod is no longer ours to churn.
        let _ = delete_object(&self.store, &self.pods, NAMESPACE, &name);
    }
}
