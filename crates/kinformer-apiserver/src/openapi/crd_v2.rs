//! A custom resource's share of `/openapi/v2`, as kube-apiserver's CRD OpenAPI controller
//! builds it for each served version (apiextensions-apiserver
//! pkg/controller/openapi/controller.go:84-109, builder/builder.go:208 `BuildOpenAPIV2`): the
//! kind's and the list kind's definitions and the paths of its routes, written in the order
//! kube-openapi marshals them (struct fields in declaration order, map keys sorted; extensions
//! last). The schema goes through the v2 conversion ([`super::schema_v2`]); the routes
//! follow builder.go:161-190 and their parameters kube-openapi's builder: those every route
//! of a path has move to the path (pkg/builder/openapi.go:229-251), each list sorted by name,
//! and every one that is not `name`, `dryRun`, `fieldValidation` or a body of the kind's own
//! schema is replaced by a reference to the shared `parameters` entry the static document
//! already has (pkg/builder/parameters.go:54-75).

use serde_json::{Value, json};

use super::ordered::Node;
use super::schema_v2::{self, Texts};
use crate::resources::ResourceType;

/// `#/definitions/` references to the meta kinds.
const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const SCALE: &str = "io.k8s.api.autoscaling.v1.Scale";

/// The shared parameters (`#/parameters/<name>` of the captured document; names are
/// kube-openapi's hash of each parameter's JSON, parameters.go:150-154) the routes use.
const LIST_OPTIONS: &[&str] = &[
    "allowWatchBookmarks-HC2hJt-J",
    "continue-QfD61s0i",
    "fieldSelector-xIcQKXFG",
    "labelSelector-5Zw57w4C",
    "limit-1NfNmdNH",
    "resourceVersion-5WAnf1kx",
    "resourceVersionMatch-t8XhRHeC",
    "sendInitialEvents-rLXlEK_k",
    "shardSelector-Kgyki_3_",
    "timeoutSeconds-yvYezaOC",
    "watch-XNNPZGbK",
];
const PRETTY: &str = "pretty-tJGM1-ng";
const NAMESPACE: &str = "namespace-vgWSWtn3";
const GET_RESOURCE_VERSION: &str = "resourceVersion-5WAnf1kx";
const FIELD_MANAGER: &str = "fieldManager-Qy4HdaTW";
const PATCH_FIELD_MANAGER: &str = "fieldManager-7c6nTn1T";
const FORCE: &str = "force-tOGGb0Yi";
const PATCH_BODY: &str = "body-78PwaGsr";
const DELETE_BODY: &str = "body-2Y1dVQaQ";
const DELETE_OPTIONS: &[&str] = &[
    "gracePeriodSeconds--K5HaBOS",
    "ignoreStoreReadErrorWithClusterBreakingPotential-QbNkfIqj",
    "orphanDependents-uRB25kX5",
    "propagationPolicy-6jk3prlO",
];

/// Every shared parameter name the routes refer to (a test checks the captured document has
/// each).
#[cfg(test)]
pub fn shared_parameters() -> Vec<&'static str> {
    let mut all = vec![
        PRETTY,
        NAMESPACE,
        GET_RESOURCE_VERSION,
        FIELD_MANAGER,
        PATCH_FIELD_MANAGER,
        FORCE,
        PATCH_BODY,
        DELETE_BODY,
    ];
    all.extend(LIST_OPTIONS);
    all.extend(DELETE_OPTIONS);
    all
}

/// The definitions and paths of one custom resource (all its served versions), each as
/// `(key, JSON)`.
pub struct CrdParts {
    pub definitions: Vec<(String, String)>,
    pub paths: Vec<(String, String)>,
}

