//! The embedded server measured against the real kube-apiserver, request by request: every
//! case of `crates/kinformer-apiserver/tests/conformance/*.yaml` is sent, in order, to
//! both servers; their answers — status code, `Content-Type`, `Warning` headers and the body,
//! normalised — are compared, and the outcome is the conformance table of
//! `crates/kinformer-apiserver/README.md` (between its `conformance:begin` and
//! `conformance:end` marks). Each differing row carries its reason, from
//! `tests/conformance/differences.yaml` (module `reasons`). The test fails when the table there
//! is not the one measured (to write it: `KINFORMER_CONFORMANCE_WRITE=1 scripts/test --test
//! binary conformance`), and when a differing row has no reason or a reason names a row that is
//! identical or absent. `KINFORMER_CONFORMANCE_DUMP=DIR` also writes both normalised answers of
//! every differing row in `DIR` (to read the whole difference, not only the first). The embedded
//! server runs as the reference's minor (1.37).
//!
//! A corpus entry is a lone request or a `sequence`: a little program run step by step on both
//! servers at once, whose requests may use values earlier answers saved (`{rv}`), whose
//! `background` watches stay open while later steps write (their row: the whole event
//! sequence, at the step that awaits them), and whose actions forget history (`compact`:
//! kube-apiserver's etcd compacted, `restart`: its watch cache started anew; the embedded
//! server's history trimmed for either).
//!
//! ResourceVersions are ranked, not dropped (module `ranks`): within a sequence, per server,
//! each object's becomes its rank, a list's or bookmark's the rank of the newest object's at or
//! below it, so order, equality and gap-free resume are compared. Masked on both sides (what no
//! two servers or runs share): `uid`, `creationTimestamp`, `deletionTimestamp`, `continue`
//! tokens, managedFields `time`s, conditions' `lastTransitionTime`, `/version`'s build fields
//! (`gitCommit`, `buildDate`, `goVersion`: the reference is built locally; its `gitVersion` is
//! compared), the server's own address in `/api` and its port in the `default/kubernetes`
//! Service, an `Age` cell of a Table, the random suffix of a pod's `kube-api-access-XXXXX`
//! token volume (the ServiceAccount admission plugin's generated name). A watch (ended by its
//! `timeoutSeconds`) is compared event by event.
//! A protobuf answer (`application/vnd.kubernetes.protobuf`, a watch's length-prefixed frames)
//! is compared in the canonical form of module `protobuf`: every field by number, in wire
//! order, with its wire type and value, the same values masked by their position — equal
//! exactly when the bytes are, but for the masked values and the lengths around them.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde::Deserialize;
use serde_json::Value;

use crate::refserver_fixture::RefServer;

mod etcd;
mod protobuf;
mod ranks;
mod reasons;

use reasons::{Bookkeeping, Reasons};

/// The namespace the corpus writes in (`{ns}` in its paths and bodies).
const NAMESPACE: &str = "conformance";

/// The minor of the reference kube-apiserver (v1.37.2), which the embedded server is asked to
/// behave as (`/version`, discovery).
const REFERENCE_MINOR: u32 = 37;

/// How long a case with `until` repeats its request.
const UNTIL_DEADLINE: Duration = Duration::from_secs(30);

/// One request of the corpus.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    method: String,
    path: String,
    body: Option<String>,
    content_type: Option<String>,
    accept: Option<String>,
    until: Option<u16>,
    /// `status` compares the status code alone (bodies no normalisation makes comparable).
    compare: Option<String>,
    /// Values of the answer (raw, before any mask) kept for the sequence's later requests, by
    /// name: `{name}` in their paths and bodies becomes the value at the JSON pointer given
    /// (`rv: /metadata/resourceVersion`).
    save: Option<BTreeMap<String, String>>,
    /// A watch that runs while the sequence goes on: the request is sent, its headers awaited
    /// (the watch is open), and its body read to its end in the background until the step
    /// `await: NAME` (its row is that whole event sequence).
    background: Option<String>,
}

/// A step of a sequence that sends no request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Action {
    /// Waits for the background watch of this name to end.
    #[serde(rename = "await")]
    awaited: Option<String>,
    /// Forgets every older resourceVersion: kube-apiserver's etcd is compacted at its current
    /// revision, the embedded server's history trimmed (`trim-history`).
    compact: Option<bool>,
    /// Restarts kube-apiserver (its watch cache starts anew at etcd's revision), and trims
    /// the embedded server's history likewise.
    restart: Option<bool>,
}

