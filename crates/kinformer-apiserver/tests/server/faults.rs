//! The embedded API server's `restart` fault on both transports (plain HTTP and TLS): it never
//! panics the server (a panic hook counts every panic of this test binary), it resets the
//! other open connections, and the caller of the fault endpoint gets its documented `Status`
//! before its own connection closes.

use std::sync::{Mutex, Once};
use std::time::Duration;

use kinformer_apiserver::{EmbeddedServer, ServerConfig};
use serde_json::Value;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Every exchange must be over well within this.
const DEADLINE: Duration = Duration::from_secs(30);

/// Panic messages seen by this test binary (the server's connection tasks run in-process).
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Installs the panic hook once per test binary.
fn record_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let mut panics = PANICS.lock().unwrap_or_else(|e| e.into_inner());
            panics.push(info.to_string());
            drop(panics);
            default(info);
        }));
    });
}

fn panics() -> Vec<String> {
    PANICS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

async fn server(tls: bool) -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    Ok(EmbeddedServer::start(ServerConfig {
        tls,
        ..ServerConfig::default()
    })
    .await?)
}

/// `POST /kinformer/v1/faults` with `fault` through `client`: the code and the Status.
async fn post_fault(client: &kube::Client, fault: &str) -> Result<(u16, Value), kube::Error> {
    let request = http::Request::post("/kinformer/v1/faults")
        .header("content-type", "application/json")
        .body(fault.as_bytes().to_vec())
        .map_err(kube::Error::HttpError)?;
    let response = client.send(request.map(Into::into)).await?;
    let code = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    Ok((code, serde_json::from_slice(&body).unwrap_or(Value::Null)))
}

/// Opens keep-alive connections (`clients` distinct clients, each with one request done),
/// restarts through the first, then checks the caller's answer, that no panic happened and
/// that the server still serves.
async fn restart_with_open_connections(tls: bool) -> TestResult {
    record_panics();
    let server = server(tls).await?;
    let clients: Vec<kube::Client> = (0..4).map(|_| server.client()).collect();
    for client in &clients {
        client.apiserver_version().await?;
    }
    let (code, status) =
        tokio::time::timeout(DEADLINE, post_fault(&clients[0], r#"{"fault":"restart"}"#)).await??;
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["status"], "Success");
    assert_eq!(status["message"], "fault restart injected");
    // The other connections were reset; every client works again on a new connection.
    for client in &clients {
        let mut answered = false;
        for _ in 0..3 {
            answered |= client.apiserver_version().await.is_ok();
            if answered {
                break;
            }
        }
        assert!(answered, "the server no longer answers after a restart");
    }
    // The connection tasks that saw the restart have ended by now (a request on a new
    // connection was served after them); none may have panicked.
    server.shutdown().await;
    let panics = panics();
    assert!(panics.is_empty(), "the server panicked: {panics:#?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_over_tls_answers_the_caller_and_never_panics() -> TestResult {
    restart_with_open_connections(true).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_over_http_answers_the_caller_and_never_panics() -> TestResult {
    restart_with_open_connections(false).await
}
