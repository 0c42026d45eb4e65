//! The report page: one self-contained HTML file. The run's header, timeline and every
//! object's story are computed here and embedded as one JSON document; the page's own small
//! script (`page.js`) and style (`page.css`) are inlined, so it opens from disk with no
//! network at all (its Content-Security-Policy forbids any).

use std::collections::BTreeMap;

use serde::Serialize;

use super::story::{Story, clock, stories};
use super::timeline::{Timeline, timeline};
use super::trace::Trace;
use crate::duration::format_duration;

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Where the trace came from, for the header.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    /// The input file, or the command that ran (`kinformer watch pods …`).
    pub input: String,
    /// The API server: its address and version, when known.
    pub server: Option<String>,
}

/// Everything the page shows.
#[derive(Debug, Serialize)]
struct PageData {
    header: Header,
    timeline: Timeline,
    handlers: Vec<HandlerFigures>,
    stories: Vec<StoryData>,
}

#[derive(Debug, Serialize)]
struct Header {
    input: String,
    server: String,
    client_go: String,
    queue: String,
    resources: Vec<String>,
    started: String,
    duration: String,
    events: usize,
    counts: BTreeMap<String, u64>,
    /// The `summary` line as written (its `handlers`, `metrics`, …).
    summary: Option<serde_json::Value>,
    proxy: Vec<serde_json::Value>,
    /// A Go tap's diagnoses, in order: what kept an informer from syncing, a handler whose
    /// backlog kept growing.
    diagnoses: Vec<Diagnosis>,
}

/// One `diagnosis` line as the page lists it.
#[derive(Debug, Serialize)]
struct Diagnosis {
    at: String,
    what: String,
    resource: String,
    handler: String,
    cause: String,
}

/// One handler's notifications by kind.
#[derive(Debug, Default, Serialize)]
struct HandlerFigures {
    label: String,
    add: u64,
    update: u64,
    delete: u64,
    sync: u64,
    initial: u64,
    handled: u64,
    max_pending: u64,
    /// What a Go tap measured around the handler's calls (mean µs): the wait from the queue
    /// to the call, and the call itself; absent in kinformer's own runs.
    mean_queue_us: Option<u64>,
    mean_call_us: Option<u64>,
    #[serde(skip)]
    queue_us: (u64, u64),
    #[serde(skip)]
    call_us: (u64, u64),
}

