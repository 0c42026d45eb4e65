//! Client configuration for the embedded server: a kubeconfig file for kubectl and an
//! equivalent in-process `kube::Config`.

use kube::config::AuthInfo;
use serde_json::json;

/// Name of the cluster, user and context in the generated kubeconfig.
pub const CONTEXT: &str = "kinformer";

/// A kubeconfig with one cluster, user and context named `kinformer`, set as current.
///
/// kubectl (client-go's clientcmd) only sends a user's token over TLS, so with a token the
/// server URL also carries it as userinfo (`http://kinformer:TOKEN@127.0.0.1:PORT`), which Go's
/// HTTP client sends as basic credentials; the server accepts either form.
pub fn kubeconfig_yaml(url: &str, token: Option<&str>) -> String {
    let (server, user) = match token {
        Some(token) => (
            url.replacen(
                "://",
                &format!("://{CONTEXT}:{}@", percent_encode(token)),
                1,
            ),
            format!("\n    token: {token}"),
        ),
        None => (url.to_owned(), " {}".to_owned()),
    };
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CONTEXT}
  cluster:
    server: {server}
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

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
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
        assert!(yaml.contains("server: http://kinformer:abc@127.0.0.1:1234"));
        assert!(yaml.contains("token: abc"));
        assert!(yaml.contains("current-context: kinformer"));
        let config = kube_config("http://127.0.0.1:1234", Some("abc"));
        assert_eq!(config.cluster_url.port_u16(), Some(1234));
        assert!(config.auth_info.token.is_some());
        assert_eq!(percent_encode("a:b@c"), "a%3Ab%40c");
    }
}
