//! Embedded API server throughput: seeds 100k configmaps directly, times a full LIST over HTTP
//! (raw reader and kube-rs), replaces every seeded pod twice through the PUT path (the sync
//! benchmark's writes), then streams N watch events to a raw HTTP reader and to a
//! kube-runtime `watcher` and prints the server's write rate next to both consumption rates.
//!
//! `cargo bench -p kinformer-apiserver --bench apiserver`; `KINFORMER_BENCH_OBJECTS` (configmaps), `KINFORMER_BENCH_PODS`
//! (realistic pods, also listed) and `KINFORMER_BENCH_EVENTS` shrink the run (defaults 100000,
//! 100000 and 20000). `KINFORMER_BENCH_PODS_TO=FILE` saves the pods as the server stored
//! them and `KINFORMER_BENCH_PODS_FROM=FILE` seeds those instead of synthetic pods: two builds
//! (this file copied into the older one) timed on equal objects.

use std::error::Error;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use kinformer_apiserver::{EmbeddedServer, ServerConfig, synthetic_pod};
use kube::Api;
use kube::api::{DynamicObject, ListParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::watcher;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

type BenchResult<T = ()> = Result<T, Box<dyn Error + Send + Sync>>;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A configmap of about 1.5 KB, with labels, annotations and managedFields like real ones.
fn configmap(namespace: &str, index: usize) -> Value {
    let payload = "x".repeat(600);
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {
            "name": format!("cm-{index:06}"), "namespace": namespace,
            "labels": {"app": format!("app-{}", index % 50), "tier": "bench"},
            "annotations": {"example.com/owner": "bench", "example.com/revision": index.to_string()},
            "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update",
                "apiVersion": "v1", "time": "2025-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {".": {}, "f:config": {}, "f:payload": {}},
                             "f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:tier": {}}}}}]
        },
        "data": {"config": "key=value\nother=thing\n", "payload": payload}
    })
}

/// The pods seeded: the JSON array in the file `KINFORMER_BENCH_PODS_FROM` names (read before
/// the clock starts), else `count` synthetic pods (made as they are seeded).
fn pods_to_seed(count: usize) -> BenchResult<Box<dyn Iterator<Item = Value>>> {
    Ok(match std::env::var_os("KINFORMER_BENCH_PODS_FROM") {
        Some(path) => {
            let pods: Vec<Value> = serde_json::from_slice(&std::fs::read(path)?)?;
            Box::new(pods.into_iter())
        }
        None => Box::new((0..count).map(|i| synthetic_pod(&format!("ns-{}", i % 20), i))),
    })
}

/// Writes the pods the server stored to `path` as a JSON array, without their
/// resourceVersion (a create refuses one): `KINFORMER_BENCH_PODS_FROM` for another build, to
/// time both on equal objects.
fn save_pods(server: &EmbeddedServer, path: std::ffi::OsString) -> BenchResult {
    let mut pods = server.objects("pods", None)?;
    for pod in &mut pods {
        if let Some(metadata) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("resourceVersion");
        }
    }
    std::fs::write(path, serde_json::to_vec(&pods)?)?;
    Ok(())
}

fn configmaps(client: kube::Client, namespace: Option<&str>) -> Api<DynamicObject> {
    core_api(client, namespace, "ConfigMap", "configmaps")
}

fn core_api(
    client: kube::Client,
    namespace: Option<&str>,
    kind: &str,
    plural: &str,
) -> Api<DynamicObject> {
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", kind), plural);
    match namespace {
        Some(ns) => Api::namespaced_with(client, ns, &resource),
        None => Api::all_with(client, &resource),
    }
}

/// Opens a raw HTTP/1.1 GET and returns the stream positioned after the response headers.
async fn raw_get(server: &EmbeddedServer, path: &str) -> BenchResult<BufReader<TcpStream>> {
    let address = server.url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).await?;
    let token = server.token().unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut reader = BufReader::with_capacity(1 << 20, stream);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 || line == "\r\n" {
            return Ok(reader);
        }
    }
}

/// The `continue` token of a list response body (searched in the list metadata at its start).
fn continue_token(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let start = head.find("\"continue\":\"")? + "\"continue\":\"".len();
    let end = head[start..].find('"')? + start;
    Some(head[start..end].to_owned())
}