/// A custom resource's definitions and paths.
pub fn build(resource: &ResourceType, texts: &Texts) -> CrdParts {
    let mut parts = CrdParts {
        definitions: Vec::new(),
        paths: Vec::new(),
    };
    for version in &resource.versions {
        let crd = Crd::new(resource, version);
        let schema = resource
            .schemas
            .iter()
            .find(|(v, _)| v == version)
            .map(|(_, s)| s);
        let selectable = selectable_fields(resource, version);
        parts.definitions.push((
            crd.model(&resource.kind),
            schema_v2::object_definition(
                schema,
                json!({"group": crd.group, "kind": resource.kind, "version": crd.version}),
                selectable.clone(),
                texts,
            )
            .to_json(),
        ));
        parts.definitions.push((
            crd.model(&resource.list_kind),
            list_definition(&crd, resource, selectable, texts).to_json(),
        ));
        parts.paths.extend(
            crd.paths(resource, texts)
                .into_iter()
                .map(|(path, item)| (path, item.to_json())),
        );
    }
    parts
}

/// `x-kubernetes-selectable-fields` of a version, when it declares selectable fields
/// (builder.go:633-652; the CustomResourceFieldSelectors gate is on since 1.32).
fn selectable_fields(resource: &ResourceType, version: &str) -> Option<Value> {
    let (_, fields) = resource
        .selectable_fields
        .iter()
        .find(|(v, fields)| v == version && !fields.is_empty())?;
    Some(Value::Array(
        fields.iter().map(|f| json!({"fieldPath": f})).collect(),
    ))
}

/// The list kind's definition (builder.go:505-529).
fn list_definition(
    crd: &Crd,
    resource: &ResourceType,
    selectable: Option<Value>,
    texts: &Texts,
) -> Node {
    let items = Node::object([
        (
            "description",
            Node::str(format!(
                "List of {}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
                resource.plural
            )),
        ),
        ("type", Node::str("array")),
        ("items", reference(&crd.model(&resource.kind))),
    ]);
    let metadata = Node::object([
        ("description", Node::str(schema_v2::LIST_META_DESCRIPTION)),
        (
            "$ref",
            Node::str(format!("#/definitions/{}", schema_v2::LIST_META)),
        ),
    ]);
    let mut members = vec![
        (
            "description".to_owned(),
            Node::str(format!(
                "{} is a list of {}",
                resource.list_kind, resource.kind
            )),
        ),
        ("type".to_owned(), Node::str("object")),
        ("required".to_owned(), Node::strs(&["items"])),
        (
            "properties".to_owned(),
            Node::object([
                ("apiVersion", texts.api_version()),
                ("items", items),
                ("kind", texts.kind()),
                ("metadata", metadata),
            ]),
        ),
        (
            "x-kubernetes-group-version-kind".to_owned(),
            Node::Array(vec![crd.gvk(&resource.list_kind)]),
        ),
    ];
    if let Some(fields) = selectable {
        members.push((
            "x-kubernetes-selectable-fields".to_owned(),
            Node::from_value(&fields),
        ));
    }
    Node::Object(members)
}

/// `{"$ref": "#/definitions/<name>"}`.
fn reference(name: &str) -> Node {
    Node::object([("$ref", Node::str(format!("#/definitions/{name}")))])
}

/// `{"$ref": "#/parameters/<name>"}`.
fn shared(name: &str) -> Param {
    Param {
        sort_name: name.split_once('-').map_or(name, |(n, _)| n).to_owned(),
        node: Node::object([("$ref", Node::str(format!("#/parameters/{name}")))]),
    }
}

/// One parameter of a route: the name it sorts by and what is written.
#[derive(Clone, PartialEq)]
struct Param {
    sort_name: String,
    node: Node,
}

/// What a route answers with.
#[derive(Clone, Copy)]
enum Sample {
    Kind,
    List,
    Status,
    Scale,
}

/// The request body a route reads.
#[derive(Clone, Copy)]
enum Reads {
    Nothing,
    Kind,
    Scale,
    Patch,
    DeleteOptions,
}

