//! `--report FILE` of `watch`, `demo`, `replay` and `proxy`, and `report`'s own output: the
//! run's events captured as they are rendered (every stage, whatever `--show` prints), and the
//! page written at exit.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::informer::trace::{Stage, StageSet};
use crate::output::{Hidden, Tap};
use crate::report::capture::Capture;
use crate::report::{RunInfo, Trace};

use super::connect::Connection;
use super::exit::CliError;

/// A page to write when the run ends.
pub struct ReportAtExit {
    path: PathBuf,
    capture: Capture,
    /// The command line, for the page's header.
    command: String,
}

impl ReportAtExit {
    /// A report to `path`, when one was asked for.
    pub fn asked(path: Option<&Path>) -> Option<Self> {
        path.map(|path| Self {
            path: path.to_owned(),
            capture: Capture::default(),
            command: command_line(),
        })
    }

    /// The stages the informer must deliver and what the output then leaves out: every
    /// stage reaches the page, `--show`'s `shown` stages (less `hidden`) are printed. Shown
    /// notifications bring the relists and resync ticks that send sync updates, unprinted, so
    /// a burst of them can say which sent it.
    pub fn stages(report: Option<&Self>, shown: StageSet, hidden: Hidden) -> (StageSet, Hidden) {
        let delivered = match report {
            Some(_) => StageSet::ALL,
            None if shown.contains(Stage::Handler) => {
                shown.with(Stage::Reflector).with(Stage::Resync)
            }
            None => shown,
        };
        let only = (delivered != shown).then_some(shown);
        (delivered, Hidden { only, ..hidden })
    }

    /// What the renderer hands every event to.
    pub fn tap(&self) -> Tap {
        let capture = self.capture.clone();
        Box::new(move |event| capture.observe(event))
    }

    /// Writes the page of what was captured; `server` names the API server.
    pub fn write(self, server: Option<String>) -> Result<(), CliError> {
        let info = RunInfo {
            input: self.command,
            server,
        };
        write_page(Some(&self.path), &self.capture.take(), &info)
    }
}

/// The renderer's tap for an optional report.
pub fn tap_of(report: Option<&ReportAtExit>) -> Option<Tap> {
    report.map(ReportAtExit::tap)
}

/// The API server a live run talked to, for the page's header.
pub async fn server_of(connection: &Connection) -> Option<String> {
    let version = connection
        .client
        .apiserver_version()
        .await
        .ok()
        .map(|v| v.git_version);
    let kind = if connection.server.is_some() {
        "the embedded API server"
    } else {
        "the kubeconfig's cluster"
    };
    Some(match version {
        Some(v) => format!("{kind}, {v}"),
        None => kind.to_owned(),
    })
}

/// Writes the page of `trace` to `path` (stdout when None) and says so on stderr.
pub fn write_page(path: Option<&Path>, trace: &Trace, info: &RunInfo) -> Result<(), CliError> {
    let page = crate::report::render(trace, info);
    let Some(path) = path else {
        return match io::stdout().lock().write_all(page.as_bytes()) {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
            _ => Ok(()),
        };
    };
    std::fs::write(path, &page).map_err(|source| CliError::WriteFile {
        path: path.to_path_buf(),
        source,
    })?;
    eprintln!(
        "report: wrote {} ({} trace lines, {} KiB)",
        path.display(),
        trace.lines.len(),
        page.len().div_ceil(1024)
    );
    Ok(())
}

/// The command line as typed, for the header (`kinformer watch pods -A …`).
fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("kinformer {}", args.join(" "))
}
