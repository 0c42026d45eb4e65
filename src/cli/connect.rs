//! Where the informer connects: the user's kubeconfig (kube does the loading, auth, exec
//! plugins and TLS), or an in-process embedded API server seeded with the builtin cluster.

use std::path::PathBuf;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};

use crate::apiserver::{EmbeddedServer, Seed, ServerConfig};

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
    /// How long to retry an unreachable server's first contact (zero: one attempt).
    pub retry_timeout: Duration,
}

/// A client plus, for `--embedded`, the server it talks to (kept alive as long as this is).
pub struct Connection {
    pub client: kube::Client,
    /// The kubeconfig context's namespace, or `default`.
    pub default_namespace: String,
    pub server: Option<EmbeddedServer>,
}

/// Why no client could be built.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("{0}")]
    Kubeconfig(String),
    #[error("cannot start the embedded API server: {0}")]
    Embedded(String),
}

impl ClusterChoice {
    /// From `--kubeconfig`, `--context` and `--embedded`.
    pub fn from_args(args: &super::args::ConnectionArgs) -> Self {
        Self {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
            embedded: args.embedded,
            churn: None,
            server: None,
            retry_timeout: args.retry_timeout,
        }
    }

    pub async fn connect(&self) -> Result<Connection, ConnectError> {
        if self.embedded {
            return self.connect_embedded().await;
        }
        let config = self.kube_config().await?;
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
            ..ServerConfig::default()
        });
        let server = EmbeddedServer::start(config)
            .await
            .map_err(|e| ConnectError::Embedded(e.to_string()))?;
        let client = client_of(server.kube_config())
            .map_err(|e| ConnectError::Embedded(format!("cannot build a client: {e}")))?;
        Ok(Connection {
            client,
            default_namespace: "default".into(),
            server: Some(server),
        })
    }

    /// kubectl's rules: `--kubeconfig`, else `$KUBECONFIG`, else `~/.kube/config`; `--context`
    /// picks a context; with neither file nor flag, in-cluster configuration.
    async fn kube_config(&self) -> Result<kube::Config, ConnectError> {
        let options = KubeConfigOptions {
            context: self.context.clone(),
            ..KubeConfigOptions::default()
        };
        let kubeconfig = match &self.kubeconfig {
            Some(path) => Some(Kubeconfig::read_from(path).map_err(|e| {
                ConnectError::Kubeconfig(format!(
                    "cannot read kubeconfig {}: {}",
                    path.display(),
                    one_line(&e)
                ))
            })?),
            None if self.context.is_some() => Some(Kubeconfig::read().map_err(|e| {
                ConnectError::Kubeconfig(format!("cannot read kubeconfig: {}", one_line(&e)))
            })?),
            None => None,
        };
        match kubeconfig {
            Some(kc) => kube::Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| ConnectError::Kubeconfig(one_line(&e))),
            None => kube::Config::infer().await.map_err(|e| {
                ConnectError::Kubeconfig(format!(
                    "no usable kubeconfig ({e}); pass --kubeconfig, set KUBECONFIG, or use --embedded"
                ))
            }),
        }
    }
}

/// A client without kube's transparent retry of 429/503/504: every refusal reaches the
/// reflector, whose backoff is then visible in the trace.
fn client_of(mut config: kube::Config) -> Result<kube::Client, kube::Error> {
    config.default_retry = false;
    kube::Client::try_from(config)
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
