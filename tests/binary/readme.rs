//! The README's promises about itself: its set-up section is two commands, the second the
//! test script CI runs too, and that script installs what the tests need before running them;
//! and every `$ kinformer …` example prints what the README shows.

use std::path::Path;

const README: &str = include_str!("../../README.md");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

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
    let root = root();
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

/// An example of a page: the command after `$ ` (continuation lines joined), where its stdout
/// goes (`> FILE`, else it is compared too) and the lines it shows.
struct Example {
    command: String,
    stdout_to: Option<String>,
    shown: Vec<String>,
}

/// The examples of one code block, run in order in one directory (a later one may read the
/// file an earlier one wrote): every command line starting `$ kinformer …` and the lines up to
/// the next `$ ` line, but `top`'s (it draws on a terminal: `tests/top_tmux.rs` and the render
/// tests check its boxes).
fn block_examples(block: &[&str]) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = block.iter().copied().peekable();
    while let Some(line) = lines.next() {
        let Some(first) = line.strip_prefix("$ kinformer ") else {
            continue;
        };
        let mut command = first.to_owned();
        while command.ends_with('\\') {
            command.pop();
            command.push_str(lines.next().unwrap_or_default().trim());
        }
        let mut shown = Vec::new();
        while let Some(next) = lines.peek() {
            if next.starts_with("$ ") {
                break;
            }
            if *next != "..." {
                shown.push((*next).to_owned());
            }
            lines.next();
        }
        if command.starts_with("top ") {
            continue;
        }
        let command = command.split(" | ").next().unwrap_or_default();
        let command = command.split(" #").next().unwrap_or_default().trim();
        let (command, stdout_to) = match command.split_once(" > ") {
            Some((command, file)) => (command.trim(), Some(file.trim().to_owned())),
            None => (command, None),
        };
        out.push(Example {
            command: command.to_owned(),
            stdout_to,
            shown,
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

/// The lines of every fenced code block of a page, in order.
fn code_blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut open: Option<Vec<&str>> = None;
    for line in text.lines() {
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

/// Runs one example in `dir` (against the embedded server its flags name) and returns how it
/// differs from its page: a failed exit, or a shown line that is not a line it printed today,
/// up to numbers and object names.
async fn run_example(page: &str, example: &Example, dir: &Path) -> Vec<String> {
    let args: Vec<&str> = example.command.split_whitespace().collect();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(&args)
        .current_dir(dir)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), output)
        .await
        .unwrap_or_else(|_| panic!("{page}: kinformer {}: no exit within 60s", example.command))
        .unwrap();
    let mut differences = Vec::new();
    if !output.status.success() {
        differences.push(format!(
            "{page}: kinformer {}: {}\n{}",
            example.command,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let printed = match &example.stdout_to {
        Some(file) => {
            std::fs::write(dir.join(file), stdout.as_bytes()).unwrap();
            String::from_utf8_lossy(&output.stderr).into_owned()
        }
        None => format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)),
    };
    let shapes: Vec<String> = printed.lines().map(shape).collect();
    for line in &example.shown {
        if !shapes.contains(&shape(line)) {
            differences.push(format!(
                "{page}: kinformer {}:\n  shown: {line}",
                example.command
            ));
        }
    }
    differences
}

/// Runs every example of the README, each code block in a directory of its own that sees the
/// repository's `scenarios/`, and checks that each prints what the README shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_readme_example_prints_what_the_readme_shows() {
    let mut differences = Vec::new();
    let mut examples_per_page = Vec::new();
    for (page, text) in [("README.md".to_owned(), README.to_owned())] {
        let mut count = 0;
        for block in code_blocks(&text) {
            let examples = block_examples(&block);
            if examples.is_empty() {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(root().join("scenarios"), dir.path().join("scenarios"))
                .unwrap();
            for example in &examples {
                differences.extend(run_example(&page, example, dir.path()).await);
            }
            count += examples.len();
        }
        examples_per_page.push((page, count));
    }
    let count = |page: &str| examples_per_page.iter().find(|(p, _)| p == page).unwrap().1;
    assert!(count("README.md") >= 6, "{examples_per_page:?}");
    assert!(
        differences.is_empty(),
        "examples that print something else today:\n{}",
        differences.join("\n")
    );
}

#[test]
fn a_block_is_a_sequence_of_examples_each_with_its_lines() {
    let block = [
        "$ kinformer demo --scenario s.yaml -o jsonl > t.jsonl",
        "$ kinformer explain default/a t.jsonl",
        "default/a (pods)",
        "...",
        "$ kinformer resync pods --embedded \\",
        "    --handler a:resync=2s | cat   # a comment",
        "HANDLER   REQUESTED",
        "$ kinformer top pods --embedded",
        "┌ Reflector",
    ];
    let examples = block_examples(&block);
    let seen: Vec<(&str, Option<&str>, Vec<&str>)> = examples
        .iter()
        .map(|e| {
            (
                e.command.as_str(),
                e.stdout_to.as_deref(),
                e.shown.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("demo --scenario s.yaml -o jsonl", Some("t.jsonl"), vec![]),
            ("explain default/a t.jsonl", None, vec!["default/a (pods)"]),
            (
                "resync pods --embedded --handler a:resync=2s",
                None,
                vec!["HANDLER   REQUESTED"]
            ),
        ]
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
