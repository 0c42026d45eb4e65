//! Issue 21's proxy benchmark: what `kinformer proxy` costs a client, measured side by side in
//! one run against the same embedded API server over TLS.
//!
//! - Added latency: GETs of one pod, alternating a direct request and one through the proxy
//!   (same kube client settings, each on its own warm keep-alive connection), p50 and p99 of
//!   each and their difference. Target: ≤ 1 ms added at p50 on loopback.
//! - Watch throughput: a watch from a resourceVersion before N recorded writes streams those N
//!   events as fast as the server sends them; events/s read directly and through the proxy
//!   (which splits, decodes and traces every frame), best of a few runs each, interleaved.
//!   Target: ≥ 80% of direct.
//!
//! The proxy runs in-process with its tracer feeding a channel that is drained (what the CLI
//! does before rendering). The clients are kube-rs clients, so the client-to-proxy leg is
//! HTTP/1.1 over TLS. `cargo bench --bench proxy` runs the full sizes; `cargo test` (the bench
//! target has `test = true`) runs the same code on tiny sizes, once, without targets.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use kinformer::informer::trace::{StageSet, Tracer};
use kinformer::proxy::{Proxy, ProxyConfig};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::json;

/// Sizes of a run.
struct Settings {
    requests: usize,
    events: usize,
    watch_runs: usize,
    full: bool,
}

impl Settings {
    /// `cargo bench` passes `--bench`; `cargo test` passes nothing (or a filter): smoke mode.
    fn from_args() -> Settings {
        if std::env::args().any(|a| a == "--bench") {
            Settings {
                requests: 2_000,
                events: 20_000,
                watch_runs: 3,
                full: true,
            }
        } else {
            Settings {
                requests: 10,
                events: 50,
                watch_runs: 1,
                full: false,
            }
        }
    }
}

type Failure = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    let settings = Settings::from_args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build();
    let result = runtime
        .map_err(Failure::from)
        .and_then(|rt| rt.block_on(run(&settings)));
    match result {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("proxy bench: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(settings: &Settings) -> Result<String, Failure> {
    let server = EmbeddedServer::start(ServerConfig {
        tls: true,
        history: settings.events + 1_000,
        ..ServerConfig::default()
    })
    .await?;
    server.create_object(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"}, "spec": {"nodeName": "n"}}))?;
    let (events, mut drained) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move { while drained.recv().await.is_some() {} });
    let mut upstream = server.kube_config();
    upstream.default_retry = false;
    let proxy = Proxy::start(ProxyConfig {
        listen: "127.0.0.1:0".parse()?,
        token: None,
        upstream: kube::Client::try_from(upstream)?,
        tracer: Tracer::new(events, StageSet::ALL),
        record: None,
        on_upstream: None,
    })
    .await?;
    let direct = server.client();
    let proxied = kube::Client::try_from(proxy.kube_config())?;
    let latency = latency(&direct, &proxied, settings.requests).await?;
    let throughput = throughput(&server, &direct, &proxied, settings).await?;
    drop(proxy.shutdown().await);
    server.shutdown().await;
    Ok(report(settings, &latency, &throughput))
}

/// Per-request times, direct and through the proxy.
struct Latency {
    direct: Vec<Duration>,
    proxied: Vec<Duration>,
}

async fn get(client: &kube::Client) -> Result<Duration, Failure> {
    let request = http::Request::get("/api/v1/namespaces/default/pods/p").body(Vec::new())?;
    let started = Instant::now();
    let text = client.request_text(request).await?;
    let took = started.elapsed();
    if !text.contains("\"name\":\"p\"") {
        return Err(format!("unexpected answer: {text}").into());
    }
    Ok(took)
}

async fn latency(
    direct: &kube::Client,
    proxied: &kube::Client,
    requests: usize,
) -> Result<Latency, Failure> {
    // Warm both connections (TLS handshakes) before measuring.
    get(direct).await?;
    get(proxied).await?;
    let mut out = Latency {
        direct: Vec::with_capacity(requests),
        proxied: Vec::with_capacity(requests),
    };
    for _ in 0..requests {
        out.direct.push(get(direct).await?);
        out.proxied.push(get(proxied).await?);
    }
    out.direct.sort_unstable();
    out.proxied.sort_unstable();
    Ok(out)
}

/// Watch events per second, best run: direct, proxied; and how many body reads (HTTP chunks)
/// the client made for the events, each way.
struct Throughput {
    direct: f64,
    proxied: f64,
    bytes: u64,
    reads: (usize, usize),
}

async fn throughput(
    server: &EmbeddedServer,
    direct: &kube::Client,
    proxied: &kube::Client,
    settings: &Settings,
) -> Result<Throughput, Failure> {
    let from = server.resource_version();
    for i in 0..settings.events {
        server.create_object(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("cm-{i}"), "namespace": "default",
                "labels": {"app": "bench"}},
            "data": {"key": "x".repeat(400)}}))?;
    }
    let mut best = Throughput {
        direct: 0.0,
        proxied: 0.0,
        bytes: 0,
        reads: (0, 0),
    };
    for _ in 0..settings.watch_runs {
        let read = watch_rate(direct, from, settings.events).await?;
        best.direct = best.direct.max(read.rate);
        (best.bytes, best.reads.0) = (read.bytes, read.reads);
        let read = watch_rate(proxied, from, settings.events).await?;
        best.proxied = best.proxied.max(read.rate);
        best.reads.1 = read.reads;
    }
    Ok(best)
}

