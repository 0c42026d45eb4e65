//! Which media type and representation an answer is written in, negotiated from the `Accept`
//! header as kube-apiserver negotiates it (apiserver `pkg/endpoints/handlers/negotiation/
//! negotiate.go` v0.37.2, over goautoneg's `ParseAccept`): the clauses in order of their
//! q-value, then of their specificity (a stable sort: equal clauses keep the header's order;
//! q=0 is not refused, only last), each tried against the serializers JSON, YAML and protobuf
//! in that order. `as=Table` is JSON or YAML only, `as=PartialObjectMetadata[List]` any of
//! them (`handlers/rest.go` `AllowsMediaTypeTransform`), both only in `meta.k8s.io` v1 or
//! v1beta1; a custom resource is not served in protobuf but as PartialObjectMetadata (its
//! `StandardSerializers` leave protobuf out, `customresource_handler.go`). No clause
//! acceptable: 406. An empty header is JSON. An error is negotiated without conversions
//! (`ErrorNegotiated`'s `DefaultEndpointRestrictions`): a clause with `as` does not count.
//! The server writes no YAML: a YAML clause is answered in JSON, as before.

use super::app::{Media, Representation};
use super::resources::ResourceType;
use super::status::ApiError;

/// What an answer is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiated {
    pub media: Media,
    pub representation: Representation,
    /// `as=PartialObjectMetadataList` (true) or `as=PartialObjectMetadata` (false).
    pub metadata_list: Option<bool>,
}

/// The serializers a resource is served in, in kube-apiserver's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Serializer {
    Json,
    Yaml,
    Protobuf,
}

const SERIALIZERS: [(Serializer, &str); 3] = [
    (Serializer::Json, "json"),
    (Serializer::Yaml, "yaml"),
    (Serializer::Protobuf, "vnd.kubernetes.protobuf"),
];

/// One clause of an `Accept` header.
#[derive(Debug, PartialEq)]
struct Clause<'a> {
    kind: &'a str,
    subtype: &'a str,
    q: f64,
    params: Vec<(&'a str, &'a str)>,
}

impl Clause<'_> {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| *value)
    }

    /// goautoneg's `Less`: a higher q first, then a concrete type before `*`, then a concrete
    /// subtype before `*`.
    fn before(&self, other: &Clause) -> bool {
        self.q > other.q
            || (self.kind != "*" && other.kind == "*")
            || (self.subtype != "*" && other.subtype == "*")
    }
}

/// goautoneg's `ParseAccept`: clauses split on `,`, a type without a subtype dropped (but
/// `*`), params split on `;`, then sorted (Go's `sort.Sort` is an insertion sort for a
/// header of fewer than 12 clauses; this one is, whatever the length).
fn parse(header: &str) -> Vec<Clause<'_>> {
    let mut clauses = Vec::new();
    for part in header.split(',') {
        let mut pieces = part.split(';');
        let media = pieces.next().unwrap_or("").trim();
        let (kind, subtype) = match media.split_once('/') {
            Some((_, subtype)) if subtype.contains('/') => continue,
            Some((kind, subtype)) => (kind.trim(), subtype.trim()),
            None if media == "*" => ("*", "*"),
            None => continue,
        };
        let mut clause = Clause {
            kind,
            subtype,
            q: 1.0,
            params: Vec::new(),
        };
        for param in pieces {
            let Some((key, value)) = param.split_once('=') else {
                continue;
            };
            if value.contains('=') {
                continue;
            }
            match key.trim() {
                "q" => clause.q = value.parse().unwrap_or(0.0),
                key => clause.params.push((key, value.trim())),
            }
        }
        clauses.push(clause);
    }
    for i in 1..clauses.len() {
        let mut j = i;
        while j > 0 && clauses[j].before(&clauses[j - 1]) {
            clauses.swap(j, j - 1);
            j -= 1;
        }
    }
    clauses
}

/// Whether `clause` names `serializer` (exactly, as `application/*`, or as `*/*`).
fn names(clause: &Clause, subtype: &str) -> bool {
    (clause.kind == "application" && (clause.subtype == subtype || clause.subtype == "*"))
        || (clause.kind == "*" && clause.subtype == "*")
}

