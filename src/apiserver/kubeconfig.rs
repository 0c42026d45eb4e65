//! Client configuration for the embedded server: a kubeconfig file for kubectl and an
//! equivalent in-process `kube::Config`.

use kube::config::AuthInfo;
use serde_json::json;

/// Name of the cluster, user and context in the generated kubeconfig.
pub const CONTEXT: &str = "kinformer";

/// A kubeconfig with one cluster, user and context named `kinformer`, set as current.
pub fn kubeconfig_yaml(url: &str, token: Option<&str>) -> String {
    let user = match token {
        Some(token) => format!("\n    token: {token}"),
        None => " {}".to_owned(),
    };
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CONTEXT}
  cluster:
    server: {url}
users:
- name: {CONTEXT}
  user:{user}
contexts:
- name: {CONTEXT}
  context:
    cluster: {CONTEXT}
    user: {CONTEXT}
    namespace: default
current-context: {CONTEXT}
"
    )
}

/// A `kube::Config` reaching the server at `url` with `token`.
pub fn kube_config(url: &str, token: Option<&str>) -> kube::Config {
    let mut config = kube::Config::new(url.parse().unwrap_or_default());
    config.default_namespace = "default".into();
    if let Some(token) = token {
        config.auth_info =
            serde_json::from_value::<AuthInfo>(json!({ "token": token })).unwrap_or_default();
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_names_everything_kinformer() {
        let yaml = kubeconfig_yaml("http://127.0.0.1:1234", Some("abc"));
        assert!(yaml.contains("server: http://127.0.0.1:1234"));
        assert!(yaml.contains("token: abc"));
        assert!(yaml.contains("current-context: kinformer"));
        let config = kube_config("http://127.0.0.1:1234", Some("abc"));
        assert_eq!(config.cluster_url.port_u16(), Some(1234));
        assert!(config.auth_info.token.is_some());
    }
}
