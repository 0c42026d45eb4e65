//! `meta.k8s.io/v1` Table rendering for kubectl's human-readable output, with the columns and
//! cells kube-apiserver's printers give (kubernetes v1.37.2
//! `pkg/printers/internalversion/printers.go`), always wide as the server prints them.

use bytes::Bytes;
use jiff::Timestamp;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::app::{Representation, ResourceRequest};
use super::objects::StoredObject;
use super::resources::ResourceType;
use super::status::ApiError;

mod cells;
mod columns;
mod custom;
mod duration;
mod group_cells;
mod group_columns;
mod served;
mod served_cells;
mod served_columns;

/// What each row carries as its `object` (the `includeObject` parameter; apiserver
/// `pkg/endpoints/handlers/response.go:389` `asTable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Include {
    /// `PartialObjectMetadata` (`Metadata`, the default).
    Metadata,
    /// The object itself (`Object`; kubectl's `--sort-by` asks for it).
    Object,
    /// Nothing (`None`): `object` is null.
    Nothing,
}

/// How a request wants its Table: the version it named and what rows include.
#[derive(Debug, Clone)]
pub struct Options {
    /// The version of the request's path (a custom resource's columns are its version's).
    pub version: String,
    /// `includeObject`.
    pub include: Include,
}

impl Options {
    /// The Table options of `request`; 400 for an `includeObject` kube-apiserver rejects, when
    /// the request asks for a Table.
    pub fn of(request: &ResourceRequest) -> Result<Options, ApiError> {
        let include = match request.params.get("includeObject").map(String::as_str) {
            None | Some("" | "Metadata") => Include::Metadata,
            Some("Object") => Include::Object,
            Some("None") => Include::Nothing,
            Some(_) if request.representation != Representation::Table => Include::Metadata,
            Some(other) => {
                // apiserver handlers/response.go optionsForTransform v0.37.2.
                return Err(ApiError::bad_request(format!(
                    "Unable to convert to Table as requested: includeObject: Invalid value: {other:?}: must be 'Metadata', 'Object', 'None', or empty"
                )));
            }
        };
        Ok(Options {
            version: request.version.clone(),
            include,
        })
    }
}

/// The printers this server knows, chosen by group and plural.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Printer {
    Pod,
    Deployment,
    ReplicaSet,
    Service,
    Node,
    StatefulSet,
    DaemonSet,
    Namespace,
    ConfigMap,
    Secret,
    Lease,
    Event,
    /// `customresourcedefinitions` (apiextensions-apiserver's own convertor).
    Crd,
    Job,
    CronJob,
    PodDisruptionBudget,
    /// Roles and ClusterRoles.
    Role,
    /// RoleBindings and ClusterRoleBindings.
    RoleBinding,
    CertificateSigningRequest,
    ReplicationController,
    ApiService,
    /// A kind of the groups served beyond those (`served.rs`).
    Served(served::Kind),
    /// A custom resource: its CRD version's `additionalPrinterColumns`.
    Custom,
    /// NAME and AGE (kube-apiserver's default table, and ours for anything not listed).
    Default,
}

impl Printer {
    fn of(resource: &ResourceType) -> Printer {
        if resource.custom {
            return Printer::Custom;
        }
        match (resource.group.as_str(), resource.plural.as_str()) {
            ("", "pods") => Printer::Pod,
            ("apps", "deployments") => Printer::Deployment,
            ("apps", "replicasets") => Printer::ReplicaSet,
            ("", "services") => Printer::Service,
            ("", "nodes") => Printer::Node,
            ("apps", "statefulsets") => Printer::StatefulSet,
            ("apps", "daemonsets") => Printer::DaemonSet,
            ("", "namespaces") => Printer::Namespace,
            ("", "configmaps") => Printer::ConfigMap,
            ("", "secrets") => Printer::Secret,
            ("coordination.k8s.io", "leases") => Printer::Lease,
            ("", "events") => Printer::Event,
            ("apiextensions.k8s.io", "customresourcedefinitions") => Printer::Crd,
            ("batch", "jobs") => Printer::Job,
            ("batch", "cronjobs") => Printer::CronJob,
            ("policy", "poddisruptionbudgets") => Printer::PodDisruptionBudget,
            ("rbac.authorization.k8s.io", "roles" | "clusterroles") => Printer::Role,
            ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => {
                Printer::RoleBinding
            }
            ("certificates.k8s.io", "certificatesigningrequests") => {
                Printer::CertificateSigningRequest
            }
            ("", "replicationcontrollers") => Printer::ReplicationController,
            ("apiregistration.k8s.io", "apiservices") => Printer::ApiService,
            // serviceaccounts print NAME and AGE (printers.go:305), as the default does.
            (group, plural) => {
                served::Kind::of(group, plural).map_or(Printer::Default, Printer::Served)
            }
        }
    }

    fn columns(self, custom: &custom::Columns) -> Vec<Value> {
        match self {
            Printer::Pod => columns::pod(),
            Printer::Deployment => columns::deployment(),
            Printer::ReplicaSet => columns::replica_set(),
            Printer::Service => columns::service(),
            Printer::Node => columns::node(),
            Printer::StatefulSet => columns::stateful_set(),
            Printer::DaemonSet => columns::daemon_set(),
            Printer::Namespace => columns::namespace(),
            Printer::ConfigMap => columns::config_map(),
            Printer::Secret => columns::secret(),
            Printer::Lease => columns::lease(),
            Printer::Event => columns::event(),
            Printer::Crd => columns::crd(),
            Printer::Job => group_columns::job(),
            Printer::CronJob => group_columns::cron_job(),
            Printer::PodDisruptionBudget => group_columns::pod_disruption_budget(),
            Printer::Role => group_columns::role(),
            Printer::RoleBinding => group_columns::role_binding(),
            Printer::CertificateSigningRequest => group_columns::certificate_signing_request(),
            Printer::ReplicationController => group_columns::replication_controller(),
            Printer::ApiService => group_columns::api_service(),
            Printer::Served(kind) => kind.columns(),
            Printer::Custom => custom.definitions(),
            Printer::Default => columns::name_age(),
        }
    }

