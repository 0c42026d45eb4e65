//! `--index NAME=field:PATH` checked against the resource's schema before the informer starts,
//! so a misspelt path (`spec.nodename`) is refused with a did-you-mean instead of giving an
//! empty index.
//!
//! The schema is the server's OpenAPI v3: the `/openapi/v3` index names one document per group
//! version, and in it the schema whose `x-kubernetes-group-version-kind` is the resource's kind
//! (built-ins and CRDs alike). A path is walked through `$ref`s and `allOf`, arrays (their
//! `items`: arrays fan out), maps (`additionalProperties`: any key) and
//! `x-kubernetes-preserve-unknown-fields` (anything below). A server that publishes no schema
//! for the kind leaves the path checked for syntax only.

use serde_json::Value;

use crate::informer::store::IndexFunc;

use super::args::IndexDef;
use super::exit::CliError;
use super::resolve::ResolvedResource;

/// How many `$ref`/`allOf` hops one schema may take (a cycle stops there).
const MAX_HOPS: usize = 32;

/// Refuses (exit 2) a `field:` index whose path none of `resources` has, when the server
/// publishes their schemas; fetches one document per resource, only when such an index exists.
pub async fn check_index_paths(
    client: &kube::Client,
    resources: &[ResolvedResource],
    indexes: &[IndexDef],
) -> Result<(), CliError> {
    let fields: Vec<(&IndexDef, &[String])> = indexes
        .iter()
        .filter_map(|d| match &d.func {
            IndexFunc::Field(path) => Some((d, path.as_slice())),
            _ => None,
        })
        .collect();
    if fields.is_empty() {
        return Ok(());
    }
    let index = get_json(client, "/openapi/v3").await;
    let mut schemas = Vec::new();
    for resource in resources {
        let document = match &index {
            Some(index) => document_of(client, index, resource).await,
            None => None,
        };
        match document {
            Some(document) => schemas.push((resource, document)),
            None => tracing::info!(
                "the server publishes no OpenAPI v3 schema for {}: --index paths are checked for syntax only",
                resource.label()
            ),
        }
    }
    for (def, path) in fields {
        let misses: Vec<String> = schemas
            .iter()
            .filter_map(|(resource, document)| {
                let root = root_schema(document, resource)?;
                match Schemas(document).walk(root, path) {
                    Lookup::Found => None,
                    Lookup::Missing { at, suggestion } => {
                        Some(missing(def, resource, path, at, suggestion))
                    }
                }
            })
            .collect();
        let checked = schemas
            .iter()
            .filter(|(r, d)| root_schema(d, r).is_some())
            .count();
        if checked > 0 && misses.len() == checked {
            return Err(CliError::Usage(
                misses.into_iter().next().unwrap_or_default(),
            ));
        }
    }
    Ok(())
}

/// `--index node=field:spec.nodename: pods have no field spec.nodename (did you mean
/// spec.nodeName?)`.
fn missing(
    def: &IndexDef,
    resource: &ResolvedResource,
    path: &[String],
    at: usize,
    suggestion: Option<String>,
) -> String {
    let upto = path[..=at].join(".");
    let hint = suggestion.map_or_else(String::new, |s| {
        let mut fixed = path.to_vec();
        fixed[at] = s;
        format!(" (did you mean {}?)", fixed.join("."))
    });
    format!(
        "--index {}={}: {} have no field {upto}{hint}",
        def.name,
        def.expr,
        resource.label()
    )
}

/// The group version's OpenAPI v3 document, or `None` when the server has none for it (or the
/// request failed: the check is a help, never a reason not to run).
async fn document_of(
    client: &kube::Client,
    index: &Value,
    resource: &ResolvedResource,
) -> Option<Value> {
    let key = if resource.group.is_empty() {
        format!("api/{}", resource.version)
    } else {
        format!("apis/{}/{}", resource.group, resource.version)
    };
    let url = index["paths"][&key]["serverRelativeURL"].as_str()?;
    get_json(client, url).await
}

async fn get_json(client: &kube::Client, url: &str) -> Option<Value> {
    let request = http::Request::get(url)
        .header(http::header::ACCEPT, "application/json")
        .body(Vec::new())
        .ok()?;
    match client.request_text(request).await {
        Ok(text) => serde_json::from_str(&text).ok(),
        Err(e) => {
            tracing::info!("get {url}: {e}");
            None
        }
    }
}

/// The schema whose `x-kubernetes-group-version-kind` names the resource's kind.
fn root_schema<'a>(document: &'a Value, resource: &ResolvedResource) -> Option<&'a Value> {
    let names_kind = |gvk: &Value| {
        gvk["group"].as_str() == Some(resource.group.as_str())
            && gvk["version"].as_str() == Some(resource.version.as_str())
            && gvk["kind"].as_str() == Some(resource.kind.as_str())
    };
    document["components"]["schemas"]
        .as_object()?
        .values()
        .find(|s| {
            s["x-kubernetes-group-version-kind"]
                .as_array()
                .is_some_and(|all| all.iter().any(names_kind))
        })
}

/// What walking a path found.
#[derive(Debug, PartialEq, Eq)]
enum Lookup {
    Found,
    /// Segment `at` is no field there; the nearest one, if any is near.
    Missing {
        at: usize,
        suggestion: Option<String>,
    },
}

/// One OpenAPI v3 document's schemas.
struct Schemas<'a>(&'a Value);

