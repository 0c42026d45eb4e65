//! The client roles the harness runs as child processes of itself. Each talks to the server in
//! `KUBECONFIG` (raw roles: `KINFORMER_BENCH_URL` and `KINFORMER_BENCH_TOKEN`) and reports on
//! stdout with marker lines: `items N`, `bytes N`, `ready`, `done N`, `rss_kb N`. The roles of
//! the servers section (`list`, `list-paged`, `watch-count`, `write`, `seed`) speak HTTPS or
//! HTTP through kube's client, so one program measures the embedded server and kube-apiserver.

use std::error::Error;
use std::io::Write;

use bytes::{Bytes, BytesMut};
use futures_util::AsyncBufReadExt as _;
use futures_util::{StreamExt, TryStreamExt};
use kinformer::informer::source::{SourceError, WatchFrame, frames, parse_list};
use kube::Api;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::reflector::{self, store::Writer};
use kube::runtime::watcher;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Errors of a role; printed to stderr and turned into a non-zero exit by `main`.
pub type RoleResult<T = ()> = Result<T, Box<dyn Error + Send + Sync>>;

/// Runs role `name` with its remaining arguments.
pub fn run(name: &str, args: &[String]) -> RoleResult {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = match name {
        "kube-runtime" => runtime.block_on(kube_runtime_sync()),
        "kube-runtime-watch" => runtime.block_on(kube_runtime_watch(count_arg(args)?)),
        "floor" => runtime.block_on(floor()),
        "raw-list" => runtime.block_on(raw_list()),
        "raw-watch" => runtime.block_on(raw_watch(count_arg(args)?)),
        "scan-list" => runtime.block_on(scan_list()),
        "scan-watch" => runtime.block_on(scan_watch(count_arg(args)?, prints_arg(args)?)),
        "list" => runtime.block_on(list(false)),
        "list-paged" => runtime.block_on(list(true)),
        "watch-count" => runtime.block_on(watch_count(count_arg(args)?)),
        "write" => runtime.block_on(write(count_arg(args)?)),
        "seed" => runtime.block_on(seed(count_arg(args)?)),
        other => Err(format!("unknown role {other:?}").into()),
    };
    // Done: exit like a CLI would, without waiting for connections and tasks to wind down.
    runtime.shutdown_background();
    result
}

/// The first argument as an event count.
fn count_arg(args: &[String]) -> RoleResult<u64> {
    let first = args.first().ok_or("missing event count")?;
    Ok(first.parse()?)
}

/// The second argument, how many times each event is printed (one per handler); 1 if absent.
fn prints_arg(args: &[String]) -> RoleResult<usize> {
    Ok(args.get(1).map(|n| n.parse()).transpose()?.unwrap_or(1))
}

/// Prints a marker line and flushes it at once (the harness times these).
fn mark(line: &str) -> RoleResult {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()?;
    Ok(())
}

fn pods_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Pod"), "pods")
}

/// This process's resident set size now, in KiB (0 when unknown).
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// kube-runtime `watcher` + `reflector` on DynamicObject pods, page size 500; exits when the
/// store is ready.
async fn kube_runtime_sync() -> RoleResult {
    let client = kube::Client::try_default().await?;
    let resource = pods_resource();
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let writer = Writer::new(resource);
    let reader = writer.as_reader();
    let stream = reflector::reflector(
        writer,
        watcher::watcher(api, watcher::Config::default().page_size(500)),
    );
    let driver = tokio::spawn(stream.for_each(|_| std::future::ready(())));
    reader.wait_until_ready().await?;
    mark(&format!("items {}", reader.state().len()))?;
    mark(&format!("rss_kb {}", rss_kb()))?;
    driver.abort();
    Ok(())
}

/// As [`kube_runtime_sync`], then counts `events` Apply events after the initial list.
async fn kube_runtime_watch(events: u64) -> RoleResult {
    let client = kube::Client::try_default().await?;
    let resource = pods_resource();
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let writer = Writer::new(resource);
    let mut stream = reflector::reflector(
        writer,
        watcher::watcher(api, watcher::Config::default().page_size(500)),
    )
    .boxed();
    let mut seen = 0;
    while seen < events {
        match stream.try_next().await? {
            Some(watcher::Event::InitDone) => mark("ready")?,
            Some(watcher::Event::Apply(_)) => seen += 1,
            Some(_) => {}
            None => return Err(format!("watch stream ended after {seen} events").into()),
        }
    }
    mark(&format!("done {seen}"))
}

/// The floor: the same LIST bytes fetched with kube's client and parsed into a
/// `serde_json::Value`.
async fn floor() -> RoleResult {
    let client = kube::Client::try_default().await?;
    let request = http::Request::get("/api/v1/pods").body(Vec::new())?;
    let text = client.request_text(request).await?;
    let list: serde_json::Value = serde_json::from_str(&text)?;
    let items = list["items"].as_array().map_or(0, Vec::len);
    mark(&format!("items {items}"))
}

