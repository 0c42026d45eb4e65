//! The default table view tells a story (issue 25, item 2): bursts of notifications fold into
//! one row, one change reaching several handlers is one row, notification rows carry the
//! object's kubectl-like columns (or `--columns`), and the demo narrates its phases — while
//! `--show all` and JSONL keep every event.

use crate::binary::{events, kinformer, parse_jsonl, run};

/// Rows of a table's stdout that are notifications (one-per-event or folded).
fn notify_rows(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.split_whitespace().nth(3) == Some("notify"))
        .collect()
}

#[tokio::test]
async fn an_initial_list_is_one_row_per_handler_unless_every_event_is_asked_for() {
    let args = [
        "watch",
        "pods",
        "-A",
        "--embedded",
        "--churn",
        "0",
        "--until-synced",
        "--handler",
        "a",
        "--handler",
        "b",
    ];
    let jsonl: Vec<&str> = args.iter().copied().chain(["-o", "jsonl"]).collect();
    let lines = parse_jsonl(&run(kinformer(&jsonl)).await.stdout);
    let pods = events(&lines, "informer", "synced")[0]["objects"]
        .as_u64()
        .expect("synced says how many objects");
    assert!(pods > 50, "the builtin cluster's pods: {pods}");
    assert_eq!(events(&lines, "handler", "notify").len() as u64, 2 * pods);

    let story = run(kinformer(&args)).await;
    assert_eq!(story.code, 0, "{}", story.stderr);
    let bursts: Vec<&str> = story
        .stdout
        .lines()
        .filter(|l| l.contains("notify ×"))
        .collect();
    assert_eq!(
        bursts.len(),
        2,
        "one burst row per handler:\n{}",
        story.stdout
    );
    for (row, handler) in bursts.iter().zip(["a", "b"]) {
        assert!(
            row.contains(&format!("handler={handler} kind=add initial count={pods} "))
                && row.contains(&format!("({pods} adds to {handler} (initial list);")),
            "{pods} pods: {row}"
        );
    }
    assert_eq!(notify_rows(&story.stdout).len(), 2, "{}", story.stdout);

    let every: Vec<&str> = args.iter().copied().chain(["--show", "all"]).collect();
    let all = run(kinformer(&every)).await;
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(!all.stdout.contains("notify ×"), "--show all folds nothing");
    assert_eq!(
        notify_rows(&all.stdout).len() as u64,
        2 * pods,
        "{}",
        all.stdout
    );
}

#[tokio::test]
async fn notification_rows_end_with_the_objects_columns() {
    let base = [
        "watch",
        "pods",
        "-n",
        "shop",
        "--embedded",
        "--churn",
        "0",
        "--until-synced",
        "--show",
        "all",
    ];
    let defaults = run(kinformer(&base)).await;
    assert_eq!(defaults.code, 0, "{}", defaults.stderr);
    let rows = notify_rows(&defaults.stdout);
    assert!(!rows.is_empty(), "{}", defaults.stdout);
    for row in &rows {
        assert!(
            row.contains(" phase=Running ready=") && row.contains(" node=node-"),
            "a pod row shows kubectl's columns: {row}"
        );
    }
    let custom: Vec<&str> = base
        .iter()
        .copied()
        .chain([
            "--columns",
            "NAME:{.metadata.name},IMAGE:.spec.containers[*].image,X:.nope",
        ])
        .collect();
    let custom = run(kinformer(&custom)).await;
    assert_eq!(custom.code, 0, "{}", custom.stderr);
    for row in notify_rows(&custom.stdout) {
        let key = row.split_whitespace().nth(4).unwrap_or_default();
        let name = key.rsplit('/').next().unwrap_or_default();
        assert!(
            row.contains(&format!(" NAME={name} IMAGE=")) && row.ends_with(" X=<none>"),
            "{row}"
        );
        assert!(
            !row.contains("phase="),
            "--columns replaces the defaults: {row}"
        );
    }
    let bad = run(kinformer(&[
        "watch",
        "pods",
        "--embedded",
        "--columns",
        "X:.status[",
    ]))
    .await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("bad JSONPath"), "{}", bad.stderr);
    assert!(bad.stdout.is_empty());
}

#[tokio::test]
async fn the_demo_narrates_its_phases_at_a_readable_pace_and_forces_a_relist() {
    let demo = run(kinformer(&["demo", "--timeout", "27s"])).await;
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    let phases: Vec<&str> = demo
        .stderr
        .lines()
        .filter(|l| l.starts_with("── "))
        .map(|l| l.split(':').next().unwrap_or_default())
        .collect();
    // What the relist's sync updates reached is told at the next resync tick or the end,
    // naming the relist it is about (issue 49 item 8).
    let reached = "── back to the relist after 410 Expired";
    assert_eq!(
        phases[..phases.len().min(6)],
        [
            "── initial sync",
            "── churn",
            "── slow falls behind",
            "── resync",
            "── the server now expires every resourceVersion and ends the watches (a 410 is next)",
            "── 410 Gone",
        ],
        "{}",
        demo.stderr
    );
    assert!(
        phases.len() == 7 && phases[6].starts_with(reached),
        "{}",
        demo.stderr
    );
    let relists = demo
        .stdout
        .lines()
        .filter(|l| l.split_whitespace().nth(3) == Some("relist"))
        .count();
    assert_eq!(relists, 1, "{}", demo.stdout);
    // 5 writes/s for 27 s (the relist comes ~21.5 s after the sync: 20 s, then a backoff),
    // two handlers, a resync every 10 s and a relist: a person can read
    // it (every event, one row each, is thousands).
    let rows = demo.stdout.lines().count();
    assert!(rows < 400, "{rows} rows in 27 s");
}
