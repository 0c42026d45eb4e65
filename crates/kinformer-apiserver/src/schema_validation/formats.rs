//! The string formats kube-apiserver 1.37 validates a custom resource's strings against
//! (apiextensions-apiserver `pkg/apiserver/validation/formats.go` v0.37.2, checked by
//! kube-openapi's `strfmt.Default` registry: `pkg/validation/strfmt/default.go`, `time.go`,
//! `date.go`, `duration.go`, `kubernetes-extensions.go`). A format the registry does not know
//! is dropped from the schema before validation, as kube-apiserver drops it.
//!
//! Approximations, documented in the server crate's README: `email` (Go's `net/mail`
//! address parser) accepts `local@domain` without spaces, `uri` a string with a scheme or an
//! absolute path, `isbn*`, `creditcard` and `ssn` follow govalidator's shapes loosely.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use base64::Engine as _;
use regex::Regex;

/// A known string format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    BsonObjectId,
    Uri,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Cidr,
    Mac,
    Uuid,
    Uuid3,
    Uuid4,
    Uuid5,
    Isbn,
    Isbn10,
    Isbn13,
    CreditCard,
    Ssn,
    HexColor,
    RgbColor,
    Byte,
    Password,
    Date,
    Duration,
    DateTime,
    ShortName,
    LongName,
    /// `int32`/`int64`/`float`/`double`: checked by the number validator, not here.
    Numeric,
}

impl Format {
    /// The format called `name` (go-openapi normalises names by dropping dashes: `date-time`).
    pub fn named(name: &str) -> Option<Format> {
        Some(match name.replace('-', "").as_str() {
            "bsonobjectid" => Format::BsonObjectId,
            "uri" => Format::Uri,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "cidr" => Format::Cidr,
            "mac" => Format::Mac,
            "uuid" => Format::Uuid,
            "uuid3" => Format::Uuid3,
            "uuid4" => Format::Uuid4,
            "uuid5" => Format::Uuid5,
            "isbn" => Format::Isbn,
            "isbn10" => Format::Isbn10,
            "isbn13" => Format::Isbn13,
            "creditcard" => Format::CreditCard,
            "ssn" => Format::Ssn,
            "hexcolor" => Format::HexColor,
            "rgbcolor" => Format::RgbColor,
            "byte" => Format::Byte,
            "password" => Format::Password,
            "date" => Format::Date,
            "duration" => Format::Duration,
            "datetime" => Format::DateTime,
            "k8sshortname" => Format::ShortName,
            "k8slongname" => Format::LongName,
            "int32" | "int64" | "float" | "double" => Format::Numeric,
            _ => return None,
        })
    }

    /// Whether `text` is valid in this format.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Format::BsonObjectId => text.len() == 24 && hex(text),
            Format::Uri => is_request_uri(text),
            Format::Email => is_email(text),
            Format::Hostname => matches(&HOSTNAME, text),
            Format::Ipv4 => text.contains('.') && text.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => text.contains(':') && text.parse::<Ipv6Addr>().is_ok(),
            Format::Cidr => is_cidr(text),
            Format::Mac => matches(&MAC, text),
            Format::Uuid => matches(&UUID, text),
            Format::Uuid3 => matches(&UUID3, text),
            Format::Uuid4 => matches(&UUID4, text),
            Format::Uuid5 => matches(&UUID5, text),
            Format::Isbn => is_isbn10(text) || is_isbn13(text),
            Format::Isbn10 => is_isbn10(text),
            Format::Isbn13 => is_isbn13(text),
            Format::CreditCard => is_credit_card(text),
            Format::Ssn => matches(&SSN, text),
            Format::HexColor => matches(&HEX_COLOR, text),
            Format::RgbColor => matches(&RGB_COLOR, text),
            Format::Byte => base64::engine::general_purpose::STANDARD
                .decode(text)
                .is_ok(),
            Format::Password | Format::Numeric => true,
            Format::Date => is_date(text),
            Format::Duration => is_duration(text),
            Format::DateTime => is_date_time(text),
            Format::ShortName => text.len() <= 63 && matches(&SHORT_NAME, text),
            Format::LongName => text.len() <= 253 && matches(&LONG_NAME, text),
        }
    }
}

