//! `kinformer demo`: the cluster-free tour. An embedded API server with the builtin seed and
//! pod churn; an informer on pods in all namespaces with a fast handler (short resync) and a
//! slow one (processing delay), every stage shown live until Ctrl-C or `--duration`.

use std::time::Duration;

use crate::informer::trace::StageSet;

use super::args::{DemoArgs, HandlerSpec, PipelineArgs, parse_show};
use super::connect::ClusterChoice;
use super::exit::CliError;
use super::inspect::{Inspection, Selection};
use super::stream::{Signals, StopWhen};
use super::watch::live;

/// The `--show` default; the demo widens it to every stage.
const DEFAULT_SHOW: &str = "reflector,notifications,resync";

pub async fn run(mut args: DemoArgs, signals: &mut Signals) -> Result<i32, CliError> {
    demo_defaults(&mut args.pipeline);
    let cluster = ClusterChoice {
        embedded: true,
        churn: Some(f64::from(args.churn)).filter(|c| *c > 0.0),
        ..ClusterChoice::default()
    };
    let selection = Selection {
        resource: "pods".into(),
        all_namespaces: true,
        ..Selection::default()
    };
    let shown = match parse_show(DEFAULT_SHOW) {
        Ok(default) if default == args.output.show => StageSet::ALL,
        _ => args.output.show.stages(),
    };
    let inspection =
        Inspection::prepare(&cluster, &selection, &args.output, &args.pipeline, shown).await?;
    let stop_when = StopWhen {
        timeout: args.duration,
        ..StopWhen::default()
    };
    live(inspection, stop_when, signals).await
}

/// Without `--handler`: `fast` (resync 10s) and `slow` (250ms per notification); without
/// `--resync`, a 30s informer default so that handler periods take effect (a zero check
/// period means no handler ever resyncs, as in client-go).
fn demo_defaults(pipeline: &mut PipelineArgs) {
    if pipeline.handlers.is_empty() {
        pipeline.handlers = vec![
            HandlerSpec {
                name: "fast".into(),
                resync: Some(Duration::from_secs(10)),
                delay: Duration::ZERO,
            },
            HandlerSpec {
                name: "slow".into(),
                resync: None,
                delay: Duration::from_millis(250),
            },
        ];
    }
    if pipeline.resync.is_zero() {
        pipeline.resync = Duration::from_secs(30);
    }
}
