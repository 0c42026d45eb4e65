//! `/openapi/v2` as kube-apiserver serves it: the captured static document with every served
//! custom resource's definitions and paths merged in (as the CRD OpenAPI controller merges
//! them, apiextensions-apiserver pkg/controller/openapi/controller.go:244-267), rebuilt when
//! the CRDs change. Served by kube-openapi's handler rules
//! (k8s.io/kube-openapi/pkg/handler/handler.go:48-53, 129-182): JSON or gnostic protobuf by
//! `Accept` (406 for anything else), `ETag` the quoted upper-case hex SHA-512 of the JSON
//! (the protobuf form shares it), `Last-Modified` when the document was built, and a
//! matching `If-None-Match` answered `304 Not Modified` (Go's `http.ServeContent`).

use std::sync::{Arc, LazyLock, Mutex};

use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};

use super::crd_v2;
use super::gnostic;
use super::schema_v2::Texts;
use super::splice::{self, DocumentIndex};
use crate::openapi_data;
use crate::resources::Registry;

/// The media type of the JSON document.
const JSON: &str = "application/json";
/// The protobuf media type kube-apiserver answers with.
const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
/// The subtypes kube-openapi accepts, in its order (handler.go:43-45, 136-138).
const SUBTYPES: &[(&str, Format)] = &[
    ("json", Format::Json),
    (
        "com.github.proto-openapi.spec.v2@v1.0+protobuf",
        Format::Protobuf,
    ),
    (
        "com.github.proto-openapi.spec.v2.v1.0+protobuf",
        Format::Protobuf,
    ),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Json,
    Protobuf,
}

/// The captured document, its index and the texts the CRD builder takes from it.
struct Static {
    bytes: Bytes,
    index: DocumentIndex,
    texts: Option<Texts>,
}

static STATIC: LazyLock<Static> = LazyLock::new(|| {
    let bytes = openapi_data::v2();
    let index = splice::index(&bytes).unwrap_or_default();
    let texts = Texts::from_document(&bytes, &index);
    Static {
        bytes,
        index,
        texts,
    }
});

/// One built document: the CRD members it was built from, its JSON, ETag, build time and
/// (made on first request) protobuf.
struct Built {
    members: Vec<(String, String)>,
    json: Bytes,
    etag: String,
    last_modified: String,
    protobuf: Mutex<Option<Bytes>>,
}

static CURRENT: Mutex<Option<Arc<Built>>> = Mutex::new(None);

/// The document for the registry's CRDs: the last one built when they are unchanged.
fn current(registry: &Registry) -> Arc<Built> {
    let (paths, definitions) = crd_members(registry);
    let members: Vec<(String, String)> = paths.iter().chain(&definitions).cloned().collect();
    let mut cached = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(built) = cached.as_ref().filter(|b| b.members == members) {
        return built.clone();
    }
    let json = if members.is_empty() {
        STATIC.bytes.clone()
    } else {
        Bytes::from(splice::splice(
            &STATIC.bytes,
            &STATIC.index,
            &paths,
            &definitions,
        ))
    };
    let built = Arc::new(Built {
        members,
        etag: etag(&json),
        json,
        last_modified: http_date(jiff::Timestamp::now()),
        protobuf: Mutex::new(None),
    });
    *cached = Some(built.clone());
    built
}

/// Every served custom resource's paths and definitions.
type Members = Vec<(String, String)>;
fn crd_members(registry: &Registry) -> (Members, Members) {
    let (mut paths, mut definitions) = (Vec::new(), Vec::new());
    let Some(texts) = STATIC.texts.as_ref() else {
        return (paths, definitions);
    };
    let mut resources: Vec<_> = registry.all().into_iter().filter(|r| r.custom).collect();
    resources.sort_by(|a, b| (&a.group, &a.plural).cmp(&(&b.group, &b.plural)));
    for resource in resources {
        let parts = crd_v2::build(&resource, texts);
        paths.extend(parts.paths);
        definitions.extend(parts.definitions);
    }
    (paths, definitions)
}

