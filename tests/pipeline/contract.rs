//! Contract rules C1–C3 (seed 003) end to end: the informer over kube's client against the
//! embedded API server, seeded random writes, watches closed and history trimmed mid-run.
//!
//! Set `KINFORMER_SEED` to replay a run; the seed is printed on every run.

use crate::common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::informer::Notification;
use kinformer::informer::QueueKind;
use kinformer::informer::ReflectorConfig;
use kinformer::informer::source::{KubeSource, KubeTarget};
use kinformer::informer::trace::Tracer;
use kinformer::informer::{EventHandler, HandlerFuture};
use kinformer::informer::{InformerConfig, SharedIndexInformer};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::core::ApiResource;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio_util::sync::CancellationToken;

/// What a handler saw, per key, in order: `A:rv`, `U:rv`, `D:rv`, `T:rv` (tombstone).
#[derive(Default)]
struct Seen {
    per_key: Mutex<BTreeMap<String, Vec<String>>>,
    delay: Duration,
}

impl EventHandler for Seen {
    fn handle<'a>(&'a self, n: &'a Notification) -> HandlerFuture<'a> {
        let token = match n {
            Notification::Add { obj, .. } => format!("A:{}", obj.resource_version()),
            Notification::Update {
                new, sync: false, ..
            } => format!("U:{}", new.resource_version()),
            Notification::Update { sync: true, .. } => String::new(),
            Notification::Delete { obj } if obj.is_tombstone() => {
                format!("T:{}", obj.object().resource_version())
            }
            Notification::Delete { obj } => format!("D:{}", obj.object().resource_version()),
        };
        if !token.is_empty() {
            self.per_key
                .lock()
                .unwrap()
                .entry(n.key().to_owned())
                .or_default()
                .push(token);
        }
        Box::pin(async move {
            if !self.delay.is_zero() {
                tokio::time::sleep(self.delay).await;
            }
        })
    }
}

/// The server's states per key: `S:rv` for each stored state, `D` for a deletion.
type History = BTreeMap<String, Vec<String>>;

