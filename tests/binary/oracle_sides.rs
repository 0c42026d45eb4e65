//! Reading the two sides of the side-by-side test (`oracle_side_by_side`) into one model: the
//! live oracle's JSONL (`request`, `list-done`, `list-error`, `watch-error`, `watch-end`,
//! `notify`, `cache` lines: go/oracle/live) and `kinformer watch -o jsonl --show all`
//! (reflector lifecycle, handler `notify`, `indexer` lines). Each side becomes its reflector's
//! requests and how each ended, every handler's notifications per object, and its final cache.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// What a reflector request asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    List,
    WatchList,
    Watch,
}

/// One reflector step: a request (a LIST's continued pages are not one) or how one ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Request(Kind, String),
    /// A LIST answered at this resourceVersion.
    Listed(String),
    /// A watch stream ended (cleanly or by a broken connection) after this resourceVersion;
    /// `true` when within 1 s of its request and without an event (client-go's very short
    /// watch, reflector.go v0.37.2:1090-1091, which relists).
    Closed(String, bool),
    /// A LIST or WATCH failed: the HTTP code, or `transport` when there was none.
    Failed(String),
}

/// One side's run.
#[derive(Debug, Default)]
pub struct Side {
    pub steps: Vec<Step>,
    /// handler → key → `S:rv` per add or update that is no sync, `D` per delete.
    pub tokens: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Sync updates that did not repeat the handler's current state of the object.
    pub bad_syncs: Vec<String>,
    /// key → resourceVersion of the informer's cache at the end.
    pub cache: BTreeMap<String, String>,
}

/// Milliseconds since midnight of a kinformer `ts` (`2026-11-27T04:57:08.112065Z`).
fn ts_ms(v: &Value) -> f64 {
    let ts = v["ts"].as_str().unwrap_or_default();
    let time = ts
        .split('T')
        .nth(1)
        .unwrap_or_default()
        .trim_end_matches('Z');
    time.split(':')
        .map(|p| p.parse::<f64>().unwrap_or(0.0))
        .fold(0.0, |acc, p| acc * 60.0 + p)
        * 1000.0
}

/// Whether a watch that ended with `events` events `ms` after its request was very short.
fn very_short(events: &Value, ms: f64) -> bool {
    events.as_u64() == Some(0) && ms < 1000.0
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_owned()
}

/// The HTTP code of a failure line, or `transport`.
fn failure(v: &Value) -> Step {
    Step::Failed(match v["code"].as_u64() {
        Some(code) => code.to_string(),
        None => "transport".to_owned(),
    })
}

impl Side {
    fn notify(&mut self, v: &Value) {
        let handler = text(v, "handler");
        let key = text(v, "key");
        let rv = text(v, "rv");
        let tokens = self
            .tokens
            .entry(handler.clone())
            .or_default()
            .entry(key.clone())
            .or_default();
        if v["sync"] == true {
            if tokens.last() != Some(&format!("S:{rv}")) {
                self.bad_syncs
                    .push(format!("{handler} {key}: sync at {rv} after {tokens:?}"));
            }
        } else if v["kind"] == "delete" {
            tokens.push("D".to_owned());
        } else {
            tokens.push(format!("S:{rv}"));
        }
    }

