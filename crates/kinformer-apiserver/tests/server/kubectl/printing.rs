//! `kubectl get` prints the columns kube-apiserver's printers give (kubernetes v1.37.2
//! `pkg/printers/internalversion/printers.go`): column definitions registered in `AddHandlers`
//! (line 100 on) and cells from `printDeployment` (2506), `printReplicaSet` (1264),
//! `printPod` (967), `printService` (1456) and `printNode` (2021), always wide
//! (`pkg/printers/storage/storage.go:46`); kubectl shows the priority-1 columns with `-o wide`.

use serde_json::{Value, json};

use super::Fixture;
use crate::support::TestResult;

/// kubectl's output as tables (separated by blank lines), each a list of lines, each line its
/// cells (kubectl's tab writer pads columns with at least 3 spaces; cells hold single spaces).
fn tables(output: &str) -> Vec<Vec<Vec<String>>> {
    output
        .split("\n\n")
        .filter(|t| !t.trim().is_empty())
        .map(|table| {
            table
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|line| {
                    line.split("  ")
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// An age cell as `duration.HumanDuration` writes one: digit runs each followed by a unit
/// (`45s`, `3m20s`, `6y331d`).
fn is_age(cell: &str) -> bool {
    let mut digits = 0;
    let mut units = 0;
    for c in cell.chars() {
        match c {
            '0'..='9' => digits += 1,
            's' | 'm' | 'h' | 'd' | 'y' if digits > 0 => {
                digits = 0;
                units += 1;
            }
            _ => return false,
        }
    }
    digits == 0 && units > 0
}

fn objects() -> Vec<Value> {
    let labels = json!({"app": "web"});
    let template = json!({"metadata": {"labels": labels}, "spec": {"containers": [
        {"name": "nginx", "image": "nginx:1.27"}, {"name": "envoy", "image": "envoy:1.31"}]}});
    let pod = |name: &str, spec: Value, status: Value| {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "print", "labels": labels},
            "spec": spec, "status": status})
    };
    let two = json!({"nodeName": "n1", "containers": [{"name": "a", "image": "a"},
        {"name": "b", "image": "b"}]});
    let one = json!({"containers": [{"name": "a", "image": "a"}]});
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "print"}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "print"},
            "spec": {"replicas": 3, "template": template, "selector": {"matchLabels": labels,
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]}},
            "status": {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3,
                "availableReplicas": 1}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-5d8f", "namespace": "print"},
            "spec": {"replicas": 3, "template": template, "selector": {"matchLabels": labels}},
            "status": {"replicas": 3, "readyReplicas": 2}}),
        pod(
            "running",
            two.clone(),
            json!({"phase": "Running", "podIP": "10.244.1.7",
            "nominatedNodeName": "n2",
            "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 2, "image": "a", "imageID": "",
                 "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1,
                    "finishedAt": "2020-01-01T00:00:00Z"}}},
                {"name": "b", "ready": false, "restartCount": 0, "image": "b", "imageID": "",
                 "state": {"running": {}}}]}),
        ),
        pod(
            "crash",
            one.clone(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "ready": false, "restartCount": 4, "image": "a", "imageID": "",
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}),
        ),
        pod(
            "done",
            one.clone(),
            json!({"phase": "Succeeded", "containerStatuses": [
                {"name": "a", "ready": false, "restartCount": 0, "image": "a", "imageID": "",
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}),
        ),
        pod(
            "starting",
            json!({"initContainers": [{"name": "i", "image": "i"}],
                "containers": [{"name": "a", "image": "a"}],
                "readinessGates": [{"conditionType": "example.com/x"}]}),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "i", "ready": false, "restartCount": 0, "image": "i", "imageID": "",
                 "state": {"running": {}}}]}),
        ),
        json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "lb", "namespace": "print"},
            "spec": {"type": "LoadBalancer", "clusterIP": "10.96.7.7", "clusterIPs": ["10.96.7.7"],
                "selector": {"tier": "a", "app": "web"},
                "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP",
                           "nodePort": 30080},
                          {"name": "dns", "port": 53, "targetPort": 53, "protocol": "UDP",
                           "nodePort": 30053}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}]}}}),
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "False"}],
                "addresses": [{"type": "InternalIP", "address": "172.18.0.2"},
                              {"type": "ExternalIP", "address": "198.51.100.2"}],
                "nodeInfo": {"kubeletVersion": "v1.32.4", "osImage": "Debian GNU/Linux 13",
                    "kernelVersion": "6.12.0", "architecture": "amd64",
                    "containerRuntimeVersion": "containerd://2.0.0", "machineID": "",
                    "systemUUID": "", "bootID": "", "kubeProxyVersion": "",
                    "operatingSystem": "linux"}}}),
    ]
}