impl<'a> Schemas<'a> {
    /// `$ref` and `allOf` followed to the schema that says what the value is.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..MAX_HOPS {
            let next = if let Some(name) = schema["$ref"].as_str() {
                let name = name.rsplit('/').next().unwrap_or(name);
                &self.0["components"]["schemas"][name]
            } else if let Some(first) = schema["allOf"].as_array().and_then(|a| a.first()) {
                first
            } else {
                return schema;
            };
            schema = next;
        }
        schema
    }

    fn walk(&self, root: &'a Value, path: &[String]) -> Lookup {
        let mut node = root;
        for (at, segment) in path.iter().enumerate() {
            node = self.through_arrays(node);
            if node["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true) {
                return Lookup::Found;
            }
            let properties = node["properties"].as_object();
            if let Some(next) = properties.and_then(|p| p.get(segment)) {
                node = next;
                continue;
            }
            match &node["additionalProperties"] {
                values @ Value::Object(_) => {
                    node = values;
                    continue;
                }
                Value::Bool(true) => return Lookup::Found,
                _ => {}
            }
            if properties.is_none() && node.get("type").is_none() {
                // A schema that says nothing (e.g. RawExtension): anything may be below.
                return Lookup::Found;
            }
            let names: Vec<&str> = properties
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Lookup::Missing {
                at,
                suggestion: nearest(segment, &names),
            };
        }
        Lookup::Found
    }

    /// An array's items (arrays of arrays too): a path goes through them.
    fn through_arrays(&self, schema: &'a Value) -> &'a Value {
        let mut node = self.resolve(schema);
        for _ in 0..MAX_HOPS {
            match node.get("items") {
                Some(items) => node = self.resolve(items),
                None => break,
            }
        }
        node
    }
}

/// The field meant: the same name in another case, else the closest by edit distance (at most
/// a third of the name, at least 2).
fn nearest(segment: &str, names: &[&str]) -> Option<String> {
    if let Some(same) = names.iter().find(|n| n.eq_ignore_ascii_case(segment)) {
        return Some((*same).to_owned());
    }
    let limit = (segment.len() / 3).max(2);
    names
        .iter()
        .map(|n| (strsim::levenshtein(segment, n), *n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({"components": {"schemas": {
            "Pod": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Pod"}],
                "properties": {
                    "metadata": {"allOf": [{"$ref": "#/components/schemas/Meta"}]},
                    "spec": {"$ref": "#/components/schemas/Spec"},
                    "raw": {},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                }
            },
            "Meta": {"type": "object", "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "name": {"type": "string"},
            }},
            "Spec": {"type": "object", "properties": {
                "nodeName": {"type": "string"},
                "containers": {"type": "array", "items": {"$ref": "#/components/schemas/C"}},
            }},
            "C": {"type": "object", "properties": {"image": {"type": "string"}}},
        }}})
    }

    fn walk(path: &str) -> Lookup {
        let doc = document();
        let schemas = Schemas(&doc);
        let root = &doc["components"]["schemas"]["Pod"];
        let path: Vec<String> = path.split('.').map(str::to_owned).collect();
        schemas.walk(root, &path)
    }

    /// A kube client whose "server" publishes no OpenAPI (every request 404s) or, with
    /// `document`, one `/openapi/v3` group-version document for `api/v1`.
    fn client(document: Option<Value>) -> kube::Client {
        use http_body_util::Full;
        let service = tower::service_fn(move |req: http::Request<kube::client::Body>| {
            let document = document.clone();
            async move {
                let body = match (req.uri().path(), document) {
                    ("/openapi/v3", Some(_)) => Some(
                        json!({"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1"}}}),
                    ),
                    ("/openapi/v3/api/v1", Some(d)) => Some(d),
                    _ => None,
                };
                let (status, text) = match body {
                    Some(b) => (200, b.to_string()),
                    None => (404, r#"{"kind":"Status","code":404}"#.to_owned()),
                };
                let response = http::Response::builder()
                    .status(status)
                    .header("content-type", "application/json")
                    .body(Full::new(bytes::Bytes::from(text)))
                    .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(response)
            }
        });
        kube::Client::new(service, "default")
    }

    fn pods() -> ResolvedResource {
        ResolvedResource {
            group: String::new(),
            version: "v1".into(),
            api_version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
            namespaced: true,
        }
    }

    #[tokio::test]
    async fn without_a_published_schema_a_path_is_taken_as_given() {
        let index = crate::cli::args::parse_index("node=field:spec.nodename").expect("an index");
        let unpublished =
            check_index_paths(&client(None), &[pods()], std::slice::from_ref(&index)).await;
        assert!(unpublished.is_ok(), "{unpublished:?}");
        let published = check_index_paths(&client(Some(document())), &[pods()], &[index]).await;
        assert!(
            published
                .as_ref()
                .is_err_and(|e| e.to_string().contains("did you mean spec.nodeName?")),
            "{published:?}"
        );
    }

    #[test]
    fn paths_are_walked_through_refs_arrays_maps_and_free_fields() {
        for found in [
            "spec.nodeName",
            "spec.containers.image",
            "metadata.labels.app",
            "metadata.name",
            "free.any.thing",
            "raw.x",
            "spec",
        ] {
            assert_eq!(walk(found), Lookup::Found, "{found}");
        }
        assert_eq!(
            walk("spec.nodename"),
            Lookup::Missing {
                at: 1,
                suggestion: Some("nodeName".into())
            }
        );
        assert_eq!(
            walk("spec.containers.imag"),
            Lookup::Missing {
                at: 2,
                suggestion: Some("image".into())
            }
        );
        assert_eq!(
            walk("status.phase"),
            Lookup::Missing {
                at: 0,
                suggestion: None
            }
        );
        assert_eq!(
            walk("metadata.name.x"),
            Lookup::Missing {
                at: 2,
                suggestion: None
            }
        );
    }
}
