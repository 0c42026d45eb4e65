//! kube-openapi's `SchemaValidator` over a custom resource (`pkg/validation/validate`,
//! kube-openapi d427ff9, the version kube-apiserver 1.37.2 builds with), its results turned into
//! field errors as apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors` turns them
//! (`pkg/apiserver/validation/validation.go` v0.37.2). Per value the validators run in
//! kube-openapi's order — type, string, format, number, slice, enum, object — and an object
//! checks its additional properties, then its declared properties, then `required`.
//!
//! Go walks maps in random order, so where several properties of one object fail,
//! kube-apiserver's causes come in no fixed order; here they come in key order.
//!
//! On an update, kube-apiserver ratchets (CRDValidationRatcheting, GA): a value equal to the
//! old object's value at the same place is not validated (objects correlate by key, lists of
//! `x-kubernetes-list-type: map` by their keys, other lists not at all).

use serde_json::{Map, Number, Value};

use super::field_error::{BadValue, ErrorType, FieldError, go_float, go_json};
use super::node::{ListType, Node};

/// Validates `value` at `path` (`""` for the root) against `node`; `old` is the correlated old
/// value on an update.
pub fn validate(
    node: &Node,
    path: &str,
    value: &Value,
    old: Option<&Value>,
    errors: &mut Vec<FieldError>,
) {
    if old == Some(value) {
        return;
    }
    if value.is_null() {
        check_type(node, path, value, errors);
        check_enum(node, path, value, errors);
        return;
    }
    check_type(node, path, value, errors);
    match value {
        Value::String(text) => {
            check_string(node, path, text, errors);
            check_format(node, path, text, errors);
        }
        Value::Number(number) => check_number(node, path, number, errors),
        _ => {}
    }
    if let Value::Array(items) = value {
        check_array(node, path, items, old.and_then(Value::as_array), errors);
    }
    check_enum(node, path, value, errors);
    if let Value::Object(members) = value {
        check_object(node, path, members, old.and_then(Value::as_object), errors);
    }
}

/// `path.key` (kube-openapi joins with a dot; the root has no name).
pub fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// kube-openapi's `Validation` error as a field error: `Invalid value: <value>: <message>`.
fn invalid(path: &str, value: BadValue, message: String) -> FieldError {
    FieldError::invalid(path.to_owned(), value, message)
}

/// The JSON type kube-openapi sees in a decoded value, and its format.
fn type_of(value: &Value) -> (&'static str, &'static str) {
    match value {
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Number(n) if n.as_i64().is_some() => ("integer", "int64"),
        Value::Number(_) => ("number", "float64"),
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
        Value::Null => ("null", ""),
    }
}

/// The type validator (`type.go`): `<path> in body must be of type <types>: "<found>"`.
fn check_type(node: &Node, path: &str, value: &Value, errors: &mut Vec<FieldError>) {
    if node.types.is_empty() && node.format_name.is_empty() {
        return;
    }
    let wanted = node.types.join(",");
    let fail = |errors: &mut Vec<FieldError>, wanted: &str, found: &str| {
        errors.push(FieldError::new(
            path.to_owned(),
            ErrorType::TypeInvalid,
            BadValue::Text(found.to_owned()),
            format!("{path} in body must be of type {wanted}: \"{found}\""),
        ));
    };
    if value.is_null() {
        if !node.types.is_empty() && !node.nullable {
            fail(errors, &wanted, "null");
        }
        return;
    }
    let (found, found_format) = type_of(value);
    let has = |t: &str| node.types.contains(&t);
    let float_int = found == "number"
        && value
            .as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        && has("integer");
    let int_float = found == "integer" && has("number");
    let is_text_or_list = matches!(value, Value::String(_) | Value::Array(_));
    let format = node.format_name.as_str();
    if !(is_text_or_list
        || format.is_empty()
        || has(found)
        || found_format == format
        || float_int
        || int_float)
    {
        fail(errors, format, found_format);
        return;
    }
    if is_text_or_list && !(has("number") || has("integer") || format.is_empty()) {
        return;
    }
    if !(has(found) || float_int || int_float) {
        fail(errors, &wanted, found);
    }
}