/// The conversion a clause asks (`as`, `g`, `v`): None for none, Some(None) for one the
/// server cannot make.
fn conversion(clause: &Clause, serializer: Serializer) -> Option<Option<Representation>> {
    conversion_kind(clause, serializer).map(|kind| kind.map(|(representation, _)| representation))
}

/// [`conversion`], with whether a PartialObjectMetadataList was asked.
fn conversion_kind(
    clause: &Clause,
    serializer: Serializer,
) -> Option<Option<(Representation, Option<bool>)>> {
    let (kind, group, version) = (clause.param("as"), clause.param("g"), clause.param("v"));
    if kind.is_none() && group.is_none() && version.is_none() {
        return None;
    }
    let meta = group == Some("meta.k8s.io") && matches!(version, Some("v1" | "v1beta1"));
    Some(match kind {
        Some("Table") if meta && serializer != Serializer::Protobuf => {
            Some((Representation::Table, None))
        }
        Some("PartialObjectMetadata") if meta => Some((Representation::Metadata, Some(false))),
        Some("PartialObjectMetadataList") if meta => Some((Representation::Metadata, Some(true))),
        _ => None,
    })
}

/// `stream` and `sv` as `acceptMediaTypeOptions` checks them.
fn stream_allowed(clause: &Clause, serializer: Serializer) -> bool {
    let stream = clause.param("stream").unwrap_or("");
    let version = clause.param("sv").unwrap_or("");
    (stream.is_empty() || (stream == "watch" && serializer != Serializer::Yaml))
        && (version.is_empty() || version == "v1")
}

fn media(serializer: Serializer) -> Media {
    match serializer {
        Serializer::Protobuf => Media::Protobuf,
        Serializer::Json | Serializer::Yaml => Media::Json,
    }
}

/// What a request for a resource is answered in; `custom`: a custom resource (no protobuf
/// but as PartialObjectMetadata). 406 NotAcceptable when no clause can be served.
pub fn negotiate(accept: &str, custom: bool) -> Result<Negotiated, ApiError> {
    if accept.is_empty() {
        return Ok(Negotiated {
            media: Media::Json,
            representation: Representation::Object,
            metadata_list: None,
        });
    }
    if !restful_accepts(accept) {
        return Err(restful_not_acceptable());
    }
    let clauses = parse(accept);
    for clause in &clauses {
        for (serializer, subtype) in SERIALIZERS {
            if !names(clause, subtype) || !stream_allowed(clause, serializer) {
                continue;
            }
            let (representation, metadata_list) = match conversion_kind(clause, serializer) {
                None if custom && serializer == Serializer::Protobuf => continue,
                None => (Representation::Object, None),
                Some(None) => continue,
                Some(Some(kind)) => kind,
            };
            return Ok(Negotiated {
                media: media(serializer),
                representation,
                metadata_list,
            });
        }
    }
    Err(not_acceptable())
}

/// kube-apiserver's 406 for a PartialObjectMetadata asked of a list or a
/// PartialObjectMetadataList of an object (`handlers/response.go` `asPartialObjectMetadata`,
/// `asPartialObjectMetadataList`), naming the internal Go type of what was asked for.
pub fn check_metadata_target(
    negotiated: &Negotiated,
    list: bool,
    resource: &ResourceType,
) -> Result<(), ApiError> {
    let Some(asked_list) = negotiated.metadata_list else {
        return Ok(());
    };
    if asked_list == list {
        return Ok(());
    }
    let kind = match (resource.custom, list) {
        (true, false) => "unstructured.Unstructured".to_owned(),
        (true, true) => "unstructured.UnstructuredList".to_owned(),
        (false, false) => format!("{}.{}", internal_package(resource), resource.kind),
        (false, true) => format!("{}.{}", internal_package(resource), resource.list_kind),
    };
    let message = if list {
        format!("you requested PartialObjectMetadata, but the requested object is a list (*{kind})")
    } else {
        format!(
            "you requested PartialObjectMetadataList, but the requested object is not a list (*{kind})"
        )
    };
    Err(ApiError::new(406, "NotAcceptable", message))
}

/// The Go package of a built-in resource's internal type (`k8s.io/kubernetes/pkg/apis/…`):
/// `core` for the core group and events.k8s.io, else the group's first label.
fn internal_package(resource: &ResourceType) -> &str {
    match resource.group.as_str() {
        "" | "events.k8s.io" => "core",
        group => group.split('.').next().unwrap_or(group),
    }
}

