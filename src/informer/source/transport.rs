//! Transport failures told apart the way client-go's callers tell them apart: connection
//! refused (`utilnet.IsConnectionRefused`: a watch retried in place, Rule R8), the connection
//! ending under a request or stream (`IsProbableEOF`/`IsConnectionReset`, apimachinery
//! util/net/http.go:79-103: a normal watch close, Rule R10, and a silent REST retry, Rule R11),
//! timeouts (`IsTimeout`, util/net/http.go:65), and everything else.
//!
//! The io error that says what happened sits deep in the client stack's error chain, often
//! wrapped in another `io::Error` (hyper-timeout wraps connector errors so), whose `source()`
//! skips the wrapped error — so the walk also descends through `io::Error::get_ref`.

use std::error::Error;
use std::io;

use super::lister_watcher::SourceError;

/// How a transport failure is classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Refused,
    ProbableEof,
    Timeout,
    Other,
}

/// `err` (and everything it wraps) as a [`SourceError`] whose message is the whole chain.
pub fn classify(err: &(dyn Error + 'static)) -> SourceError {
    let chain = error_chain(err);
    let message = describe(&chain);
    let class = chain
        .iter()
        .map(|e| class_of(*e))
        .find(|c| *c != Class::Other)
        .unwrap_or(Class::Other);
    match class {
        Class::Refused => SourceError::ConnectionRefused(message),
        Class::ProbableEof => SourceError::ProbableEof(message),
        Class::Timeout => SourceError::Timeout(message),
        Class::Other => SourceError::Transport(message),
    }
}

/// Every error in `err`'s chain, outermost first, including what an `io::Error` wraps (its
/// `source()` skips it). The one walk of an error chain: the CLI's classifications use it too.
pub fn error_chain<'a>(err: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
    let mut out = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        out.push(e);
        next = match e.downcast_ref::<io::Error>().and_then(io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn Error + 'static)),
            None => e.source(),
        };
        if out.len() > 32 {
            break;
        }
    }
    out
}

fn class_of(e: &(dyn Error + 'static)) -> Class {
    if let Some(io) = e.downcast_ref::<io::Error>()
        && let Some(class) = io_class(io.kind())
    {
        return class;
    }
    if let Some(h) = e.downcast_ref::<hyper::Error>() {
        if h.is_incomplete_message() {
            return Class::ProbableEof;
        }
        if h.is_timeout() {
            return Class::Timeout;
        }
    }
    message_class(&e.to_string())
}

fn io_class(kind: io::ErrorKind) -> Option<Class> {
    use io::ErrorKind::*;
    match kind {
        ConnectionRefused => Some(Class::Refused),
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof | NotConnected => {
            Some(Class::ProbableEof)
        }
        TimedOut => Some(Class::Timeout),
        _ => None,
    }
}

/// client-go's `IsProbableEOF` reads error strings; so does this, for errors that carry no
/// io kind (an HTTP/2 GOAWAY, a message passed on as text).
fn message_class(message: &str) -> Class {
    let lower = message.to_ascii_lowercase();
    let eof = [
        "connection reset",
        "broken pipe",
        "use of closed network connection",
        "goaway",
        "go away",
        "unexpected eof",
        "connection closed before message completed",
    ];
    if lower.contains("connection refused") {
        Class::Refused
    } else if eof.iter().any(|m| lower.contains(m)) {
        Class::ProbableEof
    } else {
        Class::Other
    }
}

/// The chain's messages joined with `: `, each said once (wrappers often repeat their
/// source's text, or say it as Go would: `connect: connection refused` for `Connection
/// refused (os error 111)`).
fn describe(chain: &[&(dyn Error + 'static)]) -> String {
    let mut out = String::new();
    for e in chain {
        let text = e.to_string();
        let text = text.strip_prefix("ServiceError: ").unwrap_or(&text);
        let plain = text
            .split(" (os error")
            .next()
            .unwrap_or(text)
            .to_lowercase();
        if text.is_empty() || out.to_lowercase().contains(&plain) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapper(&'static str, io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Wrapper {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.1)
        }
    }

    #[test]
    fn an_io_kind_wrapped_in_another_io_error_is_found() {
        let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "connection refused");
        // hyper-timeout wraps connector errors as io::Error(Other, e): its source() skips e.
        let wrapped = io::Error::other(Wrapper("tcp connect error", refused));
        let e = classify(&wrapped);
        assert!(
            matches!(&e, SourceError::ConnectionRefused(m) if m.contains("tcp connect error")),
            "{e:?}"
        );
    }

    #[test]
    fn eof_like_kinds_and_messages_are_probable_eof_and_timeouts_are_timeouts() {
        for kind in [
            io::ErrorKind::ConnectionReset,
            io::ErrorKind::BrokenPipe,
            io::ErrorKind::UnexpectedEof,
        ] {
            let e = classify(&io::Error::new(kind, "x"));
            assert!(matches!(e, SourceError::ProbableEof(_)), "{kind:?}: {e:?}");
        }
        let e = classify(&io::Error::new(io::ErrorKind::TimedOut, "read timed out"));
        assert!(matches!(e, SourceError::Timeout(_)), "{e:?}");
        let goaway = io::Error::other("http2: server sent GOAWAY and closed the connection");
        assert!(matches!(classify(&goaway), SourceError::ProbableEof(_)));
        let other = io::Error::other("invalid peer certificate: UnknownIssuer");
        assert!(matches!(classify(&other), SourceError::Transport(_)));
    }
}
