//! Samples, medians, the ratios issue 6 asks for, and the table / JSON / Markdown outputs.

use std::collections::BTreeMap;
use std::path::Path;

use comfy_table::{Table, presets::ASCII_MARKDOWN};
use serde::Serialize;
use serde_json::json;

use crate::Settings;

/// One client run.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Wall time: spawn to exit (sync), or first write / SIGCONT to the last event (watch).
    pub seconds: f64,
    /// Peak RSS of the client process (and its reaped children), KiB.
    pub max_rss_kb: u64,
    /// Objects synced, bytes read (raw LIST) or events consumed (watch).
    pub count: u64,
    /// Events per second (watch).
    pub rate: f64,
    /// RSS right after sync as the client reports it (kube-runtime), KiB.
    pub rss_after_sync_kb: Option<u64>,
    /// The client's CPU time (user + sys) over the timed span: the whole run (sync; to the
    /// `synced` line for `kinformer after sync`), or the consumption window (watch).
    pub cpu_seconds: Option<f64>,
    /// Bytes of the LIST bodies read (the servers section's LIST rows).
    pub bytes: Option<u64>,
    /// Anything unusual about the run (e.g. capped).
    pub note: String,
}

impl Sample {
    /// A sample with a time and peak RSS.
    pub fn new(seconds: f64, max_rss_kb: u64) -> Sample {
        Sample {
            seconds,
            max_rss_kb,
            count: 0,
            rate: 0.0,
            rss_after_sync_kb: None,
            cpu_seconds: None,
            bytes: None,
            note: String::new(),
        }
    }
}

/// All runs of one client in one section.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row {
    section: &'static str,
    pods: usize,
    client: &'static str,
    mode: &'static str,
    samples: Vec<Sample>,
    errors: Vec<String>,
    notes: Vec<String>,
}

/// The median of `values` (0 when empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

impl Row {
    fn seconds(&self) -> f64 {
        median(self.samples.iter().map(|s| s.seconds).collect())
    }

    fn rss_kb(&self) -> f64 {
        median(self.samples.iter().map(|s| s.max_rss_kb as f64).collect())
    }

    fn rate(&self) -> f64 {
        median(self.samples.iter().map(|s| s.rate).collect())
    }

    /// Median CPU seconds over the samples that have them (None: none has).
    fn cpu(&self) -> Option<f64> {
        let values: Vec<f64> = self.samples.iter().filter_map(|s| s.cpu_seconds).collect();
        (!values.is_empty()).then(|| median(values))
    }

    /// Median CPU µs per pod synced (sync) or per event consumed (watch).
    fn cpu_us_per_item(&self) -> Option<f64> {
        let values: Vec<f64> = self
            .samples
            .iter()
            .filter_map(|s| {
                let synced = self.section == "sync"
                    || (self.section == "servers" && !self.client.starts_with("watch"));
                let items = if synced { self.pods as u64 } else { s.count };
                Some(s.cpu_seconds? * 1e6 / items.max(1) as f64)
            })
            .collect();
        (!values.is_empty()).then(|| median(values))
    }

    fn count(&self) -> f64 {
        median(self.samples.iter().map(|s| s.count as f64).collect())
    }

    fn notes(&self) -> String {
        let mut notes: Vec<String> = self
            .samples
            .iter()
            .map(|s| s.note.clone())
            .filter(|n| !n.is_empty())
            .collect();
        notes.extend(self.notes.iter().cloned());
        notes.extend(self.errors.iter().map(|e| format!("FAILED: {e}")));
        notes.join("; ")
    }
}

/// A ratio or rate with its target.
#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    name: String,
    value: Option<f64>,
    /// `<= x` or `>= x`, or empty for information.
    target: String,
    met: Option<bool>,
}

/// A figure of a row by name (for ratios over several figures).
type Figure = (&'static str, fn(&Row) -> Option<f64>);

/// Everything measured in one run.
pub struct Report {
    date: String,
    settings: Settings,
    rows: Vec<Row>,
}

/// Formats a float compactly.
fn num(value: f64) -> String {
    if value >= 1000.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.3}")
    }
}

