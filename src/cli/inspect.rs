//! What `watch`, `dump`, `resync` and `demo` share: connect, resolve each RESOURCE like
//! kubectl (`po,pods` is one resource), pick the namespace, and turn the flags into a session
//! plan (one informer per resource) and render options.

use std::io::IsTerminal;
use std::sync::Arc;

use crate::informer::ingest::strip_managed_fields;
use crate::informer::reflector::{Backoff, BackoffConfig};
use crate::informer::shared_informer::InformerConfig;
use crate::informer::source::{KubeSource, KubeTarget, error_chain, protobuf};
use crate::informer::trace::{Stage, StageSet};
use crate::output::RenderOptions;
use crate::output::object_columns::{ColumnsByResource, ObjectColumns};
use crate::output::progress::ListProgress;
use crate::output::table::color_enabled;
use crate::redact::{LAST_APPLIED, SECRET_FIELDS};

use super::args::{
    ConnectionArgs, ContentTypeArg, InformerArgs, OutputArgs, PipelineArgs, TransformArg,
};
use super::client::{DialError, TlsVerifyError};
use super::connect::{ClusterChoice, Connection};
use super::exit::CliError;
use super::index_schema::check_index_paths;
use super::resolve::{ResolveError, ResolvedResource, resolve};
use super::session::{ResourcePlan, SessionPlan};

/// Which objects to inform on.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// As given (`pods`, `deploy`, `rs`); resolved and deduplicated in order.
    pub resources: Vec<String>,
    /// One object by name (a `metadata.name` field selector).
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// `--content-type protobuf`: ask protobuf for built-in kinds.
    pub protobuf: bool,
}

impl Selection {
    /// From the shared connection flags.
    pub fn from_args(resources: &[String], name: Option<&str>, conn: &ConnectionArgs) -> Self {
        Self {
            resources: resources.to_vec(),
            name: name.map(str::to_owned),
            namespace: conn.namespace.clone(),
            all_namespaces: conn.all_namespaces,
            label_selector: conn.selector.clone(),
            field_selector: conn.field_selector.clone(),
            protobuf: conn.content_type == ContentTypeArg::Protobuf,
        }
    }

    /// kubectl's namespace rules: cluster-scoped → none; `-A` → all; else `-n` or the
    /// context's namespace.
    fn namespace(&self, resource: &ResolvedResource, default: &str) -> Option<String> {
        if !resource.namespaced || self.all_namespaces {
            return None;
        }
        Some(self.namespace.clone().unwrap_or_else(|| default.to_owned()))
    }

    /// What the informer of `resource` lists and watches.
    fn target(
        &self,
        resource: &ResolvedResource,
        pipeline: &PipelineArgs,
        default_namespace: &str,
    ) -> KubeTarget {
        let api_resource = resource.api_resource();
        let protobuf = self.protobuf
            && !pipeline.metadata_only
            && protobuf::knows_kind(&api_resource.api_version, &api_resource.kind);
        KubeTarget {
            resource: api_resource,
            namespace: self.namespace(resource, default_namespace),
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector(),
            metadata_only: pipeline.metadata_only,
            protobuf,
        }
    }

    fn field_selector(&self) -> Option<String> {
        let by_name = self.name.as_ref().map(|n| format!("metadata.name={n}"));
        match (by_name, &self.field_selector) {
            (Some(a), Some(b)) => Some(format!("{a},{b}")),
            (a, b) => a.or_else(|| b.clone()),
        }
    }
}

/// Everything a subcommand needs to start its session.
pub struct Inspection {
    pub connection: Connection,
    /// Each resource once, in the order given.
    pub resources: Vec<ResolvedResource>,
    pub plan: SessionPlan,
    pub render: RenderOptions,
}

impl Inspection {
    /// [`Inspection::prepare`] from the flags `watch`, `dump` and `resync` share.
    pub async fn for_command(
        args: &InformerArgs,
        resources: &[String],
        name: Option<&str>,
        shown: StageSet,
    ) -> Result<Self, CliError> {
        let cluster = ClusterChoice::from_args(&args.connection);
        let selection = Selection::from_args(resources, name, &args.connection);
        Self::prepare(
            &cluster,
            &selection,
            Some(&args.output),
            &args.pipeline,
            shown,
        )
        .await
    }

