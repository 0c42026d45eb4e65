//! The kubectl golden corpus's scenarios, shared by the two tests that run them: the server
//! crate's `kubectl::golden` (against the embedded server) and the main crate's
//! `tests/binary/golden_real.rs` (against the real kube-apiserver), both through `#[path]`.
//! A scenario is data — the files it writes and its steps: kubectl arguments, a refusal
//! expected, an edit, and which stored object to read for which golden file — and [`run`]
//! plays it through any kubeconfig, reading each object back with `kubectl get -o json
//! --show-managed-fields`, masked by [`masked`]: what no two runs, and no two servers, share.
//! A `kubectl diff` step stores nothing: its golden file holds its exit code and what it printed
//! (`diff -u -N` of the live and the server-side dry-run objects), masked by [`masked_diff`].
//! The same kubectl answers both servers: the installed dispatcher runs its own 1.32 client for
//! kube-apiserver 1.37 and `kubectl.1.32` for the embedded server's `v1.32.0`.

#![allow(dead_code)] // each test binary uses a different part

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;

/// The error of a scenario: what failed, in one message.
pub type Error = Box<dyn std::error::Error>;

/// How long one kubectl command may take.
const KUBECTL_DEADLINE: Duration = Duration::from_secs(60);

/// The Deployment most scenarios write: two containers, a volume, ports and env.
pub const SHOP: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, labels: {app: shop}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      volumes: [{name: cache, emptyDir: {}}]
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80, name: http}]
        env: [{name: MODE, value: fast}]
        volumeMounts: [{name: cache, mountPath: /cache}]
      - name: sidecar
        image: busybox:1.37
        args: [sleep, infinity]
";

