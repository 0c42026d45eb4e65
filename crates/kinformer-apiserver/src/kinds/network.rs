//! Network kinds: the `SetDefaults_` of NetworkPolicies (`pkg/apis/networking/v1/
//! defaults.go`: `policyTypes`, a port's protocol), EndpointSlices (`pkg/apis/discovery/v1/
//! defaults.go`: a port's name and protocol; an endpoint's `conditions`, a struct always
//! written) and core Endpoints (a port's protocol).

use serde_json::{Map, Value, json};

use super::default;

/// The objects of the array at `key` of `object`, for changing.
fn items<'a>(
    object: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    object
        .get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// `SetDefaults_NetworkPolicy` and `SetDefaults_NetworkPolicyPort`.
pub fn network_policy(object: &mut Map<String, Value>) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let no_types = spec
        .get("policyTypes")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    if no_types {
        let egress = spec
            .get("egress")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty());
        let types = if egress {
            json!(["Ingress", "Egress"])
        } else {
            json!(["Ingress"])
        };
        spec.insert("policyTypes".into(), types);
    }
    for direction in ["ingress", "egress"] {
        for rule in items(spec, direction) {
            for port in items(rule, "ports") {
                default(port, "protocol", "TCP".into());
            }
        }
    }
}

/// An EndpointSlice's ports (`SetDefaults_EndpointPort`) and endpoints' `conditions`.
pub fn endpoint_slice(object: &mut Map<String, Value>) {
    for port in items(object, "ports") {
        default(port, "name", "".into());
        default(port, "protocol", "TCP".into());
    }
    for endpoint in items(object, "endpoints") {
        default(endpoint, "conditions", json!({}));
    }
}

/// Core Endpoints: each subset's ports' protocol TCP (`SetDefaults_EndpointPort`).
pub fn endpoints(object: &mut Map<String, Value>) {
    for subset in items(object, "subsets") {
        for port in items(subset, "ports") {
            default(port, "protocol", "TCP".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_policy_defaults_its_types_and_port_protocols() {
        let mut object = json!({"spec": {"podSelector": {},
            "egress": [{"ports": [{"port": 53}, {"port": 53, "protocol": "UDP"}]}]}});
        if let Some(map) = object.as_object_mut() {
            network_policy(map);
        }
        assert_eq!(object["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(
            object["spec"]["egress"][0]["ports"],
            json!([{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}])
        );
    }
}
