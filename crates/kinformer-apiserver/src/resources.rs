//! The registry of served resource types: the built-ins (the rows of [`crate::catalog`], what
//! kube-apiserver's discovery lists) plus one entry per CustomResourceDefinition.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::Resource;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::catalog;
use crate::schema_validation::CrdValidation;

/// The group and plural that identify a resource independently of its version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceKey {
    /// API group, empty for the core group.
    pub group: String,
    /// Plural resource name, e.g. `pods`.
    pub plural: String,
}

/// The subresources one served version of a resource has.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionSubresources {
    /// The version.
    pub version: String,
    /// Whether it has `status`.
    pub status: bool,
    /// Its `scale`, when it has one.
    pub scale: Option<ScalePaths>,
    /// A built-in's subresources as discovery lists them, `status` and `scale` among them;
    /// empty for a custom resource (whose `status` and `scale` are the two fields above).
    pub listed: Vec<Subresource>,
}

/// Where the `scale` subresource reads and writes an object (a CRD's `subresources.scale`).
#[derive(Debug, Clone, PartialEq)]
pub struct ScalePaths {
    /// JSON pointer of the desired replicas (`specReplicasPath`; `/spec/replicas`).
    pub spec_replicas: String,
    /// JSON pointer of the observed replicas (`statusReplicasPath`; `/status/replicas`).
    pub status_replicas: String,
    /// Where the Scale's `status.selector` comes from.
    pub selector: ScaleSelector,
}

/// Where a Scale's `status.selector` comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ScaleSelector {
    /// A built-in workload's `spec.selector` (a LabelSelector), written as text.
    Workload,
    /// A ReplicationController's `spec.selector` (a plain map of labels), written as text.
    Labels,
    /// The text at a custom resource's `labelSelectorPath` (a JSON pointer; None: no path
    /// declared, an empty selector).
    Text(Option<String>),
}

/// A subresource as discovery lists it: its name, verbs and the kind it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subresource {
    name: &'static str,
    verbs: &'static [&'static str],
    foreign: Option<(&'static str, &'static str, &'static str)>,
}

/// Verbs of a subresource whose storage gets, updates and patches (`status`, `scale`).
const READ_WRITE: &[&str] = &["get", "patch", "update"];

impl Subresource {
    /// A custom resource's `status`.
    const STATUS: Subresource = Subresource {
        name: "status",
        verbs: READ_WRITE,
        foreign: None,
    };

    /// A custom resource's `scale`: an autoscaling/v1 `Scale`.
    const SCALE: Subresource = Subresource {
        name: "scale",
        verbs: READ_WRITE,
        foreign: Some(("autoscaling", "v1", "Scale")),
    };

    /// A built-in's subresource as the catalog lists it.
    fn of(sub: &catalog::Sub, parent_kind: &str) -> Subresource {
        let own = sub.group.is_empty() && sub.kind == parent_kind;
        Subresource {
            name: sub.name,
            verbs: sub.verbs,
            foreign: (!own).then_some((sub.group, sub.version, sub.kind)),
        }
    }

    /// Its name in paths (`status`, `scale`).
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The verbs discovery lists for it.
    pub fn verbs(self) -> &'static [&'static str] {
        self.verbs
    }

    /// The group, version and kind it answers when that is not its parent's (`scale` answers
    /// an autoscaling/v1 `Scale`, `eviction` takes a policy/v1 `Eviction`, `exec` a core
    /// `PodExecOptions`: group and version empty).
    pub fn foreign_kind(self) -> Option<(&'static str, &'static str, &'static str)> {
        self.foreign
    }
}

