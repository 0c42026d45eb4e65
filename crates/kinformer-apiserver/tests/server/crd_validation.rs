//! Custom resources validated against their CRD's structural schema as kube-apiserver 1.37
//! validates them (apiextensions-apiserver `pkg/registry/customresource/strategy.go` v0.37.2;
//! kube-openapi `pkg/validation/validate` and `errors/schema.go` for the words;
//! `pkg/apiserver/validation/validation.go` `kubeOpenAPIResultToFieldErrors` for the cause
//! types): every kind of check refuses its bad object with kube-apiserver's 422 — on create,
//! update, merge and JSON patch, apply and the status subresource — and an update that leaves
//! an invalid value as it was is not refused for it (validation ratcheting). The same bad
//! objects are rows of the conformance corpus (`tests/conformance/crd_validation.yaml`),
//! compared byte for byte with kube-apiserver's answers.

use serde_json::{Value, json};

use kinformer_apiserver::EmbeddedServer;

use crate::support::{JSON, MERGE, TestResult, call, seeded};

const JSON_PATCH: &str = "application/json-patch+json";
const APPLY: &str = "application/apply-patch+yaml";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

/// A schema with one field per kind of check.
fn schema() -> Value {
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "minLength": 3, "maxLength": 10, "pattern": "^[a-z][a-z0-9-]*$"},
            "replicas": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10},
            "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true,
                      "maximum": 1, "exclusiveMaximum": true},
            "step": {"type": "integer", "multipleOf": 5},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "minItems": 1, "maxItems": 3,
                     "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "required": ["name"], "properties": {
                          "name": {"type": "string"}, "port": {"type": "integer"}}}},
            "labels": {"type": "object", "maxProperties": 2,
                       "additionalProperties": {"type": "string", "maxLength": 5}},
            "port": {"x-kubernetes-int-or-string": true},
            "note": {"type": "string", "nullable": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "x-kubernetes-preserve-unknown-fields": true},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {
            "phase": {"type": "string", "enum": ["Pending", "Ready"]},
            "ready": {"type": "integer", "minimum": 0}}}}})
}

fn crd(schema: Value) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}, "subresources": {"status": {}}}]}})
}

fn gadget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec})
}

/// A server serving the gadgets of [`schema`].
async fn server() -> Result<EmbeddedServer, Box<dyn std::error::Error>> {
    let server = seeded(Vec::new()).await?;
    let (code, answer) = call(&server, "POST", CRDS, Some((JSON, crd(schema())))).await?;
    assert_eq!(code, 201, "{answer}");
    Ok(server)
}

/// The 422's message and its causes as `reason field: message` lines.
fn refusal(code: u16, answer: &Value) -> (String, Vec<String>) {
    assert_eq!(code, 422, "{answer}");
    assert_eq!(answer["reason"], "Invalid", "{answer}");
    assert_eq!(answer["details"]["group"], "example.com", "{answer}");
    assert_eq!(answer["details"]["kind"], "Gadget", "{answer}");
    let causes = answer["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{} {}: {}",
                c["reason"].as_str().unwrap_or_default(),
                c["field"].as_str().unwrap_or_default(),
                c["message"].as_str().unwrap_or_default()
            )
        })
        .collect();
    (
        answer["message"].as_str().unwrap_or_default().to_owned(),
        causes,
    )
}

/// Creates `spec` as gadget `g` and returns kube-apiserver's single cause.
async fn refused_create(
    server: &EmbeddedServer,
    spec: Value,
) -> Result<String, Box<dyn std::error::Error>> {
    let (code, answer) = call(server, "POST", GADGETS, Some((JSON, gadget("g", spec)))).await?;
    let (message, causes) = refusal(code, &answer);
    assert_eq!(causes.len(), 1, "{answer}");
    let cause = causes[0].clone();
    let (_, text) = cause.split_once(' ').unwrap_or_default();
    assert_eq!(
        message,
        format!("Gadget.example.com \"g\" is invalid: {text}")
    );
    Ok(cause)
}

