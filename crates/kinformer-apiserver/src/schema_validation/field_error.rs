//! One validation error as apimachinery's `field.Error` words it
//! (`pkg/util/validation/field/errors.go` v0.37.2, `ErrorBody`): the type's words, the bad
//! value as Go prints it (`%v` for numbers and booleans, `%q` for strings, JSON for the rest)
//! and the detail; the Status cause's reason is the type (`FieldValueInvalid`, …).

use serde_json::Value;

/// How Go prints the field of an error on no path (`(*field.Path)(nil).String()`).
pub const NO_FIELD: &str = "<nil>";

/// `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    Required,
    Invalid,
    TypeInvalid,
    NotSupported,
    Duplicate,
    TooLong,
    TooMany,
    Forbidden,
}

impl ErrorType {
    /// The Status cause's `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Forbidden => "FieldValueForbidden",
        }
    }

    fn words(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Forbidden => "Forbidden",
        }
    }
}

/// The bad value a field error shows.
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// None shown (`Required value`, `Too long`, `Forbidden`).
    Omitted,
    /// A JSON value, printed as Go prints the decoded value.
    Json(Value),
    /// A string, printed `%q`.
    Text(String),
}

/// One error: its field path (`spec.replicas`), type, value and detail.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub field: String,
    pub kind: ErrorType,
    pub value: BadValue,
    pub detail: String,
}

impl FieldError {
    /// `field.Required(field, "")`.
    pub fn required(field: String) -> FieldError {
        FieldError::new(field, ErrorType::Required, BadValue::Omitted, String::new())
    }

    /// `field.Invalid(field, value, detail)`.
    pub fn invalid(field: String, value: BadValue, detail: String) -> FieldError {
        FieldError::new(field, ErrorType::Invalid, value, detail)
    }

    pub fn new(field: String, kind: ErrorType, value: BadValue, detail: String) -> FieldError {
        FieldError {
            field,
            kind,
            value,
            detail,
        }
    }

    /// Whether this error keeps the CEL rules from running (`hasBlockingErr`).
    pub fn blocks_rules(&self) -> bool {
        matches!(
            self.kind,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    }

    /// The Status cause's `reason`.
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }

    /// `ErrorBody()`: what the Status cause's `message` says.
    pub fn body(&self) -> String {
        let mut text = self.kind.words().to_owned();
        let shows_value = !matches!(
            self.kind,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong
        );
        if shows_value {
            match &self.value {
                BadValue::Omitted => {}
                BadValue::Text(s) => {
                    text.push_str(": ");
                    text.push_str(&go_quote(s));
                }
                BadValue::Json(value) => {
                    text.push_str(": ");
                    text.push_str(&go_value(value));
                }
            }
        }
        if !self.detail.is_empty() {
            text.push_str(": ");
            text.push_str(&self.detail);
        }
        text
    }
}

/// A decoded JSON value as `ErrorBody` prints it: strings `%q`, numbers and booleans `%v`,
/// null as `null`, objects and arrays as Go's `json.Marshal` writes them.
pub fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => go_quote(s),
        Value::Number(n) => go_number(n),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => go_json(other),
    }
}

/// A number as Go's `%v` prints an unstructured number: an int64 as is, a float64 `%g` with
/// the shortest digits (`1e+06`, `2.5`).
pub fn go_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    go_float(n.as_f64().unwrap_or_default())
}

/// Go's `%v` of a float64 (`%g` with the shortest digits: exponent form when the exponent is
/// < -4 or ≥ 6, strconv `ftoa.go`'s `eprec = 6` for the shortest precision).
pub fn go_float(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `1.5e6`.
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    format!("{f}")
}

/// Go's `strconv.Quote` (`%q`): printable runes as they are, `\"` and `\\`, the usual
/// escapes, `\xNN` and `\uNNNN` for the rest.
pub fn go_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `json.Marshal` of a decoded value: keys sorted, `<`, `>` and `&` escaped.
pub fn go_json(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_print_as_go_prints_them() {
        assert_eq!(go_value(&json!("a\"b")), r#""a\"b""#);
        assert_eq!(go_value(&json!(11)), "11");
        assert_eq!(go_value(&json!(2.5)), "2.5");
        assert_eq!(go_value(&json!(1_000_000.0)), "1e+06");
        assert_eq!(go_value(&json!(123_456.0)), "123456");
        assert_eq!(go_value(&json!(0.0001)), "0.0001");
        assert_eq!(go_value(&json!(0.00001)), "1e-05");
        assert_eq!(
            go_value(&json!({"b": 1, "a": "<"})),
            r#"{"a":"\u003c","b":1}"#
        );
    }

    #[test]
    fn bodies_follow_error_body() {
        let e = FieldError::new(
            "spec.replicas".into(),
            ErrorType::TypeInvalid,
            BadValue::Text("integer".into()),
            "spec.replicas in body must be of type string: \"integer\"".into(),
        );
        assert_eq!(
            e.body(),
            r#"Invalid value: "integer": spec.replicas in body must be of type string: "integer""#
        );
        assert_eq!(
            FieldError::required("spec.name".into()).body(),
            "Required value"
        );
    }
}
