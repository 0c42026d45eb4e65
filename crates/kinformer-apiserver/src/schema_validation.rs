//! A custom resource validated as kube-apiserver validates it against its CRD's structural
//! schema (apiextensions-apiserver `pkg/registry/customresource/strategy.go` v0.37.2,
//! `Validate` and `ValidateUpdate`): kube-openapi's schema validation ([`openapi`]), then the
//! `x-kubernetes-embedded-resource` objects ([`embedded`]), then the uniqueness of
//! `x-kubernetes-list-type` sets and map lists ([`list_sets`]; on an update only when the old
//! object kept it), then — unless an earlier error is of a kind that blocks them — the `x-kubernetes-validations` CEL
//! rules ([`cel`]). Each version's schema is compiled once, when its CRD is registered
//! ([`CrdValidation::compile`]), never per request.
//!
//! The errors come back as apimachinery's field errors ([`FieldError`]); the write path words
//! the 422 from them.

mod cel;
mod cel_library;
mod embedded;
mod field_error;
mod formats;
mod list_sets;
mod node;
mod openapi;

use serde_json::Value;

pub use field_error::FieldError;
use node::Node;

/// kube-apiserver's error when an earlier error keeps the CEL rules from running
/// (`hasBlockingErr`, `pkg/registry/customresource/strategy.go` v0.37.2:405).
const RULES_NOT_CHECKED: &str = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// A CRD's compiled schemas, one per served version that declares one.
#[derive(Debug, Default)]
pub struct CrdValidation {
    versions: Vec<(String, Node)>,
}

impl CrdValidation {
    /// Compiles each version's `openAPIV3Schema`.
    pub fn compile(schemas: &[(String, Value)]) -> CrdValidation {
        CrdValidation {
            versions: schemas
                .iter()
                .map(|(version, schema)| (version.clone(), Node::compile(schema)))
                .collect(),
        }
    }

    /// Drops the nulls `value` (an object of `version`) holds where its schema is neither
    /// nullable nor defaulted, as kube-apiserver's decoding of a custom resource drops them
    /// (apiextensions-apiserver `pkg/apiserver/schema/defaulting/prunenulls.go`,
    /// `PruneNonNullableNullsWithoutDefaults`).
    pub fn drop_nulls(&self, version: &str, value: &mut Value) {
        if let Some((_, node)) = self.versions.iter().find(|(v, _)| v == version) {
            node.drop_nulls(value);
        }
    }

    /// Fills in the `default`s of `value`'s schema (an object of `version`).
    pub fn apply_defaults(&self, version: &str, value: &mut Value) {
        if let Some((_, node)) = self.versions.iter().find(|(v, _)| v == version) {
            node.apply_defaults(value);
        }
    }

    /// What is wrong with `new`, an object of `version` (`old`: the stored object, on an
    /// update; `status_only`: a write of the `status` subresource, whose schema check covers
    /// `status` alone, with paths relative to it, as `ValidateStatusUpdate` does:
    /// `pkg/registry/customresource/validator.go` v0.37.2:103), in kube-apiserver's order.
    /// Empty when it is valid or the version has no schema.
    pub fn validate(
        &self,
        version: &str,
        new: &Value,
        old: Option<&Value>,
        status_only: bool,
    ) -> Vec<FieldError> {
        let Some((_, node)) = self.versions.iter().find(|(v, _)| v == version) else {
            return Vec::new();
        };
        let mut errors = Vec::new();
        if status_only {
            validate_status(node, new, old, &mut errors);
        } else {
            openapi::validate(node, "", new, old, &mut errors);
            embedded::validate(node, "", new, &mut errors);
        }
        let old_kept_lists = old.is_none_or(|old| {
            let mut old_errors = Vec::new();
            list_sets::validate(node, "", old, &mut old_errors);
            old_errors.is_empty()
        });
        if old_kept_lists {
            list_sets::validate(node, "", new, &mut errors);
        }
        if node.has_rules() {
            if errors.iter().any(FieldError::blocks_rules) {
                errors.push(FieldError::invalid(
                    field_error::NO_FIELD.to_owned(),
                    field_error::BadValue::Json(Value::Null),
                    RULES_NOT_CHECKED.into(),
                ));
            } else {
                cel::validate(node, "", new, old, true, &mut errors);
            }
        }
        errors
    }
}

/// The schema check of a `status` write: `status` against its own schema, its errors' fields
/// under `status` (kube-openapi's messages keep the path relative to it: `ready in body should
/// be greater than or equal to 0`).
fn validate_status(node: &Node, new: &Value, old: Option<&Value>, errors: &mut Vec<FieldError>) {
    let (Some(schema), Some(status)) = (node.properties.get("status"), new.get("status")) else {
        return;
    };
    let mut found = Vec::new();
    openapi::validate(
        schema,
        "",
        status,
        old.and_then(|o| o.get("status")),
        &mut found,
    );
    for mut error in found {
        error.field = match error.field.as_str() {
            "" | field_error::NO_FIELD => "status".to_owned(),
            field => format!("status.{field}"),
        };
        errors.push(error);
    }
}
