//! The server's TCP listener: every accepted connection is wrapped so that a `restart` fault
//! resets it, idle keep-alive connections included — as a restarting API server would. The
//! connection that asked for the restart is spared: it gets its answer, then closes.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// One accepted connection, told apart from every other of the same server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionId(u64);

/// The latest restart: its generation and the connection that asked for it (spared).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Restart {
    /// Bumped by every restart.
    pub generation: u64,
    /// The caller's connection, which must still carry the answer.
    pub spared: Option<ConnectionId>,
}

/// Accepts connections that end with `ConnectionReset` when the restart generation moves.
pub struct RestartableListener {
    inner: TcpListener,
    restarts: watch::Receiver<Restart>,
    accepted: AtomicU64,
}

impl RestartableListener {
    pub fn new(inner: TcpListener, restarts: watch::Receiver<Restart>) -> Self {
        Self {
            inner,
            restarts,
            accepted: AtomicU64::new(0),
        }
    }
}

impl axum::serve::Listener for RestartableListener {
    type Io = RestartableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        let id = ConnectionId(self.accepted.fetch_add(1, Ordering::Relaxed));
        let mut restarts = self.restarts.clone();
        restarts.mark_unchanged();
        let restarted = Box::pin(async move {
            // A closed sender means the server is gone: that also ends the connection.
            while restarts.changed().await.is_ok() {
                if restarts.borrow_and_update().spared != Some(id) {
                    return;
                }
            }
        });
        let stream = RestartableStream {
            stream,
            id,
            restarted: Some(restarted),
        };
        (stream, addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A TCP stream that fails every read and write once the server restarted.
pub struct RestartableStream {
    stream: TcpStream,
    id: ConnectionId,
    /// Completes at the restart that ends this connection; `None` once it did (a completed
    /// future must never be polled again: TLS reads and writes keep calling [`Self::check`]).
    restarted: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl RestartableStream {
    /// The connection's identity (requests on it carry it, so a restart can spare it).
    pub fn id(&self) -> ConnectionId {
        self.id
    }

    /// `Err(ConnectionReset)` once a restart happened (and registers for it until then).
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        let Some(restarted) = self.restarted.as_mut() else {
            return Err(reset());
        };
        match restarted.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.restarted = None;
                Err(reset())
            }
            Poll::Pending => Ok(()),
        }
    }
}

/// The error every read and write of a restarted connection gets.
fn reset() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionReset,
        "the embedded API server restarted",
    )
}

impl AsyncRead for RestartableStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for RestartableStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
