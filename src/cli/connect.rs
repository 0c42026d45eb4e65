//! Where the informer connects: the user's kubeconfig (kube does the loading, auth, exec
//! plugins and TLS), or an in-process embedded API server seeded with the builtin cluster.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};

use super::exit::CliError;
use super::stream::Signals;

/// Which cluster to talk to.
#[derive(Debug, Clone, Default)]
pub struct ClusterChoice {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Start an embedded API server instead of reading a kubeconfig.
    pub embedded: bool,
    /// Background pod churn on the embedded server (writes per second).
    pub churn: Option<f64>,
    /// The embedded server's configuration (None: the builtin cluster, `churn`).
    pub server: Option<ServerConfig>,
    /// How long to retry a server's first contact that failed with 429/5xx, or (with
    /// `retry_connect`) was refused (zero: one attempt).
    pub retry_timeout: Duration,
    /// Retry a first connection that was refused or whose host is unknown (kubectl fails at
    /// once: so does kinformer without `--retry-connect`).
    pub retry_connect: bool,
    /// kubectl's global flags, laid over the kubeconfig.
    pub overrides: Overrides,
}

/// kubectl's global flags that override the kubeconfig: `--server`, `--token`, `--as`,
/// `--as-group`, `--request-timeout`, `--insecure-skip-tls-verify`.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub server: Option<String>,
    pub token: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    /// Zero: no limit (kube's defaults).
    pub request_timeout: Duration,
    pub insecure_skip_tls_verify: bool,
}

impl Overrides {
    /// Lays the flags over `config`, as kubectl's ConfigOverrides do.
    fn apply(&self, config: &mut kube::Config) -> Result<(), ConnectError> {
        if let Some(server) = &self.server {
            config.cluster_url = server_url(server)?;
        }
        if let Some(token) = &self.token {
            let auth = &mut config.auth_info;
            auth.token = Some(token.clone().into());
            auth.token_file = None;
            auth.exec = None;
            auth.auth_provider = None;
            auth.username = None;
            auth.password = None;
        }
        if let Some(user) = &self.as_user {
            config.auth_info.impersonate = Some(user.clone());
            config.auth_info.impersonate_groups =
                Some(self.as_groups.clone()).filter(|g| !g.is_empty());
        }
        if !self.request_timeout.is_zero() {
            config.connect_timeout = Some(self.request_timeout);
            config.read_timeout = Some(self.request_timeout);
            config.write_timeout = Some(self.request_timeout);
        }
        if self.insecure_skip_tls_verify {
            config.accept_invalid_certs = true;
            config.root_cert = None;
        }
        Ok(())
    }
}

/// `--server`: a URL, or `host:port` (https, as kubectl assumes).
fn server_url(server: &str) -> Result<http::Uri, ConnectError> {
    let url = if server.contains("://") {
        server.to_owned()
    } else {
        format!("https://{server}")
    };
    url.parse::<http::Uri>()
        .ok()
        .filter(|u| u.host().is_some_and(|h| !h.is_empty()))
        .ok_or_else(|| ConnectError::Server(server.to_owned()))
}

/// A client plus, for `--embedded`, the server it talks to (kept alive as long as this is).
pub struct Connection {
    pub client: kube::Client,
    /// The kubeconfig context's namespace, or `default`.
    pub default_namespace: String,
    pub server: Option<EmbeddedServer>,
}

impl Connection {
    /// Ends the connection: the embedded server (if any) stops and its tasks end.
    pub async fn close(self) {
        if let Some(server) = self.server {
            server.shutdown().await;
        }
    }
}