/// Each kind of check, one bad field at a time: the cause's reason, field and words are
/// kube-openapi's (`errors/schema.go`) as apiextensions-apiserver turns them into field errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_check_refuses_with_kube_apiserver_s_words() -> TestResult {
    let server = server().await?;
    let cases = [
        (
            json!({"name": 7}),
            r#"FieldValueTypeInvalid spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer""#,
        ),
        (
            json!({"name": "ab"}),
            r#"FieldValueInvalid spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long"#,
        ),
        (
            json!({"name": "abcdefghijk"}),
            "FieldValueTooLong spec.name: Too long: may not be more than 10 bytes",
        ),
        (
            json!({"name": "Abc"}),
            r#"FieldValueInvalid spec.name: Invalid value: "Abc": spec.name in body should match '^[a-z][a-z0-9-]*$'"#,
        ),
        (
            json!({"name": "abc", "replicas": 11}),
            "FieldValueInvalid spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
        ),
        (
            json!({"name": "abc", "replicas": 0}),
            "FieldValueInvalid spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
        ),
        (
            json!({"name": "abc", "ratio": 1}),
            "FieldValueInvalid spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1",
        ),
        (
            json!({"name": "abc", "ratio": 0.0}),
            "FieldValueInvalid spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0",
        ),
        (
            json!({"name": "abc", "step": 7}),
            "FieldValueInvalid spec.step: Invalid value: 7: spec.step in body should be a multiple of 5",
        ),
        (
            json!({"name": "abc", "mode": "medium"}),
            r#"FieldValueNotSupported spec.mode: Unsupported value: "medium": supported values: "fast", "slow""#,
        ),
        (
            json!({"name": "abc", "when": "yesterday"}),
            r#"FieldValueTypeInvalid spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday""#,
        ),
        (
            json!({"name": "abc", "tags": []}),
            "FieldValueInvalid spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items",
        ),
        (
            json!({"name": "abc", "tags": ["a", "b", "c", "d"]}),
            "FieldValueTooMany spec.tags: Too many: 4: must have at most 3 items",
        ),
        (
            json!({"name": "abc", "tags": ["a", "b", "a"]}),
            r#"FieldValueDuplicate spec.tags[2]: Duplicate value: "a""#,
        ),
        (
            json!({"name": "abc", "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]}),
            r#"FieldValueDuplicate spec.ports[1]: Duplicate value: {"name":"http"}"#,
        ),
        (
            json!({"name": "abc", "ports": [{"port": 80}]}),
            "FieldValueRequired spec.ports[0].name: Required value",
        ),
        (
            json!({"name": "abc", "labels": {"a": "1", "b": "2", "c": "3"}}),
            "FieldValueTooMany spec.labels: Too many: 3: must have at most 2 items",
        ),
        (
            json!({"name": "abc", "labels": {"a": "123456"}}),
            "FieldValueTooLong spec.labels.a: Too long: may not be more than 5 bytes",
        ),
        (
            json!({"name": "abc", "port": true}),
            r#"FieldValueTypeInvalid spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#,
        ),
        (
            json!({"name": "abc", "template": {"apiVersion": "v1", "kind": ""}}),
            r#"FieldValueInvalid spec.template.kind: Invalid value: "": must not be empty"#,
        ),
        (json!({}), "FieldValueRequired spec.name: Required value"),
    ];
    for (spec, expected) in cases {
        assert_eq!(
            refused_create(&server, spec.clone()).await?,
            expected,
            "{spec}"
        );
    }
    server.shutdown().await;
    Ok(())
}

/// What the schema allows is stored: int-or-string takes both, nullable takes null, a known
/// format its values, preserved fields anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_schema_allows_is_stored() -> TestResult {
    let server = server().await?;
    let spec = json!({"name": "abc", "replicas": 10, "ratio": 0.5, "step": 15, "mode": "fast",
        "when": "2026-11-28T10:00:00Z", "tags": ["a", "b"], "ports": [{"name": "http", "port": 80}],
        "labels": {"a": "1"}, "port": "http", "note": null,
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
        "free": {"any": [1, "x"]}});
    let (code, answer) = call(&server, "POST", GADGETS, Some((JSON, gadget("ok", spec)))).await?;
    assert_eq!(code, 201, "{answer}");
    let (code, answer) = call(
        &server,
        "POST",
        GADGETS,
        Some((JSON, gadget("ok2", json!({"name": "abc", "port": 8080})))),
    )
    .await?;
    assert_eq!(code, 201, "{answer}");
    server.shutdown().await;
    Ok(())
}

/// Several failing checks are aggregated: the message lists each cause, `[a, b]`, and the
/// causes follow kube-openapi's order — a field's own checks before the `required` of its
/// object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_errors_are_aggregated_in_kube_openapi_s_order() -> TestResult {
    let server = server().await?;
    let (code, answer) = call(
        &server,
        "POST",
        GADGETS,
        Some((JSON, gadget("g", json!({"mode": 3})))),
    )
    .await?;
    let (message, causes) = refusal(code, &answer);
    assert_eq!(
        causes,
        [
            r#"FieldValueTypeInvalid spec.mode: Invalid value: "integer": spec.mode in body must be of type string: "integer""#,
            r#"FieldValueNotSupported spec.mode: Unsupported value: 3: supported values: "fast", "slow""#,
            "FieldValueRequired spec.name: Required value",
        ]
    );
    assert_eq!(
        message,
        r#"Gadget.example.com "g" is invalid: [spec.mode: Invalid value: "integer": spec.mode in body must be of type string: "integer", spec.mode: Unsupported value: 3: supported values: "fast", "slow", spec.name: Required value]"#
    );
    server.shutdown().await;
    Ok(())
}

