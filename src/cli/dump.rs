//! `kinformer dump RESOURCE…`: sync one informer per resource (all of them, client-go's
//! WaitForCacheSync), then print what each Indexer holds — one row per object and one table
//! per index — or the objects as JSON/YAML/JSONL for scripts, resource after resource.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};

use crate::informer::object::ObjectRef;
use crate::informer::store::Cache;
use crate::informer::trace::Event;
use crate::output::OutputFormat;
use crate::output::dump::{DumpInput, render};

use super::args::{DumpArgs, resource_names};
use super::connect::{Interrupted, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, dump_stages, list_progress};
use super::session::Session;
use super::stream::{Ending, STDOUT_BUFFER, Signals};

pub async fn run(args: DumpArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let resources = resource_names(&args.resources);
    check_by_index(&args)?;
    let preparing = Inspection::for_command(&args.informer, &resources, None, dump_stages());
    let inspection = match unless_interrupted(preparing, signals, None).await {
        Ok(prepared) => prepared?,
        Err(Interrupted::Signal(code)) => return Ok(code),
        Err(Interrupted::TimedOut) => return Ok(0),
    };
    let nothing_found = no_resources_found(&args, &inspection);
    let Inspection {
        connection,
        plan,
        render: opts,
        ..
    } = inspection;
    let mut session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let ending = wait_synced(&mut session, signals).await;
    if ending != Ending::Done {
        session.stop(&ending.reason()).await;
        connection.close().await;
        return ending.into_exit();
    }
    let caches: Vec<(String, Cache, String)> = session
        .informers()
        .into_iter()
        .map(|(resource, i)| {
            (
                resource,
                i.indexer().clone(),
                i.last_sync_resource_version(),
            )
        })
        .collect();
    session.stop("synced: the cache is printed").await;
    connection.close().await;
    super::memory::release_free_heap();
    let shown = |store: &Cache| match &args.by_index {
        Some((name, value)) => store.index_keys(name, value).is_ok_and(|k| !k.is_empty()),
        None => !store.is_empty(),
    };
    let document = matches!(opts.format, OutputFormat::Json | OutputFormat::Yaml);
    if !document && !caches.iter().any(|(_, store, _)| shown(store)) {
        // kubectl's words, on stderr; stdout (a table, JSONL) stays empty.
        eprintln!("{nothing_found}");
        return Ok(0);
    }
    let mut out = BufWriter::with_capacity(STDOUT_BUFFER, io::stdout());
    let now = jiff::Timestamp::now();
    let several = caches.len() > 1;
    let written = caches
        .iter()
        .enumerate()
        .try_for_each(|(i, (resource, store, rv))| {
            let mut opts = opts.clone();
            if several {
                opts.redact_secrets = opts.secrets_resource.as_ref() == Some(resource);
                if i > 0 && opts.format.is_table() {
                    out.write_all(b"\n")?;
                }
            }
            let (objects, index_names, indices) = snapshot(store, args.by_index.as_ref());
            let secret_indices = if opts.redacts() {
                opts.secret_indices.clone()
            } else {
                Vec::new()
            };
            let input = DumpInput {
                resource: several.then_some(resource.as_str()),
                resource_version: rv,
                objects: &objects,
                index_names: &index_names,
                indices: &indices,
                now,
                secret_indices: &secret_indices,
            };
            render(&mut out, &input, &opts)
        });
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

/// kubectl's line for an empty result: `No resources found in NS namespace.`, or `No resources
/// found` across all namespaces and for cluster-scoped resources.
fn no_resources_found(args: &DumpArgs, inspection: &Inspection) -> String {
    let connection = &args.informer.connection;
    let namespaced = inspection.resources.iter().any(|r| r.namespaced);
    if !namespaced || connection.all_namespaces {
        return "No resources found".to_owned();
    }
    let namespace = connection
        .namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or(&inspection.connection.default_namespace);
    format!("No resources found in {namespace} namespace.")
}

/// `--by-index NAME=…` names an index the store has: `namespace` or an `--index`.
fn check_by_index(args: &DumpArgs) -> Result<(), CliError> {
    let Some((name, _)) = &args.by_index else {
        return Ok(());
    };
    let indexes = &args.informer.pipeline.indexes;
    if name == "namespace" || indexes.iter().any(|d| d.name == *name) {
        return Ok(());
    }
    let mut known = vec!["namespace"];
    known.extend(indexes.iter().map(|d| d.name.as_str()));
    Err(CliError::Usage(format!(
        "--by-index {name}=…: no index {name:?} (the indexes: {}; add one with --index {name}=EXPR)",
        known.join(", ")
    )))
}

/// Feeds the LIST progress bar until every informer synced, a signal, or an informer ended by
/// itself (its first LIST refused).
async fn wait_synced(session: &mut Session, signals: &mut Signals) -> Ending {
    let mut progress = list_progress();
    let mut failure = session.failure.clone();
    let mut unsynced = session.resource_count();
    let ending = loop {
        let event = tokio::select! {
            code = signals.recv() => break Ending::Signal(code),
            failed = super::session::failure(&mut failure) => break Ending::Failed(failed),
            event = session.events.recv() => match event {
                Some(event) => event,
                None => break Ending::Done,
            },
        };
        progress.observe(&event.event);
        if matches!(event.event, Event::Synced { .. }) {
            unsynced -= 1;
            if unsynced == 0 {
                break Ending::Done;
            }
        }
    };
    progress.finish();
    ending
}

/// Objects sorted by key, index names, and each index's `value → keys`.
type Snapshot = (
    Vec<ObjectRef>,
    Vec<String>,
    BTreeMap<String, BTreeMap<String, Vec<String>>>,
);

/// `by_index`: only the objects under that index value (client-go's ByIndex), and only that
/// index's table.
fn snapshot(store: &Cache, by_index: Option<&(String, String)>) -> Snapshot {
    let objects = match by_index {
        Some((name, value)) => {
            let mut objects = store.by_index(name, value).unwrap_or_default();
            objects.sort_by(|a, b| a.key().cmp(b.key()));
            objects
        }
        None => store.list_sorted(),
    };
    let index_names: Vec<String> = store
        .indexers()
        .names()
        .filter(|name| by_index.is_none_or(|(asked, _)| asked == name))
        .map(str::to_owned)
        .collect();
    let indices = index_names
        .iter()
        .map(|name| {
            let buckets = store
                .list_index_func_values(name)
                .unwrap_or_default()
                .into_iter()
                .map(|value| {
                    let keys = store.index_keys(name, &value).unwrap_or_default();
                    (value, keys)
                })
                .collect();
            (name.clone(), buckets)
        })
        .collect();
    (objects, index_names, indices)
}
