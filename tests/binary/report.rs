//! `kinformer report` and `kinformer explain` on scenario runs (`demo --scenario F -o jsonl
//! --show all --report PAGE`, the binary's own embedded server, no cluster): the page opened
//! in real headless Chromium — it loads with no script error and no request, has the lanes,
//! markers and plots the scenario's story implies, answers `#key=` with the story `explain`
//! tells, and a screenshot of it is no blank — and `explain` checked against the JSONL the
//! same run printed. Chromium is required: without it these tests fail, they never skip.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

/// A scenario lasts at most 8 s, Chromium a few; a busy machine gets generous slack.
const DEADLINE: Duration = Duration::from_secs(90);

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.yaml"))
}

fn kinformer(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    c.args(args)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true);
    c
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn output(mut c: Command, what: &str) -> Output {
    let out = tokio::time::timeout(DEADLINE, c.output())
        .await
        .unwrap_or_else(|_| panic!("{what}: did not end within {DEADLINE:?}"))
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One scenario run: its JSONL trace and the page its `--report` wrote, in a temp dir.
struct Played {
    dir: tempfile::TempDir,
    jsonl: PathBuf,
    page: PathBuf,
    lines: Vec<Value>,
}

async fn play(name: &str, extra: &[&str]) -> Played {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join(format!("{name}.html"));
    let scenario = scenario_path(name);
    let mut args = vec!["demo", "--scenario", scenario.to_str().unwrap()];
    args.extend([
        "-o",
        "jsonl",
        "--show",
        "all",
        "--report",
        page.to_str().unwrap(),
    ]);
    args.extend(extra);
    let out = output(kinformer(&args), name).await;
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    assert!(
        out.stderr.contains("report: wrote"),
        "{name}: {}",
        out.stderr
    );
    let jsonl = dir.path().join(format!("{name}.jsonl"));
    std::fs::write(&jsonl, &out.stdout).unwrap();
    let lines = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect();
    Played {
        dir,
        jsonl,
        page,
        lines,
    }
}

/// Debian's Chromium, found on PATH (`scripts/test` installs it). Missing is a failure.
fn chromium() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "chromium is not installed: these tests open the report in a real browser. Install Debian's `chromium` (scripts/test does: apt-get install chromium)"
        )
    })
}

/// Chromium, headless, on `page` (with `#fragment`), with its own profile directory.
async fn browse(page: &Path, fragment: &str, what: &[&str]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        "--virtual-time-budget=10000",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(what)
    .arg(format!("file://{}{fragment}", page.display()))
    .kill_on_drop(true);
    output(c, "chromium").await
}

/// The DOM of `page` once its script ran; the page must have loaded with no error and no
/// request (its CSP reports any request as a `securitypolicyviolation` into `data-errors`).
async fn dom(page: &Path, fragment: &str) -> String {
    let out = browse(page, fragment, &["--dump-dom"]).await;
    assert_eq!(out.code, 0, "chromium: {}", out.stderr);
    let dom = out.stdout;
    let html_tag = dom.split('>').nth(1).unwrap_or_default();
    assert!(
        html_tag.contains("data-ready=\"1\""),
        "the page's script did not finish: {html_tag}\n{}",
        out.stderr
    );
    assert!(
        !html_tag.contains("data-errors"),
        "errors or requests: {html_tag}"
    );
    dom
}

/// The elements `<TAG … attr="value" …>` of `dom` (start tags only).
fn tags<'a>(dom: &'a str, start: &str) -> Vec<&'a str> {
    dom.match_indices(start)
        .map(|(at, _)| &dom[at..at + dom[at..].find('>').unwrap_or(0)])
        .collect()
}

fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    tag.find(&key)
        .map(|at| {
            let rest = &tag[at + key.len()..];
            &rest[..rest.find('"').unwrap_or(0)]
        })
        .unwrap_or("")
}

fn text<'a>(line: &'a Value, field: &str) -> &'a str {
    line[field].as_str().unwrap_or("")
}