/// One step of a scenario. In kubectl arguments, `@NAME` is the path of the scenario's file
/// (or directory) `NAME`.
#[derive(Debug, Clone)]
pub enum Step {
    /// kubectl succeeds.
    Run(Vec<String>),
    /// kubectl fails, its stderr containing the text.
    Refused(Vec<String>, &'static str),
    /// `kubectl edit` with `KUBE_EDITOR` a script running `sed -i EXPRESSION` on the file.
    Edit(Vec<String>, &'static str),
    /// The stored object is read for the golden file `file.json`.
    Golden {
        plural: &'static str,
        name: &'static str,
        file: &'static str,
    },
    /// No such object is stored.
    Gone {
        plural: &'static str,
        name: &'static str,
    },
    /// `kubectl diff` exits with `code` (0: no differences, 1: differences), what it printed
    /// read for the golden file `file.json`.
    Diff {
        args: Vec<String>,
        code: i32,
        file: &'static str,
    },
}

/// A named list of steps with the files they use, played in the `default` namespace.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    /// `(path under the scenario's directory, contents)`.
    pub files: Vec<(&'static str, String)>,
    pub steps: Vec<Step>,
}

/// What one [`Step::Golden`] read: the masked object for a golden file.
#[derive(Debug, Clone)]
pub struct Observed {
    pub file: &'static str,
    pub object: Value,
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|a| (*a).to_owned()).collect()
}

fn run_step(list: &[&str]) -> Step {
    Step::Run(args(list))
}

fn golden(plural: &'static str, name: &'static str, file: &'static str) -> Step {
    Step::Golden { plural, name, file }
}

/// Every scenario, in the order the real server plays them.
pub fn all() -> Vec<Scenario> {
    vec![
        client_side_workflow(),
        patch_of_each_type(),
        apply_prune(),
        server_side_apply_by_two_managers(),
        create_of_each_served_kind(),
        kubectl_diff(),
    ]
}

/// `kubectl apply` (client-side: `fieldManager=kubectl-client-side-apply`, the
/// last-applied annotation) creating the 2-container Deployment, then applying a changed
/// manifest (a three-way strategic merge patch), then `set image` (`kubectl-set`), `set env`
/// (`kubectl-set`), `scale` (`kubectl-scale`, the scale subresource: its entry names
/// `subresource: scale`), `label` (`kubectl-label`), `annotate` (`kubectl-annotate`),
/// `rollout restart` (`kubectl-rollout`), `edit` through `KUBE_EDITOR` (`kubectl-edit`): the
/// object after each step — each writer owning what it changed, taken from the earlier owner
/// (an Update never conflicts), the defaulted fields the creator's.
pub fn client_side_workflow() -> Scenario {
    let changed = SHOP
        .replace("image: nginx:1.25", "image: nginx:1.26")
        .replace("        env: [{name: MODE, value: fast}]\n", "");
    let mut steps = vec![
        run_step(&["apply", "-f", "@shop.yaml"]),
        golden("deployments", "shop", "01-apply-create"),
        run_step(&["apply", "-f", "@shop2.yaml"]),
        golden("deployments", "shop", "02-apply-update"),
    ];
    let writes: [(&[&str], &'static str); 6] = [
        (
            &["set", "image", "deployment/shop", "nginx=nginx:1.27"],
            "03-set-image",
        ),
        (
            &[
                "set",
                "env",
                "deployment/shop",
                "-c",
                "sidecar",
                "LEVEL=debug",
            ],
            "04-set-env",
        ),
        (&["scale", "deployment", "shop", "--replicas=4"], "05-scale"),
        (
            &["label", "deployment", "shop", "tier=frontend"],
            "06-label",
        ),
        (
            &["annotate", "deployment", "shop", "owner=team-a"],
            "07-annotate",
        ),
        (
            &["rollout", "restart", "deployment/shop"],
            "08-rollout-restart",
        ),
    ];
    for (command, file) in writes {
        steps.push(run_step(command));
        steps.push(golden("deployments", "shop", file));
    }
    steps.push(Step::Edit(
        args(&["edit", "deployment/shop"]),
        "s/busybox:1.37/busybox:1.36/",
    ));
    steps.push(golden("deployments", "shop", "09-edit"));
    Scenario {
        name: "client-side workflow of a two-container Deployment",
        files: vec![("shop.yaml", SHOP.to_owned()), ("shop2.yaml", changed)],
        steps,
    }
}

/// `kubectl create -f`, then `kubectl patch` with each `--type` (manager `kubectl-patch`):
/// strategic (the default; env merged by name, ports by containerPort), json (RFC 6902) and
/// merge (RFC 7386: `containers` replaced whole, the new container defaulted).
pub fn patch_of_each_type() -> Scenario {
    let strategic = r#"{"spec":{"template":{"spec":{"containers":[
        {"name":"sidecar","env":[{"name":"LEVEL","value":"debug"}]},
        {"name":"nginx","ports":[{"containerPort":443,"name":"https"}]}]}}}}"#;
    let json_patch = r#"[{"op":"replace","path":"/spec/template/spec/containers/1/image","value":"busybox:1.36"}]"#;
    let merge =
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"solo","image":"nginx:latest"}]}}}}"#;
    Scenario {
        name: "patch of each type",
        files: vec![("shop.yaml", SHOP.to_owned())],
        steps: vec![
            run_step(&["create", "-f", "@shop.yaml"]),
            golden("deployments", "shop", "10-create-file"),
            run_step(&["patch", "deployment", "shop", "-p", strategic]),
            golden("deployments", "shop", "11-patch-strategic"),
            run_step(&[
                "patch",
                "deployment",
                "shop",
                "--type=json",
                "-p",
                json_patch,
            ]),
            golden("deployments", "shop", "12-patch-json"),
            run_step(&["patch", "deployment", "shop", "--type=merge", "-p", merge]),
            golden("deployments", "shop", "13-patch-merge"),
        ],
    }
}

