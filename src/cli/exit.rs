//! Exit codes and the one-line errors printed as `error: <message>` on stderr.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use kinformer_apiserver::ServerError;

use super::client::NotKubernetes;

use crate::informer::source::error_chain;
use crate::informer::{HandlerPanic, ReflectorError};
use crate::proxy::ProxyError;
use crate::report::trace::LineError;

/// The documented exit codes: (code, meaning), for `docs/exit-status.md` and the man page.
pub const EXIT_CODES: &[(i32, &str)] = &[
    (
        0,
        "success (also when stdout is closed early, e.g. piped into head)",
    ),
    (
        1,
        "runtime failure: an API or server error during the run, an I/O error (e.g. stdout is `/dev/full`)",
    ),
    (
        2,
        "usage: unknown flag, bad value (duration, handler, index, selector, output) — before any network call; `replay` of a proxy recording of several streams without `--stream` (the error names them)",
    ),
    (
        3,
        "kubeconfig or configuration: missing or malformed kubeconfig, unknown context, a missing or bad `--scenario` or `--seed` file",
    ),
    (
        4,
        "the API refused: unknown resource type, or the first LIST answered 400 Bad Request (e.g. an unsupported `--field-selector`), 401 Unauthorized, 403 Forbidden or 404 Not Found (later refusals are retried, as client-go does)",
    ),
    (
        5,
        "the server is unreachable or timed out (also: `--timeout` ran out before the server answered; a refused first connection or an unknown host fails at once unless `--retry-connect`), its certificate failed verification (at once, with Go's x509 words, as kubectl), or the address answered an HTML page (no Kubernetes API there)",
    ),
    (
        6,
        "a handler panicked (`--on-panic crash`, client-go's default), after the summary",
    ),
    (
        7,
        "a record file that cannot be replayed: missing, not a record file, an unknown version, a garbled or truncated line, or a request it does not hold (`error: FILE:LINE: …`); for `report` and `explain`, an INPUT that is neither a record file nor a JSONL trace",
    ),
    (
        8,
        "`explain`: no object with that KEY in the trace (the nearest keys are suggested)",
    ),
    (
        130,
        "interrupted (SIGINT, Ctrl-C), after the summary (while still connecting: one line saying so, no summary)",
    ),
    (
        143,
        "terminated (SIGTERM), after the summary (while still connecting: one line saying so, no summary)",
    ),
];

