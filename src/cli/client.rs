//! The outermost layer of kinformer's kube client: it sends each URL as kubectl does (kube's
//! `?&` query start tidied), logs each request at kubectl-like
//! verbosity (`-v 2` the verb and resource, `-v 4` the URL, status and time, `-v 6` the
//! headers, credentials hidden), and turns a failure to reach the server into kubectl's words:
//! `Get "http://127.0.0.1:9/api": dial tcp 127.0.0.1:9: connect: connection refused`.
//!
//! kube's own `HTTP` spans are not used: they print the server URL as configured, and the
//! kubeconfig `kinformer serve` writes carries its token there.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{HeaderMap, Request, Uri};

use crate::informer::source::error_chain;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Adds [`RequestLog`] around a client's service.
#[derive(Debug, Clone)]
pub struct RequestLayer {
    server: ServerAddress,
}

impl RequestLayer {
    /// For a client of the server at `cluster_url` (its credentials are never kept).
    pub fn new(cluster_url: &Uri) -> Self {
        Self {
            server: ServerAddress::of(cluster_url),
        }
    }
}

impl<S> tower::Layer<S> for RequestLayer {
    type Service = RequestLog<S>;

    fn layer(&self, inner: S) -> RequestLog<S> {
        RequestLog {
            inner,
            server: self.server.clone(),
        }
    }
}

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct RequestLog<S> {
    inner: S,
    server: ServerAddress,
}

impl<S, B, RB> tower::Service<Request<B>> for RequestLog<S>
where
    S: tower::Service<Request<B>, Response = http::Response<RB>>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    RB: hyper::body::Body + Send + 'static,
    RB::Data: Send,
    RB::Error: Into<BoxError>,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        if let Some(tidy) = tidy_query(request.uri()) {
            *request.uri_mut() = tidy;
        }
        tracing::info!("{}", describe(request.method(), request.uri()));
        log_headers("request", request.headers());
        let url = self.server.url_of(request.uri());
        let method = request.method().clone();
        let authority = self.server.authority.clone();
        let started = std::time::Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response
                .await
                .map_err(|e| dial_error(e.into(), &method, &url, &authority))?;
            tracing::debug!(
                "{method} {url} {} in {} ms",
                response.status(),
                started.elapsed().as_millis()
            );
            log_headers("response", response.headers());
            if is_html(response.headers()) {
                return Err(not_kubernetes(response, &method, &url).await);
            }
            Ok(response)
        })
    }
}

/// An HTML page: what a web server, a login portal or a proxy's error page answers — never
/// the Kubernetes API (JSON, protobuf, CBOR, YAML, text).
fn is_html(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/html"))
}

/// How much of an HTML page is read for its first words.
const PAGE_PREFIX: usize = 4096;

/// A response that is no Kubernetes API answer, in one short line: the status, the content
/// type and the page's first words (its title), never the page.
#[derive(Debug, thiserror::Error)]
#[error(
    "{method} {url:?}: the server answered {status} with {content_type} ({words:?}), not the Kubernetes API: is the server address right?"
)]
pub struct NotKubernetes {
    method: String,
    url: String,
    status: http::StatusCode,
    content_type: String,
    words: String,
}

async fn not_kubernetes<RB>(
    response: http::Response<RB>,
    method: &http::Method,
    url: &str,
) -> BoxError
where
    RB: hyper::body::Body,
{
    let status = response.status();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("text/html")
        .to_owned();
    let page = page_prefix(response.into_body()).await;
    Box::new(NotKubernetes {
        method: go_method(method),
        url: url.to_owned(),
        status,
        content_type,
        words: first_words(&String::from_utf8_lossy(&page)),
    })
}

/// Up to [`PAGE_PREFIX`] bytes of a body (less when it fails or ends).
async fn page_prefix<RB: hyper::body::Body>(body: RB) -> Vec<u8> {
    use bytes::Buf;
    use http_body_util::BodyExt;
    let mut body = Box::pin(body);
    let mut page = Vec::new();
    while page.len() < PAGE_PREFIX {
        let Some(Ok(frame)) = body.frame().await else {
            break;
        };
        if let Ok(mut data) = frame.into_data() {
            while data.has_remaining() {
                let chunk = data.chunk();
                page.extend_from_slice(chunk);
                let n = chunk.len();
                data.advance(n);
            }
        }
    }
    page
}

