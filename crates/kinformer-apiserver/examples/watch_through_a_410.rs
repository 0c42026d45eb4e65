//! A kube-runtime watcher against the embedded server, through a forced 410: the server is
//! seeded with the built-in cluster, the watcher lists its pods, the server expires every
//! resourceVersion and ends every watch, and the watcher relists and keeps going.
//!
//! `cargo run -p kinformer-apiserver --example watch_through_a_410` prints each watcher event
//! and exits 0 once the watcher has listed twice and seen a pod created after the 410.
//! `cargo test` runs it too (the example is built as a test: see the crate's Cargo.toml).

use std::error::Error;
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kinformer_apiserver::{EmbeddedServer, Fault, Seed, ServerConfig};
use kube::Api;
use kube::runtime::watcher::{self, Event};
use serde_json::json;

/// The whole run ends well within this.
const DEADLINE: Duration = Duration::from_secs(30);

/// A pod created once the watcher has relisted.
fn late_pod() -> serde_json::Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "late", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
    })
}

/// Runs the example: the number of initial lists the watcher made (2: before and after the 410).
async fn run() -> Result<usize, Box<dyn Error>> {
    let server = EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::Builtin],
        ..ServerConfig::default()
    })
    .await?;
    let pods: Api<Pod> = Api::all(server.client());
    let mut events = watcher::watcher(pods, watcher::Config::default()).boxed();
    let mut lists = 0;
    let late_seen = tokio::time::timeout(DEADLINE, async {
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                // The 410: the watcher reports it, then relists on its own.
                Err(error) => {
                    println!("watch error: {error}");
                    continue;
                }
            };
            match event {
                Event::Init => println!("list {} starts", lists + 1),
                Event::InitApply(_) => {}
                Event::InitDone => {
                    lists += 1;
                    println!("list {lists} done");
                    if lists == 1 {
                        // Every resumed watch now gets 410 Gone; end the open ones.
                        server.inject(&Fault::ExpireAll)?;
                        server.inject(&Fault::CloseWatches)?;
                    } else {
                        server.create_object(late_pod())?;
                    }
                }
                Event::Apply(pod) => {
                    println!("watch: {}", pod.metadata.name.unwrap_or_default());
                    if lists == 2 {
                        return Ok::<_, Box<dyn Error>>(true);
                    }
                }
                Event::Delete(pod) => {
                    println!("watch: deleted {}", pod.metadata.name.unwrap_or_default());
                }
            }
        }
        Ok(false)
    })
    .await??;
    drop(events);
    server.shutdown().await;
    if !late_seen {
        return Err("the watch ended before the pod created after the 410 arrived".into());
    }
    Ok(lists)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    run().await.map(drop)
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_watcher_relists_after_the_410_and_keeps_watching() {
        let lists = super::run().await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lists, 2, "one list before the 410 and one after");
    }
}
