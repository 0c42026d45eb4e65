//! The shipped scenarios, built into the binary: `--scenario NAME` plays one without the
//! checkout (after `cargo install` the `scenarios/` directory is gone), `kinformer scenarios`
//! lists them. A path to a file still works and wins over a name.

/// Each shipped scenario's name (its file's, without `.yaml`) and YAML text.
pub const BUILTIN: [(&str, &str); 9] = [
    (
        "broken-stream-vs-410",
        include_str!("../../scenarios/broken-stream-vs-410.yaml"),
    ),
    (
        "delete-during-disconnect",
        include_str!("../../scenarios/delete-during-disconnect.yaml"),
    ),
    (
        "delta-vs-real-fifo",
        include_str!("../../scenarios/delta-vs-real-fifo.yaml"),
    ),
    (
        "late-handler",
        include_str!("../../scenarios/late-handler.yaml"),
    ),
    (
        "relist-after-410",
        include_str!("../../scenarios/relist-after-410.yaml"),
    ),
    (
        "slow-handler-backlog",
        include_str!("../../scenarios/slow-handler-backlog.yaml"),
    ),
    (
        "three-handlers-resync",
        include_str!("../../scenarios/three-handlers-resync.yaml"),
    ),
    (
        "throttled-server",
        include_str!("../../scenarios/throttled-server.yaml"),
    ),
    (
        "version-differences",
        include_str!("../../scenarios/version-differences.yaml"),
    ),
];

/// The built-in scenario called `name` (`relist-after-410`, `.yaml` allowed).
pub fn builtin(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".yaml").unwrap_or(name);
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The built-in scenarios' names, comma-separated.
pub fn names() -> String {
    BUILTIN.map(|(name, _)| name).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_scenario_parses() {
        for (name, text) in BUILTIN {
            assert!(super::super::parse(text).is_ok(), "{name}");
        }
        assert!(builtin("late-handler.yaml").is_some());
    }
}