impl Report {
    /// An empty report dated now.
    pub fn new(settings: &Settings) -> Report {
        Report {
            date: jiff::Timestamp::now()
                .round(jiff::Unit::Second)
                .map_or_else(|_| String::new(), |t| t.to_string()),
            settings: settings.clone(),
            rows: Vec::new(),
        }
    }

    /// Records one run of `client`.
    pub fn add(
        &mut self,
        section: &'static str,
        pods: usize,
        client: &'static str,
        mode: &'static str,
        result: Result<Sample, String>,
    ) {
        let position = self
            .rows
            .iter()
            .position(|r| (r.section, r.pods, r.client, r.mode) == (section, pods, client, mode));
        let index = position.unwrap_or_else(|| {
            self.rows.push(Row {
                section,
                pods,
                client,
                mode,
                ..Row::default()
            });
            self.rows.len() - 1
        });
        match result {
            Ok(sample) => self.rows[index].samples.push(sample),
            Err(e) => self.rows[index].errors.push(e),
        }
    }

    /// Adds a note to the row of `client` (shown once however often it is added).
    pub fn note(
        &mut self,
        section: &'static str,
        pods: usize,
        client: &'static str,
        mode: &'static str,
        note: &str,
    ) {
        let row = self
            .rows
            .iter_mut()
            .find(|r| (r.section, r.pods, r.client, r.mode) == (section, pods, client, mode));
        if let Some(row) = row.filter(|r| !r.notes.iter().any(|n| n == note)) {
            row.notes.push(note.to_owned());
        }
    }