/// One step of a sequence.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Step {
    Request(Case),
    Action(Action),
}

/// A little program: requests (and actions) run in order on each server, its rows named
/// `SEQUENCE: STEP`, its resourceVersions ranked together (module `ranks`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sequence {
    sequence: String,
    steps: Vec<Step>,
}

/// An entry of a corpus file: a lone request (a sequence of one) or a sequence.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Entry {
    Sequence(Sequence),
    Case(Case),
}

/// What a server answered, normalised.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: String,
    warnings: Vec<String>,
    body: Body,
    /// When each line of the body came, from the headers on (a watch's events), not compared.
    arrivals: Vec<Duration>,
}

#[derive(Debug, PartialEq)]
enum Body {
    /// The normalised value (keys sorted), and the order the top-level keys were written in.
    Json(Value, TopKeys),
    Text(String),
}

/// An object's top-level keys in the order they were written (kube-apiserver writes Go's
/// field order: `kind`, `apiVersion`, `metadata`, …); empty for a value that is no object.
#[derive(Debug, Default, PartialEq)]
struct TopKeys(Vec<String>);

impl<'de> Deserialize<'de> for TopKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = TopKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<TopKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    m.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(TopKeys(keys))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<TopKeys, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(TopKeys::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
            fn visit_unit<E>(self) -> Result<TopKeys, E> {
                Ok(TopKeys::default())
            }
        }
        d.deserialize_any(Keys)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/kinformer-apiserver")
}

