//! Every file in `scenarios/` played by the binary (`demo --scenario F -o jsonl --show all`):
//! the run ends on the scenario's `end` step with exit 0, every line parses, the summary's
//! counts equal the lines printed, no handler sees a second add for an object it has, and the
//! trace shows what docs/scenarios.md says the user will notice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

/// A scenario lasts at most 8 s; debug builds and a busy machine get generous slack.
const DEADLINE: Duration = Duration::from_secs(60);

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.yaml"))
}

/// The JSONL lines of one scenario run, checked for the properties every run must have.
struct Trace {
    lines: Vec<Value>,
}

async fn play(name: &str, extra: &[&str]) -> Trace {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    command
        .args(["demo", "--scenario"])
        .arg(scenario_path(name))
        .args(["-o", "jsonl", "--show", "all"])
        .args(extra)
        .env("NO_COLOR", "1")
        .kill_on_drop(true);
    let output = tokio::time::timeout(DEADLINE, command.output())
        .await
        .unwrap_or_else(|_| panic!("{name}: did not end within {DEADLINE:?}"))
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{name}: stderr {stderr}");
    assert!(!stderr.contains("panic"), "{name}: {stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect();
    let trace = Trace { lines };
    trace.check_common(name);
    trace
}

fn text<'a>(line: &'a Value, field: &str) -> &'a str {
    line[field].as_str().unwrap_or("")
}

impl Trace {
    fn events<'a>(&'a self, stage: &'a str, event: &'a str) -> impl Iterator<Item = &'a Value> {
        self.lines
            .iter()
            .filter(move |l| text(l, "stage") == stage && text(l, "event") == event)
    }

    fn count(&self, stage: &str, event: &str) -> usize {
        self.events(stage, event).count()
    }

    /// Notifications one handler received.
    fn notified<'a>(&'a self, handler: &'a str) -> impl Iterator<Item = &'a Value> {
        self.events("handler", "notify")
            .filter(move |l| text(l, "handler") == handler)
    }

    fn max_pending(&self, handler: &str) -> u64 {
        self.notified(handler)
            .filter_map(|l| l["pending"].as_u64())
            .max()
            .unwrap_or(0)
    }

    fn check_common(&self, name: &str) {
        let seqs: Vec<u64> = self
            .lines
            .iter()
            .map(|l| l["seq"].as_u64().unwrap())
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "{name}: seq not increasing"
        );
        let summary = self.lines.last().unwrap();
        assert_eq!(text(summary, "stage"), "summary", "{name}: last line");
        let mut printed: BTreeMap<String, u64> = BTreeMap::new();
        for line in &self.lines[..self.lines.len() - 1] {
            let key = format!("{}/{}", text(line, "stage"), text(line, "event"));
            *printed.entry(key).or_default() += 1;
        }
        let counted: BTreeMap<String, u64> = summary["counts"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(printed, counted, "{name}: summary counts vs lines printed");
        self.check_no_double_add(name);
    }

    /// Per handler and object: never an add while the handler already has the object.
    fn check_no_double_add(&self, name: &str) {
        let mut has: BTreeSet<(String, String)> = BTreeSet::new();
        for line in self.events("handler", "notify") {
            let id = (
                text(line, "handler").to_owned(),
                text(line, "key").to_owned(),
            );
            match text(line, "kind") {
                "add" => assert!(has.insert(id.clone()), "{name}: second add {id:?}"),
                "delete" => {
                    has.remove(&id);
                }
                _ => {}
            }
        }
    }
}

#[tokio::test]
async fn relist_after_410_shows_410_relist_and_replaced_deltas() {
    let trace = play("relist-after-410", &[]).await;
    assert!(
        trace
            .events("reflector", "watch-error")
            .any(|l| l["code"] == 410),
        "no watch-error 410"
    );
    assert!(trace.count("reflector", "relist") >= 1);
    let replaced = trace
        .events("fifo", "delta")
        .filter(|l| text(l, "type") == "Replaced")
        .count();
    assert!(replaced >= 10, "Replaced deltas: {replaced}");
    // Rule H2: listeners start in the syncing set and no resync check ran yet (the demo's
    // check period is 30s), so every pod the relist brings back unchanged reaches every
    // handler as an update with equal resourceVersions.
    for handler in ["fast", "slow"] {
        let syncs = trace
            .notified(handler)
            .filter(|l| text(l, "kind") == "update" && l["sync"] == true)
            .count();
        assert!(
            syncs >= 5,
            "{handler}: {syncs} sync updates after the relist"
        );
        let adds = trace
            .notified(handler)
            .filter(|l| text(l, "kind") == "add")
            .count();
        assert_eq!(adds, 10, "{handler}: never a second add");
    }
}

