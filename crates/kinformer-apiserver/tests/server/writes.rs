//! Writes against the embedded API server as a foreign client sends them: `dryRun=All` on every
//! write (create, update, each patch type, apply, delete, delete-collection, scale) stores
//! nothing and leaves the resourceVersion alone; query parameters decode as kube-apiserver
//! decodes them; create, update and patch options are validated as kube-apiserver validates
//! them. Each test names the kube-apiserver source its expectation comes from.

use std::time::Duration;

use crate::support::{JSON, MERGE, TestResult, call, seeded};
use kinformer_apiserver::{EmbeddedServer, Seed};
use serde_json::{Value, json};

const CM: &str = "/api/v1/namespaces/default/configmaps/cm";
const CMS: &str = "/api/v1/namespaces/default/configmaps";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

fn configmap(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "default", "labels": {"app": "x"}},
           "data": {"a": "1"}})
}

/// A server with the builtin seed and ConfigMap `cm`; the stored `cm`.
async fn with_configmap() -> Result<(EmbeddedServer, Value), Box<dyn std::error::Error>> {
    let server = seeded(vec![Seed::Builtin]).await?;
    let (code, stored) = call(&server, "POST", CMS, Some((JSON, configmap("cm")))).await?;
    assert_eq!(code, 201, "{stored}");
    Ok((server, stored))
}

/// Asserts that `path` still holds `stored` and that the server's resourceVersion is `rv`.
async fn unchanged(server: &EmbeddedServer, path: &str, stored: &Value, rv: u64) -> TestResult {
    let (code, now) = call(server, "GET", path, None).await?;
    assert_eq!(code, 200, "{now}");
    assert_eq!(&now, stored, "the stored object changed");
    assert_eq!(server.resource_version(), rv, "the resourceVersion moved");
    Ok(())
}

/// kube-apiserver's dry runs go through the whole write but never reach the storage
/// (`apiserver/pkg/registry/generic/registry/dryrun.go`, `DryRunnableStorage`): the answer is
/// the object as it would be stored, at the resourceVersion it has now
/// (`GuaranteedUpdate` with dryRun copies the updated object out).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_updates_and_patches_store_nothing() -> TestResult {
    let (server, stored) = with_configmap().await?;
    let rv = server.resource_version();
    let stored_rv = stored["metadata"]["resourceVersion"].clone();
    let mut replaced = stored.clone();
    replaced["data"]["a"] = json!("2");
    let patches: Vec<(&str, &str, Value)> = vec![
        ("PUT", JSON, replaced),
        ("PATCH", MERGE, json!({"data": {"a": "2"}})),
        ("PATCH", STRATEGIC, json!({"data": {"a": "2"}})),
        (
            "PATCH",
            JSON_PATCH,
            json!([{"op": "replace", "path": "/data/a", "value": "2"}]),
        ),
    ];
    for (method, content_type, body) in patches {
        let path = format!("{CM}?dryRun=All");
        let (code, answer) = call(&server, method, &path, Some((content_type, body))).await?;
        assert_eq!(code, 200, "{method} {content_type}: {answer}");
        assert_eq!(
            answer["data"]["a"], "2",
            "{content_type}: the would-be object"
        );
        assert_eq!(answer["metadata"]["resourceVersion"], stored_rv);
        unchanged(&server, CM, &stored, rv).await?;
    }
    let apply = json!({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "cm"}, "data": {"a": "3"}});
    // `data.a` is the creator's: forced, or a cluster answers 409.
    let path = format!("{CM}?dryRun=All&fieldManager=test&force=true");
    let (code, answer) = call(&server, "PATCH", &path, Some((APPLY, apply))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["data"]["a"], "3");
    unchanged(&server, CM, &stored, rv).await?;
    // An apply that would create: 201 and nothing stored (no resourceVersion on the answer,
    // as a dry-run create: `DryRunnableStorage.Create` copies the object out unstored).
    let absent = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}});
    let path = format!("{CMS}/new?dryRun=All&fieldManager=test");
    let (code, answer) = call(&server, "PATCH", &path, Some((APPLY, absent))).await?;
    assert_eq!(code, 201, "{answer}");
    assert!(
        answer["metadata"].get("resourceVersion").is_none(),
        "{answer}"
    );
    assert_eq!(
        call(&server, "GET", &format!("{CMS}/new"), None).await?.0,
        404
    );
    assert_eq!(server.resource_version(), rv);
    server.shutdown().await;
    Ok(())
}

