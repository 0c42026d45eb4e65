//! Durations as kubectl and Go write them: `30s`, `5m`, `1h30m`, `1.5s`, `250ms`, `0`.
//!
//! [`parse_duration`] is the clap value parser of every duration flag; [`format_duration`]
//! prints the shortest text that parses back to the same value; [`age`] is kubectl's `AGE`
//! column. The one module for durations, read and written.

use std::time::Duration;

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

/// The shortest Go-style text for `d`, which `--resync`/`--duration` parse back to the same
/// value: `0s`, `250ms`, `1.5s`, `1m30s`, `2h`, `1h0m5s`, `1.000001s` … (units h, m, s, ms,
/// µs as `us`, ns).
pub fn format_duration(d: Duration) -> String {
    if d.is_zero() {
        return "0s".to_owned();
    }
    let nanos = d.as_nanos();
    if nanos < 1_000 {
        return format!("{nanos}ns");
    }
    if nanos < 1_000_000 {
        return format!("{}us", decimal(nanos, 1_000));
    }
    if nanos < 1_000_000_000 {
        return format!("{}ms", decimal(nanos, 1_000_000));
    }
    let secs = d.as_secs();
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let sub = u128::from(d.subsec_nanos());
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 || (h > 0 && (s > 0 || sub > 0)) {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || sub > 0 {
        out.push_str(&decimal(u128::from(s) * 1_000_000_000 + sub, 1_000_000_000));
        out.push('s');
    }
    out
}

/// `value / unit` with the fraction's trailing zeros dropped (`1500, 1000` → `1.5`).
fn decimal(value: u128, unit: u128) -> String {
    let (whole, frac) = (value / unit, value % unit);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = unit.ilog10() as usize;
    let frac = format!("{frac:0digits$}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

/// kubectl's `AGE` (apimachinery `HumanDuration`): `45s`, `5m10s`, `47m`, `3h5m`, `20h`,
/// `2d3h`, `40d`, `3y20d`, `9y`.
pub fn age(d: Duration) -> String {
    let secs = d.as_secs();
    let (mins, hours, days) = (secs / 60, secs / 3600, secs / 86_400);
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 600 => with_rest(mins, 'm', s % 60, 's'),
        s if s < 3 * 3600 => format!("{mins}m"),
        s if s < 8 * 3600 => with_rest(hours, 'h', mins % 60, 'm'),
        s if s < 48 * 3600 => format!("{hours}h"),
        s if s < 8 * 86_400 => with_rest(days, 'd', hours % 24, 'h'),
        s if s < 2 * 365 * 86_400 => format!("{days}d"),
        s if s < 8 * 365 * 86_400 => with_rest(days / 365, 'y', days % 365, 'd'),
        _ => format!("{}y", days / 365),
    }
}

fn with_rest(major: u64, major_unit: char, minor: u64, minor_unit: char) -> String {
    if minor == 0 {
        format!("{major}{major_unit}")
    } else {
        format!("{major}{major_unit}{minor}{minor_unit}")
    }
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

    #[test]
    fn shortest_go_style_text() {
        let cases = [
            (Duration::ZERO, "0s"),
            (Duration::from_millis(250), "250ms"),
            (Duration::from_millis(1500), "1.5s"),
            (Duration::from_secs(30), "30s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(300), "5m"),
            (Duration::from_secs(5400), "1h30m"),
            (Duration::from_secs(7200), "2h"),
            (Duration::from_secs(3605), "1h0m5s"),
            (Duration::from_nanos(1500), "1.5us"),
            (Duration::from_nanos(7), "7ns"),
        ];
        for (d, text) in cases {
            assert_eq!(format_duration(d), text, "{d:?}");
        }
    }

    #[test]
    fn kubectl_age() {
        let cases = [
            (45, "45s"),
            (310, "5m10s"),
            (300, "5m"),
            (2820, "47m"),
            (3 * 3600 + 300, "3h5m"),
            (20 * 3600, "20h"),
            (2 * 86_400 + 3 * 3600, "2d3h"),
            (40 * 86_400, "40d"),
            (3 * 365 * 86_400 + 20 * 86_400, "3y20d"),
            (9 * 365 * 86_400, "9y"),
        ];
        for (secs, text) in cases {
            assert_eq!(age(Duration::from_secs(secs)), text);
        }
    }
}
