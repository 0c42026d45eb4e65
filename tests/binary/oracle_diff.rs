//! The differential test against client-go itself (docs/oracle.md): every case of
//! `tests/oracle_corpus/cases.json` is replayed by `kinformer replay --clock virtual` with each
//! `--client-go` release 1.32–1.37, and by the Go oracle of that release (client-go's real
//! SharedIndexInformer in a `testing/synctest` bubble, built by `scripts/oracle`). Per resource
//! and handler, kinformer's sequence of (kind, key, rv, initial, sync, tombstone) must be one of
//! the oracle's (it runs several times: same-instant wake-ups have no fixed order); so must the
//! reflector's requests, the calls where they differ from the recording (the replay's notes),
//! a mismatch's line, and each resource's informer cache at the end (every key and its
//! resourceVersion: kinformer's `indexer` writes folded, client-go's store listed). A case
//! cases.json calls `known` for a release fails when it no longer differs there (a stale
//! reason).
//!
//! kinformer traces a notification when the listener receives it (`notify`) and when the
//! handler returns (`handled`); the oracle when the handler is called. Where the replay's end
//! cuts a handler's backlog, the oracle's sequence must therefore be a prefix of kinformer's
//! notified ones and at least as long as its handled ones. client-go queues a resync's sync
//! updates and a relist's tombstones in Go map order (its store's `ListKeys`), so each run of
//! consecutive sync or tombstone notifications compares as a set (sorted). Where a handler's
//! sequence matches only object by object (a watch-list's Replace comes in Go map order) the
//! cell says `same/key`. A silent request-layer retry of kinformer's counts as the request sent
//! again, as the oracle's client-go `rest.Request` sends it (the oracle answers client-go's
//! HTTP requests: one `request` line each). A table case × release is printed; a missing oracle binary fails. `ORACLE_CASES=a,b`
//! runs only the cases whose names start with one of them (e.g. `chaos/seed-4`, `edge/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::binary::{kinformer, run};

/// The client-go releases the oracle is built for.
const RELEASES: [&str; 6] = ["1.32", "1.33", "1.34", "1.35", "1.36", "1.37"];

/// One corpus case: a record file and the replay's flags.
#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    /// Relative to tests/oracle_corpus.
    file: String,
    #[serde(default = "zero")]
    resync: String,
    #[serde(default)]
    handlers: Vec<String>,
    /// Both sides' `--watch-list`; unset: each release's default.
    watch_list: Option<bool>,
    stream: Option<String>,
    /// Both sides' transform: kinformer's `--transform`, the oracle's `SetTransform`.
    transform: Option<String>,
    /// Both sides' metadata-only informer (PartialObjectMetadata).
    #[serde(default)]
    metadata_only: bool,
    /// Releases whose difference is documented in docs/oracle.md (release → why).
    #[serde(default)]
    known: BTreeMap<String, String>,
}

fn zero() -> String {
    "0".into()
}