/// An update that changes nothing is not written: kube-apiserver's storage compares the new
/// bytes with the stored ones and, equal, skips the write (`apiserver/pkg/storage/etcd3/
/// store.go` `GuaranteedUpdate`: `!origState.stale && bytes.Equal(data, origState.data)`), so
/// the resourceVersion stays and no watch event is sent; the field manager leaves an unchanged
/// manager's time alone (`managedfieldsupdater.go`). `kubectl patch` then says `(no change)`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_that_changes_nothing_is_not_written() -> TestResult {
    let (server, stored) = with_configmap().await?;
    let rv = server.resource_version();
    let same: Vec<(&str, &str, Value)> = vec![
        ("PUT", JSON, stored.clone()),
        (
            "PATCH",
            MERGE,
            json!({"metadata": {"labels": {"app": "x"}}}),
        ),
        ("PATCH", STRATEGIC, json!({"data": {"a": "1"}})),
        (
            "PATCH",
            JSON_PATCH,
            json!([{"op": "replace", "path": "/data/a", "value": "1"}]),
        ),
    ];
    for (method, content_type, body) in same {
        let (code, answer) = call(&server, method, CM, Some((content_type, body))).await?;
        assert_eq!(code, 200, "{method} {content_type}: {answer}");
        assert_eq!(
            answer, stored,
            "{method} {content_type}: the stored object, unchanged"
        );
        unchanged(&server, CM, &stored, rv).await?;
    }
    // A change is written, once.
    let body = json!({"data": {"a": "2"}});
    let (code, answer) = call(&server, "PATCH", CM, Some((MERGE, body))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(server.resource_version(), rv + 1);
    server.shutdown().await;
    Ok(())
}

/// `kubectl delete --dry-run=server` puts `dryRun: [All]` in the DeleteOptions body
/// (kubectl's `delete.go`); the query parameter works too (`handlers/delete.go` decodes both).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_deletes_delete_nothing() -> TestResult {
    let (server, stored) = with_configmap().await?;
    let rv = server.resource_version();
    let (code, answer) = call(&server, "DELETE", &format!("{CM}?dryRun=All"), None).await?;
    assert_eq!(code, 200, "{answer}");
    // A ConfigMap's storage answers a Success Status naming it, dry run or not.
    assert_eq!(answer["kind"], "Status", "{answer}");
    assert_eq!(answer["details"]["name"], "cm");
    unchanged(&server, CM, &stored, rv).await?;
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]});
    let (code, answer) = call(&server, "DELETE", CM, Some((JSON, options.clone()))).await?;
    assert_eq!(code, 200, "{answer}");
    unchanged(&server, CM, &stored, rv).await?;
    let (code, answer) = call(&server, "DELETE", CMS, Some((JSON, options))).await?;
    assert_eq!(code, 200, "{answer}");
    let names: Vec<&Value> = answer["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| &item["metadata"]["name"])
        .collect();
    assert!(names.contains(&&json!("cm")), "{answer}");
    unchanged(&server, CM, &stored, rv).await?;
    // A namespace's dry-run delete keeps the namespace and everything in it.
    let ns = "/api/v1/namespaces/default";
    let (code, answer) = call(&server, "DELETE", &format!("{ns}?dryRun=All"), None).await?;
    assert_eq!(code, 200, "{answer}");
    unchanged(&server, CM, &stored, rv).await?;
    server.shutdown().await;
    Ok(())
}

/// `kubectl scale --dry-run=server` patches the scale subresource with `dryRun=All`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_scale_and_create_store_nothing() -> TestResult {
    let (server, _) = with_configmap().await?;
    let deployment = "/apis/apps/v1/namespaces/default/deployments/web";
    let (_, stored) = call(&server, "GET", deployment, None).await?;
    let rv = server.resource_version();
    let scale = format!("{deployment}/scale?dryRun=All");
    let body = json!({"spec": {"replicas": 7}});
    let (code, answer) = call(&server, "PATCH", &scale, Some((MERGE, body))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["spec"]["replicas"], 7);
    unchanged(&server, deployment, &stored, rv).await?;
    let path = format!("{CMS}?dryRun=All");
    let (code, answer) = call(&server, "POST", &path, Some((JSON, configmap("other")))).await?;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(
        call(&server, "GET", &format!("{CMS}/other"), None).await?.0,
        404
    );
    assert_eq!(server.resource_version(), rv);
    server.shutdown().await;
    Ok(())
}

