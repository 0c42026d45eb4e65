//! OpenAPI and field validation: `/openapi/v3` serves the real kube-apiserver's documents (and a
//! CRD's schema in its group version), `kubectl explain` reads them, and `fieldValidation`
//! refuses, reports or drops unknown and duplicate fields as kube-apiserver does — through raw
//! requests and through `kubectl apply`'s own `--validate=strict`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use kinformer_apiserver::{EmbeddedServer, Seed, ServerConfig};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::process::Command;

use crate::support::{JSON, MERGE, TestResult, client, kubectl_binary};

/// What a request answered: code, headers and body.
struct Answer {
    code: u16,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    fn warnings(&self) -> Vec<&str> {
        self.headers
            .get_all("warning")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect()
    }
}

/// One request with a raw body.
async fn send(
    server: &EmbeddedServer,
    method: &str,
    path: &str,
    body: Option<(&str, &str)>,
) -> Result<Answer, Box<dyn std::error::Error>> {
    let mut request = http::Request::builder().method(method).uri(path);
    let bytes = match body {
        Some((content_type, body)) => {
            request = request.header(http::header::CONTENT_TYPE, content_type);
            body.as_bytes().to_vec()
        }
        None => Vec::new(),
    };
    let client = client(server.kube_config())?;
    let response = client.send(request.body(bytes)?.map(Into::into)).await?;
    let code = response.status().as_u16();
    let headers = response.headers().clone();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes()
        .to_vec();
    Ok(Answer {
        code,
        headers,
        body,
    })
}

const GADGETS: &str = "/apis/openapi.example.com/v1/namespaces/default/gadgets";

/// A CRD with a nested structural schema.
fn gadget_crd() -> String {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.openapi.example.com"},
        "spec": {
            "group": "openapi.example.com",
            "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "description": "What the gadget should be.", "properties": {
                    "size": {"type": "string", "description": "How big the gadget is."},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                }}}
            }}}]
        }
    })
    .to_string()
}

/// A started server with the Gadget CRD served.
async fn with_gadgets() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    let server = EmbeddedServer::start(ServerConfig {
        seed: vec![Seed::Builtin],
        ..ServerConfig::default()
    })
    .await?;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let created = send(&server, "POST", crds, Some((JSON, &gadget_crd()))).await?;
    assert_eq!(created.code, 201);
    let deadline = Instant::now() + Duration::from_secs(10);
    while send(&server, "GET", GADGETS, None).await?.code != 200 {
        assert!(Instant::now() < deadline, "the CRD was never served");
        tokio::task::yield_now().await;
    }
    Ok(server)
}

#[tokio::test]
async fn openapi_v3_serves_the_real_servers_documents_with_its_headers() -> TestResult {
    let server = with_gadgets().await?;
    let index = send(&server, "GET", "/openapi/v3", None).await?;
    assert_eq!(index.code, 200);
    assert_eq!(index.header("content-type"), "text/plain; charset=utf-8");
    let paths = &index.json()["paths"];
    for path in [
        "api/v1",
        "apis/apps/v1",
        "apis/apps",
        "version",
        "apis/openapi.example.com/v1",
    ] {
        assert!(
            paths[path]["serverRelativeURL"].is_string(),
            "{path} missing"
        );
    }
    let url = paths["api/v1"]["serverRelativeURL"].as_str().unwrap_or("");
    let core = send(&server, "GET", url, None).await?;
    assert_eq!(core.header("content-type"), "application/json");
    assert_eq!(core.header("cache-control"), "public, immutable");
    let hash = url.rsplit("hash=").next().unwrap_or("");
    assert_eq!(core.header("etag"), format!("\"{hash}\""));
    let pod = &core.json()["components"]["schemas"]["io.k8s.api.core.v1.Pod"];
    assert!(pod["properties"]["spec"].is_object());
    let plain = send(&server, "GET", "/openapi/v3/api/v1", None).await?;
    assert_eq!(plain.header("cache-control"), "no-cache, private");
    assert_eq!(plain.body, core.body);
    let v2 = send(&server, "GET", "/openapi/v2", None).await?;
    assert!(v2.json()["definitions"]["io.k8s.api.core.v1.Pod"].is_object());
    Ok(())
}