/// The corpus: `corpus.yaml` first (it creates the namespace the others write in), then every
/// other `*.yaml` of `tests/conformance/` in name order (one file per area of the API), but
/// the reasons file.
fn corpus() -> Vec<Sequence> {
    let dir = root().join("tests/conformance");
    let mut others: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus directory")
        .map(|entry| entry.expect("a corpus file").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "yaml")
                && !p.ends_with("corpus.yaml")
                && !p.ends_with(reasons::FILE)
        })
        .collect();
    others.sort();
    std::iter::once(dir.join("corpus.yaml"))
        .chain(others)
        .flat_map(|path| {
            let text = std::fs::read_to_string(&path).expect("a corpus file");
            serde_saphyr::from_str::<Vec<Entry>>(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .map(|entry| match entry {
            Entry::Sequence(sequence) => sequence,
            Entry::Case(case) => Sequence {
                sequence: String::new(),
                steps: vec![Step::Request(case)],
            },
        })
        .collect()
}

/// `case`'s request, `{ns}` and the values its sequence saved (`{name}`) filled in.
fn request(case: &Case, saved: &HashMap<String, String>) -> http::Request<kube::client::Body> {
    let fill = |s: &str| {
        saved
            .iter()
            .fold(s.replace("{ns}", NAMESPACE), |s, (name, value)| {
                s.replace(&format!("{{{name}}}"), value)
            })
    };
    let mut builder = http::Request::builder()
        .method(case.method.as_str())
        .uri(fill(&case.path))
        .header(
            http::header::ACCEPT,
            case.accept.as_deref().unwrap_or("application/json"),
        );
    let body = match &case.body {
        Some(body) => {
            builder = builder.header(
                http::header::CONTENT_TYPE,
                case.content_type.as_deref().unwrap_or("application/json"),
            );
            with_raw_bytes(
                &fill(body)
                    .replace("{big}", &big())
                    .replace("{1MiB+}", &over_a_mebibyte()),
            )
        }
        None => Vec::new(),
    };
    builder
        .body(kube::client::Body::from(body))
        .expect("a request")
}

/// How long one request (a watch's `timeoutSeconds` included) may take, body and all.
const REQUEST_DEADLINE: Duration = Duration::from_secs(30);

/// How long a background watch may run (the longest waits for kube-apiserver's one-minute
/// bookmark).
const BACKGROUND_DEADLINE: Duration = Duration::from_secs(120);

/// One server as the corpus drives it: its client, what the current sequence saved, and its
/// background watches (each with its row).
struct Side {
    client: kube::Client,
    saved: HashMap<String, String>,
    watches: HashMap<String, (usize, tokio::task::JoinHandle<Answer>)>,
}

impl Side {
    fn new(client: kube::Client) -> Side {
        Side {
            client,
            saved: HashMap::new(),
            watches: HashMap::new(),
        }
    }

    /// Sends `case` (again until its `until` status, if it has one) and keeps what it saves;
    /// the answer is raw (its sequence's ranks and the masks come at the end of the run).
    async fn send(&mut self, case: &Case) -> Answer {
        let started = Instant::now();
        loop {
            let answer = tokio::time::timeout(REQUEST_DEADLINE, async {
                read(&case.name, open(&self.client, case, &self.saved).await).await
            })
            .await
            .unwrap_or_else(|_| panic!("{}: no whole answer in {REQUEST_DEADLINE:?}", case.name));
            match case.until {
                Some(want) if answer.status != want && started.elapsed() < UNTIL_DEADLINE => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                _ => {
                    self.save(case, &answer);
                    return answer;
                }
            }
        }
    }

    /// Opens `case`'s watch (its headers are in: the server has registered it) and reads its
    /// body in the background, as row `row`.
    async fn start(&mut self, case: &Case, name: &str, row: usize) {
        let response =
            tokio::time::timeout(REQUEST_DEADLINE, open(&self.client, case, &self.saved))
                .await
                .unwrap_or_else(|_| panic!("{}: no headers in {REQUEST_DEADLINE:?}", case.name));
        let case_name = case.name.clone();
        let reading = tokio::spawn(async move {
            tokio::time::timeout(BACKGROUND_DEADLINE, read(&case_name, response))
                .await
                .unwrap_or_else(|_| panic!("{case_name}: no end in {BACKGROUND_DEADLINE:?}"))
        });
        self.watches.insert(name.to_owned(), (row, reading));
    }

    /// Waits for the background watch `name` to end: its row and its whole answer.
    async fn finish(&mut self, name: &str) -> (usize, Answer) {
        let (row, reading) = self
            .watches
            .remove(name)
            .unwrap_or_else(|| panic!("`await: {name}` names no background watch"));
        (row, reading.await.expect("the watch is read"))
    }

    /// Keeps the values `case` saves from `answer`.
    fn save(&mut self, case: &Case, answer: &Answer) {
        for (name, pointer) in case.save.iter().flatten() {
            let value = match &answer.body {
                Body::Json(v, _) => v.pointer(pointer),
                Body::Text(_) => None,
            };
            let value = value
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("{}: no string at {pointer} to save", case.name));
            self.saved.insert(name.clone(), value.to_owned());
        }
    }
}

/// Sends `case`'s request; the response once its headers are in.
async fn open(
    client: &kube::Client,
    case: &Case,
    saved: &HashMap<String, String>,
) -> http::Response<kube::client::Body> {
    client
        .send(request(case, saved))
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", case.name))
}

/// The whole answer of `response` (a watch's body as its array of events), not normalised.
async fn read(name: &str, response: http::Response<kube::client::Body>) -> Answer {
    let (parts, body) = response.into_parts();
    let header = |name: &http::HeaderName| -> Vec<String> {
        parts
            .headers
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect()
    };
    let status = parts.status.as_u16();
    let content_type = header(&http::header::CONTENT_TYPE).join(", ");
    let warnings = header(&http::HeaderName::from_static("warning"));
    let opened = Instant::now();
    let mut body = body;
    let mut bytes = Vec::new();
    let mut arrivals = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.unwrap_or_else(|e| panic!("{name}: the body: {e}"));
        if let Ok(data) = frame.into_data() {
            let lines = data.iter().filter(|b| **b == b'\n').count();
            arrivals.extend(std::iter::repeat_n(opened.elapsed(), lines));
            bytes.extend_from_slice(&data);
        }
    }
    let protobuf = content_type
        .starts_with("application/vnd.kubernetes.protobuf")
        .then(|| protobuf::canonical(&bytes, content_type.ends_with(";stream=watch")));
    let body = match (protobuf, serde_json::from_slice::<Value>(&bytes)) {
        (Some(Some(tree)), _) => Body::Json(tree, TopKeys::default()),
        (Some(None), _) => Body::Text(format!("unreadable protobuf: {bytes:x?}")),
        (None, Ok(v)) if !is_watch_stream(&v) => {
            Body::Json(v, serde_json::from_slice(&bytes).unwrap_or_default())
        }
        (None, _) => match watch_events(&bytes) {
            Some(events) => Body::Json(events, TopKeys::default()),
            None => Body::Text(String::from_utf8_lossy(&bytes).into_owned()),
        },
    };
    Answer {
        status,
        content_type,
        warnings,
        body,
        arrivals,
    }
}

