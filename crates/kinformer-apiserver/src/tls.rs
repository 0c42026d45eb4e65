//! Serving over TLS like a real API server: a fresh self-signed CA per server and a serving
//! certificate it signs for `127.0.0.1`, `::1`, `localhost` (and the listen address); clients
//! trust the CA through the kubeconfig's `certificate-authority-data`.

use std::net::IpAddr;
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// A server's CA and the acceptor presenting its serving certificate.
#[derive(Clone)]
pub struct ServingTls {
    /// The CA certificate, PEM (the kubeconfig's `certificate-authority-data`, decoded).
    pub ca_pem: String,
    /// The CA certificate, DER (an in-process client's root).
    pub ca_der: Vec<u8>,
    /// Accepts TLS connections offering the protocols it was generated for (ALPN).
    pub acceptor: TlsAcceptor,
}

/// Why certificates could not be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot create the serving certificate: {0}")]
pub struct TlsError(String);

fn failed(error: impl std::fmt::Display) -> TlsError {
    TlsError(error.to_string())
}

impl ServingTls {
    /// A new CA and a serving certificate for the loopback names and `listen_ip`, offering
    /// HTTP/1.1 (the embedded server's protocol).
    pub fn generate(listen_ip: IpAddr) -> Result<ServingTls, TlsError> {
        Self::generate_for(listen_ip, &[b"http/1.1"])
    }

    /// [`Self::generate`] offering the ALPN `protocols` in order of preference (`h2` first
    /// for a server that speaks HTTP/2, as client-go prefers it).
    pub fn generate_for(listen_ip: IpAddr, protocols: &[&[u8]]) -> Result<ServingTls, TlsError> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca_params.distinguished_name = name("kinformer-ca");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(failed)?)
            .map_err(failed)?;
        let mut names = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        if !listen_ip.is_unspecified() && !names.contains(&listen_ip.to_string()) {
            names.push(listen_ip.to_string());
        }
        let mut params = CertificateParams::new(names).map_err(failed)?;
        params.distinguished_name = name("kinformer-apiserver");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().map_err(failed)?;
        let certificate = params.signed_by(&key, &ca).map_err(failed)?;
        let private_key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let chain = vec![certificate.der().clone(), ca.der().clone()];
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(failed)?
            .with_no_client_auth()
            .with_single_cert(chain, private_key)
            .map_err(failed)?;
        config.alpn_protocols = protocols.iter().map(|p| p.to_vec()).collect();
        Ok(ServingTls {
            ca_pem: ca.pem(),
            ca_der: ca.der().to_vec(),
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }
}

fn name(common_name: &str) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common_name);
    name
}