/// The page's `<title>`, else its text without tags: at most ten words.
fn first_words(page: &str) -> String {
    let lower = page.to_ascii_lowercase();
    let title = lower
        .find("<title>")
        .map(|at| at + "<title>".len())
        .and_then(|start| {
            lower[start..]
                .find("</title>")
                .map(|end| &page[start..start + end])
        });
    let text = match title {
        Some(title) => title.to_owned(),
        None => without_tags(page),
    };
    let words: Vec<&str> = text.split_whitespace().take(10).collect();
    words.join(" ")
}

fn without_tags(page: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// The URI without the empty start kube gives a query (`…/pods?&limit=500` → `…/pods?limit=500`,
/// `…/pods?` → `…/pods`), as kubectl sends and prints it; `None` when it is tidy already.
fn tidy_query(uri: &Uri) -> Option<Uri> {
    let path_and_query = uri.path_and_query()?;
    let query = path_and_query.query()?;
    let trimmed = query.trim_start_matches('&');
    if !trimmed.is_empty() && trimmed.len() == query.len() {
        return None;
    }
    let path = path_and_query.path();
    let tidy = if trimmed.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{trimmed}")
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(tidy.parse().ok()?);
    Uri::from_parts(parts).ok()
}

/// The server's scheme and `host:port`, without credentials.
#[derive(Debug, Clone)]
struct ServerAddress {
    base: String,
    authority: String,
}

impl ServerAddress {
    fn of(url: &Uri) -> Self {
        let scheme = url.scheme_str().unwrap_or("https");
        let host = url.host().unwrap_or_default();
        let port = url
            .port_u16()
            .unwrap_or(if scheme == "http" { 80 } else { 443 });
        let path = url.path().trim_end_matches('/');
        Self {
            base: format!("{scheme}://{}{path}", url_host(host, url.port_u16())),
            authority: format!("{host}:{port}"),
        }
    }

    /// The full URL of a request whose URI is relative to the server.
    fn url_of(&self, uri: &Uri) -> String {
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        format!("{}{path}", self.base)
    }
}

fn url_host(host: &str, port: Option<u16>) -> String {
    match port {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// `list pods`, `watch pods in default`, `get /api` — what a request does, for `-v 2`.
fn describe(method: &http::Method, uri: &Uri) -> String {
    let query = uri.query().unwrap_or_default();
    let segments: Vec<&str> = uri.path().split('/').filter(|s| !s.is_empty()).collect();
    let namespace = segments
        .iter()
        .position(|s| *s == "namespaces")
        .and_then(|i| segments.get(i + 1))
        .filter(|_| segments.len() > 4);
    let verb = if query
        .split('&')
        .any(|p| p == "watch=true" || p == "watch=1")
    {
        "watch"
    } else if *method == http::Method::GET {
        "get"
    } else {
        method.as_str()
    };
    let names_resource = match segments.first() {
        Some(&"api") => segments.len() > 2,
        Some(&"apis") => segments.len() > 3,
        _ => false,
    };
    let what = match segments.last() {
        Some(resource) if names_resource => resource,
        _ => uri.path(),
    };
    let verb = if verb == "get" && names_resource && is_collection(&segments) {
        "list"
    } else {
        verb
    };
    match namespace {
        Some(ns) => format!("{verb} {what} in {ns}"),
        None => format!("{verb} {what}"),
    }
}

/// `/api/v1/pods`, `/api/v1/namespaces/x/pods`, `/apis/g/v/pods`, `/apis/g/v/namespaces/x/pods`.
fn is_collection(segments: &[&str]) -> bool {
    let after_version = if segments[0] == "api" { 2 } else { 3 };
    let rest = segments.len().saturating_sub(after_version);
    match segments.get(after_version) {
        Some(&"namespaces") => rest == 1 || rest == 3,
        Some(_) => rest == 1,
        None => false,
    }
}

/// At `-v 6`: `request headers: accept: application/json, authorization: <hidden>`.
fn log_headers(what: &str, headers: &HeaderMap) {
    if !headers.is_empty() && tracing::enabled!(tracing::Level::TRACE) {
        tracing::trace!("{what} headers: {}", headers_without_credentials(headers));
    }
}

/// `accept: application/json, authorization: <hidden>`.
fn headers_without_credentials(headers: &HeaderMap) -> String {
    headers
        .iter()
        .map(|(name, value)| {
            let shown = if is_credential(name) {
                "<hidden>"
            } else {
                value.to_str().unwrap_or("<binary>")
            };
            format!("{name}: {shown}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_credential(name: &http::HeaderName) -> bool {
    name == http::header::AUTHORIZATION
        || name == http::header::PROXY_AUTHORIZATION
        || name == http::header::COOKIE
}

/// A request that never reached the server, worded like Go's `net/http` (as kubectl prints it).
/// Its source keeps the io error's kind, so the informer can still tell a refused connection
/// from other failures (Rule R8).
#[derive(Debug, thiserror::Error)]
#[error("{method} {url:?}: dial tcp {authority}: {why}")]
pub struct DialError {
    method: String,
    url: String,
    authority: String,
    why: String,
    #[source]
    cause: std::io::Error,
}

/// A server certificate that failed verification, worded like Go's `crypto/tls` (as kubectl
/// prints it). Permanent: retrying cannot help, so nothing retries it.
#[derive(Debug, thiserror::Error)]
#[error("{method} {url:?}: tls: failed to verify certificate: {why}")]
pub struct TlsVerifyError {
    method: String,
    url: String,
    why: String,
}

/// Rewrites a connection failure (an I/O error anywhere in the chain of a request that got no
/// response) as a [`DialError`], a certificate that failed verification as a
/// [`TlsVerifyError`]; other errors pass unchanged.
fn dial_error(error: BoxError, method: &http::Method, url: &str, authority: &str) -> BoxError {
    if let Some(tls) = certificate_error(error.as_ref()) {
        return Box::new(TlsVerifyError {
            method: go_method(method),
            url: url.to_owned(),
            why: x509_words(tls),
        });
    }
    let Some(io) = io_cause(error.as_ref()) else {
        return error;
    };
    let why = match io.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_owned(),
        std::io::ErrorKind::TimedOut => "i/o timeout".to_owned(),
        _ => go_style(&io.to_string()),
    };
    let cause = std::io::Error::new(io.kind(), io.to_string());
    Box::new(DialError {
        method: go_method(method),
        url: url.to_owned(),
        authority: authority.to_owned(),
        why,
        cause,
    })
}

/// `GET` → `Get`, as Go's net/http names a method in its errors.
fn go_method(method: &http::Method) -> String {
    let mut go = method.as_str().to_ascii_lowercase();
    if let Some(first) = go.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    go
}

/// The certificate error rustls reported anywhere in the chain (often inside an io error).
fn certificate_error<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a rustls::CertificateError> {
    error_chain(error)
        .into_iter()
        .find_map(|e| match e.downcast_ref::<rustls::Error>() {
            Some(rustls::Error::InvalidCertificate(c)) => Some(c),
            _ => None,
        })
}

/// A certificate error in Go's x509 words (crypto/x509 verify.go: `HostnameError`,
/// `CertificateInvalidError`, `UnknownAuthorityError`).
fn x509_words(e: &rustls::CertificateError) -> String {
    use rustls::CertificateError as E;
    match e {
        E::UnknownIssuer => "x509: certificate signed by unknown authority".to_owned(),
        E::ExpiredContext { time, not_after } => format!(
            "x509: certificate has expired or is not yet valid: current time {} is after {}",
            rfc3339(*time),
            rfc3339(*not_after)
        ),
        E::NotValidYetContext { time, not_before } => format!(
            "x509: certificate has expired or is not yet valid: current time {} is before {}",
            rfc3339(*time),
            rfc3339(*not_before)
        ),
        E::Expired | E::NotValidYet => {
            "x509: certificate has expired or is not yet valid".to_owned()
        }
        E::NotValidForNameContext {
            expected,
            presented,
        } => hostname_error(&expected.to_str(), presented),
        E::NotValidForName => "x509: certificate is not valid for the server's name".to_owned(),
        E::BadSignature => "x509: signature verification failed".to_owned(),
        E::Revoked => "x509: certificate has been revoked".to_owned(),
        E::InvalidPurpose | E::InvalidPurposeContext { .. } => {
            "x509: certificate specifies an incompatible key usage".to_owned()
        }
        E::BadEncoding => "x509: malformed certificate".to_owned(),
        other => format!("x509: {other}"),
    }
}

/// Go's `HostnameError`: the names the certificate is valid for — its IP SANs when `host`
/// is an address, else its DNS SANs — and the one asked for. `presented` holds rustls'
/// `DnsName("…")` and `IpAddress(…)`.
fn hostname_error(host: &str, presented: &[String]) -> String {
    let ip = host.parse::<std::net::IpAddr>().is_ok();
    let names: Vec<String> = presented
        .iter()
        .filter_map(|p| {
            let (kind, rest) = p.split_once('(')?;
            let name = rest.strip_suffix(')')?.trim_matches('"');
            match (kind, ip) {
                // As Go's net.IP prints it (webpki writes `::1` as `0::1`).
                ("IpAddress", true) => name.parse::<std::net::IpAddr>().ok().map(|a| a.to_string()),
                ("DnsName", false) => Some(name.to_owned()),
                _ => None,
            }
        })
        .collect();
    match (names.is_empty(), ip) {
        (true, true) => format!(
            "x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
        ),
        (true, false) => {
            format!("x509: certificate is not valid for any names, but wanted to match {host}")
        }
        (false, _) => format!(
            "x509: certificate is valid for {}, not {host}",
            names.join(", ")
        ),
    }
}

/// A certificate time as Go's `time.RFC3339` prints it in UTC.
fn rfc3339(t: rustls::pki_types::UnixTime) -> String {
    let secs = i64::try_from(t.as_secs()).unwrap_or(i64::MAX);
    jiff::Timestamp::from_second(secs)
        .map(|ts| ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| secs.to_string())
}

fn io_cause<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a std::io::Error> {
    error_chain(error)
        .into_iter()
        .find_map(|e| e.downcast_ref::<std::io::Error>())
}

/// `Network is unreachable (os error 101)` → `network is unreachable`.
fn go_style(message: &str) -> String {
    let text = message
        .split(" (os error")
        .next()
        .unwrap_or(message)
        .to_owned();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_mismatch_reads_as_gos_hostname_error() {
        let presented = [
            r#"DnsName("localhost")"#.to_owned(),
            "IpAddress(127.0.0.1)".to_owned(),
            "IpAddress(0::1)".to_owned(),
        ];
        assert_eq!(
            hostname_error("10.0.0.1", &presented),
            "x509: certificate is valid for 127.0.0.1, ::1, not 10.0.0.1"
        );
        assert_eq!(
            hostname_error("kubernetes.example", &presented),
            "x509: certificate is valid for localhost, not kubernetes.example"
        );
        assert_eq!(
            hostname_error("10.0.0.1", &presented[..1]),
            "x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs"
        );
        assert_eq!(
            hostname_error("a.example", &presented[1..]),
            "x509: certificate is not valid for any names, but wanted to match a.example"
        );
        let expired = rustls::CertificateError::ExpiredContext {
            time: rustls::pki_types::UnixTime::since_unix_epoch(std::time::Duration::from_secs(
                1_800_000_000,
            )),
            not_after: rustls::pki_types::UnixTime::since_unix_epoch(
                std::time::Duration::from_secs(1_700_000_000),
            ),
        };
        assert_eq!(
            x509_words(&expired),
            "x509: certificate has expired or is not yet valid: current time 2027-01-15T08:00:00Z is after 2023-11-14T22:13:20Z"
        );
    }

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn requests_are_described_in_kubectl_words() {
        let get = http::Method::GET;
        let cases = [
            ("/api/v1/pods?limit=500", "list pods"),
            ("/api/v1/namespaces/default/pods", "list pods in default"),
            (
                "/api/v1/namespaces/default/pods?watch=true&rv=1",
                "watch pods in default",
            ),
            ("/apis/apps/v1/deployments?watch=true", "watch deployments"),
            ("/apis/apps/v1/namespaces/a/deployments/web", "get web in a"),
            ("/api/v1/namespaces", "list namespaces"),
            ("/api", "get /api"),
            ("/apis/apps/v1", "get /apis/apps/v1"),
        ];
        for (path, want) in cases {
            assert_eq!(describe(&get, &uri(path)), want, "{path}");
        }
    }

    #[test]
    fn credentials_never_reach_the_log() {
        let server = ServerAddress::of(&uri("http://kinformer:s3cret@127.0.0.1:8080"));
        assert_eq!(
            server.url_of(&uri("/api?x=1")),
            "http://127.0.0.1:8080/api?x=1"
        );
        assert_eq!(server.authority, "127.0.0.1:8080");
        let mut headers = HeaderMap::new();
        headers.insert("authorization", "Bearer s3cret".parse().unwrap());
        headers.insert("accept", "application/json".parse().unwrap());
        let text = headers_without_credentials(&headers);
        assert!(
            !text.contains("s3cret") && text.contains("authorization: <hidden>"),
            "{text}"
        );
        assert!(text.contains("accept: application/json"));
        assert_eq!(
            ServerAddress::of(&uri("https://example.com")).authority,
            "example.com:443"
        );
    }

    #[test]
    fn connection_failures_read_like_kubectl() {
        let refused: BoxError =
            Box::new(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        let e = dial_error(
            refused,
            &http::Method::GET,
            "http://127.0.0.1:9/api",
            "127.0.0.1:9",
        );
        assert_eq!(
            e.to_string(),
            r#"Get "http://127.0.0.1:9/api": dial tcp 127.0.0.1:9: connect: connection refused"#
        );
        let other: BoxError = "not an I/O error".into();
        assert_eq!(
            dial_error(other, &http::Method::GET, "u", "a").to_string(),
            "not an I/O error"
        );
        assert_eq!(
            go_style("Network is unreachable (os error 101)"),
            "network is unreachable"
        );
    }

    #[test]
    fn an_html_page_is_told_by_its_title_or_first_words() {
        assert_eq!(
            first_words("<html><head><title>Welcome to\n nginx!</title></head><body>x</body>"),
            "Welcome to nginx!"
        );
        assert_eq!(
            first_words("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>"),
            "Not Found The requested URL was not found on this",
            "at most ten words"
        );
        let mut headers = HeaderMap::new();
        headers.insert("content-type", "text/html; charset=utf-8".parse().unwrap());
        assert!(is_html(&headers));
        headers.insert("content-type", "application/json".parse().unwrap());
        assert!(!is_html(&headers));
    }

    #[test]
    fn queries_have_no_empty_start() {
        let tidy = |s: &str| tidy_query(&uri(s)).map(|u| u.to_string());
        assert_eq!(
            tidy("/api/v1/pods?&resourceVersion=0&limit=500").as_deref(),
            Some("/api/v1/pods?resourceVersion=0&limit=500")
        );
        assert_eq!(
            tidy("http://h:1/api/v1/pods?&watch=true").as_deref(),
            Some("http://h:1/api/v1/pods?watch=true")
        );
        assert_eq!(tidy("/api/v1/pods?").as_deref(), Some("/api/v1/pods"));
        assert_eq!(tidy("/api/v1/pods?limit=5"), None);
        assert_eq!(tidy("/api"), None);
    }
}
