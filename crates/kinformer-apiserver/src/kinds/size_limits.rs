//! The size limit core/v1 validation puts on a ConfigMap's and a Secret's contents
//! (`pkg/apis/core/validation/validation.go`, `ValidateConfigMap` and `ValidateSecret`): at most
//! `MaxSecretSize`, 1 MiB, counted over the values (a Secret's decoded bytes, after its
//! `stringData` is merged), not the keys. A ConfigMap's error names the field `[]` (the root
//! path), a Secret's `data`.

use serde_json::Value;

use super::Cause;

/// `corev1.MaxSecretSize`.
const MAX_SIZE: usize = 1024 * 1024;

/// A ConfigMap whose `data` and `binaryData` hold more than 1 MiB.
pub fn config_map(value: &Value) -> Vec<Cause> {
    let text: usize = values(value, "data").map(str::len).sum();
    let binary: usize = values(value, "binaryData").map(decoded_len).sum();
    too_long("[]", text + binary)
}

/// A Secret whose `data` decodes to more than 1 MiB.
pub fn secret(value: &Value) -> Vec<Cause> {
    too_long("data", values(value, "data").map(decoded_len).sum())
}

fn values<'a>(value: &'a Value, map: &str) -> impl Iterator<Item = &'a str> {
    value[map]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
        .filter_map(Value::as_str)
}

/// The number of bytes a padded base64 text decodes to.
fn decoded_len(text: &str) -> usize {
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}

fn too_long(field: &str, size: usize) -> Vec<Cause> {
    if size <= MAX_SIZE {
        return Vec::new();
    }
    vec![Cause {
        field: field.to_owned(),
        reason: "FieldValueTooLong",
        message: format!("Too long: may not be more than {MAX_SIZE} bytes"),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_mebibyte_is_allowed_and_one_byte_more_is_not() {
        let at_limit = json!({"data": {"a": "x".repeat(MAX_SIZE - 1), "b": "y"}});
        assert!(config_map(&at_limit).is_empty());
        let over = json!({"data": {"a": "x".repeat(MAX_SIZE)}, "binaryData": {"b": "eQ=="}});
        let causes = config_map(&over);
        assert_eq!(
            (causes[0].field.as_str(), causes[0].message.as_str()),
            ("[]", "Too long: may not be more than 1048576 bytes")
        );
        // 4 base64 characters without padding are 3 bytes; "eQ==" is one.
        assert_eq!((decoded_len("eXl5"), decoded_len("eQ==")), (3, 1));
        let secret_over = json!({"data": {"k": "eXl5".repeat(MAX_SIZE / 3 + 1)}});
        assert_eq!(secret(&secret_over)[0].field, "data");
    }
}
