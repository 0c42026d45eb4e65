//! The real `kubectl` (found on PATH; on these machines a dispatcher that picks the kubectl
//! matching the server's `/version`) against the embedded API server through the kubeconfig the
//! server writes: get with short names / selectors / namespaces, apply (create then modify),
//! label, delete, CRDs and their resources, and `get -w --output-watch-events -o json`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use kube::Api;
use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::json;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use crate::support::{TestResult, kubectl_binary};

mod golden;
mod printing;
mod protobuf;

/// A running server plus a kubeconfig and a private kubectl cache directory.
struct Fixture {
    server: EmbeddedServer,
    kubectl: PathBuf,
    dir: TempDir,
}

impl Fixture {
    async fn start() -> Result<Fixture, Box<dyn std::error::Error>> {
        Fixture::reporting_minor(32).await
    }

    /// A server whose `/version` reports `v1.{minor}` (the dispatcher then runs that kubectl).
    async fn reporting_minor(minor: u32) -> Result<Fixture, Box<dyn std::error::Error>> {
        Fixture::with(ServerConfig {
            seed: vec![Seed::Builtin],
            kubernetes_minor: minor,
            ..ServerConfig::default()
        })
        .await
    }

    async fn with(config: ServerConfig) -> Result<Fixture, Box<dyn std::error::Error>> {
        let kubectl = kubectl_binary()?;
        let server = EmbeddedServer::start(config).await?;
        let dir = tempfile::tempdir()?;
        server.write_kubeconfig(&dir.path().join("kubeconfig"))?;
        Ok(Fixture {
            server,
            kubectl,
            dir,
        })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.kubectl);
        command
            .arg("--kubeconfig")
            .arg(self.dir.path().join("kubeconfig"))
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        command
    }

    /// Runs kubectl; Err with its stderr unless it succeeds.
    async fn run(&self, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
        let output =
            tokio::time::timeout(Duration::from_secs(60), self.command(args).output()).await??;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            return Err(format!("kubectl {args:?} failed: {stderr}").into());
        }
        Ok(String::from_utf8(output.stdout)?)
    }

    /// Runs kubectl expecting failure; returns its stderr.
    async fn fail(&self, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
        let output =
            tokio::time::timeout(Duration::from_secs(60), self.command(args).output()).await??;
        if output.status.success() {
            return Err(format!("kubectl {args:?} unexpectedly succeeded").into());
        }
        Ok(String::from_utf8(output.stderr)?)
    }

    fn write(&self, name: &str, text: &str) -> Result<PathBuf, std::io::Error> {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

fn path_arg(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("non-UTF-8 path {path:?}"))
}

/// Data rows (without the header) of kubectl's table output.
fn rows(output: &str) -> Vec<&str> {
    output
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_version_reports_the_server() -> TestResult {
    let fixture = Fixture::start().await?;
    let out = fixture.run(&["version", "-o", "json"]).await?;
    let version: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(
        version.pointer("/serverVersion/gitVersion"),
        Some(&json!("v1.32.0"))
    );
    assert!(version.pointer("/clientVersion/gitVersion").is_some());
    Ok(())
}

/// By default the server reports the release whose API it serves, kube-apiserver v1.37.2
/// (no kubectl 1.37 is installed: the dispatcher runs its own client, which warns of the skew).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_version_reports_v1_37_2_by_default() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let out = fixture.run(&["version", "-o", "json"]).await?;
    let version: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(
        version.pointer("/serverVersion/gitVersion"),
        Some(&json!("v1.37.2"))
    );
    assert_eq!(version.pointer("/serverVersion/minor"), Some(&json!("37")));
    Ok(())
}

