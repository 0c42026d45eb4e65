//! Seeded fuzzing of every parser that reads outside input: watch-event frames
//! (`parse_watch_frame`, `frames` over random chunkings), the CLI's label/field selectors,
//! index expressions, handler specs and durations, scenario files, and the embedded server's
//! selectors (through LIST requests: a 200 or a 400, never a 500 or a dropped connection).
//! Inputs are random mutations of valid samples plus random strings over each grammar's
//! alphabet. No input may panic.
//!
//! `KINFORMER_SEED=N` replays a run; `KINFORMER_FUZZ_ITERATIONS=N` (default 2 000 per parser)
//! runs longer: `KINFORMER_FUZZ_ITERATIONS=1000000 cargo test --release --test fuzz_parsers`.

use crate::common;

use bytes::Bytes;
use futures_util::StreamExt;
use kinformer::cli::{parse_field_selector, parse_handler, parse_index, parse_label_selector};
use kinformer::duration::parse_duration;
use kinformer::informer::IndexFunc;
use kinformer::informer::source::{SourceError, WatchFrame, frames, parse_watch_frame};
use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn iterations() -> usize {
    std::env::var("KINFORMER_FUZZ_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

/// A random mutation of `sample`: characters replaced, inserted, deleted or duplicated, or
/// the text cut; the replacement characters come from `alphabet`.
fn mutate(rng: &mut StdRng, sample: &str, alphabet: &[char]) -> String {
    let mut chars: Vec<char> = sample.chars().collect();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=chars.len());
        let c = alphabet[rng.random_range(0..alphabet.len())];
        match rng.random_range(0..5) {
            0 if at < chars.len() => chars[at] = c,
            1 => chars.insert(at, c),
            2 if at < chars.len() => {
                chars.remove(at);
            }
            3 => chars.truncate(at),
            _ => {
                let tail: Vec<char> = chars[at..].to_vec();
                chars.extend(tail);
            }
        }
    }
    chars.into_iter().collect()
}

/// A random string over `alphabet`, up to 40 characters.
fn random_text(rng: &mut StdRng, alphabet: &[char]) -> String {
    let len = rng.random_range(0..40);
    (0..len)
        .map(|_| alphabet[rng.random_range(0..alphabet.len())])
        .collect()
}

/// Inputs for one parser: half mutations of the samples, half random strings.
fn inputs(rng: &mut StdRng, samples: &[&str], alphabet: &[char]) -> Vec<String> {
    (0..iterations())
        .map(|i| {
            if i % 2 == 0 {
                let sample = samples[rng.random_range(0..samples.len())];
                mutate(rng, sample, alphabet)
            } else {
                random_text(rng, alphabet)
            }
        })
        .collect()
}

fn alphabet(extra: &str) -> Vec<char> {
    let mut chars: Vec<char> = "abcxyz019-_./ ".chars().collect();
    chars.extend(extra.chars());
    chars.extend(['\u{e9}', '\u{1F600}', '\0', '\n']);
    chars
}

const LABEL_SELECTORS: &[&str] = &[
    "app=web",
    "app!=web,tier",
    "env in (prod, staging),!canary",
    "app notin (a,b),x==y",
    "example.com/app=web",
];

const FIELD_SELECTORS: &[&str] = &[
    "metadata.name=a",
    "spec.nodeName!=node-1,status.phase=Running",
    "metadata.namespace==default",
];

#[test]
fn cli_selectors_never_panic() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    let labels = alphabet("=!(),");
    for input in inputs(&mut rng, LABEL_SELECTORS, &labels) {
        let _ = parse_label_selector(&input);
    }
    for input in inputs(&mut rng, FIELD_SELECTORS, &labels) {
        let _ = parse_field_selector(&input);
    }
    for sample in LABEL_SELECTORS {
        assert!(parse_label_selector(sample).is_ok(), "{sample}");
    }
}

#[test]
fn index_expressions_handlers_and_durations_never_panic() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    let exprs = [
        "label:app",
        "annotation:example.com/x",
        "field:spec.nodeName",
        "owner",
    ];
    for input in inputs(&mut rng, &exprs, &alphabet(":=")) {
        let _ = IndexFunc::parse(&input);
        let _ = parse_index(&format!("by={input}"));
    }
    let handlers = ["fast", "slow:delay=250ms", "a:resync=10s:delay=1s"];
    for input in inputs(&mut rng, &handlers, &alphabet(":=smh")) {
        let _ = parse_handler(&input);
    }
    let durations = ["30s", "1h30m", "250ms", "0", "1.5s", "2m3s4ms"];
    for input in inputs(&mut rng, &durations, &alphabet("smhun.+e")) {
        let _ = parse_duration(&input);
    }
}