/// What one replay did, in the form both sides are compared in: per stream (resource and
/// handler, or resource and "requests") the sequence of lines.
type Trace = BTreeMap<String, Vec<String>>;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle_corpus")
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus().join("cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `<target>/oracle/<release>/oracle.test`, next to the kinformer binary's target dir.
fn oracle_binary(release: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_kinformer"));
    let target = exe.parent().and_then(Path::parent).unwrap();
    let bin = target.join("oracle").join(release).join("oracle.test");
    assert!(
        bin.is_file(),
        "the client-go {release} oracle {} is missing: run scripts/oracle (needs Go >= 1.25; \
         CARGO_TARGET_DIR={}) before this test",
        bin.display(),
        target.display()
    );
    bin
}

/// kinformer's replay in the compared form.
async fn kinformer_trace(case: &Case, release: &str) -> Trace {
    let file = corpus().join(&case.file);
    let path = file.to_str().unwrap();
    let mut args = vec![
        "replay",
        path,
        "--clock",
        "virtual",
        "--speed",
        "1x",
        "--client-go",
        release,
        "-o",
        "jsonl",
        "--show",
        "all",
        "--on-panic",
        "skip",
        "--resync",
        &case.resync,
    ];
    for h in &case.handlers {
        args.extend(["--handler", h]);
    }
    let watch_list = case.watch_list.map(|w| format!("--watch-list={w}"));
    args.extend(watch_list.as_deref());
    if let Some(s) = &case.stream {
        args.extend(["--stream", s]);
    }
    if let Some(t) = &case.transform {
        args.extend(["--transform", t]);
    }
    if case.metadata_only {
        args.push("--metadata-only");
    }
    let r = run(kinformer(&args)).await;
    assert!(
        r.code == 0 || r.code == 7,
        "kinformer {args:?}: exit {}\n{}",
        r.code,
        r.stderr
    );
    let mut trace = Trace::new();
    let mut caches = Caches::new();
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let end = lines.iter().filter_map(timestamp).max();
    for v in &lines {
        if is_retry_after(v, end) {
            continue;
        }
        kinformer_line(v, &mut trace);
        indexer_write(v, &mut caches);
    }
    for (resource, cache) in caches {
        let lines = cache.iter().map(|(key, rv)| cached(key, rv)).collect();
        trace.insert(format!("{resource} cache"), lines);
    }
    for (line, what) in stderr_findings(&r.stderr, path) {
        trace
            .entry("replay".into())
            .or_default()
            .push(format!("{what} line {line}"));
    }
    let more = more_notes(&r.stderr);
    let replay = trace.entry("replay".into()).or_default();
    let at = replay.iter().filter(|l| l.starts_with("note")).count();
    replay.splice(at..at, std::iter::repeat_n(MORE_NOTES.to_owned(), more));
    replay.is_empty().then(|| trace.remove("replay"));
    normalized(trace)
}

/// A kinformer trace line's time.
fn timestamp(v: &Value) -> Option<jiff::Timestamp> {
    v["ts"].as_str()?.parse().ok()
}

/// Whether `v` is a silent request-layer retry whose request would go out only after the
/// replay ended (`retry` is traced at the decision, before its `delay_ms`): client-go's
/// `rest.Request` in the oracle never sends that one either.
fn is_retry_after(v: &Value, end: Option<jiff::Timestamp>) -> bool {
    let sent = timestamp(v).and_then(|t| {
        let delay = jiff::SignedDuration::from_millis(v["delay_ms"].as_i64()?);
        t.checked_add(delay).ok()
    });
    v["event"] == "retry" && v["stage"] == "reflector" && sent.zip(end).is_some_and(|(s, e)| s > e)
}

/// Each resource's informer cache: key → resourceVersion.
type Caches = BTreeMap<String, BTreeMap<String, String>>;

/// Folds one of kinformer's `indexer` lines into the caches, so that what the indexer holds
/// at the end compares with the oracle's `cache` lines (client-go's store at the end).
fn indexer_write(v: &Value, caches: &mut Caches) {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    if v["stage"] != "indexer" {
        return;
    }
    let cache = caches.entry(s("resource")).or_default();
    match v["event"].as_str() {
        Some("add" | "update") => {
            cache.insert(s("key"), s("rv"));
        }
        Some("delete") => {
            cache.remove(&s("key"));
        }
        _ => {}
    }
}

/// One object of a cache in the compared form.
fn cached(key: &str, rv: &str) -> String {
    format!("{key} rv={rv}")
}

/// Sorts every run of consecutive sync or tombstone notifications (Go map order in client-go).
fn normalized(mut trace: Trace) -> Trace {
    for lines in trace.values_mut() {
        let mut start = 0;
        while start < lines.len() {
            let unordered = |l: &String| l.ends_with(" sync") || l.ends_with(" tombstone");
            let len = lines[start..].iter().take_while(|l| unordered(l)).count();
            lines[start..start + len].sort();
            start += len.max(1);
        }
    }
    trace
}

/// A kinformer trace line in the compared form.
fn kinformer_line(v: &Value, trace: &mut Trace) {
    let resource = v["resource"].as_str().unwrap_or_default();
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    let requests = format!("{resource} requests");
    match (v["stage"].as_str(), v["event"].as_str()) {
        (Some("handler"), Some("notify")) => {
            let key = format!("{resource} {}", s("handler"));
            let line = notification(
                &s("kind"),
                &s("key"),
                &s("rv"),
                &v["initial"],
                &v["sync"],
                &v["tombstone"],
            );
            trace.entry(key).or_default().push(line);
        }
        (Some("handler"), Some("handled")) => {
            let key = format!("{resource} {}{HANDLED}", s("handler"));
            trace.entry(key).or_default().push(s("key"));
        }
        (Some("reflector"), Some("list-start")) => {
            let limit = v["limit"].as_u64().unwrap_or(0);
            let rvm = s("rv_match");
            let line = if v["watch_list"] == true {
                format!("watch rv={:?} rvm={rvm:?} initial_events=true", s("rv"))
            } else {
                format!("list rv={:?} rvm={rvm:?} limit={limit}", s("rv"))
            };
            trace.entry(requests).or_default().push(line);
        }
        // kinformer's request layer re-sends the request (Rule R11) — one more HTTP request, as
        // client-go's rest.Request sends it again in the oracle (a `request` line of its own).
        (Some("reflector"), Some("retry")) => {
            let lines = trace.entry(requests).or_default();
            let verb = s("verb");
            if let Some(again) = lines.iter().rev().find(|l| l.starts_with(&verb)).cloned() {
                lines.push(again);
            }
        }
        (Some("reflector"), Some("list-page")) if v["more"] == true => {
            trace
                .entry(requests)
                .or_default()
                .push("list continue".into());
        }
        (Some("reflector"), Some("watch-start")) if v["watch_list"] != true => {
            let line = format!("watch rv={:?} rvm=\"\" initial_events=false", s("rv"));
            trace.entry(requests).or_default().push(line);
        }
        _ => {}
    }
}

/// kinformer's replay prints its first `MAX_NOTES` notes (src/cli/replaying.rs) and then
/// counts the rest; past that many, a note compares as this line alone.
const MORE_NOTES: &str = "note (more)";
const MAX_NOTES: usize = 5;

/// How many notes kinformer's replay counted without printing them
/// (`warning: FILE: N more calls differ from the recording`).
fn more_notes(stderr: &str) -> usize {
    stderr
        .lines()
        .find_map(|l| {
            let rest = l.strip_suffix(" more calls differ from the recording")?;
            rest.rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// The oracle's notes past kinformer's `MAX_NOTES`, as kinformer's replay counts them.
fn capped_notes(trace: &mut Trace) {
    if let Some(replay) = trace.get_mut("replay") {
        let mut notes = 0;
        for line in replay.iter_mut().filter(|l| l.starts_with("note")) {
            notes += 1;
            if notes > MAX_NOTES {
                *line = MORE_NOTES.to_owned();
            }
        }
    }
}

/// kinformer's stderr: the replay's notes (`warning: FILE:LINE: …`) and a mismatch
/// (`FILE:LINE: the recording has a …`), as (line, what).
fn stderr_findings(stderr: &str, path: &str) -> Vec<(u64, &'static str)> {
    let prefix = format!("{path}:");
    stderr
        .lines()
        .filter_map(|l| {
            let rest = &l[l.find(&prefix)? + prefix.len()..];
            let (n, message) = rest.split_once(':')?;
            let n = n.parse().ok()?;
            if message.contains("the recording has a") {
                Some((n, "mismatch"))
            } else if message.contains("answered as recorded") {
                Some((n, "note"))
            } else {
                None
            }
        })
        .collect()
}

fn notification(
    kind: &str,
    key: &str,
    rv: &str,
    initial: &Value,
    sync: &Value,
    tombstone: &Value,
) -> String {
    let flag = |v: &Value, name: &str| {
        if v == true {
            format!(" {name}")
        } else {
            String::new()
        }
    };
    format!(
        "{kind} {key} rv={rv}{}{}{}",
        flag(initial, "initial"),
        flag(sync, "sync"),
        flag(tombstone, "tombstone")
    )
}

/// The oracle's distinct runs, each in the compared form.
async fn oracle_traces(case: &Case, release: &str) -> Vec<Trace> {
    let bin = oracle_binary(release);
    let file = corpus().join(&case.file);
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.args(["-test.run", "TestReplay", "-record"])
        .arg(&file)
        .args([
            "-resync",
            &go_duration(&case.resync),
            "-on-panic",
            "skip",
            "-out",
        ])
        .arg(out.path());
    for h in &case.handlers {
        cmd.args(["-handler", h]);
    }
    if let Some(w) = case.watch_list {
        cmd.arg(format!("-watch-list={w}"));
    }
    if let Some(s) = &case.stream {
        cmd.args(["-stream", s]);
    }
    if let Some(t) = &case.transform {
        cmd.args(["-transform", t]);
    }
    if case.metadata_only {
        cmd.arg("-metadata-only");
    }
    let r = run(cmd).await;
    assert_eq!(
        r.code,
        0,
        "{} failed:\n{}\n{}",
        bin.display(),
        r.stdout,
        r.stderr
    );
    let text = std::fs::read_to_string(out.path()).unwrap();
    let mut runs: Vec<Trace> = Vec::new();
    for line in text.lines().skip(1) {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["event"] == "run" {
            runs.push(Trace::new());
        } else if let Some(trace) = runs.last_mut() {
            oracle_line(&v, trace);
        }
    }
    runs.iter_mut().for_each(capped_notes);
    runs.into_iter().map(normalized).collect()
}

/// kinformer spells durations as Go does except a bare number of seconds.
fn go_duration(d: &str) -> String {
    if d.chars().all(|c| c.is_ascii_digit()) {
        format!("{d}s")
    } else {
        d.to_owned()
    }
}

/// An oracle line in the compared form.
fn oracle_line(v: &Value, trace: &mut Trace) {
    let resource = v["resource"].as_str().unwrap_or_default();
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    let requests = format!("{resource} requests");
    match v["event"].as_str() {
        Some("notify") => {
            let key = format!("{resource} {}", s("handler"));
            let line = notification(
                &s("kind"),
                &s("key"),
                &s("rv"),
                &v["initial"],
                &v["sync"],
                &v["tombstone"],
            );
            trace.entry(key).or_default().push(line);
        }
        Some("request") if v["verb"] == "list" && s("continue").is_empty() => {
            let line = format!(
                "list rv={:?} rvm={:?} limit={}",
                s("rv"),
                s("rvm"),
                v["limit"].as_u64().unwrap_or(0)
            );
            trace.entry(requests).or_default().push(line);
        }
        Some("request") if v["verb"] == "list" => {
            trace
                .entry(requests)
                .or_default()
                .push("list continue".into());
        }
        Some("request") => {
            let line = format!(
                "watch rv={:?} rvm={:?} initial_events={}",
                s("rv"),
                s("rvm"),
                v["send_initial_events"] == true
            );
            trace.entry(requests).or_default().push(line);
        }
        Some("cache") => {
            let line = cached(&s("key"), &s("rv"));
            trace
                .entry(format!("{resource} cache"))
                .or_default()
                .push(line);
        }
        Some(what @ ("note" | "mismatch")) => {
            let line = format!("{what} line {}", v["line"]);
            trace.entry("replay".into()).or_default().push(line);
        }
        _ => {}
    }
}

/// The suffix of the stream of a handler's `handled` events in kinformer's trace.
const HANDLED: &str = " #handled";

/// Whether the oracle's `go` sequence of a handler fits kinformer's: a prefix of the notified
/// ones (the trailing run of sync or tombstone notifications, in Go map order, as a sub-multiset
/// of kinformer's run there), at least as long as the handled ones.
fn fits(go: &[String], notified: &[String], handled: usize) -> bool {
    let unordered = |l: &String| l.ends_with(" sync") || l.ends_with(" tombstone");
    let tail = go.iter().rev().take_while(|l| unordered(l)).count();
    let (prefix, last_run) = go.split_at(go.len() - tail);
    if go.len() < handled || !notified.starts_with(prefix) {
        return false;
    }
    let mut pool: Vec<&String> = notified[prefix.len()..]
        .iter()
        .take_while(|l| unordered(l))
        .collect();
    last_run.iter().all(|l| {
        let found = pool.iter().position(|p| *p == l);
        found.map(|i| pool.swap_remove(i)).is_some()
    })
}

/// Whether the oracle's `go` sequence of a handler fits kinformer's object by object: each
/// key's notifications a prefix of kinformer's for that key, at least as many as were handled.
/// A watch-list hands client-go's store its initial and relisted objects in Go map order
/// (`r.store.Replace(temporaryStore.List(), …)`, reflector.go v0.36.6:901): across keys the
/// order of such a Replace is not client-go's own.
fn fits_per_key(go: &[String], notified: &[String], handled: usize) -> bool {
    let by_key = |lines: &[String]| {
        let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for l in lines {
            let key = l.split(' ').nth(1).unwrap_or_default().to_owned();
            keys.entry(key).or_default().push(l.clone());
        }
        keys
    };
    let mine = by_key(notified);
    go.len() >= handled
        && by_key(go)
            .iter()
            .all(|(key, lines)| mine.get(key).is_some_and(|m| m.starts_with(lines)))
}

/// The first difference between kinformer's trace and the closest oracle run, if any; sets
/// `per_key` when a handler matched only object by object ([`fits_per_key`]).
fn first_difference(ours: &Trace, theirs: &[Trace], per_key: &mut bool) -> Option<String> {
    let streams: BTreeSet<&String> = ours
        .keys()
        .chain(theirs.iter().flat_map(|t| t.keys()))
        .filter(|s| !s.ends_with(HANDLED))
        .collect();
    for stream in streams {
        let mine = ours.get(stream).cloned().unwrap_or_default();
        let options: Vec<Vec<String>> = theirs
            .iter()
            .map(|t| t.get(stream).cloned().unwrap_or_default())
            .collect();
        let handled = ours.get(&format!("{stream}{HANDLED}")).map(Vec::len);
        let matched = match handled {
            Some(handled) => options.iter().any(|go| fits(go, &mine, handled)),
            None => options.contains(&mine),
        };
        if matched {
            continue;
        }
        if let Some(handled) = handled
            && options.iter().any(|go| fits_per_key(go, &mine, handled))
        {
            *per_key = true;
            continue;
        }
        let go = &options[0];
        let i = mine.iter().zip(go).take_while(|(a, b)| a == b).count();
        let at = |s: &[String]| s.get(i).cloned().unwrap_or_else(|| "(nothing)".into());
        return Some(format!(
            "{stream} #{}: kinformer {:?}, client-go {:?} ({} oracle runs)",
            i + 1,
            at(&mine),
            at(go),
            options.len()
        ));
    }
    // Every stream matches some run, but no single run matches them all: per stream is what
    // the rule compares (interleaving across handlers is scheduling).
    None
}

#[tokio::test]
async fn kinformer_replays_the_corpus_as_client_go_does() {
    let only = std::env::var("ORACLE_CASES").unwrap_or_default();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| only.is_empty() || only.split(',').any(|o| c.name.starts_with(o)))
        .collect();
    let started = std::time::Instant::now();
    let mut table = vec![format!("{:<50} {}", "case", RELEASES.join("      "))];
    let mut failures = Vec::new();
    for case in &cases {
        let mut row = format!("{:<50}", case.name);
        for release in RELEASES {
            let theirs = oracle_traces(case, release).await;
            let ours = kinformer_trace(case, release).await;
            let mut per_key = false;
            let difference = first_difference(&ours, &theirs, &mut per_key);
            let cell = match (difference, case.known.get(release)) {
                (None, None) if per_key => "same/key",
                (None, None) => "same ",
                (Some(_), Some(_)) => "known",
                (None, Some(why)) => {
                    failures.push(format!(
                        "{} × {release}: same now, but cases.json still calls it known ({why})",
                        case.name
                    ));
                    "STALE"
                }
                (Some(d), None) => {
                    failures.push(format!("{} × {release}: {d}", case.name));
                    "DIFF "
                }
            };
            row.push_str(&format!(" {cell:<9}"));
        }
        table.push(row);
    }
    println!("{}", table.join("\n"));
    println!(
        "{} cases × {} releases in {:.1?}",
        cases.len(),
        RELEASES.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "kinformer differs from client-go (the oracle wins; see docs/oracle.md):\n{}\n{}",
        failures.join("\n"),
        table.join("\n")
    );
}
