//! Ages as kube-apiserver prints them: `translateTimestampSince`
//! (kubernetes `pkg/printers/internalversion/printers.go:932`) over apimachinery's
//! `duration.HumanDuration` (`pkg/util/duration/duration.go:49`).

use jiff::Timestamp;

/// `HumanDuration` of `seconds` (whole seconds, as Go's `int(d.Seconds())` truncates).
pub fn human(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 2 * 60 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 3 * 60 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// `translateTimestampSince`: `<unknown>` for an absent (zero) time, else the age at `now`.
pub fn since(timestamp: Option<&str>, now: Timestamp) -> String {
    match timestamp.and_then(|t| t.parse::<Timestamp>().ok()) {
        Some(t) => {
            let nanos = now.as_nanosecond() - t.as_nanosecond();
            human(i64::try_from(nanos / 1_000_000_000).unwrap_or(i64::MAX))
        }
        None => "<unknown>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundaries of `duration.go:49-96`.
    #[test]
    fn human_duration_matches_apimachinery() {
        for (seconds, text) in [
            (-2, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (45, "45s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (9 * 60 + 59, "9m59s"),
            (10 * 60 + 30, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 5 * 60, "3h5m"),
            (8 * 3600 + 59 * 60, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (50 * 3600, "2d2h"),
            (8 * 86400, "8d"),
            (729 * 86400, "729d"),
            (730 * 86400, "2y"),
            (731 * 86400, "2y1d"),
            (8 * 365 * 86400 + 86400, "8y"),
        ] {
            assert_eq!(human(seconds), text, "{seconds}s");
        }
    }

    #[test]
    fn since_is_unknown_without_a_time() {
        let now: Timestamp = "2026-01-01T00:05:00Z".parse().unwrap();
        assert_eq!(since(None, now), "<unknown>");
        assert_eq!(since(Some("2026-01-01T00:00:00Z"), now), "5m");
        assert_eq!(since(Some("2026-01-01T00:00:01Z"), now), "4m59s");
    }
}