/// One object's story as the page's search shows it: key, resource, and each step as
/// (µs after the trace's first line, clock time, kind, words).
#[derive(Debug, Serialize)]
struct StoryData {
    k: String,
    r: String,
    s: Vec<(i64, String, &'static str, String)>,
}

/// The page for `trace`.
pub fn render(trace: &Trace, info: &RunInfo) -> String {
    let data = PageData {
        header: header(trace, info),
        timeline: timeline(trace),
        handlers: handler_figures(trace),
        stories: stories(trace)
            .into_iter()
            .map(|story| story_data(story, trace.span().0))
            .collect(),
    };
    let json = serde_json::to_string(&data)
        .unwrap_or_else(|_| "{}".into())
        // Inside <script>, `</script>` must not appear: `<` is written as its JSON escape.
        .replace('<', "\\u003c");
    TEMPLATE
        .replacen("{{TITLE}}", &html_escape(&title(trace, info)), 1)
        .replacen("{{STYLE}}", STYLE, 1)
        .replacen("{{SCRIPT}}", SCRIPT, 1)
        .replacen("{{DATA}}", &json, 1)
}

fn title(trace: &Trace, info: &RunInfo) -> String {
    let resources = trace.resources().join(", ");
    match (resources.is_empty(), info.input.is_empty()) {
        (true, _) => "kinformer report".into(),
        (false, true) => format!("kinformer report · {resources}"),
        (false, false) => format!("kinformer report · {resources} · {}", info.input),
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn header(trace: &Trace, info: &RunInfo) -> Header {
    let started: Vec<_> = trace
        .lines
        .iter()
        .filter(|l| l.is("informer", "started"))
        .collect();
    let distinct = |f: &dyn Fn(&super::trace::TraceLine) -> Option<String>| {
        let mut values: Vec<String> = started.iter().filter_map(|l| f(l)).collect();
        values.dedup();
        values.join(", ")
    };
    let (t0, t1) = trace.span();
    let duration_ms = trace
        .summary
        .as_ref()
        .and_then(|s| s["duration_ms"].as_u64())
        .unwrap_or_else(|| u64::try_from((t1 - t0) / 1000).unwrap_or(0));
    Header {
        input: info.input.clone(),
        server: info
            .server
            .clone()
            .unwrap_or_else(|| "not recorded in the trace".into()),
        client_go: distinct(&|l| l.client_go.clone()),
        queue: distinct(&|l| l.queue.clone()),
        resources: trace.resources(),
        started: jiff::Timestamp::from_microsecond(t0)
            .map(|t| t.to_string())
            .unwrap_or_default(),
        duration: format_duration(std::time::Duration::from_millis(duration_ms)),
        events: trace.lines.len(),
        counts: trace.counts(),
        summary: trace.summary.clone(),
        proxy: trace.proxy_summaries.clone(),
        diagnoses: diagnoses(trace),
    }
}

fn diagnoses(trace: &Trace) -> Vec<Diagnosis> {
    trace
        .lines
        .iter()
        .filter(|l| l.stage == "diagnosis")
        .map(|l| Diagnosis {
            at: clock(l.ts),
            what: l.event.clone(),
            resource: l.resource().to_owned(),
            handler: l.handler().to_owned(),
            cause: l.cause.clone().unwrap_or_default(),
        })
        .collect()
}

fn handler_figures(trace: &Trace) -> Vec<HandlerFigures> {
    let several = trace.resources().len() > 1;
    let mut figures: Vec<HandlerFigures> = Vec::new();
    for line in trace.lines.iter().filter(|l| l.stage == "handler") {
        let label = if several {
            format!("{}/{}", line.resource(), line.handler())
        } else {
            line.handler().to_owned()
        };
        let at = match figures.iter().position(|f| f.label == label) {
            Some(at) => at,
            None => {
                figures.push(HandlerFigures {
                    label,
                    ..HandlerFigures::default()
                });
                figures.len() - 1
            }
        };
        count(&mut figures[at], line);
    }
    for f in &mut figures {
        let mean = |(sum, n): (u64, u64)| (n > 0).then(|| sum / n);
        (f.mean_queue_us, f.mean_call_us) = (mean(f.queue_us), mean(f.call_us));
    }
    figures
}

fn count(f: &mut HandlerFigures, line: &super::trace::TraceLine) {
    f.max_pending = f.max_pending.max(line.pending.unwrap_or(0));
    if line.event == "handled" {
        f.handled += 1;
        for (measured, total) in [
            (line.queue_us, &mut f.queue_us),
            (line.call_us, &mut f.call_us),
        ] {
            if let Some(us) = measured {
                *total = (total.0 + us, total.1 + 1);
            }
        }
        return;
    }
    if line.event != "notify" {
        return;
    }
    match line.kind.as_deref() {
        Some("add") => f.add += 1,
        Some("delete") => f.delete += 1,
        _ => f.update += 1,
    }
    f.sync += u64::from(line.sync);
    f.initial += u64::from(line.initial);
}

/// `story` for the page, its times also counted from `t0` (the timeline's origin).
fn story_data(story: Story, t0: i64) -> StoryData {
    StoryData {
        k: story.key,
        r: story.resource,
        s: story
            .steps
            .into_iter()
            .map(|s| (s.ts - t0, clock(s.ts), s.kind.as_str(), s.text))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::trace::parse_jsonl;

    #[test]
    fn the_page_is_self_contained_and_its_data_cannot_close_the_script() {
        let trace = parse_jsonl(
            br#"{"seq":1,"ts":"2026-11-22T12:00:00Z","stage":"reflector","event":"watch-event","resource":"pods","type":"ADDED","key":"ns/</script><b>x","rv":"1"}
"#,
        )
        .unwrap();
        let page = render(&trace, &RunInfo::default());
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(
            page.contains("default-src 'none'"),
            "the CSP forbids any fetch"
        );
        assert!(!page.contains("</script><b>"), "data escaped");
        assert!(page.contains("ns/\\u003c/script>\\u003cb>x"));
        for external in ["http://", "https://", "src=\"", "href=\""] {
            assert!(!page.contains(external), "{external} in the page");
        }
        assert!(!page.contains("{{"), "every placeholder filled");
    }

    #[test]
    fn a_go_taps_diagnoses_and_measured_handler_times_reach_the_page() {
        let trace = parse_jsonl(
            br#"{"seq":1,"ts":"2026-11-22T12:00:00Z","stage":"handler","event":"handled","resource":"configmaps","handler":"slow","kind":"add","key":"ns/a","rv":"5","latency_us":300,"call_us":100,"queue_us":200}
{"seq":2,"ts":"2026-11-22T12:00:01Z","stage":"handler","event":"handled","resource":"configmaps","handler":"slow","kind":"add","key":"ns/b","rv":"6","latency_us":500,"call_us":300,"queue_us":200}
{"seq":3,"ts":"2026-11-22T12:00:02Z","stage":"diagnosis","event":"backlog-growing","resource":"configmaps","handler":"slow","cause":"handler slow falls behind"}
"#,
        )
        .unwrap();
        let figures = handler_figures(&trace);
        assert_eq!(
            (figures[0].mean_queue_us, figures[0].mean_call_us),
            (Some(200), Some(200))
        );
        let found = diagnoses(&trace);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (
                found[0].what.as_str(),
                found[0].handler.as_str(),
                found[0].cause.as_str()
            ),
            ("backlog-growing", "slow", "handler slow falls behind")
        );
        assert!(render(&trace, &RunInfo::default()).contains("handler slow falls behind"));
    }
}
