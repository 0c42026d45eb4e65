//! LIST: selectors, `limit` + `continue` over a consistent snapshot, resourceVersion /
//! resourceVersionMatch semantics, and responses built by concatenating stored object bytes.

use std::sync::Arc;

use std::convert::Infallible;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use http::StatusCode;

use super::app::{App, Media, Representation, ResourceRequest};
use super::list_options;
use super::objects::StoredObject;
use super::protobuf;
use super::resources::ResourceType;
use super::selector::Selection;
use super::status::{ApiError, json_response};
use super::store::ListQuery;
use super::table;

/// How a LIST reads, after kube-apiserver's "Semantics for list" table.
#[derive(Debug, PartialEq)]
enum ListRead {
    /// resourceVersion unset: the most recent state (a consistent read), paged with `limit`.
    MostRecent,
    /// resourceVersion "0": any state. The watch cache serves the current one in a single
    /// page; without it, the most recent state is paged as etcd does.
    Any,
    /// resourceVersion N (match unset without `limit`, or `NotOlderThan`): the current state
    /// once the server has reached N.
    NotOlderThan(u64),
    /// resourceVersion N with `limit` and match unset, or `resourceVersionMatch=Exact`: the
    /// state at exactly N.
    Exact(u64),
    /// A continue token: the rest of the list at the token's resourceVersion.
    Continue(u64, String),
}

/// Message kube-apiserver gives for an exact read of a compacted resourceVersion.
const LIST_EXPIRED: &str = "The resourceVersion for the provided list is too old.";

/// Message kube-apiserver gives for an expired continue token.
const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// Serves a LIST request.
pub async fn serve(app: &App, request: &ResourceRequest) -> Result<Response, ApiError> {
    let table_options = table::Options::of(request)?;
    let selection = Selection::from_request(request)?;
    let mut limit = parse_limit(request)?;
    let read = list_read(request, limit.is_some())?;
    let (at, after) = match read {
        ListRead::MostRecent => (None, None),
        ListRead::Any => {
            if app.watch_cache {
                limit = None;
            }
            (None, None)
        }
        ListRead::NotOlderThan(rv) => {
            wait_until_fresh(app, rv).await?;
            (None, None)
        }
        ListRead::Exact(rv) => {
            let current = app.store.resource_version();
            if rv > current {
                return Err(ApiError::too_large_resource_version(rv, current));
            }
            (Some(rv), None)
        }
        ListRead::Continue(rv, key) => {
            // With resourceVersion "0" the watch cache ignores the limit of a continued list
            // too (computeListLimit, cacher.go apiserver v0.37.2:740-745).
            if app.watch_cache && request.param("resourceVersion") == Some("0") {
                limit = None;
            }
            // A token at resourceVersion 0 (an expired token's fresh one) goes on at the latest.
            (Some(rv).filter(|rv| *rv > 0), Some(key))
        }
    };
    let filter = |object: &StoredObject| selection.matches(object);
    let query = ListQuery {
        namespace: selection.namespace(),
        at,
        after: after.as_deref(),
        limit,
        filter: &filter,
        // kube-apiserver counts what follows a page only for a list without selectors.
        count_remaining: ["labelSelector", "fieldSelector"]
            .iter()
            .all(|p| request.param(p).is_none_or(str::is_empty)),
    };
    let page = app
        .store
        .list(&request.resource.key(), &query)
        .map_err(|e| match (e.code, &after) {
            (410, Some(key)) => expired_continue(key),
            (410, None) => ApiError::expired(LIST_EXPIRED),
            _ => e,
        })?;
    let token = page
        .continue_after
        .as_deref()
        .map(|key| encode_continue(page.rv, key));
    let meta = ListMeta {
        rv: page.rv,
        continue_token: token.as_deref(),
        remaining: page.remaining.filter(|_| token.is_some()),
    };
    if request.media == Media::Protobuf
        && request.representation == Representation::Object
        && let Some(body) = protobuf_list(&request.resource, &page.items, meta)
    {
        let mut response = json_response(StatusCode::OK, body);
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(protobuf::MEDIA_TYPE),
        );
        return Ok(response);
    }
    let body = match request.representation {
        Representation::Table => {
            let objects: Vec<&StoredObject> = page.items.iter().map(Arc::as_ref).collect();
            Body::from(table::render(
                &request.resource,
                &table_options,
                &objects,
                page.rv,
                token.as_deref(),
            ))
        }
        representation => render_list(&request.resource, representation, page.items, meta),
    };
    Ok(json_response(StatusCode::OK, body))
}