/// As the DOM serialises text.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `explain KEY INPUT -o jsonl`: its steps.
async fn explain(key: &str, input: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["explain", key, input.to_str().unwrap(), "-o", "jsonl"];
    args.extend(extra);
    let out = output(kinformer(&args), "explain").await;
    assert_eq!(out.code, 0, "explain {key}: {}", out.stderr);
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn relist_after_410_draws_one_relist_and_its_sync_updates_on_every_handler() {
    let run = play("relist-after-410", &[]).await;
    let dom = dom(&run.page, "").await;
    let lanes: Vec<&str> = tags(&dom, "<li data-lane=")
        .into_iter()
        .map(|t| attr(t, "data-lane"))
        .collect();
    assert_eq!(
        lanes,
        [
            "reflector",
            "queue",
            "indexer",
            "handler fast",
            "handler slow"
        ]
    );
    for fact in [
        "data-fact=\"client-go\">1.32<",
        "data-fact=\"queue\">delta-fifo<",
        "data-fact=\"resources\">pods<",
        "data-fact=\"server\">the embedded API server, v1.",
        "<table class=\"handlers-summary\">",
    ] {
        assert!(dom.contains(fact), "the header lacks {fact}");
    }
    let markers = tags(&dom, "<tr data-kind=");
    let of_kind = |kind: &str| -> Vec<&str> {
        markers
            .iter()
            .filter(|t| attr(t, "data-kind") == kind)
            .map(|t| attr(t, "data-lane"))
            .collect()
    };
    assert_eq!(of_kind("relist"), ["reflector"], "one relist marker");
    assert!(!of_kind("watch-error-410").is_empty(), "the 410 is marked");
    for marked in ["list-start", "watch-start", "synced", "handler-added"] {
        assert!(!of_kind(marked).is_empty(), "no {marked} marker");
    }
    // Ten objects relisted (or fewer) are not a storm (50 or more are): the marker says what
    // sent them and how many.
    assert!(of_kind("sync-storm").is_empty(), "no storm of 10 objects");
    let mut bursts = of_kind("sync-burst");
    bursts.sort_unstable();
    assert_eq!(
        bursts,
        ["handler fast", "handler slow"],
        "a burst per handler"
    );
    for handler in ["fast", "slow"] {
        let to = format!(" objects to {handler}<");
        let said = dom.contains("relist after 410 Expired: ") && dom.contains(&to);
        assert!(said, "no relist marker of its size to {handler}");
    }
    assert_labels_apart(&dom);
    for lane in tags(&dom, "<li data-lane=\"handler") {
        let syncs: u64 = attr(lane, "data-sync").parse().unwrap();
        assert!(syncs >= 5, "{lane}: sync notifications drawn");
    }
}

/// The timeline's marker labels (`data-labels`: left, lane, right) overlap neither each
/// other nor another marker of their lane.
fn assert_labels_apart(dom: &str) {
    let canvas = tags(dom, "<canvas id=\"timeline\"");
    let labels: Vec<(i64, i64, i64)> =
        serde_json::from_str(attr(canvas[0], "data-labels")).expect("data-labels");
    assert!(!labels.is_empty(), "no marker labelled");
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            let apart = a.1 != b.1 || a.2 <= b.0 || b.2 <= a.0;
            assert!(apart, "labels overlap: {a:?} {b:?}");
        }
    }
}

/// Every plot's line ends at its last sample, not at the right edge.
fn assert_lines_end_at_their_last_sample(dom: &str) {
    let plots: Vec<&str> = tags(dom, "<canvas")
        .into_iter()
        .filter(|t| t.contains(" data-line-end="))
        .collect();
    assert!(!plots.is_empty(), "no plot");
    for plot in plots {
        assert_eq!(
            attr(plot, "data-line-end"),
            attr(plot, "data-last-sample"),
            "{plot}"
        );
    }
}

#[tokio::test]
async fn slow_handler_backlog_plots_the_slow_pending_above_30() {
    let run = play("slow-handler-backlog", &[]).await;
    let dom = dom(&run.page, "").await;
    let pending: Vec<(&str, u64)> = tags(&dom, "<figure class=\"plot\"")
        .into_iter()
        .filter(|t| attr(t, "data-what") == "pending")
        .map(|t| {
            (
                attr(t, "data-handler"),
                attr(t, "data-max").parse().unwrap(),
            )
        })
        .collect();
    let peak = |handler: &str| pending.iter().find(|(h, _)| *h == handler).unwrap().1;
    assert!(peak("slow") > 30, "slow pending peak {}", peak("slow"));
    assert!(peak("fast") <= 5, "fast pending peak {}", peak("fast"));
    assert_lines_end_at_their_last_sample(&dom);
    let by_kind = tags(&dom, "<tr data-handler=");
    assert_eq!(by_kind.len(), 2, "notifications by kind, per handler");
}