/// `ValidateDryRun` (`apimachinery/pkg/apis/meta/v1/validation/validation.go`) refuses any
/// value but `All`; the handlers answer `422 Invalid` naming the options kind
/// (`handlers/update.go`: `errors.NewInvalid(... Kind: "UpdateOptions"}, "", errs)`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsupported_dry_run_value_is_invalid() -> TestResult {
    let (server, stored) = with_configmap().await?;
    let path = format!("{CM}?dryRun=Some");
    let (code, answer) = call(&server, "PUT", &path, Some((JSON, stored.clone()))).await?;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        answer["message"],
        "UpdateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\""
    );
    let path = format!("{CMS}?dryRun=Some");
    let (code, answer) = call(&server, "POST", &path, Some((JSON, configmap("x")))).await?;
    assert_eq!(code, 422, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("CreateOptions.meta.k8s.io"))
    );
    server.shutdown().await;
    Ok(())
}

/// `ValidatePatchOptions` (`apimachinery/pkg/apis/meta/v1/validation/validation.go`): `force`
/// is forbidden on a non-apply patch (even `force=false`: it is a `*bool`), an apply needs a
/// `fieldManager`; `handlers/patch.go` answers `422 Invalid` for `PatchOptions`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_options_are_validated() -> TestResult {
    let (server, _) = with_configmap().await?;
    for force in ["true", "false"] {
        let path = format!("{CM}?force={force}");
        let body = json!({"data": {"a": "2"}});
        let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, body))).await?;
        assert_eq!(code, 422, "{answer}");
        assert_eq!(
            answer["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"
        );
    }
    let apply = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}});
    let (code, answer) = call(&server, "PATCH", CM, Some((APPLY, apply.clone()))).await?;
    assert_eq!(code, 422, "{answer}");
    assert_eq!(
        answer["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let path = format!("{CM}?fieldManager=test&force=true");
    let (code, answer) = call(&server, "PATCH", &path, Some((APPLY, apply))).await?;
    assert_eq!(code, 200, "{answer}");
    server.shutdown().await;
    Ok(())
}

/// A create carrying a resourceVersion fails in the etcd3 store's `Create` with
/// `storage.ErrResourceVersionSetOnCreate` (`apiserver/pkg/storage/errors.go`), a plain error
/// that `responsewriters.ErrorToAPIStatus` answers `500` with no reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_with_a_resource_version_is_refused() -> TestResult {
    let (server, _) = with_configmap().await?;
    let mut object = configmap("versioned");
    object["metadata"]["resourceVersion"] = json!("12");
    let (code, answer) = call(&server, "POST", CMS, Some((JSON, object))).await?;
    assert_eq!(code, 500, "{answer}");
    assert_eq!(
        answer["message"],
        "resourceVersion should not be set on objects to be created"
    );
    assert!(answer.get("reason").is_none(), "{answer}");
    assert_eq!(
        call(&server, "GET", &format!("{CMS}/versioned"), None)
            .await?
            .0,
        404
    );
    server.shutdown().await;
    Ok(())
}

/// The etcd3 store refuses only a resourceVersion that parses: its check is
/// `versioner.ObjectResourceVersion(obj); err == nil && version != 0`, where the versioner parses
/// with Go's `strconv.ParseUint(rv, 10, 64)` (digits only, no sign). "0", "+5", "v7" and a
/// resourceVersion of control characters are dropped by `PrepareObjectForStorage` and the
/// object is created with the store's own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_with_a_resource_version_that_does_not_parse_is_accepted() -> TestResult {
    let (server, _) = with_configmap().await?;
    for (i, rv) in ["0", "+5", "v7", "\n\u{3}app", "00", " 5"]
        .iter()
        .enumerate()
    {
        let mut object = configmap(&format!("unparsed-{i}"));
        object["metadata"]["resourceVersion"] = json!(rv);
        let (code, answer) = call(&server, "POST", CMS, Some((JSON, object))).await?;
        assert_eq!(code, 201, "{rv:?}: {answer}");
        let stored = answer["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default();
        assert!(
            !stored.is_empty() && stored.bytes().all(|b| b.is_ascii_digit()) && stored != *rv,
            "{rv:?} stored as {stored:?}"
        );
    }
    let mut object = configmap("leading-zeros");
    object["metadata"]["resourceVersion"] = json!("007");
    let (code, answer) = call(&server, "POST", CMS, Some((JSON, object))).await?;
    assert_eq!(code, 500, "\"007\" parses as 7: {answer}");
    server.shutdown().await;
    Ok(())
}

