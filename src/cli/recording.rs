//! A recording of a run's LIST/WATCH traffic, shared by `record` and `demo --record`: the
//! record file created and wrapped around every source, then closed with what it holds.

use std::path::Path;

use crate::informer::source::record::Recorder;
use crate::informer::source::record_file::{Header, SecretData, VERSION};

use super::exit::CliError;
use super::inspect::Inspection;

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
        .map_err(|source| CliError::CreateRecordFile {
            path: path.to_path_buf(),
            source,
        })?
        .with_secret_data(secrets);
    for resource in &mut inspection.plan.resources {
        resource.source = recorder.wrap(&resource.resource, resource.source.clone());
    }
    Ok(recorder)
}

/// Closes the record file and says on stderr what it holds.
pub async fn finish(recorder: Recorder, path: &Path, resources: &[String]) -> Result<(), CliError> {
    let stats = recorder
        .finish()
        .await
        .map_err(|source| CliError::WriteFile {
            path: path.to_path_buf(),
            source,
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
