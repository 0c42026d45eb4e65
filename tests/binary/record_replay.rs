//! Record and replay with the built binary: `record` against the embedded API server writes a
//! versioned JSONL (or zstd) file of every LIST and WATCH exchange; `replay` feeds it through
//! the pipeline offline — same notifications as the recorded frames, byte-identical output
//! under `--clock virtual`, a clear exit 7 naming the line for a bad file or for flags that
//! make the replay ask for a request the recording does not hold; Secret values redacted and
//! files private (0600); the recording's quiet tail kept; no left-over warning after Ctrl-C.

use crate::binary;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use binary::*;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Records `resources` from an embedded server with pod churn for `duration`.
async fn record(dir: &Path, name: &str, resources: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(name);
    let mut args = vec![
        "record",
        resources,
        "-n",
        "default",
        "--embedded",
        "--churn",
        "20",
        "--timeout",
        "2s",
        "-o",
        file.to_str().unwrap(),
    ];
    args.extend(extra);
    let r = run(kinformer(&args)).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "stdout is data only: {}", r.stdout);
    assert!(r.stderr.contains("recorded "), "{}", r.stderr);
    file
}

/// The record file's lines as JSON values (plain JSONL only).
fn entries(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

async fn replay(file: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["replay", file.to_str().unwrap()];
    args.extend(extra);
    run(kinformer(&args)).await
}

#[tokio::test]
async fn a_recording_replays_every_recorded_frame_through_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "rec.jsonl", "pods,deploy", &[]).await;
    let lines = entries(&file);
    assert_eq!(lines[0]["kinformer-record"], 1);
    assert_eq!(
        lines[0]["resources"],
        serde_json::json!(["pods", "deployments.apps"])
    );
    assert!(
        lines[0]["server_version"]
            .as_str()
            .unwrap()
            .starts_with("v1.")
    );
    let frames = |r: &str| {
        lines[1..]
            .iter()
            .filter(|e| e["r"] == r && e["frame"]["object"].is_object())
            .count()
    };
    assert!(frames("pods") > 10, "the churn wrote pods while recording");
    assert!(lines[1..].iter().all(|e| e["t"].is_u64()));

    let r = replay(&file, &["--speed", "max", "-o", "jsonl"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = parse_jsonl(&r.stdout);
    let summary = out.last().unwrap();
    assert_eq!(summary["stage"], "summary");
    for (resource, handler) in [("pods", 0), ("deployments.apps", 1)] {
        assert_eq!(
            summary["handlers"][handler]["notifications"].as_u64(),
            Some(frames(resource) as u64),
            "{resource}: one notification per recorded object frame (RealFIFO, in order)"
        );
    }
}

#[tokio::test]
async fn a_virtual_clock_replay_is_identical_byte_for_byte_under_other_handler_settings() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "rec.jsonl", "pods", &[]).await;
    let created = entries(&file)[0]["created"].as_str().unwrap().to_owned();
    let flags = [
        "--clock",
        "virtual",
        "-o",
        "jsonl",
        "--show",
        "all",
        "--resync",
        "1s",
        "--handler",
        "fast:resync=1s",
        "--handler",
        "slow:delay=300ms",
        "--queue",
        "delta-fifo",
    ];
    let first = replay(&file, &flags).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = replay(&file, &flags).await;
    assert_eq!(
        first.stdout, second.stdout,
        "same file and flags, same trace"
    );
    let out = parse_jsonl(&first.stdout);
    let ts = out[0]["ts"].as_str().unwrap();
    assert_eq!(
        ts[..19],
        created[..19],
        "timestamps come from the recording"
    );
    assert!(
        !events(&out, "resync", "tick").is_empty(),
        "resync ran in virtual time"
    );
    let slow = &out.last().unwrap()["handlers"][1];
    assert_eq!(slow["name"], "slow");
    assert!(slow["mean_latency_us"].as_u64().unwrap() >= 300_000);
}

