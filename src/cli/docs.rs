//! Generated documentation: shell completions (clap_complete) and man pages (clap_mangen),
//! one page for `kinformer` and one per subcommand, each with an EXIT STATUS section.
//!
//! The generated files are committed under `completions/` and `man/`; a test regenerates them
//! in memory and fails when a committed file is stale (fix: `cargo run -- man --out-dir man`
//! and `cargo run -- completions …`, or [`regenerate`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;

use super::args::{BIN_NAME, Cli};
use super::exit::{exit_status_roff, roff_escape};

/// Every shell completions are generated for.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

/// The completion script for `shell`.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN_NAME, &mut out);
    out
}

/// The man pages: (file name, roff), `kinformer.1` first, then `kinformer-SUB.1`.
pub fn man_pages() -> io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = vec![render_page(&cmd)?];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(render_page(sub)?);
    }
    Ok(pages)
}

/// One page: the standard sections, then EXIT STATUS, then the version.
fn render_page(cmd: &clap::Command) -> io::Result<(String, Vec<u8>)> {
    let man = Man::new(cmd.clone()).source(format!("{BIN_NAME} {}", env!("CARGO_PKG_VERSION")));
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    if let Some(examples) = cmd.get_after_help() {
        out.write_all(examples_roff(&examples.to_string()).as_bytes())?;
    }
    out.write_all(exit_status_roff().as_bytes())?;
    man.render_version_section(&mut out)?;
    Ok((man.get_filename(), dedup_preamble(&out)))
}

/// The `Examples:` text of `after_help` as an EXAMPLES section, line breaks kept.
fn examples_roff(text: &str) -> String {
    let mut out = String::from(".SH EXAMPLES\n.nf\n");
    for line in text.lines().skip_while(|l| l.ends_with(':')) {
        out.push_str(&roff_escape(line));
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

/// clap_mangen repeats its two-line quote-string preamble before every section; keep the first.
fn dedup_preamble(roff: &[u8]) -> Vec<u8> {
    const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let text = String::from_utf8_lossy(roff);
    match text.split_once(PREAMBLE) {
        Some((head, rest)) => {
            format!("{head}{PREAMBLE}{}", rest.replace(PREAMBLE, "")).into_bytes()
        }
        None => text.into_owned().into_bytes(),
    }
}

/// `kinformer completions SHELL`: the script on `out`.
pub fn print_completions(shell: Shell, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(&completion_script(shell))?;
    out.flush()
}

/// `kinformer man [--out-dir DIR]`: every page into DIR (nothing on `out`), or without DIR
/// the `kinformer.1` page itself on `out`.
pub fn run_man(out_dir: Option<&Path>, out: &mut dyn Write) -> io::Result<()> {
    if let Some(dir) = out_dir {
        return write_man_pages(dir).map(drop).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write man pages into {}: {e}", dir.display()),
            )
        });
    }
    if let Some((_, roff)) = man_pages()?.first() {
        out.write_all(roff)?;
    }
    out.flush()
}

/// Writes every man page into `dir` (created if missing); returns the paths written.
pub fn write_man_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, roff) in man_pages()? {
        let path = dir.join(name);
        std::fs::write(&path, roff)?;
        written.push(path);
    }
    Ok(written)
}

/// Every generated file, as (path relative to the repository root, contents).
pub fn generated_files() -> io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = SHELLS
        .iter()
        .map(|shell| {
            let name = clap_complete::Generator::file_name(shell, BIN_NAME);
            (
                Path::new("completions").join(name),
                completion_script(*shell),
            )
        })
        .collect();
    for (name, roff) in man_pages()? {
        files.push((Path::new("man").join(name), roff));
    }
    Ok(files)
}

/// Rewrites `completions/` and `man/` under `root` (the repository root).
pub fn regenerate(root: &Path) -> io::Result<()> {
    for (rel, contents) in generated_files()? {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, contents)?;
    }
    Ok(())
}

/// The generated files under `root` that are missing or differ from a fresh generation.
pub fn stale_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    Ok(generated_files()?
        .into_iter()
        .filter(|(rel, contents)| std::fs::read(root.join(rel)).ok().as_ref() != Some(contents))
        .map(|(rel, _)| rel)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_for_every_subcommand_with_exit_status() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "kinformer.1",
                "kinformer-watch.1",
                "kinformer-dump.1",
                "kinformer-resync.1",
                "kinformer-top.1",
                "kinformer-demo.1",
                "kinformer-record.1",
                "kinformer-replay.1",
                "kinformer-serve.1",
                "kinformer-proxy.1",
                "kinformer-report.1",
                "kinformer-explain.1",
                "kinformer-profiles.1",
                "kinformer-scenarios.1",
                "kinformer-completions.1",
                "kinformer-man.1"
            ]
        );
        for (name, roff) in &pages {
            let text = String::from_utf8_lossy(roff);
            assert!(text.contains(".SH \"EXIT STATUS\""), "{name}");
            assert_eq!(text.matches(".ds Aq").count(), 2, "{name}");
        }
        let watch = String::from_utf8_lossy(&pages[1].1);
        assert!(watch.contains("kinformer watch") && watch.contains("\\-\\-until\\-synced"));
    }

    #[test]
    fn completions_for_every_shell() {
        for shell in SHELLS {
            let script = String::from_utf8(completion_script(shell)).unwrap();
            assert!(script.contains("until-synced"), "{shell}");
        }
    }

    #[test]
    fn man_and_completions_commands() {
        let mut out = Vec::new();
        run_man(None, &mut out).unwrap();
        assert!(String::from_utf8_lossy(&out).contains(".TH kinformer 1"));
        let dir = tempfile::tempdir().unwrap();
        let mut nothing = Vec::new();
        run_man(Some(dir.path()), &mut nothing).unwrap();
        assert!(nothing.is_empty());
        assert!(dir.path().join("kinformer-watch.1").exists());
        let mut script = Vec::new();
        print_completions(Shell::Bash, &mut script).unwrap();
        assert_eq!(script, completion_script(Shell::Bash));
    }

    #[test]
    fn regenerate_then_nothing_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(stale_files(dir.path()).unwrap().len(), 21);
        regenerate(dir.path()).unwrap();
        assert!(stale_files(dir.path()).unwrap().is_empty());
    }
}