/// `kubectl apply --prune -l app=shop` with a directory holding only the Deployment deletes
/// the ConfigMap an earlier apply created with that label (kubectl's `apply/prune.go`: objects
/// with the last-applied annotation matching the selector and absent from the files), and
/// leaves the Deployment as it was.
pub fn apply_prune() -> Scenario {
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-config, labels: {app: shop}}\ndata: {mode: fast}\n";
    Scenario {
        name: "apply --prune deletes what left the manifests",
        files: vec![
            ("all.yaml", format!("{SHOP}---\n{configmap}")),
            ("only-deployment/shop.yaml", SHOP.to_owned()),
        ],
        steps: vec![
            run_step(&["apply", "-f", "@all.yaml"]),
            golden("configmaps", "shop-config", "14-apply-configmap"),
            run_step(&[
                "apply",
                "--prune",
                "-l",
                "app=shop",
                "--prune-allowlist=core/v1/ConfigMap",
                "--prune-allowlist=apps/v1/Deployment",
                "-f",
                "@only-deployment",
            ]),
            Step::Gone {
                plural: "configmaps",
                name: "shop-config",
            },
            golden("deployments", "shop", "01-apply-create"),
        ],
    }
}

/// `kubectl apply --server-side` by two managers (the SSA documentation's "Conflicts"
/// walk-through): `alice` creates with 2 replicas and owns what she applied (operation
/// `Apply`, no defaulted field); `bob` applying 3 replicas gets the conflict naming the field
/// and its manager; with `--force-conflicts` he takes `spec.replicas` over and `alice` keeps
/// the rest.
pub fn server_side_apply_by_two_managers() -> Scenario {
    let manifest = |replicas: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: shop, labels: {{app: shop}}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: shop}}}}\n  template:\n    metadata: {{labels: {{app: shop}}}}\n    spec:\n      containers:\n      - {{name: nginx, image: 'nginx:1.27', ports: [{{containerPort: 80}}]}}\n"
        )
    };
    Scenario {
        name: "server-side apply by two managers",
        files: vec![("alice.yaml", manifest(2)), ("bob.yaml", manifest(3))],
        steps: vec![
            run_step(&[
                "apply",
                "--server-side",
                "--field-manager=alice",
                "-f",
                "@alice.yaml",
            ]),
            golden("deployments", "shop", "15-ssa-alice"),
            Step::Refused(
                args(&[
                    "apply",
                    "--server-side",
                    "--field-manager=bob",
                    "-f",
                    "@bob.yaml",
                ]),
                "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas",
            ),
            golden("deployments", "shop", "15-ssa-alice"),
            run_step(&[
                "apply",
                "--server-side",
                "--field-manager=bob",
                "--force-conflicts",
                "-f",
                "@bob.yaml",
            ]),
            golden("deployments", "shop", "16-ssa-bob-forced"),
        ],
    }
}

/// `kubectl diff` (a server-side dry run of what `apply` would send, then `diff -u -N` of the
/// live and the merged objects, `KUBECTL_EXTERNAL_DIFF`) against the applied Deployment: the
/// same manifest (exit 0, nothing printed), a changed one (image and replicas: exit 1, the
/// changed lines and the `generation` the dry run bumps), a new ConfigMap (exit 1, the whole
/// object as the dry-run create answers it); none of them stores anything.
pub fn kubectl_diff() -> Scenario {
    let changed = SHOP
        .replace("image: nginx:1.25", "image: nginx:1.26")
        .replace("replicas: 2", "replicas: 3");
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh, labels: {app: shop}}\ndata: {mode: fast}\n";
    let diff = |file: &str, code: i32, golden: &'static str| Step::Diff {
        args: args(&["diff", "-f", file]),
        code,
        file: golden,
    };
    Scenario {
        name: "kubectl diff against a live object and a new one",
        files: vec![
            ("shop.yaml", SHOP.to_owned()),
            ("shop2.yaml", changed),
            ("fresh.yaml", configmap.to_owned()),
        ],
        steps: vec![
            run_step(&["apply", "-f", "@shop.yaml"]),
            diff("@shop.yaml", 0, "23-diff-unchanged"),
            diff("@shop2.yaml", 1, "23-diff-changed"),
            diff("@fresh.yaml", 1, "23-diff-new"),
            golden("deployments", "shop", "01-apply-create"),
            Step::Gone {
                plural: "configmaps",
                name: "fresh",
            },
        ],
    }
}

