use std::sync::Arc;
use std::time::Instant;
use kinformer::apiserver::{EmbeddedServer, ServerConfig};
use kinformer::informer::processor::SimulatedHandler;
use kinformer::informer::shared_informer::{InformerConfig, SharedIndexInformer};
use kinformer::informer::source::{KubeSource, KubeTarget};
use kinformer::informer::trace::Tracer;
use tokio_util::sync::CancellationToken;

fn pod(i: usize) -> serde_json::Value {
    serde_json::json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":format!("pod-{i}"),"namespace":format!("ns-{}", i%20),
      "labels":{"app":"web","pod-template-hash":"abcdef"},"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{},"f:name":{},"f:ports":{}}}}}}],
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abcdef","uid":"1234","controller":true}]},
      "spec":{"nodeName":format!("node-{}", i%3),"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"env":[{"name":"A","value":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]}]},
      "status":{"phase":"Running","podIP":"10.0.0.1","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-22T10:00:00Z"}]}})
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10000);
    let server = EmbeddedServer::start(ServerConfig::default()).await.unwrap();
    server.seed_objects((0..n).map(pod)).unwrap();
    println!("pod json bytes ~{}", serde_json::to_vec(&pod(1)).unwrap().len());
    let target = KubeTarget { resource: kube::core::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()), namespace: None, label_selector: None, field_selector: None, metadata_only: false };
    let t = Instant::now();
    let informer = SharedIndexInformer::new(Arc::new(KubeSource::new(server.client(), target)), InformerConfig::default(), Tracer::counting_only());
    informer.add_event_handler("h", Arc::new(SimulatedHandler{delay: std::time::Duration::ZERO})).unwrap();
    let stop = CancellationToken::new();
    let i2 = informer.clone(); let s2 = stop.clone();
    tokio::spawn(async move { i2.run(s2).await });
    informer.wait_for_sync(&stop).await;
    println!("synced {} in {:?}", informer.indexer().len(), t.elapsed());
}
