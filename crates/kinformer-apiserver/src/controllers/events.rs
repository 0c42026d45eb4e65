//! core/v1 Events as the cluster's components record them through client-go's event recorder
//! (`tools/record`): named `OBJECT.HEX-NANOS`, in the object's namespace, about the object
//! (`involvedObject`, with a `fieldPath` for a container), with the component as `source` and
//! `reportingComponent` — what `kubectl describe` lists under Events.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::store::Store;
use crate::write::create_object;

/// Who records an event: kube-controller-manager's controllers, the scheduler, a kubelet.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A controller of kube-controller-manager (`deployment-controller`, …).
    Controller(&'static str),
    /// The scheduler (`default-scheduler`).
    Scheduler,
    /// The kubelet of a node.
    Kubelet(&'a str),
}

/// Records a Normal event `reason` with `message` about `object` (a container of it when
/// `field_path` is given).
pub fn record(
    store: &Store,
    object: &Value,
    field_path: Option<&str>,
    reason: &str,
    message: &str,
    source: Source<'_>,
) {
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let now = Timestamp::now();
    let stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let namespace = match text("/metadata/namespace") {
        "" => "default",
        ns => ns,
    };
    let (component, host) = match source {
        Source::Controller(name) => (name, ""),
        Source::Scheduler => ("default-scheduler", ""),
        Source::Kubelet(node) => ("kubelet", node),
    };
    let mut involved = json!({
        "kind": text("/kind"), "namespace": text("/metadata/namespace"),
        "name": text("/metadata/name"), "uid": text("/metadata/uid"),
        "apiVersion": text("/apiVersion"), "resourceVersion": text("/metadata/resourceVersion"),
    });
    if let Some(path) = field_path {
        involved["fieldPath"] = path.into();
    }
    let mut source_field = json!({"component": component});
    if !host.is_empty() {
        source_field["host"] = host.into();
    }
    let event = json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {
            "name": format!("{}.{:x}", text("/metadata/name"), now.as_nanosecond()),
            "namespace": namespace,
        },
        "involvedObject": involved,
        "reason": reason, "message": message, "source": source_field,
        "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1, "type": "Normal",
        "eventTime": null, "reportingComponent": component, "reportingInstance": host,
    });
    if let Err(e) = create_object(store, event) {
        tracing::debug!("event not recorded: {}", e.message);
    }
}
