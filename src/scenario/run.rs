//! Playing a scenario: each step waits for its time, then writes through the embedded server's
//! library API (so armed request faults never hit the scenario's own writes), causes a fault,
//! or hands an inspector action to the running session. One line per step, on stderr unless
//! the caller takes the lines ([`play_reporting`]: `kinformer top` shows them in its view).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::model::{Action, Scenario, WriteKind, Writes};
use crate::informer::processor::HandlerSpec;
use kinformer_apiserver::EmbeddedServer;

/// What the running inspector must do for a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectorAction {
    AddHandler(HandlerSpec),
    RemoveHandler(String),
    /// The scenario ended: stop streaming.
    End,
}

/// Plays `scenario` against `server` from now; inspector actions go to `inspector` (without
/// one they are skipped with a warning). Returns whether an `end` step was reached.
pub async fn play(
    scenario: &Scenario,
    server: &EmbeddedServer,
    inspector: Option<&mpsc::UnboundedSender<InspectorAction>>,
) -> bool {
    play_reporting(scenario, server, inspector, &|line| eprintln!("{line}")).await
}

/// [`play`], handing each step's line and each warning to `report` instead of stderr.
pub async fn play_reporting(
    scenario: &Scenario,
    server: &EmbeddedServer,
    inspector: Option<&mpsc::UnboundedSender<InspectorAction>>,
    report: &(dyn Fn(String) + Sync),
) -> bool {
    let start = Instant::now();
    let mut player = Player {
        server,
        created: 0,
        report,
    };
    for step in &scenario.steps {
        sleep_until_offset(start, step.at).await;
        report(format!(
            "scenario {:.1}s: {}",
            step.at.as_secs_f64(),
            describe(&step.action)
        ));
        match &step.action {
            Action::Write(kind, writes) => player.write(*kind, writes).await,
            Action::Fault(fault) => {
                if let Err(e) = server.inject(fault) {
                    report(format!("warning: scenario fault {}: {e}", fault.name()));
                }
            }
            Action::AddHandler(handler) => {
                send(inspector, InspectorAction::AddHandler(handler.clone()));
            }
            Action::RemoveHandler(name) => {
                send(inspector, InspectorAction::RemoveHandler(name.clone()));
            }
            Action::End => {
                send_end(inspector);
                return true;
            }
        }
    }
    false
}

fn send(inspector: Option<&mpsc::UnboundedSender<InspectorAction>>, action: InspectorAction) {
    match inspector {
        // A session that already stopped needs no more handlers.
        Some(tx) => drop(tx.send(action)),
        None => eprintln!("warning: scenario: no inspector runs here; step skipped"),
    }
}

fn send_end(inspector: Option<&mpsc::UnboundedSender<InspectorAction>>) {
    if let Some(tx) = inspector {
        // The session may be gone already; nothing left to stop then.
        let _ = tx.send(InspectorAction::End);
    }
}

/// One line saying what a step does.
fn describe(action: &Action) -> String {
    match action {
        Action::Write(kind, w) => format!(
            "{} {} {} in {}{}",
            match kind {
                WriteKind::Create => "create",
                WriteKind::Update => "update",
                WriteKind::Delete => "delete",
                WriteKind::Label => "label",
            },
            w.count,
            w.resource,
            w.namespace,
            w.rate.map(|r| format!(" at {r}/s")).unwrap_or_default()
        ),
        Action::Fault(fault) => format!("fault {}", fault.name()),
        Action::AddHandler(h) => format!("add handler {}", h.name),
        Action::RemoveHandler(name) => format!("remove handler {name}"),
        Action::End => "end".into(),
    }
}

/// Sleeps until `offset` after `start`; an offset past the clock's range never arrives.
async fn sleep_until_offset(start: Instant, offset: Duration) {
    match start.checked_add(offset) {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The state of the writes made so far.
struct Player<'a> {
    server: &'a EmbeddedServer,
    created: usize,
    /// Where warnings go.
    report: &'a (dyn Fn(String) + Sync),
}

impl Player<'_> {
    async fn write(&mut self, kind: WriteKind, writes: &Writes) {
        let start = Instant::now();
        let targets = match kind {
            WriteKind::Create => Vec::new(),
            _ => self.targets(writes),
        };
        if kind != WriteKind::Create && targets.is_empty() {
            (self.report)(format!(
                "warning: scenario: no {} named {}-* in {}",
                writes.resource, writes.prefix, writes.namespace
            ));
            return;
        }
        for i in 0..writes.count {
            if let Some(rate) = writes.rate {
                let offset = Duration::try_from_secs_f64(i as f64 / rate).unwrap_or(Duration::MAX);
                sleep_until_offset(start, offset).await;
            }
            let result = match kind {
                WriteKind::Create => self.create(writes),
                WriteKind::Delete => match targets.get(i) {
                    Some(name) => {
                        self.server
                            .delete_object(&writes.resource, &writes.namespace, name)
                    }
                    None => break,
                },
                WriteKind::Update | WriteKind::Label => {
                    self.modify(writes, &targets[i % targets.len()], i)
                }
            };
            if let Err(e) = result {
                (self.report)(format!("warning: scenario write: {e}"));
            }
        }
    }

    /// Names of the step's objects, in name order.
    fn targets(&self, writes: &Writes) -> Vec<String> {
        let objects = match self
            .server
            .objects(&writes.resource, Some(&writes.namespace))
        {
            Ok(objects) => objects,
            Err(e) => {
                (self.report)(format!("warning: scenario: {e}"));
                return Vec::new();
            }
        };
        let prefix = format!("{}-", writes.prefix);
        let mut names: Vec<String> = objects
            .iter()
            .filter_map(|o| o.pointer("/metadata/name").and_then(Value::as_str))
            .filter(|name| name.starts_with(&prefix))
            .map(str::to_owned)
            .collect();
        names.sort_by_key(|name| name_number(name));
        names
    }

    fn create(&mut self, writes: &Writes) -> Result<(), kinformer_apiserver::ServerError> {
        self.created += 1;
        let name = format!("{}-{}", writes.prefix, self.created);
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": writes.namespace, "labels": {"app": writes.prefix}},
            "spec": {"nodeName": format!("node-{}", self.created % 3 + 1),
                     "containers": [{"name": "app", "image": "busybox:1.37"}]},
            "status": {"phase": "Running"}
        });
        self.server.create_object(pod)
    }

    /// Update (an annotation) or label one object, unconditionally (no resourceVersion).
    fn modify(
        &self,
        writes: &Writes,
        name: &str,
        n: usize,
    ) -> Result<(), kinformer_apiserver::ServerError> {
        let current = self
            .server
            .objects(&writes.resource, Some(&writes.namespace))?
            .into_iter()
            .find(|o| o.pointer("/metadata/name").and_then(Value::as_str) == Some(name));
        let Some(mut object) = current else {
            return Ok(());
        };
        let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
            return Ok(());
        };
        metadata.remove("resourceVersion");
        let (field, key, value) = match &writes.label {
            Some((key, value)) => ("labels", key.clone(), value.clone()),
            None => (
                "annotations",
                "kinformer.io/update".to_owned(),
                n.to_string(),
            ),
        };
        let entry = metadata.entry(field).or_insert_with(|| json!({}));
        if let Some(map) = entry.as_object_mut() {
            map.insert(key, json!(value));
        }
        self.server.update_object(&writes.resource, object)
    }
}

/// The number after the last `-` (so `scenario-10` sorts after `scenario-9`).
fn name_number(name: &str) -> (u64, String) {
    let number = name
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    (number, name.to_owned())
}
