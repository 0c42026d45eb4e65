//! Bad input to the embedded API server, sent as raw HTTP/1.1 over TCP: every malformed request
//! gets a `Status` with the code kube-apiserver would use (never a panic or a hung
//! connection), and a client that sends its request slowly cannot hold a connection forever
//! nor stall anyone else.

use std::time::Duration;

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Every exchange must be over well within this.
const DEADLINE: Duration = Duration::from_secs(30);

async fn server(read_timeout: Duration) -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::Builtin],
        auth: false,
        request_read_timeout: read_timeout,
        ..ServerConfig::default()
    })
    .await?)
}

fn address(server: &EmbeddedServer) -> String {
    server.url().trim_start_matches("http://").to_owned()
}

/// Sends `head` (request line and headers, without the blank line) and `body` on a new
/// connection (`Connection: close`) and reads the whole answer: its status code and body.
async fn exchange(
    server: &EmbeddedServer,
    head: &str,
    content_type: &str,
    body: &[u8],
) -> Result<(u16, Vec<u8>), Box<dyn std::error::Error>> {
    let mut stream = TcpStream::connect(address(server)).await?;
    let request = format!(
        "{head}\r\nHost: x\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    // The server may answer (413) before taking the whole body: a failed write is fine.
    let _ = stream.write_all(body).await;
    let mut answer = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut answer)).await??;
    let text = String::from_utf8_lossy(&answer);
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status line in {text:?}"))?;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(answer.len(), |p| p + 4);
    Ok((code, answer[split..].to_vec()))
}

/// A chunked body's payload (the server streams some answers).
fn dechunk(body: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    if text.trim_start().starts_with('{') {
        return body.to_vec();
    }
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&rest[start..(start + size).min(rest.len())]);
        rest = &rest[(start + size + 2).min(rest.len())..];
    }
    out
}

