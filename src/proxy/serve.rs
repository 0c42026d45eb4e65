//! The proxy's accept loop: TLS with the proxy's own certificate, then HTTP/2 or HTTP/1.1 as
//! the client chose by ALPN (client-go picks `h2`), one task per connection, each connection
//! numbered (a client's informers are told apart by it). Stopping ends every connection, open
//! watches included.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::forward::Forwarder;

/// How long a client may take to finish its TLS handshake and send its request headers.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves connections until `stop` changes.
pub async fn serve(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    forwarder: Arc<Forwarder>,
    mut stop: watch::Receiver<bool>,
) {
    let connections = AtomicU64::new(0);
    loop {
        let accepted = tokio::select! {
            _ = stop.changed() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let id = connections.fetch_add(1, Ordering::Relaxed) + 1;
        let (acceptor, forwarder, stop) = (acceptor.clone(), Arc::clone(&forwarder), stop.clone());
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => connection(tls, id, forwarder, stop).await,
                Ok(Err(e)) => tracing::debug!("TLS handshake failed: {e}"),
                Err(_) => tracing::debug!("TLS handshake timed out"),
            }
        });
    }
}

/// Serves one connection with the protocol ALPN chose, until it ends or the proxy stops.
async fn connection(
    tls: tokio_rustls::server::TlsStream<tokio::net::TcpStream>,
    id: u64,
    forwarder: Arc<Forwarder>,
    mut stop: watch::Receiver<bool>,
) {
    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
    let protocol = if h2 { "HTTP/2" } else { "HTTP/1.1" };
    tracing::debug!("client connection {id}: {protocol} over TLS");
    let service = service_fn(move |request| Arc::clone(&forwarder).handle(request, id));
    let io = TokioIo::new(tls);
    let ended = if h2 {
        let served = http2::Builder::new(TokioExecutor::new()).serve_connection(io, service);
        tokio::select! {
            ended = served => ended,
            _ = stop.changed() => return,
        }
    } else {
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(HANDSHAKE_TIMEOUT);
        let served = builder.serve_connection(io, service);
        tokio::select! {
            ended = served => ended,
            _ = stop.changed() => return,
        }
    };
    if let Err(e) = ended {
        tracing::debug!("client connection {id} ended: {e}");
    }
}
