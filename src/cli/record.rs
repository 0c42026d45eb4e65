//! `kinformer record RESOURCE… -o FILE`, and `demo --record FILE`: run the informers as
//! `watch` would (nothing on stdout) while every LIST page and WATCH frame their sources see
//! goes to a record file for `kinformer replay`.

use std::io;
use std::path::Path;

use tokio::time::Instant;

use crate::informer::source::record::Recorder;
use crate::informer::source::record_file::{Header, SecretData, VERSION};
use crate::output::{EventRenderer, OutputFormat, RenderOptions};

use super::args::{RecordArgs, resource_names};
use super::connect::{ClusterChoice, deadline_after, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, Selection, dump_stages};
use super::session::Session;
use super::stream::{self, Signals, StopWhen};
use super::watch::stopped_before_start;

pub async fn run(args: RecordArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let started = Instant::now();
    let deadline = deadline_after(args.timeout);
    let cluster = ClusterChoice::from_args(&args.connection);
    let resources = resource_names(&args.resources);
    let selection = Selection::from_args(&resources, None, &args.connection);
    let preparing = Inspection::prepare(&cluster, &selection, None, &args.pipeline, dump_stages());
    let mut inspection = match unless_interrupted(preparing, signals, deadline).await {
        Ok(prepared) => prepared?,
        Err(cut) => {
            let handlers = args.pipeline.handler_specs();
            let format = OutputFormat::Table;
            return stopped_before_start(cut, format, &handlers, started, args.timeout);
        }
    };
    let version = args.pipeline.client_go.version;
    let secrets = SecretData::shown(args.show_secret_data);
    let recorder = start(&args.file, &mut inspection, version, secrets).await?;
    let labels = inspection.labels();
    let Inspection {
        connection, plan, ..
    } = inspection;
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut nowhere = EventRenderer::new(io::sink(), RenderOptions::default());
    let stop_when = StopWhen {
        timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..StopWhen::default()
    };
    let (ending, _) = stream::run(
        session,
        &mut nowhere,
        &mut io::stderr(),
        stop_when,
        &mut |_| {},
        signals,
    )
    .await?;
    connection.close().await;
    finish(recorder, &args.file, &labels).await?;
    ending.into_exit()
}

/// Creates the record file for `inspection`'s resources (Secret values as `secrets` says) and
/// wraps their sources with it.
pub async fn start(
    path: &Path,
    inspection: &mut Inspection,
    client_go: &str,
    secrets: SecretData,
) -> Result<Recorder, CliError> {
    let server_version = inspection
        .connection
        .client
        .apiserver_version()
        .await
        .ok()
        .map(|info| info.git_version);
    let header = Header {
        version: VERSION,
        created: jiff::Timestamp::now().to_string(),
        server_version,
        client_go: client_go.to_owned(),
        resources: inspection.labels(),
        clients: Vec::new(),
    };
    let recorder = Recorder::create(path, &header)
        .map_err(|e| CliError::Config(format!("cannot write record file {}: {e}", path.display())))?
        .with_secret_data(secrets);
    for resource in &mut inspection.plan.resources {
        resource.source = recorder.wrap(&resource.resource, resource.source.clone());
    }
    Ok(recorder)
}

/// Closes the record file and says on stderr what it holds.
pub async fn finish(recorder: Recorder, path: &Path, resources: &[String]) -> Result<(), CliError> {
    let stats = recorder.finish().await.map_err(|e| {
        CliError::Runtime(format!("cannot write record file {}: {e}", path.display()))
    })?;
    eprintln!(
        "recorded {} entries ({} bytes of JSONL) of {} to {}",
        stats.entries,
        stats.bytes,
        resources.join(","),
        path.display()
    );
    Ok(())
}