/// Forces a relist: a watch that closes within a second with no events is client-go's
/// "very short watch", which ends ListAndWatch; writes during the backoff are missed.
async fn force_relist(server: &EmbeddedServer, informer: &SharedIndexInformer) {
    let watches = || informer.tracer().count_of("reflector/watch-start");
    server.close_watches();
    let before = watches();
    let reopened = tokio::time::timeout(Duration::from_secs(30), async {
        while watches() == before {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    assert!(reopened.is_ok(), "the informer never re-watched");
    server.close_watches();
    server.trim_history();
}

/// Forces a 410: every resourceVersion so far expired, then watches closed.
fn force_410(server: &EmbeddedServer) {
    server.expire_all();
    server.close_watches();
}

async fn random_writes(
    server: &EmbeddedServer,
    informer: &SharedIndexInformer,
    api: &Api<ConfigMap>,
    rng: &mut StdRng,
    ops: usize,
) -> History {
    let mut history = History::new();
    for i in 0..ops {
        let name = format!("cm-{}", rng.random_range(0..40));
        let key = format!("default/{name}");
        let existing = api.get_opt(&name).await.unwrap();
        let roll = rng.random_range(0..10);
        match existing {
            None => {
                let cm: ConfigMap = serde_json::from_value(serde_json::json!({
                    "metadata": {"name": name}, "data": {"v": i.to_string()}
                }))
                .unwrap();
                let created = api.create(&PostParams::default(), &cm).await.unwrap();
                history
                    .entry(key)
                    .or_default()
                    .push(format!("S:{}", created.metadata.resource_version.unwrap()));
            }
            Some(_) if roll < 3 => {
                api.delete(&name, &DeleteParams::default()).await.unwrap();
                history.entry(key).or_default().push("D".into());
            }
            Some(mut cm) => {
                cm.data
                    .get_or_insert_default()
                    .insert("v".into(), i.to_string());
                let updated = api
                    .replace(&name, &PostParams::default(), &cm)
                    .await
                    .unwrap();
                history
                    .entry(key)
                    .or_default()
                    .push(format!("S:{}", updated.metadata.resource_version.unwrap()));
            }
        }
        if i % 45 == 44 {
            server.close_watches();
        }
        if i % 130 == 129 {
            force_relist(server, informer).await;
        }
        if i % 130 == 64 {
            force_410(server);
        }
    }
    history
}

/// C2: the handler's tokens are a subsequence of the server's states; deletes match `D`
/// (a tombstone may stand for any number of missed states before it).
fn is_subsequence(seen: &[String], states: &[String]) -> bool {
    let mut it = states.iter();
    seen.iter().all(|token| {
        let (kind, rv) = token.split_once(':').unwrap();
        match kind {
            "A" | "U" => it.any(|s| s == &format!("S:{rv}")),
            _ => it.any(|s| s == "D"),
        }
    })
}

async fn run_contract(queue: QueueKind) {
    let seed = common::seed("contract test");
    let mut rng = StdRng::seed_from_u64(seed);
    let server = EmbeddedServer::start(ServerConfig {
        history: 50,
        ..ServerConfig::default()
    })
    .await
    .unwrap();
    let client = server.client();
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let target = KubeTarget {
        resource: ApiResource::erase::<ConfigMap>(&()),
        namespace: None,
        label_selector: None,
        field_selector: None,
        metadata_only: false,
        protobuf: false,
    };
    let config = InformerConfig {
        queue,
        reflector: ReflectorConfig {
            page_size: Some(7),
            ..ReflectorConfig::default()
        },
        ..InformerConfig::default()
    };
    let informer = SharedIndexInformer::new(
        Arc::new(KubeSource::new(client, target)),
        config,
        Tracer::counting_only(),
    );
    let handlers: Vec<Arc<Seen>> = [0, 0, 2]
        .iter()
        .map(|ms| {
            Arc::new(Seen {
                delay: Duration::from_millis(*ms),
                ..Seen::default()
            })
        })
        .collect();
    for (i, h) in handlers.iter().enumerate() {
        informer
            .add_event_handler(&format!("h{i}"), h.clone())
            .unwrap();
    }
    let stop = CancellationToken::new();
    let task = tokio::spawn({
        let informer = informer.clone();
        let stop = stop.clone();
        async move { informer.run(stop).await }
    });
    let history = random_writes(&server, &informer, &api, &mut rng, 400).await;

    // C1: without new writes the cache converges to exactly the server's collection.
    let server_state = || async {
        let list = api.list(&ListParams::default()).await.unwrap();
        list.items
            .into_iter()
            .map(|cm| {
                (
                    format!("default/{}", cm.metadata.name.unwrap()),
                    cm.metadata.resource_version.unwrap(),
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    let want = server_state().await;
    let cache = || {
        informer
            .indexer()
            .list()
            .iter()
            .map(|o| (o.key().to_owned(), o.resource_version().to_owned()))
            .collect::<BTreeMap<_, _>>()
    };
    let converged = tokio::time::timeout(Duration::from_secs(60), async {
        while cache() != want {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        converged.is_ok(),
        "seed {seed}: C1 cache never converged\ncache {:?}\nwant  {want:?}",
        cache()
    );
    let counts = informer.tracer().counts();
    assert!(
        counts.get("reflector/watch-error").copied().unwrap_or(0) >= 1,
        "seed {seed}: the run should force 410s: {counts:?}"
    );
    assert!(
        counts.get("reflector/relist").copied().unwrap_or(0) >= 1,
        "seed {seed}: the run should force relists: {counts:?}"
    );

    // Let every handler drain, then check C2 and C3 per handler and key.
    let drained = tokio::time::timeout(Duration::from_secs(60), async {
        while informer.listeners().iter().any(|l| l.pending() > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(drained.is_ok(), "seed {seed}: handlers did not drain");
    let tombstones: usize = handlers
        .iter()
        .map(|h| {
            h.per_key
                .lock()
                .unwrap()
                .values()
                .flatten()
                .filter(|t| t.starts_with('T'))
                .count()
        })
        .sum();
    assert!(
        tombstones > 0,
        "seed {seed}: deletes missed during a relist should arrive as tombstones"
    );
    for (i, h) in handlers.iter().enumerate() {
        let seen = h.per_key.lock().unwrap();
        for (key, tokens) in seen.iter() {
            let states = history.get(key).cloned().unwrap_or_default();
            assert!(
                is_subsequence(tokens, &states),
                "seed {seed}: C2 handler h{i} key {key}: saw {tokens:?}, server states {states:?}"
            );
            check_deletes_carry_last_state(seed, i, key, tokens);
        }
        // Every live object ends with the server's state in every handler's view.
        for (key, rv) in &want {
            let last = seen.get(key).and_then(|t| t.last()).cloned();
            assert!(
                matches!(last.as_deref(), Some(t) if t.ends_with(&format!(":{rv}")) && !t.starts_with('D') && !t.starts_with('T')),
                "seed {seed}: h{i} {key} ends at {last:?}, server {rv}"
            );
        }
    }
    stop.cancel();
    let _ = task.await;
    server.shutdown().await;
}

/// C3: a delete carries the last known state, or a tombstone with the state last seen; no
/// add is ever repeated without a delete between.
fn check_deletes_carry_last_state(seed: u64, handler: usize, key: &str, tokens: &[String]) {
    let mut live: Option<&str> = None;
    for t in tokens {
        let (kind, rv) = t.split_once(':').unwrap();
        match kind {
            "A" => {
                assert!(
                    live.is_none(),
                    "seed {seed}: h{handler} {key}: add while live: {tokens:?}"
                );
                live = Some(rv);
            }
            "U" => live = Some(rv),
            "T" => {
                assert_eq!(
                    live,
                    Some(rv),
                    "seed {seed}: h{handler} {key}: tombstone must carry the last state: {tokens:?}"
                );
                live = None;
            }
            _ => {
                assert!(
                    live.is_some(),
                    "seed {seed}: h{handler} {key}: delete of nothing: {tokens:?}"
                );
                live = None;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c1_c2_c3_delta_fifo_converges_and_handlers_see_ordered_subsequences() {
    run_contract(QueueKind::DeltaFifo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c1_c2_c3_real_fifo_converges_and_handlers_see_ordered_subsequences() {
    run_contract(QueueKind::RealFifo).await;
}
