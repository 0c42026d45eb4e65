//! The accept loop: one task per connection, HTTP/1.1 through hyper with a header read
//! timeout (a client trickling its request line cannot hold a connection forever), optional
//! TLS, and graceful shutdown (open connections finish their current response, then close).
//! Every request carries its connection's [`super::listener::ConnectionId`] as an extension.

use std::time::Duration;

use axum::{Extension, Router};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::listener::RestartableListener;

/// How long a connection may take to finish a TLS handshake or send its request headers.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Header (and handshake) read timeout.
    pub header: Duration,
}

/// Serves `router` on every connection `listener` accepts until `stop` changes; then lets
/// open connections finish (at most `grace`).
pub async fn serve(
    mut listener: RestartableListener,
    router: Router,
    tls: Option<TlsAcceptor>,
    timeouts: Timeouts,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let (stream, _) = tokio::select! {
            _ = stop.changed() => return,
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
        };
        let service = TowerToHyperService::new(router.clone().layer(Extension(stream.id())));
        let tls = tls.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            match tls {
                None => connection(stream, service, timeouts, stop).await,
                Some(acceptor) => {
                    let handshake = tokio::time::timeout(timeouts.header, acceptor.accept(stream));
                    match handshake.await {
                        Ok(Ok(stream)) => connection(stream, service, timeouts, stop).await,
                        Ok(Err(e)) => tracing::debug!("TLS handshake failed: {e}"),
                        Err(_) => tracing::debug!("TLS handshake timed out"),
                    }
                }
            }
        });
    }
}

/// How long open connections may take to finish once serving stops.
const GRACE: Duration = Duration::from_secs(5);

/// Serves one connection until it ends or the server stops.
async fn connection<S>(
    stream: S,
    service: TowerToHyperService<Router>,
    timeouts: Timeouts,
    mut stop: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.header);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => Some(ended),
        _ = stop.changed() => None,
    };
    let ended = match ended {
        Some(ended) => ended,
        None => {
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(GRACE, connection).await {
                Ok(ended) => ended,
                Err(_) => return,
            }
        }
    };
    if let Err(e) = ended {
        tracing::debug!("connection ended: {e}");
    }
}