/// kubectl reads aggregated discovery: `/api` and `/apis` answer it everything, so it asks
/// for no group version's resource list, and `api-resources` lists what the server serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_discovers_through_aggregated_discovery() -> TestResult {
    let fixture = Fixture::start().await?;
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        fixture
            .command(&["api-resources", "-o", "name", "-v=6"])
            .output(),
    )
    .await??;
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    for name in [
        "pods",
        "deployments.apps",
        "customresourcedefinitions.apiextensions.k8s.io",
    ] {
        assert!(stdout.lines().any(|l| l == name), "{name}: {stdout}");
    }
    assert!(stderr.contains("/apis?timeout="), "{stderr}");
    assert!(
        !stderr.contains("/api/v1?") && !stderr.contains("/apis/apps/v1?"),
        "no group version list is fetched: {stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_builtin_resources() -> TestResult {
    let fixture = Fixture::start().await?;
    let all = fixture.run(&["get", "pods", "-A"]).await?;
    assert!(all.starts_with("NAMESPACE"), "{all}");
    assert!(rows(&all).len() >= 90, "{all}");
    assert!(all.contains("kube-system") && all.contains("kube-proxy-"));

    let deployments = fixture.run(&["get", "deploy", "-n", "shop"]).await?;
    let names: Vec<&str> = rows(&deployments)
        .iter()
        .filter_map(|r| r.split_whitespace().next())
        .collect();
    assert_eq!(names, ["api", "cart", "web"]);
    let qualified = fixture
        .run(&["get", "deployments.apps", "-n", "shop", "-o", "name"])
        .await?;
    assert!(qualified.contains("deployment.apps/cart"));

    let web = fixture.run(&["get", "po", "-l", "app=web"]).await?;
    assert!(!rows(&web).is_empty());
    assert!(rows(&web).iter().all(|r| r.starts_with("web-")), "{web}");
    let singular = fixture
        .run(&["get", "pod", "-l", "app=web", "-o", "name"])
        .await?;
    assert_eq!(singular.lines().count(), rows(&web).len());
    let on_node = fixture
        .run(&[
            "get",
            "pods",
            "-A",
            "--field-selector",
            "spec.nodeName=node-2",
            "-o",
            "wide",
        ])
        .await?;
    assert!(
        rows(&on_node).iter().all(|r| r.contains("node-2")),
        "{on_node}"
    );

    let nodes = fixture.run(&["get", "no"]).await?;
    assert_eq!(rows(&nodes).len(), 3);
    let namespaces = fixture.run(&["get", "ns", "-o", "name"]).await?;
    assert!(
        namespaces.contains("namespace/kube-system") && namespaces.contains("namespace/default")
    );
    for short in [
        "cm", "svc", "sa", "rs", "sts", "ds", "ev", "secrets", "leases",
    ] {
        fixture.run(&["get", short, "-A"]).await?;
    }
    let everything = fixture
        .run(&["get", "all", "-n", "data", "-o", "name"])
        .await?;
    for expected in [
        "pod/postgres-0",
        "service/cache",
        "deployment.apps/cache",
        "statefulset.apps/postgres",
    ] {
        assert!(
            everything.contains(expected),
            "{expected} missing from {everything}"
        );
    }
    let denied = fixture.fail(&["get", "podz"]).await?;
    assert!(denied.contains("podz"), "{denied}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_applies_labels_and_deletes() -> TestResult {
    let fixture = Fixture::start().await?;
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {team: a}\ndata:\n  key: one\n";
    let file = fixture.write("cm.yaml", manifest)?;
    let created = fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
    assert!(created.contains("configmap/applied created"), "{created}");
    let modified = manifest.replace("key: one", "key: two\n  other: three");
    let file = fixture.write("cm.yaml", &modified)?;
    let configured = fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
    assert!(
        configured.contains("configmap/applied configured"),
        "{configured}"
    );
    let data = fixture
        .run(&[
            "get",
            "cm",
            "applied",
            "-o",
            "jsonpath={.data.key},{.data.other}",
        ])
        .await?;
    assert_eq!(data, "two,three");
    let unchanged = fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
    assert!(unchanged.contains("unchanged"), "{unchanged}");

    let labeled = fixture
        .run(&["label", "cm", "applied", "tier=gold"])
        .await?;
    assert!(labeled.contains("labeled"), "{labeled}");
    let selected = fixture
        .run(&["get", "cm", "-l", "tier=gold", "-o", "name"])
        .await?;
    assert_eq!(selected.trim(), "configmap/applied");

    let server_side = fixture.write("ssa.yaml", &manifest.replace("applied", "server-side"))?;
    let ssa = fixture
        .run(&["apply", "--server-side", "-f", path_arg(&server_side)?])
        .await?;
    assert!(
        ssa.contains("configmap/server-side serverside-applied"),
        "{ssa}"
    );

    let deleted = fixture.run(&["delete", "cm", "applied"]).await?;
    assert!(deleted.contains("deleted"), "{deleted}");
    let missing = fixture.fail(&["get", "cm", "applied"]).await?;
    assert!(
        missing.contains("NotFound") && missing.contains("\"applied\" not found"),
        "{missing}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_kubectl_minors_get_and_apply() -> TestResult {
    // kubectl <= 1.28 validates `apply` against OpenAPI v2, newer ones against OpenAPI v3.
    for minor in [27, 30] {
        let fixture = Fixture::reporting_minor(minor).await?;
        let version = fixture.run(&["version", "-o", "json"]).await?;
        assert!(version.contains(&format!("v1.{minor}.0")), "{version}");
        let pods = fixture
            .run(&["get", "po", "-n", "shop", "-l", "app=cart", "-o", "name"])
            .await?;
        assert_eq!(pods.lines().count(), 12, "{pods}");
        let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\ndata: {k: one}\n";
        let file = fixture.write("old.yaml", manifest)?;
        fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
        let file = fixture.write("old.yaml", &manifest.replace("one", "two"))?;
        let configured = fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
        assert!(
            configured.contains("configured"),
            "kubectl 1.{minor}: {configured}"
        );
        let data = fixture
            .run(&["get", "cm", "old", "-o", "jsonpath={.data.k}"])
            .await?;
        assert_eq!(data, "two");
        fixture.server.shutdown().await;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_serves_crds_and_their_resources() -> TestResult {
    let fixture = Fixture::start().await?;
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";
    let file = fixture.write("crd.yaml", crd)?;
    fixture.run(&["apply", "-f", path_arg(&file)?]).await?;
    let crds = fixture.run(&["get", "crd"]).await?;
    assert!(crds.contains("widgets.example.com"), "{crds}");
    let widget = fixture.write(
        "w.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n",
    )?;
    fixture.run(&["apply", "-f", path_arg(&widget)?]).await?;
    let widgets = fixture.run(&["get", "widgets"]).await?;
    assert!(widgets.contains("w1"), "{widgets}");
    let by_short_name = fixture
        .run(&["get", "wd", "w1", "-o", "jsonpath={.spec.size}"])
        .await?;
    assert_eq!(by_short_name, "3");
    fixture
        .run(&["delete", "crd", "widgets.example.com"])
        .await?;
    let gone = fixture.run(&["get", "crd", "-o", "name"]).await?;
    assert!(!gone.contains("widgets"), "{gone}");
    Ok(())
}

/// Reads stdout lines until one contains all `needles`, with a deadline.
async fn wait_for_line(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    needles: &[&str],
) -> TestResult {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let line = tokio::time::timeout_at(deadline, lines.next_line())
            .await
            .map_err(|_| format!("no output line containing {needles:?} within 30s"))??
            .ok_or_else(|| format!("kubectl ended before printing {needles:?}"))?;
        if needles.iter().all(|n| line.contains(n)) {
            return Ok(());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_watch_prints_events_as_writes_happen() -> TestResult {
    let fixture = Fixture::start().await?;
    fixture.server.create_object(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "watched"}}),
    )?;
    let client = fixture.server.client();
    let pods_resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("", "v1", "Pod"), "pods");
    let pods: Api<DynamicObject> = Api::namespaced_with(client, "watched", &pods_resource);
    let pod: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "watched-pod"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}
    }))?;
    pods.create(&PostParams::default(), &pod).await?;

    let mut child = fixture
        .command(&[
            "get",
            "pods",
            "-n",
            "watched",
            "-w",
            "--output-watch-events",
            "-o",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    wait_for_line(&mut lines, &["ADDED", "watched-pod"]).await?;
    let patch = Patch::Merge(json!({"metadata": {"labels": {"seen": "yes"}}}));
    pods.patch("watched-pod", &PatchParams::default(), &patch)
        .await?;
    wait_for_line(&mut lines, &["MODIFIED", "watched-pod", "seen"]).await?;
    pods.delete("watched-pod", &DeleteParams::default()).await?;
    wait_for_line(&mut lines, &["DELETED", "watched-pod"]).await?;
    child.kill().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_scale_apply_of_a_secret_and_bad_names() -> TestResult {
    let fixture = Fixture::start().await?;
    let scaled = fixture
        .run(&["scale", "deployment", "web", "--replicas=3"])
        .await?;
    assert!(scaled.contains("deployment.apps/web scaled"), "{scaled}");
    let replicas = fixture
        .run(&["get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"])
        .await?;
    assert_eq!(replicas, "3");
    let secret = fixture.write(
        "secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {user: admin}\n",
    )?;
    fixture.run(&["apply", "-f", path_arg(&secret)?]).await?;
    let user = fixture
        .run(&["get", "secret", "creds", "-o", "jsonpath={.data.user}"])
        .await?;
    assert_eq!(user, "YWRtaW4=", "stringData lands base64 in data");
    let bad = fixture.write(
        "bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n",
    )?;
    let refused = fixture.fail(&["apply", "-f", path_arg(&bad)?]).await?;
    assert!(
        refused.contains("metadata.name: Invalid value: \"Bad_Name\""),
        "{refused}"
    );
    let missing = fixture
        .fail(&["apply", "-n", "nope", "-f", path_arg(&secret)?])
        .await?;
    assert!(
        missing.contains("namespaces \"nope\" not found"),
        "{missing}"
    );
    Ok(())
}

/// `kubectl get KIND NAME -o json` as a value.
async fn get_json(
    fixture: &Fixture,
    kind: &str,
    name: &str,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    Ok(serde_json::from_str(
        &fixture.run(&["get", kind, name, "-o", "json"]).await?,
    )?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_imperative_creates_send_protobuf_and_round_trip() -> TestResult {
    let fixture = Fixture::start().await?;
    let creates: [&[&str]; 6] = [
        &["create", "configmap", "c1", "--from-literal=k=v"],
        &["create", "secret", "generic", "s1", "--from-literal=p=pw"],
        &["create", "namespace", "ns1"],
        &[
            "create",
            "deployment",
            "d1",
            "--image=nginx:1.27",
            "--replicas=2",
        ],
        &["create", "service", "clusterip", "svc1", "--tcp=80:8080"],
        &["create", "serviceaccount", "sa1"],
    ];
    for args in creates {
        fixture.run(args).await?;
    }
    assert_eq!(
        get_json(&fixture, "configmap", "c1").await?["data"],
        json!({"k": "v"})
    );
    assert_eq!(
        get_json(&fixture, "secret", "s1").await?["data"],
        json!({"p": "cHc="})
    );
    assert_eq!(
        get_json(&fixture, "namespace", "ns1").await?["status"]["phase"],
        "Active"
    );
    let deployment = get_json(&fixture, "deployment", "d1").await?;
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(
        deployment["spec"]["selector"]["matchLabels"],
        json!({"app": "d1"})
    );
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    let service = get_json(&fixture, "service", "svc1").await?;
    assert_eq!(service["spec"]["ports"][0]["port"], 80);
    assert_eq!(service["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(service["spec"]["selector"], json!({"app": "svc1"}));
    assert_eq!(
        get_json(&fixture, "serviceaccount", "sa1").await?["metadata"]["name"],
        "sa1"
    );
    let dry = fixture
        .run(&[
            "create",
            "configmap",
            "dry",
            "--from-literal=a=b",
            "--dry-run=server",
            "-o",
            "json",
        ])
        .await?;
    let dry: serde_json::Value = serde_json::from_str(&dry)?;
    assert_eq!(dry["data"], json!({"a": "b"}));
    let missing = fixture.fail(&["get", "configmap", "dry"]).await?;
    assert!(
        missing.contains("NotFound") || missing.contains("not found"),
        "{missing}"
    );
    Ok(())
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: shopfront, labels: {app: shopfront}}
spec:
  replicas: 3
  selector: {matchLabels: {app: shopfront}}
  template:
    metadata: {labels: {app: shopfront}}
    spec:
      containers: [{name: nginx, image: 'nginx:1.27'}]
";

/// The ReplicaSets and Pods labelled `app=shopfront`.
async fn chain(
    fixture: &Fixture,
) -> Result<(Vec<serde_json::Value>, Vec<serde_json::Value>), Box<dyn std::error::Error>> {
    let listed: serde_json::Value = serde_json::from_str(
        &fixture
            .run(&["get", "rs,pods", "-l", "app=shopfront", "-o", "json"])
            .await?,
    )?;
    let items = listed["items"].as_array().cloned().unwrap_or_default();
    let (replicasets, pods) = items.into_iter().partition(|i| i["kind"] == "ReplicaSet");
    Ok((replicasets, pods))
}

async fn rolled_out(fixture: &Fixture) -> TestResult {
    let out = fixture
        .run(&["rollout", "status", "deployment/shopfront", "--timeout=60s"])
        .await?;
    assert!(out.contains("successfully rolled out"), "{out}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controllers_roll_out_deployments_for_kubectl() -> TestResult {
    let fixture = Fixture::with(ServerConfig {
        controllers: true,
        ..ServerConfig::default()
    })
    .await?;
    let manifest = fixture.write("deploy.yaml", DEPLOYMENT)?;
    fixture.run(&["apply", "-f", path_arg(&manifest)?]).await?;
    rolled_out(&fixture).await?;
    let deployment = get_json(&fixture, "deployment", "shopfront").await?;
    let (replicasets, pods) = chain(&fixture).await?;
    assert_eq!(replicasets.len(), 1);
    let rs = &replicasets[0];
    assert_eq!(
        rs["metadata"]["ownerReferences"][0]["uid"],
        deployment["metadata"]["uid"]
    );
    let hash = rs["metadata"]["labels"]["pod-template-hash"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !hash.is_empty() && rs["metadata"]["name"] == format!("shopfront-{hash}").as_str(),
        "{rs}"
    );
    assert_eq!(pods.len(), 3);
    for pod in &pods {
        assert_eq!(
            pod["metadata"]["ownerReferences"][0]["uid"], rs["metadata"]["uid"],
            "{pod}"
        );
        assert_eq!(
            pod["metadata"]["labels"]["pod-template-hash"],
            hash.as_str()
        );
        assert_eq!(pod["status"]["phase"], "Running");
    }

    fixture
        .run(&["set", "image", "deployment/shopfront", "nginx=nginx:1.28"])
        .await?;
    rolled_out(&fixture).await?;
    let (replicasets, pods) = chain(&fixture).await?;
    assert_eq!(
        replicasets.len(),
        2,
        "the old ReplicaSet is kept, scaled to 0"
    );
    let new = replicasets
        .iter()
        .find(|rs| rs["spec"]["replicas"] == 3)
        .ok_or("no ReplicaSet with 3 replicas")?;
    assert!(replicasets.iter().any(|rs| rs["spec"]["replicas"] == 0));
    assert_eq!(
        new["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "2"
    );
    assert_eq!(pods.len(), 3);
    assert!(
        pods.iter()
            .all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.28"),
        "{pods:?}"
    );

    fixture
        .run(&["scale", "deployment/shopfront", "--replicas=1"])
        .await?;
    rolled_out(&fixture).await?;
    assert_eq!(chain(&fixture).await?.1.len(), 1);

    fixture.run(&["delete", "deployment", "shopfront"]).await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (replicasets, pods) = chain(&fixture).await?;
        if replicasets.is_empty() && pods.is_empty() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "owned objects left: {replicasets:?} {pods:?}"
        );
    }
    Ok(())
}

/// `kubectl create -f` of a ConfigMap over the 3 MiB limit, over TLS as `kinformer serve`
/// serves: kubectl shows kube-apiserver's 413 Status ("Request entity too large"), never
/// `write: broken pipe` or a reset connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_create_of_an_oversized_object_gets_the_413_status() -> TestResult {
    let fixture = Fixture::with(ServerConfig {
        tls: true,
        ..ServerConfig::default()
    })
    .await?;
    let data = "x".repeat(4 << 20);
    let manifest =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{k: {data}}}\n");
    let big = fixture.write("big.yaml", &manifest)?;
    for _ in 0..3 {
        let refused = fixture.fail(&["create", "-f", path_arg(&big)?]).await?;
        assert!(
            refused.contains("Request entity too large"),
            "kubectl must show the 413 Status: {refused}"
        );
        assert!(!refused.contains("broken pipe"), "{refused}");
    }
    Ok(())
}

/// The stored objects `kinds`/`names` and the server's resourceVersion, to compare before and
/// after a dry run.
async fn snapshot(
    fixture: &Fixture,
    objects: &[(&str, &str)],
) -> Result<(Vec<serde_json::Value>, u64), Box<dyn std::error::Error>> {
    let mut stored = Vec::new();
    for (kind, name) in objects {
        stored.push(get_json(fixture, kind, name).await?);
    }
    Ok((stored, fixture.server.resource_version()))
}

/// `kubectl diff` (a server-side dry-run patch, kubectl's `diff.go`) and every write command
/// with `--dry-run=server` (kubectl sends `dryRun=All`; kube-apiserver's `DryRunnableStorage`
/// stores nothing) leave the stored objects and the resourceVersion as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_diff_and_server_dry_runs_store_nothing() -> TestResult {
    let fixture = Fixture::start().await?;
    let manifest = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: dry, labels: {{app: dry}}}}\ndata: {{a: \"{value}\"}}\n"
        )
    };
    let first = fixture.write("dry.yaml", &manifest("1"))?;
    fixture.run(&["apply", "-f", path_arg(&first)?]).await?;
    let changed = fixture.write("dry2.yaml", &manifest("2"))?;
    let changed = path_arg(&changed)?;
    let objects = [("configmap", "dry"), ("deployment", "web")];
    let before = snapshot(&fixture, &objects).await?;

    let diff = tokio::time::timeout(
        Duration::from_secs(60),
        fixture.command(&["diff", "-f", changed]).output(),
    )
    .await??;
    let shown = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(
        diff.status.code(),
        Some(1),
        "kubectl diff finds the change: {shown}{}",
        String::from_utf8_lossy(&diff.stderr)
    );
    assert!(shown.contains("+  a: \"2\""), "{shown}");
    assert_eq!(
        snapshot(&fixture, &objects).await?,
        before,
        "kubectl diff wrote"
    );

    let dry_runs: Vec<Vec<&str>> = vec![
        vec!["apply", "-f", changed],
        // `data.a` is kubectl-client-side-apply's: without `--force-conflicts` a cluster
        // answers 409 (tested in golden.rs).
        vec!["apply", "--server-side", "--force-conflicts", "-f", changed],
        vec!["patch", "configmap", "dry", "-p", r#"{"data":{"a":"3"}}"#],
        vec![
            "patch",
            "configmap",
            "dry",
            "--type=merge",
            "-p",
            r#"{"data":{"a":"3"}}"#,
        ],
        vec![
            "patch",
            "configmap",
            "dry",
            "--type=json",
            "-p",
            r#"[{"op":"replace","path":"/data/a","value":"3"}]"#,
        ],
        vec!["label", "configmap", "dry", "extra=yes"],
        vec!["annotate", "configmap", "dry", "note=yes"],
        vec!["scale", "deployment", "web", "--replicas=5"],
        vec!["set", "image", "deployment/web", "web=nginx:1.27"],
        vec!["delete", "configmap", "dry"],
        vec!["delete", "deployment", "web"],
        vec!["delete", "configmaps", "-l", "app=dry"],
    ];
    for mut args in dry_runs {
        args.push("--dry-run=server");
        fixture.run(&args).await?;
        let after = snapshot(&fixture, &objects).await?;
        assert_eq!(after, before, "kubectl {args:?} changed what is stored");
    }
    Ok(())
}

/// A Deployment `shop` with two containers (nginx with a port, env and a mount; a sidecar):
/// the golden scenarios' manifest.
use golden::scenarios::SHOP as TWO_CONTAINERS;

/// Asserts no strategic-merge directive (`$setElementOrder/…`, `$patch`, …) was stored.
fn assert_no_directives(object: &serde_json::Value) {
    let text = object.to_string();
    assert!(
        !text.contains("\"$"),
        "a patch directive was stored: {text}"
    );
}

/// `object` without what every write changes (resourceVersion, generation).
fn masked(mut object: serde_json::Value) -> serde_json::Value {
    if let Some(metadata) = object
        .get_mut("metadata")
        .and_then(serde_json::Value::as_object_mut)
    {
        metadata.remove("resourceVersion");
        metadata.remove("generation");
    }
    object
}

/// Golden: `kubectl set image deployment/shop nginx=nginx:1.27` sends a strategic merge patch
/// naming only the nginx container's image plus `$setElementOrder/containers` (kubectl's
/// `set image` computes it with `strategicpatch.CreateTwoWayMergePatch`). kube-apiserver merges
/// `containers` by `name` (`patchMergeKey:"name"` on PodSpec.Containers in
/// `k8s.io/api/core/v1/types.go`): the expected object is the one before with that one image
/// changed — the sidecar and every other field kept, no directive stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_kubectl_set_image_merges_containers_by_name() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["create", "-f", path_arg(&manifest)?]).await?;
    let before = get_json(&fixture, "deployment", "shop").await?;
    fixture
        .run(&["set", "image", "deployment/shop", "nginx=nginx:1.27"])
        .await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    assert_no_directives(&after);
    let mut expected = before.clone();
    expected["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.27");
    assert_eq!(masked(after.clone()), masked(expected));
    assert_eq!(
        after["metadata"]["generation"], 2,
        "a spec change bumps the generation"
    );
    Ok(())
}

/// Golden: `kubectl patch` without `--type` sends a strategic merge patch. The patch adds an
/// env var to the sidecar and a port to nginx: lists merge by their merge keys (`env` by
/// `name`, `ports` by `containerPort`, `k8s.io/api/core/v1/types.go`), so both containers keep
/// everything else, in the patch's order. `kubectl patch --type=merge` of the same body replaces the containers list
/// (RFC 7386), as a cluster does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_kubectl_patch_defaults_to_a_strategic_merge() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["create", "-f", path_arg(&manifest)?]).await?;
    let before = get_json(&fixture, "deployment", "shop").await?;
    let patch = r#"{"spec":{"template":{"spec":{"containers":[
        {"name":"sidecar","env":[{"name":"LEVEL","value":"debug"}]},
        {"name":"nginx","ports":[{"containerPort":443,"name":"https"}]}]}}}}"#;
    fixture
        .run(&["patch", "deployment", "shop", "-p", patch])
        .await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    assert_no_directives(&after);
    let mut expected = before.clone();
    let containers = &mut expected["spec"]["template"]["spec"]["containers"];
    // The new port is defaulted (`SetDefaults_ContainerPort`, `protocol: TCP`); without
    // `$setElementOrder` the merged lists take the patch's order (strategicpatch's
    // `mergeSlice`): sidecar before nginx, the new port before the stored one.
    containers[0]["ports"] = json!([
        {"containerPort": 443, "name": "https", "protocol": "TCP"},
        {"containerPort": 80, "name": "http", "protocol": "TCP"}
    ]);
    containers[1]["env"] = json!([{"name": "LEVEL", "value": "debug"}]);
    if let Some(list) = containers.as_array_mut() {
        list.swap(0, 1);
    }
    assert_eq!(masked(after), masked(expected));
    fixture
        .run(&["patch", "deployment", "shop", "--type=merge", "-p", patch])
        .await?;
    let merged = get_json(&fixture, "deployment", "shop").await?;
    let containers = &merged["spec"]["template"]["spec"]["containers"];
    assert_eq!(
        containers[0]["name"], "sidecar",
        "a merge patch replaces lists"
    );
    assert!(containers[0].get("image").is_none());
    Ok(())
}