/// A PUT's `metadata.uid` is a precondition: `rest.DefaultUpdatedObjectInfo.Preconditions`
/// passes it to the storage, whose `Preconditions.Check` (`apiserver/pkg/storage/interfaces.go`)
/// fails with "Precondition failed: UID in precondition: …", answered `409 Conflict`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_put_with_another_objects_uid_is_a_conflict() -> TestResult {
    let (server, stored) = with_configmap().await?;
    let rv = server.resource_version();
    let uid = stored["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let other = "6d1e4a3c-0000-4000-a000-000000000000";
    // Both the canonical body (the spliced fast path) and a reordered one (the general path).
    let mut foreign = stored.clone();
    foreign["metadata"]["uid"] = json!(other);
    for body in [
        foreign.clone(),
        json!({"data": foreign["data"], "metadata": foreign["metadata"], "kind": "ConfigMap", "apiVersion": "v1"}),
    ] {
        let (code, answer) = call(&server, "PUT", CM, Some((JSON, body))).await?;
        assert_eq!(code, 409, "{answer}");
        assert_eq!(
            answer["message"],
            format!(
                "Operation cannot be fulfilled on configmaps \"cm\": Precondition failed: UID in precondition: {other}, UID in object meta: {uid}"
            )
        );
        unchanged(&server, CM, &stored, rv).await?;
    }
    let (code, answer) = call(&server, "PUT", CM, Some((JSON, stored.clone()))).await?;
    assert_eq!(code, 200, "its own uid is fine: {answer}");
    server.shutdown().await;
    Ok(())
}

/// Query booleans decode as `Convert_Slice_string_To_bool`
/// (`apimachinery/pkg/runtime/conversion.go`): absent, `0` and `false` in any case are false,
/// anything else true (kubernetes_asyncio sends `watch=True`); integers as
/// `Convert_Slice_string_To_int64` (`strconv.ParseInt`), a failure being `400 BadRequest`
/// (`handlers/get.go`: `DecodeParameters` errors → `errors.NewBadRequest`); unknown
/// parameters are ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_parameters_decode_as_kube_apiserver_decodes_them() -> TestResult {
    let (server, _) = with_configmap().await?;
    for watch in ["True", "yes", "TRUE", "1"] {
        let first = first_watch_line(
            &server,
            &format!("{CMS}?watch={watch}&resourceVersion=0&timeoutSeconds=5"),
        )
        .await?;
        assert_eq!(first["type"], "ADDED", "watch={watch}: {first}");
    }
    for watch in ["false", "False", "0"] {
        let (code, list) = call(&server, "GET", &format!("{CMS}?watch={watch}"), None).await?;
        assert_eq!(code, 200, "{list}");
        assert_eq!(list["kind"], "ConfigMapList", "watch={watch}");
    }
    let (code, list) = call(&server, "GET", &format!("{CMS}?pretty=true&foo=bar"), None).await?;
    assert_eq!((code, &list["kind"]), (200, &json!("ConfigMapList")));
    for bad in ["limit=ten", "limit=1.5", "watch=1&timeoutSeconds=soon"] {
        let (code, answer) = call(&server, "GET", &format!("{CMS}?{bad}"), None).await?;
        assert_eq!(code, 400, "{bad}: {answer}");
        assert_eq!(answer["reason"], "BadRequest");
    }
    let path = format!("{CM}?gracePeriodSeconds=soon");
    let (code, answer) = call(&server, "DELETE", &path, None).await?;
    assert_eq!(code, 400, "{answer}");
    assert_eq!(
        call(&server, "GET", CM, None).await?.0,
        200,
        "nothing deleted"
    );
    server.shutdown().await;
    Ok(())
}

