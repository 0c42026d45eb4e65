//! etcd's compaction, asked through its v3 JSON gateway on the reference server's etcd (the
//! URL `scripts/refserver` writes in `DIR/etcd-url`): what kube-apiserver's own compactor
//! (`--etcd-compaction-interval`) does every five minutes, done now, at etcd's current
//! revision, so every older resourceVersion is gone from etcd.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

/// Compacts etcd at its current revision (physically: the call returns once it is done) and
/// returns that revision.
pub fn compact(url: &str) -> u64 {
    let range = post(url, "/v3/kv/range", &json!({"key": "AA==", "limit": 1}));
    let revision: u64 = range["header"]["revision"]
        .as_str()
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("etcd's range answer has no revision: {range}"));
    let answer = post(
        url,
        "/v3/kv/compaction",
        &json!({"revision": revision.to_string(), "physical": true}),
    );
    assert!(
        answer.get("header").is_some(),
        "etcd did not compact at {revision}: {answer}"
    );
    revision
}

/// POSTs `body` to `path` of the etcd at `url` (`http://127.0.0.1:PORT`) in HTTP/1.0 (one
/// answer, no chunks) and returns the JSON it answers.
fn post(url: &str, path: &str, body: &Value) -> Value {
    let address = url.strip_prefix("http://").expect("an http:// etcd URL");
    let body = body.to_string();
    let mut stream = TcpStream::connect(address).expect("etcd accepts a connection");
    write!(
        stream,
        "POST {path} HTTP/1.0\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("etcd reads the request");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("etcd answers in UTF-8");
    let (_, json) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("etcd's answer has no body: {answer}"));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("etcd's answer is no JSON ({e}): {json}"))
}