/// A body that is one watch event alone (a watch that sent one event) is read as a stream of
/// one, like every other watch.
fn is_watch_stream(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.len() == 2 && o.contains_key("object") && o.get("type").is_some_and(Value::is_string)
    })
}

/// `answer` masked as the comparison wants it (its resourceVersions already ranked); `compare:
/// status` keeps its status alone.
fn finished(mut answer: Answer, compare: Option<&str>) -> Answer {
    if let Body::Json(v, _) = &mut answer.body {
        normalise(v, "");
        if let Value::Array(events) = v
            && events.len() == answer.arrivals.len()
        {
            drop_repeated_bookmarks(events, &answer.arrivals);
        }
    }
    match compare {
        Some("status") => Answer {
            content_type: String::new(),
            warnings: Vec::new(),
            body: Body::Text(String::new()),
            ..answer
        },
        _ => answer,
    }
}

/// How soon a BOOKMARK at the resourceVersion of the one before it counts as that one again.
const REPEATED_BOOKMARK: Duration = Duration::from_secs(2);

/// Drops each BOOKMARK that repeats the one just before it (the same resourceVersion, under
/// [`REPEATED_BOOKMARK`] later). kube-apiserver's watch cache sends bookmarks from a 1 s
/// timer (jittered by up to 0.25 s) to the watchers whose per-second bucket has come
/// (cacher.go apiserver v0.37.2:221-249, 945-957), a bucket up to a second early: a watcher
/// popped before its bookmark time is queued again for the next tick (:1168-1174), so the
/// bookmark 2 s before a deadline, and the one right after a watch-list's
/// `initial-events-end` bookmark, come once or twice by the timer's phase.
fn drop_repeated_bookmarks(events: &mut Vec<Value>, arrivals: &[Duration]) {
    let rv = |e: &Value| e["object"]["metadata"]["resourceVersion"].clone();
    let mut kept: Vec<(Value, Duration)> = Vec::with_capacity(events.len());
    for (event, at) in events.drain(..).zip(arrivals) {
        let repeats = kept.last().is_some_and(|(last, last_at)| {
            event["type"] == "BOOKMARK"
                && last["type"] == "BOOKMARK"
                && rv(last) == rv(&event)
                && at.saturating_sub(*last_at) < REPEATED_BOOKMARK
        });
        if !repeats {
            kept.push((event, *at));
        }
    }
    events.extend(kept.into_iter().map(|(event, _)| event));
}

/// A watch's body (one JSON event per line, ended by the request's `timeoutSeconds`) as an
/// array of events; `None` when some line is no JSON.
fn watch_events(bytes: &[u8]) -> Option<Value> {
    let events = bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(|line| serde_json::from_slice::<Value>(line).ok())
        .collect::<Option<Vec<_>>>()?;
    Some(Value::Array(events))
}

/// A body's bytes, each `{byte:XX}` in it (two hex digits) written as that one byte: how the
/// corpus, a text file, sends bytes that are no UTF-8.
fn with_raw_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{byte:") {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let after = &rest[at + "{byte:".len()..];
        match after.get(..3).and_then(|h| h.strip_suffix('}')) {
            Some(hex) if u8::from_str_radix(hex, 16).is_ok() => {
                out.push(u8::from_str_radix(hex, 16).unwrap_or_default());
                rest = &after[3..];
            }
            _ => {
                out.extend_from_slice(b"{byte:");
                rest = after;
            }
        }
    }
    out.extend_from_slice(rest.as_bytes());
    out
}

/// `{big}` in a body: one byte over kube-apiserver's 3 MiB limit on a request body
/// (`MaxRequestBodyBytes`).
fn big() -> String {
    "x".repeat(3 * 1024 * 1024 + 1)
}

/// `{1MiB+}` in a body: a ConfigMap value one byte over the 1 MiB a ConfigMap may hold.
fn over_a_mebibyte() -> String {
    "x".repeat(1024 * 1024 + 1)
}