/// The first event line of a watch at `path`.
async fn first_watch_line(
    server: &EmbeddedServer,
    path: &str,
) -> Result<Value, Box<dyn std::error::Error>> {
    use http_body_util::BodyExt;
    let request = http::Request::get(path).body(Vec::new())?;
    let response = server.client().send(request.map(Into::into)).await?;
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    let read = async {
        while !bytes.contains(&b'\n') {
            match body.frame().await {
                Some(Ok(frame)) => {
                    bytes.extend_from_slice(frame.data_ref().map_or(&[][..], |d| &d[..]))
                }
                _ => break,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read).await?;
    let line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    Ok(serde_json::from_slice(line)?)
}

/// A custom resource has no Go struct tags to merge by: the apiextensions-apiserver accepts
/// JSON patch, merge patch and apply only and answers a strategic merge patch `415`
/// (`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`, its patch types;
/// `negotiation.NewUnsupportedMediaTypeError`); a merge patch of the same body works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strategic_merge_patch_of_a_custom_resource_is_unsupported() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert_eq!(call(&server, "POST", crds, Some((JSON, crd))).await?.0, 201);
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                        "metadata": {"name": "w"}, "spec": {"containers": [{"name": "a"}]}});
    assert_eq!(
        call(&server, "POST", widgets, Some((JSON, widget)))
            .await?
            .0,
        201
    );
    let path = format!("{widgets}/w");
    let patch = json!({"spec": {"size": 2}});
    let (code, answer) = call(&server, "PATCH", &path, Some((STRATEGIC, patch.clone()))).await?;
    assert_eq!(code, 415, "{answer}");
    assert_eq!(answer["reason"], "UnsupportedMediaType");
    assert_eq!(
        answer["message"],
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, patch))).await?;
    assert_eq!(code, 200, "{answer}");
    server.shutdown().await;
    Ok(())
}

/// kube-apiserver keeps at most ten managedFields entries from updates: past that, the oldest
/// are merged per apiVersion into `ancient-changes`
/// (apimachinery `pkg/util/managedfields/internal/capmanagers.go`, `capmanagers_test.go`).
/// Twelve managers each patch their own key after the creator: thirteen entries from updates,
/// so the oldest four (the creator's and the first three patchers') become `ancient-changes`,
/// owning all their keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_entries_past_ten_become_ancient_changes() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let create = format!("{CMS}?fieldManager=creator");
    let (code, stored) = call(&server, "POST", &create, Some((JSON, configmap("cm")))).await?;
    assert_eq!(code, 201, "{stored}");
    for i in 0..12 {
        let path = format!("{CM}?fieldManager=manager-{i:02}");
        let patch = json!({"data": {format!("k{i:02}"): "v"}});
        let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, patch))).await?;
        assert_eq!(code, 200, "{answer}");
    }
    let (code, stored) = call(&server, "GET", CM, None).await?;
    assert_eq!(code, 200, "{stored}");
    let entries = stored["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let managers: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["manager"].as_str())
        .collect();
    let expected: Vec<String> = ["ancient-changes".to_owned()]
        .into_iter()
        .chain((3..12).map(|i| format!("manager-{i:02}")))
        .collect();
    assert_eq!(managers, expected);
    assert_eq!(
        entries[0]["fieldsV1"],
        json!({"f:data": {".": {}, "f:a": {}, "f:k00": {}, "f:k01": {}, "f:k02": {}},
               "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
    );
    Ok(())
}

/// kube-apiserver lets `kubectl`'s server-side apply take over the fields a client-side apply
/// set, as long as the live object still holds what the last-applied annotation says
/// (apimachinery `pkg/util/managedfields/internal/lastappliedmanager.go`): no `409` for them,
/// the applier owns them after. Another manager name, or a field changed since by someone
/// else, still conflicts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_server_side_apply_takes_over_client_side_applied_fields() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let last_applied = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "default"}, "data": {"a": "1", "b": "1"}});
    let mut created = configmap("cm");
    created["data"] = json!({"a": "1", "b": "1"});
    created["metadata"]["annotations"] = json!({
        "kubectl.kubernetes.io/last-applied-configuration": last_applied.to_string()});
    let create = format!("{CMS}?fieldManager=kubectl-client-side-apply");
    let (code, answer) = call(&server, "POST", &create, Some((JSON, created))).await?;
    assert_eq!(code, 201, "{answer}");
    let edit = json!({"data": {"b": "edited"}});
    let path = format!("{CM}?fieldManager=kubectl-edit");
    let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, edit))).await?;
    assert_eq!(code, 200, "{answer}");
    let apply = |b: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "cm", "namespace": "default"}, "data": {"a": "2", "b": b}})
    };
    let as_other = format!("{CM}?fieldManager=someone");
    let (code, answer) = call(&server, "PATCH", &as_other, Some((APPLY, apply("edited")))).await?;
    assert_eq!(code, 409, "only kubectl takes over: {answer}");
    let as_kubectl = format!("{CM}?fieldManager=kubectl");
    let (code, answer) = call(&server, "PATCH", &as_kubectl, Some((APPLY, apply("2")))).await?;
    assert_eq!(code, 409, "b was edited since: {answer}");
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("kubectl-edit") && !message.contains("client-side"),
        "{message}"
    );
    let (code, answer) = call(
        &server,
        "PATCH",
        &as_kubectl,
        Some((APPLY, apply("edited"))),
    )
    .await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["data"], json!({"a": "2", "b": "edited"}));
    let owners: Vec<(String, Value)> = answer["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["manager"].as_str().unwrap_or_default().to_owned(),
                e["fieldsV1"]["f:data"].clone(),
            )
        })
        .collect();
    let kubectl = owners
        .iter()
        .find(|(m, _)| m == "kubectl")
        .map(|(_, f)| f.clone());
    assert_eq!(kubectl, Some(json!({"f:a": {}, "f:b": {}})), "{owners:?}");
    let csa = owners
        .iter()
        .find(|(m, _)| m == "kubectl-client-side-apply");
    assert!(
        csa.is_none_or(|(_, f)| f.get("f:a").is_none()),
        "the client-side applier lost a: {owners:?}"
    );
    Ok(())
}