/// Golden: `kubectl apply` of a changed manifest sends a three-way strategic merge patch with
/// `$setElementOrder/containers` (kubectl's `apply/patcher.go`). The stored template must be
/// the new manifest's — nginx's image changed, an env var added to the sidecar, nginx's env
/// var dropped (it left the last-applied configuration) — with no directive stored, as the
/// Kubernetes docs' "declarative config" walk-through shows for kube-apiserver.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_kubectl_apply_of_a_changed_manifest() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["apply", "-f", path_arg(&manifest)?]).await?;
    let changed = TWO_CONTAINERS
        .replace("image: nginx:1.25", "image: nginx:1.27")
        .replace("        env: [{name: MODE, value: fast}]\n", "")
        .replace(
            "args: [sleep, infinity]",
            "args: [sleep, infinity]\n        env: [{name: LEVEL, value: debug}]",
        );
    let changed = fixture.write("shop2.yaml", &changed)?;
    fixture.run(&["apply", "-f", path_arg(&changed)?]).await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    assert_no_directives(&after);
    let containers = &after["spec"]["template"]["spec"]["containers"];
    assert_eq!(
        containers,
        &json!([
            {"name": "nginx", "image": "nginx:1.27",
             "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}],
             "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
             "imagePullPolicy": "IfNotPresent", "resources": {},
             "terminationMessagePath": "/dev/termination-log",
             "terminationMessagePolicy": "File"},
            {"name": "sidecar", "image": "busybox:1.37", "args": ["sleep", "infinity"],
             "env": [{"name": "LEVEL", "value": "debug"}],
             "imagePullPolicy": "IfNotPresent", "resources": {},
             "terminationMessagePath": "/dev/termination-log",
             "terminationMessagePolicy": "File"}
        ])
    );
    assert_eq!(
        after["spec"]["template"]["spec"]["volumes"],
        json!([{"name": "cache", "emptyDir": {}}])
    );
    assert_eq!(after["spec"]["replicas"], 2);
    Ok(())
}