/// Masks, in place, what differs between any two servers or runs.
fn normalise(v: &mut Value, key: &str) {
    const MASKED: [&str; 12] = [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "continue",
        "time",
        "lastTransitionTime",
        "buildDate",
        "gitCommit",
        "goVersion",
        "serverAddress",
        // A Job's generated selector and labels carry its uid (batch/job/strategy.go).
        "batch.kubernetes.io/controller-uid",
        "controller-uid",
    ];
    if MASKED.contains(&key) && !v.is_object() && !v.is_array() {
        *v = Value::String("MASKED".into());
        return;
    }
    if let Some(name) = v.as_str()
        && let Some(suffix) = name.strip_prefix("kube-api-access-")
        && suffix.len() == 5
    {
        *v = Value::String("kube-api-access-MASKED".into());
        return;
    }
    mask_table_age(v);
    mask_own_port(v);
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                normalise(child, k);
            }
        }
        Value::Array(items) => {
            for child in items {
                normalise(child, key);
            }
        }
        _ => {}
    }
}

/// The `default/kubernetes` Service's `targetPort`: each server's own secure port (a free
/// port per run), as the Service names it.
fn mask_own_port(v: &mut Value) {
    let is_own = v["kind"] == "Service"
        && v["metadata"]["name"] == "kubernetes"
        && v["metadata"]["namespace"] == "default";
    if !is_own {
        return;
    }
    for port in v["spec"]["ports"].as_array_mut().into_iter().flatten() {
        if port.get("targetPort").is_some() {
            port["targetPort"] = Value::String("MASKED".into());
        }
    }
}

/// A Table's `Age` cells (they tell how long ago each object was made).
fn mask_table_age(v: &mut Value) {
    if v["kind"] != "Table" {
        return;
    }
    let Some(age) = v["columnDefinitions"]
        .as_array()
        .and_then(|columns| columns.iter().position(|c| c["name"] == "Age"))
    else {
        return;
    };
    for row in v["rows"].as_array_mut().into_iter().flatten() {
        if let Some(cell) = row["cells"].get_mut(age) {
            *cell = Value::String("MASKED".into());
        }
    }
}

/// The first difference between the real server's answer and the embedded one's, if any.
fn difference(real: &Answer, embedded: &Answer) -> Option<String> {
    if real.status != embedded.status {
        return Some(format!("status {} vs {}", real.status, embedded.status));
    }
    if real.content_type != embedded.content_type {
        return Some(format!(
            "Content-Type `{}` vs `{}`",
            real.content_type, embedded.content_type
        ));
    }
    if real.warnings != embedded.warnings {
        return Some(format!(
            "Warning {:?} vs {:?}",
            real.warnings, embedded.warnings
        ));
    }
    match (&real.body, &embedded.body) {
        (Body::Json(a, a_keys), Body::Json(b, b_keys)) => json_difference(a, b, "").or_else(|| {
            (a_keys != b_keys)
                .then(|| format!("key order: real {:?} vs embedded {:?}", a_keys.0, b_keys.0))
        }),
        (a, b) if a == b => None,
        _ => Some("body: JSON vs text, or texts differ".to_owned()),
    }
}

/// Where two JSON values first differ (a JSON pointer), with both sides shortened.
fn json_difference(real: &Value, embedded: &Value, at: &str) -> Option<String> {
    match (real, embedded) {
        (Value::Object(a), Value::Object(b)) => {
            if let Some(k) = a.keys().find(|k| !b.contains_key(*k)) {
                return Some(format!("{at}/{k}: only the real server has it"));
            }
            if let Some(k) = b.keys().find(|k| !a.contains_key(*k)) {
                return Some(format!("{at}/{k}: only the embedded server has it"));
            }
            a.iter()
                .find_map(|(k, v)| json_difference(v, &b[k], &format!("{at}/{k}")))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| json_difference(x, y, &format!("{at}/{i}"))),
        (Value::Array(a), Value::Array(b)) => {
            Some(format!("{at}: {} items vs {}", a.len(), b.len()))
        }
        (a, b) if a == b => None,
        (a, b) => Some(format!(
            "{at}: real {} vs embedded {}",
            shortened(a),
            shortened(b)
        )),
    }
}

