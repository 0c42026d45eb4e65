//! The command line, as clap derive definitions with kubectl's flag names and meanings.
//!
//! Every value is parsed and validated here, at parse time (durations, handler specs, index
//! expressions, output formats, `--show` stages, selectors), so bad input fails with a
//! one-line message and exit code 2 before any network call. [`parse_from`] adds the checks
//! that span several values (duplicate handler or index names).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::informer::profile::{NEWEST, Profile};
use crate::informer::queue::QueueKind;
pub use crate::informer::source::replay::Speed;
use crate::informer::store::{IndexError, IndexFunc, Indexers};
use crate::informer::trace::{Stage, StageSet};
use crate::output::object_columns::ObjectColumns;
use crate::output::{Hidden, NotifyKinds, OutputFormat};
use kinformer_apiserver::Seed;

use crate::duration::parse_duration;

mod selector;

/// Examples shown at the end of `--help` and in the man page.
const EXAMPLES: &str = "Examples:
  kinformer demo                                   # no cluster needed
  kinformer watch pods -A --show all               # every stage, live
  kinformer watch deploy -o jsonl | jq .           # JSONL for scripts
  kinformer watch pods --handler slow:delay=200ms --handler fast
  kinformer resync configmaps --handler a:resync=5s --resync 30s
  kinformer dump pods --index by-node=field:spec.nodeName";

/// The binary's name, and the plugin name kubectl looks for on `$PATH`.
pub const BIN_NAME: &str = "kinformer";
const PLUGIN_FILE: &str = "kubectl-informer";

/// The command name to show in help and usage: `kubectl informer` when run as the kubectl
/// plugin `kubectl-informer` (argv[0] file name, any directory, `.exe` allowed), else
/// `kinformer`.
pub fn command_name(argv0: &str) -> &'static str {
    let file = argv0.rsplit(['/', '\\']).next().unwrap_or(argv0);
    let stem = file.strip_suffix(".exe").unwrap_or(file);
    if stem == PLUGIN_FILE {
        "kubectl informer"
    } else {
        BIN_NAME
    }
}

/// Informer inspector for Kubernetes
///
/// Runs client-go's shared informer pipeline (Reflector → DeltaFIFO → Indexer →
/// sharedProcessor → one listener per handler) for any resource and shows what every stage
/// does, as a live table or as JSONL. Works against a cluster through your kubeconfig, or
/// against an embedded API server (--embedded, kinformer demo) with no cluster at all.
#[derive(Debug, Parser)]
#[command(
    name = "kinformer",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Log verbosity on stderr, like kubectl's -v (0 warnings, 2 info, 4 debug, 6+ trace)
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        value_name = "LEVEL",
        default_value_t = 0,
        value_parser = clap::value_parser!(u8).range(0..=10)
    )]
    pub verbosity: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)
    #[command(after_help = "Examples:
  kinformer watch pods -A                          # every change, one row each
  kinformer watch pods -n shop --show all          # every stage of the pipeline
  kinformer watch deploy -o jsonl | jq .           # JSONL for scripts
  kinformer watch pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName
  kinformer watch pods --handler slow:delay=200ms --kinds sync")]
    Watch(WatchArgs),
    /// List RESOURCE through an informer and print the cache and its indices
    #[command(after_help = "Examples:
  kinformer dump pods -A                           # the cache after the initial sync
  kinformer dump pods --index by-node=field:spec.nodeName -o wide
  kinformer dump pods -A --by-index namespace=shop # client-go's ByIndex
  kinformer dump deploy -o json | jq '.items[].metadata.name'")]
    Dump(DumpArgs),
    /// Debug resync: show each handler's schedule, every resync tick and a timeline
    #[command(after_help = "Examples:
  kinformer resync configmaps --handler a:resync=5s --resync 30s
  kinformer resync pods -A --handler ctrl:resync=5m --timeout 2m")]
    Resync(ResyncArgs),
    /// A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler
    Top(TopArgs),
    /// Run against an embedded API server with generated churn (no cluster needed)
    #[command(after_help = "Examples:
  kinformer demo                                   # the narrated tour, no cluster needed
  kinformer demo --scenario relist-after-410       # a built-in scenario (kinformer scenarios)
  kinformer demo -o jsonl --timeout 10s | jq .
  kinformer demo --report demo.html")]
    Demo(DemoArgs),
    /// Record RESOURCE's raw LIST pages and WATCH frames, with their timing, to a file
    #[command(after_help = "Examples:
  kinformer record pods -A -o pods.jsonl.zst --timeout 10m
  kinformer record pods,deploy -n shop -o shop.jsonl")]
    Record(RecordArgs),
    /// Feed a record file through the informer pipeline offline (deterministic)
    #[command(after_help = "Examples:
  kinformer replay pods.jsonl.zst --clock virtual --speed max
  kinformer replay pods.jsonl.zst --client-go 1.32 --show all -o jsonl
  kinformer replay controller.jsonl --stream kubectl/pods@default")]
    Replay(ReplayArgs),
    /// Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)
    #[command(after_help = "Examples:
  kinformer serve                                  # an API server for kubectl and kube-rs
  kinformer serve --churn 5 --scenario throttled-server")]
    Serve(ServeArgs),
    /// Relay any client to the API server and show what its informers did (records them too)
    #[command(after_help = "Examples:
  kinformer proxy --record controller.jsonl        # then point the client at its kubeconfig
  kinformer proxy --show all --timeout 5m")]
    Proxy(ProxyArgs),
    /// Draw a run as one self-contained HTML page: timeline, plots, markers, object stories
    #[command(after_help = "Examples:
  kinformer report run.jsonl -o run.html
  kinformer report pods.jsonl.zst -o replay.html   # a record file, replayed")]
    Report(ReportArgs),
    /// Tell one object's story in a run: server states, deltas, cache writes, notifications
    #[command(after_help = "Examples:
  kinformer explain default/web-1 run.jsonl
  kinformer explain web-1 pods.jsonl.zst           # a bare name: the default namespace
  kinformer explain default/web-1 run.jsonl -o jsonl")]
    Explain(ExplainArgs),
    /// Print what each client-go release profile (--client-go) switches
    #[command(after_help = "Examples:
  kinformer profiles
  kinformer watch pods --client-go 1.32            # run one of them")]
    Profiles,
    /// List the built-in scenarios (demo --scenario NAME plays one) and what each shows
    #[command(after_help = "Examples:
  kinformer scenarios
  kinformer demo --scenario late-handler")]
    Scenarios,
    /// Print a shell completion script to stdout
    #[command(after_help = "Examples:
  kinformer completions bash > ~/.local/share/bash-completion/completions/kinformer
  kinformer completions zsh > \"${fpath[1]}/_kinformer\"")]
    Completions(CompletionsArgs),
    /// Print the man page, or write every page into a directory
    #[command(after_help = "Examples:
  kinformer man | man -l -
  kinformer man --out-dir ~/.local/share/man/man1")]
    Man(ManArgs),
}

/// `kinformer watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The resource(s), as kubectl names them (pods, deploy, deployments.apps, …);
    /// several comma-separated (pods,deploy,rs): one informer each
    #[arg(value_name = "RESOURCE", value_parser = parse_resource_list)]
    pub resources: ResourceList,
    /// Only this object (a metadata.name field selector; its namespace goes in -n)
    #[arg(value_name = "NAME", value_parser = parse_object_name)]
    pub name: Option<String>,
    /// Stop after N notifications (handler notify events, shown or not), N ≥ 1; the informer
    /// stopped line and the exit summary follow
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Stop after this long (e.g. 30s, 5m; 0 = no limit, as kubectl)
    #[arg(long, visible_alias = "duration", value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Stop once the informer has synced (the initial list was delivered)
    #[arg(long)]
    pub until_synced: bool,
    /// Accepted for kubectl's `get -w` habit; watch always watches
    #[arg(short = 'w', long = "watch")]
    pub watch: bool,
    #[command(flatten)]
    pub report: ReportFile,
    #[command(flatten)]
    pub informer: InformerArgs,
}