async fn fixture() -> Result<Fixture, Box<dyn std::error::Error>> {
    let fixture = Fixture::start().await?;
    for object in objects() {
        fixture.server.create_object(object)?;
    }
    Ok(fixture)
}

/// Drops the AGE cell (at `index`) after checking it is an age.
fn without_age(mut row: Vec<String>, index: usize) -> Vec<String> {
    let age = row.remove(index);
    assert!(is_age(&age), "age {age:?} in {row:?}");
    row
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_prints_kube_apiserver_columns() -> TestResult {
    let fixture = fixture().await?;
    let out = fixture
        .run(&["get", "deploy,rs,po,svc", "-n", "print"])
        .await?;
    let got = tables(&out);
    assert_eq!(got.len(), 4, "{out}");
    let (deploy, rs, pods, svc) = (&got[0], &got[1], &got[2], &got[3]);
    assert_eq!(
        deploy[0],
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        "{out}"
    );
    assert_eq!(
        without_age(deploy[1].clone(), 4),
        ["deployment.apps/web", "2/3", "3", "1"]
    );
    assert_eq!(rs[0], ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    assert_eq!(
        without_age(rs[1].clone(), 4),
        ["replicaset.apps/web-5d8f", "3", "3", "2"]
    );
    assert_eq!(pods[0], ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    let pod_rows: Vec<Vec<String>> = pods[1..]
        .iter()
        .map(|r| without_age(r.clone(), 4))
        .collect();
    let restarts_ago = &pod_rows[2][3];
    assert!(
        restarts_ago.starts_with("2 (") && restarts_ago.ends_with(" ago)"),
        "{out}"
    );
    assert_eq!(
        pod_rows,
        [
            vec!["pod/crash", "0/1", "CrashLoopBackOff", "4"],
            vec!["pod/done", "0/1", "Completed", "0"],
            vec!["pod/running", "1/2", "Running", restarts_ago.as_str()],
            vec!["pod/starting", "0/1", "Init:0/1", "0"],
        ]
    );
    assert_eq!(
        svc[0],
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    assert_eq!(
        without_age(svc[1].clone(), 5),
        [
            "service/lb",
            "LoadBalancer",
            "10.96.7.7",
            "203.0.113.9",
            "80:30080/TCP,53:30053/UDP"
        ]
    );

    let nodes = tables(&fixture.run(&["get", "no", "n1"]).await?).remove(0);
    assert_eq!(nodes[0], ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    assert_eq!(
        without_age(nodes[1].clone(), 3),
        [
            "n1",
            "NotReady,SchedulingDisabled",
            "control-plane",
            "v1.32.4"
        ]
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_wide_prints_the_priority_one_columns() -> TestResult {
    let fixture = fixture().await?;
    let deploy = tables(
        &fixture
            .run(&["get", "deploy", "-n", "print", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        deploy[0],
        [
            "NAME",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert_eq!(
        without_age(deploy[1].clone(), 4),
        [
            "web",
            "2/3",
            "3",
            "1",
            "nginx,envoy",
            "nginx:1.27,envoy:1.31",
            "app=web,tier in (a,b)"
        ]
    );
    let rs = tables(
        &fixture
            .run(&["get", "rs", "-n", "print", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        rs[0],
        [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert_eq!(
        without_age(rs[1].clone(), 4)[4..],
        ["nginx,envoy", "nginx:1.27,envoy:1.31", "app=web"]
    );
    let pods = tables(
        &fixture
            .run(&["get", "po", "-n", "print", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        pods[0],
        [
            "NAME",
            "READY",
            "STATUS",
            "RESTARTS",
            "AGE",
            "IP",
            "NODE",
            "NOMINATED NODE",
            "READINESS GATES"
        ]
    );
    assert_eq!(
        pods[3][5..],
        ["10.244.1.7", "n1", "n2", "<none>"],
        "{pods:?}"
    );
    assert_eq!(
        pods[4][5..],
        ["<none>", "<none>", "<none>", "0/1"],
        "{pods:?}"
    );
    let svc = tables(
        &fixture
            .run(&["get", "svc", "lb", "-n", "print", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        svc[0],
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE",
            "SELECTOR"
        ]
    );
    assert_eq!(svc[1][6], "app=web,tier=a");
    let nodes = tables(&fixture.run(&["get", "no", "n1", "-o", "wide"]).await?).remove(0);
    assert_eq!(
        nodes[0],
        [
            "NAME",
            "STATUS",
            "ROLES",
            "AGE",
            "VERSION",
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME"
        ]
    );
    assert_eq!(
        nodes[1][5..],
        [
            "172.18.0.2",
            "198.51.100.2",
            "Debian GNU/Linux 13",
            "6.12.0 (amd64)",
            "containerd://2.0.0"
        ]
    );
    Ok(())
}

/// The Table itself: column types, formats, descriptions and priorities as registered, integer
/// cells where the printers put integers, and a Succeeded pod's row condition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_carry_the_printers_column_definitions() -> TestResult {
    let fixture = fixture().await?;
    let client = fixture.server.client();
    let get = |path: &'static str| {
        let client = client.clone();
        async move {
            let request = http::Request::get(path)
                .header(
                    http::header::ACCEPT,
                    "application/json;as=Table;v=v1;g=meta.k8s.io",
                )
                .body(Vec::new())?;
            let response = client.send(request.map(Into::into)).await?;
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await?
                .to_bytes();
            Ok::<Value, Box<dyn std::error::Error>>(serde_json::from_slice(&body)?)
        }
    };
    let deploy = get("/apis/apps/v1/namespaces/print/deployments").await?;
    let columns = &deploy["columnDefinitions"];
    assert_eq!(
        columns[0],
        json!({"name": "Name", "type": "string", "format": "name", "priority": 0,
            "description": "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"})
    );
    assert_eq!(
        columns[2],
        json!({"name": "Up-to-date", "type": "string", "format": "", "priority": 0,
            "description": "Total number of non-terminating pods targeted by this deployment that have the desired template spec."})
    );
    assert_eq!(
        columns[5],
        json!({"name": "Containers", "type": "string", "format": "", "priority": 1,
            "description": "Names of each container in the template."})
    );
    assert_eq!(deploy["rows"][0]["cells"][2], json!(3));
    assert_eq!(
        deploy["rows"][0]["object"]["kind"],
        json!("PartialObjectMetadata")
    );
    let rs = get("/apis/apps/v1/namespaces/print/replicasets").await?;
    assert_eq!(rs["columnDefinitions"][1]["type"], json!("integer"));
    assert_eq!(rs["rows"][0]["cells"][1], json!(3));
    let pods = get("/api/v1/namespaces/print/pods").await?;
    assert_eq!(
        pods["columnDefinitions"][1],
        json!({"name": "Ready", "type": "string", "format": "", "priority": 0,
            "description": "The aggregate readiness state of this pod for accepting traffic."})
    );
    let done = pods["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["cells"][0] == "done"))
        .ok_or("no done row")?;
    assert_eq!(
        done["conditions"],
        json!([{"type": "Completed", "status": "True", "reason": "Succeeded",
            "message": "The pod has completed successfully."}])
    );
    Ok(())
}

fn more_objects() -> Vec<Value> {
    let labels = json!({"app": "db"});
    let template = json!({"metadata": {"labels": labels}, "spec": {
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "containers": [{"name": "pg", "image": "postgres:17"}]}});
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "more"}}),
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "more"},
            "spec": {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": labels},
                "template": template},
            "status": {"replicas": 3, "readyReplicas": 1}}),
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "more"},
            "spec": {"selector": {"matchLabels": labels}, "template": template},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3,
                "numberReady": 2, "updatedNumberScheduled": 1, "numberAvailable": 2,
                "numberMisscheduled": 0}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "conf", "namespace": "more"},
            "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
        json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "token", "namespace": "more"},
            "type": "kubernetes.io/basic-auth", "data": {"username": "YQ==", "password": "Yg=="}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "robot", "namespace": "more"}}),
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "leader", "namespace": "more"},
            "spec": {"holderIdentity": "db-0"}}),
        json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "db.1", "namespace": "more"},
            "involvedObject": {"kind": "Pod", "name": "db-0", "namespace": "more",
                "fieldPath": "spec.containers{pg}"},
            "reason": "BackOff", "message": "Back-off restarting failed container ",
            "type": "Warning", "count": 5, "source": {"component": "kubelet", "host": "n1"},
            "firstTimestamp": "2020-01-01T00:00:00Z", "lastTimestamp": "2020-01-02T00:00:00Z"}),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_prints_workload_config_and_event_columns() -> TestResult {
    let fixture = Fixture::start().await?;
    for object in more_objects() {
        fixture.server.create_object(object)?;
    }
    let out = fixture
        .run(&[
            "get",
            "sts,ds,cm,secret,sa,lease",
            "-n",
            "more",
            "-o",
            "wide",
        ])
        .await?;
    let got = tables(&out);
    assert_eq!(got.len(), 6, "{out}");
    assert_eq!(
        got[0][0],
        ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
        "{out}"
    );
    assert_eq!(
        without_age(got[0][1].clone(), 2),
        ["statefulset.apps/db", "1/3", "pg", "postgres:17"]
    );
    assert_eq!(
        got[1][0],
        [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert_eq!(
        without_age(got[1][1].clone(), 7),
        [
            "daemonset.apps/agent",
            "3",
            "3",
            "2",
            "1",
            "2",
            "kubernetes.io/os=linux",
            "pg",
            "postgres:17",
            "app=db"
        ]
    );
    assert_eq!(got[2][0], ["NAME", "DATA", "AGE"]);
    let conf = got[2]
        .iter()
        .find(|r| r[0] == "configmap/conf")
        .ok_or("no conf")?;
    assert_eq!(without_age(conf.clone(), 2), ["configmap/conf", "3"]);
    assert_eq!(got[3][0], ["NAME", "TYPE", "DATA", "AGE"]);
    assert_eq!(
        without_age(got[3][1].clone(), 3),
        ["secret/token", "kubernetes.io/basic-auth", "2"]
    );
    assert_eq!(got[4][0], ["NAME", "AGE"]);
    assert_eq!(got[5][0], ["NAME", "HOLDER", "AGE"]);
    assert_eq!(
        without_age(got[5][1].clone(), 2),
        ["lease.coordination.k8s.io/leader", "db-0"]
    );

    let namespaces = tables(&fixture.run(&["get", "ns", "more"]).await?).remove(0);
    assert_eq!(namespaces[0], ["NAME", "STATUS", "AGE"]);
    assert_eq!(without_age(namespaces[1].clone(), 2), ["more", "Active"]);

    let events = tables(&fixture.run(&["get", "events", "-n", "more"]).await?).remove(0);
    assert_eq!(
        events[0],
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    );
    assert!(is_age(&events[1][0]), "{events:?}");
    assert_eq!(
        events[1][1..],
        [
            "Warning",
            "BackOff",
            "pod/db-0",
            "Back-off restarting failed container"
        ]
    );
    let wide = tables(
        &fixture
            .run(&["get", "events", "-n", "more", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        wide[0],
        [
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST SEEN",
            "COUNT",
            "NAME"
        ]
    );
    assert_eq!(
        wide[1][4..7],
        [
            "spec.containers{pg}",
            "kubelet, n1",
            "Back-off restarting failed container"
        ]
    );
    assert_eq!(wide[1][8..], ["5", "db.1"]);
    Ok(())
}

/// CRDs print with apiextensions-apiserver's convertor
/// (`pkg/registry/customresourcedefinition/tableconvertor/tableconvertor.go:46`), custom
/// resources with their served version's `additionalPrinterColumns`
/// (`pkg/registry/customresource/tableconvertor/tableconvertor.go`) or, without any, the
/// default Age (`pkg/apiserver/helpers.go:86`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_prints_crd_and_printer_columns() -> TestResult {
    let fixture = Fixture::start().await?;
    let crd = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd, gg]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Colour, type: string, jsonPath: .spec.colour, description: The colour}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Owner, type: string, jsonPath: .spec.owner, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"#;
    let file = fixture.write("crd.yaml", crd)?;
    fixture
        .run(&["apply", "-f", super::path_arg(&file)?])
        .await?;
    let crds = tables(
        &fixture
            .run(&["get", "crd", "gadgets.example.com", "-o", "wide"])
            .await?,
    )
    .remove(0);
    assert_eq!(
        crds[0],
        [
            "NAME",
            "SCOPE",
            "VERSIONS",
            "CREATED AT",
            "GROUP",
            "KIND",
            "SHORTNAMES",
            "ESTABLISHED"
        ]
    );
    assert_eq!(
        crds[1][..3],
        ["gadgets.example.com", "Namespaced", "v1(storage),v1beta1"]
    );
    assert!(
        crds[1][3].ends_with('Z') && crds[1][3].len() == 20,
        "{crds:?}"
    );
    assert_eq!(crds[1][4..], ["example.com", "Gadget", "gd,gg", "true"]);

    fixture
        .server
        .create_object(json!({"apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g1", "namespace": "default"},
        "spec": {"size": 3, "colour": "red", "owner": "ops"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}}))?;
    let gadgets = tables(&fixture.run(&["get", "gadgets"]).await?).remove(0);
    assert_eq!(gadgets[0], ["NAME", "SIZE", "COLOUR", "READY", "AGE"]);
    assert_eq!(
        without_age(gadgets[1].clone(), 4),
        ["g1", "3", "red", "True"]
    );
    let wide = tables(&fixture.run(&["get", "gadgets", "-o", "wide"]).await?).remove(0);
    assert_eq!(wide[0], ["NAME", "SIZE", "COLOUR", "READY", "OWNER", "AGE"]);
    assert_eq!(wide[1][4], "ops");
    // v1beta1 declares no columns: the default Age.
    let beta = tables(&fixture.run(&["get", "gadgets.v1beta1.example.com"]).await?).remove(0);
    assert_eq!(beta[0], ["NAME", "AGE"]);
    assert_eq!(without_age(beta[1].clone(), 1), ["g1"]);

    let client = fixture.server.client();
    let request = http::Request::get("/apis/example.com/v1/namespaces/default/gadgets")
        .header(
            http::header::ACCEPT,
            "application/json;as=Table;v=v1;g=meta.k8s.io",
        )
        .body(Vec::new())?;
    let response = client.send(request.map(Into::into)).await?;
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    let table: Value = serde_json::from_slice(&body)?;
    assert_eq!(
        table["columnDefinitions"][1],
        json!({"name": "Size", "type": "integer", "format": "", "priority": 0,
            "description": "Custom resource definition column (in JSONPath format): .spec.size"})
    );
    assert_eq!(
        table["columnDefinitions"][2]["description"],
        json!("The colour")
    );
    assert_eq!(table["rows"][0]["cells"][1], json!(3));
    Ok(())
}

