//! The golden corpus: kubectl write commands against the embedded server, each stored object
//! compared field for field — `managedFields` included — with the object kube-apiserver
//! stores for the same command, kept as a file under `tests/server/golden/`. Masked on both
//! sides: what no two runs share (`uid`, `creationTimestamp`, `resourceVersion`, the
//! managedFields `time`s (and so their order, which follows time first), a `restartedAt`
//! annotation's time, conditions' `lastTransitionTime`, a Service's allocated cluster IP, the
//! random suffix of a pod's `kube-api-access-XXXXX` token volume).
//!
//! Where the expectations come from, per file: kube-apiserver's defaulting functions
//! (`pkg/apis/core/v1/defaults.go`, `pkg/apis/apps/v1/defaults.go`) and zero values (the Go
//! types' non-`omitempty` fields, `k8s.io/api`: a Node's `status.daemonEndpoints` and
//! `nodeInfo`, an Event's timestamps and reporting fields); apiextensions-apiserver for a CRD
//! (`SetDefaults_CustomResourceDefinitionSpec`: singular, listKind, conversion `None`; the
//! strategy's `storedVersions`; the naming and establishing controllers' conditions and
//! accepted names under a `kube-apiserver` status entry, conditions a `listType=map` keyed by
//! `type`); the field manager
//! (`apiserver/pkg/endpoints/handlers/fieldmanager`, structured-merge-diff's `Compare`,
//! `ToFieldSet`, `Merge` and the `fieldsV1` encoding); kubectl's requests (its default field
//! manager names, `cmd/apply`, `cmd/set`, `cmd/patch`, `cmd/scale`, `cmd/label`,
//! `cmd/annotate`, `cmd/rollout`, `cmd/edit`); the default admission plugins for a pod
//! (`plugin/pkg/admission/{serviceaccount,defaulttolerationseconds,priority}`: the `default`
//! account, its projected token volume and mounts, the two 300 s tolerations, priority 0 — none
//! of them in the writer's managedFields, which the field manager records before admission);
//! and the Server-Side Apply documentation's
//! conflict and ownership walk-throughs. Set `KINFORMER_GOLDEN_BLESS=1` to write the files
//! from the server's answers (then review each against those sources before committing).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Fixture, TWO_CONTAINERS, path_arg};
use crate::support::TestResult;
use kinformer_apiserver::ServerConfig;

/// The golden files' directory.
fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/server/golden")
}

/// `object` without what differs from run to run.
fn masked(mut object: Value) -> Value {
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

/// Asserts the stored `plural` `name` (in `default` unless cluster-scoped) equals the golden
/// file `name.json`.
fn assert_golden(fixture: &Fixture, plural: &str, name: &str, file: &str) -> TestResult {
    let namespace = match plural {
        "namespaces" | "nodes" | "customresourcedefinitions" => "",
        _ => "default",
    };
    let stored = fixture
        .server
        .get_object(plural, namespace, name)?
        .ok_or_else(|| format!("{plural}/{name} is not stored"))?;
    let actual = masked(stored);
    let path = golden_dir().join(format!("{file}.json"));
    if std::env::var_os("KINFORMER_GOLDEN_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir())?;
        std::fs::write(&path, serde_json::to_string_pretty(&actual)? + "\n")?;
        return Ok(());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("golden file {}: {e}", path.display()))?;
    let expected: Value = serde_json::from_str(&text)?;
    assert_eq!(
        actual,
        expected,
        "{file}: stored object differs from the golden one:\n{}",
        serde_json::to_string_pretty(&actual)?
    );
    Ok(())
}

/// A server without controllers (no status or rollout writes besides kubectl's).
async fn fixture() -> Result<Fixture, Box<dyn std::error::Error>> {
    Fixture::with(ServerConfig::default()).await
}

/// `kubectl apply` (client-side: `fieldManager=kubectl-client-side-apply`, the
/// last-applied annotation) creating the 2-container Deployment, then applying a changed
/// manifest (a three-way strategic merge patch), then `set image` (`kubectl-set`), `set env`
/// (`kubectl-set`), `scale` (`kubectl-scale`, the scale subresource: its entry names
/// `subresource: scale`), `label` (`kubectl-label`), `annotate` (`kubectl-annotate`),
/// `rollout restart` (`kubectl-rollout`), `edit` through `KUBE_EDITOR` (`kubectl-edit`): the
/// object after each step as kube-apiserver stores it — each writer owning what it changed,
/// taken from the earlier owner (an Update never conflicts), the defaulted fields the
/// creator's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_client_side_workflow_of_a_two_container_deployment() -> TestResult {
    let fixture = fixture().await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["apply", "-f", path_arg(&manifest)?]).await?;
    assert_golden(&fixture, "deployments", "shop", "01-apply-create")?;

    let changed = TWO_CONTAINERS
        .replace("image: nginx:1.25", "image: nginx:1.26")
        .replace("        env: [{name: MODE, value: fast}]\n", "");
    let changed = fixture.write("shop2.yaml", &changed)?;
    fixture.run(&["apply", "-f", path_arg(&changed)?]).await?;
    assert_golden(&fixture, "deployments", "shop", "02-apply-update")?;

    let steps: [(&[&str], &str); 6] = [
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
    for (args, golden) in steps {
        fixture.run(args).await?;
        assert_golden(&fixture, "deployments", "shop", golden)?;
    }

    let editor = fixture.write(
        "editor.sh",
        "#!/bin/sh\nsed -i 's/busybox:1.37/busybox:1.36/' \"$1\"\n",
    )?;
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let mut edit = fixture.command(&["edit", "deployment/shop"]);
    edit.env("KUBE_EDITOR", &editor);
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), edit.output()).await??;
    assert!(
        output.status.success(),
        "kubectl edit: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_golden(&fixture, "deployments", "shop", "09-edit")
}

