//! Why the embedded server could not start or be seeded, or refused a direct read or write.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::status::ApiError;
use super::tls;

/// Why the server could not start or be seeded, or refused its owner's direct read or write.
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
    /// A direct read or write was refused as the API would refuse it (404, 409, 422, …).
    #[error("{} {}: {}", .0.code, .0.reason, .0.message)]
    Rejected(ApiError),
    /// No served resource type has this plural name.
    #[error("no resource type {0:?}")]
    UnknownResource(String),
    /// A [`crate::EmbeddedServer::wait_for`] condition did not hold in time.
    #[error("waited {after:?} for {resource} to reach the condition")]
    WaitTimeout {
        /// The resource's plural name.
        resource: String,
        /// How long the wait lasted.
        after: Duration,
    },
    /// The serving certificate could not be made.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The service account token signing key could not be made.
    #[error(transparent)]
    SigningKey(#[from] crate::issuer::KeyError),
}
