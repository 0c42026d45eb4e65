//! Record files hold Secret-adjacent data, so they are created readable and writable by their
//! owner only (mode 0600), also when the path existed with wider permissions. One
//! implementation for both record writers (the server crate writes its kubeconfigs the same
//! way; the two crates share no code).

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
