//! The kube messages whose Go types write their own JSON: `meta.v1.Time` and `MicroTime`
//! (RFC 3339 in UTC, `apimachinery/pkg/apis/meta/v1/time.go` MarshalJSON and `micro_time.go`),
//! `Duration` (Go's `time.Duration.String`), `resource.Quantity` (its string),
//! `intstr.IntOrString` (an int or a string by its `type`), `runtime.RawExtension`,
//! `meta.v1.FieldsV1` and apiextensions' `JSON` (the raw JSON they hold), and apiextensions'
//! `JSONSchemaPropsOr{Bool,Array,StringArray}` (`types_jsonschema.go` MarshalJSON).

use serde_json::Value;

use super::DecodeError;
use super::wire::{self, Wire};

fn malformed(why: impl Into<String>) -> DecodeError {
    DecodeError::Malformed(why.into())
}

pub fn varint_field(bytes: &[u8], number: u32) -> Result<Option<u64>, DecodeError> {
    let mut found = None;
    for (n, value) in wire::fields(bytes)? {
        if let (true, Wire::Varint(v)) = (n == number, value) {
            found = Some(v);
        }
    }
    Ok(found)
}

pub fn bytes_field(bytes: &[u8], number: u32) -> Result<Option<&[u8]>, DecodeError> {
    let mut found = None;
    for (n, value) in wire::fields(bytes)? {
        if let (true, Wire::Bytes(v)) = (n == number, value) {
            found = Some(v);
        }
    }
    Ok(found)
}

/// `Time` (seconds 1, nanos 2): an empty message is Go's zero time, whose JSON is null.
pub fn time(bytes: &[u8], micro: bool) -> Result<Value, DecodeError> {
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    let seconds = varint_field(bytes, 1)?.unwrap_or(0) as i64;
    let nanos = wire::int32(varint_field(bytes, 2)?.unwrap_or(0));
    let stamp = jiff::Timestamp::new(seconds, nanos)
        .map_err(|e| malformed(format!("a time is out of range: {e}")))?;
    let whole = stamp.strftime("%Y-%m-%dT%H:%M:%S").to_string();
    Ok(Value::String(if micro {
        format!("{whole}.{:06}Z", stamp.subsec_nanosecond() / 1000)
    } else {
        format!("{whole}Z")
    }))
}

/// [`time`] written straight into `out` (`null`, or the quoted RFC 3339 text in UTC).
pub fn write_time(out: &mut Vec<u8>, bytes: &[u8], micro: bool) -> Result<(), DecodeError> {
    if bytes.is_empty() {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    let seconds = varint_field(bytes, 1)?.unwrap_or(0).cast_signed();
    let nanos = wire::int32(varint_field(bytes, 2)?.unwrap_or(0));
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil(days);
    if !(0..=9999).contains(&year) || !(0..1_000_000_000).contains(&nanos) {
        return Err(malformed("a time is out of range"));
    }
    let mut text = [0u8; 29];
    let mut put = |at: usize, value: i64, width: usize| {
        let mut value = value;
        for i in (at..at + width).rev() {
            text[i] = b'0' + u8::try_from(value % 10).unwrap_or(0);
            value /= 10;
        }
    };
    put(1, year, 4);
    put(6, month, 2);
    put(9, day, 2);
    put(12, of_day / 3600, 2);
    put(15, of_day / 60 % 60, 2);
    put(18, of_day % 60, 2);
    put(21, i64::from(nanos / 1000), 6);
    for (at, byte) in [
        (0, b'"'),
        (5, b'-'),
        (8, b'-'),
        (11, b'T'),
        (14, b':'),
        (17, b':'),
    ] {
        text[at] = byte;
    }
    let end = if micro {
        text[20] = b'.';
        27
    } else {
        20
    };
    text[end] = b'Z';
    text[end + 1] = b'"';
    out.extend_from_slice(&text[..end + 2]);
    Ok(())
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `Duration` (duration 1, nanoseconds) as Go writes it: `1h0m0s`, `1.5s`, `300ms`.
pub fn duration(bytes: &[u8]) -> Result<Value, DecodeError> {
    let nanos = varint_field(bytes, 1)?.unwrap_or(0) as i64;
    Ok(Value::String(go_duration(nanos)))
}

/// `value / 10^digits` with its fraction, trailing zeros trimmed.
fn fraction(value: u64, digits: u32) -> String {
    let scale = 10u64.pow(digits);
    let fraction = format!("{:0width$}", value % scale, width = digits as usize);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        format!("{}", value / scale)
    } else {
        format!("{}.{fraction}", value / scale)
    }
}

fn go_duration(nanos: i64) -> String {
    let sign = if nanos < 0 { "-" } else { "" };
    let u = nanos.unsigned_abs();
    let text = match u {
        0 => "0s".to_owned(),
        1..1_000 => format!("{u}ns"),
        1_000..1_000_000 => format!("{}µs", fraction(u, 3)),
        1_000_000..1_000_000_000 => format!("{}ms", fraction(u, 6)),
        _ => {
            let seconds = u / 1_000_000_000;
            let rest = fraction(u % 60_000_000_000, 9);
            match (seconds / 3600, seconds / 60 % 60) {
                (0, 0) => format!("{rest}s"),
                (0, minutes) => format!("{minutes}m{rest}s"),
                (hours, minutes) => format!("{hours}h{minutes}m{rest}s"),
            }
        }
    };
    format!("{sign}{text}")
}

fn text(bytes: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| malformed("a string is not valid UTF-8"))
}

