//! `kinformer record RESOURCE… -o FILE`, and `demo --record FILE`: run the informers as
//! `watch` would (nothing on stdout) while every LIST page and WATCH frame their sources see
//! goes to a record file for `kinformer replay`.

use std::io;

use tokio::time::Instant;

use crate::informer::source::record_file::SecretData;
use crate::output::{EventRenderer, RenderOptions};

use super::args::{RecordArgs, resource_names};
use super::connect::{ClusterChoice, deadline_after, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, Selection, dump_stages};
use super::live::stopped_before_start;
use super::recording::{finish, start};
use super::session::Session;
use super::stream::{self, Signals, StopWhen};

pub async fn run(args: RecordArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let deadline = deadline_after(args.timeout);
    let cluster = ClusterChoice::from_args(&args.connection);
    let resources = resource_names(&args.resources);
    let selection = Selection::from_args(&resources, None, &args.connection);
    let preparing = Inspection::prepare(&cluster, &selection, None, &args.pipeline, dump_stages());
    let mut inspection = match unless_interrupted(preparing, signals, deadline).await {
        Ok(prepared) => prepared?,
        Err(cut) => return stopped_before_start(cut, args.timeout),
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