fn rate(count: f64, elapsed: Duration) -> f64 {
    count / elapsed.as_secs_f64().max(1e-9)
}

async fn bench_list(
    server: &EmbeddedServer,
    objects: usize,
    kind: &str,
    plural: &str,
) -> BenchResult {
    println!("-- {objects} {plural}");
    let started = Instant::now();
    let mut reader = raw_get(server, &format!("/api/v1/{plural}")).await?;
    let mut body = Vec::new();
    reader.read_to_end(&mut body).await?;
    let elapsed = started.elapsed();
    let mb = body.len() as f64 / 1e6;
    println!(
        "LIST raw HTTP:   {objects} objects, {mb:.1} MB in {:.3}s = {:.0} MB/s, {:.0} objects/s",
        elapsed.as_secs_f64(),
        rate(mb, elapsed),
        rate(objects as f64, elapsed)
    );
    let started = Instant::now();
    let listed = core_api(server.client(), None, kind, plural)
        .list(&ListParams::default())
        .await?;
    let elapsed = started.elapsed();
    println!(
        "LIST kube-rs:    {} objects in {:.3}s = {:.0} objects/s (includes client-side decoding)",
        listed.items.len(),
        elapsed.as_secs_f64(),
        rate(listed.items.len() as f64, elapsed)
    );
    let started = Instant::now();
    let (mut pages, mut bytes) = (0, 0);
    let mut path = format!("/api/v1/{plural}?limit=500");
    loop {
        let mut body = Vec::new();
        raw_get(server, &path).await?.read_to_end(&mut body).await?;
        pages += 1;
        bytes += body.len();
        match continue_token(&body) {
            Some(token) => path = format!("/api/v1/{plural}?limit=500&continue={token}"),
            None => break,
        }
    }
    let elapsed = started.elapsed();
    println!(
        "LIST raw paged:  {pages} pages of 500, {:.1} MB in {:.3}s = {:.0} objects/s",
        bytes as f64 / 1e6,
        elapsed.as_secs_f64(),
        rate(objects as f64, elapsed)
    );
    let started = Instant::now();
    let mut pages = 0;
    let mut seen = 0;
    let mut params = ListParams::default().limit(500);
    loop {
        let page = core_api(server.client(), None, kind, plural)
            .list(&params)
            .await?;
        pages += 1;
        seen += page.items.len();
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => {
                params = ListParams::default().limit(500).continue_token(&token)
            }
            _ => break,
        }
    }
    let elapsed = started.elapsed();
    println!(
        "LIST paged 500:  {seen} objects in {pages} pages, {:.3}s = {:.0} objects/s",
        elapsed.as_secs_f64(),
        rate(seen as f64, elapsed)
    );
    Ok(())
}

/// Counts watch lines on a raw connection until `events` arrived; returns the arrival time.
async fn raw_watch(mut reader: BufReader<TcpStream>, events: usize) -> BenchResult<Instant> {
    let mut seen = 0;
    let mut line = Vec::new();
    while seen < events {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Err(format!("raw watch ended after {seen} events").into());
        }
        if line.starts_with(b"{\"type\":\"ADDED\"") {
            seen += 1;
        }
    }
    Ok(Instant::now())
}

/// Counts kube-runtime watcher Apply events until `events` arrived; returns the arrival time.
async fn runtime_watch(
    api: Api<DynamicObject>,
    events: usize,
    ready: tokio::sync::oneshot::Sender<()>,
) -> BenchResult<Instant> {
    let mut stream = watcher(api, watcher::Config::default()).boxed();
    let mut ready = Some(ready);
    let mut seen = 0;
    while seen < events {
        match stream.try_next().await? {
            Some(watcher::Event::InitDone) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(());
                }
            }
            Some(watcher::Event::Apply(_)) => seen += 1,
            Some(_) => {}
            None => return Err("watcher ended".into()),
        }
    }
    Ok(Instant::now())
}

