//! `kinformer demo`: the cluster-free tour. An embedded API server with the builtin seed and
//! pod churn; an informer on pods in all namespaces with a fast handler (short resync) and a
//! slow one (processing delay), every stage shown live until Ctrl-C or `--duration`.
//! It forces a relist 20 s after the first sync in every output format (the same run as a
//! table or as JSONL); in table output it narrates its phases on stderr ([`super::tour`]). `--scenario FILE` replaces the churn with a scenario's
//! timed writes, faults and handler changes, played from the informer's first sync; the
//! scenario's `end` step stops the demo.

use std::future::Future;
use std::io::{self, BufWriter, IsTerminal};
use std::pin::Pin;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::informer::source::record_file::SecretData;
use crate::informer::trace::Event;
use crate::output::narration::{self, Narration};
use crate::output::{EventRenderer, Hidden};
use crate::scenario::Scenario;
use kinformer_apiserver::{EmbeddedServer, Fault};

use super::args::{DemoArgs, parse_show};
use super::connect::ClusterChoice;
use super::connect::{deadline_after, unless_interrupted};
use super::exit::CliError;
use super::inspect::{Inspection, Selection, list_progress};
use super::live::stopped_before_start;
use super::recording;
use super::reporting::{ReportAtExit, server_of, tap_of};
use super::scenario_play::{
    Given, load_scenario, play_after_sync, scenario_server, scenario_settings,
};
use super::session::Session;
use super::stream::{self, STDOUT_BUFFER, Signals, StopWhen};
use super::tour::{Narrator, RELIST_AFTER};

pub async fn run(mut args: DemoArgs, signals: &mut Signals) -> Result<i32, CliError> {
    let scenario = load_scenario(args.scenario.as_deref())?;
    if !args.output.output.is_table() && !args.was_given("show") {
        // A table tells the story; JSONL and the documents keep every stage's events.
        args.output.show = parse_show("all").map_err(CliError::Usage)?;
    }
    if let Some(scenario) = &scenario {
        let keep = Given {
            handlers: args.was_given("handlers"),
            resync: args.was_given("resync"),
        };
        scenario_settings(scenario, keep, &mut args.pipeline);
    }
    let cluster = ClusterChoice {
        embedded: true,
        churn: Some(f64::from(args.churn)).filter(|c| *c > 0.0),
        server: scenario.as_ref().map(scenario_server),
        ..ClusterChoice::default()
    };
    let selection = Selection {
        resources: vec!["pods".into()],
        all_namespaces: true,
        ..Selection::default()
    };
    let report = ReportAtExit::asked(args.report.path.as_deref());
    let (shown, hidden) = ReportAtExit::stages(
        report.as_ref(),
        args.output.show.stages(),
        args.output.hidden(),
    );
    let deadline = deadline_after(args.timeout);
    let preparing = Inspection::prepare(
        &cluster,
        &selection,
        Some(&args.output),
        &args.pipeline,
        shown,
    );
    let mut inspection = match unless_interrupted(preparing, signals, deadline).await {
        Ok(prepared) => prepared?,
        Err(cut) => return stopped_before_start(cut, args.timeout),
    };
    let stop_when = StopWhen {
        timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..StopWhen::default()
    };
    let recording = match &args.record {
        Some(path) => {
            let version = args.pipeline.client_go.version;
            let secrets = SecretData::shown(args.output.show_secret_data);
            let recorder = recording::start(path, &mut inspection, version, secrets).await?;
            Some((recorder, path, inspection.labels()))
        }
        None => None,
    };
    let code = match &scenario {
        Some(scenario) => {
            let driver = Driver::Scenario(scenario);
            play(inspection, driver, hidden, stop_when, signals, report).await
        }
        None => {
            let driver = Driver::Tour {
                narrated: args.output.output.is_table(),
            };
            play(inspection, driver, hidden, stop_when, signals, report).await
        }
    };
    if let Some((recorder, path, labels)) = recording {
        recording::finish(recorder, path, &labels).await?;
    }
    code
}