/// A resource with a `status` subresource keeps its stored status on writes of the object
/// itself, whatever they send; only `/status` changes it (the strategies' `PrepareForUpdate`,
/// e.g. `registry/core/pod/strategy.go`: `newPod.Status = oldPod.Status`); a create starts
/// from the type's empty status (`PrepareForCreate`: a pod's is its phase and QoS class). A resource without
/// one has no `/status` (404) and its writes change everything. Custom resources follow their
/// CRD's `subresources.status`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_status_subresource_writes_status() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let pods = "/api/v1/namespaces/default/pods";
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1"}});
    let (code, created) = call(&server, "POST", pods, Some((JSON, pod))).await?;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["status"],
        json!({"phase": "Pending", "qosClass": "BestEffort"}),
        "a create may not set a pod's status"
    );
    let path = format!("{pods}/p");
    let mut sent = created.clone();
    sent["status"]["phase"] = json!("Failed");
    sent["metadata"]["labels"] = json!({"put": "yes"});
    let (code, answer) = call(&server, "PUT", &path, Some((JSON, sent))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer["metadata"]["labels"]["put"], "yes");
    assert_eq!(
        answer["status"]["phase"], "Pending",
        "a PUT of the pod keeps its status"
    );
    let patch = json!({"status": {"phase": "Failed"}});
    let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, patch.clone()))).await?;
    assert_eq!((code, &answer["status"]["phase"]), (200, &json!("Pending")));
    let status = format!("{path}/status");
    let (code, answer) = call(&server, "PATCH", &status, Some((MERGE, patch))).await?;
    assert_eq!(
        (code, &answer["status"]["phase"]),
        (200, &json!("Failed")),
        "{answer}"
    );
    let (code, _) = call(&server, "GET", &format!("{CM}/status"), None).await?;
    assert_eq!(code, 404, "configmaps have no status subresource");

    let crd = |name: &str, plural: &str, kind: &str, subresources: Value| {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": plural, "kind": kind},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": subresources,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}}}]}})
    };
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    for (name, plural, kind, subresources) in [
        (
            "widgets.example.com",
            "widgets",
            "Widget",
            json!({"status": {}}),
        ),
        ("gadgets.example.com", "gadgets", "Gadget", json!({})),
    ] {
        let body = crd(name, plural, kind, subresources);
        let (code, answer) = call(&server, "POST", crds, Some((JSON, body))).await?;
        assert_eq!(code, 201, "{answer}");
    }
    for (plural, kind, keeps) in [("widgets", "Widget", true), ("gadgets", "Gadget", false)] {
        let list = format!("/apis/example.com/v1/namespaces/default/{plural}");
        let object = json!({"apiVersion": "example.com/v1", "kind": kind,
            "metadata": {"name": "x"}, "spec": {"size": 1}, "status": {"ready": false}});
        let (code, answer) = call(&server, "POST", &list, Some((JSON, object))).await?;
        assert_eq!(code, 201, "{answer}");
        let patch = json!({"spec": {"size": 2}, "status": {"ready": true}});
        let path = format!("{list}/x");
        let (code, answer) = call(&server, "PATCH", &path, Some((MERGE, patch))).await?;
        assert_eq!(code, 200, "{answer}");
        assert_eq!(answer["spec"]["size"], 2);
        // With a status subresource the create dropped the status and the patch kept none.
        let expected = if keeps { Value::Null } else { json!(true) };
        assert_eq!(answer["status"]["ready"], expected, "{kind}: {answer}");
        let (code, _) = call(&server, "GET", &format!("{path}/status"), None).await?;
        assert_eq!(code == 200, keeps, "{kind}'s /status");
    }
    Ok(())
}

