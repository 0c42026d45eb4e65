//! `meta.k8s.io/v1` Table rendering for kubectl's human-readable output: a NAME and AGE column
//! for every resource, plus STATUS and NODE for pods.

use bytes::Bytes;
use jiff::Timestamp;
use serde::Deserialize;
use serde_json::{Value, json};

use super::objects::StoredObject;
use super::resources::ResourceType;

#[derive(Deserialize)]
struct CreationMetadata {
    #[serde(rename = "creationTimestamp")]
    creation_timestamp: Option<String>,
}

#[derive(Deserialize)]
struct WithCreation {
    metadata: Option<CreationMetadata>,
}

fn column(name: &str, format: &str) -> Value {
    json!({"name": name, "type": "string", "format": format, "description": "", "priority": 0})
}

fn columns(resource: &ResourceType) -> Vec<Value> {
    if resource.is_pod() {
        vec![
            column("Name", "name"),
            column("Status", ""),
            column("Node", ""),
            column("Age", ""),
        ]
    } else {
        vec![column("Name", "name"), column("Age", "")]
    }
}

/// kubectl's short age (`45s`, `12m`, `3h`, `5d`).
fn age(object: &StoredObject) -> String {
    let created = serde_json::from_slice::<WithCreation>(&object.bytes)
        .ok()
        .and_then(|o| o.metadata?.creation_timestamp)
        .and_then(|t| t.parse::<Timestamp>().ok());
    let Some(created) = created else {
        return "<unknown>".into();
    };
    let seconds = Timestamp::now()
        .as_second()
        .saturating_sub(created.as_second())
        .max(0);
    match seconds {
        s if s < 120 => format!("{s}s"),
        s if s < 2 * 3600 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
    }
}

fn cells(resource: &ResourceType, object: &StoredObject) -> Vec<String> {
    let mut cells = vec![object.name().to_owned()];
    if resource.is_pod() {
        cells.push(object.field("status.phase").unwrap_or("Unknown").to_owned());
        cells.push(object.field("spec.nodeName").unwrap_or("<none>").to_owned());
    }
    cells.push(age(object));
    cells
}

fn row(resource: &ResourceType, object: &StoredObject) -> Value {
    let partial = serde_json::from_slice::<Value>(object.metadata_only()).unwrap_or(Value::Null);
    json!({"cells": cells(resource, object), "object": partial})
}

/// A Table of `objects`; `continue_token` and `rv` go into its list metadata.
pub fn render(
    resource: &ResourceType,
    objects: &[&StoredObject],
    rv: u64,
    continue_token: Option<&str>,
) -> Bytes {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if let (Some(token), Some(map)) = (continue_token, metadata.as_object_mut()) {
        map.insert("continue".into(), token.into());
    }
    let rows: Vec<Value> = objects.iter().map(|o| row(resource, o)).collect();
    let table = json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": columns(resource),
        "rows": rows,
    });
    Bytes::from(table.to_string())
}