    /// Connects, resolves and plans; every failure is a one-line [`CliError`]. Without
    /// `output` (nothing is rendered) the render options are the defaults.
    pub async fn prepare(
        cluster: &ClusterChoice,
        selection: &Selection,
        output: Option<&OutputArgs>,
        pipeline: &PipelineArgs,
        shown: StageSet,
    ) -> Result<Self, CliError> {
        let connection = cluster.connect().await?;
        let mut resources: Vec<ResolvedResource> = Vec::new();
        for name in &selection.resources {
            let resource = resolve_with_retry(&connection.client, name, cluster).await?;
            if !resources.contains(&resource) {
                resources.push(resource);
            }
        }
        check_index_paths(&connection.client, &resources, &pipeline.indexes).await?;
        let plans = resources
            .iter()
            .map(|resource| ResourcePlan {
                resource: resource.label(),
                source: Arc::new(KubeSource::new(
                    connection.client.clone(),
                    selection.target(resource, pipeline, &connection.default_namespace),
                )),
                starts_at: None,
                informer: None,
            })
            .collect();
        let plan = SessionPlan {
            resources: plans,
            informer: informer_config(pipeline),
            indexers: pipeline.index_functions(),
            handlers: pipeline.handler_specs(),
            shown,
            clock: None,
        };
        let labels: Vec<String> = resources.iter().map(ResolvedResource::label).collect();
        let render = output.map_or_else(RenderOptions::default, |o| {
            render_options(o, &labels, pipeline)
        });
        Ok(Self {
            connection,
            resources,
            plan,
            render,
        })
    }

    /// The resources' trace labels, in order.
    pub fn labels(&self) -> Vec<String> {
        self.resources.iter().map(ResolvedResource::label).collect()
    }
}

/// Resolves RESOURCE; while the server answers 429/5xx (or, with `--retry-connect`, refuses
/// the connection), retries with client-go's backoff (one stderr line per attempt: `retrying
/// in 1.6s: connection refused`) until `--retry-timeout`. A refused connection or an unknown
/// host fails at once without `--retry-connect`, as kubectl does.
async fn resolve_with_retry(
    client: &kube::Client,
    resource: &str,
    cluster: &ClusterChoice,
) -> Result<ResolvedResource, CliError> {
    let give_up_after = cluster.retry_timeout;
    let deadline = tokio::time::Instant::now() + give_up_after;
    let mut backoff = Backoff::new(BackoffConfig::default(), tokio::time::Instant::now());
    loop {
        let (error, reason) = match resolve(client, resource).await {
            Err(ResolveError::Discovery(e)) if !cluster.retry_connect && is_dial_failure(&e) => {
                return Err(CliError::Unreachable(format!(
                    "{} (--retry-connect retries it)",
                    root_cause(&e)
                )));
            }
            Err(ResolveError::Discovery(e)) if is_retriable(&e) => {
                (CliError::from_kube(&e, "list", "discovery"), root_cause(&e))
            }
            Err(ResolveError::Discovery(kube::Error::Api(status))) if status.code == 401 => {
                let what = format!("get API discovery for {resource}: {}", status.message);
                return Err(CliError::Unauthorized(what));
            }
            other => return other.map_err(CliError::from),
        };
        let now = tokio::time::Instant::now();
        let (delay, _) = backoff.step(now);
        let delay = delay.min(deadline.saturating_duration_since(now));
        if delay.is_zero() {
            return Err(match error {
                CliError::Unreachable(_) => CliError::Unreachable(format!(
                    "{reason} (gave up after {}s)",
                    give_up_after.as_secs_f64()
                )),
                other => CliError::GaveUp {
                    last: Box::new(other),
                    after: give_up_after,
                },
            });
        }
        eprintln!("retrying in {:.1}s: {reason}", delay.as_secs_f64());
        tokio::time::sleep(delay).await;
    }
}

/// Errors worth retrying the first contact for: no connection, throttling, server errors —
/// not a server certificate that failed verification (kubectl fails at once on it too).
fn is_retriable(error: &kube::Error) -> bool {
    if chain_has::<TlsVerifyError>(error) {
        return false;
    }
    match error {
        kube::Error::Api(status) => matches!(status.code, 429 | 500..=599),
        other => matches!(
            CliError::from_kube(other, "list", "discovery"),
            CliError::Unreachable(_)
        ),
    }
}

/// A request that never reached the server: refused, unknown host, no route.
fn is_dial_failure(error: &kube::Error) -> bool {
    chain_has::<DialError>(error)
}

/// Whether `E` is anywhere in `error`'s chain.
fn chain_has<E: std::error::Error + 'static>(error: &(dyn std::error::Error + 'static)) -> bool {
    error_chain(error).iter().any(|e| e.is::<E>())
}

/// The innermost cause of an error (`Connection refused (os error 111)`), or the request log's
/// kubectl-worded dial error when there is one (its io error source says less).
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let chain = error_chain(error);
    let worded = chain
        .iter()
        .find(|e| e.is::<DialError>() || e.is::<TlsVerifyError>());
    worded
        .or(chain.last())
        .map_or_else(|| error.to_string(), ToString::to_string)
}