/// The CustomResourceDefinition the create scenario makes.
const WIDGETS: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n";

/// `kubectl create` of each served kind: the imperative creates kubectl sends as protobuf
/// (configmap, secret, namespace, deployment, service, serviceaccount; manager
/// `kubectl-create`) and files of the other kinds (pod, replicaset, statefulset, daemonset,
/// lease, node, event, CustomResourceDefinition — waited for until Established, as its
/// controllers' conditions are written after the create): each stored zero-valued and
/// defaulted.
pub fn create_of_each_served_kind() -> Scenario {
    let imperative: [(&[&str], &'static str, &'static str, &'static str); 6] = [
        (
            &["create", "configmap", "c1", "--from-literal=k=v"],
            "configmaps",
            "c1",
            "20-create-configmaps",
        ),
        (
            &["create", "secret", "generic", "s1", "--from-literal=p=pw"],
            "secrets",
            "s1",
            "20-create-secrets",
        ),
        (
            &["create", "namespace", "ns1"],
            "namespaces",
            "ns1",
            "20-create-namespaces",
        ),
        (
            &[
                "create",
                "deployment",
                "d1",
                "--image=nginx:1.27",
                "--replicas=2",
            ],
            "deployments",
            "d1",
            "20-create-deployments",
        ),
        (
            &["create", "service", "clusterip", "svc1", "--tcp=80:8080"],
            "services",
            "svc1",
            "20-create-services",
        ),
        (
            &["create", "serviceaccount", "sa1"],
            "serviceaccounts",
            "sa1",
            "20-create-serviceaccounts",
        ),
    ];
    let mut steps = Vec::new();
    for (command, plural, name, file) in imperative {
        steps.push(run_step(command));
        steps.push(golden(plural, name, file));
    }
    let files: [(&'static str, &'static str, &'static str, &'static str, &str); 8] = [
        (
            "pods.yaml",
            "pods",
            "p1",
            "21-create-pods",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n  containers: [{name: app, image: busybox, command: [sleep, '3600']}]\n",
        ),
        (
            "replicasets.yaml",
            "replicasets",
            "p1",
            "21-create-replicasets",
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: p1}\nspec:\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "statefulsets.yaml",
            "statefulsets",
            "p1",
            "21-create-statefulsets",
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: p1}\nspec:\n  serviceName: p1\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "daemonsets.yaml",
            "daemonsets",
            "p1",
            "21-create-daemonsets",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: p1}\nspec:\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "leases.yaml",
            "leases",
            "p1",
            "21-create-leases",
            "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: p1}\nspec: {holderIdentity: me, leaseDurationSeconds: 15}\n",
        ),
        (
            "nodes.yaml",
            "nodes",
            "n1",
            "22-create-nodes",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nspec: {podCIDR: 10.0.1.0/24}\n",
        ),
        (
            "events.yaml",
            "events",
            "e1",
            "22-create-events",
            "apiVersion: v1\nkind: Event\nmetadata: {name: e1}\ninvolvedObject: {kind: Pod, name: p1, namespace: default}\nreason: Started\nmessage: started\ntype: Normal\n",
        ),
        (
            "customresourcedefinitions.yaml",
            "customresourcedefinitions",
            "widgets.example.com",
            "22-create-customresourcedefinitions",
            WIDGETS,
        ),
    ];
    let mut written = Vec::new();
    for (path, plural, name, file, text) in files {
        written.push((path, text.to_owned()));
        steps.push(Step::Run(vec![
            "create".into(),
            "-f".into(),
            format!("@{path}"),
        ]));
        if plural == "customresourcedefinitions" {
            steps.push(run_step(&[
                "wait",
                "--for=condition=Established",
                "customresourcedefinition/widgets.example.com",
                "--timeout=60s",
            ]));
        }
        steps.push(golden(plural, name, file));
    }
    Scenario {
        name: "create of each served kind",
        files: written,
        steps,
    }
}