    fn cells(self, custom: &custom::Columns, object: &Value, now: Timestamp) -> Vec<Value> {
        match self {
            Printer::Pod => cells::pod(object, now),
            Printer::Deployment => cells::deployment(object, now),
            Printer::ReplicaSet => cells::replica_set(object, now),
            Printer::Service => cells::service(object, now),
            Printer::Node => cells::node(object, now),
            Printer::StatefulSet => cells::stateful_set(object, now),
            Printer::DaemonSet => cells::daemon_set(object, now),
            Printer::Namespace => cells::namespace(object, now),
            Printer::ConfigMap => cells::config_map(object, now),
            Printer::Secret => cells::secret(object, now),
            Printer::Lease => cells::lease(object, now),
            Printer::Event => cells::event(object, now),
            Printer::Crd => cells::crd(object),
            Printer::Job => group_cells::job(object, now),
            Printer::CronJob => group_cells::cron_job(object, now),
            Printer::PodDisruptionBudget => group_cells::pod_disruption_budget(object, now),
            Printer::Role => group_cells::role(object),
            Printer::RoleBinding => group_cells::role_binding(object, now),
            Printer::CertificateSigningRequest => {
                group_cells::certificate_signing_request(object, now)
            }
            Printer::ReplicationController => group_cells::replication_controller(object, now),
            Printer::ApiService => group_cells::api_service(object, now),
            Printer::Served(kind) => kind.cells(object, now),
            Printer::Custom => custom.cells(object, now),
            Printer::Default => cells::default(object, now),
        }
    }
}

/// `meta/v1` `Table`, in its Go fields' order (`apimachinery/pkg/apis/meta/v1/types.go`
/// `Table`: the inlined `TypeMeta`, `metadata`, `columnDefinitions`, `rows`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Table<'a> {
    kind: &'static str,
    api_version: &'static str,
    metadata: ListMeta<'a>,
    column_definitions: Vec<Column>,
    rows: Vec<Row<'a>>,
}

/// `ListMeta`'s fields a Table carries.
#[derive(Serialize)]
struct ListMeta<'a> {
    #[serde(rename = "resourceVersion")]
    resource_version: String,
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    continue_token: Option<&'a str>,
}

/// `TableColumnDefinition`: its members in the Go fields' order.
struct Column(Value);

impl Serialize for Column {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const ORDER: [&str; 5] = ["name", "type", "format", "description", "priority"];
        let mut map = serializer.serialize_map(None)?;
        for key in ORDER {
            if let Some(value) = self.0.get(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// `TableRow`: `cells`, `conditions` (omitempty), `object` (the stored bytes, as they are).
#[derive(Serialize)]
struct Row<'a> {
    cells: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    conditions: Option<Value>,
    object: Option<&'a RawValue>,
}

/// One row: its cells, a pod's completion conditions, and the object as `include` asks.
fn row<'a>(
    printer: Printer,
    custom: &custom::Columns,
    include: Include,
    object: &'a StoredObject,
    now: Timestamp,
) -> Row<'a> {
    let value = serde_json::from_slice::<Value>(&object.bytes).unwrap_or(Value::Null);
    let included: &[u8] = match include {
        Include::Metadata => object.metadata_only(),
        Include::Object => &object.bytes,
        Include::Nothing => b"",
    };
    let conditions = match printer {
        Printer::Pod => cells::pod_conditions(&value),
        _ => None,
    };
    Row {
        cells: printer.cells(custom, &value, now),
        conditions,
        object: serde_json::from_slice(included).ok(),
    }
}

/// A Table of `objects` as `options` ask; `continue_token` and `rv` go into its list metadata.
pub fn render(
    resource: &ResourceType,
    options: &Options,
    objects: &[&StoredObject],
    rv: u64,
    continue_token: Option<&str>,
) -> Bytes {
    let printer = Printer::of(resource);
    let custom = custom::Columns::of(resource, &options.version);
    let now = Timestamp::now();
    let table = Table {
        kind: "Table",
        api_version: "meta.k8s.io/v1",
        metadata: ListMeta {
            resource_version: rv.to_string(),
            continue_token,
        },
        column_definitions: printer.columns(&custom).into_iter().map(Column).collect(),
        rows: objects
            .iter()
            .map(|o| row(printer, &custom, options.include, o, now))
            .collect(),
    };
    Bytes::from(serde_json::to_vec(&table).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kube-apiserver writes a Table's members in its Go fields' order, not sorted.
    #[test]
    fn a_table_is_written_in_go_field_order() {
        let resource = crate::resources::builtins()
            .into_iter()
            .find(|r| r.kind == "Pod")
            .expect("served");
        let options = Options {
            version: "v1".into(),
            include: Include::Nothing,
        };
        let table = render(&resource, &options, &[], 7, Some("next"));
        let text = std::str::from_utf8(&table).expect("utf-8");
        let at = |key: &str| text.find(&format!("\"{key}\"")).expect(key);
        let order = [
            "kind",
            "apiVersion",
            "metadata",
            "columnDefinitions",
            "rows",
        ];
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
        assert!(
            text.contains(r#"{"resourceVersion":"7","continue":"next"}"#),
            "{text}"
        );
        assert!(
            text.contains(r#"{"name":"Name","type":"string","format":"name","#),
            "{text}"
        );
    }
}