/// What an error (a `Status`) is written in: the first clause naming a serializer without a
/// conversion; JSON when there is none.
pub fn for_error(accept: &str) -> Media {
    if accept.is_empty() {
        return Media::Json;
    }
    parse(accept)
        .iter()
        .find_map(|clause| {
            SERIALIZERS.iter().find_map(|(serializer, subtype)| {
                (names(clause, subtype)
                    && stream_allowed(clause, *serializer)
                    && conversion(clause, *serializer).is_none())
                .then(|| media(*serializer))
            })
        })
        .unwrap_or(Media::Json)
}

/// The media types a resource's routes produce (go-restful's `Produces`).
const PRODUCED: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// go-restful's `Route.matchesAccept` (go-restful v3 `route.go`), before kube-apiserver's
/// own negotiation: some clause, its params cut off, is `*/*` or exactly a produced type
/// (`application/*` is not).
fn restful_accepts(accept: &str) -> bool {
    accept.split(',').any(|clause| {
        let media = clause.split(';').next().unwrap_or("").trim();
        media == "*/*" || PRODUCED.contains(&media)
    })
}

/// go-restful's 406 (written as a Status with empty details).
fn restful_not_acceptable() -> ApiError {
    let mut error = ApiError::new(
        406,
        "NotAcceptable",
        format!(
            "406: Not Acceptable\n\nAvailable representations: {}",
            PRODUCED.join(", ")
        ),
    );
    error.details = Some(Box::default());
    error
}

/// kube-apiserver's `errNotAcceptable` for a resource's serializers.
fn not_acceptable() -> ApiError {
    ApiError::new(
        406,
        "NotAcceptable",
        format!(
            "only the following media types are accepted: {}",
            PRODUCED.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negotiated(accept: &str, custom: bool) -> Option<(Media, Representation)> {
        negotiate(accept, custom)
            .ok()
            .map(|n| (n.media, n.representation))
    }

    #[test]
    fn client_go_typed_clients_get_protobuf_and_custom_resources_json() {
        let typed = "application/vnd.kubernetes.protobuf, */*";
        assert_eq!(
            negotiated(typed, false),
            Some((Media::Protobuf, Representation::Object))
        );
        assert_eq!(
            negotiated(typed, true),
            Some((Media::Json, Representation::Object))
        );
        assert_eq!(
            negotiated("application/vnd.kubernetes.protobuf", true),
            None
        );
        assert_eq!(
            negotiated("", false),
            Some((Media::Json, Representation::Object))
        );
    }

    #[test]
    fn q_values_order_the_clauses_and_equal_ones_keep_their_order() {
        assert_eq!(
            negotiated(
                "application/vnd.kubernetes.protobuf;q=0.5, application/json",
                false
            ),
            Some((Media::Json, Representation::Object))
        );
        assert_eq!(
            negotiated("*/*, application/vnd.kubernetes.protobuf", false),
            Some((Media::Protobuf, Representation::Object)),
            "a concrete type comes before */*"
        );
        assert_eq!(
            negotiated("application/vnd.kubernetes.protobuf;q=0", false),
            Some((Media::Protobuf, Representation::Object)),
            "q=0 is last, not refused"
        );
    }

    #[test]
    fn tables_are_json_only_and_metadata_any_media() {
        let table = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io";
        assert!(negotiate(table, false).is_err());
        assert_eq!(
            negotiated(&format!("{table},application/json"), false),
            Some((Media::Json, Representation::Object))
        );
        let metadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        assert_eq!(
            negotiated(metadata, true),
            Some((Media::Protobuf, Representation::Metadata))
        );
        assert_eq!(
            negotiated("application/json;as=Table;g=example.com;v=v1", false),
            None
        );
        assert_eq!(for_error(metadata), Media::Json);
        assert_eq!(
            for_error("application/vnd.kubernetes.protobuf"),
            Media::Protobuf
        );
    }

    #[test]
    fn a_watch_stream_is_json_or_protobuf_not_yaml() {
        assert_eq!(
            negotiated("application/yaml;stream=watch", false),
            None,
            "YAML has no stream serializer"
        );
        assert_eq!(
            negotiated("application/vnd.kubernetes.protobuf;stream=watch", false),
            Some((Media::Protobuf, Representation::Object))
        );
    }
}