/// Every write path validates: PUT, a merge patch, a JSON patch, an apply and a write of the
/// status subresource are refused with the same cause.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_path_validates() -> TestResult {
    let server = server().await?;
    let (code, stored) = call(
        &server,
        "POST",
        GADGETS,
        Some((JSON, gadget("g", json!({"name": "abc"})))),
    )
    .await?;
    assert_eq!(code, 201, "{stored}");
    let path = format!("{GADGETS}/g");
    let too_many = "FieldValueInvalid spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10";
    let mut bad = stored.clone();
    bad["spec"]["replicas"] = json!(11);
    let writes = [
        ("PUT", path.clone(), JSON, bad),
        (
            "PATCH",
            path.clone(),
            MERGE,
            json!({"spec": {"replicas": 11}}),
        ),
        (
            "PATCH",
            path.clone(),
            JSON_PATCH,
            json!([{"op": "add", "path": "/spec/replicas", "value": 11}]),
        ),
        (
            "PATCH",
            format!("{path}?fieldManager=tester"),
            APPLY,
            json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"name": "abc", "replicas": 11}}),
        ),
    ];
    for (method, at, content_type, body) in writes {
        let (code, answer) = call(&server, method, &at, Some((content_type, body))).await?;
        let (_, causes) = refusal(code, &answer);
        assert_eq!(causes, [too_many], "{method} {content_type}");
    }
    let status = format!("{path}/status");
    let (code, answer) = call(
        &server,
        "PATCH",
        &status,
        Some((MERGE, json!({"status": {"phase": "Gone", "ready": 1}}))),
    )
    .await?;
    let (_, causes) = refusal(code, &answer);
    assert_eq!(
        causes,
        [
            r#"FieldValueNotSupported status.phase: Unsupported value: "Gone": supported values: "Pending", "Ready""#
        ]
    );
    let (code, answer) = call(
        &server,
        "PATCH",
        &status,
        Some((MERGE, json!({"status": {"phase": "Ready"}}))),
    )
    .await?;
    assert_eq!(code, 200, "{answer}");
    server.shutdown().await;
    Ok(())
}

/// Validation ratcheting (CRDValidationRatcheting, GA in 1.33): once the CRD is tightened, an
/// object stored under the old schema can still be updated while its invalid value stays as it
/// was; changing that value to another invalid one is refused (apiextensions-apiserver
/// `pkg/apiserver/validation/ratcheting.go` v0.37.2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_invalid_value_is_ratcheted() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let loose = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "replicas": {"type": "integer"}, "name": {"type": "string"}}}}});
    let (code, answer) = call(&server, "POST", CRDS, Some((JSON, crd(loose)))).await?;
    assert_eq!(code, 201, "{answer}");
    let (code, answer) = call(
        &server,
        "POST",
        GADGETS,
        Some((JSON, gadget("g", json!({"name": "a", "replicas": 50})))),
    )
    .await?;
    assert_eq!(code, 201, "{answer}");
    let crd_path = format!("{CRDS}/gadgets.example.com");
    let tighten = json!([{"op": "add",
        "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/maximum",
        "value": 10}]);
    let (code, answer) = call(&server, "PATCH", &crd_path, Some((JSON_PATCH, tighten))).await?;
    assert_eq!(code, 200, "{answer}");
    let path = format!("{GADGETS}/g");
    let (code, answer) = call(
        &server,
        "PATCH",
        &path,
        Some((MERGE, json!({"spec": {"name": "b"}}))),
    )
    .await?;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = call(
        &server,
        "PATCH",
        &path,
        Some((MERGE, json!({"spec": {"replicas": 40}}))),
    )
    .await?;
    let (_, causes) = refusal(code, &answer);
    assert_eq!(
        causes,
        [
            "FieldValueInvalid spec.replicas: Invalid value: 40: spec.replicas in body should be less than or equal to 10"
        ]
    );
    server.shutdown().await;
    Ok(())
}