    fn row(&self, section: &str, pods: usize, client: &str, mode: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| (r.section, r.pods, r.client, r.mode) == (section, pods, client, mode))
            .filter(|r| !r.samples.is_empty())
    }

    /// Cached JSON bytes at `pods`: the LIST body the raw reader got (the items' JSON plus a
    /// comma each and a ~100-byte envelope).
    fn cached_bytes(&self, pods: usize) -> Option<f64> {
        Some(self.row("sync", pods, "server raw LIST", "")?.count())
    }

    /// Every failed run and miscount.
    pub fn failures(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|r| {
                r.errors.iter().map(move |e| {
                    format!("{} {} pods {} {}: {e}", r.section, r.pods, r.client, r.mode)
                })
            })
            .collect()
    }

    /// The ratios and rates issues 6, 16 and 26 set targets for (not checked in smoke mode).
    pub fn ratios(&self) -> Vec<Ratio> {
        let mut ratios = Vec::new();
        let mut push = |name: String, value: Option<f64>, target: &str| {
            let met = value.and_then(|v| {
                let (op, bound) = target.split_once(' ')?;
                let bound: f64 = bound.parse().ok()?;
                Some(if op == "<=" { v <= bound } else { v >= bound })
            });
            ratios.push(Ratio {
                name,
                value,
                target: target.to_owned(),
                met,
            });
        };
        for &pods in &self.settings.sizes {
            let time = |client: &str| self.row("sync", pods, client, "").map(Row::seconds);
            let rss = |client: &str| {
                self.row("sync", pods, client, "")
                    .map(|r| r.rss_kb() * 1024.0)
            };
            let div = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
            let k = time("kinformer");
            let big = pods >= 100_000;
            push(
                format!("{pods} sync time kinformer s"),
                k,
                if big { "<= 1" } else { "" },
            );
            let cpu = |client: &str| self.row("sync", pods, client, "").and_then(Row::cpu);
            push(
                format!("{pods} sync CPU kinformer s"),
                cpu("kinformer"),
                if big { "<= 1" } else { "" },
            );
            push(
                format!("{pods} sync time kinformer watch to synced s"),
                time("kinformer after sync"),
                if big { "<= 1" } else { "" },
            );
            push(
                format!("{pods} sync CPU kinformer watch to synced s"),
                cpu("kinformer after sync"),
                if big { "<= 1" } else { "" },
            );
            push(
                format!("{pods} sync CPU floor (read + scan) s: a validating client's least"),
                cpu("floor: read + scan"),
                "",
            );
            push(
                format!("{pods} sync CPU kinformer / floor (read + scan)"),
                div(cpu("kinformer after sync"), cpu("floor: read + scan")),
                "",
            );
            push(
                format!("{pods} sync CPU kinformer / kube-runtime"),
                div(cpu("kinformer"), cpu("kube-runtime")),
                "",
            );
            push(
                format!("{pods} sync time kinformer / kube-runtime"),
                div(k, time("kube-runtime")),
                if big { "<= 0.1" } else { "<= 0.5" },
            );
            push(
                format!("{pods} sync time kinformer / kubectl"),
                div(k, time("kubectl")),
                "<= 0.25",
            );
            push(
                format!("{pods} sync time kinformer / floor"),
                div(k, time("floor (serde_json)")),
                if big { "<= 0.2" } else { "<= 2" },
            );
            let cached = self.cached_bytes(pods);
            push(
                format!("{pods} kinformer peak RSS / cached JSON bytes"),
                div(rss("kinformer"), cached),
                "<= 1.5",
            );
            let after = |client: &str| {
                self.row("sync", pods, client, "").map(|r| {
                    let values = r.samples.iter().filter_map(|s| s.rss_after_sync_kb);
                    median(values.map(|v| v as f64 * 1024.0).collect())
                })
            };
            push(
                format!("{pods} kinformer RSS after sync / cached JSON bytes"),
                div(after("kinformer after sync"), cached),
                if big { "<= 1.2" } else { "<= 1.5" },
            );
            push(
                format!("{pods} kinformer metadata-only peak RSS / cached JSON bytes"),
                div(rss("kinformer metadata-only"), cached),
                "",
            );
            push(
                format!("{pods} kube-runtime peak RSS / cached JSON bytes"),
                div(rss("kube-runtime"), cached),
                "",
            );
            push(
                format!("{pods} kube-runtime RSS after sync / cached JSON bytes"),
                div(after("kube-runtime"), cached),
                "",
            );
            let list = self
                .row("sync", pods, "server raw LIST", "")
                .map(|r| r.count() / r.seconds());
            push(format!("{pods} server LIST bytes/s (raw reader)"), list, "");
            let fastest = [
                "kinformer",
                "kinformer metadata-only",
                "kube-runtime",
                "kubectl",
            ]
            .iter()
            .filter_map(|c| time(c))
            .reduce(f64::min);
            push(
                format!("{pods} sync fastest client time / server raw LIST time"),
                div(fastest, time("server raw LIST")),
                ">= 2",
            );
        }
        self.per_object(&mut push);
        self.client_go(&mut push);
        self.servers(&mut push);
        let pods = self.settings.watch_size;
        for mode in ["live", "drain"] {
            let rate = |client: &str| self.row("watch", pods, client, mode).map(Row::rate);
            let k = rate("kinformer 1 handler");
            let cpu = |client: &str| {
                self.row("watch", pods, client, mode)
                    .and_then(Row::cpu_us_per_item)
            };
            push(
                format!("{pods} watch {mode} kinformer 1 handler events/s"),
                k,
                ">= 100000",
            );
            push(
                format!("{pods} watch {mode} kinformer 4 handlers events/s"),
                rate("kinformer 4 handlers"),
                ">= 60000",
            );
            push(
                format!("{pods} watch {mode} kinformer 1 handler CPU µs / event"),
                cpu("kinformer 1 handler"),
                "<= 10",
            );
            push(
                format!("{pods} watch {mode} floor (read + scan + print) CPU µs / event"),
                cpu("floor: read + scan + print"),
                "",
            );
            push(
                format!("{pods} watch {mode} floor (read + scan + 4 prints) CPU µs / event"),
                cpu("floor: read + scan + 4 prints"),
                "",
            );
            push(
                format!("{pods} watch {mode} kinformer 4 handlers CPU µs / event"),
                cpu("kinformer 4 handlers"),
                "",
            );
            push(
                format!("{pods} watch {mode} kinformer / kube-runtime CPU per event"),
                cpu("kinformer 1 handler")
                    .zip(cpu("kube-runtime"))
                    .map(|(a, b)| a / b),
                "",
            );
            push(
                format!("{pods} watch {mode} kinformer / kube-runtime events/s"),
                k.zip(rate("kube-runtime")).map(|(a, b)| a / b),
                ">= 1.5",
            );
            let fastest = [
                "kinformer 1 handler",
                "kinformer 4 handlers",
                "kube-runtime",
                "kubectl",
            ]
            .iter()
            .filter_map(|c| rate(c))
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
            let server = if mode == "live" {
                self.row("watch", pods, "server update writes", "live")
                    .map(Row::rate)
            } else {
                rate("server raw watch")
            };
            let what = if mode == "live" {
                "write (event emit) rate"
            } else {
                "raw watch serve rate"
            };
            push(
                format!("{pods} watch {mode} server {what} events/s"),
                server,
                "",
            );
            push(
                format!("{pods} watch {mode} server / fastest client"),
                server.zip(fastest).map(|(a, b)| a / b),
                ">= 2",
            );
        }
        ratios
    }

    /// Issue 36 item 6: kinformer / client-go, per configuration, sync (wall, CPU, peak RSS) at
    /// every N and CPU per watch event.
    fn client_go(&self, push: &mut impl FnMut(String, Option<f64>, &str)) {
        let div = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
        for go in ["client-go dynamic", "client-go typed protobuf"] {
            for &pods in &self.settings.sizes {
                let row = |client: &str| self.row("sync", pods, client, "");
                let figures: [Figure; 3] = [
                    ("time", |r| Some(r.seconds())),
                    ("CPU", Row::cpu),
                    ("peak RSS", |r| Some(r.rss_kb())),
                ];
                for (figure, get) in figures {
                    for kinformer in ["kinformer", "kinformer after sync"] {
                        if figure == "peak RSS" && kinformer != "kinformer" {
                            continue;
                        }
                        push(
                            format!("{pods} sync {figure} {kinformer} / {go}"),
                            div(row(kinformer).and_then(get), row(go).and_then(get)),
                            "",
                        );
                    }
                }
            }
            let pods = self.settings.watch_size;
            for mode in ["live", "drain"] {
                let row = |client: &str| self.row("watch", pods, client, mode);
                push(
                    format!("{pods} watch {mode} CPU per event kinformer 1 handler / {go}"),
                    div(
                        row("kinformer 1 handler").and_then(Row::cpu_us_per_item),
                        row(go).and_then(Row::cpu_us_per_item),
                    ),
                    "",
                );
                push(
                    format!("{pods} watch {mode} events/s kinformer 1 handler / {go}"),
                    div(
                        row("kinformer 1 handler").map(Row::rate),
                        row(go).map(Row::rate),
                    ),
                    "",
                );
            }
        }
    }

    /// Issue 37 item 4: the embedded server / kube-apiserver, same pods, same clients.
    fn servers(&self, push: &mut impl FnMut(String, Option<f64>, &str)) {
        let pods = self.settings.servers_size;
        if pods == 0 {
            return;
        }
        let div = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
        let both = |client: &str, get: &dyn Fn(&Row) -> Option<f64>| {
            let [embedded, real] = crate::servers::SERVERS
                .map(|server| self.row("servers", pods, client, server).and_then(get));
            (embedded, real)
        };
        for client in ["LIST full", "LIST paged"] {
            let (embedded, real) = both(client, &|r| Some(r.count() / r.seconds()));
            push(
                format!("{pods} servers {client} objects/s embedded"),
                embedded,
                "",
            );
            push(
                format!("{pods} servers {client} objects/s kube-apiserver"),
                real,
                "",
            );
            push(
                format!("{pods} servers {client} objects/s embedded / kube-apiserver"),
                div(embedded, real),
                "",
            );
            let bytes = both(client, &|r| {
                let values: Vec<f64> = r
                    .samples
                    .iter()
                    .filter_map(|s| Some(s.bytes? as f64))
                    .collect();
                (!values.is_empty()).then(|| median(values) / pods as f64)
            });
            push(
                format!("{pods} servers {client} bytes / pod embedded"),
                bytes.0,
                "",
            );
            push(
                format!("{pods} servers {client} bytes / pod kube-apiserver"),
                bytes.1,
                "",
            );
        }
        for client in ["watch: 1 watcher", "watch: writer (patches)"] {
            let (embedded, real) = both(client, &|r| Some(r.rate()));
            push(
                format!("{pods} servers {client} events/s embedded / kube-apiserver"),
                div(embedded, real),
                "",
            );
        }
        for client in ["kinformer", "client-go dynamic", "client-go typed protobuf"] {
            let (embedded, real) = both(client, &|r| Some(r.seconds()));
            push(
                format!("{pods} servers {client} sync time embedded / kube-apiserver"),
                div(embedded, real),
                "",
            );
            let (embedded, real) = both(client, &Row::cpu);
            push(
                format!("{pods} servers {client} sync CPU embedded / kube-apiserver"),
                div(embedded, real),
                "",
            );
        }
    }

    /// Scale (issue 16): sync time and peak RSS per object at every size, and how the per-object
    /// figures at the largest size compare with the smallest (linear growth: within 20%).
    fn per_object(&self, push: &mut impl FnMut(String, Option<f64>, &str)) {
        for client in ["kinformer", "kinformer metadata-only"] {
            let per_object = |pods: usize| {
                let row = self.row("sync", pods, client, "")?;
                Some((
                    row.seconds() / pods as f64,
                    row.rss_kb() * 1024.0 / pods as f64,
                ))
            };
            for &pods in &self.settings.sizes {
                let figures = per_object(pods);
                push(
                    format!("{pods} {client} sync µs / object"),
                    figures.map(|f| f.0 * 1e6),
                    "",
                );
                push(
                    format!("{pods} {client} peak RSS bytes / object"),
                    figures.map(|f| f.1),
                    "",
                );
            }
            let smallest = self.settings.sizes.iter().min().copied().unwrap_or(0);
            let largest = self.settings.sizes.iter().max().copied().unwrap_or(0);
            let growth = per_object(largest)
                .zip(per_object(smallest))
                .filter(|_| largest > smallest);
            push(
                format!("{client} per-object time, {largest} / {smallest} pods"),
                growth.map(|(l, s)| l.0 / s.0),
                "<= 1.2",
            );
            push(
                format!("{client} per-object peak RSS, {largest} / {smallest} pods"),
                growth.map(|(l, s)| l.1 / s.1),
                "<= 1.2",
            );
        }
    }

    /// The one table: absolute figures, then the ratios.
    pub fn render(&self) -> String {
        let mut table = Table::new();
        table.load_style(ASCII_MARKDOWN).set_header([
            "section",
            "pods",
            "client",
            "mode",
            "median s",
            "peak RSS MB",
            "rate",
            "CPU s",
            "CPU µs / pod or event",
            "runs ok",
            "note",
        ]);
        for row in &self.rows {
            let (rate, unit) = match (row.section, row.client) {
                ("sync", "server raw LIST") => (row.count() / row.seconds() / 1e6, "MB/s"),
                ("sync", _) => (row.pods as f64 / row.seconds(), "pods/s"),
                ("servers", c) if c.starts_with("LIST") => {
                    (row.count() / row.seconds(), "objects/s")
                }
                ("servers", c) if c.starts_with("watch") => (row.rate(), "events/s"),
                ("servers", _) => (row.pods as f64 / row.seconds(), "pods/s"),
                _ => (row.rate(), "events/s"),
            };
            let ok = format!(
                "{}/{}",
                row.samples.len(),
                row.samples.len() + row.errors.len()
            );
            let empty = row.samples.is_empty();
            table.add_row([
                row.section.to_owned(),
                row.pods.to_string(),
                row.client.to_owned(),
                row.mode.to_owned(),
                if empty {
                    "-".into()
                } else {
                    num(row.seconds())
                },
                if empty || row.rss_kb() == 0.0 {
                    "-".into()
                } else {
                    num(row.rss_kb() / 1024.0)
                },
                if empty {
                    "-".into()
                } else {
                    format!("{} {unit}", num(rate))
                },
                row.cpu().map_or("-".into(), num),
                row.cpu_us_per_item().map_or("-".into(), num),
                ok,
                row.notes(),
            ]);
        }
        let mut ratios = Table::new();
        ratios
            .load_style(ASCII_MARKDOWN)
            .set_header(["ratio / rate", "value", "target", "met"]);
        for ratio in self.ratios() {
            let met = match (self.settings.smoke, ratio.met) {
                (true, _) | (false, None) => "",
                (false, Some(true)) => "yes",
                (false, Some(false)) => "NO",
            };
            ratios.add_row([
                ratio.name,
                ratio.value.map_or("-".into(), num),
                ratio.target,
                met.to_owned(),
            ]);
        }
        format!(
            "kinformer sync benchmark, {} ({} CPUs; N = {:?}, M = {}, runs = {}{})\n\n{table}\n\n{ratios}",
            self.date,
            std::thread::available_parallelism().map_or(0, usize::from),
            self.settings.sizes,
            self.settings.events,
            self.settings.runs,
            if self.settings.smoke {
                ", SMOKE: no targets"
            } else {
                ""
            }
        )
    }

    /// Writes the same figures as JSON.
    pub fn write_json(&self, path: &Path) -> std::io::Result<()> {
        let rows: Vec<_> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "section": r.section, "pods": r.pods, "client": r.client, "mode": r.mode,
                    "median_seconds": r.seconds(), "median_peak_rss_bytes": r.rss_kb() * 1024.0,
                    "median_rate": r.rate(), "median_cpu_seconds": r.cpu(),
                    "median_cpu_us_per_item": r.cpu_us_per_item(), "samples": r.samples, "errors": r.errors, "notes": r.notes,
                })
            })
            .collect();
        let mut cached = BTreeMap::new();
        for &pods in &self.settings.sizes {
            cached.insert(pods.to_string(), self.cached_bytes(pods));
        }
        let document = json!({
            "date": self.date,
            "settings": {"sizes": self.settings.sizes, "watch_size": self.settings.watch_size,
                         "events": self.settings.events, "runs": self.settings.runs, "smoke": self.settings.smoke},
            "cached_json_bytes": cached,
            "rows": rows,
            "ratios": self.ratios(),
        });
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, serde_json::to_string_pretty(&document)? + "\n")
    }

    /// `benches/RESULTS.md`: how to run, then the table.
    pub fn markdown(&self, table: &str) -> String {
        format!(
            "# Sync benchmark results\n\n\
             Generated by `cargo bench --bench sync` (knobs: doc comment of `benches/sync.rs`; \
             the smoke version is `cargo test --bench sync`). One embedded server per pod count, \
             every client a child process.\n\n\
             - sync rows: wall time from spawn to exit (`kinformer dump pods -A -o jsonl`, \
             `kubectl get pods -A -o json`, both to /dev/null; kube-runtime until \
             `wait_until_ready`; floor = one unpaged LIST parsed into `serde_json::Value`) and \
             the client's peak RSS (`VmHWM`); `CPU s` is the client's user + sys time over \
             the same span (`wait4`'s rusage; `kinformer after sync`: its CPU clock when the \
             `synced` line arrives), `CPU µs` that per pod;\n\
             - watch rows: `live` = M / (first write → M-th event consumed) while the server \
             writes; `drain` = the client is stopped (SIGSTOP) during the writes and timed from \
             SIGCONT: its own consumption capacity. `server update writes` is the server's \
             write (event emit) rate during those runs; `server raw watch` a raw HTTP reader; \
             `CPU s` is the client's user + sys time over the timed window (its CPU clock read \
             at the first write, or at SIGSTOP, and at the M-th event), `CPU µs` that per \
             event consumed;\n\
             - cached JSON bytes = the raw LIST body size; `kinformer after sync` is \
             `kinformer watch pods -A -o jsonl --show reflector`, timed to its `synced` line, its \
             RSS read 300 ms after that line while it keeps watching (the RSS after sync; \
             `dump`'s peak also holds its output);\n\
             - `floor: read + scan` is the least a client that checks what it caches pays on \
             this machine: the same bytes read on a raw connection, validated and split by \
             kinformer's own scanner (`parse_list`, pages of 500 kept as a cache keeps them) and \
             nothing else (no metadata, store or trace); `floor: read + scan + print` the same \
             for watch events (`frames`, which also reads each object's metadata), each object \
             printed on a line of stdout (`4 prints`: four times, as for 4 handlers).\n\n```text\n{table}\n```\n"
        )
    }
}
