//! One request, relayed: the proxy's token is checked (a request without it gets a 401
//! Status; only `/version` is open, as kubectl's dispatcher asks it first), the request goes
//! upstream through kube's client (the upstream credentials are added there, the client's
//! `Authorization` never leaves), and the answer comes back with its status, headers and body
//! as they came, the body streamed through a [`Tap`].

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use tokio::time::Instant;

use crate::informer::source::SourceError;
use crate::informer::trace::Event;
use kinformer_apiserver::ApiError;

use super::classify::{Call, classify};
use super::decode::Encoding;
use super::streams::{ClientId, Registry, StreamId};
use super::tap::{Reading, Tap, TapBody};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What the proxy answers with.
pub type ProxyBody = UnsyncBoxBody<Bytes, BoxError>;

/// The largest request body relayed (kube-apiserver refuses bodies over 3 MiB).
const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// Headers that belong to one connection (RFC 9110 §7.6.1), never relayed.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// What the proxy says of its upstream when that changes: unreachable (why), reachable again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    Unreachable(String),
    Reachable,
}

/// Told of every [`Upstream`] change (the CLI says it on stderr).
pub type OnUpstream = Arc<dyn Fn(&Upstream) + Send + Sync>;

/// The proxy's request handler (cheap to share between connections).
pub struct Forwarder {
    /// The bearer token clients must send.
    pub token: String,
    pub upstream: kube::Client,
    pub registry: Arc<Registry>,
    /// Whether the last request reached the upstream (it did at start).
    pub reachable: AtomicBool,
    pub on_upstream: Option<OnUpstream>,
}

impl Forwarder {
    /// Answers `request`, which arrived on `connection`.
    pub async fn handle(
        self: Arc<Self>,
        request: Request<Incoming>,
        connection: u64,
    ) -> Result<Response<ProxyBody>, Infallible> {
        let started = Instant::now();
        if !self.authorized(&request) {
            return Ok(status(&ApiError::unauthorized()));
        }
        let (parts, body) = request.into_parts();
        let call = classify(&parts.method, &parts.uri);
        let agent = parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let client = self.registry.client(agent);
        let accept = parts
            .headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = match read_body(body).await {
            Ok(body) => body,
            Err(refused) => return Ok(status(&refused)),
        };
        let upstream = match upstream_request(&parts, &call, body) {
            Ok(request) => request,
            Err(e) => return Ok(status(&ApiError::bad_request(e.to_string()))),
        };
        let target = self.open(client, connection, call);
        let asked = Asked {
            client,
            uri: &parts.uri,
            accept: accept.as_deref(),
            started,
        };
        Ok(match self.upstream.send(upstream).await {
            Ok(response) => {
                self.reached(true, None);
                self.relay(response, target, &asked)
            }
            Err(e) => self.unreachable(&e, target, &asked),
        })
    }

    /// Tells `on_upstream` when reaching the upstream starts or stops working.
    fn reached(&self, reached: bool, why: Option<&str>) {
        if self.reachable.swap(reached, Ordering::AcqRel) == reached {
            return;
        }
        if let Some(tell) = &self.on_upstream {
            tell(&match why {
                Some(why) if !reached => Upstream::Unreachable(why.to_owned()),
                _ => Upstream::Reachable,
            });
        }
    }

    /// The upstream could not be asked: a 502 `Status` naming why, traced on the stream (or as
    /// the request's line).
    fn unreachable(
        &self,
        e: &kube::Error,
        target: Target,
        asked: &Asked<'_>,
    ) -> Response<ProxyBody> {
        self.reached(false, Some(&e.to_string()));
        let message = format!("the proxy could not reach the API server: {e}");
        match target {
            Target::List(id) | Target::Watch(id) => {
                self.registry
                    .failed(id, SourceError::Transport(message.clone()), 0);
            }
            Target::Other { verb, resource } => {
                let line = Event::Request {
                    client: self.registry.client_name(asked.client),
                    verb,
                    path: path_of(asked.uri),
                    code: 502,
                    bytes: 0,
                    duration: asked.started.elapsed(),
                };
                self.registry
                    .request(asked.client, line, resource.as_deref());
            }
        }
        status(&ApiError::new(502, "BadGateway", message))
    }

    /// The proxy's bearer token, or an open `/version`.
    fn authorized(&self, request: &Request<Incoming>) -> bool {
        let expected = format!("Bearer {}", self.token);
        let sent = request.headers().get(header::AUTHORIZATION);
        sent.is_some_and(|v| v.as_bytes() == expected.as_bytes())
            || (request.uri().path() == "/version" && request.method() == http::Method::GET)
    }