/// `kubectl patch` with each `--type` (manager `kubectl-patch`): strategic (the default; env
/// merged by name, ports by containerPort), merge (RFC 7386: `containers` replaced whole, the
/// new container defaulted) and json (RFC 6902).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_patch_of_each_type() -> TestResult {
    let fixture = fixture().await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["create", "-f", path_arg(&manifest)?]).await?;
    assert_golden(&fixture, "deployments", "shop", "10-create-file")?;
    let strategic = r#"{"spec":{"template":{"spec":{"containers":[
        {"name":"sidecar","env":[{"name":"LEVEL","value":"debug"}]},
        {"name":"nginx","ports":[{"containerPort":443,"name":"https"}]}]}}}}"#;
    fixture
        .run(&["patch", "deployment", "shop", "-p", strategic])
        .await?;
    assert_golden(&fixture, "deployments", "shop", "11-patch-strategic")?;
    let json_patch = r#"[{"op":"replace","path":"/spec/template/spec/containers/1/image","value":"busybox:1.36"}]"#;
    fixture
        .run(&[
            "patch",
            "deployment",
            "shop",
            "--type=json",
            "-p",
            json_patch,
        ])
        .await?;
    assert_golden(&fixture, "deployments", "shop", "12-patch-json")?;
    let merge =
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"solo","image":"nginx:latest"}]}}}}"#;
    fixture
        .run(&["patch", "deployment", "shop", "--type=merge", "-p", merge])
        .await?;
    assert_golden(&fixture, "deployments", "shop", "13-patch-merge")
}

/// `kubectl apply --prune -l app=shop` with a directory holding only the Deployment deletes
/// the ConfigMap an earlier apply created with that label (kubectl's `apply/prune.go`: objects
/// with the last-applied annotation matching the selector and absent from the files), and
/// leaves the Deployment as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_apply_prune_deletes_what_left_the_manifests() -> TestResult {
    let fixture = fixture().await?;
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-config, labels: {app: shop}}\ndata: {mode: fast}\n";
    let both = format!("{TWO_CONTAINERS}---\n{configmap}");
    let all = fixture.write("all.yaml", &both)?;
    fixture.run(&["apply", "-f", path_arg(&all)?]).await?;
    assert_golden(&fixture, "configmaps", "shop-config", "14-apply-configmap")?;
    let dir = fixture.dir.path().join("only-deployment");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("shop.yaml"), TWO_CONTAINERS)?;
    fixture
        .run(&[
            "apply",
            "--prune",
            "-l",
            "app=shop",
            "--prune-allowlist=core/v1/ConfigMap",
            "--prune-allowlist=apps/v1/Deployment",
            "-f",
            path_arg(&dir)?,
        ])
        .await?;
    assert!(
        fixture
            .server
            .get_object("configmaps", "default", "shop-config")?
            .is_none(),
        "the pruned ConfigMap is still stored"
    );
    assert_golden(&fixture, "deployments", "shop", "01-apply-create")
}

/// `kubectl apply --server-side` by two managers (the SSA documentation's "Conflicts"
/// walk-through): `alice` creates with 2 replicas and owns what she applied (operation
/// `Apply`, no defaulted field); `bob` applying 3 replicas gets kube-apiserver's conflict
/// naming the field and its manager; with `--force-conflicts` he takes `spec.replicas` over
/// and `alice` keeps the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_server_side_apply_by_two_managers() -> TestResult {
    let fixture = fixture().await?;
    let manifest = |replicas: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: shop, labels: {{app: shop}}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: shop}}}}\n  template:\n    metadata: {{labels: {{app: shop}}}}\n    spec:\n      containers:\n      - {{name: nginx, image: 'nginx:1.27', ports: [{{containerPort: 80}}]}}\n"
        )
    };
    let alice = fixture.write("alice.yaml", &manifest(2))?;
    let alice = path_arg(&alice)?;
    fixture
        .run(&[
            "apply",
            "--server-side",
            "--field-manager=alice",
            "-f",
            alice,
        ])
        .await?;
    assert_golden(&fixture, "deployments", "shop", "15-ssa-alice")?;

    let bob = fixture.write("bob.yaml", &manifest(3))?;
    let bob = path_arg(&bob)?;
    let refused = fixture
        .fail(&["apply", "--server-side", "--field-manager=bob", "-f", bob])
        .await?;
    assert!(
        refused.contains("Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas"),
        "{refused}"
    );
    assert_golden(&fixture, "deployments", "shop", "15-ssa-alice")?;
    fixture
        .run(&[
            "apply",
            "--server-side",
            "--field-manager=bob",
            "--force-conflicts",
            "-f",
            bob,
        ])
        .await?;
    assert_golden(&fixture, "deployments", "shop", "16-ssa-bob-forced")
}