#[tokio::test]
async fn the_search_shows_the_story_explain_tells_and_the_page_is_drawn() {
    let run = play("relist-after-410", &[]).await;
    let key = "default/scenario-6";
    let story = explain(key, &run.jsonl, &[]).await;
    let page_dom = dom(&run.page, &format!("#key={key}")).await;
    let shown = tags(&page_dom, "<div id=\"story\"");
    assert_eq!(attr(shown[0], "data-key"), key, "the page honours #key=");
    for step in &story {
        let words = html_text(text(step, "text"));
        assert!(
            page_dom.contains(&words),
            "the page lacks the step {words:?}"
        );
    }
    // The page the report command draws from the JSONL tells the same story.
    let from_jsonl = run.dir.path().join("from-jsonl.html");
    let out = output(
        kinformer(&[
            "report",
            run.jsonl.to_str().unwrap(),
            "-o",
            from_jsonl.to_str().unwrap(),
        ]),
        "report",
    )
    .await;
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    let again = dom(&from_jsonl, &format!("#key={key}")).await;
    assert!(
        story
            .iter()
            .all(|s| again.contains(&html_text(text(s, "text"))))
    );
    let png = run.dir.path().join("page.png");
    let shot = browse(
        &run.page,
        &format!("#key={key}"),
        &[
            "--window-size=1400,1800",
            &format!("--screenshot={}", png.display()),
        ],
    )
    .await;
    assert_eq!(shot.code, 0, "{}", shot.stderr);
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 50_000, "a {size}-byte screenshot is a blank page");
}

#[tokio::test]
async fn a_request_or_a_script_error_would_be_caught() {
    let run = play("slow-handler-backlog", &[]).await;
    let page = std::fs::read_to_string(&run.page).unwrap();
    let tampered = run.dir.path().join("tampered.html");
    let injected =
        "<img src=\"http://127.0.0.1:9/x.png\"><script>undefinedFunction();</script></body>";
    std::fs::write(&tampered, page.replacen("</body>", injected, 1)).unwrap();
    let out = browse(&tampered, "", &["--dump-dom"]).await;
    let html_tag = out.stdout.split('>').nth(1).unwrap_or_default().to_owned();
    let errors = attr(&html_tag, "data-errors");
    assert!(
        errors.contains("blocked: http://127.0.0.1:9/x.png"),
        "{html_tag}"
    );
    assert!(errors.contains("undefinedFunction"), "{html_tag}");
}