#[tokio::test]
async fn flags_that_change_the_requests_end_the_replay_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "rec.jsonl", "pods", &["--client-go", "1.36"]).await;
    let r = replay(&file, &["--speed", "max", "--client-go", "1.32"]).await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    let error = r.stderr.lines().last().unwrap();
    let at = format!(
        "error: {}:2: the recording has a WATCH here where this replay asks for a LIST",
        file.display()
    );
    assert!(error.starts_with(&at), "{}", r.stderr);

    let paged = record(dir.path(), "paged.jsonl", "pods", &["--client-go", "1.32"]).await;
    let r = replay(
        &paged,
        &["--speed", "max", "--client-go", "1.32", "--page-size", "7"],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("LIST asked with resourceVersion \"0\", limit=7, recorded with resourceVersion \"0\", limit=500; answered as recorded"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn zstd_recordings_are_read_by_their_magic_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "rec.jsonl.zst", "pods", &[]).await;
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes[..4], [0x28, 0xb5, 0x2f, 0xfd], "zstd frame");
    let renamed = dir.path().join("renamed.jsonl");
    std::fs::rename(&file, &renamed).unwrap();
    let r = replay(&renamed, &["--speed", "max", "-o", "jsonl"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(events(&parse_jsonl(&r.stdout), "informer", "synced").len() == 1);
}

/// The file's permission bits.
fn mode(file: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).unwrap().permissions().mode() & 0o777
}

/// A Secret as `kubectl apply` leaves it: its values in `data` and again in the last-applied
/// annotation (there as `stringData` too).
fn applied_secret() -> Value {
    let manifest = serde_json::json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db", "namespace": "default"},
        "data": {"token": "dG9wLXNlY3JldC10b2tlbg=="},
        "stringData": {"password": "plain-hunter2"}
    });
    serde_json::json!({
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": "db", "namespace": "default", "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": manifest.to_string()}},
        "data": {"token": "dG9wLXNlY3JldC10b2tlbg==", "password": "cGxhaW4taHVudGVyMg=="}
    })
}

const SECRET_VALUES: [&str; 3] = [
    "dG9wLXNlY3JldC10b2tlbg==",
    "cGxhaW4taHVudGVyMg==",
    "plain-hunter2",
];

/// `record secrets` against a cluster holding [`applied_secret`], with `extra` flags.
async fn record_secrets(cluster: &Cluster, file: &Path, extra: &[&str]) -> String {
    let mut args = vec!["record", "secrets", "-n", "default", "--timeout", "1s"];
    args.extend(extra);
    args.extend(["-o", file.to_str().unwrap()]);
    let r = run(cluster.cmd(&args)).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::read_to_string(file).unwrap()
}

#[tokio::test]
async fn record_files_redact_secret_values_in_pages_and_frames_and_are_private() {
    let cluster = Cluster::start().await;
    cluster.server.create_object(applied_secret()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A LIST page (--watch-list=false) and watch frames (the watch-list's initial events).
    for (name, how) in [
        ("page.jsonl", "--watch-list=false"),
        ("frames.jsonl", "--watch-list"),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, "old contents").unwrap();
        let text = record_secrets(&cluster, &file, &[how]).await;
        assert!(
            text.contains("\"db\""),
            "{how}: the secret was recorded: {text}"
        );
        for value in SECRET_VALUES {
            assert!(!text.contains(value), "{how}: {value} is on disk: {text}");
        }
        assert!(text.contains("REDACTED"), "{how}: {text}");
        assert_eq!(
            mode(&file),
            0o600,
            "{how}: created readable by its owner only"
        );
        let flags = ["--speed", "max", "-o", "jsonl", "--show-secret-data", how];
        let r = replay(&file, &flags).await;
        assert_eq!(r.code, 0, "a redacted file replays: {}", r.stderr);
        assert!(r.stdout.contains("REDACTED"), "{}", r.stdout);
    }
    let file = dir.path().join("kept.jsonl");
    let text = record_secrets(&cluster, &file, &["--show-secret-data"]).await;
    for value in SECRET_VALUES {
        assert!(
            text.contains(value),
            "--show-secret-data keeps {value}: {text}"
        );
    }
}

#[tokio::test]
async fn demo_records_what_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.jsonl");
    let path = file.to_str().unwrap();
    let demo = run(kinformer(&[
        "demo",
        "--duration",
        "2s",
        "--record",
        path,
        "-o",
        "jsonl",
    ]))
    .await;
    assert_eq!(demo.code, 0, "{}", demo.stderr);
    assert_eq!(entries(&file)[0]["resources"], serde_json::json!(["pods"]));
    assert_eq!(mode(&file), 0o600, "demo --record files are private too");
    let synced =
        |stdout: &str| events(&parse_jsonl(stdout), "informer", "synced")[0]["objects"].clone();
    let r = replay(&file, &["--speed", "max", "-o", "jsonl"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        synced(&r.stdout),
        synced(&demo.stdout),
        "the same initial list"
    );
}

#[tokio::test]
async fn bad_record_files_are_one_error_line_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = record(dir.path(), "rec.jsonl", "pods", &[]).await;
    let text = std::fs::read_to_string(&good).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let write = |name: &str, content: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let header = lines[0];
    let cases = [
        (
            write("truncated.jsonl", text[..text.len() - 20].to_owned()),
            lines.len(),
            "truncated line",
        ),
        (
            write(
                "version.jsonl",
                text.replacen("\"kinformer-record\":1", "\"kinformer-record\":9", 1),
            ),
            1,
            "record version 9 is not supported",
        ),
        (
            write(
                "garbled.jsonl",
                format!("{header}\n{}\n{{not json\n{}\n", lines[1], lines[2]),
            ),
            3,
            "not a record entry",
        ),
        (
            write("headless.jsonl", lines[1..].join("\n") + "\n"),
            1,
            "no \"kinformer-record\" header",
        ),
        (
            write(
                "orphan.jsonl",
                format!("{header}\n{{\"t\":5,\"r\":\"pods\",\"end\":true}}\n"),
            ),
            2,
            "a watch frame or end with no open WATCH before it",
        ),
    ];
    for (path, line, says) in cases {
        let r = replay(&path, &["--speed", "max"]).await;
        assert_eq!(r.code, 7, "{}: {}", path.display(), r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        let prefix = format!("error: {}:{line}: {says}", path.display());
        assert!(
            r.stderr.starts_with(&prefix) && r.stderr.lines().count() == 1,
            "want {prefix}, got {}",
            r.stderr
        );
    }
    let missing = replay(&dir.path().join("nope.jsonl"), &[]).await;
    assert_eq!(missing.code, 7, "{}", missing.stderr);
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);
}

