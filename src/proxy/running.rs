//! [`Proxy`]: binding, its TLS and kubeconfig, the accept loop's task, and stopping it with
//! what it saw.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::informer::trace::{ProxySummary, Tracer};
use kinformer_apiserver::{Endpoint, ServingTls, random_token};

use super::forward::OnUpstream;
use super::record::Recorded;
use super::{forward, record, serve, streams};

/// How to run the proxy.
pub struct ProxyConfig {
    /// Where clients connect (`127.0.0.1:0`: any free loopback port).
    pub listen: SocketAddr,
    /// The token clients must send (None: a random one).
    pub token: Option<String>,
    /// The API server, with the user's credentials; without kube's transparent retry
    /// (`Config::default_retry` off), or a throttled client would never see its 429.
    pub upstream: kube::Client,
    /// Where trace events go (`resource` = the client-side informer stream).
    pub tracer: Tracer,
    /// `--record FILE`.
    pub record: Option<PathBuf>,
    /// Told when the upstream becomes unreachable, and reachable again.
    pub on_upstream: Option<OnUpstream>,
}

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error(transparent)]
    Tls(#[from] kinformer_apiserver::TlsError),
    #[error("cannot create the record file {path}: {source}")]
    Record { path: PathBuf, source: io::Error },
}

/// A running proxy.
pub struct Proxy {
    url: String,
    token: String,
    tls: ServingTls,
    registry: Arc<streams::Registry>,
    stop: watch::Sender<bool>,
    serving: JoinHandle<()>,
}

impl Proxy {
    /// Binds and starts serving on the current tokio runtime.
    pub async fn start(config: ProxyConfig) -> Result<Proxy, ProxyError> {
        let bind = |source| ProxyError::Bind {
            addr: config.listen,
            source,
        };
        let listener = TcpListener::bind(config.listen).await.map_err(bind)?;
        let address = listener.local_addr().map_err(bind)?;
        let tls = ServingTls::generate_for(address.ip(), &[b"h2", b"http/1.1"])?;
        let recorder =
            match &config.record {
                Some(path) => Some(record::RecordWriter::create(path).map_err(|source| {
                    ProxyError::Record {
                        path: path.clone(),
                        source,
                    }
                })?),
                None => None,
            };
        let registry = Arc::new(streams::Registry::new(config.tracer, recorder));
        let token = config.token.unwrap_or_else(random_token);
        let forwarder = Arc::new(forward::Forwarder {
            token: token.clone(),
            upstream: config.upstream,
            registry: Arc::clone(&registry),
            reachable: AtomicBool::new(true),
            on_upstream: config.on_upstream,
        });
        let (stop, stopped) = watch::channel(false);
        let serving = tokio::spawn(serve::serve(
            listener,
            tls.acceptor.clone(),
            forwarder,
            stopped,
        ));
        Ok(Proxy {
            url: format!("https://{address}"),
            token,
            tls,
            registry,
            stop,
            serving,
        })
    }

    /// `https://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn endpoint(&self) -> Endpoint<'_> {
        Endpoint {
            url: &self.url,
            token: Some(&self.token),
            ca_pem: Some(&self.tls.ca_pem),
        }
    }

    /// Writes the clients' kubeconfig (mode 0600: it holds the proxy's token).
    pub fn write_kubeconfig(&self, path: &Path) -> io::Result<()> {
        self.endpoint().write_kubeconfig(path)
    }

    /// A `kube::Config` reaching the proxy (in-process clients and tests).
    pub fn kube_config(&self) -> kube::Config {
        self.endpoint().kube_config(Some(&self.tls.ca_der))
    }

    /// Stops serving (open watches end), and says what every client did.
    pub async fn shutdown(self) -> Stopped {
        self.registry.stop_recording();
        let _ = self.stop.send(true);
        let _ = self.serving.await;
        let summaries = self.registry.summaries();
        Stopped {
            summaries,
            registry: self.registry,
        }
    }
}

/// A stopped proxy: its summary, and its recording still to finish.
pub struct Stopped {
    pub summaries: Vec<ProxySummary>,
    registry: Arc<streams::Registry>,
}

impl Stopped {
    /// Completes the record file (`server_version`: the upstream's, for its header); None
    /// without `--record`.
    pub fn finish_recording(
        &self,
        server_version: Option<String>,
    ) -> Option<Result<Recorded, std::io::Error>> {
        self.registry.finish_recording(server_version)
    }
}