/// The route's verb (go-restful's `x-kubernetes-action`, the operation's verb).
#[derive(Clone, Copy)]
struct Verb {
    method: &'static str,
    action: &'static str,
    operation: &'static str,
}

const LIST: Verb = Verb {
    method: "get",
    action: "list",
    operation: "list",
};
const CREATE: Verb = Verb {
    method: "post",
    action: "post",
    operation: "create",
};
const DELETE_COLLECTION: Verb = Verb {
    method: "delete",
    action: "deletecollection",
    operation: "deletecollection",
};
const READ: Verb = Verb {
    method: "get",
    action: "get",
    operation: "read",
};
const REPLACE: Verb = Verb {
    method: "put",
    action: "put",
    operation: "replace",
};
const DELETE: Verb = Verb {
    method: "delete",
    action: "delete",
    operation: "delete",
};
const PATCH: Verb = Verb {
    method: "patch",
    action: "patch",
    operation: "patch",
};

/// One route: its verb, what it returns and reads, and its operation name when the
/// builder overrides it.
struct Route {
    verb: Verb,
    sample: Sample,
    reads: Reads,
    operation_id: Option<String>,
}

fn route(verb: Verb, sample: Sample, reads: Reads) -> Route {
    Route {
        verb,
        sample,
        reads,
        operation_id: None,
    }
}

/// A custom resource's version, as the builder names things.
struct Crd {
    group: String,
    version: String,
    kind: String,
    plural: String,
    namespaced: bool,
}

impl Crd {
    fn new(resource: &ResourceType, version: &str) -> Crd {
        Crd {
            group: resource.group.clone(),
            version: version.to_owned(),
            kind: resource.kind.clone(),
            plural: resource.plural.clone(),
            namespaced: resource.namespaced,
        }
    }

    /// `com.example.v1.Gadget` (builder.go:531-536).
    fn model(&self, kind: &str) -> String {
        let group: Vec<&str> = self.group.split('.').rev().collect();
        format!("{}.{}.{kind}", group.join("."), self.version)
    }

    /// `{"group", "kind", "version"}`.
    fn gvk(&self, kind: &str) -> Node {
        Node::object([
            ("group", Node::str(self.group.as_str())),
            ("kind", Node::str(kind)),
            ("version", Node::str(self.version.as_str())),
        ])
    }

    /// Every path of the version and its item (builder.go:161-190).
    fn paths(&self, resource: &ResourceType, texts: &Texts) -> Vec<(String, Node)> {
        let mut root = format!("/apis/{}/{}/{}", self.group, self.version, self.plural);
        let mut paths = Vec::new();
        if self.namespaced {
            let mut all = route(LIST, Sample::List, Reads::Nothing);
            all.operation_id = Some(format!("list{}ForAllNamespaces", self.kind));
            paths.push((root.clone(), "", vec![all]));
            root = format!(
                "/apis/{}/{}/namespaces/{{namespace}}/{}",
                self.group, self.version, self.plural
            );
        }
        paths.push((
            root.clone(),
            "",
            vec![
                route(LIST, Sample::List, Reads::Nothing),
                route(CREATE, Sample::Kind, Reads::Kind),
                route(DELETE_COLLECTION, Sample::Status, Reads::Nothing),
            ],
        ));
        paths.push((
            format!("{root}/{{name}}"),
            "",
            vec![
                route(READ, Sample::Kind, Reads::Nothing),
                route(REPLACE, Sample::Kind, Reads::Kind),
                route(DELETE, Sample::Status, Reads::DeleteOptions),
                route(PATCH, Sample::Kind, Reads::Patch),
            ],
        ));
        let subresources = resource
            .subresources
            .iter()
            .find(|s| s.version == self.version);
        if subresources.is_some_and(|s| s.status) {
            paths.push((
                format!("{root}/{{name}}/status"),
                "status",
                vec![
                    route(READ, Sample::Kind, Reads::Nothing),
                    route(REPLACE, Sample::Kind, Reads::Kind),
                    route(PATCH, Sample::Kind, Reads::Patch),
                ],
            ));
        }
        if subresources.is_some_and(|s| s.scale.is_some()) {
            paths.push((
                format!("{root}/{{name}}/scale"),
                "scale",
                vec![
                    route(READ, Sample::Scale, Reads::Nothing),
                    route(REPLACE, Sample::Scale, Reads::Scale),
                    route(PATCH, Sample::Scale, Reads::Patch),
                ],
            ));
        }
        paths
            .into_iter()
            .map(|(path, sub, routes)| {
                let item = self.path_item(&path, sub, &routes, texts);
                (path, item)
            })
            .collect()
    }