/// The informer's configuration: the `--client-go` release's settings, then `--queue`,
/// `--watch-list` and `--page-size` where given (each named as an override in the trace),
/// `--resync`, `--max-backoff`, `--transform`, `--on-panic`.
pub fn informer_config(pipeline: &PipelineArgs) -> InformerConfig {
    let mut config = InformerConfig::for_profile(pipeline.client_go);
    if let Some(queue) = pipeline.queue {
        config.queue = queue.into();
        config.overrides.push("queue");
    }
    if let Some(watch_list) = pipeline.watch_list {
        config.reflector.watch_list = watch_list;
        config.overrides.push("watch-list");
    }
    if pipeline.page_size.is_some() {
        config.reflector.page_size = pipeline.page_size;
        config.overrides.push("page-size");
    }
    config.resync = pipeline.resync;
    config.reflector.backoff = backoff(config.reflector.backoff, pipeline.max_backoff);
    config.transform = pipeline.transform.map(|t| match t {
        TransformArg::StripManagedFields => strip_managed_fields(),
    });
    config.on_panic = pipeline.on_panic.into();
    config.name = pipeline.informer_name.clone();
    if let Some(what_if) = config.what_if() {
        eprintln!("warning: {what_if}");
    }
    config
}

/// The release's reflector backoff; `--max-backoff` (a duration above 0, checked when the
/// flags are parsed) caps the doubling and every delay, jitter included.
fn backoff(defaults: BackoffConfig, max: Option<std::time::Duration>) -> BackoffConfig {
    match max {
        Some(max) => BackoffConfig {
            max: defaults.max.min(max),
            ceiling: Some(max),
            ..defaults
        },
        None => defaults,
    }
}

/// Render options from the output flags for `resources` (trace labels); colour only on a TTY
/// without NO_COLOR. Secret data is redacted in the events of core/v1 secrets (label
/// `secrets`); several resources get a RESOURCE column.
pub fn render_options(
    output: &OutputArgs,
    resources: &[String],
    pipeline: &PipelineArgs,
) -> RenderOptions {
    let secrets = resources
        .iter()
        .find(|r| *r == crate::redact::SECRETS_RESOURCE);
    let tty = std::io::stdout().is_terminal();
    let no_color = std::env::var("NO_COLOR").ok();
    RenderOptions {
        format: output.output,
        no_headers: output.no_headers,
        color: color_enabled(tty, no_color.as_deref()),
        width: tty.then(terminal_width).flatten(),
        show_old: false,
        diff: output.diff,
        redact_secrets: resources.len() == 1 && secrets.is_some(),
        show_secret_data: output.show_secret_data,
        several_resources: resources.len() > 1,
        streams: false,
        secrets_resource: secrets.cloned(),
        object_columns: object_columns(output, resources),
        story: output.show.is_default(),
        secret_indices: secret_indices(pipeline),
    }
}

/// Each resource's notification-row columns: `--columns` for all, else its defaults.
fn object_columns(output: &OutputArgs, resources: &[String]) -> ColumnsByResource {
    resources
        .iter()
        .filter_map(|resource| {
            let columns = match &output.columns {
                Some(given) => Some(given.clone()),
                None => ObjectColumns::defaults_for(resource),
            };
            columns.map(|c| (resource.clone(), Arc::new(c)))
        })
        .collect()
}

/// The `--index` names whose values are a Secret's data: `field:data…`, `field:stringData…`,
/// or the last-applied annotation (which holds the whole manifest).
fn secret_indices(pipeline: &PipelineArgs) -> Vec<String> {
    let secret = |expr: &str| {
        let field = expr.strip_prefix("field:").unwrap_or_default();
        let top = field.split(['.', '[']).next().unwrap_or_default();
        SECRET_FIELDS.contains(&top) || expr.strip_prefix("annotation:") == Some(LAST_APPLIED)
    };
    pipeline
        .indexes
        .iter()
        .filter(|d| secret(&d.expr))
        .map(|d| d.name.clone())
        .collect()
}

/// stdout's terminal width, else `$COLUMNS` when the shell exports it.
fn terminal_width() -> Option<usize> {
    terminal_size::terminal_size_of(std::io::stdout())
        .map(|(terminal_size::Width(w), _)| usize::from(w))
        .or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
}

/// The initial-LIST progress bar: on stderr, only when stderr is a terminal.
pub fn list_progress() -> ListProgress {
    ListProgress::new(std::io::stderr().is_terminal())
}

/// The stages `dump` needs to see (the list progress only).
pub fn dump_stages() -> StageSet {
    StageSet::minimal().with(Stage::Reflector)
}
