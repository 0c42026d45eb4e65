//! A YAML error (serde-saphyr's: a scenario file, a kubeconfig) as one clean line: the message
//! and where it is, without the source snippet serde-saphyr draws under it (flattened into one
//! line, the snippet repeated the offending text and the message).

/// `e` in one line, whitespace runs as single spaces.
pub fn one_line(e: &serde_saphyr::Error) -> String {
    e.without_snippet()
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn a_yaml_error_is_one_line_that_says_where_and_does_not_repeat_itself() {
        let text = "steps:\n  - at: 0s\n    create: {count: [\n";
        let e = serde_saphyr::from_str::<serde_json::Value>(text).expect_err("bad YAML");
        let line = one_line(&e);
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains("line"), "says where: {line}");
        assert!(!line.contains("create: {count"), "no snippet: {line}");
    }
}