/// Everything discovery and the REST handlers need to know about one resource type.
#[derive(Debug, Clone)]
pub struct ResourceType {
    /// API group, empty for the core group.
    pub group: String,
    /// Served versions; the first is the preferred (storage) version.
    pub versions: Vec<String>,
    /// Plural name used in URLs.
    pub plural: String,
    /// Singular name (`pod`).
    pub singular: String,
    /// Kind of one object (`Pod`).
    pub kind: String,
    /// The verbs the resource serves (discovery lists them): all eight for most, fewer for a
    /// read-only or create-only one.
    pub verbs: &'static [&'static str],
    /// Discovery's `storageVersionHash` (None for a resource that stores nothing).
    pub storage_version_hash: Option<String>,
    /// Kind of a list (`PodList`).
    pub list_kind: String,
    /// kubectl short names (`po`).
    pub short_names: Vec<String>,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Categories (`all` makes `kubectl get all` include the resource).
    pub categories: Vec<String>,
    /// Defined by a CustomResourceDefinition (served as unstructured objects: LIST items keep
    /// their `kind` and `apiVersion`, every spec change bumps `generation`).
    pub custom: bool,
    /// Whether the resource has the `status` subresource: a write of the resource itself then
    /// keeps the stored `status`, and only `/status` writes change it.
    pub status_subresource: bool,
    /// The subresources each served version has (a CRD declares them per version).
    pub subresources: Arc<[VersionSubresources]>,
    /// A custom resource's `selectableFields` (as field labels, `spec.colour`) per served
    /// version; empty for built-ins.
    pub selectable_fields: Arc<[(String, Vec<String>)]>,
    /// Every served version's selectable fields, each once: the fields its objects' values are
    /// kept of.
    pub selectable_union: Arc<[String]>,
    /// A custom resource's structural schema (`schema.openAPIV3Schema`) per served version,
    /// storage version first: server-side apply reads its list and map types. Empty for
    /// built-ins (their types come from the captured OpenAPI schemas: `write::builtin_schema`).
    pub schemas: Arc<[(String, Value)]>,
    /// `schemas` compiled for validation, once per CRD (empty for built-ins).
    pub validation: Arc<CrdValidation>,
    /// A custom resource's `additionalPrinterColumns` per served version (the raw array, absent
    /// when the version declares none); empty for built-ins.
    pub printer_columns: Arc<[(String, Value)]>,
}

impl ResourceType {
    /// The identity of this resource type.
    pub fn key(&self) -> ResourceKey {
        ResourceKey {
            group: self.group.clone(),
            plural: self.plural.clone(),
        }
    }

    /// A custom resource's structural schema for `api_version` (`group/version`), or its
    /// storage version's when that version declares none; None for built-ins.
    pub fn schema_for(&self, api_version: &str) -> Option<&Value> {
        let version = api_version.rsplit('/').next().unwrap_or_default();
        self.schemas
            .iter()
            .find(|(v, _)| v == version)
            .or_else(|| self.schemas.first())
            .map(|(_, schema)| schema)
    }

    /// The preferred version.
    pub fn preferred_version(&self) -> &str {
        self.versions.first().map(String::as_str).unwrap_or("v1")
    }

    /// `apiVersion` of the preferred version (`v1`, `apps/v1`).
    pub fn api_version(&self) -> String {
        group_version(&self.group, self.preferred_version())
    }

