//! The README's promises about itself: its set-up section is two commands, the second the
//! test script CI runs too, and that script installs what the tests need before running them.

use std::path::Path;

const README: &str = include_str!("../README.md");

/// The text of the README section titled `title` (up to the next `## ` heading).
fn section(title: &str) -> &'static str {
    let start = README
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("no section {title:?}"));
    let body = &README[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |e| e + 3);
    &body[..end]
}

/// The commands of a section's `sh` code blocks (comments dropped).
fn commands(text: &str) -> Vec<String> {
    text.split("```sh\n")
        .skip(1)
        .flat_map(|block| block.split("```").next().unwrap_or_default().lines())
        .map(|line| {
            line.split(" #")
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn set_up_is_two_commands_the_demo_and_the_test_script() {
    assert_eq!(
        commands(section("Set up")),
        ["cargo run --release -- demo", "scripts/test"]
    );
}

#[test]
fn the_test_script_installs_what_is_missing_and_ci_runs_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("scripts/test")).unwrap();
    for needed in ["kubectl", "tmux"] {
        assert!(
            script.contains(&format!("command -v {needed}")) && script.contains("apt-get install"),
            "scripts/test installs {needed} when missing"
        );
    }
    assert!(script.contains("exec cargo test --locked"), "{script}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(root.join("scripts/test"))
        .unwrap()
        .permissions()
        .mode();
    assert!(mode & 0o111 != 0, "scripts/test is executable");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "scripts/test"), "{ci}");
}

#[test]
fn install_says_how_to_get_the_binary_and_the_kubectl_plugin() {
    let install = commands(section("Install"));
    assert_eq!(install[0], "cargo install --path .");
    assert!(
        install[1].ends_with("~/.cargo/bin/kubectl-informer"),
        "{install:?}"
    );
}