/// The span of a JSONL trace, first line to summary, in its own timestamps.
fn traced_span(stdout: &str) -> jiff::SignedDuration {
    let lines = parse_jsonl(stdout);
    let ts = |v: &Value| {
        v["ts"]
            .as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap()
    };
    let last = lines.last().unwrap();
    assert_eq!(last["stage"], "summary");
    ts(last).duration_since(ts(&lines[0]))
}

#[tokio::test]
async fn a_replay_keeps_the_quiet_tail_of_the_recording() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("quiet.jsonl");
    let r = run(kinformer(&[
        "record",
        "pods",
        "-n",
        "default",
        "--embedded",
        "--churn",
        "0",
        "--timeout",
        "2s",
        "-o",
        file.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let last = entries(&file).pop().unwrap();
    assert_eq!(
        last["stopped"], true,
        "the file says when it stopped: {last}"
    );
    let stopped = last["t"].as_u64().unwrap();
    // `t` counts from the recording's start, the timeout from the process's: the embedded
    // server's start-up (slow on a loaded machine) lies between them.
    assert!(
        stopped >= 1000,
        "--timeout 2s stops the recording, not its last entry: {last}"
    );
    let replayed = replay(&file, &["--clock", "virtual", "-o", "jsonl"]).await;
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    let span = traced_span(&replayed.stdout);
    assert!(
        span >= jiff::SignedDuration::from_millis(stopped as i64 - 200),
        "a 2s recording of a quiet cluster replays for 2s, not until its last entry: {span}"
    );
}

#[tokio::test]
async fn ctrl_c_during_a_replay_warns_of_no_unasked_entries() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "rec.jsonl", "pods", &[]).await;
    let mut cmd = kinformer(&["replay", file.to_str().unwrap(), "-o", "jsonl"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    tokio::time::timeout(DEADLINE, async {
        while let Some(line) = out.next_line().await.unwrap() {
            if line.contains("\"event\":\"synced\"") {
                break;
            }
        }
    })
    .await
    .expect("the replay synced");
    let pid = child.id().unwrap().to_string();
    let kill = tokio::process::Command::new("kill")
        .args(["-INT", &pid])
        .status();
    assert!(kill.await.unwrap().success());
    let drained = tokio::time::timeout(DEADLINE, async {
        while out.next_line().await.unwrap().is_some() {}
    });
    drained.await.expect("the replay closed stdout");
    let done = tokio::time::timeout(DEADLINE, child.wait_with_output()).await;
    let done = done.expect("the replay stopped").unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("never asked for"), "{stderr}");
}
