//! Label selectors (`=`, `==`, `!=`, `in`, `notin`, `key`, `!key`) and field selectors
//! (`metadata.name`, `metadata.namespace`, and per-resource fields such as a pod's
//! `spec.nodeName`), parsed from query strings and matched against stored objects.

use super::app::ResourceRequest;
use super::objects::StoredObject;
use super::selectable::convert_label;
use super::status::ApiError;

/// Which objects a list, watch or delete-collection request addresses.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Selection {
    /// The namespace, label selector and field selector of a request (400 if malformed).
    pub fn from_request(request: &ResourceRequest) -> Result<Self, ApiError> {
        let labels = LabelSelector::parse(request.param("labelSelector").unwrap_or(""))
            .map_err(ApiError::bad_request)?;
        let text = request.param("fieldSelector").unwrap_or("");
        let convert = |label: &str| convert_label(&request.resource, &request.version, label);
        let fields = FieldSelector::parse(text, convert).map_err(ApiError::bad_request)?;
        Ok(Selection {
            namespace: request.namespace.clone(),
            labels,
            fields,
        })
    }

    /// The namespace the request is restricted to.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Whether an object is selected.
    pub fn matches(&self, object: &StoredObject) -> bool {
        self.namespace
            .as_ref()
            .is_none_or(|ns| ns == object.namespace())
            && self.labels.matches(|key| object.label(key))
            && self.fields.matches(object)
    }
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    /// Whether an object whose label values `label` gives meets the requirement.
    fn matches<'l>(&self, label: &impl Fn(&str) -> Option<&'l str>) -> bool {
        let among = |values: &[String], l: &str| values.iter().any(|v| v == l);
        match self {
            Requirement::Equals(k, v) => label(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => label(k) != Some(v.as_str()),
            Requirement::In(k, vs) => label(k).is_some_and(|l| among(vs, l)),
            Requirement::NotIn(k, vs) => label(k).is_none_or(|l| !among(vs, l)),
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::DoesNotExist(k) => label(k).is_none(),
        }
    }
}

/// A parsed label selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    /// Parses a `labelSelector` query value.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut requirements = Vec::new();
        for term in split_terms(text)? {
            let term = term.trim();
            if term.is_empty() {
                if text.trim().is_empty() {
                    continue;
                }
                return Err(format!(
                    "unable to parse requirement: empty term in {text:?}"
                ));
            }
            requirements.push(parse_requirement(term)?);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether the labels (the values `label` gives) satisfy every requirement.
    pub fn matches<'l>(&self, label: impl Fn(&str) -> Option<&'l str>) -> bool {
        self.0.iter().all(|r| r.matches(&label))
    }
}

/// Splits on commas that are not inside `( ... )`.
fn split_terms(text: &str) -> Result<Vec<&str>, String> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1).ok_or_else(|| {
                    format!("unable to parse requirement: unbalanced ')' in {text:?}")
                })?;
            }
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!(
            "unable to parse requirement: unbalanced '(' in {text:?}"
        ));
    }
    terms.push(&text[start..]);
    Ok(terms)
}

/// Parses one term of a label selector.
fn parse_requirement(term: &str) -> Result<Requirement, String> {
    if let Some(key) = term.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(label_key(key.trim())?));
    }
    if let Some(open) = term.find('(') {
        return parse_set_requirement(term, open);
    }
    for (op, build) in [
        (
            "!=",
            Requirement::NotEquals as fn(String, String) -> Requirement,
        ),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((key, value)) = term.split_once(op) {
            return Ok(build(label_key(key.trim())?, label_value(value.trim())?));
        }
    }
    if term.contains(['<', '>']) {
        return Err(format!(
            "unable to parse requirement: operator in {term:?} is not supported"
        ));
    }
    Ok(Requirement::Exists(label_key(term)?))
}