/// The string validator (`validator.go`): the first of maxLength, minLength, pattern that fails.
fn check_string(node: &Node, path: &str, text: &str, errors: &mut Vec<FieldError>) {
    let length = text.chars().count() as i64;
    if let Some(max) = node.max_length
        && length > max
    {
        errors.push(FieldError::new(
            path.to_owned(),
            ErrorType::TooLong,
            BadValue::Omitted,
            too_long_detail(max),
        ));
        return;
    }
    if let Some(min) = node.min_length
        && length < min
    {
        errors.push(invalid(
            path,
            BadValue::Text(text.to_owned()),
            format!("{path} in body should be at least {min} chars long"),
        ));
        return;
    }
    if let Some((pattern, compiled)) = &node.pattern {
        let message = match compiled {
            Some(re) if re.is_match(text) => return,
            Some(_) => format!("{path} in body should match '{pattern}'"),
            None => format!("{path} in body should match '{pattern}, but pattern is invalid'"),
        };
        errors.push(invalid(path, BadValue::Text(text.to_owned()), message));
    }
}

/// `field.TooLong(path, "", max)`'s detail.
fn too_long_detail(max: i64) -> String {
    let unit = if max == 1 { "byte" } else { "bytes" };
    format!("may not be more than {max} {unit}")
}

/// The format validator: `<path> in body must be of type <format>: "<value>"`.
fn check_format(node: &Node, path: &str, text: &str, errors: &mut Vec<FieldError>) {
    let Some(format) = node.format else {
        return;
    };
    if format.accepts(text) {
        return;
    }
    errors.push(FieldError::new(
        path.to_owned(),
        ErrorType::TypeInvalid,
        BadValue::Text(text.to_owned()),
        format!(
            "{path} in body must be of type {}: {}",
            node.format_name,
            super::field_error::go_quote(text)
        ),
    ));
}

/// A number as kube-openapi handles it: an int64 or a float64.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn of(number: &Number) -> Num {
        match number.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Float(number.as_f64().unwrap_or_default()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn value(self) -> BadValue {
        match self {
            Num::Int(i) => BadValue::Json(i.into()),
            Num::Float(f) => BadValue::Json(Number::from_f64(f).map_or(Value::Null, Value::Number)),
        }
    }
}

/// The type and format the number validator checks ranges against (`schema.go`: only for one
/// type, with a format of that type).
fn range_type(node: &Node) -> (&'static str, &str) {
    match node.types.as_slice() {
        ["integer"] => ("integer", node.format_name.as_str()),
        ["number"] => ("number", node.format_name.as_str()),
        _ => ("", ""),
    }
}

/// `IsValueValidAgainstRange` (`values.go`): whether `n` fits the type and format.
fn in_range(n: Num, type_name: &str, format: &str) -> bool {
    match type_name {
        "integer" => {
            let int = match n {
                Num::Int(i) => Some(i),
                Num::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Some(go_int64(f)),
                Num::Float(_) => None,
            };
            match (int, format) {
                (Some(i), "int32") => i32::try_from(i).is_ok(),
                (Some(_), _) => true,
                (None, _) => false,
            }
        }
        _ => match format {
            "float" => n.as_f64().abs() <= f64::from(f32::MAX),
            _ => true,
        },
    }
}

/// The error `IsValueValidAgainstRange` reports (a plain error: kube-apiserver names no field,
/// its nil path printed `<nil>`).
fn range_error(prefix: &str, type_name: &str, format: &str, path: &str) -> FieldError {
    let what = if format.is_empty() {
        format!("{type_name} (default format)")
    } else {
        format!("{type_name} with format {format}")
    };
    FieldError::invalid(
        super::field_error::NO_FIELD.to_owned(),
        BadValue::Text(String::new()),
        format!("{prefix} value must be of type {what} in {path}"),
    )
}

/// Go's `int64(f)`: the float's integer part (kube-openapi converts bounds and factors so).
#[expect(
    clippy::cast_possible_truncation,
    reason = "Go's int64(float64) truncates the same way"
)]
fn go_int64(f: f64) -> i64 {
    f as i64
}

/// A bound as the message prints it: as an int64 on the integer path, `%v` of the float else.
fn bound_text(bound: f64, native: bool) -> String {
    if native {
        go_int64(bound).to_string()
    } else {
        go_float(bound)
    }
}