    /// A path's item: its operations in go-openapi's order, the parameters all of them
    /// share at the path.
    fn path_item(&self, path: &str, sub: &str, routes: &[Route], texts: &Texts) -> Node {
        let params: Vec<Vec<Param>> = routes
            .iter()
            .map(|r| self.parameters(path, r, texts))
            .collect();
        let common: Vec<Param> = params[0]
            .iter()
            .filter(|p| params.iter().all(|ps| ps.contains(p)))
            .cloned()
            .collect();
        let mut operations: Vec<(&str, Node)> = Vec::new();
        for (route, own) in routes.iter().zip(params) {
            let own: Vec<Param> = own.into_iter().filter(|p| !common.contains(p)).collect();
            operations.push((route.verb.method, self.operation(path, sub, route, own)));
        }
        let mut members: Vec<(String, Node)> = Vec::new();
        for method in ["get", "put", "post", "delete", "options", "head", "patch"] {
            if let Some((_, op)) = operations.iter().find(|(m, _)| *m == method) {
                members.push((method.to_owned(), op.clone()));
            }
        }
        if !common.is_empty() {
            members.push(("parameters".to_owned(), sorted(common)));
        }
        Node::Object(members)
    }

    /// A route's parameters, before the path takes the shared ones (builder.go:311-365).
    fn parameters(&self, path: &str, route: &Route, texts: &Texts) -> Vec<Param> {
        let mut params = vec![shared(PRETTY)];
        if path.contains("{namespace}") {
            params.push(shared(NAMESPACE));
        }
        if path.contains("{name}") {
            params.push(Param {
                sort_name: "name".into(),
                node: Node::object([
                    ("uniqueItems", Node::Bool(true)),
                    ("type", Node::str("string")),
                    (
                        "description",
                        Node::str(format!("name of the {}", self.kind)),
                    ),
                    ("name", Node::str("name")),
                    ("in", Node::str("path")),
                    ("required", Node::Bool(true)),
                ]),
            });
        }
        match route.reads {
            Reads::Nothing => {}
            Reads::Kind => params.push(body(&self.model(&self.kind))),
            Reads::Scale => params.push(body(SCALE)),
            Reads::Patch => params.push(shared(PATCH_BODY)),
            Reads::DeleteOptions => params.push(shared(DELETE_BODY)),
        }
        let inline = |name: &str, node: &Node| Param {
            sort_name: name.into(),
            node: node.clone(),
        };
        match route.verb.action {
            "get" => params.push(shared(GET_RESOURCE_VERSION)),
            "list" | "deletecollection" => params.extend(LIST_OPTIONS.iter().map(|p| shared(p))),
            "put" | "post" => params.extend([
                inline("dryRun", &texts.dry_run),
                shared(FIELD_MANAGER),
                inline("fieldValidation", &texts.field_validation),
            ]),
            "patch" => params.extend([
                inline("dryRun", &texts.dry_run),
                shared(PATCH_FIELD_MANAGER),
                inline("fieldValidation", &texts.field_validation),
                shared(FORCE),
            ]),
            "delete" => {
                params.push(inline("dryRun", &texts.dry_run));
                params.extend(DELETE_OPTIONS.iter().map(|p| shared(p)));
            }
            _ => {}
        }
        params
    }

