//! Protobuf against the real kube-apiserver (`scripts/refserver`): kinformer as a protobuf
//! client (`--content-type protobuf`) gives the same bytes as over JSON, for pods and for many
//! kinds; and client-go's own typed informer (protobuf, its clientset's default) recorded
//! through `kinformer proxy` replays, explains and reports with whole objects.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::binary::{DEADLINE, kinformer, parse_jsonl, run};
use crate::refserver::{is, proxy_in_front_of, stop_proxy};
use crate::refserver_fixture::RefServer;

/// `kinformer ARGS` against `server`.
fn real(server: &RefServer, args: &[&str]) -> tokio::process::Command {
    let mut c = kinformer(args);
    c.arg("--kubeconfig").arg(server.kubeconfig());
    c
}

/// A pod with much in it: env, ports, resources, probes, volumes, tolerations, a node, and
/// strings Go's JSON escapes.
fn rich_pod(ns: &str, name: &str, node: &str) -> String {
    format!(
        r#"apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {ns}
  labels:
    app: web
    tier: front
  annotations:
    note: "a <b>bold</b> & “quoted” line"
spec:
  nodeName: {node}
  terminationGracePeriodSeconds: 5
  containers:
  - name: c
    image: nginx:1.27
    args: ["--port", "8080"]
    env:
    - name: A
      value: "1"
    - name: POD
      valueFrom:
        fieldRef:
          fieldPath: metadata.name
    ports:
    - containerPort: 8080
      name: http
    resources:
      requests:
        cpu: 100m
        memory: 64Mi
      limits:
        memory: 128Mi
    readinessProbe:
      httpGet:
        path: /ready
        port: http
      periodSeconds: 3
    volumeMounts:
    - name: cache
      mountPath: /cache
  volumes:
  - name: cache
    emptyDir:
      sizeLimit: 1Gi
  - name: config
    configMap:
      name: settings
      optional: true
  tolerations:
  - key: dedicated
    operator: Equal
    value: web
    effect: NoExecute
    tolerationSeconds: 30
"#
    )
}