    /// Whether `version` is served.
    pub fn serves(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v == version)
    }

    /// Whether an object's `apiVersion` (`v1`, `apps/v1`) names this resource's group and a
    /// served version.
    pub fn serves_api_version(&self, api_version: &str) -> bool {
        api_version.rsplit_once('/').map_or(
            self.group.is_empty() && self.serves(api_version),
            |(group, version)| group == self.group && self.serves(version),
        )
    }

    /// Whether the resource is the CustomResourceDefinition resource itself.
    pub fn is_crd(&self) -> bool {
        self.group == CustomResourceDefinition::GROUP
            && self.plural == CustomResourceDefinition::URL_PATH_SEGMENT
    }

    /// Whether kube-apiserver's strategy for the resource sets `metadata.generation` and bumps it
    /// on spec changes (the strategies whose `PrepareForCreate` sets `Generation = 1` under
    /// `pkg/registry`: workloads, pods since 1.33, PodTemplates, Jobs, CronJobs, HPAs, PDBs,
    /// Ingresses, IngressClasses, NetworkPolicies, EndpointSlices, PriorityClasses, the
    /// admission policies and webhooks, flowcontrol's, resource.k8s.io's DeviceClasses,
    /// DeviceTaintRules and ResourceSlices, CRDs and custom resources; not ConfigMaps,
    /// Secrets, Nodes...).
    pub fn tracks_generation(&self) -> bool {
        self.custom
            || self.is_crd()
            || matches!(
                self.group.as_str(),
                "batch"
                    | "policy"
                    | "autoscaling"
                    | "admissionregistration.k8s.io"
                    | "flowcontrol.apiserver.k8s.io"
                    | "scheduling.k8s.io"
                    | "discovery.k8s.io"
            )
            || matches!(
                (self.group.as_str(), self.plural.as_str()),
                ("", "replicationcontrollers" | "pods" | "podtemplates")
                    | (
                        "apps",
                        "deployments" | "replicasets" | "statefulsets" | "daemonsets"
                    )
                    | (
                        "networking.k8s.io",
                        "ingresses" | "ingressclasses" | "networkpolicies"
                    )
                    | (
                        "resource.k8s.io",
                        "deviceclasses" | "devicetaintrules" | "resourceslices"
                    )
            )
    }

    /// Whether the resource serves `verb` (`create`, `list`, …).
    pub fn serves_verb(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    /// The subresources `version` serves, in kube-apiserver's order: a built-in's as its
    /// discovery lists them (by path), a custom resource's `status` first
    /// (`apiextensions-apiserver/pkg/apiserver/customresource_discovery_controller.go`).
    pub fn subresources_of(&self, version: &str) -> Vec<Subresource> {
        let Some(served) = self.subresources.iter().find(|s| s.version == version) else {
            return Vec::new();
        };
        if !self.custom {
            return served.listed.clone();
        }
        let status = served.status.then_some(Subresource::STATUS);
        let scale = served.scale.is_some().then_some(Subresource::SCALE);
        status.into_iter().chain(scale).collect()
    }

    /// Whether `version` serves the subresource named `name`.
    pub fn serves_subresource(&self, version: &str, name: &str) -> bool {
        self.subresources_of(version)
            .iter()
            .any(|s| s.name() == name)
    }

    /// Where `version`'s `scale` subresource reads and writes, when it has one.
    pub fn scale_paths(&self, version: &str) -> Option<&ScalePaths> {
        self.subresources
            .iter()
            .find(|s| s.version == version)?
            .scale
            .as_ref()
    }

    /// Whether kube-apiserver's storage of the resource sets `ReturnDeletedObject`, so that a
    /// DELETE answers the deleted object rather than a Success `Status`
    /// (`apiserver/pkg/registry/generic/registry/store.go:1462`, `finalizeDelete`). Of the
    /// served resources: pods (`pkg/registry/core/pod/storage/storage.go:89`), services
    /// (`core/service/storage/storage.go:89`), namespaces
    /// (`core/namespace/storage/storage.go:72`) and serviceaccounts
    /// (`core/serviceaccount/storage/storage.go:66`), and the other storages under
    /// `pkg/registry` that set it (quotas, volumes, claims, pod templates, storage.k8s.io's and
    /// resource.k8s.io's); not custom resources
    /// (`apiextensions-apiserver/pkg/registry/customresource/etcd.go` leaves it unset).
    pub fn returns_deleted_object(&self) -> bool {
        matches!(
            (self.group.as_str(), self.plural.as_str()),
            (
                "",
                "pods"
                    | "services"
                    | "namespaces"
                    | "serviceaccounts"
                    | "resourcequotas"
                    | "persistentvolumes"
                    | "persistentvolumeclaims"
                    | "podtemplates"
            ) | (
                "storage.k8s.io",
                "csidrivers"
                    | "storageclasses"
                    | "volumeattachments"
                    | "csinodes"
                    | "volumeattributesclasses"
            ) | (
                "resource.k8s.io",
                "resourceclaimtemplates" | "resourceslices" | "resourceclaims" | "deviceclasses"
            )
        )
    }

    /// Whether `version` declares `label` a selectable field (a CRD's `selectableFields`).
    pub fn declares_selectable(&self, version: &str, label: &str) -> bool {
        self.selectable_fields
            .iter()
            .any(|(v, labels)| v == version && labels.iter().any(|l| l == label))
    }

    /// Whether the resource is core/v1 `group`/`plural`.
    pub fn is_core(&self, plural: &str) -> bool {
        self.group.is_empty() && self.plural == plural
    }

    /// Whether the resource is a pod (pods have extra field selectors).
    pub fn is_pod(&self) -> bool {
        self.group.is_empty() && self.plural == Pod::URL_PATH_SEGMENT
    }
}