/// Why no client could be built.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("{0}")]
    Kubeconfig(String),
    /// `--server` is no URL.
    #[error("--server {0:?}: not a server URL (e.g. https://10.0.0.1:6443)")]
    Server(String),
    #[error("cannot start the embedded API server: {0}")]
    Embedded(#[source] kinformer_apiserver::ServerError),
    #[error("cannot build a client for the embedded API server: {0}")]
    EmbeddedClient(#[source] kube::Error),
}

impl From<ConnectError> for CliError {
    /// A bad kubeconfig is a configuration error (exit 3); an embedded server that did not
    /// start says why.
    fn from(e: ConnectError) -> Self {
        match e {
            ConnectError::Kubeconfig(m) => CliError::Config(m),
            e @ ConnectError::Server(_) => CliError::Usage(e.to_string()),
            ConnectError::Embedded(e) => CliError::Server(e),
            ConnectError::EmbeddedClient(e) => CliError::EmbeddedClient(e),
        }
    }
}

impl ClusterChoice {
    /// From `--kubeconfig`, `--context` and `--embedded`.
    pub fn from_args(args: &super::args::ConnectionArgs) -> Self {
        Self {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
            embedded: args.embedded,
            churn: Some(args.churn).filter(|c| *c > 0.0),
            server: None,
            retry_timeout: args.retry_timeout,
            retry_connect: args.retry_connect,
            overrides: Overrides {
                server: args.server.clone(),
                token: args.token.clone(),
                as_user: args.as_user.clone(),
                as_groups: args.as_groups.clone(),
                request_timeout: args.request_timeout,
                insecure_skip_tls_verify: args.insecure_skip_tls_verify,
            },
        }
    }

    pub async fn connect(&self) -> Result<Connection, ConnectError> {
        if self.embedded {
            return self.connect_embedded().await;
        }
        let mut config = self.kube_config().await?;
        self.overrides.apply(&mut config)?;
        let default_namespace = config.default_namespace.clone();
        let client = client_of(config)
            .map_err(|e| ConnectError::Kubeconfig(format!("cannot build a client: {e}")))?;
        Ok(Connection {
            client,
            default_namespace,
            server: None,
        })
    }

    async fn connect_embedded(&self) -> Result<Connection, ConnectError> {
        let config = self.server.clone().unwrap_or_else(|| ServerConfig {
            seed: vec![Seed::Builtin],
            churn: self.churn,
            bookmark_interval: Duration::from_secs(5),
            // Deployments own ReplicaSets own Pods, as on a real cluster.
            controllers: true,
            ..ServerConfig::default()
        });
        let server = EmbeddedServer::start(config)
            .await
            .map_err(ConnectError::Embedded)?;
        let mut config = server.kube_config();
        self.overrides.apply(&mut config)?;
        let client = client_of(config).map_err(ConnectError::EmbeddedClient)?;
        Ok(Connection {
            client,
            default_namespace: "default".into(),
            server: Some(server),
        })
    }

    /// kubectl's rules: `--kubeconfig`, else the files of `$KUBECONFIG` (missing ones skipped),
    /// else `~/.kube/config`; with none of them, in-cluster configuration. `--context` picks a
    /// context. Errors name the file once: `context "nope" not found in /home/me/.kube/config`.
    async fn kube_config(&self) -> Result<kube::Config, ConnectError> {
        let Some(loaded) = self.load_kubeconfig()? else {
            if let Some(server) = &self.overrides.server {
                // kubectl --server without a kubeconfig: that server, no credentials.
                return Ok(kube::Config::new(server_url(server)?));
            }
            return kube::Config::incluster().map_err(|e| {
                ConnectError::Kubeconfig(format!(
                    "no kubeconfig found and not running in a cluster ({e}); pass --kubeconfig, set KUBECONFIG, or use --embedded"
                ))
            });
        };
        let context = self.pick_context(&loaded)?;
        let options = KubeConfigOptions {
            context: Some(context),
            ..KubeConfigOptions::default()
        };
        kube::Config::from_custom_kubeconfig(loaded.config, &options)
            .await
            .map_err(|e| ConnectError::Kubeconfig(format!("{}: {}", loaded.source, one_line(&e))))
    }

    /// The kubeconfig kubectl would read, and where it came from; `None` when there is none.
    fn load_kubeconfig(&self) -> Result<Option<LoadedKubeconfig>, ConnectError> {
        if let Some(path) = &self.kubeconfig {
            return read_kubeconfig(path)
                .map(|config| Some(LoadedKubeconfig::from_file(config, path)));
        }
        let files = match std::env::var_os("KUBECONFIG") {
            Some(list) if !list.is_empty() => kubeconfig_list(&list),
            _ => default_kubeconfig().into_iter().collect(),
        };
        let mut loaded: Option<LoadedKubeconfig> = None;
        for path in &files {
            let config = read_kubeconfig(path)?;
            loaded = Some(match loaded {
                None => LoadedKubeconfig::from_file(config, path),
                Some(so_far) => so_far.merge(config, path)?,
            });
        }
        Ok(loaded)
    }

    /// `--context`, else the current context; either must exist in the kubeconfig.
    fn pick_context(&self, loaded: &LoadedKubeconfig) -> Result<String, ConnectError> {
        let source = &loaded.source;
        let (name, what) = match (&self.context, &loaded.config.current_context) {
            (Some(name), _) => (name, "context"),
            (None, Some(name)) if !name.is_empty() => (name, "current context"),
            (None, _) => {
                return Err(ConnectError::Kubeconfig(format!(
                    "no current context in {source}; pass --context"
                )));
            }
        };
        if loaded.config.contexts.iter().any(|c| &c.name == name) {
            Ok(name.clone())
        } else {
            Err(ConnectError::Kubeconfig(format!(
                "{what} \"{name}\" not found in {source}"
            )))
        }
    }
}

/// A kubeconfig read from one or more files (`source` names them for error messages).
struct LoadedKubeconfig {
    config: Kubeconfig,
    source: String,
}

impl LoadedKubeconfig {
    fn from_file(config: Kubeconfig, path: &Path) -> Self {
        Self {
            config,
            source: path.display().to_string(),
        }
    }

    /// kubectl's merge: the first file to set a value wins.
    fn merge(self, next: Kubeconfig, path: &Path) -> Result<Self, ConnectError> {
        let source = format!("{}:{}", self.source, path.display());
        let config = self
            .config
            .merge(next)
            .map_err(|e| ConnectError::Kubeconfig(format!("{source}: {}", one_line(&e))))?;
        Ok(Self { config, source })
    }
}

/// The files of a `KUBECONFIG` list that exist; kubectl skips empty and missing entries.
fn kubeconfig_list(list: &std::ffi::OsStr) -> Vec<PathBuf> {
    std::env::split_paths(list)
        .filter(|p| !p.as_os_str().is_empty() && p.exists())
        .collect()
}

/// `~/.kube/config`, when it exists.
fn default_kubeconfig() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(Path::new(&home).join(".kube").join("config")).filter(|p| p.exists())
}

