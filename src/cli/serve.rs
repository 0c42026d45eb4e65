//! `kinformer serve`: run the embedded Kubernetes API server until SIGINT/SIGTERM. Prints the
//! URL and the kubeconfig path on stdout; kubectl and kinformer use that kubeconfig as-is.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::apiserver::{EmbeddedServer, Seed, ServerConfig};

use super::args::{self, ServeArgs};
use super::exit::CliError;
use super::stream::Signals;

pub async fn run(args: ServeArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let defaults = ServerConfig::default();
    let config = ServerConfig {
        listen: args.listen,
        token: args.token.clone(),
        auth: !args.no_auth,
        seed: args.seed.iter().map(seed).collect(),
        history: args.history.unwrap_or(defaults.history),
        churn: Some(args.churn).filter(|c| *c > 0.0),
        ..defaults
    };
    let server = EmbeddedServer::start(config)
        .await
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    let path = args
        .kubeconfig_out
        .clone()
        .unwrap_or_else(|| default_kubeconfig(&server));
    server
        .write_kubeconfig(&path)
        .map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))?;
    let mut out = io::stdout();
    writeln!(out, "{}", server.url())?;
    writeln!(out, "kubeconfig: {}", path.display())?;
    out.flush()?;
    eprintln!(
        "serving the Kubernetes API; try: kubectl --kubeconfig {} get pods -A  (Ctrl-C stops)",
        path.display()
    );
    signals.recv().await;
    server.shutdown().await;
    Ok(0)
}

fn seed(s: &args::Seed) -> Seed {
    match s {
        args::Seed::Builtin => Seed::Builtin,
        args::Seed::File(path) => Seed::File(path.clone()),
    }
}

/// `$TMPDIR/kinformer-PORT.kubeconfig`.
fn default_kubeconfig(server: &EmbeddedServer) -> PathBuf {
    let url = server.url();
    let port = url.rsplit(':').next().unwrap_or("server");
    std::env::temp_dir().join(format!("kinformer-{port}.kubeconfig"))
}