/// One watch read to its `events`th line.
struct WatchRead {
    /// Events per second, from the request to the last line.
    rate: f64,
    bytes: u64,
    /// Body frames (HTTP chunks) the client read.
    reads: usize,
}

/// Reads `events` watch lines from `from`.
async fn watch_rate(client: &kube::Client, from: u64, events: usize) -> Result<WatchRead, Failure> {
    let path = format!(
        "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={from}&timeoutSeconds=600"
    );
    let request = http::Request::get(path).body(kube::client::Body::empty())?;
    let started = Instant::now();
    let response = client.send(request).await?;
    let mut body = response.into_body();
    let (mut lines, mut bytes, mut reads) = (0usize, 0u64, 0usize);
    while lines < events {
        reads += 1;
        let Some(frame) = body.frame().await else {
            return Err(format!("the watch ended after {lines} of {events} events").into());
        };
        let data: Bytes = frame?.into_data().unwrap_or_default();
        bytes += data.len() as u64;
        lines += memchr_count(&data);
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(WatchRead {
        rate: events as f64 / seconds,
        bytes,
        reads,
    })
}

fn memchr_count(data: &[u8]) -> usize {
    data.iter().filter(|b| **b == b'\n').count()
}

/// The `percent`th percentile of sorted times (nearest rank).
fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    let at = (sorted.len().saturating_sub(1) * percent + 50) / 100;
    sorted.get(at).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn report(settings: &Settings, latency: &Latency, throughput: &Throughput) -> String {
    let row = |p: usize| {
        let (d, x) = (
            percentile(&latency.direct, p),
            percentile(&latency.proxied, p),
        );
        (micros(d), micros(x), micros(x) - micros(d))
    };
    let (d50, x50, a50) = row(50);
    let (d99, x99, a99) = row(99);
    let ratio = throughput.proxied / throughput.direct.max(f64::MIN_POSITIVE);
    let mut text = format!(
        "kinformer proxy benchmark ({} GETs each way, {} watch events of {} bytes, best of {})\n\
         GET one pod        direct       proxy        added\n\
         p50            {d50:>8.0} µs  {x50:>8.0} µs  {a50:>8.0} µs\n\
         p99            {d99:>8.0} µs  {x99:>8.0} µs  {a99:>8.0} µs\n\
         watch          {:>8.0} ev/s {:>8.0} ev/s {:>7.1} % of direct\n\
         body reads     {:>8}      {:>8}      (HTTP chunks the client read for the events)",
        settings.requests,
        settings.events,
        throughput.bytes / settings.events.max(1) as u64,
        settings.watch_runs,
        throughput.direct,
        throughput.proxied,
        ratio * 100.0,
        throughput.reads.0,
        throughput.reads.1,
    );
    if settings.full {
        let met = |ok: bool| if ok { "met" } else { "MISSED" };
        text.push_str(&format!(
            "\ntargets: added p50 <= 1 ms: {}; watch >= 80% of direct: {}",
            met(a50 <= 1000.0),
            met(ratio >= 0.8)
        ));
    }
    text
}