/// `group/version`, or just `version` for the core group.
pub fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// Verbs of a custom resource, in the order apiextensions-apiserver lists them
/// (`customresource_discovery_controller.go`).
const CUSTOM_VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// Discovery's `storageVersionHash` of objects stored as `group/version/kind`: the first 8
/// bytes of its SHA-256, in base64 (`apiserver/pkg/endpoints/discovery/storageversionhash.go`).
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    let text = format!("{group}/{version}/{kind}");
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    base64::prelude::BASE64_STANDARD.encode(&digest.as_ref()[..8])
}

/// Describes a built-in resource from its catalog rows, one per served version (the preferred
/// first).
fn builtin(rows: &[&'static catalog::Row]) -> Option<ResourceType> {
    let first = rows.first()?;
    let key = (first.group, first.plural);
    let strings = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let subresources: Vec<VersionSubresources> = rows
        .iter()
        .map(|row| {
            let listed: Vec<Subresource> = row
                .subresources
                .iter()
                .map(|sub| Subresource::of(sub, row.kind))
                .collect();
            let has = |name: &str| listed.iter().any(|s| s.name == name);
            VersionSubresources {
                version: row.version.to_owned(),
                status: has("status"),
                scale: scale_of(key).filter(|_| has("scale")),
                listed,
            }
        })
        .collect();
    Some(ResourceType {
        group: first.group.to_owned(),
        versions: rows.iter().map(|r| r.version.to_owned()).collect(),
        plural: first.plural.to_owned(),
        singular: first.singular.to_owned(),
        kind: first.kind.to_owned(),
        verbs: first.verbs,
        storage_version_hash: first.storage_version_hash.map(str::to_owned),
        list_kind: format!("{}List", first.kind),
        short_names: strings(first.short_names),
        namespaced: first.namespaced,
        categories: strings(first.categories),
        custom: false,
        status_subresource: subresources.first().is_some_and(|s| s.status),
        subresources: subresources.into(),
        selectable_fields: Arc::new([]),
        selectable_union: Arc::new([]),
        schemas: Arc::new([]),
        validation: Arc::default(),
        printer_columns: Arc::new([]),
    })
}

/// Where built-in `(group, plural)`'s `scale` subresource reads and writes, when it has one
/// (`kubectl scale`).
fn scale_of(key: (&str, &str)) -> Option<ScalePaths> {
    let selector = match key {
        ("apps", "deployments" | "replicasets" | "statefulsets") => ScaleSelector::Workload,
        ("", "replicationcontrollers") => ScaleSelector::Labels,
        _ => return None,
    };
    Some(ScalePaths {
        spec_replicas: "/spec/replicas".into(),
        status_replicas: "/status/replicas".into(),
        selector,
    })
}

/// The built-in resource types served by the embedded server: every resource of the catalog,
/// its versions merged (preferred first), in discovery order.
pub fn builtins() -> Vec<ResourceType> {
    let mut grouped: Vec<Vec<&'static catalog::Row>> = Vec::new();
    for row in catalog::ROWS {
        match grouped
            .iter_mut()
            .find(|rows| rows[0].group == row.group && rows[0].plural == row.plural)
        {
            Some(rows) => rows.push(row),
            None => grouped.push(vec![row]),
        }
    }
    grouped.iter().filter_map(|rows| builtin(rows)).collect()
}

/// Describes the resource a CustomResourceDefinition object defines.
pub fn from_crd(crd: &Value) -> Result<ResourceType, String> {
    let spec = crd.get("spec").ok_or("spec: Required value")?;
    let names = spec.get("names").ok_or("spec.names: Required value")?;
    let text = |v: &Value, field: &str| -> Result<String, String> {
        v.get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("spec.{field}: Required value"))
    };
    let group = text(spec, "group")?;
    let plural = text(names, "plural")?;
    let kind = text(names, "kind")?;
    let singular = text(names, "singular").unwrap_or_else(|_| kind.to_ascii_lowercase());
    let list_kind = text(names, "listKind").unwrap_or_else(|_| format!("{kind}List"));
    let short_names = string_list(names.get("shortNames"));
    let categories = string_list(names.get("categories"));
    let namespaced = spec.get("scope").and_then(Value::as_str) != Some("Cluster");
    let versions = served_versions(spec);
    if versions.is_empty() {
        return Err("spec.versions: Required value: at least one version must be served".into());
    }
    let expected_name = format!("{plural}.{group}");
    let name = crd.pointer("/metadata/name").and_then(Value::as_str);
    if name != Some(expected_name.as_str()) {
        return Err(format!(
            "metadata.name: Invalid value: must be spec.names.plural+\".\"+spec.group ({expected_name})"
        ));
    }
    let schemas = schemas(spec, &versions);
    let subresources = crd_subresources(spec, &versions)?;
    let selectable_fields = declared_selectable_fields(spec, &versions);
    let printer_columns = printer_columns(spec, &versions);
    let mut selectable_union: Vec<String> = selectable_fields
        .iter()
        .flat_map(|(_, labels)| labels.iter().cloned())
        .collect();
    selectable_union.sort();
    selectable_union.dedup();
    let hash = storage_version_hash(&group, &versions[0], &kind);
    Ok(ResourceType {
        group,
        versions,
        plural,
        singular,
        verbs: CUSTOM_VERBS,
        storage_version_hash: Some(hash),
        kind,
        list_kind,
        short_names,
        namespaced,
        categories,
        custom: true,
        status_subresource: subresources.iter().any(|s| s.status),
        subresources,
        selectable_fields,
        selectable_union: selectable_union.into(),
        validation: Arc::new(CrdValidation::compile(&schemas)),
        schemas,
        printer_columns,
    })
}