/// Everything that ends the program early, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad flags or values (clap's own errors exit 2 too).
    #[error("{0}")]
    Usage(String),
    /// Missing or garbled kubeconfig, unknown context, unusable configuration.
    #[error("{0}")]
    Config(String),
    /// `the server doesn't have a resource type "podz"` and friends.
    #[error("{0}")]
    UnknownResource(String),
    /// 401: the credentials were not accepted.
    #[error("Unauthorized: the server rejected the credentials{}", context(.0))]
    Unauthorized(String),
    /// 403: names the verb and the resource.
    #[error("{}", forbidden_message(.verb, .resource, .message))]
    Forbidden {
        verb: String,
        resource: String,
        message: String,
    },
    /// 404 from the API.
    #[error("not found: {0}")]
    NotFound(String),
    /// 400 from the API: the request itself is wrong (e.g. an unsupported field selector).
    #[error("the server rejected the request (BadRequest): {0}")]
    BadRequest(String),
    /// A handler panicked and `--on-panic crash` (the default) ended the informer.
    #[error(
        "handler {:?} panicked on {resource}: {} (--on-panic crash; --on-panic skip goes on)",
        .panic.handler,
        .panic.message
    )]
    HandlerPanicked {
        resource: String,
        panic: HandlerPanic,
    },
    /// Connection refused, DNS failure, TLS handshake failure, timeout.
    #[error("unable to connect to the server: {0}")]
    Unreachable(String),
    /// The address answered, with an HTML page: no Kubernetes API server is there.
    #[error("{0}")]
    NotKubernetes(String),
    /// The embedded API server did not start (a bad `--seed` file is a configuration error).
    #[error("cannot start the embedded API server: {0}")]
    Server(#[source] ServerError),
    /// No client for the embedded server could be built.
    #[error("cannot build a client for the embedded API server: {0}")]
    EmbeddedClient(#[source] kube::Error),
    /// `kinformer proxy` did not start.
    #[error("{0}")]
    Proxy(#[from] ProxyError),
    /// A file the run writes (a kubeconfig, a record file, a report) could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    WriteFile { path: PathBuf, source: io::Error },
    /// The record file to write could not be created (a configuration error, as a bad path).
    #[error("cannot write record file {}: {source}", .path.display())]
    CreateRecordFile { path: PathBuf, source: io::Error },
    /// A LIST that failed in a way that is no refusal (after the informer gave up on it).
    #[error("list {resource}: {source}")]
    List {
        resource: String,
        source: ReflectorError,
    },
    /// First contact kept failing until `--retry-timeout` ran out.
    #[error("{last} (gave up after {}s)", .after.as_secs_f64())]
    GaveUp {
        last: Box<CliError>,
        after: Duration,
    },
    /// The replay behind `report`/`explain` printed a line its own reader refused (a bug).
    #[error("the replay's trace: {0}")]
    ReplayTrace(#[source] LineError),
    /// Another HTTP status from the API server, where a refusal was not expected.
    #[error("the server answered {code}: {message}")]
    Status { code: u16, message: String },
    /// A kube client failure of no kind above (its words: kube's error is not `Clone` and is
    /// also read by the caller).
    #[error("{0}")]
    Client(String),
    /// A state the program's own logic rules out (a bug, reported instead of a panic).
    #[error("internal error: {0}")]
    Internal(&'static str),
    /// A record file that cannot be replayed (`FILE:LINE: what is wrong`).
    #[error("{0}")]
    BadRecord(String),
    /// `explain KEY`: no object with that key in the trace.
    #[error("{0}")]
    UnknownKey(String),
    /// An I/O error (other than a broken pipe, which is success).
    #[error("{0}")]
    Io(#[from] io::Error),
}

fn context(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(" ({detail})")
    }
}

fn forbidden_message(verb: &str, resource: &str, message: &str) -> String {
    let base = format!("Forbidden: cannot {verb} resource \"{resource}\"");
    if message.is_empty() {
        base
    } else {
        format!("{base}: {message}")
    }
}

impl CliError {
    /// The process exit code for this error.
    pub fn code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Config(_) => 3,
            CliError::UnknownResource(_)
            | CliError::Unauthorized(_)
            | CliError::Forbidden { .. }
            | CliError::NotFound(_)
            | CliError::BadRequest(_) => 4,
            CliError::Unreachable(_) | CliError::NotKubernetes(_) => 5,
            CliError::HandlerPanicked { .. } => 6,
            CliError::BadRecord(_) => 7,
            CliError::UnknownKey(_) => 8,
            CliError::Server(ServerError::SeedRead { .. } | ServerError::SeedFile { .. })
            | CliError::CreateRecordFile { .. } => 3,
            CliError::Server(_)
            | CliError::EmbeddedClient(_)
            | CliError::Proxy(_)
            | CliError::WriteFile { .. }
            | CliError::List { .. }
            | CliError::GaveUp { .. }
            | CliError::ReplayTrace(_)
            | CliError::Status { .. }
            | CliError::Client(_)
            | CliError::Internal(_) => 1,
            CliError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            CliError::Io(_) => 1,
        }
    }

    /// Whether nothing should be printed (a closed stdout is a quiet success).
    pub fn is_quiet(&self) -> bool {
        self.code() == 0
    }

    /// The line for stderr: `error: <message>`, control characters flattened to spaces.
    pub fn line(&self) -> String {
        let msg: String = self
            .to_string()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("error: {msg}")
    }

    /// Classifies an HTTP status from the API server (`verb` and `resource` name the request
    /// for 403s).
    pub fn from_status(code: u16, verb: &str, resource: &str, message: &str) -> Self {
        match code {
            401 => CliError::Unauthorized(message.to_owned()),
            403 => CliError::Forbidden {
                verb: verb.to_owned(),
                resource: resource.to_owned(),
                message: message.to_owned(),
            },
            404 => CliError::NotFound(message.to_owned()),
            400 => CliError::BadRequest(message.to_owned()),
            _ => CliError::Status {
                code,
                message: message.to_owned(),
            },
        }
    }
}

impl CliError {
    /// Classifies a kube client error: kubeconfig problems → 3, API refusals → 4 (403 names
    /// `verb` and `resource`), connection failures and timeouts → 5, anything else → 1.
    pub fn from_kube(err: &kube::Error, verb: &str, resource: &str) -> Self {
        match err {
            kube::Error::Api(status) => {
                Self::from_status(status.code, verb, resource, &status.message)
            }
            kube::Error::InferConfig(e) => CliError::Config(e.to_string()),
            kube::Error::InferKubeconfig(e) => CliError::Config(e.to_string()),
            kube::Error::Auth(e) => CliError::Config(format!("authentication failed: {e}")),
            kube::Error::HyperError(e) => CliError::Unreachable(e.to_string()),
            kube::Error::Service(e) => match error_chain(e.as_ref())
                .into_iter()
                .find(|e| e.is::<NotKubernetes>())
            {
                Some(page) => CliError::NotKubernetes(page.to_string()),
                None => CliError::Unreachable(e.to_string()),
            },
            kube::Error::RustlsTls(e) => CliError::Unreachable(format!("TLS: {e}")),
            other => CliError::Client(other.to_string()),
        }
    }
}

impl From<super::resolve::ResolveError> for CliError {
    fn from(err: super::resolve::ResolveError) -> Self {
        use super::resolve::ResolveError;
        match err {
            ResolveError::Discovery(e) => CliError::from_kube(&e, "list", "discovery"),
            other => CliError::UnknownResource(other.to_string()),
        }
    }
}

/// Renders the exit-code table as roff for the man page's EXIT STATUS section.
pub fn exit_status_roff() -> String {
    let mut out = String::from(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_CODES {
        let meaning = roff_escape(&meaning.replace('`', ""));
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{meaning}\n"));
    }
    out
}

/// The exit-code table as Markdown: the table of `docs/exit-status.md` (a test keeps them equal).
#[cfg(test)]
fn exit_status_markdown() -> String {
    let mut out = String::from("| Code | Meaning |\n|-----:|---------|\n");
    for (code, meaning) in EXIT_CODES {
        out.push_str(&format!("| {code} | {meaning} |\n"));
    }
    out
}

/// Escapes text for roff: backslashes, hyphens, and a leading control character.
pub(crate) fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_table() {
        assert_eq!(CliError::Usage("x".into()).code(), 2);
        assert_eq!(CliError::Config("x".into()).code(), 3);
        assert_eq!(CliError::UnknownResource("x".into()).code(), 4);
        assert_eq!(CliError::from_status(401, "list", "pods", "").code(), 4);
        assert_eq!(CliError::from_status(403, "watch", "pods", "").code(), 4);
        assert_eq!(CliError::from_status(404, "get", "pods", "").code(), 4);
        assert_eq!(CliError::from_status(400, "list", "pods", "bad").code(), 4);
        assert_eq!(CliError::from_status(500, "list", "pods", "boom").code(), 1);
        let panic = HandlerPanic {
            handler: "slow".into(),
            message: "boom".into(),
        };
        let panicked = CliError::HandlerPanicked {
            resource: "pods".into(),
            panic,
        };
        assert_eq!(panicked.code(), 6);
        assert_eq!(
            panicked.line(),
            "error: handler \"slow\" panicked on pods: boom (--on-panic crash; --on-panic skip goes on)"
        );
        let seed = ServerError::SeedRead {
            path: "x.yaml".into(),
            source: io::Error::from(io::ErrorKind::NotFound),
        };
        assert_eq!(
            CliError::Server(seed).code(),
            3,
            "a bad --seed file is configuration"
        );
        let write = CliError::WriteFile {
            path: "/x/report.html".into(),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        assert_eq!(write.code(), 1);
        assert!(
            write
                .line()
                .starts_with("error: cannot write /x/report.html: ")
        );
        assert_eq!(CliError::Unreachable("x".into()).code(), 5);
        assert_eq!(CliError::BadRecord("x".into()).code(), 7);
        assert_eq!(CliError::UnknownKey("x".into()).code(), 8);
        assert_eq!(
            CliError::from(io::Error::from(io::ErrorKind::BrokenPipe)).code(),
            0
        );
        assert!(CliError::from(io::Error::from(io::ErrorKind::BrokenPipe)).is_quiet());
        assert_eq!(CliError::from(io::Error::other("disk")).code(), 1);
        let documented: Vec<i32> = EXIT_CODES.iter().map(|(c, _)| *c).collect();
        assert_eq!(documented, [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143]);
    }

    #[test]
    fn messages_are_one_line() {
        let e = CliError::from_status(403, "watch", "pods", "User \"bob\" cannot\nwatch");
        assert_eq!(
            e.line(),
            "error: Forbidden: cannot watch resource \"pods\": User \"bob\" cannot watch"
        );
        assert_eq!(
            CliError::Unauthorized(String::new()).line(),
            "error: Unauthorized: the server rejected the credentials"
        );
    }

    #[test]
    fn kube_and_resolve_errors_map_to_codes() {
        let status = kube::core::Status::failure("pods is forbidden", "Forbidden").with_code(403);
        let e = CliError::from_kube(&kube::Error::Api(Box::new(status)), "watch", "pods");
        assert_eq!(e.code(), 4);
        assert!(
            e.to_string()
                .starts_with("Forbidden: cannot watch resource \"pods\"")
        );
        let unknown = super::super::resolve::ResolveError::Unknown {
            resource: "podz".into(),
            suggestion: Some("pods".into()),
        };
        let e = CliError::from(unknown);
        assert_eq!(e.code(), 4);
        assert_eq!(
            e.line(),
            "error: the server doesn't have a resource type \"podz\" (did you mean \"pods\"?)"
        );
    }

    #[test]
    fn exit_status_renderings() {
        assert!(exit_status_roff().contains(".TP\n\\fB143\\fR\nterminated (SIGTERM)"));
        assert!(!exit_status_roff().contains('`'));
        let page = include_str!("../../docs/exit-status.md");
        assert!(
            page.contains(&exit_status_markdown()),
            "docs/exit-status.md's table differs from EXIT_CODES:\n{}",
            exit_status_markdown()
        );
    }
}
