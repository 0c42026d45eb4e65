//! The server's identities: the ES256 key that signs the service account tokens it issues
//! (kube-apiserver's `--service-account-signing-key-file`, generated at start) and the user of
//! its own bearer token.

use base64::Engine;
use base64::prelude::BASE64_URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair,
    UnparsedPublicKey,
};
use serde_json::{Value, json};

use crate::status::ApiError;

/// The issuer and default audience of the tokens (kube-apiserver's `--service-account-issuer`
/// and `--api-audiences` of a cluster's default).
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The server's token signing key.
pub struct Issuer {
    key: EcdsaKeyPair,
    key_id: String,
}

/// Why the key could not be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot generate the service account signing key")]
pub struct KeyError;

impl Issuer {
    /// A new P-256 signing key.
    pub fn generate() -> Result<Issuer, KeyError> {
        let random = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
            .map_err(|_| KeyError)?;
        let key =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &random)
                .map_err(|_| KeyError)?;
        let digest = ring::digest::digest(&ring::digest::SHA256, key.public_key().as_ref());
        let key_id = BASE64_URL_SAFE_NO_PAD.encode(digest.as_ref());
        Ok(Issuer { key, key_id })
    }

    /// `claims` as a signed compact JWS.
    pub fn sign(&self, claims: &Value) -> Result<String, ApiError> {
        let header = json!({"alg": "ES256", "kid": self.key_id});
        let signing_input = format!(
            "{}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(header.to_string()),
            BASE64_URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .key
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| ApiError::new(500, "InternalError", "failed to sign the token"))?;
        Ok(format!(
            "{signing_input}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }

    /// The claims of a token this issuer signed; None for anything else.
    pub fn verify(&self, token: &str) -> Option<Value> {
        let (signing_input, signature) = token.rsplit_once('.')?;
        let (_, claims) = signing_input.split_once('.')?;
        let signature = BASE64_URL_SAFE_NO_PAD.decode(signature).ok()?;
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, self.key.public_key().as_ref())
            .verify(signing_input.as_bytes(), &signature)
            .ok()?;
        serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(claims).ok()?).ok()
    }
}

/// The user of the server's own bearer token.
pub fn admin_user() -> Value {
    json!({"username": "admin", "uid": "admin-uid",
        "groups": ["system:masters", "system:authenticated"]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_token_verifies_and_a_tampered_one_does_not() {
        let issuer = Issuer::generate().unwrap();
        let token = issuer.sign(&json!({"sub": "x"})).unwrap();
        assert_eq!(issuer.verify(&token), Some(json!({"sub": "x"})));
        let other = Issuer::generate().unwrap();
        assert_eq!(other.verify(&token), None);
        assert_eq!(issuer.verify("a.b.c"), None);
    }
}
