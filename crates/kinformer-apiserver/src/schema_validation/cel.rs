//! `x-kubernetes-validations`: CEL rules evaluated as kube-apiserver evaluates them
//! (apiextensions-apiserver `pkg/apiserver/schema/cel/validation.go` v0.37.2,
//! `validateExpressions`), on the `cel` crate's interpreter with the Kubernetes libraries of
//! [`super::cel_library`]. Each rule is compiled once, with its schema node.
//!
//! At every node, its rules run in order with `self` (and, for a transition rule, `oldSelf`:
//! only on an update whose old object has a value there — objects correlate by key, lists of
//! `x-kubernetes-list-type: map` by their keys), then its children. A rule that is not `true`
//! is a field error at the node (or at its `fieldPath`) with its `reason`
//! (`FieldValueInvalid` unless it says `FieldValueForbidden`, `FieldValueRequired` or
//! `FieldValueDuplicate`), the `messageExpression`'s value, else its `message`, else `failed
//! rule: <rule>`; the bad value is the scalar, or none for an object or a list. A rule that
//! fails to evaluate is `<error> evaluating rule: <rule>`. On an update, a non-transition rule
//! is not evaluated on a value the update left unchanged (kube-apiserver ratchets its error
//! into a warning).
//!
//! Not as kube-apiserver: rules are parsed, not type-checked, and a rule that does not parse is
//! not refused when the CRD is written but answered `rule compile error` when it would run (a
//! rule naming a field the schema lacks fails when evaluated), there is no cost budget,
//! `optionalOldSelf` is not supported (such a rule runs only when there is an old value), and
//! strings of `format: date-time`/`duration` stay strings.

use cel::Program;
use serde_json::Value;

use super::cel_library::{self, ENV};
use super::field_error::{BadValue, ErrorType, FieldError};
use super::node::{ListType, Node};
use super::openapi::child_path;

/// One compiled rule.
#[derive(Debug)]
pub struct Rule {
    /// `rule`, as written.
    source: String,
    /// The compiled rule, or why it does not compile.
    program: Result<Program, String>,
    /// `message`, trimmed.
    message: String,
    /// `messageExpression`, compiled (None when absent or not compiling).
    message_expression: Option<Program>,
    /// `reason`.
    reason: ErrorType,
    /// `fieldPath` without its leading dot.
    field_path: String,
    /// Whether the rule reads `oldSelf` (a transition rule).
    uses_old_self: bool,
}

impl Rule {
    /// The rules of one schema node's `x-kubernetes-validations`.
    pub fn compile_all(schema: &Value) -> Vec<Rule> {
        schema
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(Rule::compile)
            .collect()
    }

    fn compile(rule: &Value) -> Rule {
        let text = |key: &str| rule.get(key).and_then(Value::as_str).unwrap_or_default();
        let source = text("rule").to_owned();
        let program = ENV.compile(&source).map_err(|e| e.to_string());
        let uses_old_self = program
            .as_ref()
            .is_ok_and(|p| p.references().has_variable("oldSelf"));
        let message_expression = Some(text("messageExpression"))
            .filter(|m| !m.is_empty())
            .and_then(|m| ENV.compile(m).ok());
        Rule {
            program,
            message: text("message").trim().to_owned(),
            message_expression,
            reason: match text("reason") {
                "FieldValueForbidden" => ErrorType::Forbidden,
                "FieldValueRequired" => ErrorType::Required,
                "FieldValueDuplicate" => ErrorType::Duplicate,
                _ => ErrorType::Invalid,
            },
            field_path: text("fieldPath").trim_start_matches('.').to_owned(),
            uses_old_self,
            source,
        }
    }

    /// `ruleErrorString`: the message, else the rule.
    fn error_string(&self) -> &str {
        if self.message.is_empty() {
            self.source.trim()
        } else {
            &self.message
        }
    }
}

/// Evaluates every rule of `node` and below on `new` at `path` (`old`: the correlated old
/// value on an update; `root`: whether `node` is the object's root schema).
pub fn validate(
    node: &Node,
    path: &str,
    new: &Value,
    old: Option<&Value>,
    root: bool,
    errors: &mut Vec<FieldError>,
) {
    if new.is_null() {
        return;
    }
    if !node.rules.is_empty() {
        evaluate(node, path, new, old, root, errors);
    }
    match new {
        Value::Array(items) => {
            if let Some(schema) = node.items.as_deref().filter(|s| s.has_rules()) {
                let old_items = old.and_then(Value::as_array);
                for (i, item) in items.iter().enumerate() {
                    let old_item = old_items.and_then(|o| correlated(node, item, o));
                    validate(
                        schema,
                        &format!("{path}[{i}]"),
                        item,
                        old_item,
                        false,
                        errors,
                    );
                }
            }
        }
        Value::Object(members) => {
            for (key, value) in members {
                let Some(schema) = node.child(key).filter(|s| s.has_rules()) else {
                    continue;
                };
                let old_value = old.and_then(|o| o.get(key));
                validate(
                    schema,
                    &child_path(path, key),
                    value,
                    old_value,
                    false,
                    errors,
                );
            }
        }
        _ => {}
    }
}

