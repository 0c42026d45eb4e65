//! Why the embedded server could not start or be seeded.

use std::net::SocketAddr;
use std::path::PathBuf;

use super::tls;

/// Why the server could not start or be seeded.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// A seed file could not be read.
    #[error("cannot read seed file {path}: {source}")]
    SeedRead {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A document of a seed file is not a valid object.
    #[error("invalid seed file {path}, document {document}: {message}")]
    SeedFile {
        /// The file.
        path: PathBuf,
        /// 1-based document number.
        document: usize,
        /// What is wrong.
        message: String,
    },
    /// Objects could not be seeded.
    #[error("cannot seed objects: {0}")]
    Seed(String),
    /// The serving certificate could not be made.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
}
