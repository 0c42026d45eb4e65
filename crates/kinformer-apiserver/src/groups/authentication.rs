//! authentication.k8s.io/v1: `serviceaccounts/{name}/token` (TokenRequest) answers a JSON Web
//! Token signed by this server's own ES256 key (`pkg/registry/core/serviceaccount/storage/
//! token.go`), and TokenReview (`pkg/registry/authentication/tokenreview`) accepts the tokens it
//! issued (signature, expiry, audience and the service account still there) and the server's
//! own bearer token, whose user is `admin` in group `system:masters` (the user of the
//! reference server's `admin-token`).

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, ResourceRequest};
use crate::issuer::{ISSUER, admin_user};
use crate::objects::object_key;
use crate::status::{ApiError, json_response};

/// A token's lifetime when the request names none (`expirationSeconds` defaults to an hour).
const DEFAULT_EXPIRATION: i64 = 3600;

/// The shortest lifetime a TokenRequest may ask (`ValidateTokenRequest`: ten minutes).
const MIN_EXPIRATION: i64 = 600;

/// Seconds since the epoch.
fn now_seconds() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// `POST .../serviceaccounts/{name}/token`.
pub fn token_request(
    app: &Arc<App>,
    request: &ResourceRequest,
    name: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let given = token_request_body(request, body)?;
    let namespace = request.namespace.clone().unwrap_or_default();
    let account = app
        .store
        .get(&request.resource.key(), &object_key(&namespace, name))
        .ok_or_else(|| ApiError::not_found(&request.resource, name))?
        .to_value()?;
    let uid = account
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let expiration = given
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(DEFAULT_EXPIRATION);
    if expiration < MIN_EXPIRATION {
        return Err(too_short(expiration));
    }
    let audiences = given
        .pointer("/spec/audiences")
        .filter(|a| a.as_array().is_some_and(|a| !a.is_empty()))
        .cloned()
        .unwrap_or_else(|| json!([ISSUER]));
    let issued = now_seconds();
    let claims = json!({
        "aud": audiences, "exp": issued + expiration, "iat": issued, "iss": ISSUER,
        "jti": uuid(),
        "kubernetes.io": {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}},
        "nbf": issued,
        "sub": format!("system:serviceaccount:{namespace}:{name}"),
    });
    let token = app.issuer.sign(&claims)?;
    let expires = jiff::Timestamp::from_second(issued + expiration)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let answer = json!({
        "kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"name": name, "namespace": namespace, "uid": uid,
            "creationTimestamp": super::now()},
        "spec": {"audiences": audiences, "expirationSeconds": expiration,
            "boundObjectRef": given.pointer("/spec/boundObjectRef").cloned().unwrap_or(Value::Null)},
        "status": {"token": token, "expirationTimestamp": expires},
    });
    Ok(json_response(StatusCode::CREATED, answer.to_string()))
}

/// The TokenRequest a POST carries, as JSON or protobuf (kubectl create token sends
/// protobuf).
fn token_request_body(request: &ResourceRequest, body: &Bytes) -> Result<Value, ApiError> {
    let media = request.content_type.split(';').next().unwrap_or("").trim();
    if media == crate::protobuf::MEDIA_TYPE {
        return crate::protobuf::decode_as(body, "authentication.k8s.io/v1", "TokenRequest")
            .map_err(|e| {
                ApiError::bad_request(format!("the request body is not a TokenRequest: {e:?}"))
            });
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the request body is not a TokenRequest: {e}")))
}

/// The 422 of a lifetime under ten minutes (kube-apiserver names no object: the request's
/// own metadata is empty).
fn too_short(expiration: i64) -> ApiError {
    let cause = format!(
        "spec.expirationSeconds: Invalid value: {expiration}: may not specify a duration less than 10 minutes"
    );
    let mut error = ApiError::new(
        422,
        "Invalid",
        format!("TokenRequest.authentication.k8s.io \"\" is invalid: {cause}"),
    );
    error.details = Some(Box::new(crate::status::StatusDetails {
        group: "authentication.k8s.io".into(),
        kind: "TokenRequest".into(),
        causes: vec![crate::status::StatusCause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {expiration}: may not specify a duration less than 10 minutes"
            ),
            field: "spec.expirationSeconds".into(),
        }],
        ..Default::default()
    }));
    error
}

