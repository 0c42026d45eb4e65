//! Client configuration for the embedded server: a kubeconfig (kube's `Kubeconfig` type,
//! serialised as YAML) for kubectl and an equivalent in-process `kube::Config`.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use kube::config::{AuthInfo, Kubeconfig};
use serde_json::json;

/// Name of the cluster, user and context in the generated kubeconfig.
pub const CONTEXT: &str = "kinformer";

/// How clients reach one server.
pub struct Endpoint<'a> {
    /// `https://127.0.0.1:PORT` or `http://...`.
    pub url: &'a str,
    /// The bearer token (None: no authentication).
    pub token: Option<&'a str>,
    /// The CA that signed the serving certificate, PEM (None: plain HTTP).
    pub ca_pem: Option<&'a str>,
}

impl Endpoint<'_> {
    /// A kubeconfig with one cluster, user and context named `kinformer`, set as current.
    ///
    /// Over TLS the CA goes into `certificate-authority-data` and kubectl sends the token as
    /// a bearer token. Over plain HTTP kubectl (client-go's clientcmd) sends no token at all,
    /// so the server URL also carries it as userinfo (`http://kinformer:TOKEN@127.0.0.1:PORT`),
    /// which Go's HTTP client sends as basic credentials; the server accepts either form.
    pub fn kubeconfig(&self) -> Result<Kubeconfig, serde_json::Error> {
        let server = match (self.token, self.ca_pem) {
            (Some(token), None) => self.url.replacen(
                "://",
                &format!("://{CONTEXT}:{}@", percent_encode(token)),
                1,
            ),
            _ => self.url.to_owned(),
        };
        let mut cluster = json!({"server": server});
        if let Some(ca) = self.ca_pem {
            cluster["certificate-authority-data"] = BASE64_STANDARD.encode(ca).into();
        }
        let user = match self.token {
            Some(token) => json!({"token": token}),
            None => json!({}),
        };
        serde_json::from_value(json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": CONTEXT, "cluster": cluster}],
            "users": [{"name": CONTEXT, "user": user}],
            "contexts": [{"name": CONTEXT, "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": "default"}}],
            "current-context": CONTEXT,
        }))
    }

    /// [`Self::kubeconfig`] as YAML.
    pub fn kubeconfig_yaml(&self) -> String {
        self.kubeconfig()
            .ok()
            .and_then(|config| serde_saphyr::to_string(&config).ok())
            .unwrap_or_default()
    }

    /// Writes [`Self::kubeconfig_yaml`] to `path`, readable and writable by its owner only
    /// (mode 0600, also when the file existed with wider permissions: it holds the token).
    pub fn write_kubeconfig(&self, path: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write as _;
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        // Written beside it, then renamed over it: a client that waits for the file to appear
        // never reads half of it.
        let name = path.file_name().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a kubeconfig path names a file",
            )
        })?;
        let mut partial = std::ffi::OsString::from(".");
        partial.push(name);
        partial.push(format!(".{}.partial", std::process::id()));
        let partial = path.with_file_name(partial);
        let written = (|| {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&partial)?;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            file.write_all(self.kubeconfig_yaml().as_bytes())?;
            std::fs::rename(&partial, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&partial);
        }
        written
    }

    /// A `kube::Config` reaching the server (`ca_der`: the CA to trust over TLS).
    pub fn kube_config(&self, ca_der: Option<&[u8]>) -> kube::Config {
        let mut config = kube::Config::new(self.url.parse().unwrap_or_default());
        config.default_namespace = "default".into();
        config.root_cert = ca_der.map(|der| vec![der.to_vec()]);
        if let Some(token) = self.token {
            config.auth_info =
                serde_json::from_value::<AuthInfo>(json!({ "token": token })).unwrap_or_default();
        }
        config
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfigs_round_trip_awkward_tokens() {
        for (url, ca) in [
            ("http://127.0.0.1:1234", None),
            ("https://127.0.0.1:1234", Some("PEM")),
        ] {
            let endpoint = Endpoint {
                url,
                token: Some("abc #x: 'y\""),
                ca_pem: ca,
            };
            let yaml = endpoint.kubeconfig_yaml();
            let parsed = Kubeconfig::from_yaml(&yaml);
            let Ok(parsed) = parsed else {
                panic!("{parsed:?}\n{yaml}");
            };
            assert_eq!(parsed.current_context.as_deref(), Some(CONTEXT));
            let plain: Result<serde_json::Value, _> = serde_saphyr::from_str(&yaml);
            let token = plain
                .ok()
                .and_then(|v| v.pointer("/users/0/user/token").cloned());
            assert_eq!(token, Some(json!("abc #x: 'y\"")), "{yaml}");
            let cluster = parsed.clusters.first().and_then(|c| c.cluster.as_ref());
            let server = cluster.and_then(|c| c.server.clone()).unwrap_or_default();
            assert_eq!(
                server.starts_with("http://kinformer:abc%20%23x"),
                ca.is_none(),
                "{server}"
            );
            assert_eq!(
                cluster
                    .and_then(|c| c.certificate_authority_data.clone())
                    .is_some(),
                ca.is_some()
            );
        }
        assert_eq!(percent_encode("a:b@c"), "a%3Ab%40c");
    }
}