/// `kinformer dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The resource(s), as kubectl names them (pods, deploy, deployments.apps, …);
    /// several as separate words or comma-separated (pods deploy, pods,deploy)
    #[arg(value_name = "RESOURCE", required = true, num_args = 1.., value_parser = parse_resource_list)]
    pub resources: Vec<ResourceList>,
    /// Print only the objects under one value of one index (client-go's ByIndex): `namespace`
    /// or an --index's NAME
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_by_index, help_heading = "Output")]
    pub by_index: Option<(String, String)>,
    #[command(flatten)]
    pub informer: InformerArgs,
}

/// Parses `dump --by-index NAME=VALUE`.
fn parse_by_index(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!(
            "expected NAME=VALUE (an index and one of its values), got {text:?}"
        )),
    }
}

/// `kinformer resync`.
#[derive(Debug, Args)]
pub struct ResyncArgs {
    /// The resource, as kubectl names it (pods, deploy, deployments.apps, …): one only
    #[arg(value_name = "RESOURCE", value_parser = parse_one_resource)]
    pub resource: String,
    /// How long to run before printing the timeline (0 = until Ctrl-C)
    #[arg(
        long,
        visible_alias = "duration",
        value_name = "DUR",
        default_value = "30s",
        value_parser = parse_duration
    )]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    pub informer: InformerArgs,
}

/// Keys and layout of `kinformer top`, shown at the end of its `--help`.
const TOP_KEYS: &str = "Keys:
  q, Esc      quit (Ctrl-C too)
  p           pause the view (the informer keeps running; the view catches up on resume)
  a           add a simulated handler sim-N (100ms per notification) to the running informer
  r           remove the most recently added handler
  e           show the last events
  Up, Down    scroll the handler rows when they do not all fit
  Tab         the next resource's view (with several resources)

The view redraws 10 times a second. It needs a terminal: in a pipe it exits 2 (use
kinformer watch for a stream).

Examples:
  kinformer top pods -A --embedded
  kinformer top pods -A --embedded --handler fast:resync=10s --handler slow:delay=250ms
  kinformer top pods,deploy,rs -A --embedded
  kinformer top pods -A --embedded --scenario scenarios/slow-handler-backlog.yaml";

/// `kinformer top`: the informer flags without the output ones (it draws, it prints nothing).
#[derive(Debug, Args)]
#[command(after_help = TOP_KEYS)]
pub struct TopArgs {
    /// The resource(s), as kubectl names them (pods, deploy, deployments.apps, …); several as
    /// separate words or comma-separated: one informer each, Tab switches the view
    #[arg(value_name = "RESOURCE", required_unless_present = "attach", num_args = 1.., value_parser = parse_resource_list)]
    pub resources: Vec<ResourceList>,
    /// Play a scenario on the --embedded server (its writes, faults and handler steps): a file,
    /// or a built-in one by NAME (kinformer scenarios lists them)
    #[arg(long, value_name = "FILE|NAME", requires = "embedded")]
    pub scenario: Option<PathBuf>,
    /// Draw a running Go controller's own informers instead, from its Go tap's endpoint
    /// (http://HOST:PORT/trace; docs/debug-go-controller.md): no resource, no informer of ours
    #[arg(long, value_name = "URL", conflicts_with_all = ["resources", "scenario"])]
    pub attach: Option<String>,
    #[command(flatten)]
    pub connection: ConnectionArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// `kinformer demo`: the shared output and pipeline flags, with the demo's own defaults (the
/// story view, a 30s resync check period, a fast and a slow handler), so `--help` shows what runs.
#[derive(Debug, Args)]
#[command(
    mut_arg("resync", |a| a.default_value("30s")),
    mut_arg("handlers", |a| a
        .default_values(DEMO_HANDLERS)
        .help("Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; replaces the demo's fast and slow)")),
)]
pub struct DemoArgs {
    /// Stop after this long (default, or 0: run until interrupted)
    #[arg(long, visible_alias = "duration", value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Writes per second the embedded server makes (creates, updates, deletes)
    #[arg(long, value_name = "OPS", default_value_t = 5)]
    pub churn: u32,
    /// Play a scenario (timed writes, faults, handler changes) instead of churning: a file, or
    /// a built-in one by NAME: broken-stream-vs-410, delete-during-disconnect, delta-vs-real-fifo, late-handler, relist-after-410, slow-handler-backlog, three-handlers-resync, throttled-server, version-differences (kinformer scenarios says what each shows)
    #[arg(long, value_name = "FILE|NAME")]
    pub scenario: Option<PathBuf>,
    /// Also record the informer's LIST pages and WATCH frames to FILE (see kinformer record)
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportFile,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// The ids of the flags given on the command line (a scenario's settings replace only the
    /// demo's defaults).
    #[arg(skip)]
    pub given: Vec<String>,
}

/// The demo's handlers: `fast` resyncs every 10s, `slow` takes 250ms per notification.
pub const DEMO_HANDLERS: [&str; 2] = ["fast:resync=10s", "slow:delay=250ms"];

impl DemoArgs {
    /// Whether the flag with clap id `id` was given on the command line.
    pub fn was_given(&self, id: &str) -> bool {
        self.given.iter().any(|g| g == id)
    }
}

/// `kinformer record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The resource(s), as kubectl names them; several as words or comma-separated
    #[arg(value_name = "RESOURCE", required = true, num_args = 1.., value_parser = parse_resource_list)]
    pub resources: Vec<ResourceList>,
    /// The record file to write (FILE.zst: zstd-compressed)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub file: PathBuf,
    /// Stop after this long (default, or 0: until Ctrl-C)
    #[arg(long, visible_alias = "duration", value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Write Secret data and stringData values to the file (redacted by default)
    #[arg(long)]
    pub show_secret_data: bool,
    #[command(flatten)]
    pub connection: ConnectionArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// `kinformer replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A file written by kinformer record (or demo --record), plain or zstd-compressed
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub replay: ReplayFlags,
    /// Stop after this long (of the replay's clock; 0 = at the end of the recording)
    #[arg(long, visible_alias = "duration", value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Draw the replay as kinformer top does (a terminal; q quits) instead of streaming it
    #[arg(long, conflicts_with_all = ["clock", "output", "timeout", "report"])]
    pub top: bool,
    #[command(flatten)]
    pub report: ReportFile,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// How a record file is replayed (`replay`, and `report`/`explain` given a record file).
#[derive(Debug, Args)]
pub struct ReplayFlags {
    /// How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)
    #[arg(long, value_name = "SPEED", default_value = "1x", value_parser = parse_speed)]
    pub speed: Speed,
    /// Trace timestamps: wall (now), or virtual (recorded time; output identical every run)
    #[arg(long, value_name = "CLOCK", default_value = "wall")]
    pub clock: ClockArg,
    /// Replay only this stream of a kinformer proxy recording (a client's informer, as the
    /// header's resources name it: CLIENT/RESOURCE…)
    #[arg(long, value_name = "NAME")]
    pub stream: Option<String>,
}