/// `output` without the lines that carry the list's resourceVersion (the shared server's
/// writes from other tests move it between two runs).
fn without_list_rv(output: &str) -> String {
    output
        .lines()
        .filter(|l| !l.starts_with("  \"resourceVersion\"") && !l.starts_with("resourceVersion:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `dump ARGS` over JSON and over protobuf: both outputs, each run successful.
async fn dump_both(server: &RefServer, args: &[&str]) -> (String, String) {
    let json = run(real(server, args)).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let mut with = args.to_vec();
    with.extend(["--content-type", "protobuf", "-v", "6"]);
    let protobuf = run(real(server, &with)).await;
    assert_eq!(protobuf.code, 0, "{}", protobuf.stderr);
    assert!(
        protobuf
            .stderr
            .contains("content-type: application/vnd.kubernetes.protobuf"),
        "kube-apiserver answered protobuf: {}",
        protobuf.stderr
    );
    (json.stdout, protobuf.stdout)
}

#[tokio::test]
async fn dump_over_protobuf_prints_the_same_bytes_as_over_json() {
    let server = RefServer::shared();
    let ns = server.namespace("proto-dump");
    let pods: Vec<String> = (0..3)
        .map(|i| rich_pod(&ns, &format!("p-{i}"), &format!("node-{i}")))
        .collect();
    server.apply(&pods.join("---\n"));
    for list in ["--watch-list=true", "--watch-list=false"] {
        for format in ["json", "jsonl", "yaml"] {
            let (json, protobuf) =
                dump_both(&server, &["dump", "pods", "-n", &ns, "-o", format, list]).await;
            assert!(
                json.contains("\"p-2\"") || json.contains("name: p-2"),
                "{json}"
            );
            assert_eq!(
                without_list_rv(&protobuf),
                without_list_rv(&json),
                "-o {format} {list}"
            );
        }
    }
}

/// `key -> (resourceVersion, the object's line)` of a `dump -o jsonl`.
fn by_key(jsonl: &str) -> BTreeMap<String, (String, String)> {
    jsonl
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let meta = &v["metadata"];
            let key = format!(
                "{}/{}",
                meta["namespace"].as_str().unwrap_or_default(),
                meta["name"].as_str().unwrap_or_default()
            );
            let rv = meta["resourceVersion"].as_str().unwrap_or_default();
            (key, (rv.to_owned(), line.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn dump_over_protobuf_matches_json_object_for_object_across_many_kinds() {
    let server = RefServer::shared();
    let ns = server.namespace("proto-kinds");
    server.apply(&format!(
        r#"apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: {ns}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  strategy: {{rollingUpdate: {{maxSurge: 25%, maxUnavailable: 1}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, image: nginx}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: {ns}}}
spec: {{selector: {{app: web}}, ports: [{{port: 80, targetPort: http}}]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: {ns}}}
data: {{a: "<1>", b: "two & three"}}
binaryData: {{blob: AP8=}}
---
apiVersion: v1
kind: Secret
metadata: {{name: creds, namespace: {ns}}}
stringData: {{password: hunter2}}
---
apiVersion: v1
kind: Event
metadata: {{name: web.1, namespace: {ns}}}
involvedObject: {{kind: Pod, name: web, namespace: {ns}}}
reason: Started
message: "Started container c"
type: Normal
count: 3
firstTimestamp: "2026-11-28T10:00:00Z"
lastTimestamp: "2026-11-28T10:00:05Z"
---
apiVersion: batch/v1
kind: CronJob
metadata: {{name: nightly, namespace: {ns}}}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec: {{restartPolicy: Never, containers: [{{name: c, image: busybox}}]}}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {{name: leader, namespace: {ns}}}
spec: {{holderIdentity: a, leaseDurationSeconds: 15, renewTime: "2026-11-28T10:00:00.123456Z"}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: reader, namespace: {ns}}}
rules: [{{apiGroups: [""], resources: [pods], verbs: [get, list]}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data, namespace: {ns}}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}
  dataSource: {{kind: VolumeSnapshot, name: snap, apiGroup: snapshot.storage.k8s.io}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: web, namespace: {ns}}}
spec: {{minAvailable: 1, selector: {{matchLabels: {{app: web}}}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: web, namespace: {ns}}}
spec:
  rules:
  - host: example.com
    http:
      paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]
---
apiVersion: v1
kind: Node
metadata: {{name: {ns}-node, labels: {{zone: a}}}}
spec: {{podCIDR: 10.0.0.0/24, taints: [{{key: k, value: v, effect: NoSchedule}}]}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: widgets.{ns}.example.com}}
spec:
  group: {ns}.example.com
  names: {{kind: Widget, plural: widgets, shortNames: [wdg]}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns: [{{name: Size, type: integer, jsonPath: .spec.size}}]
    subresources: {{status: {{}}, scale: {{specReplicasPath: .spec.size, statusReplicasPath: .status.size}}}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {{type: integer, minimum: 0, maximum: 1.5e3, default: 1}}
              mode: {{type: string, enum: [a, "<b>"], pattern: "^[a-z<>]+$"}}
              port: {{x-kubernetes-int-or-string: true}}
              tags: {{type: array, items: {{type: string}}, x-kubernetes-list-type: set}}
              labels: {{type: object, additionalProperties: {{type: string}}}}
              free: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
            x-kubernetes-validations: [{{rule: "self.size <= 1000", message: too big}}]
          status: {{type: object, properties: {{size: {{type: integer}}}}}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {{name: robot, namespace: {ns}}}
automountServiceAccountToken: false
"#
    ));
    let kinds = [
        "deployments",
        "services",
        "configmaps",
        "secrets",
        "events",
        "cronjobs",
        "leases",
        "roles",
        "persistentvolumeclaims",
        "poddisruptionbudgets",
        "ingresses",
        "serviceaccounts",
        "nodes",
        "namespaces",
        "clusterroles",
        "priorityclasses",
        "customresourcedefinitions",
        "apiservices",
        "flowschemas",
    ];
    let mut compared = 0;
    for kind in kinds {
        let scope: Vec<&str> = match kind {
            "nodes"
            | "namespaces"
            | "clusterroles"
            | "priorityclasses"
            | "customresourcedefinitions"
            | "apiservices"
            | "flowschemas" => vec![],
            _ => vec!["-n", &ns],
        };
        let mut args = vec!["dump", kind, "-o", "jsonl"];
        args.extend(&scope);
        let (json, protobuf) = dump_both(&server, &args).await;
        let (json, protobuf) = (by_key(&json), by_key(&protobuf));
        assert!(!json.is_empty(), "{kind}: nothing to compare");
        for (key, (rv, line)) in &json {
            // Other tests write cluster-scoped objects of the shared server meanwhile.
            let Some((other_rv, other)) = protobuf.get(key) else {
                continue;
            };
            if other_rv == rv {
                assert_eq!(other, line, "{kind} {key}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 40, "only {compared} objects compared");
}

/// client-go 1.37's benchmark client (`scripts/bench-client-go` builds it next to the oracles).
fn typed_client() -> std::path::PathBuf {
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_kinformer"));
    let target = exe.parent().and_then(std::path::Path::parent);
    let bin = target
        .map(|t| t.join("oracle/1.37/bench-client-go.test"))
        .unwrap_or_default();
    assert!(
        bin.is_file(),
        "client-go's typed pod informer {} is missing: run scripts/bench-client-go (needs Go >= \
         1.25) with this CARGO_TARGET_DIR before this test",
        bin.display()
    );
    bin
}

/// A pod on `node`, as YAML for `kubectl apply`.
fn pod_on(ns: &str, name: &str, node: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {ns}\n  labels:\n    \
         app: web\nspec:\n  nodeName: {node}\n  containers:\n  - name: c\n    image: nginx\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_client_go_informer_through_the_proxy_replays_explains_and_reports_whole_pods() {
    let server = RefServer::shared();
    let ns = server.namespace("proxy-typed");
    server.apply(&format!(
        "{}---\n{}",
        pod_on(&ns, "p-a", "node-1"),
        pod_on(&ns, "p-b", "node-2")
    ));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (proxied, record) = (dir.path().join("proxy"), dir.path().join("record.jsonl"));
    let mut trace = proxy_in_front_of(&server, &proxied, &record).await;
    // client-go 1.37's typed pod informer of a SharedInformerFactory (its clientset asks
    // protobuf first, as typed clientsets do: rest/request.go v0.37.2), until synced.
    let typed = tokio::process::Command::new(typed_client())
        .args(["-test.run", "TestBench", "-bench-mode", "typed-protobuf"])
        .args(["-bench-timeout", "60s", "-bench-kubeconfig"])
        .arg(&proxied)
        .output();
    let typed = tokio::time::timeout(DEADLINE, typed)
        .await
        .expect("client-go syncs and stops")
        .expect("the typed client runs");
    assert!(
        typed.status.success(),
        "{}{}",
        String::from_utf8_lossy(&typed.stdout),
        String::from_utf8_lossy(&typed.stderr)
    );
    let synced = trace
        .until("client-go's initial pods", |v| {
            v["resource"]
                .as_str()
                .is_some_and(|r| r.starts_with("bench-client-go.test/pods"))
                && (is(v, "reflector", "list-done")
                    || (is(v, "reflector", "bookmark") && v["initial_events_end"] == true))
        })
        .await;
    let stream = synced["resource"].as_str().unwrap_or_default().to_owned();
    stop_proxy(&mut trace).await;

    let text = std::fs::read_to_string(&record).expect("the record file");
    assert!(
        text.contains("\"protobuf\":\""),
        "the bytes the server sent are kept"
    );
    assert!(!text.contains("metadata_only"), "every pod decoded whole");

    let node_index = ["--index", "node=field:spec.nodeName"];
    let mut replay = kinformer(&[
        "replay", "--clock", "virtual", "-o", "jsonl", "--show", "all",
    ]);
    replay
        .arg(&record)
        .arg("--stream")
        .arg(&stream)
        .args(node_index);
    let replayed = run(replay).await;
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    let lines = parse_jsonl(&replayed.stdout);
    let summary = lines
        .iter()
        .find(|v| is(v, "summary", "summary"))
        .expect("a summary");
    for node in ["node-1", "node-2"] {
        assert!(
            summary["indices"]["node"][node].as_u64() >= Some(1),
            "the index over spec.nodeName holds {node}: {}",
            summary["indices"]
        );
    }
    let added = lines
        .iter()
        .find(|v| is(v, "handler", "notify") && v["key"] == format!("{ns}/p-a"))
        .expect("p-a's notification");
    assert_eq!(added["object"]["spec"]["nodeName"], "node-1", "{added}");
    assert_eq!(
        added["object"]["spec"]["containers"][0]["image"], "nginx",
        "{added}"
    );

    let mut explain = kinformer(&["explain", &format!("{ns}/p-a")]);
    explain
        .arg(&record)
        .arg("--stream")
        .arg(&stream)
        .args(node_index);
    let explained = run(explain).await;
    assert_eq!(explained.code, 0, "{}", explained.stderr);
    assert!(
        explained.stdout.contains("(index node=node-1)"),
        "explain tells the spec's node: {}",
        explained.stdout
    );

    let page = dir.path().join("report.html");
    let mut report = kinformer(&["report"]);
    report
        .arg(&record)
        .arg("--stream")
        .arg(&stream)
        .args(node_index)
        .arg("-o")
        .arg(&page);
    let reported = run(report).await;
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("index node=node-2"), "the page's stories");
}