fn shortened(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

/// The conformance table in Markdown, with its count line: each row's outcome and, for a row
/// that differs, why (from the reasons file).
fn table(rows: &[(String, Option<String>)], reasons: &Reasons) -> String {
    let identical = rows.iter().filter(|(_, d)| d.is_none()).count();
    let mut out = format!(
        "{identical} of {} requests answered identically (normalised as \
         `tests/binary/conformance.rs` says), against kube-apiserver {}; why a row differs, when one \
         does: `tests/conformance/{}`.\n\n\
         | request | outcome | why |\n|---|---|---|\n",
        rows.len(),
        refserver_release(),
        reasons::FILE
    );
    let cell = |text: &str| text.replace('|', "\\|");
    for (name, difference) in rows {
        let (outcome, why) = match difference {
            None => ("identical".to_owned(), String::new()),
            Some(d) => (
                format!("differs: {}", cell(d)),
                cell(&reasons.of(name).unwrap_or_default()),
            ),
        };
        out.push_str(&format!("| {} | {outcome} | {why} |\n", cell(name)));
    }
    out
}

/// The release `go/refserver/go.mod` builds.
fn refserver_release() -> String {
    let go_mod = Path::new(env!("CARGO_MANIFEST_DIR")).join("go/refserver/go.mod");
    let text = std::fs::read_to_string(go_mod).expect("go/refserver/go.mod");
    text.lines()
        .find_map(|l| l.trim().strip_prefix("k8s.io/kubernetes "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("k8s.io/kubernetes in go/refserver/go.mod")
        .to_owned()
}

/// Writes both answers of the differing case number `i` in `dir`, as
/// `NNN-real.txt` and `NNN-embedded.txt` (the case's name first, then the normalised answer).
fn dump_answers(dir: &Path, i: usize, name: &str, real: &Answer, embedded: &Answer) {
    std::fs::create_dir_all(dir).expect("the dump directory");
    for (side, answer) in [("real", real), ("embedded", embedded)] {
        let body = match &answer.body {
            Body::Json(v, keys) => format!(
                "top-level keys: {:?}\n{}",
                keys.0,
                serde_json::to_string_pretty(v).expect("JSON")
            ),
            Body::Text(text) => text.clone(),
        };
        let text = format!(
            "{name}\nstatus {}\nContent-Type {}\nWarning {:?}\narrivals {:?}\n{body}\n",
            answer.status, answer.content_type, answer.warnings, answer.arrivals
        );
        std::fs::write(dir.join(format!("{i:03}-{side}.txt")), text).expect("a dump file");
    }
}

const BEGIN: &str = "<!-- conformance:begin -->\n";
const END: &str = "<!-- conformance:end -->";

/// A row of the table as measured: both raw answers (a background watch's come at its
/// `await`), before its sequence's ranks and the masks.
struct Measured {
    name: String,
    sequence: usize,
    compare: Option<String>,
    real: Option<Answer>,
    embedded: Option<Answer>,
}

impl Measured {
    fn new(sequence_name: &str, sequence: usize, case: &Case) -> Measured {
        let name = if sequence_name.is_empty() {
            case.name.clone()
        } else {
            format!("{sequence_name}: {}", case.name)
        };
        Measured {
            name,
            sequence,
            compare: case.compare.clone(),
            real: None,
            embedded: None,
        }
    }
}

/// Each sequence's answers ranked (per server), masked and compared: every row's name and
/// its first difference, if any (written, with both answers, under
/// `KINFORMER_CONFORMANCE_DUMP`).
fn compared(mut measured: Vec<Measured>) -> Vec<(String, Option<String>)> {
    for sequence in measured.chunk_by_mut(|a, b| a.sequence == b.sequence) {
        for side in [Server::Real, Server::Embedded] {
            let mut bodies: Vec<&mut Value> = sequence
                .iter_mut()
                .filter_map(|row| match side.of(row) {
                    Some(Answer {
                        body: Body::Json(v, _),
                        ..
                    }) => Some(v),
                    _ => None,
                })
                .collect();
            ranks::mask(&mut bodies);
        }
    }
    let dump = std::env::var_os("KINFORMER_CONFORMANCE_DUMP").map(PathBuf::from);
    let mut rows = Vec::new();
    for (i, row) in measured.into_iter().enumerate() {
        let compare = row.compare.as_deref();
        let a = finished(row.real.expect("a real answer"), compare);
        let b = finished(row.embedded.expect("an embedded answer"), compare);
        let difference = difference(&a, &b);
        if let Some(dir) = &dump
            && difference.is_some()
        {
            dump_answers(dir, i, &row.name, &a, &b);
        }
        rows.push((row.name, difference));
    }
    rows
}

/// Which server's answer.
#[derive(Clone, Copy)]
enum Server {
    Real,
    Embedded,
}

impl Server {
    fn of(self, row: &mut Measured) -> Option<&mut Answer> {
        match self {
            Server::Real => row.real.as_mut(),
            Server::Embedded => row.embedded.as_mut(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_table_is_the_one_measured_against_kube_apiserver() {
    // A server of its own (other tests' CRDs would change its discovery), with the
    // ServiceAccount admission plugin on, as the embedded server admits pods (the flag turns
    // off the fixture's default `--disable-admission-plugins=ServiceAccount`).
    let real_server = RefServer::dedicated("--disable-admission-plugins=");
    let mut config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(real_server.kubeconfig()).expect("a kubeconfig"),
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .expect("the real server's kubeconfig");
    // Each answer as the server gave it: kube's client would send a 429 again.
    config.default_retry = false;
    let real = kube::Client::try_from(config).expect("a client");
    // The embedded server behaves as the release it is compared with.
    let embedded_server = EmbeddedServer::start(ServerConfig {
        kubernetes_minor: REFERENCE_MINOR,
        ..ServerConfig::default()
    })
    .await
    .expect("the embedded server starts");
    let mut embedded_config = embedded_server.kube_config();
    embedded_config.default_retry = false;
    let embedded = kube::Client::try_from(embedded_config).expect("a client");

    let mut real = Side::new(real);
    let mut embedded = Side::new(embedded);
    let mut measured = Vec::<Measured>::new();
    for (number, sequence) in corpus().into_iter().enumerate() {
        real.saved.clear();
        embedded.saved.clear();
        for step in sequence.steps {
            match step {
                Step::Request(case) => {
                    let row = measured.len();
                    measured.push(Measured::new(&sequence.sequence, number, &case));
                    // Both servers at once (each sees the corpus in order): a watch's wait
                    // is counted once.
                    if let Some(watch) = &case.background {
                        tokio::join!(
                            real.start(&case, watch, row),
                            embedded.start(&case, watch, row)
                        );
                    } else {
                        let (a, b) = tokio::join!(real.send(&case), embedded.send(&case));
                        measured[row].real = Some(a);
                        measured[row].embedded = Some(b);
                    }
                }
                Step::Action(action) => {
                    if let Some(watch) = &action.awaited {
                        let (row, answer) = real.finish(watch).await;
                        measured[row].real = Some(answer);
                        let (row, answer) = embedded.finish(watch).await;
                        measured[row].embedded = Some(answer);
                    }
                    if action.compact == Some(true) {
                        let url = real_server.etcd_url();
                        tokio::task::block_in_place(|| etcd::compact(&url));
                        embedded_server.trim_history();
                    }
                    if action.restart == Some(true) {
                        tokio::task::block_in_place(|| real_server.restart());
                        embedded_server.trim_history();
                    }
                }
            }
        }
    }
    let open: Vec<&String> = real.watches.keys().collect();
    assert!(
        open.is_empty(),
        "background watches never awaited: {open:?}"
    );
    let rows = compared(measured);
    let reasons_path = root().join("tests/conformance").join(reasons::FILE);
    let reasons = Reasons::read(&reasons_path).unwrap_or_else(|e| panic!("{e}"));
    let measured = table(&rows, &reasons);

    let readme_path = root().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("the server's README");
    let (before, rest) = readme
        .split_once(BEGIN)
        .expect("the README has a conformance:begin mark");
    let (kept, after) = rest
        .split_once(END)
        .expect("the README has a conformance:end mark");
    let write = std::env::var_os("KINFORMER_CONFORMANCE_WRITE").is_some();
    if write {
        std::fs::write(
            &readme_path,
            format!("{before}{BEGIN}{measured}{END}{after}"),
        )
        .expect("the README is written");
    }
    let bookkeeping = Bookkeeping::check(&rows, &reasons);
    assert!(
        bookkeeping.is_empty(),
        "the reasons file does not match the rows measured:\n{}",
        bookkeeping.message(&format!(
            "crates/kinformer-apiserver/tests/conformance/{}",
            reasons::FILE
        ))
    );
    if write {
        return;
    }
    assert_eq!(
        kept, measured,
        "the conformance table in crates/kinformer-apiserver/README.md is not the one measured; \
         write it with KINFORMER_CONFORMANCE_WRITE=1 scripts/test --test binary conformance"
    );
}

#[test]
fn raw_bytes_are_written_where_the_corpus_names_them() {
    assert_eq!(with_raw_bytes("a{byte:FF}b{byte:0a}"), b"a\xFFb\n");
    assert_eq!(with_raw_bytes("{byte:zz}"), b"{byte:zz}");
}

#[test]
fn the_comparison_finds_the_first_difference_and_ignores_what_is_masked() {
    let answer = |body: Value| {
        let keys = serde_json::from_value(body.clone()).unwrap();
        let mut body = body;
        normalise(&mut body, "");
        Answer {
            status: 200,
            content_type: "application/json".into(),
            warnings: Vec::new(),
            body: Body::Json(body, keys),
            arrivals: Vec::new(),
        }
    };
    let a = answer(serde_json::json!({"metadata": {"uid": "1", "name": "x"}, "b": [1, 2]}));
    let b = answer(serde_json::json!({"metadata": {"uid": "2", "name": "x"}, "b": [1, 2]}));
    assert_eq!(difference(&a, &b), None, "uids are masked");
    let c = answer(serde_json::json!({"metadata": {"uid": "2", "name": "y"}, "b": [1, 2]}));
    assert_eq!(
        difference(&a, &c).as_deref(),
        Some("/metadata/name: real `\"x\"` vs embedded `\"y\"`")
    );
    let written = |text: &str| {
        let v: Value = serde_json::from_str(text).unwrap();
        Answer {
            body: Body::Json(v, serde_json::from_str(text).unwrap()),
            ..answer(serde_json::json!({}))
        }
    };
    assert_eq!(
        difference(
            &written(r#"{"kind":"A","apiVersion":"v1"}"#),
            &written(r#"{"apiVersion":"v1","kind":"A"}"#)
        )
        .as_deref(),
        Some(r#"key order: real ["kind", "apiVersion"] vs embedded ["apiVersion", "kind"]"#)
    );
    let e = Answer {
        status: 404,
        ..answer(serde_json::json!({}))
    };
    assert_eq!(difference(&a, &e).as_deref(), Some("status 200 vs 404"));
}

#[test]
fn a_differing_row_shows_its_reason_on_one_line_and_an_identical_row_none() {
    let reasons = Reasons::parse("\"b\": >-\n  kube-apiserver does\n  a|b.\n").unwrap();
    let rows = [
        ("a".to_owned(), None),
        ("b".to_owned(), Some("status 200 vs 404".to_owned())),
    ];
    let text = table(&rows, &reasons);
    assert!(
        text.starts_with("1 of 2 requests answered identically"),
        "{text}"
    );
    assert!(text.contains("| a | identical |  |\n"), "{text}");
    assert!(
        text.contains("| b | differs: status 200 vs 404 | kube-apiserver does a\\|b. |\n"),
        "{text}"
    );
}

#[test]
fn a_bookmark_repeated_within_two_seconds_counts_once() {
    let bookmark = |rv: &str| {
        serde_json::json!({"type": "BOOKMARK",
        "object": {"metadata": {"resourceVersion": rv}}})
    };
    let added = serde_json::json!({"type": "ADDED", "object": {"metadata": {}}});
    let mut events = vec![
        added.clone(),
        bookmark("rv-1"),
        bookmark("rv-1"),
        bookmark("rv-1"),
        bookmark("rv-2"),
    ];
    let s = Duration::from_secs;
    let arrivals = [s(0), s(60), s(61), s(68), s(68)];
    drop_repeated_bookmarks(&mut events, &arrivals);
    assert_eq!(
        events,
        [added, bookmark("rv-1"), bookmark("rv-1"), bookmark("rv-2")],
        "the minute's, the one before the deadline 7 s later, and one at a newer version"
    );
}