/// `--report FILE` of a run that streams its trace (`watch`, `demo`, `replay`, `proxy`).
#[derive(Debug, Args)]
pub struct ReportFile {
    /// Also write the run as a self-contained HTML page to FILE at exit (see kinformer
    /// report); the informer then traces every stage, --show still narrows what is printed
    #[arg(long = "report", id = "report", value_name = "FILE")]
    pub path: Option<PathBuf>,
}

/// `kinformer report`: INPUT is a trace or a record file; a record file is replayed (on the
/// virtual clock by default: instant, and the page is the same every time).
#[derive(Debug, Args)]
#[command(mut_arg("clock", |a| a.default_value("virtual")))]
pub struct ReportArgs {
    /// A JSONL trace (kinformer watch|demo|replay -o jsonl --show all) or a record file
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// The HTML file to write (default: stdout)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub replay: ReplayFlags,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// `kinformer explain`: the same INPUTs as `report`.
#[derive(Debug, Args)]
#[command(mut_arg("clock", |a| a.default_value("virtual")))]
pub struct ExplainArgs {
    /// The object's key: namespace/name, or name for a cluster-scoped object
    #[arg(value_name = "KEY")]
    pub key: String,
    /// A JSONL trace (kinformer watch|demo|replay -o jsonl --show all) or a record file
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// Output format: text (one line per step) or jsonl (one object per step)
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "text")]
    pub output: ExplainFormat,
    #[command(flatten)]
    pub replay: ReplayFlags,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// `explain -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// One line per step, for people
    Text,
    /// One JSON object per step
    Jsonl,
}

/// `replay --clock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClockArg {
    /// Timestamps are the time of the replay
    Wall,
    /// tokio's paused clock: timestamps are the recording's, timers fire in virtual time
    Virtual,
}

/// Parses `--speed`: `1x`, `10x`, `0.5x` (the `x` may be left out) or `max`.
pub fn parse_speed(text: &str) -> Result<Speed, String> {
    if text == "max" {
        return Ok(Speed::Max);
    }
    let factor = text.strip_suffix('x').unwrap_or(text);
    match factor.parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(Speed::Factor(f)),
        _ => Err(format!(
            "invalid speed {text:?}: expected a factor like 1x, 10x or 0.5x, or max"
        )),
    }
}

/// `kinformer serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Write a kubeconfig for the server to PATH
    #[arg(long, value_name = "PATH")]
    pub kubeconfig_out: Option<PathBuf>,
    /// Bearer token clients must send (default: a random one)
    #[arg(long, value_name = "T", conflicts_with = "no_auth")]
    pub token: Option<String>,
    /// Accept requests without a token
    #[arg(long)]
    pub no_auth: bool,
    /// Objects to start with: `builtin` or a YAML file (repeatable)
    #[arg(long, value_name = "builtin|FILE.yaml", value_parser = parse_seed)]
    pub seed: Vec<Seed>,
    /// How many events the watch history keeps (older resourceVersions get 410 Gone)
    #[arg(long, value_name = "N")]
    pub history: Option<usize>,
    /// Writes per second to generate (0 = none)
    #[arg(long, value_name = "OPS_PER_S", default_value_t = 0.0, value_parser = parse_rate)]
    pub churn: f64,
    /// Play a scenario's writes and faults (handler steps are skipped with a warning): a file,
    /// or a built-in one by NAME (kinformer scenarios lists them)
    #[arg(long, value_name = "FILE|NAME")]
    pub scenario: Option<PathBuf>,
    /// Serve LISTs at resourceVersion 0 from the watch cache, in one page ignoring limit
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub watch_cache: bool,
    /// Interval between BOOKMARK events on watches that ask for them
    #[arg(long, value_name = "DUR", default_value = "1m", value_parser = parse_duration)]
    pub bookmark_interval: Duration,
    /// Serve plain HTTP instead of HTTPS (the kubeconfig then carries the token in the URL)
    #[arg(long)]
    pub insecure_http: bool,
    /// Run minimal controllers: Deployment → ReplicaSet → Pods, rollouts, pods become Running
    #[arg(long)]
    pub controllers: bool,
}

/// `kinformer proxy`.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Address clients connect to (port 0 picks a free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Write the clients' kubeconfig to PATH (default: a temporary file, removed at exit)
    #[arg(long, value_name = "PATH")]
    pub kubeconfig_out: Option<PathBuf>,
    /// Bearer token clients must send (default: a random one)
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
    /// Record every client-side informer stream to FILE (zstd-compressed when it ends in .zst)
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportFile,
    /// Stop after this long (e.g. 30s, 5m)
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// The upstream's kubeconfig (default: $KUBECONFIG or ~/.kube/config)
    #[arg(long, value_name = "PATH", help_heading = "Upstream")]
    pub kubeconfig: Option<PathBuf>,
    /// The upstream's kubeconfig context
    #[arg(long, value_name = "NAME", help_heading = "Upstream")]
    pub context: Option<String>,
    /// Relay to an embedded API server (the builtin cluster) instead of a kubeconfig's
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"], help_heading = "Upstream")]
    pub embedded: bool,
    /// Pod writes per second on the --embedded server (0 = a static cluster)
    #[arg(
        long,
        value_name = "OPS_PER_S",
        default_value = "0",
        value_parser = parse_rate,
        requires = "embedded",
        help_heading = "Upstream"
    )]
    pub churn: f64,
    /// Output format
    #[arg(
        short = 'o',
        long,
        value_name = "FORMAT",
        default_value = "table",
        help_heading = "Output"
    )]
    pub output: OutputFormat,
    /// Don't print table headers
    #[arg(long, help_heading = "Output")]
    pub no_headers: bool,
    /// What to show, comma-separated: lifecycle (each informer's lists, watches, errors,
    /// relists, backoffs), reflector (lifecycle and every watch event and bookmark), requests
    /// (every other request, one line each), all
    #[arg(
        long,
        value_name = "WHAT",
        default_value = "reflector",
        value_parser = parse_proxy_show,
        help_heading = "Output"
    )]
    pub show: ShowSet,
}

/// Parses `proxy --show lifecycle,reflector,requests` (or `all`).
pub fn parse_proxy_show(text: &str) -> Result<ShowSet, String> {
    let mut stages = StageSet::minimal().with(Stage::Reflector);
    let mut events = false;
    for name in text.split(',').map(str::trim) {
        match name {
            "lifecycle" => {}
            "reflector" => events = true,
            "requests" => stages = stages.with(Stage::Client),
            "all" => {
                events = true;
                stages = stages.with(Stage::Client);
            }
            _ => {
                return Err(format!(
                    "unknown value {name:?} in --show: expected lifecycle, reflector, requests or all"
                ));
            }
        }
    }
    let hidden = Hidden {
        watch_events: !events,
        bookmarks: !events,
        notify: true,
        handled: true,
        only: None,
        kinds: None,
    };
    Ok(ShowSet { stages, hidden })
}