    /// `kinformer watch -o jsonl --show all`.
    pub fn from_kinformer(stdout: &str) -> Self {
        let mut side = Side::default();
        let mut in_watch_list = false;
        let mut asked = 0.0;
        for v in stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            match (v["stage"].as_str(), v["event"].as_str()) {
                (Some("reflector"), Some(event)) => {
                    let step = match event {
                        "list-start" => {
                            asked = ts_ms(&v);
                            in_watch_list = v["watch_list"] == true;
                            let kind = if in_watch_list {
                                Kind::WatchList
                            } else {
                                Kind::List
                            };
                            Some(Step::Request(kind, text(&v, "rv")))
                        }
                        "watch-start" if v["watch_list"] != true => {
                            asked = ts_ms(&v);
                            in_watch_list = false;
                            Some(Step::Request(Kind::Watch, text(&v, "rv")))
                        }
                        // A watch-list's initial events end: the oracle has no line for it.
                        "list-done" if !in_watch_list => Some(Step::Listed(text(&v, "rv"))),
                        "list-error" | "watch-error" => Some(failure(&v)),
                        "watch-end" => Some(Step::Closed(
                            text(&v, "rv"),
                            very_short(&v["events"], ts_ms(&v) - asked),
                        )),
                        _ => None,
                    };
                    side.steps.extend(step);
                }
                (Some("handler"), Some("notify")) => side.notify(&v),
                (Some("indexer"), Some("add" | "update")) => {
                    side.cache.insert(text(&v, "key"), text(&v, "rv"));
                }
                (Some("indexer"), Some("delete")) => {
                    side.cache.remove(&text(&v, "key"));
                }
                _ => {}
            }
        }
        side
    }

    /// The live oracle's `-out` file.
    pub fn from_oracle(out: &str) -> Self {
        let mut side = Side::default();
        let mut asked = 0.0;
        for v in out
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let t = v["t_ms"].as_f64().unwrap_or(0.0);
            if v["event"] == "request" {
                asked = t;
            }
            let step = match v["event"].as_str() {
                Some("request") if v["verb"] == "list" && text(&v, "continue").is_empty() => {
                    Some(Step::Request(Kind::List, text(&v, "rv")))
                }
                Some("request") if v["verb"] == "watch" => {
                    let kind = if v["send_initial_events"] == true {
                        Kind::WatchList
                    } else {
                        Kind::Watch
                    };
                    Some(Step::Request(kind, text(&v, "rv")))
                }
                Some("list-done") if v["continue"] != true => Some(Step::Listed(text(&v, "rv"))),
                Some("list-error" | "watch-error") => Some(failure(&v)),
                Some("watch-end") => Some(Step::Closed(
                    text(&v, "rv"),
                    very_short(&v["events"], t - asked),
                )),
                Some("notify") => {
                    side.notify(&v);
                    None
                }
                Some("cache") => {
                    side.cache.insert(text(&v, "key"), text(&v, "rv"));
                    None
                }
                _ => None,
            };
            side.steps.extend(step);
        }
        side
    }

    /// Each handler's view at the end: key → rv of its last notification that is no delete.
    pub fn views(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let view = |keys: &BTreeMap<String, Vec<String>>| {
            keys.iter()
                .filter_map(|(key, tokens)| {
                    let rv = tokens.last()?.strip_prefix("S:")?;
                    Some((key.clone(), rv.to_owned()))
                })
                .collect()
        };
        self.tokens
            .iter()
            .map(|(handler, keys)| (handler.clone(), view(keys)))
            .collect()
    }

    /// The reflector's reactions: per cause (the request that ended and how), the requests
    /// that followed (their kind and where their resourceVersion came from), counted.
    pub fn reactions(&self) -> BTreeMap<String, BTreeMap<String, usize>> {
        let mut table: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut last: Option<(Kind, String)> = None;
        let mut end: Option<&Step> = None;
        for step in &self.steps {
            let Step::Request(kind, rv) = step else {
                end = Some(step);
                continue;
            };
            if let Some((last_kind, last_rv)) = &last {
                let (how, end_rv) = match end {
                    Some(Step::Listed(rv)) => ("listed".to_owned(), Some(rv)),
                    Some(Step::Closed(rv, false)) => ("closed".to_owned(), Some(rv)),
                    Some(Step::Closed(rv, true)) => ("closed very short".to_owned(), Some(rv)),
                    Some(Step::Failed(code)) => (format!("failed {code}"), None),
                    _ => ("no end".to_owned(), None),
                };
                let from = match rv.as_str() {
                    "" => "rv \"\"",
                    "0" => "rv 0",
                    _ if Some(rv) == end_rv => "the end's rv",
                    _ if rv == last_rv => "the same rv",
                    _ => "another rv",
                };
                *table
                    .entry(format!("{last_kind:?} {how}"))
                    .or_default()
                    .entry(format!("{kind:?} from {from}"))
                    .or_default() += 1;
            }
            last = Some((*kind, rv.clone()));
            end = None;
        }
        table
    }
}

/// The reactions each cause had on a side, without counts.
pub fn reaction_kinds(
    table: &BTreeMap<String, BTreeMap<String, usize>>,
) -> BTreeMap<&str, BTreeSet<&str>> {
    table
        .iter()
        .map(|(cause, r)| (cause.as_str(), r.keys().map(String::as_str).collect()))
        .collect()
}
