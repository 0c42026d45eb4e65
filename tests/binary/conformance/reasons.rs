//! The reasons file, `crates/kinformer-apiserver/tests/conformance/differences.yaml`: one entry
//! per row of the conformance table that differs, the row's name mapped to why the embedded
//! server answers differently. The bookkeeping here checks the file against the rows measured:
//! a differing row without a reason (missing), a reason for a row answered identically (stale)
//! and a reason for a row the corpus does not have (unknown) are each an error naming the rows.

use std::collections::BTreeMap;
use std::path::Path;

/// The reasons file's name in the corpus directory (the corpus skips it).
pub const FILE: &str = "differences.yaml";

/// Each differing row's reason, by row name.
#[derive(Debug, Default)]
pub struct Reasons(BTreeMap<String, String>);

impl Reasons {
    /// Parses the file's text: a YAML mapping of row name to reason (a duplicate name is an
    /// error).
    pub fn parse(text: &str) -> Result<Reasons, String> {
        let map: Option<BTreeMap<String, String>> =
            serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        Ok(Reasons(map.unwrap_or_default()))
    }

    /// Reads and parses the file at `path`.
    pub fn read(path: &Path) -> Result<Reasons, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Reasons::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// `row`'s reason on one line (the file may fold it over several).
    pub fn of(&self, row: &str) -> Option<String> {
        self.0
            .get(row)
            .map(|reason| reason.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// What the reasons file gets wrong about the rows measured.
#[derive(Debug, Default, PartialEq)]
pub struct Bookkeeping {
    /// Rows that differ and have no reason.
    pub missing: Vec<String>,
    /// Reasons for rows answered identically.
    pub stale: Vec<String>,
    /// Reasons for rows the corpus does not have.
    pub unknown: Vec<String>,
}

impl Bookkeeping {
    /// Checks `reasons` against `rows` (each row's name and its difference, if any).
    pub fn check(rows: &[(String, Option<String>)], reasons: &Reasons) -> Bookkeeping {
        let missing = rows
            .iter()
            .filter(|(name, difference)| difference.is_some() && !reasons.0.contains_key(name))
            .map(|(name, _)| name.clone())
            .collect();
        let stale = rows
            .iter()
            .filter(|(name, difference)| difference.is_none() && reasons.0.contains_key(name))
            .map(|(name, _)| name.clone())
            .collect();
        let unknown = reasons
            .0
            .keys()
            .filter(|reason| !rows.iter().any(|(name, _)| name == *reason))
            .cloned()
            .collect();
        Bookkeeping {
            missing,
            stale,
            unknown,
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Bookkeeping::default()
    }

    /// What is wrong, row by row, and how to fix it (`file`: the reasons file's path).
    pub fn message(&self, file: &str) -> String {
        let mut out = String::new();
        let mut section = |rows: &[String], what: &str| {
            if rows.is_empty() {
                return;
            }
            out.push_str(&format!("{what}:\n"));
            for row in rows {
                out.push_str(&format!("  {row:?}\n"));
            }
        };
        section(
            &self.missing,
            &format!("rows that differ with no reason in {file} (add one: `\"<row>\": <why>`)"),
        );
        section(
            &self.stale,
            &format!("rows answered identically that still have a reason in {file} (remove it)"),
        );
        section(
            &self.unknown,
            &format!(
                "reasons in {file} for rows the corpus does not have (fix the name or remove it)"
            ),
        );
        out.push_str(
            "then rewrite the table with KINFORMER_CONFORMANCE_WRITE=1 scripts/test --test binary \
             conformance",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<(String, Option<String>)> {
        vec![
            ("same".into(), None),
            ("differs".into(), Some("status 200 vs 404".into())),
            (
                "differs too".into(),
                Some("/a: only the real server has it".into()),
            ),
        ]
    }

    #[test]
    fn every_differing_row_with_its_reason_is_in_order() {
        let reasons = Reasons::parse(
            "\"differs\": the real server does X.\n\"differs too\": >-\n  not served\n  yet.\n",
        )
        .unwrap();
        assert!(Bookkeeping::check(&rows(), &reasons).is_empty());
        assert_eq!(
            reasons.of("differs too").as_deref(),
            Some("not served yet.")
        );
        assert_eq!(reasons.of("same"), None);
    }

    #[test]
    fn missing_stale_and_unknown_reasons_are_named() {
        let reasons =
            Reasons::parse("\"same\": was different once\n\"differs\": why\n\"gone\": old row\n")
                .unwrap();
        let found = Bookkeeping::check(&rows(), &reasons);
        assert_eq!(
            found,
            Bookkeeping {
                missing: vec!["differs too".into()],
                stale: vec!["same".into()],
                unknown: vec!["gone".into()],
            }
        );
        let message = found.message("differences.yaml");
        for row in [
            "\"differs too\"",
            "\"same\"",
            "\"gone\"",
            "KINFORMER_CONFORMANCE_WRITE=1",
        ] {
            assert!(message.contains(row), "{row} in {message}");
        }
    }

    #[test]
    fn an_empty_file_has_no_reasons_and_a_duplicate_row_is_an_error() {
        let found = Bookkeeping::check(&rows(), &Reasons::parse("# nothing yet\n").unwrap());
        assert_eq!(found.missing, ["differs", "differs too"]);
        assert!(Reasons::parse("\"differs\": a\n\"differs\": b\n").is_err());
    }
}