/// Golden: more strategic merge patches kubectl sends. `set env -c sidecar` adds to the
/// sidecar's `env` (merged by `name`); `rollout restart` adds the
/// `kubectl.kubernetes.io/restartedAt` annotation to the pod template (a map merge, kubectl's
/// `polymorphichelpers/objectrestarter.go`); `edit` (through `KUBE_EDITOR`) patches the
/// edited difference — nginx's image here. Each keeps the other container and every other
/// field, and stores no directive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_kubectl_set_env_rollout_restart_and_edit() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["create", "-f", path_arg(&manifest)?]).await?;
    let mut expected = get_json(&fixture, "deployment", "shop").await?;

    fixture
        .run(&[
            "set",
            "env",
            "deployment/shop",
            "-c",
            "sidecar",
            "LEVEL=debug",
        ])
        .await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    expected["spec"]["template"]["spec"]["containers"][1]["env"] =
        json!([{"name": "LEVEL", "value": "debug"}]);
    assert_no_directives(&after);
    assert_eq!(masked(after), masked(expected.clone()));

    fixture
        .run(&["rollout", "restart", "deployment/shop"])
        .await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    let restarted =
        &after["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"];
    assert!(restarted.is_string(), "{after}");
    expected["spec"]["template"]["metadata"]["annotations"] =
        json!({"kubectl.kubernetes.io/restartedAt": restarted});
    assert_eq!(masked(after), masked(expected.clone()));

    let editor = fixture.write(
        "editor.sh",
        "#!/bin/sh\nsed -i 's/nginx:1.25/nginx:1.27/' \"$1\"\n",
    )?;
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let mut edit = fixture.command(&["edit", "deployment/shop"]);
    edit.env("KUBE_EDITOR", &editor);
    let output = tokio::time::timeout(Duration::from_secs(60), edit.output()).await??;
    assert!(
        output.status.success(),
        "kubectl edit: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let after = get_json(&fixture, "deployment", "shop").await?;
    expected["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.27");
    assert_no_directives(&after);
    assert_eq!(masked(after), masked(expected));
    Ok(())
}

