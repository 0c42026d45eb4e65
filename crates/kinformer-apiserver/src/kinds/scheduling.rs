//! What places and sizes pods: the `SetDefaults_` of PriorityClasses
//! (`pkg/apis/scheduling/v1/defaults.go`), HorizontalPodAutoscalers
//! (`pkg/apis/autoscaling/v2/defaults.go`) and LimitRanges (`pkg/apis/core/v1/defaults.go`,
//! `SetDefaults_LimitRangeItem`), and a new HPA's status.

use serde_json::{Map, Value, json};

use super::default;

/// `SetDefaults_PriorityClass`: `preemptionPolicy` PreemptLowerPriority.
pub fn priority_class(object: &mut Map<String, Value>) {
    default(object, "preemptionPolicy", "PreemptLowerPriority".into());
}

/// `SetDefaults_HorizontalPodAutoscaler`: `minReplicas` 1; in v2, with no metrics, 80% CPU
/// utilization.
pub fn autoscaler(object: &mut Map<String, Value>) {
    let v2 = object
        .get("apiVersion")
        .is_some_and(|v| v == "autoscaling/v2");
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        default(spec, "minReplicas", 1.into());
        if v2 {
            default(
                spec,
                "metrics",
                json!([{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 80}}}]),
            );
        }
    }
}

/// A new HPA's status (the zero `desiredReplicas`, `currentMetrics` null).
pub fn new_autoscaler_status() -> Value {
    json!({"desiredReplicas": 0, "currentMetrics": null})
}

/// `SetDefaults_LimitRangeItem`: a Container item's `default` from its `max`, its
/// `defaultRequest` from its `default`, then its `min`.
pub fn limit_range(object: &mut Map<String, Value>) {
    let limits = object
        .get_mut("spec")
        .and_then(|s| s.get_mut("limits"))
        .and_then(Value::as_array_mut);
    for item in limits
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        if item.get("type").and_then(Value::as_str) != Some("Container") {
            continue;
        }
        let take = |item: &Map<String, Value>, key: &str| {
            item.get(key)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let mut limit = take(item, "default");
        for (resource, value) in take(item, "max") {
            limit.entry(resource).or_insert(value);
        }
        let mut request = take(item, "defaultRequest");
        for source in [limit.clone(), take(item, "min")] {
            for (resource, value) in source {
                request.entry(resource).or_insert(value);
            }
        }
        item.insert("default".into(), Value::Object(limit));
        item.insert("defaultRequest".into(), Value::Object(request));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_limit_defaults_from_its_max_and_min() {
        let mut object = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}},
            {"type": "PersistentVolumeClaim", "max": {"storage": "2Gi"}}]}});
        if let Some(map) = object.as_object_mut() {
            limit_range(map);
        }
        assert_eq!(
            object["spec"]["limits"],
            json!([{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"},
                    "default": {"cpu": "2"}, "defaultRequest": {"cpu": "2", "memory": "1Mi"}},
                {"type": "PersistentVolumeClaim", "max": {"storage": "2Gi"}}])
        );
    }
}