/// The `schema.openAPIV3Schema` of each of `versions` (served, storage first) that has one.
fn schemas(spec: &Value, versions: &[String]) -> Arc<[(String, Value)]> {
    let declared = spec.get("versions").and_then(Value::as_array);
    versions
        .iter()
        .filter_map(|name| {
            let version = declared?
                .iter()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(name))?;
            let schema = version.pointer("/schema/openAPIV3Schema")?;
            Some((name.clone(), schema.clone()))
        })
        .collect()
}

/// The `subresources` each of `versions` (served) declares.
fn crd_subresources(
    spec: &Value,
    versions: &[String],
) -> Result<Arc<[VersionSubresources]>, String> {
    let declared = spec.get("versions").and_then(Value::as_array);
    versions
        .iter()
        .map(|name| {
            let (index, version) = declared
                .into_iter()
                .flatten()
                .enumerate()
                .find(|(_, v)| v.get("name").and_then(Value::as_str) == Some(name))
                .unzip();
            let subresources = version.and_then(|v| v.get("subresources"));
            let status = subresources
                .and_then(|s| s.get("status"))
                .is_some_and(Value::is_object);
            let scale = subresources
                .and_then(|s| s.get("scale"))
                .filter(|s| s.is_object())
                .map(|s| declared_scale(s, index.unwrap_or_default()))
                .transpose()?;
            Ok(VersionSubresources {
                version: name.clone(),
                status,
                scale,
                listed: Vec::new(),
            })
        })
        .collect()
}

/// A CRD version's `subresources.scale`.
fn declared_scale(scale: &Value, index: usize) -> Result<ScalePaths, String> {
    let path = |field: &str, under: &str| -> Result<Option<String>, String> {
        let Some(text) = scale.get(field).and_then(Value::as_str) else {
            return Ok(None);
        };
        json_pointer(text)
            .filter(|pointer| under.is_empty() || pointer.starts_with(under))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "spec.versions[{index}].subresources.scale.{field}: Invalid value: {text:?}: should be a json path under .{}",
                    under.trim_matches('/')
                )
            })
    };
    let required = |field: &str, under: &str| {
        path(field, under)?.ok_or_else(|| {
            format!("spec.versions[{index}].subresources.scale.{field}: Required value")
        })
    };
    Ok(ScalePaths {
        spec_replicas: required("specReplicasPath", "/spec/")?,
        status_replicas: required("statusReplicasPath", "/status/")?,
        selector: ScaleSelector::Text(path("labelSelectorPath", "")?),
    })
}