/// The quoted upper-case hex SHA-512 (handler.go:48-53, 171).
fn etag(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA512, bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

/// An HTTP date (`Fri, 27 Nov 2026 05:50:26 GMT`).
fn http_date(time: jiff::Timestamp) -> String {
    time.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// `GET /openapi/v2`.
pub fn serve(registry: &Registry, headers: &HeaderMap) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .unwrap_or("*/*");
    let Some(format) = negotiate(accept) else {
        return respond(StatusCode::NOT_ACCEPTABLE, Bytes::new(), None);
    };
    let built = current(registry);
    let (body, content_type) = match format {
        Format::Json => (built.json.clone(), JSON),
        Format::Protobuf => (protobuf(&built), PROTOBUF),
    };
    let mut response = if matches_etag(headers, &built.etag) {
        respond(StatusCode::NOT_MODIFIED, Bytes::new(), None)
    } else {
        respond(StatusCode::OK, body, Some(content_type))
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::ETAG, built.etag.as_str()),
        (header::LAST_MODIFIED, built.last_modified.as_str()),
    ] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// The built document's protobuf form, encoded once.
fn protobuf(built: &Built) -> Bytes {
    let mut cached = built.protobuf.lock().unwrap_or_else(|e| e.into_inner());
    cached
        .get_or_insert_with(|| Bytes::from(gnostic::encode_json(&built.json).unwrap_or_default()))
        .clone()
}

/// Whether `If-None-Match` names the ETag (or is `*`), as `http.ServeContent` checks it.
fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

/// The format the first acceptable `Accept` clause names, clauses in goautoneg's order: by
/// quality, then the more specific first (github.com/munnerz/goautoneg `ParseAccept`).
fn negotiate(accept: &str) -> Option<Format> {
    let mut clauses: Vec<(f32, u8, &str, &str)> = accept
        .split(',')
        .filter_map(|clause| {
            let mut parts = clause.split(';');
            let media = parts.next()?.trim();
            let (kind, subtype) = media.split_once('/').unwrap_or((media, "*"));
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            let specificity = u8::from(kind != "*") + u8::from(subtype != "*");
            (quality > 0.0).then_some((quality, specificity, kind, subtype))
        })
        .collect();
    clauses.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    clauses.iter().find_map(|(_, _, kind, subtype)| {
        if *kind != "application" && *kind != "*" {
            return None;
        }
        SUBTYPES
            .iter()
            .find(|(s, _)| subtype == s || *subtype == "*")
            .map(|(_, format)| *format)
    })
}

/// A response with kube-apiserver's OpenAPI v2 headers.
fn respond(status: StatusCode, body: Bytes, content_type: Option<&'static str>) -> Response {
    let mut response = Response::new(axum::body::Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(content_type) = content_type {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_picks_json_protobuf_or_nothing_as_kube_openapi_does() {
        assert_eq!(negotiate("*/*"), Some(Format::Json));
        assert_eq!(negotiate("application/json"), Some(Format::Json));
        assert_eq!(
            negotiate("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"),
            Some(Format::Protobuf)
        );
        assert_eq!(
            negotiate(
                "application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
            ),
            Some(Format::Protobuf)
        );
        assert_eq!(negotiate("text/html"), None);
        assert_eq!(negotiate("application/yaml"), None);
    }

    #[test]
    fn the_static_document_is_indexed_and_its_texts_found() {
        assert!(
            STATIC
                .index
                .paths
                .contains("/api/v1/namespaces/{namespace}/configmaps")
        );
        assert!(STATIC.texts.is_some());
    }

    /// The Gadget CRD of the conformance corpus, and what kube-apiserver 1.37.2 published for
    /// it: its paths and definitions byte for byte (tests/data/openapi_v2, cut out of the real
    /// `/openapi/v2` captured from `scripts/refserver` with only that CRD created) and the
    /// whole document's ETag (SHA-512 of its JSON).
    const GADGET_CRD: &str = include_str!("../../tests/data/openapi_v2/gadget-crd.json");
    const GADGET_MEMBERS: &str = include_str!("../../tests/data/openapi_v2/gadget-members.json");
    const GADGET_ETAG: &str = "\"68C7535AD38B03F771C08511303E3B64D28A7C0D5F8229FBB5FBE28785EE2DEC1CA568CC24CA574F882ED8DBCE65B5E1A575BF95434497F5C53C82678AEB2128\"";
    /// The SHA-512 of kube-apiserver's protobuf `/openapi/v2` (gnostic, deterministic) without
    /// and with the Gadget CRD.
    const STATIC_PROTOBUF_SHA512: &str = "9f563f75a668c5ca04287324be2bcff87f3000afe9e68459d7c033c089fe68452070c0ce5d3514e1642c0d8cd92e7079ef57b5dbf22c34e752a0c52af04e79f4";
    const GADGET_PROTOBUF_SHA512: &str = "4732b78de5cffb264eec889bed06ffece1dc6367525a1a45617a59526fc2ab00bcec3899fbcfdabc205127ff00e2f37763de3ac45c31c81ba4f024977c5a9296";

    fn gadget_registry() -> Registry {
        let crd: serde_json::Value = serde_json::from_str(GADGET_CRD).unwrap();
        let mut registry = Registry::with_builtins();
        registry.insert(crate::resources::from_crd(&crd).unwrap());
        registry
    }

    fn sha512_hex(bytes: &[u8]) -> String {
        let digest = ring::digest::digest(&ring::digest::SHA512, bytes);
        digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn a_crd_s_paths_and_definitions_are_the_real_server_s_byte_for_byte() {
        let (paths, definitions) = crd_members(&gadget_registry());
        let ours: Vec<String> = paths
            .iter()
            .chain(&definitions)
            .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
            .collect();
        let theirs = GADGET_MEMBERS.trim();
        let theirs = &theirs[1..theirs.len() - 1];
        let mut ours = ours;
        ours.sort();
        assert_eq!(ours.join(","), theirs);
    }

    #[test]
    fn the_merged_document_is_the_real_server_s_byte_for_byte() {
        let built = current(&gadget_registry());
        assert_eq!(built.etag, GADGET_ETAG);
    }

    #[test]
    fn the_protobuf_documents_are_the_real_server_s_byte_for_byte() {
        let empty = Registry::with_builtins();
        assert_eq!(
            sha512_hex(&protobuf(&current(&empty))),
            STATIC_PROTOBUF_SHA512
        );
        assert_eq!(
            sha512_hex(&protobuf(&current(&gadget_registry()))),
            GADGET_PROTOBUF_SHA512
        );
    }

    #[test]
    fn every_shared_parameter_the_crd_routes_name_is_in_the_captured_document() {
        let document: serde_json::Value = serde_json::from_slice(&STATIC.bytes).unwrap();
        for name in crd_v2::shared_parameters() {
            assert!(document["parameters"][name].is_object(), "{name}");
        }
    }
}