#[tokio::test]
async fn explain_tells_the_relist_against_the_jsonl() {
    let run = play("relist-after-410", &[]).await;
    let key = "default/scenario-6";
    let steps = explain(key, &run.jsonl, &[]).await;
    let of_key: Vec<&Value> = run.lines.iter().filter(|l| text(l, "key") == key).collect();
    // Every server state the trace shows is a step, in order.
    let watched: Vec<&str> = of_key
        .iter()
        .filter(|l| text(l, "event") == "watch-event")
        .map(|l| text(l, "rv"))
        .collect();
    let told: Vec<&str> = steps
        .iter()
        .filter(|s| text(s, "step") == "server")
        .map(|s| text(s, "text"))
        .collect();
    assert_eq!(told.len(), watched.len(), "{told:?}");
    for (said, rv) in told.iter().zip(&watched) {
        assert!(said.contains(&format!("at rv {rv} ")), "{said}");
    }
    // One notify step per notification, for the handler the trace names.
    let notified: Vec<&str> = of_key
        .iter()
        .filter(|l| text(l, "event") == "notify")
        .map(|l| text(l, "handler"))
        .collect();
    let notify_steps: Vec<&str> = steps
        .iter()
        .filter(|s| text(s, "step") == "notify")
        .map(|s| text(s, "handler"))
        .collect();
    assert_eq!(notify_steps, notified);
    for handler in ["fast", "slow"] {
        let why = "after the relist at";
        assert!(
            steps.iter().any(|s| text(s, "handler") == handler
                && text(s, "text").contains(why)
                && text(s, "text")
                    .contains(&format!("listener `{handler}` was in the syncing set"))),
            "{handler}: {steps:#?}"
        );
    }
    let last = steps.last().unwrap();
    assert_eq!(text(last, "step"), "final");
    assert!(text(last, "text").starts_with("final cached state: in the cache at rv"));
    let seqs: Vec<u64> = steps.iter().map(|s| s["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "in trace order");
}

#[tokio::test]
async fn explain_tells_the_slow_handlers_latency_and_text_matches_jsonl() {
    let run = play("slow-handler-backlog", &[]).await;
    let key = "default/scenario-40";
    let steps = explain(key, &run.jsonl, &[]).await;
    let slow = steps
        .iter()
        .find(|s| text(s, "handler") == "slow")
        .expect("a notification to slow");
    let pending = run
        .lines
        .iter()
        .find(|l| {
            text(l, "key") == key && text(l, "event") == "notify" && text(l, "handler") == "slow"
        })
        .unwrap()["pending"]
        .as_u64()
        .unwrap();
    assert!(
        text(slow, "text").contains(&format!(
            "queued for `slow` (pending {pending}), handled at"
        )),
        "{slow}"
    );
    let out = output(
        kinformer(&["explain", key, run.jsonl.to_str().unwrap()]),
        "explain",
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut text_lines = out.stdout.lines();
    assert_eq!(text_lines.next(), Some("default/scenario-40 (pods)"));
    for (line, step) in text_lines.zip(&steps) {
        assert!(line.ends_with(text(step, "text")), "{line}");
        assert!(line.contains(text(step, "step")), "{line}");
    }
}

#[tokio::test]
async fn report_and_explain_replay_a_record_file_with_the_pipeline_flags() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("relist.jsonl.zst");
    let scenario = scenario_path("relist-after-410");
    let out = output(
        kinformer(&[
            "demo",
            "--scenario",
            scenario.to_str().unwrap(),
            "-o",
            "jsonl",
            "--record",
            record.to_str().unwrap(),
        ]),
        "demo --record",
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = dir.path().join("replayed.html");
    let input = record.to_str().unwrap();
    let flags = [
        "--client-go",
        "1.32",
        "--handler",
        "fast",
        "--handler",
        "slow:delay=20ms",
    ];
    let mut args = vec!["report", input, "-o", page.to_str().unwrap()];
    args.extend(flags);
    let out = output(kinformer(&args), "report").await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dom = dom(&page, "").await;
    let relists = tags(&dom, "<tr data-kind=\"relist\"");
    assert_eq!(relists.len(), 1, "the replay relists once");
    let steps = explain("default/scenario-6", &record, &flags).await;
    assert!(
        steps
            .iter()
            .any(|s| text(s, "text").contains("was in the syncing set")),
        "{steps:#?}"
    );
}

#[tokio::test]
async fn bad_input_is_one_line_and_a_documented_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let not_jsonl = dir.path().join("notes.txt");
    std::fs::write(&not_jsonl, "hello\n").unwrap();
    let trace = dir.path().join("trace.jsonl");
    std::fs::write(
        &trace,
        "{\"seq\":1,\"ts\":\"2026-11-22T10:00:01Z\",\"stage\":\"indexer\",\"event\":\"add\",\"resource\":\"pods\",\"key\":\"default/web-1\",\"rv\":\"5\"}\n",
    )
    .unwrap();
    let missing = dir.path().join("missing.jsonl");
    let cases: [(&[&str], i32, &str); 5] = [
        (&["report", missing.to_str().unwrap()], 7, "cannot read"),
        (
            &["report", not_jsonl.to_str().unwrap()],
            7,
            ":1: not a trace line",
        ),
        (
            &["explain", "default/web-1", not_jsonl.to_str().unwrap()],
            7,
            "not a trace line",
        ),
        (
            &["explain", "default/web-2", trace.to_str().unwrap()],
            8,
            "did you mean default/web-1?",
        ),
        (
            &["explain", "default/web-1", missing.to_str().unwrap()],
            7,
            "cannot read",
        ),
    ];
    for (args, code, says) in cases {
        let out = output(kinformer(args), args[0]).await;
        assert_eq!(out.code, code, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{args:?}: stdout is data only");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panic"), "{}", out.stderr);
    }
}

#[tokio::test]
async fn watch_report_traces_every_stage_for_the_page_and_prints_what_show_asks() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("watch.html");
    let args = [
        "watch",
        "pods",
        "-A",
        "--embedded",
        "--churn",
        "0",
        "--until-synced",
        "-o",
        "jsonl",
        "--report",
        page.to_str().unwrap(),
    ];
    let out = output(kinformer(&args), "watch --report").await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let stages: std::collections::BTreeSet<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|l| text(&l, "stage").to_owned())
        .collect();
    assert!(
        !stages.contains("fifo") && !stages.contains("indexer"),
        "the default --show prints no queue or indexer line: {stages:?}"
    );
    let dom = dom(&page, "").await;
    for stage in ["queue", "indexer"] {
        let lane = tags(&dom, &format!("<li data-lane=\"{stage}\""));
        let ticks: u64 = attr(lane[0], "data-ticks").parse().unwrap();
        assert!(ticks > 0, "the page's {stage} lane is drawn: {lane:?}");
    }
    assert!(
        dom.contains("the embedded API server, v1."),
        "the header names the server"
    );
}