/// Reads one kubeconfig file; the error names the path once.
fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, ConnectError> {
    Kubeconfig::read_from(path).map_err(|e| {
        let why = match &e {
            KubeconfigError::ReadConfig(io, _) => io.to_string(),
            KubeconfigError::Parse(yaml) => format!(
                "failed to parse kubeconfig YAML: {}",
                crate::yaml_error::one_line(yaml)
            ),
            other => one_line(other),
        };
        ConnectError::Kubeconfig(format!("cannot read kubeconfig {}: {why}", path.display()))
    })
}

/// Why getting ready to inform (connecting, discovery, the retries of both) stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// SIGINT (130) or SIGTERM (143).
    Signal(i32),
    /// The command's own time limit (`--timeout`, `--duration`) ran out.
    TimedOut,
}

/// Runs `work` (connecting and resolving: retries and requests that may hang) until it is done,
/// a signal arrives, or `deadline` passes; the work is dropped at once when cut short.
pub async fn unless_interrupted<T>(
    work: impl Future<Output = T>,
    signals: &mut Signals,
    deadline: Option<Instant>,
) -> Result<T, Interrupted> {
    let timed_out = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        done = work => Ok(done),
        code = signals.recv() => Err(Interrupted::Signal(code)),
        () = timed_out => Err(Interrupted::TimedOut),
    }
}

/// `now + limit`, or no deadline when the clock cannot hold it.
pub fn deadline_after(limit: Option<Duration>) -> Option<Instant> {
    limit.and_then(|l| Instant::now().checked_add(l))
}

/// A client without kube's transparent retry of 429/503/504: every refusal reaches the
/// reflector, whose backoff is then visible in the trace. Requests are logged (`-v`) and
/// connection failures read like kubectl's (see [`super::client`]); they carry a
/// `User-Agent: kinformer/VERSION`, as kubectl names itself.
fn client_of(mut config: kube::Config) -> Result<kube::Client, kube::Error> {
    config.default_retry = false;
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(concat!("kinformer/", env!("CARGO_PKG_VERSION"))),
    ));
    let layer = super::client::RequestLayer::new(&config.cluster_url);
    Ok(kube::client::ClientBuilder::try_from(config)?
        .with_layer(&layer)
        .build())
}

fn one_line(e: &KubeconfigError) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text.replace('\n', " ")
}
