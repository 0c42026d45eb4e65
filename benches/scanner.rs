//! Issue 16's scanner comparison: the hand-written validating scanner (`src/json_scan.rs`, as the
//! hot paths use it through `parse_list` and `parse_watch_frame`) next to sonic-rs, simd-json and
//! serde_json doing the same job on realistic pods: validate the whole input (UTF-8 included) and
//! hand back each item's raw bytes as a slice of the input.
//!
//! `cargo bench --bench scanner` decodes a 10k-pod LIST body (~33 MB) and 10k MODIFIED watch
//! lines, 11 repetitions interleaved across the scanners (the median is reported), and prints one
//! table: MB/s, ns per pod and speed relative to json_scan. `cargo test` (the bench target has
//! `test = true`) and `cargo test --bench scanner` run the same code on a few pods, once, as a
//! smoke test. Every run checks that each scanner returns every item intact; non-zero exit if not.

#[path = "scanner/decoders.rs"]
mod decoders;
#[path = "sync/pods.rs"]
mod pods;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;

use decoders::Decoder;

/// Pods and repetitions of a run.
struct Settings {
    pods: usize,
    runs: usize,
}

impl Settings {
    /// `cargo bench` passes `--bench`; `cargo test` passes nothing (or a filter): smoke mode.
    fn from_args() -> Settings {
        if std::env::args().any(|a| a == "--bench") {
            Settings {
                pods: 10_000,
                runs: 11,
            }
        } else {
            Settings { pods: 5, runs: 1 }
        }
    }
}

/// The inputs: one LIST body, one watch line per pod, and what each must decode to.
struct Inputs {
    list: Bytes,
    lines: Vec<Bytes>,
    /// The pods of the LIST body, as in it.
    items: Vec<Vec<u8>>,
    /// The `namespace/name` and object of each watch line, the object as in it.
    objects: Vec<(String, Vec<u8>)>,
}

/// Pod `index` as the API server serves it: the benchmark pod plus server-set metadata.
fn served_pod(index: usize) -> Value {
    let mut pod = pods::pod(index);
    if let Some(meta) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert(
            "uid".into(),
            format!("0c4f2a6e-1b7d-4c1e-9f3a-{index:012}").into(),
        );
        meta.insert("resourceVersion".into(), (1000 + index).to_string().into());
        meta.insert("creationTimestamp".into(), "2026-01-01T00:00:00Z".into());
    }
    pod
}

/// `parts` joined by `,` between `head` and `tail`.
fn joined(head: &[u8], parts: &[Vec<u8>], tail: &[u8]) -> Vec<u8> {
    let mut out = head.to_vec();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(part);
    }
    out.extend_from_slice(tail);
    out
}

impl Inputs {
    fn new(pods: usize) -> Result<Inputs, String> {
        let served: Vec<Value> = (0..pods).map(served_pod).collect();
        let items = served
            .iter()
            .map(|pod| serde_json::to_vec(pod).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let objects = served
            .iter()
            .enumerate()
            .map(|(step, pod)| {
                let updates = pods::Updates::new(pod)?;
                let key = format!("{}/{}", updates.namespace, updates.name);
                Ok((key, updates.body(step + 1)))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let list = joined(
            br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"20000"},"items":["#,
            &items,
            b"]}",
        );
        let lines = objects
            .iter()
            .map(|(_, object)| {
                Bytes::from(joined(
                    br#"{"type":"MODIFIED","object":"#,
                    std::slice::from_ref(object),
                    b"}\n",
                ))
            })
            .collect();
        Ok(Inputs {
            list: Bytes::from(list),
            lines,
            items,
            objects,
        })
    }

    fn line_bytes(&self) -> usize {
        self.lines.iter().map(Bytes::len).sum()
    }
}

/// Median wall time of each decoder on one input, repetitions interleaved across decoders so
/// that a busy moment of the machine hits them all alike.
fn medians(
    decoders: &[Decoder],
    runs: usize,
    mut time: impl FnMut(&Decoder) -> Duration,
) -> Vec<Duration> {
    let mut samples = vec![Vec::with_capacity(runs); decoders.len()];
    for _ in 0..runs {
        for (decoder, times) in decoders.iter().zip(&mut samples) {
            times.push(time(decoder));
        }
    }
    samples
        .into_iter()
        .map(|mut times| {
            times.sort();
            times[times.len() / 2]
        })
        .collect()
}

/// Wall time of `work`.
fn timed(work: impl FnOnce()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}

/// The checks and timings of every decoder; Err names the first decoder that got it wrong.
fn run(settings: &Settings) -> Result<String, String> {
    let inputs = Inputs::new(settings.pods)?;
    let all = decoders::all();
    for decoder in &all {
        decoders::check(
            decoder,
            &inputs.list,
            &inputs.items,
            &inputs.lines,
            &inputs.objects,
        )?;
    }
    let list = medians(&all, settings.runs, |d| {
        timed(|| {
            let _ = std::hint::black_box((d.list)(std::hint::black_box(&inputs.list)));
        })
    });
    let watch = medians(&all, settings.runs, |d| {
        timed(|| {
            for line in &inputs.lines {
                let _ = std::hint::black_box((d.frame)(std::hint::black_box(line)));
            }
        })
    });
    let sizes = (inputs.list.len(), inputs.line_bytes(), settings.pods);
    Ok(table(&all, &list, &watch, sizes))
}

/// One row's cells for one input: MB/s, ns per item, speed relative to `baseline`.
fn cells(time: Duration, baseline: Duration, bytes: usize, items: usize) -> String {
    let secs = time.as_secs_f64().max(1e-9);
    format!(
        "{:>8.0} {:>8.0} {:>6.2}x",
        bytes as f64 / secs / 1e6,
        secs * 1e9 / items as f64,
        baseline.as_secs_f64() / secs
    )
}

/// The table: one row per decoder, the first (json_scan) being the baseline of the ratios.
fn table(
    all: &[Decoder],
    list: &[Duration],
    watch: &[Duration],
    (list_bytes, line_bytes, pods): (usize, usize, usize),
) -> String {
    let mut out = format!(
        "LIST body: {pods} pods, {:.1} MB; watch: {pods} MODIFIED lines, {:.1} MB; median of the runs\n",
        list_bytes as f64 / 1e6,
        line_bytes as f64 / 1e6
    );
    out.push_str(&format!(
        "{:<34} {:>8} {:>8} {:>7} | {:>8} {:>8} {:>7}\n",
        "scanner", "LIST MB/s", "ns/pod", "ratio", "watch MB/s", "ns/line", "ratio"
    ));
    for (i, decoder) in all.iter().enumerate() {
        out.push_str(&format!(
            "{:<34} {} | {}\n",
            decoder.name,
            cells(list[i], list[0], list_bytes, pods),
            cells(watch[i], watch[0], line_bytes, pods)
        ));
    }
    out
}

fn main() -> ExitCode {
    let settings = Settings::from_args();
    match run(&settings) {
        Ok(table) => {
            println!("{table}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scanner bench: {e}");
            ExitCode::FAILURE
        }
    }
}
