//! The real kube-apiserver's OpenAPI documents, captured by `scripts/openapi-capture` into
//! `openapi/<release>/` and embedded zstd-compressed: each document is decompressed the first
//! time it is asked for and kept (its bytes for serving, its parsed form for field validation).

use std::sync::{Arc, LazyLock, OnceLock};

use bytes::Bytes;
use serde_json::Value;

/// The release the documents were captured from.
pub const RELEASE: &str = "v1.37.2";

/// Every `/openapi/v3/<path>` document: path, the real server's hash, compressed bytes.
static V3: &[(&str, &str, &[u8])] = include!("../openapi/v1.37.2/documents.rs");

/// `/openapi/v2` as JSON.
static V2: &[u8] = include_bytes!("../openapi/v1.37.2/v2.json.zst");

/// One captured document, decompressed on first use.
struct Cached {
    bytes: OnceLock<Bytes>,
    parsed: OnceLock<Option<Arc<Value>>>,
}

static CACHE: LazyLock<Vec<Cached>> = LazyLock::new(|| {
    (0..=V3.len())
        .map(|_| Cached {
            bytes: OnceLock::new(),
            parsed: OnceLock::new(),
        })
        .collect()
});

/// Decompresses an embedded document (the capture script wrote it; a failure is a build bug).
fn decompress(compressed: &[u8]) -> Bytes {
    Bytes::from(zstd::decode_all(compressed).expect("embedded OpenAPI document decompresses"))
}

/// A captured v3 document: its hash and bytes (None when the capture has no such path).
pub fn v3(path: &str) -> Option<(&'static str, Bytes)> {
    let index = V3.iter().position(|(p, _, _)| *p == path)?;
    let (_, hash, compressed) = V3[index];
    let bytes = CACHE[index].bytes.get_or_init(|| decompress(compressed));
    Some((hash, bytes.clone()))
}

/// A captured v3 document, parsed (None when absent).
pub fn v3_parsed(path: &str) -> Option<Arc<Value>> {
    let index = V3.iter().position(|(p, _, _)| *p == path)?;
    CACHE[index]
        .parsed
        .get_or_init(|| {
            let (_, bytes) = v3(path)?;
            serde_json::from_slice(&bytes).ok().map(Arc::new)
        })
        .clone()
}

/// A captured v3 document, parsed and kept for the process' life (None when absent).
pub fn v3_static(path: &str) -> Option<&'static Value> {
    let index = V3.iter().position(|(p, _, _)| *p == path)?;
    v3_parsed(path)?;
    CACHE[index].parsed.get()?.as_deref()
}

/// The captured `/openapi/v3` paths that are not an API group or group version (`api`, `apis`,
/// `version`, `.well-known/openid-configuration`, …), with their hashes.
pub fn v3_other_paths() -> impl Iterator<Item = (&'static str, &'static str)> {
    V3.iter()
        .filter(|(path, _, _)| !path.starts_with("api/") && !path.starts_with("apis/"))
        .map(|(path, hash, _)| (*path, *hash))
}

/// `/openapi/v2` (JSON), decompressed on first use.
pub fn v2() -> Bytes {
    CACHE[V3.len()].bytes.get_or_init(|| decompress(V2)).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_captured_document_decompresses_to_json() {
        for (path, hash, _) in V3 {
            let (served_hash, bytes) = v3(path).unwrap();
            assert_eq!(served_hash, *hash);
            assert!(serde_json::from_slice::<Value>(&bytes).is_ok(), "{path}");
        }
        assert!(v2().starts_with(b"{"));
    }

    #[test]
    fn the_core_document_has_the_pod_schema() {
        let core = v3_parsed("api/v1").unwrap();
        assert!(core["components"]["schemas"]["io.k8s.api.core.v1.Pod"].is_object());
    }
}
