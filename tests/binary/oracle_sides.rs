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
    /// A watch stream ended (cleanly or by a broken connection) at the resourceVersion its
    /// reflector resumes from.
    Closed {
        rv: String,
        /// Within 1 s of its request and without an event (client-go's very short watch,
        /// reflector.go v0.37.2:1090-1091, which relists).
        very_short: bool,
        /// A watch-list's stream, before its initial-events-end bookmark (client-go opens the
        /// watch-list again, reflector.go v0.37.2:887-889; after the bookmark it is a watch).
        initial: bool,
    },
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
        // In a watch-list's initial phase (up to its list-done).
        let mut initial = false;
        let mut asked = 0.0;
        let mut asked_rv = String::new();
        // kinformer ends a failed stream with a watch-error and then a watch-end; the oracle
        // writes the watch-error alone. The failure is how the request ended.
        let mut failed = false;
        for v in stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            match (v["stage"].as_str(), v["event"].as_str()) {
                (Some("reflector"), Some(event)) => {
                    let step = match event {
                        "list-start" => {
                            asked = ts_ms(&v);
                            asked_rv = text(&v, "rv");
                            failed = false;
                            in_watch_list = v["watch_list"] == true;
                            initial = in_watch_list;
                            let kind = if in_watch_list {
                                Kind::WatchList
                            } else {
                                Kind::List
                            };
                            Some(Step::Request(kind, text(&v, "rv")))
                        }
                        "watch-start" if v["watch_list"] != true => {
                            asked = ts_ms(&v);
                            failed = false;
                            in_watch_list = false;
                            initial = false;
                            Some(Step::Request(Kind::Watch, text(&v, "rv")))
                        }
                        // A watch-list's initial events end: the oracle has no line for it.
                        // A watch-list's initial events end: the very-short-watch second and
                        // the count of events start again here, as client-go's watch loop
                        // takes them after watchList returns (reflector.go v0.37.2:583).
                        "list-done" if in_watch_list => {
                            initial = false;
                            asked = ts_ms(&v);
                            None
                        }
                        "list-done" => Some(Step::Listed(text(&v, "rv"))),
                        // A watched object the transform rejected: the watch goes on (R13).
                        "watch-error" if v["reason"] == "Transform" => None,
                        // kinformer says a watch-list's very short stream as the error
                        // client-go's handleListWatch returns for it; the oracle sees the close.
                        "watch-error" if text(&v, "message").starts_with("very short watch") => {
                            failed = true;
                            Some(Step::Closed {
                                rv: asked_rv.clone(),
                                very_short: true,
                                initial,
                            })
                        }
                        "list-error" | "watch-error" => {
                            failed = true;
                            Some(failure(&v))
                        }
                        "watch-end" if failed => None,
                        "watch-end" => Some(Step::Closed {
                            rv: text(&v, "rv"),
                            very_short: very_short(&v["events"], ts_ms(&v) - asked),
                            initial,
                        }),
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
                // The very-short-watch second starts again at a watch-list's initial events end.
                Some("initial-events-end") => {
                    asked = t;
                    None
                }
                Some("list-error" | "watch-error") => Some(failure(&v)),
                Some("watch-end") => Some(Step::Closed {
                    rv: text(&v, "rv"),
                    very_short: very_short(&v["events"], t - asked),
                    initial: v["initial"] == true,
                }),
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
                    Some(Step::Closed {
                        rv,
                        very_short,
                        initial,
                    }) => {
                        let mut how = "closed".to_owned();
                        if *very_short {
                            how.push_str(" very short");
                        }
                        if *initial {
                            how.push_str(" before its initial events end");
                        }
                        (how, Some(rv))
                    }
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

/// Both sides' lines for the same story — a watch-list cut before its initial-events-end
/// bookmark and opened again, its stream closed after the bookmark and re-watched, then a 410 on
/// that watch and a relist — give the same reactions.
#[test]
fn both_sides_read_the_same_story_as_the_same_reactions() {
    let ts = |ms: u32| format!("2026-11-27T05:00:{:02}.{:03}000Z", ms / 1000, ms % 1000);
    let kinformer = [
        (0, r#""event":"list-start","rv":"","watch_list":true"#),
        (0, r#""event":"watch-start","rv":"","watch_list":true"#),
        (
            30,
            r#""event":"watch-end","rv":"","events":5,"reason":"unexpected EOF""#,
        ),
        (30, r#""event":"list-start","rv":"","watch_list":true"#),
        (30, r#""event":"watch-start","rv":"","watch_list":true"#),
        (40, r#""event":"list-done","rv":"9","items":5,"pages":1"#),
        (
            2000,
            r#""event":"watch-end","rv":"12","events":3,"reason":"closed by server""#,
        ),
        (
            2000,
            r#""event":"watch-start","rv":"12","watch_list":false"#,
        ),
        (
            2100,
            r#""event":"watch-error","code":410,"reason":"Expired","message":"too old""#,
        ),
        (
            2100,
            r#""event":"watch-end","rv":"12","events":0,"reason":"410 Expired""#,
        ),
        (3000, r#""event":"list-start","rv":"12","watch_list":false"#),
    ]
    .map(|(ms, rest)| format!(r#"{{"ts":"{}","stage":"reflector",{rest}}}"#, ts(ms)))
    .join("\n");
    let client_go = [
        r#""event":"request","verb":"watch","rv":"","send_initial_events":true,"t_ms":0"#,
        r#""event":"watch-end","rv":"","events":5,"initial":true,"t_ms":30"#,
        r#""event":"request","verb":"watch","rv":"","send_initial_events":true,"t_ms":30"#,
        r#""event":"watch-end","rv":"12","events":9,"initial":false,"t_ms":2000"#,
        r#""event":"request","verb":"watch","rv":"12","send_initial_events":false,"t_ms":2000"#,
        r#""event":"watch-error","code":410,"reason":"Expired","t_ms":2100"#,
        r#""event":"request","verb":"list","rv":"12","continue":"","t_ms":3000"#,
    ]
    .map(|rest| format!("{{{rest}}}"))
    .join("\n");
    let (k, o) = (
        Side::from_kinformer(&kinformer).reactions(),
        Side::from_oracle(&client_go).reactions(),
    );
    assert_eq!(k, o);
    assert_eq!(
        reaction_kinds(&k).into_keys().collect::<Vec<_>>(),
        [
            "Watch failed 410",
            "WatchList closed",
            "WatchList closed before its initial events end"
        ]
    );
}
