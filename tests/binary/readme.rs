//! The README's and the reference's (`docs/`) promises about themselves: the README's set-up
//! section is two commands, the second the test script CI runs too, and that script installs
//! what the tests need before running them; the README is a short page with a quick start and
//! a symptom table; every relative link of the README and of `docs/*.md` resolves (the file
//! exists, a `#anchor` names a heading of it); and every `$ kinformer …` example of those pages
//! prints what the page shows.

use std::path::{Path, PathBuf};

const README: &str = include_str!("../../README.md");

/// The most lines the README may have: a page a person reads in five minutes.
const README_MAX_LINES: usize = 300;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The checked pages: `README.md` and every `docs/*.md`, as (path from the root, text).
fn pages() -> Vec<(String, String)> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut pages = vec![("README.md".to_owned(), README.to_owned())];
    for path in docs {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        pages.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    pages
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

/// The README is read in five minutes: at most [`README_MAX_LINES`] lines, a quick start of
/// about six commands (each one an example the example test runs), a table from symptoms to
/// commands that links into `docs/`, and a link to every page of `docs/`.
fn five_minute_page_problems(readme: &str, docs: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let lines = readme.lines().count();
    if lines > README_MAX_LINES {
        problems.push(format!("{lines} lines, more than {README_MAX_LINES}"));
    }
    let quick_start = readme
        .split("\n## Quick start\n")
        .nth(1)
        .map(|rest| rest.split("\n## ").next().unwrap_or_default());
    match quick_start {
        None => problems.push("no \"## Quick start\" section".to_owned()),
        Some(text) => {
            let examples = text
                .lines()
                .filter(|l| l.starts_with("$ kinformer "))
                .count();
            if examples < 6 {
                problems.push(format!(
                    "the quick start has {examples} `$ kinformer` examples, not six"
                ));
            }
        }
    }
    let table: Vec<&str> = readme
        .split("\n## ")
        .find(|s| s.to_lowercase().starts_with("symptom"))
        .map(|s| s.lines().filter(|l| l.starts_with('|')).collect())
        .unwrap_or_default();
    let rows = table.join("\n").to_lowercase();
    for symptom in [
        "resync storm",
        "slow handler",
        "410",
        "missed delete",
        "what did my controller see",
    ] {
        if !rows.contains(symptom) {
            problems.push(format!("the symptom table has no row for {symptom:?}"));
        }
    }
    if table.len() > 2 && !table[2..].iter().all(|row| row.contains("](docs/")) {
        problems.push("every symptom row links into docs/".to_owned());
    }
    let targets: Vec<String> = links(readme)
        .into_iter()
        .map(|l| l.split('#').next().unwrap_or_default().to_owned())
        .collect();
    for page in docs {
        if !targets.iter().any(|t| t == page) {
            problems.push(format!("no link to {page}"));
        }
    }
    problems
}

#[test]
fn the_readme_is_a_five_minute_page_with_a_quick_start_and_a_symptom_table() {
    let docs: Vec<String> = pages().into_iter().skip(1).map(|(name, _)| name).collect();
    let problems = five_minute_page_problems(README, &docs);
    assert!(problems.is_empty(), "README.md: {}", problems.join("; "));
    // The check catches what it is for.
    let long = format!("{README}{}", "more\n".repeat(README_MAX_LINES));
    assert!(five_minute_page_problems(&long, &docs)[0].contains("more than 300"));
    let unlinked = README.replace("](docs/jsonl.md", "](docs/elsewhere.md");
    assert!(
        five_minute_page_problems(&unlinked, &docs)
            .contains(&"no link to docs/jsonl.md".to_owned())
    );
}

/// The index of `docs/` links every page of it.
#[test]
fn the_docs_index_links_every_page() {
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    let targets: Vec<String> = links(&index)
        .into_iter()
        .map(|l| format!("docs/{}", l.split('#').next().unwrap_or_default()))
        .collect();
    let missing: Vec<String> = pages()
        .into_iter()
        .skip(1)
        .map(|(name, _)| name)
        .filter(|name| name != "docs/README.md" && !targets.contains(name))
        .collect();
    assert!(missing.is_empty(), "docs/README.md lacks {missing:?}");
}

/// The targets of a page's Markdown links and images (`[text](target)`), outside code blocks
/// and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold brackets and parentheses that are no links (`[*]`, `(…)`).
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join("``");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, punctuation (backticks, dots, brackets, `…`)
/// dropped, letters, digits, `-` and `_` kept, each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings, a repeated one numbered as GitHub numbers it (`-1`, …).
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let base = slug(line.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.push(anchor);
    }
    out
}

/// Every relative link of a page (`page` is its path from the root) that does not resolve:
/// its file is missing, or its `#anchor` names no heading of the page it points to.
fn broken_links(page: &str, text: &str) -> Vec<String> {
    let dir = Path::new(page).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for link in links(text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
        let target = if file.is_empty() {
            root().join(page)
        } else {
            root().join(dir).join(file)
        };
        if !target.exists() {
            broken.push(format!("{page}: ({link}): no file {}", target.display()));
            continue;
        }
        if anchor.is_empty() {
            continue;
        }
        let target_text = std::fs::read_to_string(&target).unwrap_or_default();
        if !anchors(&target_text).iter().any(|a| a == anchor) {
            broken.push(format!("{page}: ({link}): no heading #{anchor}"));
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for (page, text) in pages() {
        checked += links(&text).len();
        broken.extend(broken_links(&page, &text));
    }
    assert!(checked >= 40, "only {checked} links found");
    assert!(
        broken.is_empty(),
        "links that do not resolve:\n{}",
        broken.join("\n")
    );
    // The check catches what it is for: a missing file, a missing anchor, a moved page.
    let bad = "[a](docs/nope.md) [b](docs/jsonl.md#no-such-heading) [c](#exit-status) `[d](x.md)`";
    assert_eq!(broken_links("README.md", bad).len(), 3, "{bad}");
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        slug(" `kinformer watch RESOURCE[,RESOURCE…] [NAME]`"),
        "kinformer-watch-resourceresource-name"
    );
    assert_eq!(
        slug(" client-go: release profiles and differences"),
        "client-go-release-profiles-and-differences"
    );
    assert_eq!(
        anchors("# A\n## a\n```\n# not\n```\n### A"),
        ["a", "a-1", "a-2"]
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

/// Runs every example of the README and of `docs/`, each code block in a directory of its own
/// outside the checkout (a user's: no `scenarios/` there, so an example names a built-in
/// scenario, issue 49 item 7), and checks that each prints what its page shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_of_the_readme_and_docs_prints_what_the_page_shows() {
    let mut differences = Vec::new();
    let mut examples_per_page = Vec::new();
    for (page, text) in pages() {
        let mut count = 0;
        for block in code_blocks(&text) {
            let examples = block_examples(&block);
            if examples.is_empty() {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            assert!(
                !dir.path().starts_with(root()),
                "the examples run outside the checkout"
            );
            for example in &examples {
                differences.extend(run_example(&page, example, dir.path()).await);
            }
            count += examples.len();
        }
        examples_per_page.push((page, count));
    }
    let count = |page: &str| examples_per_page.iter().find(|(p, _)| p == page).unwrap().1;
    assert!(count("README.md") >= 6, "{examples_per_page:?}");
    assert!(count("docs/commands.md") >= 5, "{examples_per_page:?}");
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
