//! `kinformer serve` as a process: its flags reach the server (`--watch-cache=false`,
//! `--insecure-http`, `-v`), it serves HTTPS with its own CA, and the kubeconfig it writes
//! (mode 0600, removed at exit unless named by the user) is what kubectl and kube-rs use.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::apiserver_http;

use apiserver_http::{TestResult, call_with, client, kubectl_binary};

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
        Served::start_with(args, true).await
    }

    /// Starts `kinformer serve ARGS` (with `--kubeconfig-out` when `named`) and waits for the
    /// `kubeconfig: PATH` line naming the file it wrote.
    async fn start_with(args: &[&str], named: bool) -> Result<Served, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let mut command = Command::new(env!("CARGO_BIN_EXE_kinformer"));
        command.arg("serve").args(args);
        if named {
            command
                .arg("--kubeconfig-out")
                .arg(dir.path().join("kubeconfig"));
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.path().join("stderr"))?)
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let announced = tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = lines.next_line().await? {
                if let Some(path) = line.strip_prefix("kubeconfig: ") {
                    return Ok::<_, std::io::Error>(Some(PathBuf::from(path)));
                }
            }
            Ok(None)
        })
        .await??;
        let kubeconfig = announced.ok_or("serve ended before printing its kubeconfig")?;
        Ok(Served {
            child,
            kubeconfig,
            dir,
        })
    }

    /// Runs kubectl with the written kubeconfig: exit success, stdout, stderr.
    async fn kubectl(
        &self,
        args: &[&str],
    ) -> Result<(bool, String, String), Box<dyn std::error::Error>> {
        let output = Command::new(kubectl_binary()?)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(Duration::from_secs(60), output).await??;
        Ok((
            output.status.success(),
            String::from_utf8(output.stdout)?,
            String::from_utf8(output.stderr)?,
        ))
    }

    /// Sends SIGTERM and waits for the exit code.
    async fn terminate(&mut self) -> Result<Option<i32>, Box<dyn std::error::Error>> {
        let pid = self.child.id().ok_or("already exited")?;
        let killed = tokio::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await?;
        if !killed.success() {
            return Err(format!("kill -TERM {pid} failed").into());
        }
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await??;
        Ok(status.code())
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_talks_tls_with_the_written_kubeconfig_and_never_shows_the_token() -> TestResult {
    let token = "abc #x and spaces";
    let served = Served::start(&["--seed", "builtin", "--token", token]).await?;
    let mode = std::fs::metadata(&served.kubeconfig)?.permissions();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(mode.mode() & 0o777, 0o600, "the kubeconfig holds the token");
    let written = std::fs::read_to_string(&served.kubeconfig)?;
    assert!(written.contains("certificate-authority-data"), "{written}");
    let (ok, stdout, stderr) = served
        .kubectl(&["-v=6", "get", "pods", "-n", "shop", "-o", "name"])
        .await?;
    assert!(ok, "{stderr}");
    assert!(stdout.lines().count() > 10, "{stdout}");
    assert!(
        stderr.contains("https://127.0.0.1:"),
        "kubectl -v=6 logs https URLs: {stderr}"
    );
    assert!(!stderr.contains("abc"), "the token leaked: {stderr}");
    let (code, _) = served.get("/api/v1/namespaces").await?;
    assert_eq!(code, 200, "kube-rs over TLS with the same kubeconfig");
    Ok(())
}

#[tokio::test]
async fn insecure_http_keeps_the_token_in_the_url() -> TestResult {
    let served = Served::start(&["--insecure-http", "--token", "t0ken"]).await?;
    let written = std::fs::read_to_string(&served.kubeconfig)?;
    assert!(
        written.contains("http://kinformer:t0ken@127.0.0.1:"),
        "{written}"
    );
    assert!(!written.contains("certificate-authority-data"), "{written}");
    let (ok, _, stderr) = served.kubectl(&["get", "ns"]).await?;
    assert!(ok, "{stderr}");
    Ok(())
}

#[tokio::test]
async fn the_default_kubeconfig_is_removed_at_exit_and_a_named_one_kept() -> TestResult {
    let mut temporary = Served::start_with(&[], false).await?;
    assert!(temporary.kubeconfig.is_file());
    assert_eq!(temporary.terminate().await?, Some(0));
    assert!(
        !temporary.kubeconfig.exists(),
        "{} left behind",
        temporary.kubeconfig.display()
    );
    let mut named = Served::start(&[]).await?;
    assert_eq!(named.terminate().await?, Some(0));
    assert!(
        named.kubeconfig.is_file(),
        "--kubeconfig-out is the user's file"
    );
    Ok(())
}

#[tokio::test]
async fn an_empty_token_is_refused() -> TestResult {
    let output = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(["serve", "--token", ""])
        .stdin(Stdio::null())
        .output();
    let output = tokio::time::timeout(Duration::from_secs(30), output).await??;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr)?;
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--token must not be empty"), "{stderr}");
    assert!(output.stdout.is_empty());
    Ok(())
}