/// `kinformer completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `kinformer man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write kinformer.1 and one page per subcommand into DIR (default: print kinformer.1)
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// The flags of every informer-running subcommand (watch, dump, resync).
#[derive(Debug, Args)]
pub struct InformerArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// Where to connect and what to select.
#[derive(Debug, Args)]
#[command(next_help_heading = "Connection")]
pub struct ConnectionArgs {
    /// Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The name of the kubeconfig context to use
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// The namespace scope (default: the context's namespace)
    #[arg(short = 'n', long, value_name = "NS")]
    pub namespace: Option<String>,
    /// Watch across all namespaces (the namespace flag and context are then ignored)
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector, e.g. app=web,tier!=db or 'env in (prod,staging)'
    #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = parse_label_selector)]
    pub selector: Option<String>,
    /// Field selector (e.g. --field-selector spec.nodeName=node-a)
    #[arg(long, value_name = "SELECTOR", value_parser = parse_field_selector)]
    pub field_selector: Option<String>,
    /// Start an embedded API server (the builtin cluster, with --churn) and use it instead of a
    /// cluster
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    pub embedded: bool,
    /// Pod writes per second on the --embedded server (0 = a static cluster)
    #[arg(
        long,
        value_name = "OPS_PER_S",
        default_value = "5",
        value_parser = parse_rate,
        requires = "embedded"
    )]
    pub churn: f64,
    /// The address and port of the Kubernetes API server (replaces the kubeconfig cluster's;
    /// without a scheme, https://)
    #[arg(short = 's', long, value_name = "URL", conflicts_with = "embedded")]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (replaces the kubeconfig user's
    /// credentials)
    #[arg(long, value_name = "TOKEN", conflicts_with = "embedded")]
    pub token: Option<String>,
    /// Username to impersonate for the operation: a user or a service account
    /// (system:serviceaccount:NS:NAME)
    #[arg(long = "as", id = "as_user", value_name = "USER")]
    pub as_user: Option<String>,
    /// Group to impersonate for the operation (repeatable; needs --as)
    #[arg(long = "as-group", value_name = "GROUP", requires = "as_user")]
    pub as_groups: Vec<String>,
    /// How long to wait for a single server request before giving up (0: no limit), e.g. 1s,
    /// 2m; a watch quiet that long is reopened
    #[arg(long, value_name = "DUR", default_value = "0", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Do not verify the server's certificate (insecure: anyone on the way can read and change
    /// the traffic)
    #[arg(long, conflicts_with = "embedded")]
    pub insecure_skip_tls_verify: bool,
    /// When the first connection is refused or the host is unknown, retry with client-go's
    /// backoff for --retry-timeout instead of failing at once (as kubectl does)
    #[arg(long)]
    pub retry_connect: bool,
    /// How long to keep retrying an unreachable server (--retry-connect) or one answering
    /// 429/5xx (with backoff) before giving up (exit 5)
    #[arg(long, value_name = "DUR", default_value = "30s", value_parser = parse_duration)]
    pub retry_timeout: Duration,
    /// The wire format to ask the server for: json, or protobuf as client-go's typed clients
    /// (built-in kinds only; custom resources and servers that answer JSON are read as JSON)
    #[arg(long, value_name = "FORMAT", default_value = "json")]
    pub content_type: ContentTypeArg,
}

/// `--content-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContentTypeArg {
    /// application/json
    Json,
    /// application/vnd.kubernetes.protobuf, application/json
    Protobuf,
}

/// `--show`'s default: the story view (bursts of notifications fold into one table row).
pub const DEFAULT_SHOW: &str = "lifecycle,notifications,resync";

/// What to show and how.
#[derive(Debug, Args)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Output format; also kubectl's custom-columns=SPEC (the table with those columns, as
    /// --columns SPEC)
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "table")]
    pub output: OutputFormat,
    /// Don't print table headers
    #[arg(long)]
    pub no_headers: bool,
    /// What to show, comma-separated: reflector (every reflector event), lifecycle (its
    /// list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications,
    /// handled, handlers (notifications and handled), resync, all. Left at its default, a table
    /// folds a burst of notifications into one row (`demo -o jsonl` defaults to all)
    #[arg(
        long,
        value_name = "STAGES",
        default_value = DEFAULT_SHOW,
        value_parser = Offering::new(parse_show, show_names),
        hide_possible_values = true
    )]
    pub show: ShowSet,
    /// Show only these notifications (table and JSONL), comma-separated: add, update, delete,
    /// sync (an update with equal resourceVersions: a resync or a relist)
    #[arg(long, value_name = "KINDS", value_parser = NotifyKinds::parse)]
    pub kinds: Option<NotifyKinds>,
    /// Print field-level diffs of update notifications
    #[arg(long)]
    pub diff: bool,
    /// Show Secret data and stringData values (redacted by default)
    #[arg(long)]
    pub show_secret_data: bool,
    /// The object's fields on notification rows (tables), kubectl's custom-columns syntax:
    /// NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource's
    /// default columns
    #[arg(long, value_name = "SPEC", value_parser = ObjectColumns::parse)]
    pub columns: Option<ObjectColumns>,
}

impl OutputArgs {
    /// The events of the delivered stages left out: `--show`'s, and the notifications
    /// `--kinds` leaves out.
    pub fn hidden(&self) -> Hidden {
        Hidden {
            kinds: self.kinds,
            ..self.show.hidden()
        }
    }
}

/// How the informer is built.
#[derive(Debug, Args)]
#[command(next_help_heading = "Informer")]
pub struct PipelineArgs {
    /// Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default
    /// one `default`)
    #[arg(long = "handler", value_name = "SPEC", value_parser = parse_handler)]
    pub handlers: Vec<HandlerSpec>,
    /// The informer's default resync period (0 = never)
    #[arg(long, value_name = "DUR", default_value = "0", value_parser = parse_duration)]
    pub resync: Duration,
    /// Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the
    /// controller owner as namespace/Kind/name)
    #[arg(long = "index", value_name = "NAME=EXPR", value_parser = parse_index)]
    pub indexes: Vec<IndexDef>,
    /// The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy
    #[arg(
        long = "client-go",
        value_name = "VERSION",
        default_value = NEWEST,
        value_parser = Offering::new(parse_client_go, client_go_names)
    )]
    pub client_go: &'static Profile,
    /// The queue between reflector and indexer (default: the --client-go release's)
    #[arg(long, value_name = "KIND")]
    pub queue: Option<QueueArg>,
    /// LIST page size (limit) for every LIST, as client-go's WatchListPageSize. 0 sends no limit
    /// at all, a what-if: client-go's 0 means its pager's defaults, it has no unpaged setting.
    /// Default: client-go's pager (limit=500; none on a relist at a resourceVersion)
    #[arg(long, value_name = "N")]
    pub page_size: Option<u32>,
    /// Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST
    /// (default: the --client-go release's)
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub watch_list: Option<bool>,
    /// Watch only metadata (PartialObjectMetadata)
    #[arg(long)]
    pub metadata_only: bool,
    /// Cap on the reflector's retry backoff, jitter included (client-go: 800ms doubling to 30s)
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration)]
    pub max_backoff: Option<Duration>,
    /// What a panicking handler does: crash (client-go's default) or skip the notification
    #[arg(long, value_name = "POLICY", default_value = "crash")]
    pub on_panic: OnPanicArg,
    /// Transform objects before they are queued
    #[arg(long, value_name = "NAME")]
    pub transform: Option<TransformArg>,
    /// The informer's name, as client-go 1.36's informer identity (cache.NewInformerName,
    /// the factory's WithInformerName) names it: on the `informer started` line
    #[arg(long = "name", id = "informer_name", value_name = "NAME")]
    pub informer_name: Option<String>,
}

impl PipelineArgs {
    /// The handlers to register: the given ones, or one `default` handler.
    pub fn handler_specs(&self) -> Vec<HandlerSpec> {
        if self.handlers.is_empty() {
            vec![HandlerSpec::named("default")]
        } else {
            self.handlers.clone()
        }
    }

    /// The store's indexers: `namespace` plus every `--index`.
    pub fn indexers(&self) -> Result<Indexers, IndexError> {
        let mut indexers = Indexers::default();
        for def in &self.indexes {
            indexers.add(&def.name, def.func.clone())?;
        }
        Ok(indexers)
    }