/// The number validator: the value's range, then multipleOf, minimum, maximum.
fn check_number(node: &Node, path: &str, number: &Number, errors: &mut Vec<FieldError>) {
    let n = Num::of(number);
    let (type_name, format) = range_type(node);
    if !in_range(n, type_name, format) {
        errors.push(range_error("Checked", type_name, format, path));
    }
    let is_int = matches!(n, Num::Int(_));
    if let Some(factor) = node.multiple_of {
        let native = in_range(Num::Float(factor), type_name, format);
        if !native {
            errors.push(range_error("MultipleOf", type_name, format, path));
        }
        let fails = match (n, native && is_int) {
            (Num::Int(i), true) if go_int64(factor) != 0 => i % go_int64(factor) != 0,
            _ => !float_multiple(n.as_f64(), factor),
        };
        if fails {
            errors.push(invalid(
                path,
                n.value(),
                format!(
                    "{path} in body should be a multiple of {}",
                    bound_text(factor, native && is_int)
                ),
            ));
        }
    }
    if let Some((min, exclusive)) = node.minimum {
        let native = in_range(Num::Float(min), type_name, format);
        if !native {
            errors.push(range_error("Minimum boundary", type_name, format, path));
        }
        let v = n.as_f64();
        let fails = if exclusive { v <= min } else { v < min };
        if fails {
            let words = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            errors.push(invalid(
                path,
                n.value(),
                format!(
                    "{path} in body should be {words} {}",
                    bound_text(min, native && is_int)
                ),
            ));
        }
    }
    if let Some((max, exclusive)) = node.maximum {
        let native = in_range(Num::Float(max), type_name, format);
        if !native {
            errors.push(range_error("Maximum boundary", type_name, format, path));
        }
        let v = n.as_f64();
        let fails = if exclusive { v >= max } else { v > max };
        if fails {
            let words = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            errors.push(invalid(
                path,
                n.value(),
                format!(
                    "{path} in body should be {words} {}",
                    bound_text(max, native && is_int)
                ),
            ));
        }
    }
}

/// go-openapi's float `MultipleOf`: the quotient is a whole number (up to 1e-9 relative).
fn float_multiple(data: f64, factor: f64) -> bool {
    if factor <= 0.0 {
        return false;
    }
    let quotient = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    let whole = quotient.round();
    quotient == whole || (quotient - whole).abs() / (quotient.abs() + whole.abs()) < 1e-9
}

/// The slice validator: items, then minItems, maxItems, uniqueItems.
fn check_array(
    node: &Node,
    path: &str,
    items: &[Value],
    old: Option<&Vec<Value>>,
    errors: &mut Vec<FieldError>,
) {
    if let Some(item_schema) = &node.items {
        for (i, item) in items.iter().enumerate() {
            let old_item = old.and_then(|old| correlated_item(node, item, old));
            validate(item_schema, &format!("{path}[{i}]"), item, old_item, errors);
        }
    }
    let size = items.len() as i64;
    if let Some(min) = node.min_items
        && size < min
    {
        errors.push(invalid(
            path,
            BadValue::Json(size.into()),
            format!("{path} in body should have at least {min} items"),
        ));
    }
    if let Some(max) = node.max_items
        && size > max
    {
        errors.push(too_many(path, size, max));
    }
    if node.unique_items && has_duplicates(items) {
        errors.push(invalid(
            path,
            BadValue::Text(String::new()),
            format!("{path} in body shouldn't contain duplicates"),
        ));
    }
}

/// `field.TooMany(path, actual, max)`.
fn too_many(path: &str, actual: i64, max: i64) -> FieldError {
    let unit = if max == 1 { "item" } else { "items" };
    FieldError::new(
        path.to_owned(),
        ErrorType::TooMany,
        BadValue::Json(actual.into()),
        format!("must have at most {max} {unit}"),
    )
}

fn has_duplicates(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, a)| items[..i].iter().any(|b| b == a))
}

/// The old item a new list item correlates with: by its map keys in a list of type map.
fn correlated_item<'o>(node: &Node, item: &Value, old: &'o [Value]) -> Option<&'o Value> {
    let ListType::Map(keys) = &node.list_type else {
        return None;
    };
    old.iter()
        .find(|candidate| keys.iter().all(|k| candidate.get(k) == item.get(k)))
}