#[tokio::test]
async fn delete_during_disconnect_shows_tombstones() {
    let trace = play("delete-during-disconnect", &[]).await;
    let tombstones: BTreeSet<&str> = trace
        .events("fifo", "delta")
        .filter(|l| text(l, "type") == "Deleted" && l["tombstone"] == true)
        .map(|l| text(l, "key"))
        .collect();
    let expected: BTreeSet<&str> = [
        "default/scenario-1",
        "default/scenario-2",
        "default/scenario-3",
    ]
    .into_iter()
    .collect();
    assert_eq!(tombstones, expected);
    let deletes = trace
        .notified("fast")
        .filter(|l| text(l, "kind") == "delete" && l["tombstone"] == true)
        .count();
    assert_eq!(deletes, 3);
    // What its description says (issue 49 item 7): the re-watch fails with 500 and the
    // informer backs off and relists; no 410 is promised, and none comes.
    let errors: Vec<_> = trace.events("reflector", "watch-error").collect();
    assert!(errors.iter().any(|l| l["code"] == 500), "{errors:?}");
    assert!(errors.iter().all(|l| l["code"] != 410), "{errors:?}");
    assert!(trace.count("reflector", "relist") >= 1);
    let scenario = kinformer::scenario::builtin::builtin("delete-during-disconnect");
    assert!(
        scenario.is_some_and(|t| t.contains("fails with 500") && !t.contains("410 and it")),
        "the description tells the 500 and the relist"
    );
}

#[tokio::test]
async fn slow_handler_backlog_grows_without_slowing_the_fast_one() {
    let trace = play("slow-handler-backlog", &[]).await;
    let (slow, fast) = (trace.max_pending("slow"), trace.max_pending("fast"));
    assert!(slow >= 10, "slow max pending {slow}");
    assert!(fast <= 5, "fast max pending {fast}");
    for handler in ["slow", "fast"] {
        let handled = trace
            .events("handler", "handled")
            .filter(|l| text(l, "handler") == handler)
            .count();
        assert_eq!(handled, 40, "{handler} handled");
    }
}

#[tokio::test]
async fn three_handlers_resync_at_their_own_periods() {
    let trace = play("three-handlers-resync", &[]).await;
    let syncs = |handler: &str| {
        trace
            .notified(handler)
            .filter(|l| l["sync"] == true)
            .count()
    };
    let (every_second, every_3s, never) =
        (syncs("every-second"), syncs("every-3s"), syncs("never"));
    assert!(every_second >= 9, "every-second syncs {every_second}");
    assert!(
        every_3s >= 3 && every_3s < every_second,
        "every-3s syncs {every_3s}"
    );
    assert_eq!(never, 0);
    assert!(trace.count("resync", "tick") >= 5);
}

#[tokio::test]
async fn late_handler_gets_the_cache_then_live_events() {
    let trace = play("late-handler", &[]).await;
    let added = trace
        .events("informer", "handler-added")
        .find(|l| text(l, "handler") == "late")
        .expect("late handler added");
    assert_eq!(added["after_start"], true);
    let adds: BTreeSet<&str> = trace
        .notified("late")
        .filter(|l| text(l, "kind") == "add")
        .map(|l| text(l, "key"))
        .collect();
    assert_eq!(adds.len(), 17, "late adds {adds:?}");
    let removed = trace
        .events("informer", "handler-removed")
        .find(|l| text(l, "handler") == "early")
        .expect("early handler removed");
    let after_removal = trace
        .notified("early")
        .filter(|l| l["seq"].as_u64() > removed["seq"].as_u64())
        .count();
    assert_eq!(after_removal, 0);
}

/// Rule R11: client-go's request layer waits out a 429's Retry-After and retries the WATCH
/// itself (rest/with_retry.go v0.36:148-193, :309-318); the reflector sees nothing.
#[tokio::test]
async fn throttled_server_is_retried_by_the_request_layer_not_the_reflector() {
    let trace = play("throttled-server", &[]).await;
    let retries: Vec<&Value> = trace.events("reflector", "retry").collect();
    assert_eq!(retries.len(), 2, "{retries:?}");
    assert!(
        retries
            .iter()
            .all(|l| l["delay_ms"] == 1000 && l["verb"] == "watch" && l["silent"] == true),
        "{retries:?}"
    );
    assert_eq!(trace.count("reflector", "watch-error"), 0);
    assert_eq!(trace.count("reflector", "backoff"), 0);
    assert_eq!(trace.count("reflector", "relist"), 0);
    assert_eq!(trace.count("indexer", "add"), 8);
}