    /// One operation (description, media types, tags, id, parameters, responses, action).
    fn operation(&self, path: &str, sub: &str, route: &Route, params: Vec<Param>) -> Node {
        let consumes: &[&str] = if route.verb.method == "patch" {
            &[
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/apply-patch+yaml",
            ]
        } else {
            &["application/json", "application/yaml"]
        };
        let name = route.operation_id.clone().unwrap_or_else(|| {
            let namespaced = if self.namespaced { "Namespaced" } else { "" };
            format!(
                "{}{namespaced}{}{}",
                route.verb.operation,
                self.kind,
                title(sub)
            )
        });
        let (id, tag) = operation_id_and_tag(&name, path);
        let mut members = vec![
            (
                "description".to_owned(),
                Node::str(self.description(sub, route.verb.operation)),
            ),
            ("consumes".to_owned(), Node::strs(consumes)),
            (
                "produces".to_owned(),
                Node::strs(&["application/json", "application/yaml"]),
            ),
            ("schemes".to_owned(), Node::strs(&["https"])),
            ("tags".to_owned(), Node::Array(vec![Node::str(tag)])),
            ("operationId".to_owned(), Node::str(id)),
        ];
        if !params.is_empty() {
            members.push(("parameters".to_owned(), sorted(params)));
        }
        members.push(("responses".to_owned(), self.responses(route)));
        members.push((
            "x-kubernetes-action".to_owned(),
            Node::str(route.verb.action),
        ));
        members.push((
            "x-kubernetes-group-version-kind".to_owned(),
            self.gvk(&self.kind),
        ));
        Node::Object(members)
    }

    /// builder.go:270-304.
    fn description(&self, sub: &str, verb: &str) -> String {
        let sub = if sub.is_empty() {
            String::new()
        } else {
            format!(" {sub} of")
        };
        let kind = &self.kind;
        match verb {
            "list" => format!("list{sub} objects of kind {kind}"),
            "read" | "replace" => format!("{verb}{sub} the specified {kind}"),
            "patch" => format!("partially update{sub} the specified {kind}"),
            "create" | "delete" => format!("{verb}{sub}{}{kind}", article(kind)),
            "deletecollection" => {
                let sub = if sub.is_empty() {
                    sub
                } else {
                    format!("{sub} a")
                };
                format!("delete collection of{sub} {kind}")
            }
            _ => format!("{verb}{sub}{kind}"),
        }
    }

    /// 200 with the sample, 201/202 by verb (builder.go:367-376), the common 401.
    fn responses(&self, route: &Route) -> Node {
        let schema = match route.sample {
            Sample::Kind => reference(&self.model(&self.kind)),
            Sample::List => reference(&self.model(&format!("{}List", self.kind))),
            Sample::Status => reference(STATUS),
            Sample::Scale => reference(SCALE),
        };
        let answer = |description: &str| {
            Node::object([
                ("description", Node::str(description)),
                ("schema", schema.clone()),
            ])
        };
        let mut members = vec![("200", answer("OK"))];
        match route.verb.action {
            "post" => {
                members.push(("201", answer("Created")));
                members.push(("202", answer("Accepted")));
            }
            "put" => members.push(("201", answer("Created"))),
            "delete" => members.push(("202", answer("Accepted"))),
            _ => {}
        }
        members.push((
            "401",
            Node::object([("description", Node::str("Unauthorized"))]),
        ));
        Node::object(members)
    }
}

/// A body parameter of the kind's (or Scale's) own schema: never shared.
fn body(model: &str) -> Param {
    Param {
        sort_name: "body".into(),
        node: Node::object([
            ("name", Node::str("body")),
            ("in", Node::str("body")),
            ("required", Node::Bool(true)),
            ("schema", reference(model)),
        ]),
    }
}

/// Parameters sorted by name, as kube-openapi's builder sorts them (util.go:41-43).
fn sorted(mut params: Vec<Param>) -> Node {
    params.sort_by(|a, b| a.sort_name.cmp(&b.sort_name));
    Node::Array(params.into_iter().map(|p| p.node).collect())
}