/// A schema whose rules (`x-kubernetes-validations`) cover each way a rule words its failure.
fn rules_schema() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.min <= self.max", "message": "min must not exceed max"},
            {"rule": "self.max < 100"},
            {"rule": "!has(self.secret)", "reason": "FieldValueForbidden", "fieldPath": ".secret",
             "message": "secret must not be set"},
            {"rule": "self.mode == oldSelf.mode", "message": "mode is immutable"}],
        "properties": {
            "min": {"type": "integer", "default": 0},
            "max": {"type": "integer", "default": 10},
            "mode": {"type": "string", "default": "a"},
            "secret": {"type": "string"},
            "size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 10",
                "messageExpression": "self > 100 ? 'size is far too big' : 'size is too big'"}]},
            "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('a')"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
                {"rule": "self.isSorted()", "message": "tags must be sorted"}]},
            "memory": {"type": "string", "x-kubernetes-validations": [
                {"rule": "quantity(self).isLessThan(quantity('1Gi'))", "message": "memory must be under 1Gi"}]},
            "count": {"type": "integer", "maximum": 5, "x-kubernetes-validations": [
                {"rule": "self % 2 == 0", "message": "count must be even"}]}}}}})
}

/// CEL rules refuse as kube-apiserver's `validateExpressions` words it
/// (apiextensions-apiserver `pkg/apiserver/schema/cel/validation.go` v0.37.2:352-503): an
/// object's or list's failure shows no value, a scalar's shows it; `message`, else
/// `failed rule: <rule>`; `messageExpression` first; `reason` and `fieldPath` move the cause;
/// `default`s are filled in before the rules run; a schema error of a blocking kind keeps the
/// rules from running (`hasBlockingErr`, `pkg/registry/customresource/strategy.go`:405), another
/// does not. The answers are kube-apiserver 1.37.2's, measured (conformance rows `crd rules:`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cel_rules_refuse_with_kube_apiserver_s_words() -> TestResult {
    let server = seeded(Vec::new()).await?;
    let (code, answer) = call(&server, "POST", CRDS, Some((JSON, crd(rules_schema())))).await?;
    assert_eq!(code, 201, "{answer}");
    let cases = [
        (
            json!({"min": 5, "max": 2}),
            vec!["FieldValueInvalid spec: Invalid value: min must not exceed max"],
        ),
        (
            json!({"max": 200}),
            vec!["FieldValueInvalid spec: Invalid value: failed rule: self.max < 100"],
        ),
        (
            json!({"size": 12}),
            vec!["FieldValueInvalid spec.size: Invalid value: 12: size is too big"],
        ),
        (
            json!({"secret": "x"}),
            vec!["FieldValueForbidden spec.secret: Forbidden: secret must not be set"],
        ),
        (
            json!({"name": "bob"}),
            vec![
                r#"FieldValueInvalid spec.name: Invalid value: "bob": failed rule: self.startsWith('a')"#,
            ],
        ),
        (
            json!({"tags": ["b", "a"]}),
            vec!["FieldValueInvalid spec.tags: Invalid value: tags must be sorted"],
        ),
        (
            json!({"memory": "2Gi"}),
            vec![
                r#"FieldValueInvalid spec.memory: Invalid value: "2Gi": memory must be under 1Gi"#,
            ],
        ),
        (
            json!({"count": "x"}),
            vec![
                r#"FieldValueTypeInvalid spec.count: Invalid value: "string": spec.count in body must be of type integer: "string""#,
                "FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ],
        ),
        (
            json!({"count": 7}),
            vec![
                "FieldValueInvalid spec.count: Invalid value: 7: spec.count in body should be less than or equal to 5",
                "FieldValueInvalid spec.count: Invalid value: 7: count must be even",
            ],
        ),
    ];
    for (spec, expected) in cases {
        let body = gadget("bad", spec.clone());
        let (code, answer) = call(&server, "POST", GADGETS, Some((JSON, body))).await?;
        let (_, causes) = refusal(code, &answer);
        assert_eq!(causes, expected, "{spec}");
    }
    let good = gadget(
        "r1",
        json!({"size": 1, "name": "amy", "tags": ["a", "b"], "memory": "512Mi", "count": 4}),
    );
    let (code, answer) = call(&server, "POST", GADGETS, Some((JSON, good))).await?;
    assert_eq!(code, 201, "{answer}");
    // The transition rule runs on an update only.
    let path = format!("{GADGETS}/r1");
    let (code, answer) = call(
        &server,
        "PATCH",
        &path,
        Some((MERGE, json!({"spec": {"mode": "b"}}))),
    )
    .await?;
    let (_, causes) = refusal(code, &answer);
    assert_eq!(
        causes,
        ["FieldValueInvalid spec: Invalid value: mode is immutable"]
    );
    let (code, answer) = call(
        &server,
        "PATCH",
        &path,
        Some((MERGE, json!({"spec": {"size": 2}}))),
    )
    .await?;
    assert_eq!(code, 200, "{answer}");
    server.shutdown().await;
    Ok(())
}