/// The 410 of a continue token whose resourceVersion is gone, with a fresh token that goes on
/// after the same key at the latest state (an inconsistent list, as its message says), as
/// kube-apiserver's etcd store answers (`handleCompactedErrorForPaging`, etcd3/errors.go
/// apiserver v0.37.2:77-89: a token at resourceVersion -1, this server's at 0).
fn expired_continue(after: &str) -> ApiError {
    let mut error = ApiError::expired(CONTINUE_EXPIRED);
    error.continue_token = Some(encode_continue(0, after));
    error
}

/// A list in protobuf, from each item's message (written once per stored object and kept),
/// in chunks of about [`CHUNK_BYTES`]; None when the kind has no message.
fn protobuf_list(
    resource: &ResourceType,
    items: &[Arc<StoredObject>],
    meta: ListMeta<'_>,
) -> Option<Body> {
    let messages: Vec<Bytes> = items
        .iter()
        .map(|object| object.protobuf().cloned())
        .collect::<Option<_>>()?;
    let mut list_meta = serde_json::Map::new();
    list_meta.insert("resourceVersion".into(), meta.rv.to_string().into());
    if let Some(token) = meta.continue_token {
        list_meta.insert("continue".into(), token.into());
    }
    if let Some(count) = meta.remaining {
        list_meta.insert("remainingItemCount".into(), count.into());
    }
    let parts = protobuf::encode::list(
        &resource.api_version(),
        &resource.list_kind,
        &serde_json::Value::Object(list_meta),
        &messages,
    )
    .ok()?;
    let mut chunks = Vec::new();
    let mut chunk = Vec::with_capacity(CHUNK_BYTES + CHUNK_SLACK);
    for part in parts {
        chunk.extend_from_slice(&part);
        if chunk.len() >= CHUNK_BYTES {
            chunks.push(Bytes::from(std::mem::replace(
                &mut chunk,
                Vec::with_capacity(CHUNK_BYTES + CHUNK_SLACK),
            )));
        }
    }
    chunks.push(Bytes::from(chunk));
    Some(Body::from_stream(stream::iter(
        chunks.into_iter().map(Ok::<Bytes, Infallible>),
    )))
}

/// Waits (up to the server's `resource_version_wait`) until the store reached `rv`; 504
/// "Too large resource version" if it did not, as kube-apiserver's watch cache answers.
pub async fn wait_until_fresh(app: &App, rv: u64) -> Result<(), ApiError> {
    if app
        .store
        .wait_until_fresh(rv, app.resource_version_wait)
        .await
    {
        return Ok(());
    }
    Err(ApiError::too_large_resource_version(
        rv,
        app.store.resource_version(),
    ))
}

fn parse_limit(request: &ResourceRequest) -> Result<Option<usize>, ApiError> {
    let limit = request.integer("limit")?;
    Ok(limit
        .and_then(|l| usize::try_from(l).ok())
        .filter(|l| *l > 0))
}

/// Parses a resourceVersion parameter.
pub fn parse_rv(text: &str) -> Result<u64, ApiError> {
    parse_uint(text)
        .map_err(|why| ApiError::bad_request(format!("invalid resource version: {why}")))
}

/// A watch's resourceVersion: kube-apiserver's watch path answers one that is no number with a
/// 500 and no reason (the storage layer's error, not the request's validation).
pub fn parse_watch_rv(text: &str) -> Result<u64, ApiError> {
    parse_uint(text).map_err(|why| ApiError::new(500, "", why))
}

/// `text` as Go's `strconv.ParseUint(text, 10, 64)` reads it, or the field error
/// apimachinery's storage makes of its failure.
fn parse_uint(text: &str) -> Result<u64, String> {
    text.parse::<u64>().map_err(|e| {
        let why = match e.kind() {
            std::num::IntErrorKind::PosOverflow => "value out of range",
            _ => "invalid syntax",
        };
        format!(
            "resourceVersion: Invalid value: {text:?}: strconv.ParseUint: parsing {text:?}: {why}"
        )
    })
}