    /// Traces the start of a LIST or WATCH on its stream.
    fn open(&self, client: ClientId, connection: u64, call: Call) -> Target {
        match call {
            Call::List(c, r) => Target::List(self.registry.open_list(client, connection, &c, &r)),
            Call::Watch(c, r) => {
                Target::Watch(self.registry.open_watch(client, connection, &c, &r))
            }
            Call::Other { verb, resource } => Target::Other { verb, resource },
        }
    }

    /// The upstream's answer as the client gets it, its body read by a tap.
    fn relay(
        &self,
        response: Response<kube::client::Body>,
        target: Target,
        asked: &Asked<'_>,
    ) -> Response<ProxyBody> {
        let (mut parts, body) = response.into_parts();
        strip_hop_by_hop(&mut parts.headers);
        let code = parts.status.as_u16();
        let encoding = Encoding::of(
            parts
                .headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            asked.accept,
        );
        let success = parts.status.is_success();
        let reading = match target {
            Target::List(stream) if success => Reading::List {
                stream,
                body: bytes::BytesMut::new(),
            },
            Target::Watch(stream) if success => Reading::Watch {
                stream,
                line: bytes::BytesMut::new(),
            },
            Target::List(stream) | Target::Watch(stream) => Reading::Failed {
                stream,
                code,
                retry_after: retry_after(&parts.headers),
                body: bytes::BytesMut::new(),
            },
            Target::Other { verb, resource } => Reading::Other {
                client: asked.client,
                verb,
                path: asked
                    .uri
                    .path_and_query()
                    .map_or("/", |p| p.as_str())
                    .to_owned(),
                resource,
                code,
            },
        };
        let tap = Tap::new(Arc::clone(&self.registry), reading, encoding, asked.started);
        let body = TapBody::new(body, tap).map_err(|e| Box::new(e) as BoxError);
        Response::from_parts(parts, BodyExt::boxed_unsync(body))
    }
}

/// What the client asked, as the relay needs it.
struct Asked<'a> {
    client: ClientId,
    uri: &'a http::Uri,
    accept: Option<&'a str>,
    started: Instant,
}

/// Where a request's answer goes: an informer stream, or one `request` line.
enum Target {
    List(StreamId),
    Watch(StreamId),
    Other {
        verb: String,
        resource: Option<String>,
    },
}

/// The request kube's client sends upstream: same method, path, query, headers and body,
/// minus the client's credentials and the connection's own headers. A LIST or WATCH asks for
/// an uncompressed answer (the proxy reads it); everything else is asked as the client asked.
fn upstream_request(
    parts: &http::request::Parts,
    call: &Call,
    body: Bytes,
) -> Result<Request<kube::client::Body>, http::Error> {
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut request = Request::builder()
        .method(parts.method.clone())
        .uri(path)
        .body(kube::client::Body::from(body))?;
    let headers = request.headers_mut();
    for (name, value) in &parts.headers {
        headers.append(name.clone(), value.clone());
    }
    strip_hop_by_hop(headers);
    for name in [header::AUTHORIZATION, header::HOST, header::CONTENT_LENGTH] {
        headers.remove(name);
    }
    if !matches!(call, Call::Other { .. }) {
        headers.remove(header::ACCEPT_ENCODING);
    }
    Ok(request)
}

/// A request's path and query, as its `request` line shows it.
fn path_of(uri: &http::Uri) -> String {
    uri.path_and_query().map_or("/", |p| p.as_str()).to_owned()
}

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    for name in HOP_BY_HOP {
        headers.remove(HeaderName::from_static(name));
    }
}

/// `Retry-After: N` (seconds), as an answer carries it.
fn retry_after(headers: &HeaderMap) -> Option<std::time::Duration> {
    let seconds = headers
        .get(header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(std::time::Duration::from_secs(seconds))
}

/// The request body, whole: a broken one is 400, one over [`MAX_REQUEST_BODY`] is 413 once
/// read to its end (up to four times the limit), so that the client, still sending, reads the
/// answer instead of a reset connection.
async fn read_body(mut body: Incoming) -> Result<Bytes, ApiError> {
    let mut kept = bytes::BytesMut::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame
            .map_err(|e| ApiError::bad_request(format!("cannot read the request body: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len();
        if total <= MAX_REQUEST_BODY {
            kept.extend_from_slice(&data);
        } else if total > 4 * MAX_REQUEST_BODY {
            break;
        }
    }
    if total > MAX_REQUEST_BODY {
        return Err(ApiError::new(
            413,
            "RequestEntityTooLarge",
            format!("the request body is larger than {MAX_REQUEST_BODY} bytes"),
        ));
    }
    Ok(kept.freeze())
}

/// A Kubernetes `Status` answer of the proxy's own, in kube-apiserver's bytes (Go field order, a
/// trailing newline).
pub fn status(error: &ApiError) -> Response<ProxyBody> {
    let body = Full::new(Bytes::from(format!("{}\n", error.status_json())))
        .map_err(|never| match never {})
        .boxed_unsync();
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(error.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
