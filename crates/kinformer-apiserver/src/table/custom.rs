//! A custom resource's Table: NAME, then its CRD version's `additionalPrinterColumns` (or the
//! default Age column), cells as apiextensions-apiserver's convertor computes them
//! (`pkg/registry/customresource/tableconvertor/tableconvertor.go`, v0.37.2): the first
//! JSONPath result, null when there is none; `string` columns print the value, `integer`,
//! `number` and `boolean` ones keep a JSON value of that type, `date` ones an age
//! (`cellForJSONValue`, line 141).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::columns;
use super::duration::since;
use crate::resources::ResourceType;

/// The declared columns of one served version.
pub struct Columns {
    declared: Vec<Value>,
}

impl Columns {
    /// `resource`'s columns at `version` (none for a built-in).
    pub fn of(resource: &ResourceType, version: &str) -> Columns {
        if !resource.custom {
            return Columns {
                declared: Vec::new(),
            };
        }
        let declared = resource
            .printer_columns
            .iter()
            .find(|(v, _)| v == version)
            .and_then(|(_, columns)| columns.as_array().cloned())
            .unwrap_or_else(|| vec![columns::default_custom()]);
        Columns { declared }
    }

    /// NAME and the declared columns.
    pub fn definitions(&self) -> Vec<Value> {
        let mut definitions = vec![columns::name()];
        definitions.extend(self.declared.iter().map(columns::custom));
        definitions
    }

    /// One object's cells.
    pub fn cells(&self, object: &Value, now: Timestamp) -> Vec<Value> {
        let mut cells = vec![json!(
            object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
        )];
        for column in &self.declared {
            let path = column.get("jsonPath").and_then(Value::as_str).unwrap_or("");
            let kind = column.get("type").and_then(Value::as_str).unwrap_or("");
            cells.push(match first_result(object, path) {
                Some(value) => cell(kind, value, now),
                None => Value::Null,
            });
        }
        cells
    }
}

/// `cellForJSONValue` (tableconvertor.go:141) plus the `string` case (line 125).
fn cell(kind: &str, value: &Value, now: Timestamp) -> Value {
    match (kind, value) {
        (_, Value::Null) => Value::Null,
        ("string", Value::String(s)) => json!(s),
        // client-go jsonpath PrintResults (util/jsonpath/jsonpath.go:146): maps and lists as
        // compact JSON, scalars through fmt.Fprint (a whole float64 prints without ".0").
        ("string", Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e21 => json!(format!("{f:.0}")),
            _ => json!(n.to_string()),
        },
        ("string", other) => json!(other.to_string()),
        ("integer", Value::Number(n)) => n
            .as_i64()
            .or_else(|| {
                n.as_f64().map(|f| {
                    #[allow(clippy::cast_possible_truncation)]
                    let i = f as i64;
                    i
                })
            })
            .map_or(Value::Null, |i| json!(i)),
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        ("boolean", Value::Bool(b)) => json!(b),
        ("date", Value::String(s)) => match s.parse::<Timestamp>() {
            Ok(_) => json!(since(Some(s), now)),
            Err(_) => json!("<invalid>"),
        },
        _ => Value::Null,
    }
}

/// One step of the JSONPath subset custom columns use: `.field`, `[n]`, `[*]`,
/// `[?(@.key=="value")]`.
#[derive(Debug, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
    All,
    Filter(String, String),
}

/// Parses `path` (without the braces kube adds); None when it is outside the subset.
fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = path.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end > 0 {
                steps.push(Step::Field(after[..end].to_owned()));
            }
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let inner = after[..end].trim();
            rest = &after[end + 1..];
            if inner == "*" {
                steps.push(Step::All);
            } else if let Ok(index) = inner.parse::<usize>() {
                steps.push(Step::Index(index));
            } else {
                let condition = inner.strip_prefix("?(@.")?.strip_suffix(')')?;
                let (key, value) = condition.split_once("==")?;
                let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
                steps.push(Step::Filter(key.trim().to_owned(), value.to_owned()));
            }
        } else {
            return None;
        }
    }
    Some(steps)
}

/// The first value `path` selects in `object`.
fn first_result<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    let steps = parse(path)?;
    let mut current: Vec<&Value> = vec![object];
    for step in &steps {
        current = current
            .into_iter()
            .flat_map(|value| -> Vec<&Value> {
                match step {
                    Step::Field(name) => value.get(name).into_iter().collect(),
                    Step::Index(i) => value.get(*i).into_iter().collect(),
                    Step::All => match value {
                        Value::Array(items) => items.iter().collect(),
                        Value::Object(map) => map.values().collect(),
                        _ => Vec::new(),
                    },
                    Step::Filter(key, wanted) => value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|item| match item.get(key) {
                            Some(Value::String(s)) => s == wanted,
                            Some(other) => wanted.as_str() == other.to_string().as_str(),
                            None => false,
                        })
                        .collect(),
                }
            })
            .collect();
    }
    current.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_select_the_first_result() {
        let object = json!({"spec": {"replicas": 3, "items": [{"n": "a"}, {"n": "b"}]},
            "status": {"conditions": [{"type": "Synced", "status": "False"},
                                      {"type": "Ready", "status": "True"}]}});
        assert_eq!(first_result(&object, ".spec.replicas"), Some(&json!(3)));
        assert_eq!(first_result(&object, ".spec.items[1].n"), Some(&json!("b")));
        assert_eq!(first_result(&object, ".spec.items[*].n"), Some(&json!("a")));
        assert_eq!(
            first_result(&object, r#".status.conditions[?(@.type=="Ready")].status"#),
            Some(&json!("True"))
        );
        assert_eq!(first_result(&object, ".spec.missing"), None);
    }

    #[test]
    fn cells_follow_the_column_type() {
        let now: Timestamp = "2026-01-01T01:00:00Z".parse().unwrap();
        assert_eq!(cell("string", &json!(3), now), json!("3"));
        assert_eq!(cell("string", &json!(3.0), now), json!("3"));
        assert_eq!(cell("string", &json!(1.5), now), json!("1.5"));
        assert_eq!(cell("string", &json!(true), now), json!("true"));
        assert_eq!(
            cell("string", &json!({"a": [1]}), now),
            json!(r#"{"a":[1]}"#)
        );
        assert_eq!(cell("integer", &json!(2.7), now), json!(2));
        assert_eq!(cell("integer", &json!("2"), now), Value::Null);
        assert_eq!(cell("number", &json!(2), now), json!(2.0));
        assert_eq!(cell("boolean", &json!(true), now), json!(true));
        assert_eq!(
            cell("date", &json!("2026-01-01T00:00:00Z"), now),
            json!("60m")
        );
        assert_eq!(cell("date", &json!("yesterday"), now), json!("<invalid>"));
    }
}
