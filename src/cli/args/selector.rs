//! Syntax checks for `-l/--selector` and `--field-selector`, as the API server would apply
//! them, so a typo fails at parse time instead of as a 400 from the server.

/// Checks a label selector: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k`, `!k`,
/// `k in (a,b)`, `k notin (a,b)`, `k>1`, `k<1`. The empty selector selects everything.
pub fn validate_label_selector(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    for requirement in split_top_level(text)? {
        validate_requirement(requirement.trim())?;
    }
    Ok(())
}

/// Splits at commas outside parentheses; unbalanced parentheses are an error.
fn split_top_level(text: &str) -> Result<Vec<&str>, String> {
    let (mut depth, mut start, mut parts) = (0u32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '(' if depth > 0 => return Err("nested parentheses".into()),
            '(' => depth += 1,
            ')' if depth == 0 => return Err("unmatched ')'".into()),
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth > 0 {
        return Err("missing ')'".into());
    }
    parts.push(&text[start..]);
    Ok(parts)
}

fn validate_requirement(req: &str) -> Result<(), String> {
    if req.is_empty() {
        return Err("empty requirement".into());
    }
    if let Some(key) = req.strip_prefix('!') {
        return validate_key(key.trim());
    }
    if let Some(open) = req.find('(') {
        return validate_set_requirement(req, open);
    }
    match req.find(['=', '!', '<', '>']) {
        None => validate_key(req),
        Some(at) => {
            let (key, rest) = req.split_at(at);
            let (op, value) = split_operator(rest)?;
            validate_key(key.trim())?;
            let value = value.trim();
            if matches!(op, "<" | ">") && value.parse::<i64>().is_err() {
                return Err(format!("{op} needs an integer value, got {value:?}"));
            }
            validate_value(value)
        }
    }
}

fn split_operator(rest: &str) -> Result<(&str, &str), String> {
    ["==", "!=", "=", "<", ">"]
        .iter()
        .find_map(|op| rest.strip_prefix(op).map(|v| (*op, v)))
        .ok_or_else(|| format!("unknown operator in {rest:?}"))
}

/// `key in (a,b)` / `key notin (a,b)`; `open` is the byte offset of `(`.
fn validate_set_requirement(req: &str, open: usize) -> Result<(), String> {
    let head: Vec<&str> = req[..open].split_whitespace().collect();
    let [key, op] = head.as_slice() else {
        return Err(format!("expected KEY in (…) or KEY notin (…), got {req:?}"));
    };
    if !matches!(*op, "in" | "notin") {
        return Err(format!("unknown operator {op:?}: expected in or notin"));
    }
    validate_key(key)?;
    let inner = req[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| format!("text after ')' in {req:?}"))?;
    for value in inner.split(',') {
        validate_value(value.trim())?;
    }
    Ok(())
}

/// A label key: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 characters.
fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        let ok = !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|label| {
                !label.is_empty()
                    && label
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            });
        if !ok {
            return Err(format!("invalid label key prefix {p:?}"));
        }
    }
    if name.is_empty() || !is_label_name(name) {
        return Err(format!("invalid label key {key:?}"));
    }
    Ok(())
}

/// A label value: empty, or ≤ 63 alphanumerics, `-`, `_`, `.`, alphanumeric at both ends.
fn validate_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_name(value) {
        Ok(())
    } else {
        Err(format!("invalid label value {value:?}"))
    }
}

fn is_label_name(s: &str) -> bool {
    s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// Checks a field selector: comma-separated `path=value`, `path==value` or `path!=value`
/// (a `\,` inside a value is an escaped comma).
pub fn validate_field_selector(text: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    for term in split_unescaped_commas(text) {
        let term = term.trim();
        let at = term
            .find(['=', '!'])
            .ok_or_else(|| format!("{term:?} has no operator (=, == or !=)"))?;
        let (key, rest) = term.split_at(at);
        if !matches!(rest.get(..1), Some("=")) && !rest.starts_with("!=") {
            return Err(format!("unknown operator in {term:?}"));
        }
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(format!("invalid field path {key:?}"));
        }
    }
    Ok(())
}

fn split_unescaped_commas(text: &str) -> Vec<&str> {
    let (mut parts, mut start, mut escaped) = (Vec::new(), 0, false);
    for (i, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            ',' if !escaped => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => escaped = false,
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_label_selectors() {
        for s in [
            "",
            "app=web",
            "app==web,tier!=db",
            "app",
            "!app",
            "env in (prod, staging)",
            "env notin (dev)",
            "app.kubernetes.io/name=web",
            "replicas>1",
            "app=",
            "a in ()",
        ] {
            assert_eq!(validate_label_selector(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn invalid_label_selectors() {
        for s in [
            "a in (b",
            "a in b)",
            "a,,b",
            "a=b=c",
            "-a=b",
            "a=-b",
            "a>x",
            "a maybe (b)",
            "Bad_Prefix/a=b",
            "a=b c",
            &"x".repeat(64),
        ] {
            assert!(validate_label_selector(s).is_err(), "{s}");
        }
    }

    #[test]
    fn field_selectors() {
        for s in [
            "",
            "spec.nodeName=n1",
            "metadata.name==a,status.phase!=Running",
            "a=x\\,y",
        ] {
            assert_eq!(validate_field_selector(s), Ok(()), "{s}");
        }
        for s in ["nodeName", "=x", "a<b", "sp ec=x", "a=b,"] {
            assert!(validate_field_selector(s).is_err(), "{s}");
        }
    }
}
