//! The README's promises about itself: its set-up section is two commands, the second the
//! test script CI runs too, and that script installs what the tests need before running them.

use std::path::Path;

const README: &str = include_str!("../../README.md");

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
    assert!(
        script.contains("import kubernetes") && script.contains("pip install -q kubernetes"),
        "scripts/test installs the Python kubernetes client (tests/proxy.rs) when missing"
    );
    assert!(
        script.contains("exec cargo test --workspace --locked"),
        "{script}"
    );
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

/// An example of the README: the command after `$ ` (continuation lines joined) and the lines
/// it shows.
struct Example {
    command: String,
    shown: Vec<&'static str>,
}

/// Every code block that starts with `$ kinformer …`, but `top` (it draws on a terminal:
/// `tests/top_tmux.rs` and the render tests check its boxes).
fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    for block in code_blocks() {
        let mut lines = block.into_iter();
        let Some(first) = lines.next().and_then(|l| l.strip_prefix("$ kinformer ")) else {
            continue;
        };
        let mut command = first.to_owned();
        while command.ends_with('\\') {
            command.pop();
            command.push_str(lines.next().unwrap_or_default().trim());
        }
        if command.starts_with("top ") {
            continue;
        }
        let command = command.split(" | ").next().unwrap_or_default();
        let command = command
            .split(" #")
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        out.push(Example {
            command,
            shown: lines.filter(|l| *l != "...").collect(),
        });
    }
    out
}

/// A duration word (`0.0s`, `0us`, `0m0s`) as a bare `0`: another run's figure may have
/// another unit (a watch timeout is `6m25s` in one run and `9m` in another); so is the value
/// of a `key=duration` word (`timeout=0m0s` and `timeout=0m` are both `timeout=0`).
fn unitless(word: String) -> String {
    if let Some((key, value)) = word.split_once('=') {
        return format!("{key}={}", unitless(value.to_owned()));
    }
    let unit: String = word.chars().filter(|c| !matches!(c, '0' | '.')).collect();
    if word.starts_with('0') && unit.chars().all(|c| "hmsµu".contains(c)) {
        "0".to_owned()
    } else {
        word
    }
}

/// The lines of every fenced code block, in order.
fn code_blocks() -> Vec<Vec<&'static str>> {
    let mut blocks = Vec::new();
    let mut open: Option<Vec<&str>> = None;
    for line in README.lines() {
        match (line.starts_with("```"), open.take()) {
            (true, Some(block)) => blocks.push(block),
            (true, None) => open = Some(Vec::new()),
            (false, Some(mut block)) => {
                block.push(line);
                open = Some(block);
            }
            (false, None) => {}
        }
    }
    blocks
}

/// A line's shape: numbers become `0`, object keys (a word with a `/` and no `=`) become `KEY`,
/// and runs of blanks one space, so the same kind of line from another run compares equal.
fn shape(line: &str) -> String {
    let mut words = Vec::new();
    for word in line.split_whitespace() {
        if word.contains('/') && !word.contains('=') && !word.starts_with('+') {
            words.push("KEY".to_owned());
            continue;
        }
        // `last=NAMESPACE/NAME` on a burst row: an object name too.
        if let Some((name, value)) = word.split_once('=')
            && value.contains('/')
            && !value.starts_with('"')
        {
            words.push(format!("{name}=KEY"));
            continue;
        }
        let mut shaped = String::new();
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !shaped.ends_with('0') || shaped.is_empty() {
                    shaped.push('0');
                }
            } else {
                shaped.push(c);
            }
        }
        words.push(unitless(shaped));
    }
    words.join(" ")
}

/// Runs every README example (against the embedded server its flags name) and checks that
/// each line it shows is a line the command prints today, up to numbers and object names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_readme_example_prints_what_the_readme_shows() {
    let examples = examples();
    assert!(examples.len() >= 5, "found {} examples", examples.len());
    let mut differences = Vec::new();
    for example in &examples {
        let args: Vec<&str> = example.command.split_whitespace().collect();
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_kinformer"))
            .args(&args)
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1")
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(std::time::Duration::from_secs(60), output)
            .await
            .unwrap_or_else(|_| panic!("{}: no exit within 60s", example.command))
            .unwrap();
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let shapes: Vec<String> = printed.lines().map(shape).collect();
        for line in &example.shown {
            if !shapes.contains(&shape(line)) {
                differences.push(format!("kinformer {}:\n  README: {line}", example.command));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "README examples that print something else today:\n{}",
        differences.join("\n")
    );
}

/// A watch timeout is drawn at random: `6m25s` in the README, `9m` in a run (whole minutes
/// happen one draw in sixty). Both are the same shape, so the example check does not flake.
#[test]
fn durations_after_a_key_compare_whatever_their_units() {
    let readme = "4  17:07:39.432  reflector  watch-start  timeout=6m25s watch_list";
    let run = "4  09:00:00.001  reflector  watch-start  timeout=9m watch_list";
    assert_eq!(shape(readme), shape(run));
    assert_ne!(shape("objects=1"), shape("objects=1 store_rv=177"));
}