    /// The `--index` definitions as (name, function) pairs, in the order given.
    pub fn index_functions(&self) -> Vec<(String, IndexFunc)> {
        self.indexes
            .iter()
            .map(|d| (d.name.clone(), d.func.clone()))
            .collect()
    }

    /// Cross-value checks: handler and index names are unique.
    fn validate(&self) -> Result<(), String> {
        let mut names: Vec<&str> = self.handlers.iter().map(|h| h.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("handler {:?} is given twice", w[0]));
        }
        self.indexers().map(|_| ()).map_err(|e| e.to_string())
    }
}

/// `--on-panic`: what a panicking handler does (Rule P8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnPanicArg {
    /// client-go's default (ReallyCrash): print the panic and the summary, exit 6
    Crash,
    /// Skip the notification and pause that handler 1s (client-go with crashing off)
    Skip,
}

impl From<OnPanicArg> for crate::informer::processor::PanicPolicy {
    fn from(arg: OnPanicArg) -> Self {
        match arg {
            OnPanicArg::Crash => Self::Crash,
            OnPanicArg::Skip => Self::Skip,
        }
    }
}

pub use crate::informer::processor::HandlerSpec;

/// `--index NAME=EXPR`, parsed.
#[derive(Debug, Clone)]
pub struct IndexDef {
    pub name: String,
    pub expr: String,
    pub func: IndexFunc,
}

/// `--queue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueueArg {
    /// client-go ≤ 1.32 DeltaFIFO (per-key delta lists)
    DeltaFifo,
    /// client-go ≥ 1.33 RealFIFO (one entry per event, in order)
    RealFifo,
}

impl From<QueueKind> for QueueArg {
    fn from(q: QueueKind) -> Self {
        match q {
            QueueKind::DeltaFifo => QueueArg::DeltaFifo,
            QueueKind::RealFifo => QueueArg::RealFifo,
        }
    }
}

impl From<QueueArg> for QueueKind {
    fn from(q: QueueArg) -> Self {
        match q {
            QueueArg::DeltaFifo => QueueKind::DeltaFifo,
            QueueArg::RealFifo => QueueKind::RealFifo,
        }
    }
}

/// `--transform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransformArg {
    /// Drop metadata.managedFields before caching
    StripManagedFields,
}

impl ValueEnum for OutputFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &OutputFormat::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

/// The `--show` selection: the stages the tracer must deliver, and which of their events are
/// left out of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShowSet {
    stages: StageSet,
    hidden: Hidden,
}

impl ShowSet {
    /// Whether this is `--show`'s default, the table's story view.
    pub fn is_default(self) -> bool {
        parse_show(DEFAULT_SHOW).is_ok_and(|default| default == self)
    }

    /// The stages whose events the informer delivers (hidden events included).
    pub fn stages(self) -> StageSet {
        self.stages
    }

    /// The events of those stages that are not printed.
    pub fn hidden(self) -> Hidden {
        self.hidden
    }
}

/// What a `--show` name selects.
#[derive(Clone, Copy)]
enum Shown {
    Stage(Stage),
    /// The reflector's list/watch lifecycle: everything but watch events and bookmarks.
    Lifecycle,
    Notifications,
    Handled,
}

/// `--show` names and what they select (`fifo`, `handler`/`handlers` accepted as aliases).
const SHOW_NAMES: [(&str, &[Shown]); 10] = [
    ("reflector", &[Shown::Stage(Stage::Reflector)]),
    ("lifecycle", &[Shown::Lifecycle]),
    ("deltas", &[Shown::Stage(Stage::Fifo)]),
    ("fifo", &[Shown::Stage(Stage::Fifo)]),
    ("indexer", &[Shown::Stage(Stage::Indexer)]),
    ("notifications", &[Shown::Notifications]),
    ("handled", &[Shown::Handled]),
    ("handlers", &[Shown::Notifications, Shown::Handled]),
    ("handler", &[Shown::Notifications, Shown::Handled]),
    ("resync", &[Shown::Stage(Stage::Resync)]),
];

/// A value parser that parses with a function and offers a list of values to shell completion
/// (a `--show` list or a `--client-go` release the function accepts, as clap's possible values).
#[derive(Clone)]
struct Offering<T> {
    parse: fn(&str) -> Result<T, String>,
    names: fn() -> Vec<&'static str>,
}

impl<T> Offering<T> {
    fn new(parse: fn(&str) -> Result<T, String>, names: fn() -> Vec<&'static str>) -> Self {
        Self { parse, names }
    }
}

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for Offering<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(PossibleValue::new)))
    }
}

/// The `--show` names completion offers.
fn show_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = SHOW_NAMES.iter().map(|(name, _)| *name).collect();
    names.push("all");
    names
}

/// The `--client-go` releases.
fn client_go_names() -> Vec<&'static str> {
    crate::informer::profile::PROFILES
        .iter()
        .map(|p| p.version)
        .collect()
}

/// Parses `--show lifecycle,notifications,…` (or `all`).
pub fn parse_show(text: &str) -> Result<ShowSet, String> {
    let mut stages = StageSet::minimal();
    let (mut reflector, mut lifecycle, mut notify, mut handled) = (false, false, false, false);
    for name in text.split(',').map(str::trim) {
        if name == "all" {
            stages = StageSet::ALL;
            (reflector, notify, handled) = (true, true, true);
            continue;
        }
        let selected = SHOW_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                format!(
                    "unknown stage {name:?} in --show: expected reflector, lifecycle, deltas, indexer, notifications, handled, handlers, resync or all"
                )
            })?;
        for shown in selected {
            match shown {
                Shown::Stage(Stage::Reflector) => reflector = true,
                Shown::Stage(stage) => stages = stages.with(*stage),
                Shown::Lifecycle => lifecycle = true,
                Shown::Notifications => notify = true,
                Shown::Handled => handled = true,
            }
        }
    }
    if reflector || lifecycle {
        stages = stages.with(Stage::Reflector);
    }
    if notify || handled {
        stages = stages.with(Stage::Handler);
    }
    let hidden = Hidden {
        watch_events: !reflector,
        bookmarks: !reflector,
        notify: !notify,
        handled: !handled,
        only: None,
        kinds: None,
    };
    Ok(ShowSet { stages, hidden })
}

/// Parses `NAME[:resync=DUR][:delay=DUR]`.
pub fn parse_handler(text: &str) -> Result<HandlerSpec, String> {
    let bad = |why: String| {
        format!(
            "invalid handler {text:?}: {why} (expected NAME[:resync=DUR][:delay=DUR][:panic-every=N])"
        )
    };
    let mut parts = text.split(':');
    let name = parts.next().unwrap_or_default();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(bad(
            "the name must be letters, digits, '-', '_' or '.'".into()
        ));
    }
    let mut spec = HandlerSpec {
        name: name.to_owned(),
        resync: None,
        delay: Duration::ZERO,
        panic_every: None,
    };
    for part in parts {
        match part.split_once('=') {
            Some(("resync", v)) => spec.resync = Some(parse_duration(v).map_err(bad)?),
            Some(("delay", v)) => spec.delay = parse_duration(v).map_err(bad)?,
            Some(("panic-every", v)) => {
                let n = v.parse::<u64>().ok().filter(|n| *n > 0);
                let n =
                    n.ok_or_else(|| bad(format!("panic-every {v:?} is not a count above 0")))?;
                spec.panic_every = Some(n);
            }
            _ => return Err(bad(format!("unknown option {part:?}"))),
        }
    }
    Ok(spec)
}

/// `--client-go VERSION`: one of the modelled releases.
pub fn parse_client_go(text: &str) -> Result<&'static Profile, String> {
    Profile::of(text).map_err(|e| e.to_string())
}