const SCENARIO: &str = "description: x\nqueue: real-fifo\nhandlers: [{name: a, resync: 1s}]\nsteps:\n  - {at: 1s, create: {count: 2, rate: 5}}\n  - {at: 2s, fault: {fault: fail-requests, count: 1, status: 429}}\n  - {at: 3s, add-handler: {name: b, delay: 10ms}}\n  - {at: 4s, end: true}\n";

#[test]
fn scenario_files_never_panic() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    assert!(kinformer::scenario::parse(SCENARIO).is_ok());
    for input in inputs(&mut rng, &[SCENARIO], &alphabet(":{}[],-\n&*!|>'\"#")) {
        if let Err(message) = kinformer::scenario::parse(&input) {
            assert!(!message.contains('\n'), "a multi-line error: {message:?}");
        }
    }
}

const FRAMES: &[&str] = &[
    r#"{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"5"}}}"#,
    r#"{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}"#,
    r#"{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}"#,
    r#"{"type":"DELETED","object":{"metadata":{"name":"b"}}}"#,
];

#[test]
fn watch_frames_never_panic() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    for sample in FRAMES {
        assert!(parse_watch_frame(&Bytes::from(*sample)).is_ok(), "{sample}");
    }
    for input in inputs(&mut rng, FRAMES, &alphabet("{}[]:,\"\\")) {
        let _ = parse_watch_frame(&Bytes::from(input));
    }
}

/// A body of valid frames cut into random chunks decodes to the same frames.
#[tokio::test]
async fn frames_survive_any_chunking() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    for _ in 0..iterations() / 10 {
        let count = rng.random_range(1..6);
        let body: String = (0..count)
            .map(|_| format!("{}\n", FRAMES[rng.random_range(0..FRAMES.len())]))
            .collect();
        let bytes = body.as_bytes();
        let mut chunks: Vec<Result<Bytes, SourceError>> = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let end = (at + rng.random_range(1..40)).min(bytes.len());
            chunks.push(Ok(Bytes::copy_from_slice(&bytes[at..end])));
            at = end;
        }
        let decoded: Vec<Result<WatchFrame, SourceError>> =
            frames(futures_util::stream::iter(chunks)).collect().await;
        assert_eq!(decoded.len(), count, "{body:?}");
        assert!(decoded.iter().all(Result::is_ok), "{body:?}");
        // Garbage and truncation: decode errors, never a panic.
        let cut = rng.random_range(0..bytes.len());
        let broken = mutate(&mut rng, &body[..cut], &alphabet("{}\"\n"));
        let chunks = vec![Ok(Bytes::from(broken))];
        let _: Vec<_> = frames(futures_util::stream::iter(chunks)).collect().await;
    }
}

/// The embedded server's selectors, through LIST: 200 or 400, nothing else.
#[tokio::test]
async fn server_selectors_answer_200_or_400() {
    let mut rng = StdRng::seed_from_u64(common::seed("fuzz"));
    let server = EmbeddedServer::start(ServerConfig::default())
        .await
        .unwrap();
    let client = server.client();
    let labels = alphabet("=!(),");
    let requests = (iterations() / 10).max(50);
    for i in 0..requests {
        let (param, value) = if i % 2 == 0 {
            (
                "labelSelector",
                mutate(
                    &mut rng,
                    LABEL_SELECTORS[i % LABEL_SELECTORS.len()],
                    &labels,
                ),
            )
        } else {
            (
                "fieldSelector",
                mutate(
                    &mut rng,
                    FIELD_SELECTORS[i % FIELD_SELECTORS.len()],
                    &labels,
                ),
            )
        };
        let query: String = url_encode(&value);
        let path = format!("/api/v1/pods?{param}={query}");
        let request = http::Request::get(&path)
            .body(kube::client::Body::empty())
            .unwrap();
        let response = client.send(request).await;
        let code = response.map(|r| r.status().as_u16());
        assert!(matches!(code, Ok(200 | 400)), "{param}={value:?}: {code:?}");
    }
    server.shutdown().await;
}

/// Percent-encodes every byte outside the unreserved set.
fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