/// Opens a raw HTTP/1.0 GET (no chunked framing) and returns the stream after the headers.
async fn raw_get(path: &str) -> RoleResult<BufReader<TcpStream>> {
    let url = std::env::var("KINFORMER_BENCH_URL")?;
    let token = std::env::var("KINFORMER_BENCH_TOKEN").unwrap_or_default();
    let address = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).await?;
    let request = format!(
        "GET {path} HTTP/1.0\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nAccept: application/json\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut reader = BufReader::with_capacity(1 << 20, stream);
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    if !line.contains(" 200 ") {
        return Err(format!("GET {path}: {}", line.trim()).into());
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 || line == "\r\n" {
            return Ok(reader);
        }
    }
}

/// Reads the whole unpaged pod LIST and discards it: the server's LIST serving rate.
async fn raw_list() -> RoleResult {
    let mut reader = raw_get("/api/v1/pods").await?;
    let mut buffer = vec![0; 1 << 20];
    let mut bytes = 0;
    loop {
        let read = reader.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        bytes += read;
    }
    mark(&format!("bytes {bytes}"))
}

/// A raw watch of pods from the resourceVersion the harness gives, after its headers.
async fn raw_watch_stream() -> RoleResult<BufReader<TcpStream>> {
    let rv = std::env::var("KINFORMER_BENCH_RV")?;
    raw_get(&format!(
        "/api/v1/pods?watch=1&resourceVersion={rv}&allowWatchBookmarks=false"
    ))
    .await
}

/// Watches pods from the current resourceVersion on a raw connection and counts `events`
/// MODIFIED lines: the server's event serving rate.
async fn raw_watch(events: u64) -> RoleResult {
    let mut reader = raw_watch_stream().await?;
    mark("ready")?;
    let mut line = Vec::with_capacity(1 << 14);
    let mut seen = 0;
    while seen < events {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Err(format!("raw watch ended after {seen} events").into());
        }
        if line.starts_with(br#"{"type":"MODIFIED""#) {
            seen += 1;
        }
    }
    mark(&format!("done {seen}"))
}

/// The LIST floor of a validating client: every page of 500 pods read whole on a raw connection,
/// validated and split into items by kinformer's own scanner (`parse_list`), and kept, as a
/// cache keeps them. No metadata read, no store, no output: what no client that checks what it
/// caches can go below on this machine.
async fn scan_list() -> RoleResult {
    let mut kept = Vec::new();
    let mut token = String::new();
    loop {
        let mut path = "/api/v1/pods?limit=500".to_owned();
        if !token.is_empty() {
            path.push_str(&format!("&continue={token}"));
        }
        let mut body = Vec::with_capacity(4 << 20);
        raw_get(&path).await?.read_to_end(&mut body).await?;
        let page = parse_list(&Bytes::from(body))?;
        token = page.continue_token.unwrap_or_default();
        kept.push(page.items);
        if token.is_empty() {
            break;
        }
    }
    mark(&format!(
        "items {}",
        kept.iter().map(Vec::len).sum::<usize>()
    ))
}

/// The watch floor of a validating client that prints what it receives: [`raw_watch`] with
/// every line split and validated by kinformer's own frame parser (`frames`) and each event's
/// object printed `prints` times on a line of its own to stdout (which the harness reads), as
/// `-o jsonl --show notifications` prints it with each handler's notification: no store, no
/// notification, no trace.
async fn scan_watch(events: u64, prints: usize) -> RoleResult {
    let reader = raw_watch_stream().await?;
    mark("ready")?;
    let chunks = futures_util::stream::try_unfold(reader, |mut reader| async move {
        let mut chunk = BytesMut::with_capacity(1 << 16);
        let read = reader
            .read_buf(&mut chunk)
            .await
            .map_err(|e| SourceError::Decode(e.to_string()))?;
        Ok((read > 0).then(|| (chunk.freeze(), reader)))
    });
    let mut frames = std::pin::pin!(frames(chunks));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    let mut seen = 0;
    while seen < events {
        match frames.next().await {
            Some(Ok(WatchFrame::Modified(object))) => {
                for _ in 0..prints {
                    out.write_all(&object)?;
                    out.write_all(b"\n")?;
                }
                seen += 1;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e.into()),
            None => return Err(format!("watch ended after {seen} events").into()),
        }
    }
    out.flush()?;
    drop(out);
    mark(&format!("done {seen}"))
}

/// Every pod LIST page through kube's client, unpaged or in pages of 500; each page validated and
/// split by kinformer's scanner (`parse_list`) and dropped: the server's LIST throughput as a
/// client sees it.
async fn list(paged: bool) -> RoleResult {
    let client = kube::Client::try_default().await?;
    let (mut items, mut bytes, mut token) = (0, 0, String::new());
    loop {
        let mut path = "/api/v1/pods".to_owned();
        if paged {
            path.push_str("?limit=500");
            if !token.is_empty() {
                path.push_str(&format!("&continue={token}"));
            }
        }
        let text = client
            .request_text(http::Request::get(path).body(Vec::new())?)
            .await?;
        bytes += text.len();
        let page = parse_list(&Bytes::from(text))?;
        items += page.items.len();
        token = page.continue_token.unwrap_or_default();
        if !paged || token.is_empty() {
            break;
        }
    }
    mark(&format!("items {items}"))?;
    mark(&format!("bytes {bytes}"))
}