/// kubectl against one server, with a working directory of its own (the scenario's files,
/// kubectl's cache).
pub struct Kubectl {
    kubeconfig: PathBuf,
    dir: TempDir,
}

impl Kubectl {
    /// kubectl through `kubeconfig` (its context's namespace is `default`).
    pub fn new(kubeconfig: &Path) -> Result<Kubectl, Error> {
        Ok(Kubectl {
            kubeconfig: kubeconfig.to_owned(),
            dir: tempfile::tempdir()?,
        })
    }

    /// `@NAME` as the path of `NAME` in the working directory; other arguments as they are.
    fn argument(&self, arg: &str) -> String {
        match arg.strip_prefix('@') {
            Some(name) => self.dir.path().join(name).display().to_string(),
            None => arg.to_owned(),
        }
    }

    /// kubectl `args` with the environment variables `env` set.
    async fn output(&self, args: &[String], env: &[(&str, &OsStr)]) -> Result<Output, Error> {
        let mut command = tokio::process::Command::new("kubectl");
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args.iter().map(|a| self.argument(a)))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let output = tokio::time::timeout(KUBECTL_DEADLINE, command.output())
            .await
            .map_err(|_| format!("kubectl {args:?} did not end in {KUBECTL_DEADLINE:?}"))?
            .map_err(|e| format!("kubectl does not run (install kubernetes-client): {e}"))?;
        Ok(output)
    }

    /// kubectl `args`; Err with its stderr unless it succeeds.
    pub async fn run(&self, args: &[String]) -> Result<String, Error> {
        self.succeeded(args, self.output(args, &[]).await?)
    }

    fn succeeded(&self, args: &[String], output: Output) -> Result<String, Error> {
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("kubectl {args:?} failed: {stderr}").into());
        }
        Ok(String::from_utf8(output.stdout)?)
    }

    /// kubectl `args`, expected to fail with `text` in its stderr.
    async fn refused(&self, args: &[String], text: &str) -> Result<(), Error> {
        let output = self.output(args, &[]).await?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() || !stderr.contains(text) {
            return Err(format!(
                "kubectl {args:?}: expected a failure saying {text:?}, got {} and: {stderr}",
                output.status
            )
            .into());
        }
        Ok(())
    }

    /// `kubectl edit`-like `args` with an editor running `sed -i expression` on the file.
    async fn edit(&self, args: &[String], expression: &str) -> Result<(), Error> {
        let editor = self.dir.path().join("editor.sh");
        std::fs::write(
            &editor,
            format!("#!/bin/sh\nsed -i '{expression}' \"$1\"\n"),
        )?;
        std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
        let output = self
            .output(args, &[("KUBE_EDITOR", editor.as_os_str())])
            .await?;
        self.succeeded(args, output).map(drop)
    }

    /// `kubectl diff`-like `args` with `diff -u -N` as its diff program, expected to exit
    /// with `code`; its exit code and printed lines, masked ([`masked_diff`]).
    async fn diff(&self, args: &[String], code: i32) -> Result<Value, Error> {
        let output = self
            .output(args, &[("KUBECTL_EXTERNAL_DIFF", OsStr::new("diff -u -N"))])
            .await?;
        let exit = output.status.code().unwrap_or(-1);
        if exit != code {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("kubectl {args:?}: exit {exit}, not {code}: {stderr}").into());
        }
        let printed = String::from_utf8(output.stdout)?;
        Ok(json!({"exitCode": exit, "printed": masked_diff(&printed)}))
    }

    /// The stored `plural` `name` (in `default` unless cluster-scoped), managedFields
    /// included; None when there is none.
    pub async fn get(&self, plural: &str, name: &str) -> Result<Option<Value>, Error> {
        let text = self
            .run(&args(&[
                "get",
                plural,
                name,
                "--ignore-not-found",
                "--show-managed-fields",
                "-o",
                "json",
            ]))
            .await?;
        if text.trim().is_empty() {
            return Ok(None);
        }
        Ok(Some(serde_json::from_str(&text)?))
    }

    /// Writes the scenario's files into the working directory.
    fn write_files(&self, scenario: &Scenario) -> Result<(), Error> {
        for (name, text) in &scenario.files {
            let path = self.dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, text)?;
        }
        Ok(())
    }
}