#[tokio::test]
async fn a_crds_schema_is_published_in_its_group_version_document() -> TestResult {
    let server = with_gadgets().await?;
    let document = send(
        &server,
        "GET",
        "/openapi/v3/apis/openapi.example.com/v1",
        None,
    )
    .await?;
    let schemas = &document.json()["components"]["schemas"];
    let gadget = &schemas["com.example.openapi.v1.Gadget"];
    assert_eq!(
        gadget["properties"]["spec"]["properties"]["size"]["type"],
        "string"
    );
    assert_eq!(
        gadget["properties"]["metadata"]["allOf"][0]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert_eq!(
        gadget["x-kubernetes-group-version-kind"][0]["kind"],
        "Gadget"
    );
    assert_eq!(
        schemas["com.example.openapi.v1.GadgetList"]["x-kubernetes-group-version-kind"][0]["kind"],
        "GadgetList"
    );
    assert!(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].is_object());
    Ok(())
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn strict_refuses_unknown_and_duplicate_fields_of_built_ins() -> TestResult {
    let server = with_gadgets().await?;
    let body =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s","bogus2":1},"bogus":1}"#;
    let strict = send(
        &server,
        "POST",
        &format!("{CONFIGMAPS}?fieldValidation=Strict"),
        Some((JSON, body)),
    )
    .await?;
    assert_eq!(strict.code, 400);
    assert_eq!(
        strict.json()["message"],
        r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus2", unknown field "bogus""#
    );
    let duplicate = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"a":"1"},"data":{"b":"2"}}"#;
    let strict = send(
        &server,
        "POST",
        &format!("{CONFIGMAPS}?fieldValidation=Strict"),
        Some((JSON, duplicate)),
    )
    .await?;
    assert_eq!(strict.code, 400);
    assert!(
        strict.json()["message"]
            .as_str()
            .unwrap_or("")
            .ends_with(r#"duplicate field "data""#)
    );
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","bogus":1}]}}"#;
    let strict = send(
        &server,
        "POST",
        "/api/v1/namespaces/default/pods?fieldValidation=Strict",
        Some((JSON, pod)),
    )
    .await?;
    assert!(
        strict.json()["message"]
            .as_str()
            .unwrap_or("")
            .ends_with(r#"unknown field "spec.containers[0].bogus""#)
    );
    let update = send(
        &server,
        "PUT",
        &format!("{CONFIGMAPS}/s?fieldValidation=Strict"),
        Some((JSON, body)),
    )
    .await?;
    assert_eq!(update.code, 400);
    let bad = send(
        &server,
        "POST",
        &format!("{CONFIGMAPS}?fieldValidation=Bad"),
        Some((JSON, body)),
    )
    .await?;
    assert_eq!(bad.code, 422);
    Ok(())
}

#[tokio::test]
async fn warn_is_the_default_and_unknown_fields_are_dropped() -> TestResult {
    let server = with_gadgets().await?;
    let body = |name: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","bogus2":1}},"bogus":1,"data":{{"a":"1"}}}}"#
        )
    };
    for (query, name) in [("?fieldValidation=Warn", "w"), ("", "default")] {
        let warned = send(
            &server,
            "POST",
            &format!("{CONFIGMAPS}{query}"),
            Some((JSON, &body(name))),
        )
        .await?;
        assert_eq!(warned.code, 201);
        assert_eq!(
            warned.warnings(),
            [
                r#"299 - "unknown field \"metadata.bogus2\"""#,
                r#"299 - "unknown field \"bogus\"""#
            ]
        );
        assert!(warned.json().get("bogus").is_none());
        assert_eq!(warned.json()["data"]["a"], "1");
    }
    let ignored = send(
        &server,
        "POST",
        &format!("{CONFIGMAPS}?fieldValidation=Ignore"),
        Some((JSON, &body("i"))),
    )
    .await?;
    assert_eq!(ignored.code, 201);
    assert!(ignored.warnings().is_empty());
    assert!(ignored.json().get("bogus").is_none());
    let patched = send(
        &server,
        "PATCH",
        &format!("{CONFIGMAPS}/w"),
        Some((MERGE, r#"{"bogus":1,"data":{"b":"2"}}"#)),
    )
    .await?;
    assert_eq!(patched.code, 200);
    assert_eq!(patched.warnings(), [r#"299 - "unknown field \"bogus\"""#]);
    assert_eq!(patched.json()["data"]["b"], "2");
    let strict = send(
        &server,
        "PATCH",
        &format!("{CONFIGMAPS}/w?fieldValidation=Strict"),
        Some((MERGE, r#"{"bogus":1}"#)),
    )
    .await?;
    assert_eq!(strict.code, 422);
    Ok(())
}

#[tokio::test]
async fn server_side_apply_of_an_unknown_field_is_refused_whatever_the_directive() -> TestResult {
    let server = with_gadgets().await?;
    let apply = "application/apply-patch+yaml";
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n    bogus: 1\n";
    let path = "/api/v1/namespaces/default/pods/p?fieldManager=m&fieldValidation=Ignore";
    let refused = send(&server, "PATCH", path, Some((apply, pod))).await?;
    assert_eq!(refused.code, 500);
    assert_eq!(
        refused.json()["message"],
        r#"failed to create typed patch object (/p; /v1, Kind=Pod): .spec.containers[name="c"].bogus: field not declared in schema"#
    );
    let gadget = r#"{"apiVersion":"openapi.example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default"},"spec":{"bogus":1}}"#;
    let refused = send(
        &server,
        "PATCH",
        &format!("{GADGETS}/g?fieldManager=m"),
        Some((apply, gadget)),
    )
    .await?;
    assert_eq!(
        refused.json()["message"],
        "failed to create typed patch object (default/g; openapi.example.com/v1, Kind=Gadget): .spec.bogus: field not declared in schema"
    );
    Ok(())
}

#[tokio::test]
async fn a_custom_resource_is_checked_against_its_structural_schema() -> TestResult {
    let server = with_gadgets().await?;
    let body = r#"{"apiVersion":"openapi.example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":"s","bogus":1,"free":{"any":1}}}"#;
    let strict = send(
        &server,
        "POST",
        &format!("{GADGETS}?fieldValidation=Strict"),
        Some((JSON, body)),
    )
    .await?;
    assert_eq!(strict.code, 400);
    assert_eq!(
        strict.json()["message"],
        r#"Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.bogus""#
    );
    let warned = send(&server, "POST", GADGETS, Some((JSON, body))).await?;
    assert_eq!(warned.code, 201);
    assert_eq!(
        warned.warnings(),
        [r#"299 - "unknown field \"spec.bogus\"""#]
    );
    assert_eq!(
        warned.json()["spec"],
        json!({"size": "s", "free": {"any": 1}})
    );
    Ok(())
}

/// kubectl against a server, with a private cache.
struct Kubectl {
    dir: TempDir,
    binary: std::path::PathBuf,
}

impl Kubectl {
    fn new(server: &EmbeddedServer) -> Result<Kubectl, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        server.write_kubeconfig(&dir.path().join("kubeconfig"))?;
        Ok(Kubectl {
            dir,
            binary: kubectl_binary()?,
        })
    }

    /// Runs kubectl: success, stdout, stderr.
    async fn run(
        &self,
        args: &[&str],
    ) -> Result<(bool, String, String), Box<dyn std::error::Error>> {
        let mut command = Command::new(&self.binary);
        command
            .arg("--kubeconfig")
            .arg(self.dir.path().join("kubeconfig"))
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let output = tokio::time::timeout(Duration::from_secs(60), command.output()).await??;
        Ok((
            output.status.success(),
            String::from_utf8(output.stdout)?,
            String::from_utf8(output.stderr)?,
        ))
    }

    /// Writes a manifest into the cache directory and returns its path.
    fn manifest(&self, name: &str, text: &str) -> Result<String, Box<dyn std::error::Error>> {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text)?;
        Ok(path.to_string_lossy().into_owned())
    }
}

#[tokio::test]
async fn kubectl_explain_reads_built_in_and_custom_schemas() -> TestResult {
    let server = with_gadgets().await?;
    let kubectl = Kubectl::new(&server)?;
    let (ok, out, err) = kubectl.run(&["explain", "pods.spec.containers"]).await?;
    assert!(ok, "{err}");
    assert!(
        out.contains("KIND:       Pod") || out.contains("KIND:     Pod"),
        "{out}"
    );
    assert!(out.contains("imagePullPolicy"), "{out}");
    let (ok, out, err) = kubectl
        .run(&["explain", "deployments", "--recursive"])
        .await?;
    assert!(ok, "{err}");
    assert!(out.contains("revisionHistoryLimit"), "{out}");
    let (ok, out, err) = kubectl.run(&["explain", "gadgets.spec"]).await?;
    assert!(ok, "{err}");
    assert!(out.contains("How big the gadget is."), "{out}");
    Ok(())
}

/// `kubectl explain --output plaintext-openapiv2` reads `/openapi/v2` (in protobuf, the
/// gnostic form), where a CRD's definitions are merged in as kube-apiserver merges them.
#[tokio::test]
async fn kubectl_explain_reads_openapi_v2_with_the_crds_merged_in() -> TestResult {
    let server = with_gadgets().await?;
    let kubectl = Kubectl::new(&server)?;
    let v2 = ["--output", "plaintext-openapiv2"];
    let (ok, out, err) = kubectl
        .run(&[&["explain", "gadgets.spec"][..], &v2].concat())
        .await?;
    assert!(ok, "{err}");
    assert!(out.contains("Gadget"), "{out}");
    assert!(out.contains("How big the gadget is."), "{out}");
    let (ok, out, err) = kubectl
        .run(&[&["explain", "pods.spec"][..], &v2].concat())
        .await?;
    assert!(ok, "{err}");
    assert!(out.contains("containers"), "{out}");
    Ok(())
}

#[tokio::test]
async fn kubectl_apply_validates_strictly_through_the_server() -> TestResult {
    let server = with_gadgets().await?;
    let kubectl = Kubectl::new(&server)?;
    let bad = kubectl.manifest(
        "bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: default\nbogus: 1\ndata:\n  a: \"1\"\n",
    )?;
    let (ok, _, err) = kubectl
        .run(&["apply", "--validate=strict", "-f", &bad])
        .await?;
    assert!(!ok);
    assert!(err.contains(r#"unknown field "bogus""#), "{err}");
    let good = kubectl.manifest(
        "good.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n  namespace: default\ndata:\n  a: \"1\"\n",
    )?;
    let (ok, out, err) = kubectl
        .run(&["apply", "--validate=strict", "-f", &good])
        .await?;
    assert!(ok, "{err}");
    assert!(out.contains("configmap/good created"), "{out}");
    Ok(())
}