/// `kubectl create` of each served kind: the imperative creates kubectl sends as protobuf
/// (configmap, secret, namespace, deployment, service, serviceaccount; managers
/// `kubectl-create`) and files of the other kinds (pod, replicaset, statefulset, daemonset,
/// lease, node, event, CustomResourceDefinition): each stored zero-valued and defaulted as
/// kube-apiserver stores it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_create_of_each_served_kind() -> TestResult {
    let fixture = fixture().await?;
    let imperative: [(&[&str], &str, &str); 6] = [
        (
            &["create", "configmap", "c1", "--from-literal=k=v"],
            "configmaps",
            "c1",
        ),
        (
            &["create", "secret", "generic", "s1", "--from-literal=p=pw"],
            "secrets",
            "s1",
        ),
        (&["create", "namespace", "ns1"], "namespaces", "ns1"),
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
        ),
        (
            &["create", "service", "clusterip", "svc1", "--tcp=80:8080"],
            "services",
            "svc1",
        ),
        (
            &["create", "serviceaccount", "sa1"],
            "serviceaccounts",
            "sa1",
        ),
    ];
    for (args, plural, name) in imperative {
        fixture.run(args).await?;
        assert_golden(&fixture, plural, name, &format!("20-create-{plural}"))?;
    }
    let files = [
        (
            "pods",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n  containers: [{name: app, image: busybox, command: [sleep, '3600']}]\n",
        ),
        (
            "replicasets",
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: p1}\nspec:\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "statefulsets",
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: p1}\nspec:\n  serviceName: p1\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "daemonsets",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: p1}\nspec:\n  selector: {matchLabels: {app: p1}}\n  template:\n    metadata: {labels: {app: p1}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n",
        ),
        (
            "leases",
            "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: p1}\nspec: {holderIdentity: me, leaseDurationSeconds: 15}\n",
        ),
    ];
    for (plural, text) in files {
        let file = fixture.write(&format!("{plural}.yaml"), text)?;
        fixture.run(&["create", "-f", path_arg(&file)?]).await?;
        assert_golden(&fixture, plural, "p1", &format!("21-create-{plural}"))?;
    }
    let named = [
        (
            "nodes",
            "n1",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nspec: {podCIDR: 10.0.1.0/24}\n",
        ),
        (
            "events",
            "e1",
            "apiVersion: v1\nkind: Event\nmetadata: {name: e1}\ninvolvedObject: {kind: Pod, name: p1, namespace: default}\nreason: Started\nmessage: started\ntype: Normal\n",
        ),
        (
            "customresourcedefinitions",
            "widgets.example.com",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n",
        ),
    ];
    for (plural, name, text) in named {
        let file = fixture.write(&format!("{plural}.yaml"), text)?;
        fixture.run(&["create", "-f", path_arg(&file)?]).await?;
        assert_golden(&fixture, plural, name, &format!("22-create-{plural}"))?;
    }
    Ok(())
}

/// Moving from client-side to server-side apply: `kubectl apply` of the Deployment, then
/// `kubectl apply --server-side` of a changed manifest (`--field-manager` left at its
/// default, `kubectl`) succeeds without `--force-conflicts`, as on a cluster (kubectl rewrites
/// the client-side applier's managedFields first, and kube-apiserver lets `kubectl` take over
/// what the last-applied annotation still matches): the applier then owns the fields it
/// applied, the changed replica count among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_side_then_server_side_apply_upgrades_without_conflicts() -> TestResult {
    let fixture = fixture().await?;
    let manifest = fixture.write("shop.yaml", TWO_CONTAINERS)?;
    fixture.run(&["apply", "-f", path_arg(&manifest)?]).await?;
    let changed = TWO_CONTAINERS.replacen("replicas: 2", "replicas: 4", 1);
    assert_ne!(changed, TWO_CONTAINERS, "the manifest sets 2 replicas");
    let manifest = fixture.write("shop-4.yaml", &changed)?;
    fixture
        .run(&["apply", "--server-side", "-f", path_arg(&manifest)?])
        .await?;
    let stored = fixture
        .server
        .get_object("deployments", "default", "shop")?
        .ok_or("the deployment is stored")?;
    assert_eq!(stored["spec"]["replicas"], 4);
    let applier = stored["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == "kubectl" && e["operation"] == "Apply")
        .ok_or("an Apply entry of kubectl")?;
    assert!(
        applier["fieldsV1"]["f:spec"].get("f:replicas").is_some(),
        "{applier}"
    );
    Ok(())
}