fn deeply_nested(depth: usize) -> Vec<u8> {
    let mut body =
        br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":"#.to_vec();
    body.extend(std::iter::repeat_n(b'[', depth));
    body.extend(std::iter::repeat_n(b']', depth));
    body.push(b'}');
    body
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";
const JSON: &str = "application/json";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_status_errors() -> TestResult {
    let server = server(Duration::from_secs(60)).await?;
    let configmap = |name: &str| {
        format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}"#)
    };
    let huge = format!(
        r#"{{"metadata":{{"name":"big"}},"data":{{"k":"{}"}}}}"#,
        "x".repeat(4 << 20)
    );
    let cases: Vec<(String, &str, Vec<u8>, u16)> = vec![
        (format!("POST {CMS} HTTP/1.1"), JSON, huge.into_bytes(), 413),
        (
            format!("POST {CMS} HTTP/1.1"),
            JSON,
            br#"{"apiVersion":"v1","#.to_vec(),
            400,
        ),
        (
            format!("POST {CMS} HTTP/1.1"),
            JSON,
            deeply_nested(100_000),
            400,
        ),
        (
            format!("POST {CMS} HTTP/1.1"),
            JSON,
            br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#.to_vec(),
            400,
        ),
        (
            format!("POST {CMS} HTTP/1.1"),
            JSON,
            b"[1,2,3]".to_vec(),
            400,
        ),
        (format!("POST {CMS} HTTP/1.1"), JSON, b"null".to_vec(), 400),
        (
            format!("POST {CMS} HTTP/1.1"),
            "text/plain",
            configmap("t").into_bytes(),
            415,
        ),
        (
            format!("POST {CMS} HTTP/1.1"),
            "application/yaml",
            b"a: [unclosed".to_vec(),
            400,
        ),
        (
            format!("PATCH {CMS}/kube-root-ca.crt HTTP/1.1"),
            "application/x-unknown",
            b"{}".to_vec(),
            415,
        ),
        (
            format!("PATCH {CMS}/kube-root-ca.crt HTTP/1.1"),
            "application/json-patch+json",
            b"{\"op\":1}".to_vec(),
            400,
        ),
        (
            format!("PUT {CMS}/kube-root-ca.crt HTTP/1.1"),
            JSON,
            configmap("other").into_bytes(),
            400,
        ),
        (
            format!("DELETE {CMS}/kube-root-ca.crt HTTP/1.1"),
            JSON,
            b"{not json".to_vec(),
            400,
        ),
        (
            format!("GET {CMS}?labelSelector=a%20in%20(b HTTP/1.1"),
            JSON,
            Vec::new(),
            400,
        ),
        (
            format!("GET {CMS}?limit=abc HTTP/1.1"),
            JSON,
            Vec::new(),
            400,
        ),
        (
            format!("GET {CMS}?resourceVersion=abc HTTP/1.1"),
            JSON,
            Vec::new(),
            400,
        ),
        (
            format!("GET {CMS}?continue=zz HTTP/1.1"),
            JSON,
            Vec::new(),
            400,
        ),
        (
            format!("GET {CMS}?watch=1&timeoutSeconds=-1 HTTP/1.1"),
            JSON,
            Vec::new(),
            400,
        ),
        (
            "GET /api/v1/widgets HTTP/1.1".to_owned(),
            JSON,
            Vec::new(),
            404,
        ),
        (
            "POST /api/v1/pods HTTP/1.1".to_owned(),
            JSON,
            b"{}".to_vec(),
            405,
        ),
        (
            "POST /kinformer/v1/faults HTTP/1.1".to_owned(),
            JSON,
            b"{\"fault\":\"meteor\"}".to_vec(),
            400,
        ),
    ];
    for (head, content_type, body, expected) in cases {
        let (code, answer) = exchange(&server, &head, content_type, &body).await?;
        assert_eq!(
            code,
            expected,
            "{head} ({content_type}): {}",
            String::from_utf8_lossy(&answer)
        );
        let status: Value = serde_json::from_slice(&dechunk(&answer)).map_err(|e| {
            format!(
                "{head}: not a Status ({e}): {}",
                String::from_utf8_lossy(&answer)
            )
        })?;
        assert_eq!(status["kind"], "Status", "{head}");
        assert_eq!(status["code"], expected, "{head}");
    }
    let (code, _) = exchange(&server, "GET /version HTTP/1.1", JSON, b"").await?;
    assert_eq!(code, 200, "the server still serves");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_are_cut_off_without_stalling_others() -> TestResult {
    let server = server(Duration::from_millis(500)).await?;
    let mut trickling_head = TcpStream::connect(address(&server)).await?;
    trickling_head
        .write_all(b"GET /version HTTP/1.1\r\nHost: x\r\n")
        .await?;
    let mut trickling_body = TcpStream::connect(address(&server)).await?;
    let head = format!(
        "POST {CMS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\""
    );
    trickling_body.write_all(head.as_bytes()).await?;
    let (code, _) = exchange(&server, "GET /version HTTP/1.1", JSON, b"").await?;
    assert_eq!(code, 200, "a fast client is served while slow ones wait");
    let mut answer = Vec::new();
    tokio::time::timeout(DEADLINE, trickling_head.read_to_end(&mut answer)).await??;
    let text = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || text.starts_with("HTTP/1.1 408"),
        "{text}"
    );
    let mut buffer = vec![0; 4096];
    let read = tokio::time::timeout(DEADLINE, trickling_body.read(&mut buffer))
        .await
        .map_err(|_| "a client trickling its body holds the connection")??;
    let text = String::from_utf8_lossy(&buffer[..read]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    Ok(())
}

/// Sends a ConfigMap of `size` bytes with `framing` ("content-length" or "chunked") in full and
/// reads the answer: the write must succeed (no broken pipe or reset) and the answer arrive.
async fn send_whole_body(server: &EmbeddedServer, size: usize, chunked: bool) -> TestResult {
    let body = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"big"}},"data":{{"k":"{}"}}}}"#,
        "x".repeat(size)
    );
    let framing = if chunked {
        "Transfer-Encoding: chunked".to_owned()
    } else {
        format!("Content-Length: {}", body.len())
    };
    let mut stream = TcpStream::connect(address(server)).await?;
    let head =
        format!("POST {CMS} HTTP/1.1\r\nHost: x\r\nContent-Type: {JSON}\r\n{framing}\r\n\r\n");
    stream.write_all(head.as_bytes()).await?;
    for piece in body.as_bytes().chunks(64 * 1024) {
        let written = if chunked {
            let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
            chunk.extend_from_slice(piece);
            chunk.extend_from_slice(b"\r\n");
            stream.write_all(&chunk).await
        } else {
            stream.write_all(piece).await
        };
        written.map_err(|e| format!("the body could not be sent whole: {e}"))?;
    }
    if chunked {
        stream.write_all(b"0\r\n\r\n").await?;
    }
    let mut answer = Vec::new();
    tokio::time::timeout(DEADLINE, stream.read_to_end(&mut answer))
        .await?
        .map_err(|e| format!("the answer did not arrive: {e}"))?;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    let split = text.find("\r\n\r\n").ok_or("no header end")? + 4;
    let status: Value = serde_json::from_slice(&dechunk(&answer[split..]))?;
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["code"], 413);
    assert_eq!(status["reason"], "RequestEntityTooLarge");
    Ok(())
}

/// A client that sends a body over 3 MiB in full (as kubectl does: Go's transport writes the
/// whole body before it reads) gets the 413 Status, never "broken pipe" or a reset: the server
/// takes the rest of the body before it answers and closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_sent_in_full_gets_the_413_status() -> TestResult {
    let server = server(Duration::from_secs(60)).await?;
    for size in [(3 << 20) + 1, 4 << 20, 12 << 20] {
        send_whole_body(&server, size, false).await?;
        send_whole_body(&server, size, true).await?;
    }
    server.shutdown().await;
    Ok(())
}

/// Bytes that are no UTF-8 inside a JSON string are read as U+FFFD, as Go's JSON decoder reads
/// them, so kube-apiserver stores the object (the conformance row "input: invalid UTF-8 in a
/// JSON string" compares it with kube-apiserver 1.37.2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_in_a_json_string_is_stored_as_go_decodes_it() -> TestResult {
    let server = server(Duration::from_secs(60)).await?;
    let mut body =
        br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u"},"data":{"k":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe]);
    body.extend_from_slice(b"\"}}");
    let head = format!("POST {CMS} HTTP/1.1");
    let (code, answer) = exchange(&server, &head, JSON, &body).await?;
    assert_eq!(code, 201, "{}", String::from_utf8_lossy(&answer));
    let stored: Value = serde_json::from_slice(&dechunk(&answer))?;
    assert_eq!(stored["data"]["k"], "\u{fffd}\u{fffd}");
    Ok(())
}
