//! Human durations: the shortest kubectl/Go-style text for a period (`1m30s`, `250ms`) and
//! kubectl's `AGE` column format (`5m`, `2d3h`).

use std::time::Duration;

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
