//! The command line's entry: parse, set up logging and the runtime, run the subcommand, and
//! map its outcome to the process exit code.

use std::io;

use super::args::{self, Cli, Command};
use super::exit::CliError;
use super::stream::Signals;
use super::{
    demo, docs, dump, explain, memory, profiles, proxy, record, replay, report, resync, scenarios,
    serve, top, watch,
};

/// Runs the command line and returns the process exit code.
pub fn main() -> u8 {
    memory::use_one_arena();
    let cli = match args::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => return exit_code(print_clap(&e)),
    };
    init_logging(cli.verbosity);
    let runtime = match runtime_for(&cli.command) {
        Ok(rt) => rt,
        Err(e) => return exit_code(report(&CliError::Io(e))),
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => report(&e),
    };
    // Every task the command started has ended by now (the informer's run waits for its
    // listeners, each command closes its connection and embedded server); the bounded wait
    // only covers what a failed command left behind, e.g. an HTTP connection being closed.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    exit_code(code)
}

/// The runtime a command runs on.
///
/// - `replay` (and `report`/`explain`, which may replay): one thread (the same file gives the
///   same trace), with tokio's clock paused under `--clock virtual`.
/// - `serve`: two workers, for the clients it serves.
/// - Everything else: one worker for the informers, their connections and listeners, and the
///   main thread for the output. Every hand-off inside the pipeline (connection → Reflector →
///   process loop → listeners) is then a task switch on one thread, never a wake-up of another
///   (a second worker was woken for nearly every event: 0.82× the drain rate, 1.2× the CPU per
///   event, benches/HISTORY.md, "Batched hand-offs"); the output renders on its own core.
fn runtime_for(command: &Command) -> io::Result<tokio::runtime::Runtime> {
    let replay = match command {
        Command::Replay(a) => Some(&a.replay),
        Command::Report(a) => Some(&a.replay),
        Command::Explain(a) => Some(&a.replay),
        _ => None,
    };
    let workers = if matches!(command, Command::Serve(_)) {
        2
    } else {
        1
    };
    match replay {
        Some(flags) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(flags.clock == args::ClockArg::Virtual)
            .build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build(),
    }
}

/// Prints clap's help, version or usage error; its exit code, or 1 when the help cannot be
/// written (stdout is full or unwritable; a closed pipe stays a quiet success).
fn print_clap(e: &clap::Error) -> i32 {
    match e.print() {
        Err(io) if io.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to stdout: {io}");
            1
        }
        _ => e.exit_code(),
    }
}

/// A process exit code (every documented one fits a byte).
fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

fn report(e: &CliError) -> i32 {
    if !e.is_quiet() {
        eprintln!("{}", e.line());
    }
    e.code()
}

async fn run(cli: Cli) -> Result<i32, CliError> {
    let mut signals = Signals::new()?;
    match cli.command {
        Command::Watch(a) => watch::run(a, &mut signals).await,
        Command::Dump(a) => dump::run(a, &mut signals).await,
        Command::Resync(a) => resync::run(a, &mut signals).await,
        Command::Top(a) => top::run(a, &mut signals).await,
        Command::Demo(a) => demo::run(a, &mut signals).await,
        Command::Record(a) => record::run(a, &mut signals).await,
        Command::Replay(a) => replay::run(a, &mut signals).await,
        Command::Serve(a) => serve::run(a, &mut signals).await,
        Command::Proxy(a) => proxy::run(a, &mut signals).await,
        Command::Report(a) => report::run(a, &mut signals).await,
        Command::Explain(a) => explain::run(a, &mut signals).await,
        Command::Profiles => quiet_pipe(profiles::print(&mut io::stdout())),
        Command::Scenarios => quiet_pipe(scenarios::print(&mut io::stdout())),
        Command::Completions(a) => quiet_pipe(docs::print_completions(a.shell, &mut io::stdout())),
        Command::Man(a) => quiet_pipe(docs::run_man(a.out_dir.as_deref(), &mut io::stdout())),
    }
}

/// A closed stdout is a quiet success.
fn quiet_pipe(result: io::Result<()>) -> Result<i32, CliError> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

/// Logs go to stderr only, at kubectl-like verbosity levels; `KINFORMER_LOG` (an EnvFilter
/// string such as `kube_client=debug,kinformer=info`) replaces the level `-v` picks.
fn init_logging(verbosity: u8) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("KINFORMER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(log_filter(verbosity)));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(false)
        .with_target(false)
        // A log line that cannot be written (stderr closed, e.g. `2>&1 | head`) is dropped:
        // reporting it would print to that same stderr, and eprintln! panics there.
        .log_internal_errors(false)
        .init();
}

/// `-v N` as an EnvFilter: 0–1 warnings, 2–3 each request and retry (info), 4–5 each URL,
/// status and time (debug), 6+ each response's headers (trace).
pub fn log_filter(verbosity: u8) -> &'static str {
    match verbosity {
        0..=1 => "kinformer=warn",
        2..=3 => "kinformer=info",
        4..=5 => "kinformer=debug",
        _ => "kinformer=trace",
    }
}