/// A dotted JSON path (`.spec.replicas`) as a JSON pointer (`/spec/replicas`); None for other
/// paths (brackets, an empty step).
fn json_pointer(path: &str) -> Option<String> {
    let steps = path.strip_prefix('.')?;
    let mut pointer = String::new();
    for step in steps.split('.') {
        if step.is_empty() || step.contains(['[', ']']) {
            return None;
        }
        pointer.push('/');
        pointer.push_str(&step.replace('~', "~0").replace('/', "~1"));
    }
    Some(pointer)
}

/// The `selectableFields` each of `versions` (served) declares, as field labels: a JSON path
/// without its leading dot (`registry/customresource/strategy.go`, `prepareSelectableFields`).
fn declared_selectable_fields(spec: &Value, versions: &[String]) -> Arc<[(String, Vec<String>)]> {
    let declared = spec.get("versions").and_then(Value::as_array);
    versions
        .iter()
        .map(|name| {
            let labels = declared
                .into_iter()
                .flatten()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(name))
                .and_then(|v| v.get("selectableFields"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|field| field.get("jsonPath")?.as_str())
                .map(|path| path.strip_prefix('.').unwrap_or(path).to_owned())
                .collect();
            (name.clone(), labels)
        })
        .collect()
}

/// The served versions of a CRD spec, storage version first.
/// Each served version's `additionalPrinterColumns` (when it declares a non-empty list).
fn printer_columns(spec: &Value, versions: &[String]) -> Arc<[(String, Value)]> {
    let declared = spec.get("versions").and_then(Value::as_array);
    declared
        .into_iter()
        .flatten()
        .filter_map(|v| {
            let name = v.get("name")?.as_str()?;
            let columns = v.get("additionalPrinterColumns")?;
            (versions.iter().any(|s| s == name)
                && columns.as_array().is_some_and(|c| !c.is_empty()))
            .then(|| (name.to_owned(), columns.clone()))
        })
        .collect()
}

fn served_versions(spec: &Value) -> Vec<String> {
    let Some(list) = spec.get("versions").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut served: Vec<(bool, String)> = list
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool).unwrap_or(true))
        .filter_map(|v| {
            let name = v.get("name")?.as_str()?.to_owned();
            let storage = v.get("storage").and_then(Value::as_bool).unwrap_or(false);
            Some((!storage, name))
        })
        .collect();
    served.sort_by_key(|(not_storage, _)| *not_storage);
    served.into_iter().map(|(_, name)| name).collect()
}

/// A JSON array of strings as a vector (missing or malformed → empty).
fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// All served resource types, keyed by group and plural.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    types: BTreeMap<ResourceKey, Arc<ResourceType>>,
    builtin_groups: Vec<String>,
}

impl Registry {
    /// A registry holding the built-in resources.
    pub fn with_builtins() -> Self {
        let mut registry = Registry::default();
        for resource in builtins() {
            if !registry.builtin_groups.contains(&resource.group) {
                registry.builtin_groups.push(resource.group.clone());
            }
            registry.insert(resource);
        }
        registry
    }

    /// Adds or replaces a resource type.
    pub fn insert(&mut self, resource: ResourceType) {
        self.types.insert(resource.key(), Arc::new(resource));
    }

    /// Whether resource type `key` is served.
    pub fn contains(&self, key: &ResourceKey) -> bool {
        self.types.contains_key(key)
    }

    /// Removes a resource type.
    pub fn remove(&mut self, key: &ResourceKey) -> Option<Arc<ResourceType>> {
        self.types.remove(key)
    }