/// Plays `scenario`; returns what each [`Step::Golden`] read, masked, in order.
pub async fn run(kubectl: &Kubectl, scenario: &Scenario) -> Result<Vec<Observed>, Error> {
    kubectl.write_files(scenario)?;
    let mut observed = Vec::new();
    for step in &scenario.steps {
        match step {
            Step::Run(args) => drop(kubectl.run(args).await?),
            Step::Refused(args, text) => kubectl.refused(args, text).await?,
            Step::Edit(args, expression) => kubectl.edit(args, expression).await?,
            Step::Golden { plural, name, file } => {
                let object = kubectl
                    .get(plural, name)
                    .await?
                    .ok_or_else(|| format!("{}: {plural}/{name} is not stored", scenario.name))?;
                observed.push(Observed {
                    file,
                    object: masked(object),
                });
            }
            Step::Diff { args, code, file } => observed.push(Observed {
                file,
                object: kubectl.diff(args, *code).await?,
            }),
            Step::Gone { plural, name } => {
                if kubectl.get(plural, name).await?.is_some() {
                    return Err(
                        format!("{}: {plural}/{name} is still stored", scenario.name).into(),
                    );
                }
            }
        }
    }
    Ok(observed)
}

/// Deletes what `scenario` read (but namespaces, which no namespace controller would finish
/// deleting), so that the next scenario on the same server starts without it.
pub async fn clean_up(kubectl: &Kubectl, scenario: &Scenario) -> Result<(), Error> {
    let mut deleted = Vec::new();
    for step in &scenario.steps {
        if let Step::Golden { plural, name, .. } = step
            && *plural != "namespaces"
            && !deleted.contains(&(plural, name))
        {
            deleted.push((plural, name));
            kubectl
                .run(&args(&[
                    "delete",
                    plural,
                    name,
                    "--ignore-not-found",
                    "--wait",
                ]))
                .await?;
        }
    }
    Ok(())
}

/// The golden file `file.json` under `dir`.
pub fn golden_path(dir: &Path, file: &str) -> PathBuf {
    dir.join(format!("{file}.json"))
}

