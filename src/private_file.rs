//! Files that hold credentials or Secret-adjacent data — kubeconfigs with a token, record
//! files — are created readable and writable by their owner only (mode 0600), also when the
//! path existed with wider permissions. One implementation for the server, the proxy and the
//! recorder.

use std::fs::File;
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates (or truncates) `path` with mode 0600.
pub fn create(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}
