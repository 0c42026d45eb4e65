//! The client-go oracle's live mode (docs/oracle.md, "Live mode"): real client-go 1.37
//! (`scripts/oracle --live 1.37` builds `<target>/oracle/1.37/oracle-live.test`) against an
//! embedded server. `-record FILE` writes a kinformer record file of client-go's own traffic;
//! both `kinformer replay` and the oracle's replay mode read it back and hand each handler the
//! notifications the live informer handed it. A missing live oracle fails the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::binary::{Cluster, kinformer, run};

/// `<target>/oracle/1.37/NAME`, next to the kinformer binary's target dir.
pub fn oracle(name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_kinformer"));
    let target = exe.parent().and_then(Path::parent).unwrap();
    let bin = target.join("oracle/1.37").join(name);
    assert!(
        bin.is_file(),
        "the client-go 1.37 oracle {} is missing: run scripts/oracle --live 1.37 and \
         scripts/oracle 1.37 (needs Go >= 1.25; CARGO_TARGET_DIR={}) before this test",
        bin.display(),
        target.display()
    );
    bin
}

/// Per handler, the sorted notifications `kind key rv [initial]` of JSONL lines `lines`, from
/// kinformer's `notify` events or the oracle's `notify` lines (one run). Sorted: a
/// watch-list's initial objects reach client-go's store in Go map order.
fn notifications(lines: &str) -> BTreeMap<String, Vec<String>> {
    let mut by_handler: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let kinformer_notify = v["stage"] == "handler" && v["event"] == "notify";
        let oracle_notify = v["stage"].is_null() && v["event"] == "notify";
        if !(kinformer_notify || oracle_notify) {
            continue;
        }
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        let initial = if v["initial"] == true { " initial" } else { "" };
        by_handler.entry(s("handler")).or_default().push(format!(
            "{} {} {}{initial}",
            s("kind"),
            s("key"),
            s("rv")
        ));
    }
    by_handler.values_mut().for_each(|v| v.sort());
    by_handler
}

#[tokio::test]
async fn the_live_oracle_records_its_own_traffic_and_both_replays_read_it() {
    let live = oracle("oracle-live.test");
    let replay = oracle("oracle.test");
    let cluster = Cluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("client-go.jsonl.zst");
    let live_out = dir.path().join("live.jsonl");
    let mut cmd = tokio::process::Command::new(&live);
    cmd.args(["-test.run", "TestLive", "-live", "pods", "-kubeconfig"])
        .arg(cluster.kubeconfig())
        .args(["-handler", "fast", "-handler", "slow:delay=5ms", "-record"])
        .arg(&record)
        .arg("-out")
        .arg(&live_out)
        .kill_on_drop(true);
    let r = run(cmd).await;
    assert_eq!(r.code, 0, "live oracle:\n{}\n{}", r.stdout, r.stderr);
    let seen = notifications(&std::fs::read_to_string(&live_out).unwrap());
    assert_eq!(seen.len(), 2, "both handlers notified: {seen:?}");
    assert!(
        seen.values().all(|n| n.len() >= 10),
        "the builtin seed's pods: {seen:?}"
    );

    // kinformer replays client-go's recording: same requests (no notes), same notifications.
    let path = record.to_str().unwrap();
    let r = run(kinformer(&[
        "replay",
        path,
        "--clock",
        "virtual",
        "--client-go",
        "1.37",
        "-o",
        "jsonl",
        "--show",
        "all",
        "--handler",
        "fast",
        "--handler",
        "slow:delay=5ms",
    ]))
    .await;
    assert_eq!(r.code, 0, "kinformer replay:\n{}", r.stderr);
    assert!(
        !r.stderr.contains("warning"),
        "kinformer asked what client-go asked:\n{}",
        r.stderr
    );
    assert_eq!(notifications(&r.stdout), seen, "kinformer replay");

    // The oracle's replay mode reads it too: the same notifications as live.
    let replay_out = dir.path().join("replay.jsonl");
    let mut cmd = tokio::process::Command::new(&replay);
    cmd.args(["-test.run", "TestReplay", "-record", path, "-runs", "1"])
        .args(["-handler", "fast", "-handler", "slow:delay=5ms", "-out"])
        .arg(&replay_out);
    let r = run(cmd).await;
    assert_eq!(r.code, 0, "oracle replay:\n{}\n{}", r.stdout, r.stderr);
    let text = std::fs::read_to_string(&replay_out).unwrap();
    assert!(!text.contains("\"note\""), "no call differs:\n{text}");
    assert_eq!(notifications(&text), seen, "oracle replay");
}
