//! Reading a scenario file: YAML (serde-saphyr) into [`Scenario`]. Unknown keys and unknown
//! step kinds are errors that name the step number; durations parse like kubectl (`2s`, `1m`).

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::model::{Action, Scenario, Step, WriteKind, Writes};
use crate::duration::parse_duration;
use crate::informer::processor::HandlerSpec;
use crate::informer::queue::QueueKind;
use kinformer_apiserver::Fault;

/// Largest number of steps and of writes per step (a scenario is a demo, not a load test).
const MAX_STEPS: usize = 10_000;
const MAX_WRITES: usize = 100_000;

/// Why a scenario file cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(
        "cannot read scenario {path}: {source}, and no scenario is built in by that name (built in: {builtin})"
    )]
    Read {
        path: String,
        /// The built-in scenarios' names.
        builtin: String,
        source: std::io::Error,
    },
    #[error("invalid scenario {path}: {message}")]
    Invalid { path: String, message: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    description: String,
    #[serde(default)]
    queue: Option<String>,
    #[serde(default, rename = "client-go")]
    client_go: Option<String>,
    #[serde(default)]
    resync: Option<String>,
    #[serde(default)]
    handlers: Vec<RawHandler>,
    #[serde(default)]
    seed: Option<String>,
    #[serde(default)]
    history: Option<usize>,
    #[serde(default)]
    steps: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHandler {
    name: String,
    #[serde(default)]
    resync: Option<String>,
    #[serde(default)]
    delay: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawStep {
    at: Value,
    #[serde(default)]
    create: Option<RawWrites>,
    #[serde(default)]
    update: Option<RawWrites>,
    #[serde(default)]
    delete: Option<RawWrites>,
    #[serde(default)]
    label: Option<RawWrites>,
    #[serde(default)]
    fault: Option<Value>,
    #[serde(default)]
    add_handler: Option<RawHandler>,
    #[serde(default)]
    remove_handler: Option<String>,
    #[serde(default)]
    end: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawWrites {
    #[serde(default)]
    resource: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    rate: Option<f64>,
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

/// Reads and parses a scenario file, or, when no file is there, the built-in scenario of that
/// name.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) => match super::builtin::builtin(&shown) {
            Some(text) => text.to_owned(),
            None => {
                return Err(ScenarioError::Read {
                    path: shown,
                    builtin: super::builtin::names(),
                    source,
                });
            }
        },
    };
    parse(&text).map_err(|message| ScenarioError::Invalid {
        path: shown,
        message,
    })
}

/// Parses a scenario from YAML text; the error is one line.
pub fn parse(text: &str) -> Result<Scenario, String> {
    if text.trim().is_empty() {
        return Err("the file is empty (a scenario has steps: see docs/scenarios.md)".to_owned());
    }
    let raw: RawScenario =
        serde_saphyr::from_str(text).map_err(|e| crate::yaml_error::one_line(&e))?;
    if raw.steps.is_empty() {
        return Err("no steps (a scenario has steps: see docs/scenarios.md)".to_owned());
    }
    if raw.steps.len() > MAX_STEPS {
        return Err(format!("more than {MAX_STEPS} steps"));
    }
    let steps = raw
        .steps
        .into_iter()
        .enumerate()
        .map(|(i, step)| parse_step(step).map_err(|e| format!("step {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Scenario {
        description: raw.description.trim().to_owned(),
        queue: raw.queue.map(|q| parse_queue(&q)).transpose()?,
        client_go: raw
            .client_go
            .map(|v| crate::informer::profile::Profile::of(&v).map_err(|e| e.to_string()))
            .transpose()?,
        resync: raw.resync.as_deref().map(duration).transpose()?,
        handlers: raw
            .handlers
            .into_iter()
            .map(handler)
            .collect::<Result<_, _>>()?,
        builtin_seed: parse_seed(raw.seed.as_deref())?,
        history: raw.history,
        steps,
    })
}

fn duration(text: &str) -> Result<Duration, String> {
    parse_duration(text)
}

fn parse_queue(queue: &str) -> Result<QueueKind, String> {
    match queue {
        "delta-fifo" => Ok(QueueKind::DeltaFifo),
        "real-fifo" => Ok(QueueKind::RealFifo),
        other => Err(format!(
            "unknown queue {other:?} (expected delta-fifo or real-fifo)"
        )),
    }
}

fn parse_seed(seed: Option<&str>) -> Result<bool, String> {
    match seed {
        None | Some("empty") => Ok(false),
        Some("builtin") => Ok(true),
        Some(other) => Err(format!(
            "unknown seed {other:?} (expected builtin or empty)"
        )),
    }
}

fn handler(raw: RawHandler) -> Result<HandlerSpec, String> {
    let valid = !raw.name.is_empty()
        && raw
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !valid {
        return Err(format!("invalid handler name {:?}", raw.name));
    }
    Ok(HandlerSpec {
        name: raw.name,
        resync: raw.resync.as_deref().map(duration).transpose()?,
        delay: raw
            .delay
            .as_deref()
            .map(duration)
            .transpose()?
            .unwrap_or(Duration::ZERO),
        panic_every: None,
    })
}

fn parse_step(value: Value) -> Result<Step, String> {
    if let Some(map) = value.as_object() {
        const KINDS: &[&str] = &[
            "at",
            "create",
            "update",
            "delete",
            "label",
            "fault",
            "add-handler",
            "remove-handler",
            "end",
        ];
        if let Some(unknown) = map.keys().find(|k| !KINDS.contains(&k.as_str())) {
            return Err(format!(
                "unknown step kind {unknown:?} (expected one of: {})",
                KINDS[1..].join(", ")
            ));
        }
    }
    let raw: RawStep = serde_json::from_value(value).map_err(|e| e.to_string())?;
    let at = step_time(&raw.at)?;
    let mut actions = step_actions(raw)?;
    match (actions.pop(), actions.is_empty()) {
        (Some(action), true) => Ok(Step { at, action }),
        (None, _) => Err("no action (expected create, update, delete, label, fault, add-handler, remove-handler or end)".into()),
        (Some(_), false) => Err("more than one action in one step".into()),
    }
}

fn step_time(at: &Value) -> Result<Duration, String> {
    match at {
        Value::String(text) => duration(text),
        Value::Number(n) => n
            .as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s < 86_400.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| format!("invalid time {n}")),
        other => Err(format!("invalid time {other} (expected e.g. 2s)")),
    }
}

fn step_actions(raw: RawStep) -> Result<Vec<Action>, String> {
    let mut actions = Vec::new();
    let writes = [
        (WriteKind::Create, raw.create),
        (WriteKind::Update, raw.update),
        (WriteKind::Delete, raw.delete),
        (WriteKind::Label, raw.label),
    ];
    for (kind, spec) in writes {
        if let Some(spec) = spec {
            actions.push(Action::Write(kind, writes_of(kind, spec)?));
        }
    }
    if let Some(fault) = raw.fault {
        actions.push(Action::Fault(fault_of(fault)?));
    }
    if let Some(handler_def) = raw.add_handler {
        actions.push(Action::AddHandler(handler(handler_def)?));
    }
    if let Some(name) = raw.remove_handler {
        actions.push(Action::RemoveHandler(name));
    }
    if raw.end == Some(true) {
        actions.push(Action::End);
    }
    Ok(actions)
}

fn writes_of(kind: WriteKind, raw: RawWrites) -> Result<Writes, String> {
    let resource = raw.resource.unwrap_or_else(|| "pods".into());
    if kind == WriteKind::Create && resource != "pods" {
        return Err(format!("create makes pods only, not {resource:?}"));
    }
    let count = raw.count.unwrap_or(1);
    if count > MAX_WRITES {
        return Err(format!("count {count} is more than {MAX_WRITES}"));
    }
    if raw.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        return Err("rate must be a positive number of writes per second".into());
    }
    let label = match (kind, raw.label) {
        (WriteKind::Label, Some(label)) => Some(parse_label(&label)?),
        (WriteKind::Label, None) => return Err("label needs label: KEY=VALUE".into()),
        (_, Some(_)) => return Err("only label steps take a label".into()),
        (_, None) => None,
    };
    Ok(Writes {
        resource,
        namespace: raw.namespace.unwrap_or_else(|| "default".into()),
        count,
        rate: raw.rate,
        prefix: raw.prefix.unwrap_or_else(|| "scenario".into()),
        label,
    })
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("invalid label {text:?} (expected KEY=VALUE)")),
    }
}