/// The old item of a map list with the same keys.
fn correlated<'o>(node: &Node, item: &Value, old: &'o [Value]) -> Option<&'o Value> {
    let ListType::Map(keys) = &node.list_type else {
        return None;
    };
    old.iter()
        .find(|candidate| keys.iter().all(|k| candidate.get(k) == item.get(k)))
}

/// Runs `node`'s own rules.
fn evaluate(
    node: &Node,
    path: &str,
    new: &Value,
    old: Option<&Value>,
    root: bool,
    errors: &mut Vec<FieldError>,
) {
    let unchanged = old == Some(new);
    let this = cel_library::to_cel(node, new, root);
    let previous = old.map(|o| cel_library::to_cel(node, o, root));
    for rule in &node.rules {
        let program = match &rule.program {
            Ok(program) => program,
            Err(why) => {
                errors.push(invalid_at(
                    node,
                    path,
                    new,
                    format!("rule compile error: {why}"),
                ));
                continue;
            }
        };
        if rule.uses_old_self && previous.is_none() {
            continue;
        }
        if !rule.uses_old_self && unchanged {
            continue;
        }
        let context = cel_library::context(&this, previous.as_ref());
        match program.execute(&context) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => {
                let at = if rule.field_path.is_empty() {
                    path.to_owned()
                } else {
                    child_path(path, &rule.field_path)
                };
                let detail = rule
                    .message_expression
                    .as_ref()
                    .and_then(|m| match m.execute(&context) {
                        Ok(cel::Value::String(text)) if !text.trim().is_empty() => {
                            Some(text.trim().replace('\n', " "))
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| match rule.message.is_empty() {
                        true => format!("failed rule: {}", rule.error_string()),
                        false => rule.message.clone(),
                    });
                errors.push(failure(node, at, new, detail, rule.reason));
            }
            Ok(other) => errors.push(invalid_at(
                node,
                path,
                new,
                format!(
                    "rule did not evaluate to a bool: {other:?} evaluating rule: {}",
                    rule.error_string()
                ),
            )),
            Err(error) => errors.push(invalid_at(
                node,
                path,
                new,
                format!(
                    "{} evaluating rule: {}",
                    cel_library::error_text(&error),
                    rule.error_string()
                ),
            )),
        }
    }
}

/// The value a rule's error shows: none for an object or a list, the scalar else.
fn shown(node: &Node, value: &Value) -> BadValue {
    match node.types.as_slice() {
        ["object"] | ["array"] => BadValue::Omitted,
        _ => match value {
            Value::Object(_) | Value::Array(_) => BadValue::Omitted,
            other => BadValue::Json(other.clone()),
        },
    }
}

fn invalid_at(node: &Node, path: &str, value: &Value, detail: String) -> FieldError {
    FieldError::new(
        path.to_owned(),
        ErrorType::Invalid,
        shown(node, value),
        detail,
    )
}

/// `fieldErrorForReason`.
fn failure(
    node: &Node,
    path: String,
    value: &Value,
    detail: String,
    reason: ErrorType,
) -> FieldError {
    match reason {
        ErrorType::Forbidden | ErrorType::Required => {
            FieldError::new(path, reason, BadValue::Omitted, detail)
        }
        ErrorType::Duplicate => FieldError::new(path, reason, shown(node, value), String::new()),
        _ => FieldError::new(path, ErrorType::Invalid, shown(node, value), detail),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn errors_of(schema: Value, new: Value, old: Option<Value>) -> Vec<String> {
        let node = Node::compile(&schema);
        let mut errors = Vec::new();
        validate(&node, "", &new, old.as_ref(), true, &mut errors);
        errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.body()))
            .collect()
    }

    fn spec_with(rules: Value, properties: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": rules, "properties": properties}}})
    }

    #[test]
    fn a_false_rule_is_its_message_or_the_rule() {
        let schema = spec_with(
            json!([{"rule": "self.min <= self.max", "message": "min must not exceed max"},
                   {"rule": "self.max < 100"}]),
            json!({"min": {"type": "integer"}, "max": {"type": "integer"}}),
        );
        assert_eq!(
            errors_of(schema, json!({"spec": {"min": 5, "max": 200}}), None),
            ["spec: Invalid value: failed rule: self.max < 100"]
        );
    }

    #[test]
    fn transition_rules_run_only_on_updates() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"name": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "name is immutable"}]}}}}});
        assert!(errors_of(schema.clone(), json!({"spec": {"name": "a"}}), None).is_empty());
        assert_eq!(
            errors_of(
                schema,
                json!({"spec": {"name": "b"}}),
                Some(json!({"spec": {"name": "a"}}))
            ),
            [r#"spec.name: Invalid value: "b": name is immutable"#]
        );
    }

    #[test]
    fn message_expression_reason_and_field_path_shape_the_error() {
        let schema = spec_with(
            json!([{"rule": "has(self.name)", "reason": "FieldValueRequired", "fieldPath": ".name",
                    "messageExpression": "'name is needed when size is ' + string(self.size)"}]),
            json!({"name": {"type": "string"}, "size": {"type": "integer"}}),
        );
        assert_eq!(
            errors_of(schema, json!({"spec": {"size": 3}}), None),
            ["spec.name: Required value: name is needed when size is 3"]
        );
    }
}