#[tokio::test]
async fn delta_fifo_merges_deltas_real_fifo_does_not() {
    let delta = play("delta-vs-real-fifo", &["--queue", "delta-fifo"]).await;
    let (pops, deltas) = (delta.count("fifo", "pop"), delta.count("fifo", "delta"));
    assert!(pops < deltas, "delta-fifo: {pops} pops for {deltas} deltas");
    assert!(
        delta
            .events("fifo", "pop")
            .any(|l| l["deltas"].as_u64() > Some(1))
    );
    let real = play("delta-vs-real-fifo", &["--queue", "real-fifo"]).await;
    assert_eq!(real.count("fifo", "pop"), real.count("fifo", "delta"));
    assert!(real.events("fifo", "pop").all(|l| l["deltas"] == 1));
}

/// The `type` of every fifo delta line.
fn delta_types(trace: &Trace) -> BTreeSet<String> {
    trace
        .events("fifo", "delta")
        .map(|l| text(l, "type").to_owned())
        .collect()
}

#[tokio::test]
async fn version_differences_show_each_releases_queue() {
    let old = play("version-differences", &["--client-go", "1.32"]).await;
    let (pops, deltas) = (old.count("fifo", "pop"), old.count("fifo", "delta"));
    assert!(pops < deltas, "1.32: {pops} pops for {deltas} deltas");
    let types = delta_types(&old);
    assert!(
        types.contains("Replaced") && types.contains("Sync"),
        "1.32: {types:?}"
    );
    assert!(!types.contains("ReplacedAll"));

    let in_order = play("version-differences", &["--client-go", "1.33"]).await;
    assert_eq!(
        in_order.count("fifo", "pop"),
        in_order.count("fifo", "delta")
    );
    assert!(
        in_order
            .events("fifo", "pop")
            .all(|l| l["deltas"] == 1 && l.get("batch").is_none())
    );
    let types = delta_types(&in_order);
    assert!(
        types.contains("Replaced") && types.contains("Sync"),
        "1.33: {types:?}"
    );

    let atomic = play("version-differences", &["--client-go", "1.36"]).await;
    let started = atomic
        .events("informer", "started")
        .next()
        .expect("a started line");
    assert_eq!(started["client_go"], "1.36");
    assert_eq!(
        (
            started["pop_batch"].as_bool(),
            started["atomic_fifo"].as_bool()
        ),
        (Some(true), Some(true))
    );
    assert!(atomic.events("fifo", "pop").all(|l| l["batch"].is_u64()));
    // How many deltas a pop batches depends on how fast the process loop is (the PopBatch
    // bounds are pinned in tests/client_go_profiles.rs); what holds in every run is that each
    // queued entry is popped exactly once.
    let batched: u64 = atomic
        .events("fifo", "pop")
        .filter_map(|l| l["batch"].as_u64())
        .sum();
    assert_eq!(
        batched,
        u64::try_from(atomic.count("fifo", "delta")).unwrap(),
        "every queued entry is popped once, in batches"
    );
    let types = delta_types(&atomic);
    for t in ["ReplacedAll", "SyncAll", "Bookmark"] {
        assert!(types.contains(t), "1.36: no {t} in {types:?}");
    }
    assert!(
        !types.contains("Replaced") && !types.contains("Sync"),
        "1.36: {types:?}"
    );
    // Every release converges on the same cache and never adds a pod twice to a handler.
    for trace in [&old, &in_order, &atomic] {
        let adds = trace
            .notified("quiet")
            .filter(|l| text(l, "kind") == "add")
            .count();
        assert_eq!(adds, 31);
    }
}

#[tokio::test]
async fn every_shipped_scenario_has_a_test() {
    let tested = [
        "relist-after-410",
        "delete-during-disconnect",
        "slow-handler-backlog",
        "three-handlers-resync",
        "late-handler",
        "throttled-server",
        "broken-stream-vs-410",
        "delta-vs-real-fifo",
        "version-differences",
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            tested.contains(&name.as_str()),
            "scenario {name} has no test"
        );
        kinformer::scenario::load(&path).unwrap();
    }
}