fn matches(re: &LazyLock<Option<Regex>>, text: &str) -> bool {
    re.as_ref().is_some_and(|re| re.is_match(text))
}

macro_rules! pattern {
    ($name:ident, $re:expr) => {
        static $name: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new($re).ok());
    };
}

pattern!(
    HOSTNAME,
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
);
pattern!(
    UUID,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
);
pattern!(
    UUID3,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
);
pattern!(
    UUID4,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
);
pattern!(
    UUID5,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
);
pattern!(
    MAC,
    r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$"
);
pattern!(SSN, r"^\d{3}[- ]?\d{2}[- ]?\d{4}$");
pattern!(HEX_COLOR, r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
pattern!(
    RGB_COLOR,
    r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"
);
pattern!(SHORT_NAME, r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
pattern!(
    LONG_NAME,
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
);
pattern!(
    TIME_OF_DAY,
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
);
pattern!(DURATION_PART, r"((\d+)\s*([A-Za-zµ]+))");

fn hex(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Go's `time.Parse("2006-01-02", text)`.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &text[range];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in(year, month)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// strfmt's `IsDateTime`: a date, `t`, a time of day with a zone, compared as text.
fn is_date_time(text: &str) -> bool {
    if text.len() < 4 {
        return false;
    }
    let lower = text.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(Some(caps)) = TIME_OF_DAY.as_ref().map(|re| re.captures(time)) else {
        return false;
    };
    &caps[1] <= "23" && &caps[2] <= "59" && &caps[3] <= "59"
}

/// strfmt's `ParseDuration`: Go's `time.ParseDuration`, else numbers with unit words.
fn is_duration(text: &str) -> bool {
    if go_duration(text) {
        return true;
    }
    let Some(re) = DURATION_PART.as_ref() else {
        return false;
    };
    let mut any = false;
    for caps in re.captures_iter(text) {
        any = true;
        if caps[2].parse::<i64>().is_err() || !duration_unit(&caps[3]) {
            return false;
        }
    }
    any
}

fn duration_unit(unit: &str) -> bool {
    matches!(
        unit,
        "ns" | "us"
            | "µs"
            | "ms"
            | "s"
            | "m"
            | "h"
            | "d"
            | "w"
            | "nanosecond"
            | "nanoseconds"
            | "microsecond"
            | "microseconds"
            | "millisecond"
            | "milliseconds"
            | "second"
            | "seconds"
            | "sec"
            | "secs"
            | "minute"
            | "minutes"
            | "min"
            | "mins"
            | "hour"
            | "hours"
            | "hr"
            | "hrs"
            | "day"
            | "days"
            | "week"
            | "weeks"
    )
}

/// Go's `time.ParseDuration` grammar: `[-+]` then (number unit)+, or `0`.
fn go_duration(text: &str) -> bool {
    let body = text.trim_start_matches(['-', '+']);
    if body == "0" {
        return true;
    }
    let mut rest = body;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 || rest[..digits] == *"." {
            return false;
        }
        rest = &rest[digits..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        if !matches!(
            &rest[..unit_end],
            "ns" | "us" | "µs" | "μs" | "ms" | "s" | "m" | "h"
        ) {
            return false;
        }
        rest = &rest[unit_end..];
    }
    true
}

fn is_cidr(text: &str) -> bool {
    let Some((address, bits)) = text.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    if address.contains(':') {
        address.parse::<Ipv6Addr>().is_ok() && bits <= 128
    } else {
        sloppy_ipv4(address) && bits <= 32
    }
}

/// An IPv4 address whose parts may have leading zeros (netutils' sloppy parsing).
fn sloppy_ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn is_email(text: &str) -> bool {
    let address = match (text.find('<'), text.rfind('>')) {
        (Some(open), Some(close)) if open < close && close == text.len() - 1 => {
            &text[open + 1..close]
        }
        _ => text.trim(),
    };
    let Some((local, domain)) = address.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !address.contains(char::is_whitespace)
        && !domain.starts_with('.')
        && !domain.ends_with('.')
}

/// govalidator's `IsRequestURI` (Go's `url.ParseRequestURI`): an absolute URI or an absolute
/// path.
fn is_request_uri(text: &str) -> bool {
    if text.starts_with('/') {
        return !text.contains(char::is_whitespace);
    }
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !text.contains(char::is_whitespace)
}

fn digits_only(text: &str) -> String {
    text.chars().filter(|c| *c != '-' && *c != ' ').collect()
}

fn is_isbn10(text: &str) -> bool {
    let s = digits_only(text);
    let b = s.as_bytes();
    if b.len() != 10 || !b[..9].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let last = match b[9] {
        b'X' => 10,
        d if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return false,
    };
    let sum: u32 = b[..9]
        .iter()
        .zip(1u32..)
        .map(|(d, i)| i * u32::from(d - b'0'))
        .sum::<u32>()
        + 10 * last;
    sum.is_multiple_of(11)
}

fn is_isbn13(text: &str) -> bool {
    let s = digits_only(text);
    let b = s.as_bytes();
    if b.len() != 13 || !b.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = b
        .iter()
        .enumerate()
        .map(|(i, d)| u32::from(d - b'0') * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    sum.is_multiple_of(10)
}

/// govalidator's `IsCreditCard`: its digits (other characters dropped) pass Luhn's check and
/// the card-number shapes.
fn is_credit_card(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(12..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| match i % 2 {
            1 if d * 2 > 9 => d * 2 - 9,
            1 => d * 2,
            _ => *d,
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_and_refuse_as_strfmt_does() {
        let cases = [
            (Format::DateTime, "2024-01-02T03:04:05Z", true),
            (Format::DateTime, "2024-01-02T03:04:05.123+01:00", true),
            (Format::DateTime, "2024-01-02", false),
            (Format::DateTime, "2024-13-02T03:04:05Z", false),
            (Format::Date, "2024-02-29", true),
            (Format::Date, "2023-02-29", false),
            (Format::Ipv4, "10.0.0.1", true),
            (Format::Ipv4, "10.0.0", false),
            (Format::Ipv6, "::1", true),
            (Format::Cidr, "10.0.0.0/8", true),
            (Format::Cidr, "10.0.0.0/33", false),
            (Format::Uuid, "0b9e3a6c-5a4f-4c8e-9d1e-0f2a3b4c5d6e", true),
            (Format::Uuid, "not-a-uuid", false),
            (Format::Byte, "aGVsbG8=", true),
            (Format::Byte, "!!", false),
            (Format::Duration, "1h30m", true),
            (Format::Duration, "3 days", true),
            (Format::Duration, "soon", false),
            (Format::ShortName, "web-1", true),
            (Format::ShortName, "Web", false),
            (Format::LongName, "a.b-c", true),
            (Format::Hostname, "example.com", true),
            (Format::Hostname, "-bad", false),
            (Format::Email, "a@example.com", true),
            (Format::Email, "nobody", false),
            (Format::Uri, "https://example.com/x", true),
            (Format::Uri, "example", false),
            (Format::Mac, "01:23:45:67:89:ab", true),
        ];
        for (format, text, valid) in cases {
            assert_eq!(format.accepts(text), valid, "{format:?} {text:?}");
        }
    }

    #[test]
    fn dashes_are_dropped_from_format_names() {
        assert_eq!(Format::named("date-time"), Some(Format::DateTime));
        assert_eq!(Format::named("k8s-short-name"), Some(Format::ShortName));
        assert_eq!(Format::named("colour"), None);
    }
}
