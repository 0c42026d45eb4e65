//! `kinformer resync RESOURCE`: the resync debugger. Prints each handler's schedule (requested
//! and effective period, why it was adjusted, next due), streams every resync tick, and at
//! exit prints the schedule again with counts and each handler's timeline of the ticks it was
//! due at: as tables, or as JSONL `schedule` and `timeline` lines around the stream.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::informer::processor::Listener;
use crate::informer::trace::{Event, Stage};
use crate::output::EventRenderer;
use crate::output::resync::{
    ScheduleRow, Timeline, schedule_lines, timeline_lines, write_schedule, write_timeline,
};

use super::args::ResyncArgs;
use super::connect::unless_interrupted;
use super::exit::CliError;
use super::inspect::{Inspection, list_progress};
use super::live::stopped_before_start;
use super::session::Session;
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen};

pub async fn run(args: ResyncArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let shown = args.informer.output.show.stages().with(Stage::Resync);
    let resources = [args.resource.clone()];
    let preparing = Inspection::for_command(&args.informer, &resources, None, shown);
    let prepared = match unless_interrupted(preparing, signals, None).await {
        Ok(prepared) => prepared?,
        Err(cut) => return stopped_before_start(cut, None),
    };
    let Inspection {
        connection: _connection,
        plan,
        render,
        ..
    } = prepared;
    let tables = render.format.is_table();
    let (no_headers, width) = (render.no_headers, render.width);
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let listeners = session.listeners();
    let started = Instant::now();
    let resyncs: Rc<RefCell<Resyncs>> = Rc::default();
    let mut progress = list_progress();
    let mut stdout = BufWriter::with_capacity(
        STDOUT_BUFFER,
        progress.writer(io::stdout(), io::stdout().is_terminal()),
    );
    if tables {
        write_schedule(
            &mut stdout,
            &schedule(&listeners, &Resyncs::new()),
            no_headers,
            width,
        )?;
        stdout.flush()?;
    }
    let at_exit = {
        let (listeners, resyncs) = (listeners.clone(), Rc::clone(&resyncs));
        move || {
            let resyncs = resyncs.borrow();
            let mut lines = schedule_lines(&schedule(&listeners, &resyncs), "end");
            lines.extend(timeline_lines(&timelines(&listeners, &resyncs)));
            lines
        }
    };
    let mut renderer = EventRenderer::new(stdout, render)
        .with_before_summary(Box::new(at_exit))
        .with_hidden(args.informer.output.hidden());
    for line in schedule_lines(&schedule(&listeners, &Resyncs::new()), "start") {
        renderer.insert(&line)?;
    }
    let mut stderr = progress.writer(io::stderr(), true);
    let stop_when = StopWhen {
        timeout: args.timeout,
        ..StopWhen::default()
    };
    let mut observe = |e: &Event| {
        progress.observe(e);
        if let Event::ResyncTick { due, .. } = e {
            let mut resyncs = resyncs.borrow_mut();
            for handler in due {
                resyncs
                    .entry(handler.to_string())
                    .or_default()
                    .push(started.elapsed());
            }
        }
    };
    let (ending, _) = stream::run(
        session,
        &mut renderer,
        &mut stderr,
        stop_when,
        &mut observe,
        signals,
    )
    .await?;
    progress.finish();
    // A refused first LIST: its error line is all there is to say.
    if tables && !ending.refused_first_list() {
        let resyncs = resyncs.borrow();
        let mut out = renderer.into_inner();
        writeln!(out)?;
        write_schedule(&mut out, &schedule(&listeners, &resyncs), no_headers, width)?;
        writeln!(out)?;
        write_timeline(&mut out, &timelines(&listeners, &resyncs))?;
        out.flush()?;
    }
    ending.into_exit()
}

/// Per handler, the times (since start) of the resync ticks it was due at.
type Resyncs = BTreeMap<String, Vec<Duration>>;

/// One row per handler, with the resyncs seen so far.
fn schedule(listeners: &[Arc<Listener>], resyncs: &Resyncs) -> Vec<ScheduleRow> {
    let now = Instant::now();
    listeners
        .iter()
        .map(|l| {
            let effective = l.resync_period();
            ScheduleRow {
                handler: l.name().to_string(),
                requested: l.requested_resync(),
                effective,
                adjustment: l.adjustment().map(str::to_owned),
                resyncs: resyncs.get(&**l.name()).map_or(0, |t| t.len() as u64),
                next_due: (!effective.is_zero())
                    .then(|| l.next_resync().saturating_duration_since(now)),
            }
        })
        .collect()
}

fn timelines(listeners: &[Arc<Listener>], resyncs: &Resyncs) -> Vec<Timeline> {
    listeners
        .iter()
        .map(|l| Timeline {
            handler: l.name().to_string(),
            ticks: resyncs.get(&**l.name()).cloned().unwrap_or_default(),
        })
        .collect()
}
