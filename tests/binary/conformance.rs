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
//! Normalised on both sides (what no two servers or runs share): `uid`,
//! `creationTimestamp`, `deletionTimestamp`, `resourceVersion`, `continue` tokens,
//! managedFields `time`s, conditions' `lastTransitionTime`, `/version`'s build fields (its
//! `gitVersion` too: the embedded server reports the minor's `.0`), the
//! server's own address in `/api` and its port in the `default/kubernetes` Service, an `Age` cell of a Table, OpenAPI v3 hashes, the current
//! resourceVersion a 410's message names, the random suffix of a pod's `kube-api-access-XXXXX`
//! token volume (the ServiceAccount admission plugin's generated name). A watch (ended by its
//! `timeoutSeconds`) is compared event by event.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde::Deserialize;
use serde_json::Value;

use crate::refserver_fixture::RefServer;

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
}

/// What a server answered, normalised.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: String,
    warnings: Vec<String>,
    body: Body,
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
fn corpus() -> Vec<Case> {
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
            serde_saphyr::from_str::<Vec<Case>>(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// `case`'s request, `{ns}` filled in.
fn request(case: &Case) -> http::Request<kube::client::Body> {
    let fill = |s: &str| s.replace("{ns}", NAMESPACE);
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

/// Sends `case` (again until its `until` status, if it has one) and normalises the answer.
async fn send(client: &kube::Client, case: &Case) -> Answer {
    let started = Instant::now();
    loop {
        let answer = send_once(client, case).await;
        match case.until {
            Some(want) if answer.status != want && started.elapsed() < UNTIL_DEADLINE => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            _ => return answer,
        }
    }
}

/// How long one request (a watch's `timeoutSeconds` included) may take, body and all.
const REQUEST_DEADLINE: Duration = Duration::from_secs(30);

async fn send_once(client: &kube::Client, case: &Case) -> Answer {
    tokio::time::timeout(REQUEST_DEADLINE, answer(client, case))
        .await
        .unwrap_or_else(|_| panic!("{}: no whole answer in {REQUEST_DEADLINE:?}", case.name))
}

async fn answer(client: &kube::Client, case: &Case) -> Answer {
    let response = client
        .send(request(case))
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let status = response.status().as_u16();
    let header = |name: &http::HeaderName| -> Vec<String> {
        response
            .headers()
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect()
    };
    let content_type = header(&http::header::CONTENT_TYPE).join(", ");
    let warnings = header(&http::HeaderName::from_static("warning"));
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    let body = match serde_json::from_slice::<Value>(&bytes) {
        Ok(mut v) => {
            normalise(&mut v, "");
            Body::Json(v, serde_json::from_slice(&bytes).unwrap_or_default())
        }
        Err(_) => match watch_events(&bytes) {
            Some(events) => Body::Json(events, TopKeys::default()),
            None => Body::Text(String::from_utf8_lossy(&bytes).into_owned()),
        },
    };
    let answer = Answer {
        status,
        content_type,
        warnings,
        body,
    };
    match case.compare.as_deref() {
        Some("status") => Answer {
            content_type: String::new(),
            warnings: Vec::new(),
            body: Body::Text(String::new()),
            ..answer
        },
        _ => answer,
    }
}

/// A watch's body (one JSON event per line, ended by the request's `timeoutSeconds`) as an
/// array of normalised events; `None` when some line is no JSON.
fn watch_events(bytes: &[u8]) -> Option<Value> {
    let events = bytes
        .split(|b| *b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(|line| {
            let mut event = serde_json::from_slice::<Value>(line).ok()?;
            normalise(&mut event, "");
            Some(event)
        })
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
        "resourceVersion",
        "continue",
        "time",
        "lastTransitionTime",
        "buildDate",
        "gitCommit",
        "gitVersion",
        "goVersion",
        "serverAddress",
    ];
    if MASKED.contains(&key) && !v.is_object() && !v.is_array() {
        *v = Value::String("MASKED".into());
        return;
    }
    if key == "message"
        && let Some(message) = v.as_str()
        && let Some((head, _)) = message.split_once(" (")
        && head.starts_with("too old resource version: ")
    {
        *v = Value::String(format!("{head} (MASKED)"));
        return;
    }
    if let Some(name) = v.as_str()
        && let Some(suffix) = name.strip_prefix("kube-api-access-")
        && suffix.len() == 5
    {
        *v = Value::String("kube-api-access-MASKED".into());
        return;
    }
    if key == "serverRelativeURL"
        && let Some(url) = v.as_str()
    {
        *v = Value::String(url.split('?').next().unwrap_or(url).to_owned());
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
            "{name}\nstatus {}\nContent-Type {}\nWarning {:?}\n{body}\n",
            answer.status, answer.content_type, answer.warnings
        );
        std::fs::write(dir.join(format!("{i:03}-{side}.txt")), text).expect("a dump file");
    }
}

const BEGIN: &str = "<!-- conformance:begin -->\n";
const END: &str = "<!-- conformance:end -->";

#[tokio::test]
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

    let dump = std::env::var_os("KINFORMER_CONFORMANCE_DUMP").map(PathBuf::from);
    let mut rows = Vec::new();
    for (i, case) in corpus().into_iter().enumerate() {
        let a = send(&real, &case).await;
        let b = send(&embedded, &case).await;
        let difference = difference(&a, &b);
        if let Some(dir) = &dump
            && difference.is_some()
        {
            dump_answers(dir, i, &case.name, &a, &b);
        }
        rows.push((case.name.clone(), difference));
    }
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
