//! The reference server as a test fixture: the real kube-apiserver and etcd
//! (`scripts/refserver`, built by `scripts/test` before the tests run), started on free
//! loopback ports with its data in a temporary directory, and ended when the test process
//! exits (the script watches its parent). One server per set of extra kube-apiserver flags per
//! test binary: starting one takes seconds, so tests share it and work in namespaces of their
//! own.

#![allow(dead_code)] // each test binary uses a different part of the fixture

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// How long a start may take: etcd, then kube-apiserver's post-start hooks (RBAC bootstrap,
/// the watch cache) until `/readyz` answers ok.
const START_DEADLINE: Duration = Duration::from_secs(240);

/// One running reference server.
pub struct RefServer {
    /// `scripts/refserver run`: it ends the servers when this process exits.
    _script: std::process::Child,
    dir: PathBuf,
    /// `https://127.0.0.1:PORT`.
    pub url: String,
}

impl RefServer {
    /// The shared server with kube-apiserver's default flags.
    pub fn shared() -> Arc<RefServer> {
        Self::with_args("")
    }

    /// The shared server started with `args` added to kube-apiserver's flags (e.g.
    /// `--etcd-compaction-interval=5s`); started on first use.
    pub fn with_args(args: &str) -> Arc<RefServer> {
        static SERVERS: OnceLock<Mutex<HashMap<String, Arc<RefServer>>>> = OnceLock::new();
        let servers = SERVERS.get_or_init(Mutex::default);
        let mut servers = servers.lock().unwrap_or_else(PoisonError::into_inner);
        servers
            .entry(args.to_owned())
            .or_insert_with(|| Arc::new(Self::start(args)))
            .clone()
    }

    /// A server of the test's own (it may restart it), stopped when dropped.
    pub fn dedicated(args: &str) -> RefServer {
        Self::start(args)
    }

    /// Restarts kube-apiserver on the same port and etcd, and waits until it is ready again:
    /// its watch cache starts anew at etcd's current revision.
    pub fn restart(&self) {
        let restarted = self.dir.join("restarted");
        let _ = std::fs::remove_file(&restarted);
        std::fs::write(self.dir.join("restart"), b"").expect("the restart file");
        let started = Instant::now();
        while !restarted.exists() {
            assert!(
                started.elapsed() < START_DEADLINE,
                "kube-apiserver did not restart in {START_DEADLINE:?} (logs in {})",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn start(args: &str) -> RefServer {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let script = root.join("scripts/refserver");
        let bin = binaries_dir(&script);
        assert!(
            bin.join("kube-apiserver").exists() && bin.join("etcd").exists(),
            "the reference server is not built ({} has no kube-apiserver and etcd): run \
             `scripts/refserver build` (scripts/test does it first; it needs Go 1.26+)",
            bin.display()
        );
        let dir = tempfile::Builder::new()
            .prefix("kinformer-refserver-")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        let mut child = Command::new(&script)
            .arg("run")
            .arg(&dir)
            .env("KINFORMER_REFSERVER_ARGS", args)
            .env("KINFORMER_REFSERVER_REMOVE_DIR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("scripts/refserver runs");
        let started = Instant::now();
        let ready = dir.join("ready");
        while !ready.exists() {
            if let Some(status) = child.try_wait().expect("the script's status") {
                panic!(
                    "scripts/refserver run exited with {status} before kube-apiserver was ready \
                     (its logs are in {})",
                    dir.display()
                );
            }
            assert!(
                started.elapsed() < START_DEADLINE,
                "kube-apiserver was not ready after {START_DEADLINE:?} (logs in {})",
                dir.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let url = std::fs::read_to_string(&ready)
            .expect("the ready file")
            .trim()
            .to_owned();
        RefServer {
            _script: child,
            dir,
            url,
        }
    }

    /// A kubeconfig for the `admin` user (bearer token, the server's own CA), namespace
    /// `default`.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }

    /// etcd's client URL (`http://127.0.0.1:PORT`; its v3 JSON gateway answers there).
    pub fn etcd_url(&self) -> String {
        std::fs::read_to_string(self.dir.join("etcd-url"))
            .expect("scripts/refserver wrote DIR/etcd-url")
            .trim()
            .to_owned()
    }

    /// `kubectl ARGS` against this server; panics with kubectl's stderr when it fails.
    pub fn kubectl(&self, args: &[&str]) -> String {
        let out = Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", self.kubeconfig())
            .output()
            .expect("kubectl runs (apt-get install kubernetes-client)");
        assert!(
            out.status.success(),
            "kubectl {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("kubectl prints UTF-8")
    }

    /// `kubectl apply -f -` of `yaml`.
    pub fn apply(&self, yaml: &str) {
        use std::io::Write;
        let mut child = Command::new("kubectl")
            .args(["apply", "-f", "-"])
            .env("KUBECONFIG", self.kubeconfig())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(yaml.as_bytes())
            .expect("kubectl reads its input");
        let out = child.wait_with_output().expect("kubectl ends");
        assert!(
            out.status.success(),
            "kubectl apply failed: {}\n{yaml}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Creates a namespace of the test's own (`name` plus a counter, so reruns in one process
    /// never meet a Terminating namespace) and returns its name.
    pub fn namespace(&self, name: &str) -> String {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ns = format!("{name}-{n}");
        self.kubectl(&["create", "namespace", &ns]);
        ns
    }
}

impl Drop for RefServer {
    /// Asks the script to stop the servers (it also stops when this process exits).
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.join("stop"), b"");
    }
}

/// Where `scripts/refserver build` puts the binaries (the script's own answer once built).
fn binaries_dir(script: &Path) -> PathBuf {
    let out = Command::new(script)
        .arg("path")
        .output()
        .expect("scripts/refserver runs");
    assert!(
        out.status.success(),
        "scripts/refserver path failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