/// Replaces every stored pod through the PUT path (`replace_objects`, the sync benchmark's
/// writes), each body the stored pod with annotation `bench/step` set: twice, the first pass
/// adding the annotation (its writer gains the field), the second changing its value (the
/// writer owns it already: what a controller's repeated updates are).
fn bench_replace(server: &EmbeddedServer) -> BenchResult {
    for (pass, what) in [(1, "new annotation"), (2, "changed value")] {
        let pods = server.objects("pods", None)?;
        let bodies = pods
            .into_iter()
            .map(|mut pod| {
                pod["metadata"]["annotations"]["bench/step"] = json!(pass.to_string());
                let namespace = pod["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                let name = pod["metadata"]["name"].as_str().unwrap_or("").to_owned();
                Ok((namespace, name, serde_json::to_vec(&pod)?))
            })
            .collect::<BenchResult<Vec<(String, String, Vec<u8>)>>>()?;
        let started = Instant::now();
        let written = server.replace_objects(
            "pods",
            bodies.iter().map(|(namespace, name, body)| {
                (namespace.as_str(), name.as_str(), body.as_slice())
            }),
        )?;
        let elapsed = started.elapsed();
        println!(
            "REPLACE direct:  {written} pods in {:.3}s = {:.0} writes/s ({what})",
            elapsed.as_secs_f64(),
            rate(written as f64, elapsed)
        );
    }
    Ok(())
}

async fn bench_watch(server: &EmbeddedServer, events: usize) -> BenchResult {
    let namespace = "bench-events";
    let start_rv = server.resource_version();
    let raw = raw_get(
        server,
        &format!("/api/v1/namespaces/{namespace}/configmaps?watch=1&resourceVersion={start_rv}"),
    )
    .await?;
    let (ready, is_ready) = tokio::sync::oneshot::channel();
    let api = configmaps(server.client(), Some(namespace));
    let runtime = tokio::spawn(runtime_watch(api, events, ready));
    tokio::time::timeout(Duration::from_secs(30), is_ready).await??;
    let raw = tokio::spawn(raw_watch(raw, events));

    let started = Instant::now();
    let objects: Vec<Value> = (0..events).map(|i| configmap(namespace, i)).collect();
    let written = tokio::task::block_in_place(|| -> BenchResult<Instant> {
        for object in objects {
            server.create_object(object)?;
        }
        Ok(Instant::now())
    })?;
    let raw_done = raw.await??;
    let runtime_done = runtime.await??;
    let events_f = events as f64;
    println!(
        "WATCH server:    {events} writes+events in {:.3}s = {:.0} events/s",
        (written - started).as_secs_f64(),
        rate(events_f, written - started)
    );
    println!(
        "WATCH raw HTTP:  {events} events in {:.3}s = {:.0} events/s",
        (raw_done - started).as_secs_f64(),
        rate(events_f, raw_done - started)
    );
    println!(
        "WATCH kube-rt:   {events} events in {:.3}s = {:.0} events/s",
        (runtime_done - started).as_secs_f64(),
        rate(events_f, runtime_done - started)
    );
    Ok(())
}

async fn run() -> BenchResult {
    let objects = env_count("KINFORMER_BENCH_OBJECTS", 100_000);
    let pods = env_count("KINFORMER_BENCH_PODS", 100_000);
    let events = env_count("KINFORMER_BENCH_EVENTS", 20_000);
    let server = EmbeddedServer::start(ServerConfig {
        history: events + 1_000,
        ..ServerConfig::default()
    })
    .await?;
    let started = Instant::now();
    let seeded =
        server.seed_objects((0..objects).map(|i| configmap(&format!("ns-{}", i % 20), i)))?;
    println!(
        "SEED direct:     {seeded} configmaps in {:.3}s",
        started.elapsed().as_secs_f64()
    );
    bench_list(&server, seeded, "ConfigMap", "configmaps").await?;
    let to_seed = pods_to_seed(pods)?;
    let started = Instant::now();
    let seeded = server.seed_objects(to_seed)?;
    println!(
        "SEED direct:     {seeded} pods in {:.3}s",
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = std::env::var_os("KINFORMER_BENCH_PODS_TO") {
        save_pods(&server, path)?;
    }
    bench_list(&server, seeded, "Pod", "pods").await?;
    tokio::task::block_in_place(|| bench_replace(&server))?;
    bench_watch(&server, events).await?;
    server.shutdown().await;
    Ok(())
}

fn main() -> BenchResult {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run())
}