/// Golden: `label`, `annotate` (strategic merge patches of `metadata`, map merges), `scale`
/// (a merge patch of the scale subresource) and `patch --type=json` change exactly what they
/// name on the 2-container Deployment; the expected object is the one before with those
/// fields set, as a cluster stores it (no defaulting on either side: the server does none).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_kubectl_label_annotate_scale_and_json_patch() -> TestResult {
    let fixture = Fixture::with(ServerConfig::default()).await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["create", "-f", path_arg(&manifest)?]).await?;
    let mut expected = get_json(&fixture, "deployment", "shop").await?;
    fixture
        .run(&["label", "deployment", "shop", "tier=frontend"])
        .await?;
    fixture
        .run(&["annotate", "deployment", "shop", "owner=team-a"])
        .await?;
    fixture
        .run(&["scale", "deployment", "shop", "--replicas=4"])
        .await?;
    let op =
        r#"[{"op":"add","path":"/spec/template/spec/containers/1/image","value":"busybox:1.36"}]"#;
    fixture
        .run(&["patch", "deployment", "shop", "--type=json", "-p", op])
        .await?;
    let after = get_json(&fixture, "deployment", "shop").await?;
    expected["metadata"]["labels"]["tier"] = json!("frontend");
    expected["metadata"]["annotations"] = json!({"owner": "team-a"});
    expected["spec"]["replicas"] = json!(4);
    expected["spec"]["template"]["spec"]["containers"][1]["image"] = json!("busybox:1.36");
    assert_no_directives(&after);
    assert_eq!(masked(after), masked(expected));
    Ok(())
}
