//! Shared harness for informer tests: an informer over a [`MemorySource`], a recording
//! handler, and trace helpers. Timing tests run on tokio's paused clock.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kinformer::informer::Notification;
use kinformer::informer::testing::{MemorySink, MemorySource};
use kinformer::informer::trace::{Event, StageSet, TraceEvent, Tracer};
use kinformer::informer::{EventHandler, HandlerFuture};
use kinformer::informer::{InformerConfig, InformerError, SharedIndexInformer};
use tokio_util::sync::CancellationToken;

/// Virtual time on the paused clock, wall time otherwise.
/// The seed of a randomised test: `KINFORMER_SEED` to replay, else a fresh one; printed either way.
pub fn seed(what: &str) -> u64 {
    use rand::Rng;
    let seed = std::env::var("KINFORMER_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    eprintln!("{what} seed: {seed} (replay with KINFORMER_SEED={seed})");
    seed
}

pub const DEADLINE: Duration = Duration::from_secs(600);

pub fn pod(ns: &str, name: &str, app: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": app}},
        "spec": {"nodeName": "node-1"}
    })
}

/// An informer over a memory source, with every stage traced into a [`MemorySink`].
pub struct Harness {
    pub source: Arc<MemorySource>,
    pub informer: SharedIndexInformer,
    pub sink: MemorySink,
    pub stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<Result<(), InformerError>>>,
}

impl Harness {
    pub fn new(config: InformerConfig) -> Self {
        Self::with_source(Arc::new(MemorySource::new()), config)
    }

    pub fn with_source(source: Arc<MemorySource>, config: InformerConfig) -> Self {
        let sink = MemorySink::new();
        let tracer = Tracer::new(sink.clone(), StageSet::ALL);
        let informer = SharedIndexInformer::new(source.clone(), config, tracer);
        Self {
            source,
            informer,
            sink,
            stop: CancellationToken::new(),
            task: None,
        }
    }

    pub fn start(&mut self) {
        let informer = self.informer.clone();
        let stop = self.stop.clone();
        self.task = Some(tokio::spawn(async move { informer.run(stop).await }));
    }

    pub async fn synced(&mut self) {
        self.start();
        let synced = tokio::time::timeout(DEADLINE, self.informer.wait_for_sync(&self.stop)).await;
        assert_eq!(synced, Ok(true), "informer did not sync");
    }

    pub async fn wait(&self, what: &str, done: impl FnMut(&[TraceEvent]) -> bool) {
        if let Err(e) = self.sink.wait_until(DEADLINE, done).await {
            panic!("{what}: {e}\n{}", self.dump());
        }
    }

    pub fn events(&self) -> Vec<TraceEvent> {
        self.sink.events()
    }

    /// One line per trace event, for failure messages.
    pub fn dump(&self) -> String {
        self.events()
            .iter()
            .map(|e| format!("{} {:?}", e.seq, short(&e.event)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Waits for `run` to return by itself (e.g. after a crashing handler panic).
    pub async fn run_result(&mut self) -> Result<(), InformerError> {
        let task = self.task.take().expect("the informer was started");
        tokio::time::timeout(DEADLINE, task)
            .await
            .expect("run did not return")
            .expect("run panicked")
    }

    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(DEADLINE, task).await;
        }
    }
}

fn short(e: &Event) -> String {
    match e {
        Event::Notify {
            handler,
            notification,
            pending,
        } => format!(
            "notify {handler} {:?} {} rv={} sync={} pending={pending}",
            notification.kind(),
            notification.key(),
            notification.object().resource_version(),
            notification.is_sync()
        ),
        other => format!("{other:?}").chars().take(200).collect(),
    }
}

/// Counts events matching `f`.
pub fn count(events: &[TraceEvent], f: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| f(&e.event)).count()
}

/// Every notification as one line: `add ns/a 3 initial`, `update ns/a 3->4 sync`,
/// `delete ns/a 4 tombstone`.
#[derive(Default)]
pub struct Recorder {
    log: Mutex<Vec<String>>,
    pub panic_on_first: bool,
}

impl Recorder {
    pub fn panicking_once() -> Arc<Self> {
        Arc::new(Self {
            log: Mutex::default(),
            panic_on_first: true,
        })
    }

    pub fn lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

pub fn describe(n: &Notification) -> String {
    match n {
        Notification::Add { obj, initial } => {
            format!(
                "add {} {}{}",
                obj.key(),
                obj.resource_version(),
                if *initial { " initial" } else { "" }
            )
        }
        Notification::Update { old, new, sync } => format!(
            "update {} {}->{}{}",
            new.key(),
            old.resource_version(),
            new.resource_version(),
            if *sync { " sync" } else { "" }
        ),
        Notification::Delete { obj } => format!(
            "delete {} {}{}",
            obj.key(),
            obj.object().resource_version(),
            if obj.is_tombstone() { " tombstone" } else { "" }
        ),
    }
}

impl EventHandler for Recorder {
    fn handle<'a>(&'a self, n: &'a Notification) -> HandlerFuture<'a> {
        let first = {
            let mut log = self.log.lock().unwrap();
            log.push(describe(n));
            log.len() == 1
        };
        if self.panic_on_first && first {
            panic!("handler failure injected by the test");
        }
        Box::pin(std::future::ready(()))
    }
}

/// Either FIFO, concrete: tests reach the queue through [`Queue`] (by deref) and a FIFO's own
/// inspection methods (`queued_keys`, `deltas_of`, `queued`) through the variant.
pub enum AnyFifo {
    Delta(kinformer::informer::DeltaFifo),
    Real(kinformer::informer::RealFifo),
}

impl AnyFifo {
    pub fn new(
        kind: kinformer::informer::QueueKind,
        known: Arc<kinformer::informer::Store>,
        tracer: Tracer,
    ) -> Self {
        use kinformer::informer::QueueKind;
        match kind {
            QueueKind::DeltaFifo => {
                AnyFifo::Delta(kinformer::informer::DeltaFifo::new(known, tracer))
            }
            QueueKind::RealFifo => AnyFifo::Real(kinformer::informer::RealFifo::new(known, tracer)),
        }
    }
}

impl std::ops::Deref for AnyFifo {
    type Target = dyn kinformer::informer::Queue;

    fn deref(&self) -> &Self::Target {
        match self {
            AnyFifo::Delta(f) => f,
            AnyFifo::Real(f) => f,
        }
    }
}
