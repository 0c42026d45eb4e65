//! `kinformer serve`: run the embedded Kubernetes API server until SIGINT/SIGTERM, over HTTPS
//! with a fresh CA (plain HTTP with `--insecure-http`). Prints the URL and the kubeconfig path
//! on stdout; kubectl and kinformer use that kubeconfig (mode 0600) as-is. The default
//! kubeconfig file is removed at exit; one named with `--kubeconfig-out` is left in place.
//! `--scenario FILE` plays a scenario's writes and faults against it (its handler steps need an
//! inspector and are skipped with a warning); the scenario's `end` step stops the server.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::scenario::{self, Scenario};
use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};

use super::args::ServeArgs;
use super::exit::CliError;
use super::stream::Signals;

pub async fn run(args: ServeArgs, signals: &mut Signals) -> Result<i32, CliError> {
    if args.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(CliError::Usage(
            "--token must not be empty (use --no-auth to accept requests without one)".into(),
        ));
    }
    let scenario = super::scenario_play::load_scenario(args.scenario.as_deref())?;
    let defaults = ServerConfig::default();
    let mut seeds = args.seed.clone();
    if seeds.is_empty() && scenario.as_ref().is_some_and(|s| s.builtin_seed) {
        seeds.push(Seed::Builtin);
    }
    let history = args
        .history
        .or_else(|| scenario.as_ref().and_then(|s| s.history));
    let config = ServerConfig {
        listen: args.listen,
        token: args.token.clone(),
        auth: !args.no_auth,
        seed: seeds,
        history: history.unwrap_or(defaults.history),
        churn: Some(args.churn).filter(|c| *c > 0.0),
        watch_cache: args.watch_cache,
        bookmark_interval: args.bookmark_interval,
        tls: !args.insecure_http,
        controllers: args.controllers,
        ..defaults
    };
    // A bad --seed file is a configuration error: CliError::Server exits 3 for it.
    let server = EmbeddedServer::start(config)
        .await
        .map_err(CliError::Server)?;
    let temporary = args.kubeconfig_out.is_none();
    let path = args
        .kubeconfig_out
        .clone()
        .unwrap_or_else(|| default_kubeconfig(&server));
    server
        .write_kubeconfig(&path)
        .map_err(|source| CliError::WriteFile {
            path: path.to_path_buf(),
            source,
        })?;
    let served = serve_until_stopped(&server, scenario.as_ref(), signals, &path).await;
    if temporary {
        // Already gone (removed by hand) is fine.
        let _ = std::fs::remove_file(&path);
    }
    server.shutdown().await;
    served
}

/// Announces the server and serves until a signal or the scenario's end.
async fn serve_until_stopped(
    server: &EmbeddedServer,
    scenario: Option<&Scenario>,
    signals: &mut Signals,
    path: &std::path::Path,
) -> Result<i32, CliError> {
    let mut out = io::stdout();
    writeln!(out, "{}", server.url())?;
    writeln!(out, "kubeconfig: {}", path.display())?;
    out.flush()?;
    eprintln!(
        "serving the Kubernetes API; try: kubectl --kubeconfig {} get pods -A  (Ctrl-C stops)",
        path.display()
    );
    match scenario {
        Some(scenario) => serve_scenario(server, scenario, signals).await,
        None => drop(signals.recv().await),
    }
    Ok(0)
}

/// Plays the scenario until its `end` step or a signal; without an `end` step the server keeps
/// serving until a signal.
async fn serve_scenario(server: &EmbeddedServer, scenario: &Scenario, signals: &mut Signals) {
    if !scenario.description.is_empty() {
        let intro = format!("scenario: {}", scenario.description);
        for line in
            crate::output::narration::wrapped(&intro, crate::output::narration::stderr_width())
        {
            eprintln!("{line}");
        }
    }
    tokio::select! {
        _ = signals.recv() => {}
        ended = scenario::play(scenario, server, None) => {
            if !ended {
                signals.recv().await;
            }
        }
    }
}

/// `$TMPDIR/kinformer-PORT.kubeconfig`.
fn default_kubeconfig(server: &EmbeddedServer) -> PathBuf {
    let url = server.url();
    let port = url.rsplit(':').next().unwrap_or("server");
    std::env::temp_dir().join(format!("kinformer-{port}.kubeconfig"))
}
