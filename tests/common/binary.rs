//! The built binary against an embedded API server started in-process (127.0.0.1:0, its
//! kubeconfig in a temp dir): how the binary test files run kinformer and read its output.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::path::PathBuf;
use std::time::Duration;

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use serde_json::Value;
use tokio::process::Command;

pub const DEADLINE: Duration = Duration::from_secs(60);

pub struct Cluster {
    pub server: EmbeddedServer,
    pub dir: tempfile::TempDir,
}

impl Cluster {
    pub async fn start() -> Self {
        let server = EmbeddedServer::start(ServerConfig {
            seed: vec![Seed::Builtin],
            ..ServerConfig::default()
        })
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        server.write_kubeconfig(&dir.path().join("config")).unwrap();
        Self { server, dir }
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// `kinformer ARGS --kubeconfig K`.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = kinformer(args);
        c.arg("--kubeconfig").arg(self.kubeconfig());
        c
    }
}

pub fn kinformer(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    c.args(args)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .kill_on_drop(true);
    c
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub async fn run(mut c: Command) -> Run {
    let out = tokio::time::timeout(DEADLINE, c.output())
        .await
        .expect("command timed out")
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Parses every JSONL line, checks the common contract, returns the objects.
pub fn parse_jsonl(stdout: &str) -> Vec<Value> {
    let mut last_seq = 0;
    stdout
        .lines()
        .map(|line| {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            let seq = v["seq"].as_u64().expect("seq");
            assert!(seq > last_seq, "seq not strictly increasing: {line}");
            last_seq = seq;
            let ts = v["ts"].as_str().expect("ts");
            assert!(
                ts.parse::<jiff::Timestamp>().is_ok() && ts.ends_with('Z') && ts.len() == 27,
                "ts: {ts}"
            );
            assert!(v["stage"].is_string() && v["event"].is_string(), "{line}");
            v
        })
        .collect()
}

pub fn events<'a>(lines: &'a [Value], stage: &str, event: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|v| v["stage"] == stage && v["event"] == event)
        .collect()
}
