//! `kinformer serve` as a process: its flags reach the server (`--watch-cache=false`), and
//! the kubeconfig it writes is what clients use.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

mod apiserver_http;

use apiserver_http::{TestResult, call_with, client};

/// A running `kinformer serve` and the kubeconfig it wrote.
struct Served {
    child: Child,
    kubeconfig: PathBuf,
    dir: TempDir,
}

impl Served {
    /// Starts `kinformer serve ARGS --kubeconfig-out DIR/kubeconfig` and waits for its
    /// `kubeconfig:` line.
    async fn start(args: &[&str]) -> Result<Served, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let kubeconfig = dir.path().join("kubeconfig");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kinformer"))
            .arg("serve")
            .args(args)
            .arg("--kubeconfig-out")
            .arg(&kubeconfig)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.path().join("stderr"))?)
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let announced = tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = lines.next_line().await? {
                if line.starts_with("kubeconfig: ") {
                    return Ok::<bool, std::io::Error>(true);
                }
            }
            Ok(false)
        })
        .await??;
        if !announced {
            return Err("serve ended before printing its kubeconfig".into());
        }
        Ok(Served {
            child,
            kubeconfig,
            dir,
        })
    }

    /// A kube client from the written kubeconfig (kube's transparent retry off).
    async fn client(&self) -> Result<kube::Client, Box<dyn std::error::Error>> {
        let kubeconfig = Kubeconfig::read_from(&self.kubeconfig)?;
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
        Ok(client(config)?)
    }

    /// GET `path`: the HTTP code and the JSON body.
    async fn get(&self, path: &str) -> Result<(u16, Value), Box<dyn std::error::Error>> {
        call_with(&self.client().await?, "GET", path, None).await
    }
}

impl Served {
    /// What the server wrote on stderr so far.
    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stderr")).unwrap_or_default()
    }

    /// Waits until stderr holds a line with every one of `parts`; that line.
    async fn wait_for_log(&self, parts: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let stderr = self.stderr();
            if let Some(line) = stderr.lines().find(|l| parts.iter().all(|p| l.contains(p))) {
                return Ok(line.to_owned());
            }
            if tokio::time::Instant::now() > deadline {
                return Err(format!("no log line with {parts:?} in:\n{stderr}").into());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // Already gone is fine: nothing left to stop.
        let _ = self.child.start_kill();
    }
}

fn item_count(list: &Value) -> usize {
    list["items"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn watch_cache_false_pages_lists_at_resource_version_zero() -> TestResult {
    let path = "/api/v1/pods?resourceVersion=0&limit=5";
    let cached = Served::start(&["--seed", "builtin"]).await?;
    let (code, list) = cached.get(path).await?;
    assert_eq!(code, 200, "{list}");
    assert!(
        item_count(&list) > 5,
        "the watch cache ignores limit: {list}"
    );
    let uncached = Served::start(&["--seed", "builtin", "--watch-cache=false"]).await?;
    let (code, page) = uncached.get(path).await?;
    assert_eq!(code, 200, "{page}");
    assert_eq!(item_count(&page), 5);
    assert!(page.pointer("/metadata/continue").is_some(), "{page}");
    Ok(())
}

#[tokio::test]
async fn verbose_serve_logs_one_line_per_request_without_credentials() -> TestResult {
    let token = "s3cret-token-value";
    let served = Served::start(&["-v", "6", "--token", token]).await?;
    let (code, _) = served.get("/api/v1/namespaces?limit=1").await?;
    assert_eq!(code, 200);
    let line = served
        .wait_for_log(&[
            "request",
            "GET",
            "/api/v1/namespaces",
            "status=200",
            "duration_ms",
        ])
        .await?;
    assert!(line.contains("DEBUG"), "{line}");
    assert!(
        !served.stderr().contains(token),
        "the token leaked into the log"
    );
    Ok(())
}