#[tokio::test]
async fn serve_plays_server_steps_skips_inspector_steps_and_stops_at_end() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    let text = "steps:\n  - {at: 0s, create: {count: 3}}\n  - {at: 0.2s, add-handler: {name: late}}\n  - {at: 0.5s, fault: restart}\n  - {at: 1s, end: true}\n";
    std::fs::write(&file, text).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    command
        .args(["serve", "--kubeconfig-out"])
        .arg(dir.path().join("kc"))
        .arg("--scenario")
        .arg(&file)
        .kill_on_drop(true);
    let output = tokio::time::timeout(DEADLINE, command.output())
        .await
        .expect("serve stops at the scenario's end")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("scenario 0.0s: create 3 pods in default"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: scenario: no inspector runs here; step skipped"),
        "{stderr}"
    );
    assert!(stderr.contains("scenario 1.0s: end"), "{stderr}");
}

/// Rule R10 beside Rule R3: a stream broken mid-event is a normal close (apimachinery
/// streamwatcher.go v0.36:113-124) and re-watches from the same resourceVersion; only the 410
/// relists (reflector.go v0.36 `watch`, :561-668), and only the relist brings a sync storm.
#[tokio::test]
async fn a_broken_stream_rewatches_without_a_relist_and_only_the_410_relists() {
    let trace = play("broken-stream-vs-410", &[]).await;
    let ends: Vec<&Value> = trace.events("reflector", "watch-end").collect();
    let broken = ends
        .iter()
        .find(|l| text(l, "reason").to_lowercase().contains("eof"))
        .unwrap_or_else(|| panic!("a watch-end naming the EOF: {ends:?}"));
    let broken_at = broken["seq"].as_u64().unwrap();
    let next_watch = trace
        .events("reflector", "watch-start")
        .find(|l| l["seq"].as_u64() > Some(broken_at))
        .expect("a re-watch");
    assert_eq!(
        next_watch["rv"], broken["rv"],
        "re-watched from the same rv"
    );
    let relists: Vec<&Value> = trace.events("reflector", "relist").collect();
    assert_eq!(relists.len(), 1, "{relists:?}");
    let relist_at = relists[0]["seq"].as_u64().unwrap();
    assert!(relist_at > broken_at);
    let expired = trace
        .events("reflector", "watch-error")
        .filter(|l| l["code"] == 410)
        .count();
    assert_eq!(expired, 1);
    let syncs_before_relist = trace
        .events("handler", "notify")
        .filter(|l| l["sync"] == true && l["seq"].as_u64() < Some(relist_at))
        .count();
    assert_eq!(
        syncs_before_relist, 0,
        "the broken stream brought no sync storm"
    );
    for handler in ["fast", "slow"] {
        let syncs = trace
            .notified(handler)
            .filter(|l| l["sync"] == true)
            .count();
        assert!(
            syncs >= 9,
            "{handler}: the 410's relist is a sync storm ({syncs})"
        );
    }
    let updates = trace
        .events("reflector", "watch-event")
        .filter(|l| text(l, "type") == "MODIFIED")
        .count();
    assert!(updates >= 1, "the cut event arrived on the new watch");
}

/// `kinformer` run in an empty directory (as after `cargo install`): no scenario files.
async fn elsewhere(args: &[&str]) -> std::process::Output {
    let empty = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(args)
        .current_dir(empty.path())
        .env("NO_COLOR", "1")
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(DEADLINE, run).await.unwrap().unwrap()
}

#[tokio::test]
async fn the_shipped_scenarios_are_built_in_listed_and_played_by_name() {
    let listed = elsewhere(&["scenarios"]).await;
    assert_eq!(listed.status.code(), Some(0));
    let listed = String::from_utf8(listed.stdout).unwrap();
    let help = elsewhere(&["demo", "--help"]).await;
    let help = String::from_utf8(help.stdout).unwrap();
    for entry in std::fs::read_dir(scenario_path("x").parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        assert!(listed.contains(&name), "{name} not listed: {listed}");
        assert!(help.contains(&name), "{name} not in demo --help");
    }
    let played = elsewhere(&["demo", "--scenario", "late-handler", "-o", "jsonl"]).await;
    let stderr = String::from_utf8_lossy(&played.stderr);
    assert_eq!(played.status.code(), Some(0), "{stderr}");
    let unknown = elsewhere(&["demo", "--scenario", "no-such-scenario"]).await;
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!(unknown.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("relist-after-410"),
        "names the built-in ones: {stderr}"
    );
}