/// The pods' current resourceVersion, from a one-item LIST.
async fn current_rv(api: &Api<DynamicObject>) -> RoleResult<String> {
    let list = api.list_metadata(&ListParams::default().limit(1)).await?;
    Ok(list.metadata.resource_version.unwrap_or_default())
}

/// One watcher: watches pods from the current resourceVersion through kube's client and counts
/// `events` MODIFIED lines (not decoded): what the server delivers to one watcher.
async fn watch_count(events: u64) -> RoleResult {
    let client = kube::Client::try_default().await?;
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &pods_resource());
    let rv = current_rv(&api).await?;
    let path = format!("/api/v1/pods?watch=1&resourceVersion={rv}&timeoutSeconds=3600");
    let mut stream = client
        .request_stream(http::Request::get(path).body(Vec::new())?)
        .await?;
    mark("ready")?;
    let mut line = Vec::with_capacity(1 << 14);
    let mut seen = 0;
    while seen < events {
        line.clear();
        if stream.read_until(b'\n', &mut line).await? == 0 {
            return Err(format!("watch ended after {seen} events").into());
        }
        if line.starts_with(br#"{"type":"MODIFIED""#) {
            seen += 1;
        }
    }
    mark(&format!("done {seen}"))
}

/// Requests the writer keeps in flight.
const WRITERS: usize = 16;

/// The writer: `events` merge patches (a new `bench-step` label value each) round-robin over the
/// pods, [`WRITERS`] in flight.
async fn write(events: u64) -> RoleResult {
    let client = kube::Client::try_default().await?;
    let all: Api<DynamicObject> = Api::all_with(client.clone(), &pods_resource());
    let pods: Vec<(String, String)> = all
        .list_metadata(&ListParams::default())
        .await?
        .items
        .into_iter()
        .map(|p| {
            (
                p.metadata.namespace.unwrap_or_default(),
                p.metadata.name.unwrap_or_default(),
            )
        })
        .collect();
    if pods.is_empty() {
        return Err("no pods to write".into());
    }
    mark("ready")?;
    // A value no earlier run wrote: a patch that changes nothing is not written and no
    // watcher hears of it (kube-apiserver's storage skips equal bytes).
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let written = futures_util::stream::iter(0..events)
        .map(|step| {
            let (namespace, name) = &pods[usize::try_from(step).unwrap_or(0) % pods.len()];
            let api: Api<DynamicObject> =
                Api::namespaced_with(client.clone(), namespace, &pods_resource());
            let patch =
                serde_json::json!({"metadata": {"labels": {"bench-step": format!("{run}-{step}")}}});
            async move {
                api.patch(name, &PatchParams::default(), &Patch::Merge(patch))
                    .await
                    .map(|_| ())
            }
        })
        .buffer_unordered(WRITERS)
        .try_fold(0u64, |n, ()| std::future::ready(Ok(n + 1)))
        .await?;
    mark(&format!("done {written}"))
}

/// Seeds a server over HTTP with the benchmark's first `count` pods (`pods::pod`, as the
/// embedded server is seeded): their namespaces, each pod created and its status written
/// through the status subresource (a create drops it), [`WRITERS`] requests in flight.
async fn seed(count: u64) -> RoleResult {
    let client = kube::Client::try_default().await?;
    let pods: Vec<Value> = (0..usize::try_from(count)?).map(crate::pods::pod).collect();
    let mut namespaces: Vec<&str> = pods
        .iter()
        .filter_map(|p| p.pointer("/metadata/namespace")?.as_str())
        .collect();
    namespaces.sort_unstable();
    namespaces.dedup();
    let namespace_api: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("", "v1", "Namespace"),
            "namespaces",
        ),
    );
    for namespace in namespaces {
        let object = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}
        }))?;
        match namespace_api.create(&PostParams::default(), &object).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(e) => return Err(e.into()),
        }
    }
    futures_util::stream::iter(pods)
        .map(|pod| seed_pod(client.clone(), pod))
        .buffer_unordered(WRITERS)
        .try_collect::<Vec<()>>()
        .await?;
    mark(&format!("items {count}"))
}

/// Creates one pod, then writes its status.
async fn seed_pod(client: kube::Client, mut pod: Value) -> RoleResult {
    let status = pod.get("status").cloned();
    if let Some(metadata) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
        metadata.remove("uid");
    }
    let namespace = pod
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let api: Api<DynamicObject> = Api::namespaced_with(client, &namespace, &pods_resource());
    let created = api
        .create(&PostParams::default(), &serde_json::from_value(pod)?)
        .await?;
    if let Some(status) = status {
        let name = created.metadata.name.unwrap_or_default();
        let patch = Patch::Merge(serde_json::json!({ "status": status }));
        api.patch_status(&name, &PatchParams::default(), &patch)
            .await?;
    }
    Ok(())
}