#[tokio::test]
async fn replay_report_writes_the_page_of_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("backlog.jsonl");
    let scenario = scenario_path("slow-handler-backlog");
    let recorded = output(
        kinformer(&[
            "demo",
            "--scenario",
            scenario.to_str().unwrap(),
            "--show",
            "lifecycle",
            "-o",
            "jsonl",
            "--record",
            record.to_str().unwrap(),
        ]),
        "demo --record",
    )
    .await;
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let page = dir.path().join("replay.html");
    let replayed = output(
        kinformer(&[
            "replay",
            record.to_str().unwrap(),
            "--clock",
            "virtual",
            "--handler",
            "fast",
            "--handler",
            "slow:delay=100ms",
            "-o",
            "jsonl",
            "--report",
            page.to_str().unwrap(),
        ]),
        "replay --report",
    )
    .await;
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    let dom = dom(&page, "").await;
    let slow = tags(&dom, "<figure class=\"plot\" data-what=\"pending\"")
        .into_iter()
        .find(|t| attr(t, "data-handler") == "slow")
        .map(|t| attr(t, "data-max").parse::<u64>().unwrap());
    assert!(slow.is_some_and(|peak| peak > 10), "{slow:?}");
}

/// A Go tap's trace (docs/debug-go-controller.md: no queue or indexer lines; handled lines
/// with the call and queue times measured inside; diagnoses): the page draws it with no error,
/// lists the diagnoses and adds the measured columns.
#[tokio::test]
async fn a_go_taps_trace_draws_its_diagnoses_and_measured_handler_times() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("tap.jsonl");
    let lines = [
        r#"{"seq":1,"ts":"2026-11-22T10:00:00.000000Z","stage":"informer","event":"started","resource":"configmaps","name":"configmaps","client_go":"v0.37.2","source":"tap"}"#,
        r#"{"seq":2,"ts":"2026-11-22T10:00:00.001000Z","stage":"informer","event":"handler-added","resource":"configmaps","handler":"slow","after_start":false}"#,
        r#"{"seq":3,"ts":"2026-11-22T10:00:00.010000Z","stage":"reflector","event":"watch-start","resource":"configmaps","rv":"","timeout_s":300,"watch_list":true}"#,
        r#"{"seq":4,"ts":"2026-11-22T10:00:00.020000Z","stage":"reflector","event":"watch-event","resource":"configmaps","type":"ADDED","key":"shop/a","rv":"5"}"#,
        r#"{"seq":5,"ts":"2026-11-22T10:00:00.030000Z","stage":"reflector","event":"bookmark","resource":"configmaps","rv":"6","initial_events_end":true}"#,
        r#"{"seq":6,"ts":"2026-11-22T10:00:00.040000Z","stage":"handler","event":"notify","resource":"configmaps","handler":"slow","kind":"add","key":"shop/a","rv":"5","initial":true,"sync":false,"pending":1,"queued":"2026-11-22T10:00:00.021000Z","queue_us":19000}"#,
        r#"{"seq":7,"ts":"2026-11-22T10:00:00.100000Z","stage":"handler","event":"handled","resource":"configmaps","handler":"slow","kind":"add","key":"shop/a","rv":"5","sync":false,"pending":0,"latency_us":79000,"call_us":60000,"queue_us":19000}"#,
        r#"{"seq":8,"ts":"2026-11-22T10:00:00.110000Z","stage":"informer","event":"synced","resource":"configmaps","objects":1,"store_rv":"6"}"#,
        r#"{"seq":9,"ts":"2026-11-22T10:00:02.000000Z","stage":"diagnosis","event":"backlog-growing","resource":"configmaps","handler":"slow","pending":60,"rate_in_per_s":73.333,"rate_out_per_s":20.000,"drain_s":3.000,"cause":"handler slow falls behind: 73.3/s in, 20.0/s out, 60 pending (3.0s to drain with no more coming)"}"#,
    ];
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let page = dir.path().join("tap.html");
    let out = output(
        kinformer(&[
            "report",
            trace.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ]),
        "report",
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dom = dom(&page, "").await;
    assert!(
        dom.contains("Diagnoses from inside the controller (Go tap)"),
        "{dom}"
    );
    assert!(
        dom.contains("handler slow falls behind: 73.3/s in"),
        "the cause"
    );
    assert!(
        dom.contains("mean queue wait") && dom.contains("19.0ms") && dom.contains("60.0ms"),
        "the measured columns"
    );
}
