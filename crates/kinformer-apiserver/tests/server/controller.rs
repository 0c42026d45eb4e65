//! The server as a kube-rs user's test bed: a kube-runtime `Controller` whose reconciler
//! creates a child ConfigMap for each Deployment (owned by it) and records the generation it
//! saw in the Deployment's status. It must converge, and converge again after the server
//! forces a 410 on every watch and fails the controller's next requests with 500s.
//!
//! Direct writes ([`EmbeddedServer::update_object`]) do not go through HTTP, so the injected
//! failures can only be spent by the controller's own requests; the test checks they were.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kinformer_apiserver::{EmbeddedServer, Fault, ServerConfig};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use crate::support::{TestResult, call};

/// Every wait ends well within this.
const DEADLINE: Duration = Duration::from_secs(30);

/// The reconciler's field manager.
const MANAGER: &str = "testbed-controller";

/// A Deployment of `replicas` nginx pods.
fn deployment(name: &str, replicas: i64) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
            },
        },
    })
}

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
enum ReconcileError {
    #[error(transparent)]
    Kube(#[from] kube::Error),
    #[error("deployment {0} has no uid to own a child by")]
    NoUid(String),
}

/// The child a Deployment gets: `NAME-config`, controlled by it, holding its replica count.
fn child_of(parent: &Deployment) -> Result<ConfigMap, ReconcileError> {
    let owner = parent
        .controller_owner_ref(&())
        .ok_or_else(|| ReconcileError::NoUid(parent.name_any()))?;
    let mut child = ConfigMap::default();
    child.metadata.name = Some(format!("{}-config", parent.name_any()));
    child.metadata.namespace = parent.namespace();
    child.metadata.owner_references = Some(vec![owner]);
    let replicas = parent.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    child.data = Some([("replicas".to_owned(), replicas.to_string())].into());
    Ok(child)
}

/// Reconciles one Deployment: applies its child, then records `observedGeneration`.
async fn reconcile(
    parent: Arc<Deployment>,
    client: Arc<kube::Client>,
) -> Result<Action, ReconcileError> {
    let namespace = parent.namespace().unwrap_or_default();
    let configmaps: Api<ConfigMap> = Api::namespaced((*client).clone(), &namespace);
    let child = child_of(&parent)?;
    let apply = PatchParams::apply(MANAGER).force();
    configmaps
        .patch(&child.name_any(), &apply, &Patch::Apply(&child))
        .await?;
    let deployments: Api<Deployment> = Api::namespaced((*client).clone(), &namespace);
    let status = json!({"status": {"observedGeneration": parent.meta().generation}});
    deployments
        .patch_status(
            &parent.name_any(),
            &PatchParams::default(),
            &Patch::Merge(status),
        )
        .await?;
    Ok(Action::await_change())
}

/// Failed reconciles are retried soon (the test's faults make some fail).
fn retry_soon(_: Arc<Deployment>, _: &ReconcileError, _: Arc<kube::Client>) -> Action {
    Action::requeue(Duration::from_millis(50))
}

/// Starts the controller on `server` in the background.
fn spawn_controller(server: &EmbeddedServer) -> tokio::task::JoinHandle<()> {
    let client = server.client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let controller = Controller::new(deployments, watcher::Config::default())
        .owns(configmaps, watcher::Config::default())
        .run(reconcile, retry_soon, Arc::new(client))
        .for_each(|_| async {});
    tokio::spawn(controller)
}

/// Waits until Deployment `name` has its child with `replicas` and has status for its
/// current generation.
async fn reconciled(server: &EmbeddedServer, name: &str, replicas: &str) -> TestResult {
    let child = format!("{name}-config");
    server
        .wait_for("configmaps", DEADLINE, |all| {
            all.iter().any(|c| {
                c["metadata"]["name"] == child.as_str()
                    && c["data"]["replicas"] == replicas
                    && c["metadata"]["ownerReferences"][0]["name"] == name
            })
        })
        .await?;
    server
        .wait_for("deployments", DEADLINE, |all| {
            all.iter().any(|d| {
                d["metadata"]["name"] == name
                    && d["status"]["observedGeneration"] == d["metadata"]["generation"]
            })
        })
        .await?;
    Ok(())
}

#[tokio::test]
async fn a_kube_runtime_controller_converges_through_a_410_and_500s() -> TestResult {
    let server = EmbeddedServer::start(ServerConfig::default()).await?;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    let web = serde_json::from_value(deployment("web", 2))?;
    deployments.create(&PostParams::default(), &web).await?;
    let controller = spawn_controller(&server);
    reconciled(&server, "web", "2").await?;

    // Every watch resumes into a 410 (relist), and the next three ConfigMap requests fail.
    server.inject(&Fault::ExpireAll)?;
    server.inject(&Fault::FailRequests {
        count: Some(3),
        fraction: None,
        status: Some(500),
        retry_after_seconds: None,
        path: Some("/configmaps".to_owned()),
    })?;
    server.inject(&Fault::CloseWatches)?;
    let mut web = server
        .get_object("deployments", "default", "web")?
        .ok_or("web is gone")?;
    web["spec"]["replicas"] = json!(5);
    server.update_object("deployments", web)?;
    server.create_object(deployment("api", 1))?;
    reconciled(&server, "web", "5").await?;
    reconciled(&server, "api", "1").await?;

    // The three failures went to the controller: the next ConfigMap request succeeds.
    let (code, _) = call(
        &server,
        "GET",
        "/api/v1/namespaces/default/configmaps",
        None,
    )
    .await?;
    assert_eq!(
        code, 200,
        "the injected 500s were not all spent by the controller"
    );
    controller.abort();
    server.shutdown().await;
    Ok(())
}