/// `includeObject` (apiserver `pkg/endpoints/handlers/response.go:389`): `Object` puts the
/// object in each row (kubectl's `--sort-by` asks for it), `None` nothing, anything else 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_include_the_object_asked_for() -> TestResult {
    let fixture = fixture().await?;
    let client = fixture.server.client();
    let get = |path: String| {
        let client = client.clone();
        async move {
            let request = http::Request::get(path)
                .header(
                    http::header::ACCEPT,
                    "application/json;as=Table;v=v1;g=meta.k8s.io",
                )
                .body(Vec::new())?;
            let response = client.send(request.map(Into::into)).await?;
            let code = response.status().as_u16();
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await?
                .to_bytes();
            Ok::<(u16, Value), Box<dyn std::error::Error>>((code, serde_json::from_slice(&body)?))
        }
    };
    let base = "/api/v1/namespaces/print/pods";
    let (_, object) = get(format!("{base}?includeObject=Object")).await?;
    assert_eq!(object["rows"][0]["object"]["kind"], json!("Pod"));
    assert!(object["rows"][0]["object"]["spec"].is_object(), "{object}");
    let (_, none) = get(format!("{base}/done?includeObject=None")).await?;
    assert_eq!(none["rows"][0]["object"], Value::Null);
    assert_eq!(none["rows"][0]["cells"][0], json!("done"));
    let (code, bad) = get(format!("{base}?includeObject=Everything")).await?;
    assert_eq!(code, 400, "{bad}");

    let sorted = tables(
        &fixture
            .run(&["get", "po", "-n", "print", "--sort-by=.status.phase"])
            .await?,
    )
    .remove(0);
    let names: Vec<&str> = sorted[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names.first(), Some(&"starting"), "{sorted:?}");
    assert_eq!(names.last(), Some(&"done"), "{sorted:?}");
    Ok(())
}