/// A duration above zero (`--max-backoff 0` would retry in a hot loop).
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        d if d.is_zero() => Err(format!("invalid duration {text:?}: must be above 0")),
        d => Ok(d),
    }
}

/// Parses `--index NAME=EXPR` with the indexer's own parser.
pub fn parse_index(text: &str) -> Result<IndexDef, String> {
    Indexers::default()
        .add_definition(text)
        .map_err(|e| e.to_string())?;
    let (name, expr) = text.split_once('=').unwrap_or((text, ""));
    let func = IndexFunc::parse(expr).map_err(|e| e.to_string())?;
    Ok(IndexDef {
        name: name.to_owned(),
        expr: expr.to_owned(),
        func,
    })
}

/// A RESOURCE argument: `plural`, `kind`, `short`, `plural.group` or `plural.version.group`.
pub fn parse_resource(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !text.starts_with('.')
        && !text.ends_with('.');
    if ok {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "invalid resource {text:?}: expected a name like pods, deploy or deployments.apps"
        ))
    }
}

/// A RESOURCE argument of a single-resource command (`resync`): as [`parse_resource`], with a
/// clear word for kubectl's comma list.
pub fn parse_one_resource(text: &str) -> Result<String, String> {
    if text.contains(',') {
        return Err(format!(
            "resync takes one resource only, not the list {text:?}: run one resync per resource"
        ));
    }
    parse_resource(text)
}

/// The NAME argument: an object's name. kubectl's `namespace/name` is no such thing here: its
/// namespace goes in `-n`.
pub fn parse_object_name(text: &str) -> Result<String, String> {
    match text.split_once('/') {
        Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => Err(
            format!("NAME is an object name, not namespace/name: use -n {ns} {name}"),
        ),
        Some(_) => Err(format!("invalid name {text:?}: a name has no '/'")),
        None => Ok(text.to_owned()),
    }
}

/// Resource names as given in one word: `pods` or kubectl's `pods,deploy,rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceList(pub Vec<String>);

/// Every name of `lists`, in order (duplicates are dropped once resolved: `po,pods` is one).
pub fn resource_names(lists: &[ResourceList]) -> Vec<String> {
    lists.iter().flat_map(|l| l.0.iter().cloned()).collect()
}

/// Parses `pods` or `pods,deploy,rs`: each name as [`parse_resource`]; no empty name.
pub fn parse_resource_list(text: &str) -> Result<ResourceList, String> {
    text.split(',')
        .map(parse_resource)
        .collect::<Result<_, _>>()
        .map(ResourceList)
}

/// Parses `--seed builtin|FILE.yaml`.
pub fn parse_seed(text: &str) -> Result<Seed, String> {
    match text {
        "" => Err("invalid seed \"\": expected builtin or a YAML file".to_owned()),
        "builtin" => Ok(Seed::Builtin),
        path => Ok(Seed::File(PathBuf::from(path))),
    }
}

/// Parses a non-negative, finite rate.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(format!(
            "invalid rate {text:?}: expected a number of operations per second ≥ 0"
        )),
    }
}

/// Validates a label selector (`a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`,
/// `a notin (x)`, `a>1`, `a<1`, comma-separated) and returns it unchanged.
pub fn parse_label_selector(text: &str) -> Result<String, String> {
    selector::validate_label_selector(text)
        .map(|()| text.to_owned())
        .map_err(|why| format!("invalid label selector {text:?}: {why}"))
}

/// Validates a field selector (`a.b=v`, `a.b==v`, `a.b!=v`, comma-separated).
pub fn parse_field_selector(text: &str) -> Result<String, String> {
    selector::validate_field_selector(text)
        .map(|()| text.to_owned())
        .map_err(|why| format!("invalid field selector {text:?}: {why}"))
}

impl Cli {
    /// The clap command, named for how the binary was invoked (see [`command_name`]).
    pub fn command_for(argv0: &str) -> clap::Command {
        let name = command_name(argv0);
        Cli::command().name(name).bin_name(name)
    }

    /// kubectl's readings of empty values: `-n ''` is the context's namespace, and a timeout
    /// of 0 is no timeout.
    fn normalize(&mut self) {
        if let Some(timeout) = self.timeout_mut() {
            *timeout = timeout.filter(|t| !t.is_zero());
        }
        let connection = match &mut self.command {
            Command::Watch(a) => &mut a.informer.connection,
            Command::Dump(a) => &mut a.informer.connection,
            Command::Resync(a) => &mut a.informer.connection,
            Command::Record(a) => &mut a.connection,
            Command::Top(a) => &mut a.connection,
            _ => return,
        };
        connection.namespace = connection.namespace.take().filter(|ns| !ns.is_empty());
    }

    /// The subcommand's `--timeout` (alias `--duration`), if it has one.
    fn timeout_mut(&mut self) -> Option<&mut Option<Duration>> {
        match &mut self.command {
            Command::Watch(a) => Some(&mut a.timeout),
            Command::Resync(a) => Some(&mut a.timeout),
            Command::Demo(a) => Some(&mut a.timeout),
            Command::Record(a) => Some(&mut a.timeout),
            Command::Replay(a) => Some(&mut a.timeout),
            _ => None,
        }
    }

    /// Checks that span several values; `Err` is a one-line usage message.
    pub fn validate(&self) -> Result<(), String> {
        match &self.command {
            Command::Watch(a) => a.informer.pipeline.validate(),
            Command::Dump(a) => a.informer.pipeline.validate().and_then(|()| {
                match a
                    .informer
                    .pipeline
                    .handlers
                    .iter()
                    .find(|h| !h.delay.is_zero())
                {
                    Some(h) => Err(format!(
                        "--handler {}:delay has no effect on dump: it prints the cache once synced",
                        h.name
                    )),
                    None => Ok(()),
                }
            }),
            Command::Resync(a) => a.informer.pipeline.validate(),
            Command::Top(a) => a.pipeline.validate(),
            Command::Demo(a) => a.pipeline.validate(),
            Command::Record(a) => a.pipeline.validate(),
            Command::Replay(a) => a.pipeline.validate(),
            _ => Ok(()),
        }
    }
}

/// Parses the command line (argv[0] first). Errors are clap errors: print them with
/// `err.print()` and exit with `err.exit_code()` (2 for usage errors, 0 for --help/--version).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = negative_values_joined(custom_columns_output(
        args.into_iter().map(Into::into).collect(),
    ));
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut command = Cli::command_for(&argv0);
    let matches = command.try_get_matches_from_mut(args)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))?;
    cli.normalize();
    record_given(&mut cli, &matches);
    cli.validate()
        .and_then(|()| reject_ignored_flags(&matches))
        .map_err(|msg| {
            // The subcommand's usage, not the top level's, follows the message.
            let sub = matches.subcommand_name();
            let target = match sub.and_then(|name| command.find_subcommand_mut(name)) {
                Some(sub) => sub,
                None => &mut command,
            };
            target.error(clap::error::ErrorKind::ValueValidation, msg)
        })?;
    Ok(cli)
}

/// `--FLAG -1s` as `--FLAG=-1s`: clap takes a word starting with `-` for a flag, so a negative
/// value after a space would be "unexpected argument '-1'"; joined, the flag's own parser says
/// what is wrong with it (a duration must not be negative).
fn negative_values_joined(args: Vec<OsString>) -> Vec<OsString> {
    let negative = |a: &OsString| {
        let text = a.to_string_lossy();
        text.len() > 1 && text.starts_with('-') && text.as_bytes()[1].is_ascii_digit()
    };
    let mut out: Vec<OsString> = Vec::with_capacity(args.len());
    for arg in args {
        let long_flag = out.last().is_some_and(|flag| {
            let text = flag.to_string_lossy();
            text.starts_with("--") && text.len() > 2 && !text.contains('=')
        });
        match out.last_mut() {
            Some(flag) if long_flag && negative(&arg) => {
                flag.push("=");
                flag.push(&arg);
            }
            _ => out.push(arg),
        }
    }
    out
}

