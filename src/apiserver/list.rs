//! LIST: selectors, `limit` + `continue` over a consistent snapshot, resourceVersion /
//! resourceVersionMatch semantics, and responses built by concatenating stored object bytes.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;

use super::resources::ResourceType;
use super::selector::Selection;
use super::server::{App, Representation, ResourceRequest};
use super::status::{ApiError, json_response};
use super::store::{ListQuery, StoredObject};
use super::table;

/// Where a list starts: snapshot resourceVersion and continue key.
struct ListStart {
    at: Option<u64>,
    after: Option<String>,
}

/// Message kube-apiserver gives for an expired continue token.
const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// Serves a LIST request.
pub fn serve(app: &App, request: &ResourceRequest) -> Result<Response, ApiError> {
    let selection = Selection::from_request(request)?;
    let start = list_start(request)?;
    let limit = parse_limit(request)?;
    let filter = |object: &StoredObject| selection.matches(object);
    let query = ListQuery {
        namespace: selection.namespace(),
        at: start.at,
        after: start.after.as_deref(),
        limit,
        filter: &filter,
    };
    let page = app
        .store
        .list(&request.resource.key(), &query)
        .map_err(|e| {
            if start.after.is_some() {
                ApiError::expired(CONTINUE_EXPIRED)
            } else {
                e
            }
        })?;
    let token = page
        .continue_after
        .as_deref()
        .map(|key| encode_continue(page.rv, key));
    let body = match request.representation {
        Representation::Table => {
            let objects: Vec<&StoredObject> = page.items.iter().map(Arc::as_ref).collect();
            table::render(&request.resource, &objects, page.rv, token.as_deref())
        }
        representation => render_list(
            &request.resource,
            representation,
            &page.items,
            page.rv,
            token.as_deref(),
        ),
    };
    Ok(json_response(StatusCode::OK, body))
}

fn parse_limit(request: &ResourceRequest) -> Result<Option<usize>, ApiError> {
    request
        .param("limit")
        .map(|l| {
            l.parse::<usize>()
                .map_err(|_| ApiError::bad_request(format!("invalid limit {l:?}")))
        })
        .transpose()
}

/// Parses a resourceVersion parameter.
pub fn parse_rv(text: &str) -> Result<u64, ApiError> {
    text.parse::<u64>()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: {text:?}")))
}

fn list_start(request: &ResourceRequest) -> Result<ListStart, ApiError> {
    if let Some(token) = request.param("continue") {
        let (at, after) = decode_continue(token)?;
        return Ok(ListStart {
            at: Some(at),
            after: Some(after),
        });
    }
    let rv = request.param("resourceVersion");
    let exact = match request.param("resourceVersionMatch") {
        None | Some("NotOlderThan") => false,
        Some("Exact") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "resourceVersionMatch: Unsupported value: {other:?}: supported values: \"Exact\", \"NotOlderThan\""
            )));
        }
    };
    let at = match rv {
        Some(text) => Some(parse_rv(text)?).filter(|_| exact),
        None if exact => {
            return Err(ApiError::bad_request(
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        None => None,
    };
    Ok(ListStart { at, after: None })
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

/// `{"kind":"XList",...,"items":[...]}` from stored bytes.
pub fn render_list(
    resource: &ResourceType,
    representation: Representation,
    items: &[Arc<StoredObject>],
    rv: u64,
    continue_token: Option<&str>,
) -> Bytes {
    let (kind, api_version) = match representation {
        Representation::Metadata => (
            "PartialObjectMetadataList".to_owned(),
            "meta.k8s.io/v1".to_owned(),
        ),
        _ => (resource.list_kind.clone(), resource.api_version()),
    };
    let item_bytes: Vec<Bytes> = items
        .iter()
        .map(|o| object_bytes(representation, o))
        .collect();
    let size = item_bytes.iter().map(|b| b.len() + 1).sum::<usize>() + 256;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(format!(r#"{{"kind":"{kind}","apiVersion":"{api_version}","metadata":{{"resourceVersion":"{rv}""#).as_bytes());
    if let Some(token) = continue_token {
        out.extend_from_slice(format!(r#","continue":"{token}""#).as_bytes());
    }
    out.extend_from_slice(br#"},"items":["#);
    for (i, bytes) in item_bytes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(bytes);
    }
    out.extend_from_slice(b"]}");
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip() {
        let token = encode_continue(42, "default/web-1");
        assert!(decode_continue(&token).is_ok_and(|(rv, key)| rv == 42 && key == "default/web-1"));
        for bad in ["zz", "abc", "3a", "ff"] {
            assert!(decode_continue(bad).is_err_and(|e| e.code == 400), "{bad}");
        }
    }
}