fn list_read(request: &ResourceRequest, has_limit: bool) -> Result<ListRead, ApiError> {
    let rv = request.param("resourceVersion");
    let token = request.param("continue");
    let matching = request.param("resourceVersionMatch");
    list_options::validate(request, false)?;
    if let Some(token) = token {
        let (at, after) = decode_continue(token)?;
        if rv.is_some_and(|rv| rv != "0") {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        return Ok(ListRead::Continue(at, after));
    }
    let Some(rv) = rv.map(parse_rv).transpose()? else {
        return Ok(ListRead::MostRecent);
    };
    Ok(match (rv, matching) {
        (0, _) => ListRead::Any,
        (rv, Some("Exact")) => ListRead::Exact(rv),
        (rv, Some(_)) => ListRead::NotOlderThan(rv),
        (rv, None) if has_limit => ListRead::Exact(rv),
        (rv, None) => ListRead::NotOlderThan(rv),
    })
}

/// Continue token: hex of `RV:KEY`.
pub fn encode_continue(rv: u64, key: &str) -> String {
    format!("{rv}:{key}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Inverse of [`encode_continue`]; 400 when malformed.
pub fn decode_continue(token: &str) -> Result<(u64, String), ApiError> {
    let invalid = || ApiError::bad_request(format!("invalid continue token {token:?}"));
    if !token.len().is_multiple_of(2) || !token.is_ascii() {
        return Err(invalid());
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let (rv, key) = text.split_once(':').ok_or_else(invalid)?;
    Ok((rv.parse().map_err(|_| invalid())?, key.to_owned()))
}

/// The bytes of one object in the requested representation.
pub fn object_bytes(representation: Representation, object: &StoredObject) -> Bytes {
    match representation {
        Representation::Metadata => object.metadata_only().clone(),
        _ => object.bytes.clone(),
    }
}

/// Size of the chunks a list body is streamed in.
const CHUNK_BYTES: usize = 256 * 1024;

/// What a chunk is allocated with beyond [`CHUNK_BYTES`]: its last object ends past it.
const CHUNK_SLACK: usize = 16 * 1024;

/// A list's `metadata` (ListMeta, in Go's field order).
#[derive(Debug, Clone, Copy)]
pub struct ListMeta<'a> {
    /// `resourceVersion`.
    pub rv: u64,
    /// `continue`.
    pub continue_token: Option<&'a str>,
    /// `remainingItemCount`.
    pub remaining: Option<usize>,
}

/// `{"kind":"XList",...,"items":[...]}` streamed in chunks built from the stored bytes (no
/// re-serialisation, and no copy of the whole list in memory at once).
pub fn render_list(
    resource: &ResourceType,
    representation: Representation,
    items: Vec<Arc<StoredObject>>,
    meta: ListMeta<'_>,
) -> Body {
    let ListMeta {
        rv,
        continue_token,
        remaining,
    } = meta;
    let (kind, api_version) = match representation {
        Representation::Metadata => (
            "PartialObjectMetadataList".to_owned(),
            "meta.k8s.io/v1".to_owned(),
        ),
        _ => (resource.list_kind.clone(), resource.api_version()),
    };
    let unstructured = resource.custom && representation != Representation::Metadata;
    let (head, tail) = if unstructured {
        // An UnstructuredList: its keys sorted, and `continue` always set (apimachinery
        // `unstructured_list.go:184` `SetContinue` writes even an empty token).
        let mut meta = format!(r#"{{"continue":"{}""#, continue_token.unwrap_or(""));
        if let Some(count) = remaining {
            meta.push_str(&format!(r#","remainingItemCount":{count}"#));
        }
        meta.push_str(&format!(r#","resourceVersion":"{rv}"}}"#));
        (
            format!(r#"{{"apiVersion":"{api_version}","items":["#),
            format!(r#"],"kind":"{kind}","metadata":{meta}}}"#),
        )
    } else {
        let mut head = format!(
            r#"{{"kind":"{kind}","apiVersion":"{api_version}","metadata":{{"resourceVersion":"{rv}""#
        );
        if let Some(token) = continue_token {
            head.push_str(&format!(r#","continue":"{token}""#));
        }
        if let Some(count) = remaining {
            head.push_str(&format!(r#","remainingItemCount":{count}"#));
        }
        head.push_str(r#"},"items":["#);
        (head, "]}".to_owned())
    };
    let chunks = ListChunks {
        pending: head.into_bytes(),
        tail: tail.into_bytes(),
        items: items.into_iter(),
        representation,
        item_type_meta: resource.custom,
        first: true,
        finished: false,
    };
    Body::from_stream(stream::iter(chunks.map(Ok::<Bytes, Infallible>)))
}

/// The chunks of a list body.
struct ListChunks {
    pending: Vec<u8>,
    /// What closes the list after its items.
    tail: Vec<u8>,
    items: std::vec::IntoIter<Arc<StoredObject>>,
    representation: Representation,
    /// Whether items keep `kind` and `apiVersion` (custom resources, served unstructured);
    /// kube-apiserver leaves them out of built-in types' items.
    item_type_meta: bool,
    first: bool,
    finished: bool,
}

impl Iterator for ListChunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        if self.finished {
            return None;
        }
        let mut chunk = std::mem::take(&mut self.pending);
        // Room for the chunk and the usual last object, so it is not copied as it grows.
        chunk.reserve(CHUNK_BYTES + CHUNK_SLACK);
        while chunk.len() < CHUNK_BYTES {
            let Some(object) = self.items.next() else {
                chunk.extend_from_slice(&self.tail);
                self.finished = true;
                break;
            };
            if !self.first {
                chunk.push(b',');
            }
            self.first = false;
            match self.representation {
                Representation::Object if !self.item_type_meta => {
                    object.write_list_item(&mut chunk);
                }
                representation => chunk.extend_from_slice(&object_bytes(representation, &object)),
            }
        }
        Some(Bytes::from(chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A custom resource's list is an UnstructuredList: keys sorted, `continue` always there.
    #[test]
    fn a_custom_resource_list_is_written_as_kube_writes_unstructured_lists() {
        let registry = super::super::resources::Registry::with_builtins();
        let Some(configmaps) = registry.find("", "v1", "configmaps") else {
            panic!("configmaps are built in");
        };
        let mut widgets = (*configmaps).clone();
        widgets.custom = true;
        widgets.list_kind = "WidgetList".into();
        let meta = ListMeta {
            rv: 7,
            continue_token: None,
            remaining: None,
        };
        let body = render_list(&widgets, Representation::Object, Vec::new(), meta);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let bytes = runtime
            .block_on(axum::body::to_bytes(body, usize::MAX))
            .expect("the body");
        assert_eq!(
            std::str::from_utf8(&bytes).expect("utf-8"),
            r#"{"apiVersion":"v1","items":[],"kind":"WidgetList","metadata":{"continue":"","resourceVersion":"7"}}"#
        );
    }

    #[test]
    fn list_chunks_concatenate_to_valid_json() {
        let registry = super::super::resources::Registry::with_builtins();
        let Some(resource) = registry.find("", "v1", "configmaps") else {
            panic!("configmaps are built in");
        };
        let objects: Vec<Arc<StoredObject>> = (0..300)
            .filter_map(|i| {
                let value = serde_json::json!({"metadata": {"name": format!("c{i}")}, "data": {"k": "x".repeat(2_000)}});
                StoredObject::new(&value, &resource, 1).ok().map(Arc::new)
            })
            .collect();
        for count in [0, 1, 300] {
            let chunks = ListChunks {
                pending: b"{\"items\":[".to_vec(),
                tail: b"]}".to_vec(),
                items: objects
                    .iter()
                    .take(count)
                    .cloned()
                    .collect::<Vec<_>>()
                    .into_iter(),
                representation: Representation::Object,
                item_type_meta: false,
                first: true,
                finished: false,
            };
            let body: Vec<u8> = chunks.flat_map(|c| c.to_vec()).collect();
            let parsed: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            assert_eq!(parsed["items"].as_array().map(Vec::len), Some(count));
        }
    }

    #[test]
    fn continue_tokens_round_trip() {
        let token = encode_continue(42, "default/web-1");
        assert!(decode_continue(&token).is_ok_and(|(rv, key)| rv == 42 && key == "default/web-1"));
        for bad in ["zz", "abc", "3a", "ff"] {
            assert!(decode_continue(bad).is_err_and(|e| e.code == 400), "{bad}");
        }
    }
}
