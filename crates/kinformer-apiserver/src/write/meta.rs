//! The JSON helpers every write shares: a request body as an object, a string at a JSON
//! pointer, an object's `metadata` to edit, and timestamps as Kubernetes writes them.

use std::cell::RefCell;

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use crate::status::ApiError;

/// The body of a request as a JSON object (400 otherwise).
pub fn parse_object(body: &[u8]) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(value)
}

/// A string at a JSON pointer, or "".
pub fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `metadata` as a mutable map (created when missing).
pub fn metadata_mut(value: &mut Value) -> Result<&mut Map<String, Value>, ApiError> {
    let object = value
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
    object
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("metadata must be a JSON object"))
}

/// RFC 3339 timestamp with second precision, as Kubernetes writes them (formatted once a
/// second per thread: every write stamps its managedFields entry).
pub fn now() -> String {
    thread_local! {
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    let at = Timestamp::now();
    LAST.with_borrow_mut(|(second, text)| {
        if *second != at.as_second() {
            *second = at.as_second();
            *text = at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        }
        text.clone()
    })
}
