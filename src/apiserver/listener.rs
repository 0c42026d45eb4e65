//! The server's TCP listener: every accepted connection is wrapped so that a `restart` fault
//! resets it, idle keep-alive connections included — as a restarting API server would.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Accepts connections that end with `ConnectionReset` when the restart generation moves.
pub struct RestartableListener {
    inner: TcpListener,
    restarts: watch::Receiver<u64>,
}

impl RestartableListener {
    pub fn new(inner: TcpListener, restarts: watch::Receiver<u64>) -> Self {
        Self { inner, restarts }
    }
}

impl axum::serve::Listener for RestartableListener {
    type Io = RestartableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        let mut restarts = self.restarts.clone();
        restarts.mark_unchanged();
        let restarted = Box::pin(async move {
            // A closed sender means the server is gone: that also ends the connection.
            let _ = restarts.changed().await;
        });
        (RestartableStream { stream, restarted }, addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A TCP stream that fails every read and write once the server restarted.
pub struct RestartableStream {
    stream: TcpStream,
    restarted: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl RestartableStream {
    /// `Err(ConnectionReset)` once a restart happened (and registers for the next one).
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        match self.restarted.as_mut().poll(cx) {
            Poll::Ready(()) => Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "the embedded API server restarted",
            )),
            Poll::Pending => Ok(()),
        }
    }
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