/// Server-side apply of a custom resource merges its lists as the CRD's structural schema types
/// them (kube-apiserver builds the field manager's type converter from the CRD's
/// `openAPIV3Schema`, `apiextensions-apiserver/pkg/apiserver/customresource_handler.go`;
/// `x-kubernetes-list-type`/`-list-map-keys`/`-map-type` as structured-merge-diff reads them,
/// untyped lists atomic): two controllers apply their own condition to a `listType=map`
/// `status.conditions` side by side, a `set` takes both managers' values, and an untyped list
/// stays atomic (a conflict).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_side_apply_of_a_custom_resource_follows_its_schema_s_list_types() -> TestResult {
    let server = seeded(vec![Seed::Builtin]).await?;
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let mut tags = strings.clone();
    tags["x-kubernetes-list-type"] = json!("set");
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"tags": tags, "args": strings}},
        "status": {"type": "object", "properties": {"conditions": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
            "items": {"type": "object", "properties": {
                "type": {"type": "string"}, "status": {"type": "string"}}}}}}}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}}, "schema": {"openAPIV3Schema": schema}}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (code, answer) = call(&server, "POST", crds, Some((JSON, crd))).await?;
    assert_eq!(code, 201, "{answer}");
    let path = "/apis/example.com/v1/namespaces/default/widgets/w";
    let widget = |spec: Value, status: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "namespace": "default"}, "spec": spec, "status": status})
    };
    let apply = |manager: &str, status: bool, body: Value| {
        let sub = if status { "/status" } else { "" };
        let url = format!("{path}{sub}?fieldManager={manager}");
        let server = &server;
        async move { call(server, "PATCH", &url, Some((APPLY, body))).await }
    };
    let spec = json!({"tags": ["x"], "args": ["1"]});
    let (code, answer) = apply("a", false, widget(spec, json!({}))).await?;
    assert_eq!(code, 201, "{answer}");
    let (code, answer) = apply("b", false, widget(json!({"tags": ["y"]}), json!({}))).await?;
    assert_eq!(code, 200, "a set: each manager owns its values: {answer}");
    assert_eq!(answer["spec"]["tags"], json!(["x", "y"]));
    let (code, answer) = apply("b", false, widget(json!({"args": ["2"]}), json!({}))).await?;
    assert_eq!(code, 409, "an untyped list is atomic: {answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap_or_default()
            .contains(".spec.args"),
        "{answer}"
    );

    let condition = |kind: &str| json!({"conditions": [{"type": kind, "status": "True"}]});
    let (code, answer) = apply("ctrl-a", true, widget(json!({}), condition("Ready"))).await?;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = apply("ctrl-b", true, widget(json!({}), condition("Synced"))).await?;
    assert_eq!(
        code, 200,
        "a map list: conditions are owned by type: {answer}"
    );
    let types: Vec<&Value> = answer["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["type"])
        .collect();
    assert_eq!(types, [&json!("Ready"), &json!("Synced")]);
    // The /status appliers' entries are kept (`ResetObjectMetaForStatus` keeps managedFields).
    let owns = |manager: &str, kind: &str| {
        answer["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| {
                e["manager"] == manager
                    && e["subresource"] == "status"
                    && e["fieldsV1"]["f:status"]["f:conditions"]
                        .get(format!("k:{{\"type\":\"{kind}\"}}"))
                        .is_some()
            })
    };
    assert!(
        owns("ctrl-a", "Ready") && owns("ctrl-b", "Synced"),
        "{answer}"
    );
    // ctrl-a stops applying its condition: only that element goes.
    let (code, answer) =
        apply("ctrl-a", true, widget(json!({}), json!({"conditions": []}))).await?;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer["status"]["conditions"],
        json!([{"type": "Synced", "status": "True"}])
    );
    Ok(())
}