/// `Quantity` (string 1).
pub fn quantity(bytes: &[u8]) -> Result<Value, DecodeError> {
    let given = bytes_field(bytes, 1)?.map(text).transpose()?;
    Ok(Value::String(given.unwrap_or_else(|| "0".into())))
}

/// `IntOrString` (type 1, intVal 2, strVal 3).
pub fn int_or_string(bytes: &[u8]) -> Result<Value, DecodeError> {
    if varint_field(bytes, 1)? == Some(1) {
        let given = bytes_field(bytes, 3)?.map(text).transpose()?;
        return Ok(Value::String(given.unwrap_or_default()));
    }
    let int = wire::int32(varint_field(bytes, 2)?.unwrap_or(0));
    Ok(Value::from(int))
}

/// Raw JSON in field 1 (null when empty); a nested protobuf object (magic first) is decoded.
pub fn raw_json(bytes: &[u8], depth: usize) -> Result<Value, DecodeError> {
    match bytes_field(bytes, 1)? {
        None | Some([]) => Ok(Value::Null),
        Some(raw) if raw.starts_with(super::MAGIC) => super::decode_at(raw, depth + 1),
        Some(raw) => serde_json::from_slice(raw)
            .map_err(|e| malformed(format!("an embedded object is not JSON: {e}"))),
    }
}

/// apiextensions' `JSONSchemaPropsOr*` (`name`), decoded as a plain message (`decoded`): a
/// schema, or the bool or array beside it.
pub fn schema_or(name: &str, decoded: Value) -> Result<Value, DecodeError> {
    let Value::Object(mut fields) = decoded else {
        return Ok(Value::Null);
    };
    let schema = fields.remove("schema");
    let other = ["allows", "JSONSchemas", "jSONSchemas", "property"]
        .iter()
        .find_map(|key| fields.remove(*key));
    Ok(match (name.ends_with("OrBool"), schema, other) {
        (true, Some(schema), _) => schema,
        (true, None, allows) => Value::Bool(allows.and_then(|a| a.as_bool()).unwrap_or(false)),
        (false, _, Some(Value::Array(items))) if !items.is_empty() => Value::Array(items),
        (false, schema, _) => schema.unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_written_as_go_writes_them() {
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
        assert_eq!(go_duration(1_500_000_000), "1.5s");
        assert_eq!(go_duration(90_000_000_000), "1m30s");
        assert_eq!(go_duration(300_000_000), "300ms");
        assert_eq!(go_duration(-2_000), "-2µs");
    }

    #[test]
    fn written_times_match_the_value_times() {
        for (seconds, nanos) in [
            (0i64, 0i32),
            (1_764_000_000, 123_456_789),
            (951_782_400, 0),
            (-86_401, 0),
        ] {
            let mut bytes = vec![0x08];
            let mut value = seconds.cast_unsigned();
            while value >= 0x80 {
                bytes.push(u8::try_from(value & 0x7f).unwrap_or(0) | 0x80);
                value >>= 7;
            }
            bytes.push(u8::try_from(value).unwrap_or(0));
            bytes.push(0x10);
            let mut value = u64::try_from(nanos).unwrap_or(0);
            while value >= 0x80 {
                bytes.push(u8::try_from(value & 0x7f).unwrap_or(0) | 0x80);
                value >>= 7;
            }
            bytes.push(u8::try_from(value).unwrap_or(0));
            for micro in [false, true] {
                let mut out = Vec::new();
                assert_eq!(write_time(&mut out, &bytes, micro), Ok(()));
                let expected = time(&bytes, micro).map(|v| v.to_string());
                assert_eq!(Ok(String::from_utf8_lossy(&out).into_owned()), expected);
            }
        }
    }

    #[test]
    fn times_are_rfc3339_in_utc_and_empty_is_null() {
        assert_eq!(time(&[], false), Ok(Value::Null));
        // seconds = 1, nanos = 2000
        let bytes = [0x08, 0x01, 0x10, 0xd0, 0x0f];
        assert_eq!(time(&bytes, false), Ok("1970-01-01T00:00:01Z".into()));
        assert_eq!(time(&bytes, true), Ok("1970-01-01T00:00:01.000002Z".into()));
    }
}