/// What runs beside the demo's stream once the informer synced.
enum Driver<'a> {
    /// A scenario's steps (`--scenario`).
    Scenario(&'a Scenario),
    /// The tour: a forced relist, in every output format; `narrated` (table output): a line
    /// per phase on stderr.
    Tour { narrated: bool },
}

/// Streams the session while the driver runs; inspector steps reach the stream loop. The
/// `report` page is written at the end.
async fn play(
    inspection: Inspection,
    driver: Driver<'_>,
    hidden: Hidden,
    stop_when: StopWhen,
    signals: &mut Signals,
    report: Option<ReportAtExit>,
) -> Result<i32, CliError> {
    let Inspection {
        connection,
        plan,
        render,
        ..
    } = inspection;
    let Some(server) = connection.server.as_ref() else {
        return Err(CliError::Internal("the demo has no embedded server"));
    };
    if let Driver::Scenario(scenario) = &driver
        && !scenario.description.is_empty()
    {
        let intro = format!("scenario: {}", scenario.description);
        for line in
            crate::output::narration::wrapped(&intro, crate::output::narration::stderr_width())
        {
            eprintln!("{line}");
        }
    }
    let session = Session::start(plan).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut progress = list_progress();
    let stdout = progress.writer(io::stdout(), io::stdout().is_terminal());
    let narrated = matches!(driver, Driver::Tour { narrated: true });
    let narration = narrated.then(|| {
        let mut narrator = Narrator::default();
        Narration::to_stderr(Box::new(move |e: &Event| narrator.observe(e)))
    });
    let mut renderer = EventRenderer::new(BufWriter::with_capacity(STDOUT_BUFFER, stdout), render)
        .with_hidden(hidden)
        .with_tap(tap_of(report.as_ref()))
        .with_narration(narration);
    let mut stderr = progress.writer(io::stderr(), true);
    let (actions_tx, mut actions) = mpsc::unbounded_channel();
    let (synced_tx, synced) = watch::channel(false);
    let mut observe = |e: &Event| {
        progress.observe(e);
        if matches!(e, Event::Synced { .. }) {
            synced_tx.send_replace(true);
        }
    };
    let (ending, _) = {
        let streaming = stream::run_with_actions(
            session,
            &mut renderer,
            &mut stderr,
            stop_when,
            &mut observe,
            signals,
            &mut actions,
        );
        let report = |line| eprintln!("{line}");
        let player: Pin<Box<dyn Future<Output = ()> + '_>> = match driver {
            Driver::Scenario(s) => {
                Box::pin(play_after_sync(s, server, synced, &actions_tx, &report))
            }
            Driver::Tour { narrated } => Box::pin(force_relist(server, synced, narrated)),
        };
        tokio::pin!(streaming, player);
        let mut playing = true;
        loop {
            tokio::select! {
                result = &mut streaming => break result?,
                () = &mut player, if playing => playing = false,
            }
        }
    };
    progress.finish();
    if let Some(report) = report {
        report.write(server_of(&connection).await)?;
    }
    ending.into_exit()
}

/// The tour's 410: [`RELIST_AFTER`] after the first sync, the server expires every
/// resourceVersion and ends the watches, so the informer's next watch gets 410 and relists;
/// `narrated`, it is said on stderr first.
async fn force_relist(server: &EmbeddedServer, mut synced: watch::Receiver<bool>, narrated: bool) {
    if synced.wait_for(|s| *s).await.is_err() {
        return;
    }
    tokio::time::sleep(RELIST_AFTER).await;
    let told =
        "── the server now expires every resourceVersion and ends the watches (a 410 is next)";
    if narrated {
        for line in narration::wrapped(told, narration::stderr_width()) {
            eprintln!("{line}");
        }
    }
    for fault in [Fault::ExpireAll, Fault::CloseWatches] {
        // Both faults are valid by construction.
        let _ = server.inject(&fault);
    }
}