/// `status` → `Status` (golang.org/x/text/cases Title of a lowercase word).
fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `a`/`an` padded, none for a plural-looking noun (apiserver endpoints/installer.go:1269-1282).
fn article(noun: &str) -> &'static str {
    if !noun.ends_with("ss") && noun.ends_with('s') {
        return " ";
    }
    match noun.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => " an ",
        _ => " a ",
    }
}

/// The verbs an operation name starts with (apiserver endpoints/openapi/openapi.go:36); the
/// trie there answers the shortest that matches.
const VERBS: &[&str] = &[
    "get",
    "log",
    "read",
    "replace",
    "patch",
    "delete",
    "deletecollection",
    "watch",
    "connect",
    "proxy",
    "list",
    "create",
];

/// The operation id and tag kube-apiserver gives a route (openapi.go:62-89):
/// `list` + `ConformanceExampleCom` + `V1` + the rest, tag `conformanceExampleCom_v1`.
fn operation_id_and_tag(operation: &str, path: &str) -> (String, String) {
    let verb = VERBS
        .iter()
        .filter(|v| operation.starts_with(**v))
        .min_by_key(|v| v.len())
        .copied()
        .unwrap_or_default();
    let rest = &operation[verb.len()..];
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let mut prefix = verb.to_owned();
    let mut tag = String::new();
    if parts.len() >= 2 && parts[0] == "apis" {
        let group = parts[1].strip_suffix(".k8s.io").unwrap_or(parts[1]);
        prefix.push_str(&valid_operation_id(group, !prefix.is_empty()));
        tag = valid_operation_id(group, false);
        if parts.len() > 2 {
            prefix.push_str(&valid_operation_id(parts[2], !prefix.is_empty()));
            tag = format!("{tag}_{}", valid_operation_id(parts[2], false));
        }
    }
    let id = format!("{prefix}{}", valid_operation_id(rest, !prefix.is_empty()));
    (id, tag)
}

/// openapi.go:43-59: letters, `_` and (not first) digits kept, the letter after anything
/// else capitalised.
fn valid_operation_id(text: &str, capitalize_first: bool) -> String {
    let mut out = String::new();
    let mut capitalize = capitalize_first;
    for (i, c) in text.char_indices() {
        if c.is_alphabetic() || c == '_' || (i != 0 && c.is_numeric()) {
            if capitalize {
                out.extend(c.to_uppercase());
                capitalize = false;
            } else {
                out.push(c);
            }
        } else {
            capitalize = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_take_the_group_and_version_after_the_shortest_verb() {
        assert_eq!(
            operation_id_and_tag(
                "deletecollectionNamespacedGadget",
                "/apis/conformance.example.com/v1/namespaces/{namespace}/gadgets"
            ),
            (
                "deleteConformanceExampleComV1CollectionNamespacedGadget".to_owned(),
                "conformanceExampleCom_v1".to_owned()
            )
        );
        assert_eq!(
            operation_id_and_tag(
                "listGadgetForAllNamespaces",
                "/apis/x.k8s.io/v1beta1/gadgets"
            )
            .0,
            "listXV1beta1GadgetForAllNamespaces"
        );
    }

    #[test]
    fn descriptions_follow_the_builder() {
        let crd = Crd {
            group: "g".into(),
            version: "v1".into(),
            kind: "Ingress".into(),
            plural: "ingresses".into(),
            namespaced: true,
        };
        assert_eq!(crd.description("", "create"), "create an Ingress");
        assert_eq!(
            crd.description("status", "patch"),
            "partially update status of the specified Ingress"
        );
        assert_eq!(
            crd.description("", "deletecollection"),
            "delete collection of Ingress"
        );
        assert_eq!(crd.model("Ingress"), "g.v1.Ingress");
    }
}
