//! kube-runtime's watcher and reflector (the `kube` dev-dependency, feature `runtime`) on the
//! Pods of one namespace, for a while: the Rust client `scripts/oracle-corpus proxy` records
//! behind `kinformer proxy` next to kubectl, the Python client and client-go
//! (docs/oracle.md, "The corpus"). It sends `User-Agent: kube-runtime/5` (kube-client sends
//! none), so that the proxy names its stream `kube-runtime/pods@NAMESPACE`, and prints one
//! JSON line per event the watcher yields (`init`, `init-apply`, `init-done`, `apply`,
//! `delete`, `error`), then an `end` line with the size of its store.
//!
//! ```text
//! cargo run --example kube_runtime_watch -- KUBECONFIG NAMESPACE SECONDS
//! ```

use std::error::Error;
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{Api, Client, Config, ResourceExt};
use serde_json::{Value, json};

/// The product token the proxy names the stream after.
const USER_AGENT: &str = "kube-runtime/5";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kubeconfig, namespace, seconds] = args.as_slice() else {
        return Err("usage: kube_runtime_watch KUBECONFIG NAMESPACE SECONDS".into());
    };
    let run_for = Duration::from_secs(seconds.parse()?);
    let mut config = Config::from_custom_kubeconfig(
        Kubeconfig::read_from(kubeconfig)?,
        &KubeConfigOptions::default(),
    )
    .await?;
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(USER_AGENT),
    ));
    let pods: Api<Pod> = Api::namespaced(Client::try_from(config)?, namespace);
    let (store, writer) = reflector::store();
    let events = reflector(writer, watcher(pods, watcher::Config::default())).default_backoff();
    let printed = events.for_each(|event| {
        println!("{}", line(&event));
        std::future::ready(())
    });
    // The watcher never ends by itself: the run ends at the deadline.
    let _deadline = tokio::time::timeout(run_for, printed).await;
    println!("{}", json!({"event": "end", "cached": store.state().len()}));
    Ok(())
}

/// One watcher event as a JSON line: what it is, and the object's key and resourceVersion.
fn line(event: &Result<watcher::Event<Pod>, watcher::Error>) -> Value {
    let object = |kind: &str, pod: &Pod| {
        json!({
            "event": kind,
            "key": format!("{}/{}", pod.namespace().unwrap_or_default(), pod.name_any()),
            "rv": pod.resource_version(),
        })
    };
    match event {
        Ok(watcher::Event::Init) => json!({"event": "init"}),
        Ok(watcher::Event::InitApply(pod)) => object("init-apply", pod),
        Ok(watcher::Event::InitDone) => json!({"event": "init-done"}),
        Ok(watcher::Event::Apply(pod)) => object("apply", pod),
        Ok(watcher::Event::Delete(pod)) => object("delete", pod),
        Err(e) => json!({"event": "error", "message": e.to_string()}),
    }
}