/// kubectl's `-o custom-columns=SPEC` (any spelling of `-o`/`--output`) as `-o table
/// --columns SPEC`: the table with those object columns.
fn custom_columns_output(args: Vec<OsString>) -> Vec<OsString> {
    const FORM: &str = "custom-columns=";
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let inline = ["-o=", "-o", "--output="]
            .iter()
            .find_map(|flag| text.strip_prefix(flag))
            .and_then(|value| value.strip_prefix(FORM));
        let spec = match inline {
            Some(spec) => Some(spec.to_owned()),
            None if text == "-o" || text == "--output" => args
                .next_if(|next| next.to_string_lossy().starts_with(FORM))
                .map(|next| next.to_string_lossy()[FORM.len()..].to_owned()),
            None => None,
        };
        match spec {
            Some(spec) => out.extend(
                ["-o", "table", "--columns"]
                    .map(OsString::from)
                    .into_iter()
                    .chain([OsString::from(spec)]),
            ),
            None => out.push(arg),
        }
    }
    out
}

/// Tells `demo` which of its flags came from the command line rather than its defaults.
fn record_given(cli: &mut Cli, matches: &clap::ArgMatches) {
    let (Command::Demo(demo), Some(("demo", sub))) = (&mut cli.command, matches.subcommand())
    else {
        return;
    };
    demo.given = sub
        .ids()
        .filter(|id| sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine))
        .map(|id| id.as_str().to_owned())
        .collect();
}

/// Flags a subcommand accepts through a shared flag group but has no use for: given on the
/// command line they are an error, not silently ignored.
const IGNORED_FLAGS: &[(&str, &str, &str)] = &[
    (
        "dump",
        "show",
        "--show has no effect on dump: it prints the cache, not the event stream",
    ),
    (
        "dump",
        "diff",
        "--diff has no effect on dump: it prints the cache, not update notifications",
    ),
    (
        "dump",
        "kinds",
        "--kinds has no effect on dump: it prints the cache, not notifications (--by-index NAME=VALUE selects objects)",
    ),
];

