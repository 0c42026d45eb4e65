//! Durations as kubectl and Go write them: `30s`, `5m`, `1h30m`, `1.5s`, `250ms`, `0`.
//!
//! [`parse_duration`] is the clap value parser of every duration flag; [`format_duration`]
//! prints the shortest text that parses back to the same value.

use std::time::Duration;

pub use crate::output::durations::format_duration;

/// Units, longest suffix first so `ms` wins over `m` and `s`.
const UNITS: [(&str, u128); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// The longest duration Go (and so kubectl and client-go) can hold: 2^63-1 ns, about 292
/// years. Anything longer is rejected at parse time, so no deadline computed from a parsed
/// duration can overflow a clock.
pub const MAX_DURATION: Duration = Duration::new(9_223_372_036, 854_775_807);

/// Parses a Go-style duration: one or more `NUMBER UNIT` pairs (units `ns us µs ms s m h`,
/// decimals allowed), or a bare `0`. Negative, empty, unit-less values and values above
/// [`MAX_DURATION`] are rejected.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = |why: &str| format!("invalid duration {text:?}: {why} (e.g. 30s, 5m, 1h30m, 250ms)");
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(bad("empty"));
    }
    if text.starts_with('-') {
        return Err(bad("must not be negative"));
    }
    let mut rest = text.strip_prefix('+').unwrap_or(text);
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let (nanos, tail) = parse_component(rest).map_err(|why| match why {
            TOO_LARGE => too_large(text),
            other => bad(other),
        })?;
        total = total.checked_add(nanos).ok_or_else(|| too_large(text))?;
        rest = tail;
    }
    if total > MAX_DURATION.as_nanos() {
        return Err(too_large(text));
    }
    let secs = u64::try_from(total / 1_000_000_000).map_err(|_| too_large(text))?;
    let nanos = u32::try_from(total % 1_000_000_000).map_err(|_| too_large(text))?;
    Ok(Duration::new(secs, nanos))
}

fn too_large(text: &str) -> String {
    format!(
        "invalid duration {text:?}: too large (the maximum is {})",
        format_duration(MAX_DURATION)
    )
}

/// Why a component cannot be read: more than [`MAX_DURATION`] (or than any integer).
const TOO_LARGE: &str = "too large";

/// One `NUMBER UNIT` pair at the start of `s`: its nanoseconds and what follows.
fn parse_component(s: &str) -> Result<(u128, &str), &'static str> {
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let (int, after) = s.split_at(int_len);
    let (frac, after) = match after.strip_prefix('.') {
        Some(f) => {
            let n = f.bytes().take_while(u8::is_ascii_digit).count();
            f.split_at(n)
        }
        None => ("", after),
    };
    if int.is_empty() && frac.is_empty() {
        return Err("expected a number");
    }
    let unit_len = after
        .char_indices()
        .find(|(_, c)| c.is_ascii_digit() || *c == '.')
        .map_or(after.len(), |(i, _)| i);
    let (unit, tail) = after.split_at(unit_len);
    let scale = UNITS
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, scale)| *scale)
        .ok_or(if unit.is_empty() {
            "missing unit"
        } else {
            "unknown unit"
        })?;
    Ok((component_nanos(int, frac, scale)?, tail))
}

fn component_nanos(int: &str, frac: &str, scale: u128) -> Result<u128, &'static str> {
    let whole: u128 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| TOO_LARGE)?
    };
    let mut nanos = whole.checked_mul(scale).ok_or(TOO_LARGE)?;
    // Digits beyond the 18th cannot change a value of at most 3.6e12 ns per unit.
    let frac = &frac[..frac.len().min(18)];
    if !frac.is_empty() {
        let digits: u128 = frac.parse().map_err(|_| "bad fraction")?;
        let denom = 10u128.pow(u32::try_from(frac.len()).unwrap_or(18));
        nanos = nanos.checked_add(digits * scale / denom).ok_or(TOO_LARGE)?;
    }
    Ok(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kubectl_durations() {
        let cases = [
            ("30s", Duration::from_secs(30)),
            ("5m", Duration::from_secs(300)),
            ("1h30m", Duration::from_secs(5400)),
            ("1.5s", Duration::from_millis(1500)),
            ("250ms", Duration::from_millis(250)),
            ("0", Duration::ZERO),
            ("0s", Duration::ZERO),
            ("1m0.5s", Duration::from_millis(60_500)),
            ("2us", Duration::from_micros(2)),
            ("3µs", Duration::from_micros(3)),
            (".5h", Duration::from_secs(1800)),
            ("10ns", Duration::from_nanos(10)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_bad_durations_with_one_line_errors() {
        for text in [
            "-1s",
            "5x",
            "",
            "5",
            "s",
            "1.s5",
            "1h-5m",
            "99999999999999999999999h",
            "9223372036854775807s",
            "2562048h",
            "2562047h47m16.854775808s",
        ] {
            let err = parse_duration(text).unwrap_err();
            assert!(!err.contains('\n'), "{err}");
            assert!(err.starts_with("invalid duration"), "{text}: {err}");
        }
    }

    #[test]
    fn go_max_duration_is_the_limit() {
        assert_eq!(parse_duration("2562047h47m16.854775807s"), Ok(MAX_DURATION));
        let err = parse_duration("9223372036854775807s").unwrap_err();
        assert_eq!(
            err,
            "invalid duration \"9223372036854775807s\": too large (the maximum is 2562047h47m16.854775807s)"
        );
    }

    #[test]
    fn formatter_round_trips() {
        for text in [
            "0s", "250ms", "1.5s", "30s", "1m30s", "5m", "1h30m", "2h", "1h0m5s",
        ] {
            let d = parse_duration(text).unwrap();
            assert_eq!(format_duration(d), text);
        }
    }
}
