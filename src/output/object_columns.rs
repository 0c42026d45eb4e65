//! What a notification row says about its object, as kubectl's columns do: `NAME=value` pairs
//! after the row's details, each value read from the object by a JSONPath. Every resource
//! kubectl users watch most has default columns (pods: phase, ready, restarts, node;
//! deployments: replicas, ready, updated, available; …); `--columns` replaces them with
//! kubectl's custom-columns syntax (`NAME:.status.phase,READY:.status.conditions[?(@.type=="Ready")].status`).
//!
//! kubectl's paths (`.a.b`, `{.a.b}`, `[0]`, `[*]`, `[?(@.x=="y")]`) are evaluated as RFC 9535
//! JSONPath (serde_json_path) after a leading `$` is added; a path with no match shows
//! `<none>`, several matches are joined by commas, as kubectl prints them.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json_path::JsonPath;

/// kubectl's word for a missing value.
const NONE: &str = "<none>";

/// One column: its name and where its value is.
#[derive(Clone)]
struct Column {
    name: String,
    spec: String,
    path: JsonPath,
}

/// The columns of one resource's notification rows.
#[derive(Clone)]
pub struct ObjectColumns(Vec<Column>);

impl fmt::Debug for ObjectColumns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())
    }
}

impl PartialEq for ObjectColumns {
    fn eq(&self, other: &Self) -> bool {
        self.spec() == other.spec()
    }
}

impl Eq for ObjectColumns {}

/// The default columns per resource (plural), kubectl's `get` columns as far as paths reach.
const DEFAULTS: &[(&str, &str)] = &[
    (
        "pods",
        r#"phase:.status.phase,ready:.status.conditions[?(@.type=="Ready")].status,restarts:.status.containerStatuses[*].restartCount,node:.spec.nodeName"#,
    ),
    (
        "deployments",
        ".spec.replicas,ready:.status.readyReplicas,updated:.status.updatedReplicas,available:.status.availableReplicas",
    ),
    (
        "replicasets",
        "desired:.spec.replicas,current:.status.replicas,ready:.status.readyReplicas",
    ),
    (
        "statefulsets",
        "replicas:.spec.replicas,ready:.status.readyReplicas",
    ),
    (
        "daemonsets",
        "desired:.status.desiredNumberScheduled,ready:.status.numberReady",
    ),
    ("services", "type:.spec.type,cluster-ip:.spec.clusterIP"),
    (
        "nodes",
        r#"ready:.status.conditions[?(@.type=="Ready")].status"#,
    ),
    ("namespaces", "phase:.status.phase"),
    ("secrets", "type:.type"),
];

impl ObjectColumns {
    /// Parses kubectl's custom-columns list: `NAME:PATH[,NAME:PATH…]`. A bare PATH in the
    /// defaults is named after its last field.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut columns = Vec::new();
        for item in split_columns(spec) {
            let (name, path) = match item.split_once(':') {
                Some((name, path)) if !name.is_empty() && !name.starts_with('.') => (name, path),
                _ => (last_field(item), item),
            };
            columns.push(Column {
                name: name.to_owned(),
                spec: path.to_owned(),
                path: compile(path)?,
            });
        }
        if columns.is_empty() {
            return Err("--columns: expected NAME:JSONPATH[,NAME:JSONPATH…]".to_owned());
        }
        Ok(Self(columns))
    }

    /// The default columns of `resource` (a trace label such as `pods` or
    /// `deployments.apps`), if it has some.
    pub fn defaults_for(resource: &str) -> Option<Self> {
        let plural = resource.split('.').next().unwrap_or(resource);
        let (_, spec) = DEFAULTS.iter().find(|(p, _)| *p == plural)?;
        Self::parse(spec).ok()
    }

    /// `NAME:PATH,…`, as parsed.
    pub fn spec(&self) -> String {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|c| format!("{}:{}", c.name, c.spec))
            .collect();
        items.join(",")
    }

    /// Each column's name and value in `raw` (the object's JSON); none when it is not JSON.
    pub fn values(&self, raw: &[u8]) -> Vec<(&str, String)> {
        let Ok(object) = serde_json::from_slice::<Value>(raw) else {
            return Vec::new();
        };
        self.0
            .iter()
            .map(|c| (c.name.as_str(), value_text(&c.path, &object)))
            .collect()
    }
}