/// A random version-4 UUID.
fn uuid() -> String {
    let bytes: [u8; 16] = rand::random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`: the review with its `status`, and the
/// managedFields kube-apiserver's create handler records for its `spec`.
pub fn token_review(
    app: &Arc<App>,
    request: &ResourceRequest,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let review: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the request body is not a TokenReview: {e}"))
    })?;
    let token = review
        .pointer("/spec/token")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if token.is_empty() {
        return Err(ApiError::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let wanted: Vec<String> = review
        .pointer("/spec/audiences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let status = review_status(app, &token, &wanted);
    let (api_version, kind) = ("authentication.k8s.io/v1", "TokenReview");
    let spec = review.get("spec").cloned().unwrap_or_else(|| json!({}));
    let metadata = review.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let metadata = super::reviews::with_managed_fields(request, api_version, kind, metadata, &spec);
    let text = super::reviews::ordered(api_version, kind, &metadata, Some(&spec), &status);
    Ok(json_response(StatusCode::CREATED, text))
}

/// What a TokenReview of `token` finds, for a reviewer wanting `wanted` audiences (none: the
/// server's).
fn review_status(app: &App, token: &str, wanted: &[String]) -> Value {
    let audiences: Vec<String> = if wanted.is_empty() {
        vec![ISSUER.to_owned()]
    } else {
        wanted.to_vec()
    };
    if app.token.as_deref() == Some(token) && audiences.iter().any(|a| a == ISSUER) {
        return json!({"audiences": [ISSUER], "authenticated": true, "user": admin_user()});
    }
    let Some(claims) = app.issuer.verify(token) else {
        return rejected();
    };
    let token_audiences: Vec<&str> = claims
        .get("aud")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let matched: Vec<&String> = audiences
        .iter()
        .filter(|a| token_audiences.contains(&a.as_str()))
        .collect();
    let expired = claims
        .get("exp")
        .and_then(Value::as_i64)
        .is_none_or(|exp| exp < now_seconds());
    let account_uid = |pointer: &str| {
        claims
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (namespace, name, uid) = (
        account_uid("/kubernetes.io/namespace"),
        account_uid("/kubernetes.io/serviceaccount/name"),
        account_uid("/kubernetes.io/serviceaccount/uid"),
    );
    if matched.is_empty() || expired || !account_exists(app, namespace, name, uid) {
        return rejected();
    }
    let jti = claims
        .get("jti")
        .and_then(Value::as_str)
        .unwrap_or_default();
    json!({
        "audiences": matched,
        "authenticated": true,
        "user": {
            "extra": {"authentication.kubernetes.io/credential-id": [format!("JTI={jti}")]},
            "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{namespace}"),
                "system:authenticated"],
            "uid": uid,
            "username": format!("system:serviceaccount:{namespace}:{name}"),
        },
    })
}

/// Whether the token's service account still exists with the uid it was issued for.
fn account_exists(app: &App, namespace: &str, name: &str, uid: &str) -> bool {
    let registry = app.store.registry();
    let Some(accounts) = registry.find("", "v1", "serviceaccounts") else {
        return false;
    };
    app.store
        .get(&accounts.key(), &object_key(namespace, name))
        .and_then(|o| o.to_value().ok())
        .is_some_and(|a| a.pointer("/metadata/uid").and_then(Value::as_str) == Some(uid))
}

/// The status of a token not accepted.
fn rejected() -> Value {
    json!({"error": "invalid bearer token", "user": {}})
}