/// Parses `key in (a,b)` / `key notin (a,b)`.
fn parse_set_requirement(term: &str, open: usize) -> Result<Requirement, String> {
    let head: Vec<&str> = term[..open].split_whitespace().collect();
    let close = term
        .rfind(')')
        .filter(|c| *c > open && term[c + 1..].trim().is_empty())
        .ok_or_else(|| format!("unable to parse requirement: missing ')' in {term:?}"))?;
    let inside = &term[open + 1..close];
    if inside.trim().is_empty() {
        return Err("unable to parse requirement: values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty".into());
    }
    let values = inside
        .split(',')
        .map(|v| label_value(v.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    match head.as_slice() {
        [key, "in"] => Ok(Requirement::In(label_key(key)?, values)),
        [key, "notin"] => Ok(Requirement::NotIn(label_key(key)?, values)),
        _ => Err(format!(
            "unable to parse requirement: expected \"KEY in (...)\" or \"KEY notin (...)\", found {term:?}"
        )),
    }
}

/// Validates a label key.
fn label_key(key: &str) -> Result<String, String> {
    let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    if key.is_empty() || !key.chars().all(valid_char) {
        return Err(format!(
            "unable to parse requirement: invalid label key {key:?}"
        ));
    }
    Ok(key.to_owned())
}

/// Validates a label value (may be empty).
fn label_value(value: &str) -> Result<String, String> {
    let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if !value.chars().all(valid_char) {
        return Err(format!(
            "unable to parse requirement: invalid label value {value:?}"
        ));
    }
    Ok(value.to_owned())
}

/// A parsed field selector; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    /// Parses a `fieldSelector` query value; `convert` gives the field a label selects on, or
    /// the message refusing it (kube-apiserver's field label conversion).
    pub fn parse(
        text: &str,
        convert: impl Fn(&str) -> Result<String, String>,
    ) -> Result<Self, String> {
        let mut terms = Vec::new();
        for term in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (field, equal, value) = if let Some((f, v)) = term.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{text}'; can't understand '{term}'"
                ));
            };
            let field = convert(field.trim())?;
            terms.push((field, equal, value.trim().to_owned()));
        }
        Ok(FieldSelector(terms))
    }

    /// Whether the object's selectable fields satisfy every term.
    pub fn matches(&self, object: &StoredObject) -> bool {
        self.0.iter().all(|(field, equal, value)| {
            let actual = object.field(field).unwrap_or("");
            (actual == value) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn selects(selector: &str, pairs: &[(&str, &str)]) -> bool {
        let labels = labels(pairs);
        LabelSelector::parse(selector)
            .is_ok_and(|s| s.matches(|key| labels.get(key).map(String::as_str)))
    }

    #[test]
    fn equality_operators() {
        assert!(selects("app=web", &[("app", "web")]));
        assert!(selects("app==web", &[("app", "web")]));
        assert!(!selects("app=web", &[("app", "api")]));
        assert!(selects("app!=web", &[("app", "api")]));
        assert!(selects("app!=web", &[]));
        assert!(selects("", &[]));
    }

    #[test]
    fn set_operators_and_existence() {
        assert!(selects("app in (web, api)", &[("app", "api")]));
        assert!(!selects("app in (web,api)", &[]));
        assert!(selects("app notin (web,api)", &[("app", "db")]));
        assert!(selects("app notin (web)", &[]));
        assert!(selects("tier", &[("tier", "x")]));
        assert!(selects("!tier", &[("app", "x")]));
        assert!(selects(
            "app in (a,b),tier,!x",
            &[("app", "b"), ("tier", "1")]
        ));
    }

    #[test]
    fn malformed_selectors_name_the_problem() {
        for bad in [
            "app in (web",
            "app=we b",
            "=web",
            "app>3",
            "a,,b",
            "app foo (x)",
        ] {
            let err = LabelSelector::parse(bad);
            assert!(err.is_err_and(|e| e.contains("unable to parse")), "{bad}");
        }
    }

    #[test]
    fn field_selectors_are_restricted() {
        let registry = crate::resources::Registry::with_builtins();
        let Some(pods) = registry.find("", "v1", "pods") else {
            unreachable!("pods are built in")
        };
        let convert = |label: &str| convert_label(&pods, "v1", label);
        let parsed = FieldSelector::parse("metadata.name=x,spec.host!=n", convert);
        assert_eq!(
            parsed,
            Ok(FieldSelector(vec![
                ("metadata.name".into(), true, "x".into()),
                ("spec.nodeName".into(), false, "n".into()),
            ]))
        );
        let err = FieldSelector::parse("status.foo=x", convert);
        assert_eq!(err, Err("field label not supported: status.foo".into()));
        assert!(FieldSelector::parse("metadata.name", convert).is_err());
    }
}
