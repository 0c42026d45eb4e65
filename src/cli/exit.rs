//! Exit codes and the one-line errors printed as `error: <message>` on stderr.

use std::io;

/// The documented exit codes: (code, meaning), for the README and the man page.
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
        "usage: unknown flag, bad value (duration, handler, index, selector, output) — before any network call",
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
        "the server is unreachable or timed out (also: `--timeout` ran out before the server answered), or its certificate failed verification (at once, with Go's x509 words, as kubectl)",
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
    (130, "interrupted (SIGINT, Ctrl-C), after the summary"),
    (143, "terminated (SIGTERM), after the summary"),
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
    #[error("{0}")]
    HandlerPanicked(String),
    /// Connection refused, DNS failure, TLS handshake failure, timeout.
    #[error("unable to connect to the server: {0}")]
    Unreachable(String),
    /// Any other failure while running.
    #[error("{0}")]
    Runtime(String),
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
            CliError::Unreachable(_) => 5,
            CliError::HandlerPanicked(_) => 6,
            CliError::BadRecord(_) => 7,
            CliError::UnknownKey(_) => 8,
            CliError::Runtime(_) => 1,
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
            _ => CliError::Runtime(format!("the server answered {code}: {message}")),
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
            kube::Error::Service(e) => CliError::Unreachable(e.to_string()),
            kube::Error::RustlsTls(e) => CliError::Unreachable(format!("TLS: {e}")),
            other => CliError::Runtime(other.to_string()),
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

/// The exit-code table as Markdown: the README's "Exit status" table (a test keeps them equal).
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
        assert_eq!(CliError::HandlerPanicked("x".into()).code(), 6);
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
        let readme = include_str!("../../README.md");
        assert!(
            readme.contains(&exit_status_markdown()),
            "the README's exit status table differs from EXIT_CODES:\n{}",
            exit_status_markdown()
        );
    }
}
