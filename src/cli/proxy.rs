//! `kinformer proxy`: relays every client to the API server (`--kubeconfig`/`--context`, or
//! `--embedded`) through `crate::proxy`, writes the clients' kubeconfig, and streams what their
//! informers did as trace lines on stdout until Ctrl-C/SIGTERM or `--timeout`; then the
//! summary per client and stream, and the record file (`--record`) is completed. An upstream
//! that does not answer at start is an error (exit 5); one that stops answering later is said
//! on stderr.

use std::io::{self, BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::informer::trace::{Event, TraceEvent, Tracer};
use crate::output::{EventRenderer, Hidden, RenderOptions};
use crate::proxy::{Proxy, ProxyConfig, Upstream};

use super::args::ProxyArgs;
use super::connect::{ClusterChoice, Connection, deadline_after, unless_interrupted};
use super::exit::CliError;
use super::live::stopped_before_start;
use super::reporting::{ReportAtExit, server_of, tap_of};
use super::stream::{STDOUT_BUFFER, Signals};

pub async fn run(args: ProxyArgs, signals: &mut Signals) -> Result<i32, CliError> {
    if args.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(CliError::Usage("--token must not be empty".into()));
    }
    let deadline = deadline_after(args.timeout);
    let connection = match unless_interrupted(upstream(&args).connect(), signals, deadline).await {
        Ok(connected) => connected?,
        Err(_) => return Ok(0),
    };
    let version = match unless_interrupted(reach(&connection), signals, deadline).await {
        Ok(reached) => reached?,
        Err(cut) => return stopped_before_start(cut, args.timeout),
    };
    let report = ReportAtExit::asked(args.report.path.as_deref());
    let (shown, hidden) =
        ReportAtExit::stages(report.as_ref(), args.show.stages(), args.show.hidden());
    let (events, received) = mpsc::unbounded_channel();
    let tracer = Tracer::new(events, shown);
    let (done, rendered) = oneshot::channel();
    let out = renderer(&args, hidden).with_tap(tap_of(report.as_ref()));
    let serving = async {
        let served = serve(&args, &connection, version, tracer, signals, deadline).await;
        let _ = done.send(());
        served
    };
    let (served, ()) = tokio::join!(serving, render(received, rendered, out));
    if let Some(report) = report {
        report.write(server_of(&connection).await)?;
    }
    connection.close().await;
    served
}

/// The upstream, as `watch` connects to it.
fn upstream(args: &ProxyArgs) -> ClusterChoice {
    ClusterChoice {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        embedded: args.embedded,
        churn: Some(args.churn).filter(|c| *c > 0.0),
        ..ClusterChoice::default()
    }
}

/// The upstream answers (its `gitVersion`), or the error kubectl would print for it: the
/// proxy does not start in front of a server nobody can reach (exit 5).
async fn reach(connection: &Connection) -> Result<String, CliError> {
    connection
        .client
        .apiserver_version()
        .await
        .map(|v| v.git_version)
        .map_err(|e| CliError::from_kube(&e, "get", "version"))
}

/// Says on stderr when the upstream stops answering, and when it answers again.
fn say_upstream(change: &Upstream) {
    match change {
        Upstream::Unreachable(why) => eprintln!(
            "warning: the API server became unreachable ({why}); clients get 502 BadGateway until it answers again"
        ),
        Upstream::Reachable => eprintln!("the API server answers again"),
    }
}