/// The enum validator: `Unsupported value: <value>: supported values: "a", "b"`.
fn check_enum(node: &Node, path: &str, value: &Value, errors: &mut Vec<FieldError>) {
    if node.enumeration.is_empty() || node.enumeration.iter().any(|e| enum_equal(value, e)) {
        return;
    }
    let supported: Vec<String> = node
        .enumeration
        .iter()
        .map(|e| {
            let text = match e {
                Value::String(s) => s.clone(),
                other => go_json(other),
            };
            super::field_error::go_quote(&text)
        })
        .collect();
    errors.push(FieldError::new(
        path.to_owned(),
        ErrorType::NotSupported,
        BadValue::Json(value.clone()),
        format!("supported values: {}", supported.join(", ")),
    ));
}

/// reflect.DeepEqual after converting the value to the enum value's type (numbers compare as
/// float64, as the CRD's enum values are decoded).
fn enum_equal(value: &Value, allowed: &Value) -> bool {
    match (value, allowed) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => value == allowed,
    }
}

/// The object validator: property counts, additional properties, declared properties, then
/// `required`.
fn check_object(
    node: &Node,
    path: &str,
    members: &Map<String, Value>,
    old: Option<&Map<String, Value>>,
    errors: &mut Vec<FieldError>,
) {
    let count = members.len() as i64;
    if let Some(min) = node.min_properties
        && count < min
    {
        errors.push(invalid(
            path,
            BadValue::Json(count.into()),
            format!("{path} in body should have at least {min} properties"),
        ));
    }
    if let Some(max) = node.max_properties
        && count > max
    {
        errors.push(too_many(path, count, max));
    }
    let old_member = |key: &str| old.and_then(|o| o.get(key));
    if let super::node::Additional::Allowed(Some(schema)) = &node.additional {
        for (key, value) in members {
            if !node.properties.contains_key(key) {
                let at = child_path(path, key);
                validate(schema, &at, value, old_member(key), errors);
            }
        }
    }
    for (key, schema) in &node.properties {
        if let Some(value) = members.get(key) {
            validate(
                schema,
                &child_path(path, key),
                value,
                old_member(key),
                errors,
            );
        }
    }
    for key in &node.required {
        if !members.contains_key(key) {
            errors.push(FieldError::required(child_path(path, key)));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn errors_of(schema: Value, value: Value) -> Vec<String> {
        let node = Node::compile(&schema);
        let mut errors = Vec::new();
        validate(&node, "", &value, None, &mut errors);
        errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.body()))
            .collect()
    }

    fn spec(properties: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}})
    }

    #[test]
    fn a_wrong_type_names_the_type_found() {
        let errors = errors_of(
            spec(json!({"replicas": {"type": "string"}})),
            json!({"spec": {"replicas": 3}}),
        );
        assert_eq!(
            errors,
            [
                r#"spec.replicas: Invalid value: "integer": spec.replicas in body must be of type string: "integer""#
            ]
        );
    }

    #[test]
    fn bounds_lengths_and_enums_are_worded_as_kube_openapi_words_them() {
        let schema = spec(json!({
            "replicas": {"type": "integer", "maximum": 10, "minimum": 1},
            "name": {"type": "string", "minLength": 3, "maxLength": 5},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
        }));
        let value =
            json!({"spec": {"replicas": 11, "name": "ab", "mode": "c", "tags": ["x", "y", "z"]}});
        assert_eq!(
            errors_of(schema, value),
            [
                r#"spec.mode: Unsupported value: "c": supported values: "a", "b""#,
                r#"spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long"#,
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
                "spec.tags: Too many: 3: must have at most 2 items",
            ]
        );
    }

    #[test]
    fn required_comes_after_the_properties() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}});
        assert_eq!(errors_of(schema, json!({})), ["spec: Required value"]);
    }

    #[test]
    fn int_or_string_and_nullable_take_what_they_say() {
        let schema = spec(json!({
            "port": {"x-kubernetes-int-or-string": true},
            "note": {"type": "string", "nullable": true},
        }));
        assert!(
            errors_of(
                schema.clone(),
                json!({"spec": {"port": "http", "note": null}})
            )
            .is_empty()
        );
        assert_eq!(
            errors_of(schema, json!({"spec": {"port": true}})),
            [
                r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#
            ]
        );
    }

    #[test]
    fn an_unchanged_value_is_not_validated_again() {
        let node = Node::compile(&spec(json!({"name": {"type": "string", "minLength": 3}})));
        let old = json!({"spec": {"name": "ab"}});
        let mut errors = Vec::new();
        validate(&node, "", &old, Some(&old), &mut errors);
        assert!(errors.is_empty());
    }
}