    /// Whether a resource type is built in (CRDs cannot redefine those).
    pub fn is_builtin_group(&self, group: &str) -> bool {
        self.builtin_groups.iter().any(|g| g == group)
    }

    /// The resource served at `group/version/plural`.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceType>> {
        let key = ResourceKey {
            group: group.to_owned(),
            plural: plural.to_owned(),
        };
        self.types.get(&key).filter(|r| r.serves(version)).cloned()
    }

    /// The resource whose objects have this `apiVersion` and `kind`.
    pub fn find_kind(&self, api_version: &str, kind: &str) -> Option<Arc<ResourceType>> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.types
            .values()
            .find(|r| r.group == group && r.kind == kind && r.serves(version))
            .cloned()
    }

    /// The non-core groups in discovery order, each with its served versions.
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        let builtin_first = self.types.values().filter(|r| !r.group.is_empty());
        let mut ordered: Vec<&Arc<ResourceType>> = builtin_first.collect();
        ordered.sort_by_key(|r| {
            let rank = self.builtin_groups.iter().position(|g| *g == r.group);
            (rank.unwrap_or(usize::MAX), r.group.clone())
        });
        for resource in ordered {
            let entry = match groups.iter_mut().find(|(g, _)| *g == resource.group) {
                Some(entry) => entry,
                None => {
                    groups.push((resource.group.clone(), Vec::new()));
                    let last = groups.len() - 1;
                    &mut groups[last]
                }
            };
            for version in &resource.versions {
                if !entry.1.contains(version) {
                    entry.1.push(version.clone());
                }
            }
        }
        groups
    }

    /// Every served resource type.
    pub fn all(&self) -> Vec<Arc<ResourceType>> {
        self.types.values().cloned().collect()
    }

    /// The resources served in one group version.
    pub fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<ResourceType>> {
        self.types
            .values()
            .filter(|r| r.group == group && r.serves(version))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtins_come_from_the_catalog() {
        let registry = Registry::with_builtins();
        let pods = registry.find("", "v1", "pods");
        assert!(
            pods.as_ref()
                .is_some_and(|p| p.namespaced && p.kind == "Pod")
        );
        let nodes = registry.find("", "v1", "nodes");
        assert!(nodes.is_some_and(|n| !n.namespaced));
        let deploy = registry.find_kind("apps/v1", "Deployment");
        assert!(deploy.is_some_and(|d| d.short_names == ["deploy"]));
    }

    #[test]
    fn crd_describes_its_resource() {
        let crd = json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster",
                "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
                "versions": [{"name": "v1beta1", "served": true, "storage": false},
                             {"name": "v1", "served": true, "storage": true}]}
        });
        let resource = from_crd(&crd);
        assert!(resource.is_ok_and(|r| r.versions == ["v1", "v1beta1"]
            && !r.namespaced
            && r.singular == "widget"
            && r.list_kind == "WidgetList"));
        assert!(from_crd(&json!({"spec": {}})).is_err());
    }

    #[test]
    fn a_crd_scale_reads_its_paths_as_pointers() {
        let crd = |scale: Value| {
            from_crd(&json!({
                "metadata": {"name": "widgets.example.com"},
                "spec": {"group": "example.com", "names": {"plural": "widgets", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": true, "storage": true,
                        "subresources": {"scale": scale}}]}
            }))
        };
        let paths = crd(json!({"specReplicasPath": ".spec.size",
            "statusReplicasPath": ".status.ready", "labelSelectorPath": ".status.a/b"}));
        assert_eq!(
            paths.map(|r| r.scale_paths("v1").cloned()),
            Ok(Some(ScalePaths {
                spec_replicas: "/spec/size".into(),
                status_replicas: "/status/ready".into(),
                selector: ScaleSelector::Text(Some("/status/a~1b".into())),
            }))
        );
        let outside =
            crd(json!({"specReplicasPath": ".status.size", "statusReplicasPath": ".status.ready"}));
        assert!(outside.is_err_and(|e| e.contains("should be a json path under .spec")));
        let missing = crd(json!({"specReplicasPath": ".spec.size"}));
        assert!(missing.is_err_and(|e| e.ends_with("statusReplicasPath: Required value")));
    }
}