/// The columns of each resource's notification rows, by trace label.
pub type ColumnsByResource = BTreeMap<String, Arc<ObjectColumns>>;

/// Splits at commas outside brackets, parentheses and quotes (a filter may hold commas).
fn split_columns(spec: &str) -> Vec<&str> {
    let (mut items, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    for (i, c) in spec.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('[' | '(' | '{', None) => depth += 1,
            (']' | ')' | '}', None) => depth -= 1,
            (',', None) if depth == 0 => {
                items.push(spec[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(spec[start..].trim());
    items.into_iter().filter(|s| !s.is_empty()).collect()
}

/// `replicas` for `.spec.replicas`.
fn last_field(path: &str) -> &str {
    path.trim_matches(['{', '}'])
        .rsplit('.')
        .next()
        .unwrap_or(path)
}

/// kubectl's path as RFC 9535 JSONPath: braces dropped, `$` in front.
fn compile(path: &str) -> Result<JsonPath, String> {
    let inner = path.trim();
    let inner = inner
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .unwrap_or(inner);
    let rfc = match inner.chars().next() {
        Some('$') => inner.to_owned(),
        Some('.' | '[') => format!("${inner}"),
        _ => format!("$.{inner}"),
    };
    JsonPath::parse(&rfc).map_err(|e| {
        let why = e.to_string().replace('\n', " ");
        format!("--columns: bad JSONPath {path:?}: {why}")
    })
}

/// The matches of `path` in `object`, as kubectl prints them.
fn value_text(path: &JsonPath, object: &Value) -> String {
    let nodes = path.query(object).all();
    if nodes.is_empty() {
        return NONE.to_owned();
    }
    let words: Vec<String> = nodes
        .into_iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            Value::Null => NONE.to_owned(),
            other => other.to_string(),
        })
        .collect();
    words.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = r#"{"metadata":{"name":"web-1"},"spec":{"nodeName":"node-a"},
        "status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True"},
        {"type":"Ready","status":"False"}],"containerStatuses":[{"restartCount":0},{"restartCount":3}]}}"#;

    fn shown(columns: &ObjectColumns, raw: &str) -> String {
        let pairs: Vec<String> = columns
            .values(raw.as_bytes())
            .into_iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        pairs.join(" ")
    }

    #[test]
    fn pods_show_phase_ready_restarts_and_node_as_kubectl_does() {
        let columns = ObjectColumns::defaults_for("pods").unwrap();
        assert_eq!(
            shown(&columns, POD),
            "phase=Running ready=False restarts=0,3 node=node-a"
        );
    }

    #[test]
    fn custom_columns_take_kubectl_paths_with_braces_filters_and_missing_fields() {
        let columns = ObjectColumns::parse(
            r#"NAME:{.metadata.name},READY:.status.conditions[?(@.type=="Ready")].status,IP:.status.podIP"#,
        )
        .unwrap();
        assert_eq!(shown(&columns, POD), "NAME=web-1 READY=False IP=<none>");
    }

    #[test]
    fn grouped_resources_find_their_defaults_and_others_have_none() {
        assert!(ObjectColumns::defaults_for("deployments.apps").is_some());
        assert!(ObjectColumns::defaults_for("configmaps").is_none());
        let replicas = ObjectColumns::defaults_for("deployments").unwrap();
        assert!(replicas.spec().starts_with("replicas:.spec.replicas"));
    }

    #[test]
    fn a_bad_path_or_an_empty_list_is_one_clear_error() {
        let bad = ObjectColumns::parse("X:.status[").unwrap_err();
        assert!(bad.starts_with("--columns: bad JSONPath"), "{bad}");
        assert!(!bad.contains('\n'));
        assert!(ObjectColumns::parse(" , ").is_err());
    }
}