/// The golden file `file.json` under `dir`, parsed.
pub fn read_golden(dir: &Path, file: &str) -> Result<Value, Error> {
    let path = golden_path(dir, file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("golden file {}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

/// `object` without what differs from run to run and from server to server: `uid`,
/// `creationTimestamp`, `resourceVersion`, the managedFields `time`s (and so their order,
/// which follows time first), a `restartedAt` annotation's time, conditions'
/// `lastTransitionTime`, a Service's allocated cluster IP, the random
/// suffix of a pod's `kube-api-access-XXXXX` token volume.
pub fn masked(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in ["uid", "creationTimestamp", "resourceVersion"] {
            metadata.remove(key);
        }
        if let Some(entries) = metadata
            .get_mut("managedFields")
            .and_then(Value::as_array_mut)
        {
            for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                entry.insert("time".into(), json!("MASKED"));
            }
            // Ordered by time first: writes within one second sort by manager, so order the
            // masked entries the way a cluster's seconds apart would not decide either.
            entries.sort_by_key(|e| {
                ["operation", "manager", "subresource"].map(|k| e[k].as_str().map(str::to_owned))
            });
        }
    }
    if let Some(conditions) = object
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    {
        for condition in conditions.iter_mut().filter_map(Value::as_object_mut) {
            condition.insert("lastTransitionTime".into(), json!("MASKED"));
        }
    }
    let restarted = "/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt";
    if let Some(at) = object.pointer_mut(restarted) {
        *at = json!("MASKED");
    }
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
        && spec.contains_key("clusterIP")
        && spec.get("clusterIP") != Some(&json!("None"))
    {
        spec.insert("clusterIP".into(), json!("MASKED"));
        spec.insert("clusterIPs".into(), json!(["MASKED"]));
    }
    mask_token_volume(&mut object);
    object
}

/// `kubectl diff`'s output, line by line, without what differs from run to run: the
/// temporary directories kubectl diffs (`/tmp/LIVE-123…` and `/tmp/MERGED-456…`: `LIVE`,
/// `MERGED`), the files' times on the `---`/`+++` lines, and the `uid`, `creationTimestamp` and
/// `resourceVersion` of the objects shown.
pub fn masked_diff(printed: &str) -> Vec<String> {
    printed.lines().map(masked_diff_line).collect()
}

fn masked_diff_line(line: &str) -> String {
    let is_header = line.starts_with("--- ") || line.starts_with("+++ ");
    let line = match line.split_once('\t') {
        Some((head, _time)) if is_header => head,
        _ => line,
    };
    if line.starts_with("diff ") || is_header {
        return line
            .split(' ')
            .map(masked_temp_dir)
            .collect::<Vec<_>>()
            .join(" ");
    }
    let (mark, body) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
    let indent = &body[..body.len() - body.trim_start().len()];
    match body.trim_start().split_once(": ") {
        Some((key, _)) if ["uid", "creationTimestamp", "resourceVersion"].contains(&key) => {
            format!("{mark}{indent}{key}: MASKED")
        }
        _ => line.to_owned(),
    }
}

/// A path into one of kubectl diff's temporary directories with the directory's name masked
/// (`/tmp/LIVE-123/v1.ConfigMap.default.x` → `LIVE/v1.ConfigMap.default.x`); any other word
/// as it is.
fn masked_temp_dir(word: &str) -> String {
    for prefix in ["LIVE", "MERGED"] {
        if let Some(at) = word.find(&format!("{prefix}-"))
            && let Some(file) = word[at..].split_once('/').map(|(_, file)| file)
        {
            return format!("{prefix}/{file}");
        }
    }
    word.to_owned()
}

/// The ServiceAccount admission's random `kube-api-access-XXXXX` volume name, wherever it is
/// named (the volume and each container's mount).
fn mask_token_volume(value: &mut Value) {
    match value {
        Value::String(text) if text.starts_with("kube-api-access-") => {
            *text = "kube-api-access-MASKED".to_owned();
        }
        Value::Array(items) => items.iter_mut().for_each(mask_token_volume),
        Value::Object(members) => members.values_mut().for_each(mask_token_volume),
        _ => {}
    }
}

/// One place where two objects differ: its JSON pointer and each side's value there (None:
/// absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub pointer: String,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
}

/// Every place where `actual` differs from `expected`, leaf by leaf: members of objects by
/// name, items of arrays by index (an item only one side has is a difference of its own).
pub fn differences(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut found = Vec::new();
    walk(Some(expected), Some(actual), String::new(), &mut found);
    found
}

fn walk(expected: Option<&Value>, actual: Option<&Value>, at: String, found: &mut Vec<Difference>) {
    match (expected, actual) {
        (Some(Value::Object(e)), Some(Value::Object(a))) => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                walk(e.get(key), a.get(key), pointer, found);
            }
        }
        (Some(Value::Array(e)), Some(Value::Array(a))) => {
            for i in 0..e.len().max(a.len()) {
                walk(e.get(i), a.get(i), format!("{at}/{i}"), found);
            }
        }
        (e, a) if e != a => found.push(Difference {
            pointer: at,
            expected: e.cloned(),
            actual: a.cloned(),
        }),
        _ => {}
    }
}