/// Runs the proxy until a signal or the deadline; emits the summary and completes the record.
async fn serve(
    args: &ProxyArgs,
    connection: &Connection,
    version: String,
    tracer: Tracer,
    signals: &mut Signals,
    deadline: Option<tokio::time::Instant>,
) -> Result<i32, CliError> {
    let proxy = Proxy::start(ProxyConfig {
        listen: args.listen,
        token: args.token.clone(),
        upstream: connection.client.clone(),
        tracer: tracer.clone(),
        record: args.record.clone(),
        on_upstream: Some(Arc::new(say_upstream)),
    })
    .await?;
    let temporary = args.kubeconfig_out.is_none();
    let path = args
        .kubeconfig_out
        .clone()
        .unwrap_or_else(|| default_kubeconfig(proxy.url()));
    proxy
        .write_kubeconfig(&path)
        .map_err(|source| CliError::WriteFile {
            path: path.clone(),
            source,
        })?;
    eprintln!(
        "proxying {} to the API server; point a client at it: KUBECONFIG={} ./my-controller  (Ctrl-C stops)",
        proxy.url(),
        path.display()
    );
    let code = stopped(signals, deadline).await;
    let stopped = proxy.shutdown().await;
    for summary in &stopped.summaries {
        tracer.emit(Event::ProxySummary(Box::new(summary.clone())));
    }
    if temporary {
        let _ = std::fs::remove_file(&path);
    }
    if let (Some(file), Some(recorded)) = (&args.record, stopped.finish_recording(Some(version))) {
        report_recording(file, recorded)?;
    }
    Ok(code)
}

/// Waits for SIGINT (130), SIGTERM (143) or the deadline (0).
async fn stopped(signals: &mut Signals, deadline: Option<tokio::time::Instant>) -> i32 {
    let timed_out = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        code = signals.recv() => code,
        () = timed_out => 0,
    }
}

fn report_recording(
    file: &Path,
    recorded: Result<crate::proxy::Recorded, io::Error>,
) -> Result<(), CliError> {
    match recorded {
        Ok(r) => {
            eprintln!("recorded {} entries to {}", r.entries, file.display());
            Ok(())
        }
        Err(source) => Err(CliError::WriteFile {
            path: file.to_path_buf(),
            source,
        }),
    }
}

/// `$TMPDIR/kinformer-proxy-PORT.kubeconfig`.
fn default_kubeconfig(url: &str) -> PathBuf {
    let port = url.rsplit(':').next().unwrap_or("proxy");
    std::env::temp_dir().join(format!("kinformer-proxy-{port}.kubeconfig"))
}

/// The renderer of stdout, without the `hidden` events: the table gets a STREAM column, and
/// on a terminal fits its width.
fn renderer(args: &ProxyArgs, hidden: Hidden) -> EventRenderer<BufWriter<io::Stdout>> {
    let tty = io::stdout().is_terminal();
    let no_color = std::env::var("NO_COLOR").ok();
    let options = RenderOptions {
        format: args.output,
        no_headers: args.no_headers,
        color: crate::output::table::color_enabled(tty, no_color.as_deref()),
        several_resources: true,
        streams: true,
        width: tty
            .then(|| terminal_size::terminal_size_of(io::stdout()))
            .flatten()
            .map(|(terminal_size::Width(w), _)| usize::from(w)),
        ..RenderOptions::default()
    };
    EventRenderer::new(
        BufWriter::with_capacity(STDOUT_BUFFER, io::stdout()),
        options,
    )
    .with_hidden(hidden)
}

/// Writes events as they come until `done`, then what is left; a closed stdout ends the
/// writing quietly.
async fn render(
    mut events: mpsc::UnboundedReceiver<TraceEvent>,
    mut done: oneshot::Receiver<()>,
    mut out: EventRenderer<BufWriter<io::Stdout>>,
) {
    let mut writing = true;
    let mut write = |event: &TraceEvent, out: &mut EventRenderer<_>| {
        if writing && out.render(event).is_err() {
            writing = false;
        }
    };
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(event) => write(&event, &mut out),
                None => break,
            },
            _ = &mut done => break,
        }
        while let Ok(event) = events.try_recv() {
            write(&event, &mut out);
        }
        let _ = out.flush();
    }
    while let Ok(event) = events.try_recv() {
        write(&event, &mut out);
    }
    let _ = out.flush();
}
