//! Record and replay with the built binary: `record` against the embedded API server writes a
//! versioned JSONL (or zstd) file of every LIST and WATCH exchange; `replay` feeds it through
//! the pipeline offline — same notifications as the recorded frames, byte-identical output
//! under `--clock virtual`, a clear exit 7 naming the line for a bad file or for flags that
//! make the replay ask for a request the recording does not hold.

#[path = "common/binary.rs"]
mod binary;

use std::path::{Path, PathBuf};

use binary::*;
use serde_json::Value;

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