fn reject_ignored_flags(matches: &clap::ArgMatches) -> Result<(), String> {
    let Some((name, sub)) = matches.subcommand() else {
        return Ok(());
    };
    let given = |id: &str| sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    match IGNORED_FLAGS
        .iter()
        .find(|(command, id, _)| *command == name && given(id))
    {
        Some((_, _, why)) => Err((*why).to_owned()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        parse_from(std::iter::once("kinformer").chain(args.iter().copied()))
    }

    fn watch(args: &[&str]) -> WatchArgs {
        let mut all = vec!["watch"];
        all.extend_from_slice(args);
        match parse(&all).unwrap().command {
            Command::Watch(w) => w,
            other => panic!("not watch: {other:?}"),
        }
    }

    #[test]
    fn kubectls_custom_columns_output_is_a_table_with_those_columns() {
        for form in [
            &["-o", "custom-columns=NAME:.metadata.name"][..],
            &["-ocustom-columns=NAME:.metadata.name"],
            &["--output=custom-columns=NAME:.metadata.name"],
            &["--output", "custom-columns=NAME:.metadata.name"],
        ] {
            let mut args = vec!["pods"];
            args.extend_from_slice(form);
            let w = watch(&args);
            assert_eq!(w.informer.output.output, OutputFormat::Table, "{form:?}");
            let columns = w.informer.output.columns.expect("columns");
            assert_eq!(columns.spec(), "NAME:.metadata.name", "{form:?}");
        }
        assert_eq!(
            watch(&["pods", "-o", "wide"]).informer.output.output,
            OutputFormat::Wide
        );
    }

    #[test]
    fn a_negative_duration_after_a_space_is_the_durations_error() {
        let e = parse(&["watch", "pods", "--resync", "-1s"]).expect_err("negative");
        let text = e.to_string();
        assert!(text.contains("must not be negative"), "{text}");
    }

    #[test]
    fn every_command_help_has_examples_and_output_lists_custom_columns() {
        let mut cli = Cli::command();
        for sub in cli.get_subcommands_mut() {
            let name = sub.get_name().to_owned();
            let help = sub.render_long_help().to_string();
            assert!(help.contains("Examples:\n  kinformer "), "{name}: {help}");
            for example in help.lines().filter_map(|l| l.strip_prefix("  kinformer ")) {
                let command = example.split(['#', '|', '>']).next().unwrap_or_default();
                let words: Vec<&str> = command.split_whitespace().collect();
                if let Err(e) = parse(&words) {
                    assert!(
                        matches!(e.kind(), clap::error::ErrorKind::DisplayHelp),
                        "{name}: `kinformer {example}`: {e}"
                    );
                }
            }
            if sub.get_arguments().any(|a| a.get_id() == "columns") {
                assert!(
                    help.contains("custom-columns="),
                    "{name}: -o custom-columns=SPEC"
                );
            }
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn several_resources_comma_separated_or_as_words() {
        assert_eq!(
            watch(&["pods,deploy,rs"]).resources.0,
            ["pods", "deploy", "rs"]
        );
        assert_eq!(watch(&["pods,deploy", "web"]).name.as_deref(), Some("web"));
        let cli = parse_from(["kinformer", "dump", "pods", "deploy,rs"]).unwrap();
        let Command::Dump(d) = cli.command else {
            panic!("not dump")
        };
        assert_eq!(resource_names(&d.resources), ["pods", "deploy", "rs"]);
        for bad in ["pods,", ",pods", "pods,,rs", "pods,de ploy"] {
            assert!(parse_from(["kinformer", "watch", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn watch_defaults() {
        let w = watch(&["pods"]);
        assert_eq!(w.resources.0, ["pods"]);
        let p = &w.informer.pipeline;
        assert_eq!(p.handler_specs(), vec![HandlerSpec::named("default")]);
        assert_eq!((p.page_size, p.resync), (None, Duration::ZERO));
        assert_eq!(p.queue, None);
        assert_eq!(p.client_go.version, NEWEST);
        let o = &w.informer.output;
        assert_eq!(o.output, OutputFormat::Table);
        let shown = o.show.stages();
        assert!(shown.contains(Stage::Reflector) && shown.contains(Stage::Handler));
        assert!(shown.contains(Stage::Resync) && !shown.contains(Stage::Fifo));
    }

    #[test]
    fn watch_with_every_flag() {
        let w = watch(&[
            "deploy",
            "web",
            "--count",
            "3",
            "--timeout",
            "1m30s",
            "--until-synced",
            "-n",
            "prod",
            "-l",
            "app=web,tier in (a,b)",
            "--field-selector",
            "spec.nodeName=n1",
            "-o",
            "jsonl",
            "--no-headers",
            "--show",
            "deltas,indexer",
            "--handler",
            "slow:resync=10s:delay=250ms",
            "--handler",
            "fast",
            "--resync",
            "30s",
            "--index",
            "by-node=field:spec.nodeName",
            "--queue",
            "real-fifo",
            "--page-size",
            "50",
            "--watch-list",
            "--metadata-only",
            "--transform",
            "strip-managed-fields",
            "--diff",
            "--show-secret-data",
            "-v",
            "4",
        ]);
        assert_eq!(w.name.as_deref(), Some("web"));
        assert_eq!(w.timeout, Some(Duration::from_secs(90)));
        let p = &w.informer.pipeline;
        assert_eq!(
            p.handlers[0],
            HandlerSpec {
                name: "slow".into(),
                resync: Some(Duration::from_secs(10)),
                delay: Duration::from_millis(250),
                panic_every: None,
            }
        );
        assert_eq!(p.indexes[0].name, "by-node");
        assert_eq!(p.queue.map(QueueKind::from), Some(QueueKind::RealFifo));
        assert_eq!(p.transform, Some(TransformArg::StripManagedFields));
        assert!(w.informer.output.show.stages().contains(Stage::Fifo));
        assert!(!w.informer.output.show.stages().contains(Stage::Reflector));
        let default = parse_show("lifecycle,notifications,resync").unwrap();
        assert!(
            default.stages().contains(Stage::Reflector)
                && default.stages().contains(Stage::Handler)
        );
        let hidden = default.hidden();
        assert!(hidden.watch_events && hidden.bookmarks && hidden.handled && !hidden.notify);
        assert_eq!(parse_show("all").unwrap().hidden(), Hidden::default());
        let handled = parse_show("handled").unwrap().hidden();
        assert!(handled.notify && !handled.handled);
        assert!(p.indexers().unwrap().position("by-node").is_some());
        assert_eq!(p.index_functions()[0].0, "by-node");
    }

    #[test]
    fn bad_values_fail_at_parse_time_with_usage_errors() {
        let bad: &[&[&str]] = &[
            &["watch", "pods", "--timeout", "5x"],
            &["watch", "pods", "--handler", "a:resync=-1s"],
            &["watch", "pods", "--handler", "a:speed=3"],
            &["watch", "pods", "--handler", ""],
            &["watch", "pods", "--index", "bad"],
            &["watch", "pods", "--index", "x=label:"],
            &["watch", "pods", "-o", "xml"],
            &["watch", "pods", "--show", "reflector,bogus"],
            &["watch", "pods", "-l", "app=web=1"],
            &["watch", "pods", "-l", "a in (b"],
            &["watch", "pods", "--field-selector", "nodeName"],
            &["watch", "pods", "--handler", "a", "--handler", "a"],
            &["watch", "pods", "--index", "i=owner", "--index", "i=owner"],
            &["watch", "po/ds"],
            &["resync", "pods", "--duration", ""],
            &["serve", "--token", "t", "--no-auth"],
            &["serve", "--churn", "-1"],
            &["completions", "tcsh"],
        ];
        for args in bad {
            let err = parse(args).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        }
    }

    #[test]
    fn other_subcommands() {
        let cli = parse(&["resync", "pods", "--duration", "2m"]).unwrap();
        assert!(
            matches!(cli.command, Command::Resync(ref r) if r.timeout == Some(Duration::from_secs(120)))
        );
        let cli = parse(&["demo", "--churn", "10", "-o", "jsonl"]).unwrap();
        assert!(
            matches!(cli.command, Command::Demo(ref d) if d.churn == 10 && d.timeout.is_none())
        );
        let cli = parse(&[
            "serve",
            "--seed",
            "builtin",
            "--seed",
            "x.yaml",
            "--history",
            "100",
        ])
        .unwrap();
        let Command::Serve(s) = cli.command else {
            panic!("serve")
        };
        assert_eq!(s.seed, vec![Seed::Builtin, Seed::File("x.yaml".into())]);
        assert_eq!(s.listen.to_string(), "127.0.0.1:0");
        let cli = parse(&["completions", "zsh"]).unwrap();
        assert!(matches!(cli.command, Command::Completions(_)));
        let cli = parse(&["man", "--out-dir", "/tmp/x"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Man(ManArgs { out_dir: Some(_) })
        ));
    }

    #[test]
    fn timeout_is_the_name_duration_its_alias_and_0_no_limit() {
        let timeout = |args: &[&str]| {
            let mut cli = parse(args).unwrap();
            cli.timeout_mut().and_then(|t| *t)
        };
        let five = Some(Duration::from_secs(5));
        for command in [
            &["watch", "pods"][..],
            &["resync", "pods"],
            &["demo"],
            &["record", "pods", "-o", "f"],
            &["replay", "f"],
        ] {
            for flag in ["--timeout", "--duration"] {
                let mut args = command.to_vec();
                args.extend([flag, "5s"]);
                assert_eq!(timeout(&args), five, "{args:?}");
                args.pop();
                args.push("0");
                assert_eq!(timeout(&args), None, "{args:?}: 0 is no limit");
            }
        }
        assert_eq!(timeout(&["resync", "pods"]), Some(Duration::from_secs(30)));
    }

    #[test]
    fn kubectl_forms_that_do_not_apply_say_so() {
        let err = parse(&["resync", "pods,deploy"]).unwrap_err().to_string();
        assert!(err.contains("resync takes one resource only"), "{err}");
        let err = parse(&["watch", "pods", "default/web-1"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("use -n default web-1"), "{err}");
        assert_eq!(watch(&["pods", "web-1"]).name.as_deref(), Some("web-1"));
    }

    #[test]
    fn a_usage_error_shows_the_subcommands_usage() {
        let err = parse(&["watch", "pods", "--handler", "a", "--handler", "a"]).unwrap_err();
        let text = err.render().to_string();
        assert!(text.contains("Usage: kinformer watch"), "{text}");
        let err = parse(&["dump", "pods", "--show", "all"]).unwrap_err();
        assert!(err.render().to_string().contains("Usage: kinformer dump"));
    }

    #[test]
    fn bash_completion_offers_client_go_show_and_output_values() {
        let script = String::from_utf8(crate::cli::docs::completion_script(
            clap_complete::Shell::Bash,
        ))
        .unwrap();
        let offered = |flag: &str| {
            let case = format!("                {flag})\n");
            let at = script
                .find(&case)
                .unwrap_or_else(|| panic!("no {flag} case"));
            script[at..].lines().nth(1).unwrap_or_default().to_owned()
        };
        assert!(offered("--client-go").contains("1.32 1.33 1.34 1.35 1.36"));
        assert!(offered("--show").contains("lifecycle") && offered("--show").contains("all"));
        assert!(offered("-o").contains("table wide jsonl json yaml"));
    }

    #[test]
    fn handler_help_names_every_option_the_parser_takes() {
        for command in ["watch", "demo"] {
            let help = parse(&[command, "--help"])
                .unwrap_err()
                .render()
                .to_string();
            assert!(
                help.contains("NAME[:resync=DUR][:delay=DUR][:panic-every=N]"),
                "{command}: {help}"
            );
        }
    }

    #[test]
    fn plugin_name_from_argv0() {
        assert_eq!(
            command_name("/usr/local/bin/kubectl-informer"),
            "kubectl informer"
        );
        assert_eq!(command_name("kubectl-informer.exe"), "kubectl informer");
        assert_eq!(
            command_name("C:\\bin\\kubectl-informer.exe"),
            "kubectl informer"
        );
        assert_eq!(command_name("./target/debug/kinformer"), "kinformer");
        assert_eq!(command_name(""), "kinformer");
        let err = parse_from(["/x/kubectl-informer", "nope"]).unwrap_err();
        assert!(err.to_string().contains("kubectl informer"), "{err}");
    }

    #[test]
    fn help_and_version_exit_zero() {
        assert_eq!(parse(&["--help"]).unwrap_err().exit_code(), 0);
        assert_eq!(parse(&["--version"]).unwrap_err().exit_code(), 0);
    }
}