/// `fault: expire-all` or `fault: {fault: fail-requests, count: 3, status: 429}`.
fn fault_of(value: Value) -> Result<Fault, String> {
    let value = match value {
        Value::String(name) => serde_json::json!({ "fault": name }),
        other => other,
    };
    let fault: Fault = serde_json::from_value(value).map_err(|e| format!("fault: {e}"))?;
    fault.validate().map_err(|e| e.to_string())?;
    Ok(fault)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_step_kind() {
        let text = r#"
description: all kinds
queue: real-fifo
handlers: [{name: fast, resync: 10s}, {name: slow, delay: 200ms}]
steps:
  - {at: 1s, create: {count: 20, rate: 10}}
  - {at: 2s, update: {count: 5}}
  - {at: 2s, label: {count: 5, label: tier=gold}}
  - {at: 3s, delete: {count: 2}}
  - {at: 4s, fault: expire-all}
  - {at: 4s, fault: {fault: fail-requests, count: 3, status: 429, retryAfterSeconds: 1}}
  - {at: 5s, add-handler: {name: late}}
  - {at: 6s, remove-handler: late}
  - {at: 7, end: true}
"#;
        let scenario = parse(text);
        assert!(scenario.is_ok(), "{scenario:?}");
        let scenario = scenario.unwrap_or_else(|_| unreachable!());
        assert_eq!(scenario.steps.len(), 9);
        assert_eq!(scenario.handlers[1].delay, Duration::from_millis(200));
        assert_eq!(scenario.steps[8].action, Action::End);
        assert_eq!(scenario.steps[8].at, Duration::from_secs(7));
    }

    #[test]
    fn unknown_step_kind_names_the_step() {
        let text = "steps:\n  - {at: 1s, end: true}\n  - {at: 2s, explode: now}\n";
        let error = parse(text).err().unwrap_or_default();
        assert!(
            error.starts_with("step 2: unknown step kind \"explode\""),
            "{error}"
        );
        let error = parse("steps:\n  - {at: 1s, fault: reboot}\n")
            .err()
            .unwrap_or_default();
        assert!(error.starts_with("step 1: fault:"), "{error}");
        assert!(parse("stepz: []\n").is_err());
        assert!(parse("steps:\n  - {at: soon, end: true}\n").is_err());
        assert!(parse("steps:\n  - {at: 1s}\n").is_err());
    }
}
