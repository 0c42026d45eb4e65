//! `metadata.managedFields` as kube-apiserver's field manager keeps it
//! (`apiserver/pkg/endpoints/handlers/fieldmanager`, over `sigs.k8s.io/structured-merge-diff`):
//! every write records which manager owns which fields.
//!
//! - An Update (create, PUT, every non-apply patch) compares the object before and after: the
//!   fields it added or changed become the writer's (merged into its earlier Update entry, whose
//!   `time` moves), other managers lose them, and removed fields leave every manager.
//! - An Apply owns exactly the fields of the applied configuration; fields it applied last time
//!   and no longer applies are removed from the object unless another manager owns them; a
//!   changed field another manager owns is a `409 Conflict` naming the fields and managers,
//!   unless `force` takes it over.
//!
//! Entries with no fields are dropped; `apiVersion`, `kind` and the server-set metadata are
//! never owned; main-resource writes never own `status`, status writes own nothing else.
//! Lists and maps follow the kind's schema ([`BuiltinSchema`], a CRD's structural schema), or
//! [`list_type`] and [`is_atomic_map`] (ObjectMeta's) for the metadata of a kind the capture
//! lacks.

use serde_json::{Map, Value, json};

use super::builtin_schema::BuiltinSchema;
use super::crd_schema;
use super::fieldset::{Atom, FieldSet, PathElement, field_key, subtract_v1, union_v1};
use super::list_types::ListType;
use super::managed_cap::cap_update_managers;
use super::meta::{now, str_at};
use super::patch_meta::{is_atomic_map, list_type};
use super::reset_fields::{reset_fields, resets};
use crate::resources::ResourceType;
use crate::status::{ApiError, StatusCause, StatusDetails};

/// Who writes: the field manager and the subresource written (`""`, `status`, `scale`).
#[derive(Debug, Clone, Copy)]
pub struct Writer<'a> {
    /// The field manager.
    pub manager: &'a str,
    /// The subresource, empty for the object itself.
    pub subresource: &'a str,
}

/// The metadata fields no manager owns (`fieldmanager`'s `stripMeta`).
const STRIPPED_METADATA: [&str; 9] = [
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "generation",
    "managedFields",
    "resourceVersion",
    "clusterName",
];

/// A managedFields operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Operation {
    Apply,
    Update,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// One `managedFields` entry.
#[derive(Debug, Clone)]
struct Entry {
    manager: String,
    operation: Operation,
    api_version: String,
    subresource: String,
    time: Option<String>,
    fields: FieldSet,
}

impl Entry {
    /// Whether the entry is the one of `manager` doing `operation` (appliers are one entry
    /// whatever their apiVersion).
    fn is(
        &self,
        manager: &str,
        operation: Operation,
        api_version: &str,
        subresource: &str,
    ) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource == subresource
            && (operation == Operation::Apply || self.api_version == api_version)
    }

    /// The manager as conflict messages name it (`internal.printManager`).
    fn printed(&self) -> String {
        let mut out = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            out.push_str(&format!(" with subresource {:?}", self.subresource));
        }
        if self.operation == Operation::Update {
            out.push_str(&format!(" using {}", self.api_version));
        }
        out
    }

    fn to_value(&self) -> Value {
        let mut entry = json!({
            "apiVersion": self.api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": self.fields.to_fields_v1(),
            "manager": self.manager,
            "operation": self.operation.name(),
        });
        if let Some(object) = entry.as_object_mut() {
            if let Some(time) = &self.time {
                object.insert("time".into(), time.clone().into());
            }
            if !self.subresource.is_empty() {
                object.insert("subresource".into(), self.subresource.clone().into());
            }
        }
        entry
    }

    /// An entry as a client or the store wrote it; None when it is not a valid one.
    fn from_value(value: &Value) -> Option<Entry> {
        let operation = match str_at(value, "/operation") {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            _ => return None,
        };
        if !matches!(value.get("fieldsType"), None | Some(Value::Null))
            && str_at(value, "/fieldsType") != "FieldsV1"
        {
            return None;
        }
        let fields = match value.get("fieldsV1") {
            None | Some(Value::Null) => FieldSet::default(),
            Some(fields) => FieldSet::from_fields_v1(fields)?,
        };
        Some(Entry {
            manager: value.get("manager")?.as_str()?.to_owned(),
            operation,
            api_version: str_at(value, "/apiVersion").to_owned(),
            subresource: str_at(value, "/subresource").to_owned(),
            time: value.get("time").and_then(Value::as_str).map(str::to_owned),
            fields,
        })
    }
}

/// The entries of an object's `managedFields` value; None unless every entry is valid.
fn decode(value: Option<&Value>) -> Option<Vec<Entry>> {
    value?.as_array()?.iter().map(Entry::from_value).collect()
}

/// The entries stored on `object` (none when it has none).
fn stored(object: &Value) -> Vec<Entry> {
    decode(object.pointer("/metadata/managedFields")).unwrap_or_default()
}

/// Writes `entries` (without empty ones, in kube-apiserver's order: operation, time, manager,
/// apiVersion, subresource) into `object`'s metadata.
fn encode(object: &mut Value, mut entries: Vec<Entry>) {
    entries.retain(|e| !e.fields.is_empty());
    entries.sort_by(|a, b| {
        (
            a.operation,
            &a.time,
            &a.manager,
            &a.api_version,
            &a.subresource,
        )
            .cmp(&(
                b.operation,
                &b.time,
                &b.manager,
                &b.api_version,
                &b.subresource,
            ))
    });
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if entries.is_empty() {
        metadata.remove("managedFields");
    } else {
        let values = entries.iter().map(Entry::to_value).collect();
        metadata.insert("managedFields".into(), Value::Array(values));
    }
}

/// Records in `new`'s managedFields an Update by `writer` of the object `old` (on a create, the
/// type's zero value). Valid managedFields the client sent in `new` replace the stored ones
/// first, as kube-apiserver lets clients rewrite them (`[{}]` resets them).
///
/// The hot path of every write: it works on the `fieldsV1` JSON itself, and touches an entry
/// only where the write added, changed or removed fields.
pub fn record_update(resource: &ResourceType, old: &Value, new: &mut Value, writer: Writer<'_>) {
    let sent = new
        .pointer_mut("/metadata")
        .and_then(Value::as_object_mut)
        .and_then(|m| m.remove("managedFields"));
    let entries = match sent {
        Some(sent) if is_reset(&sent) => Vec::new(),
        Some(Value::Array(sent)) if !sent.is_empty() && sent.iter().all(valid_entry) => sent,
        _ => old
            .pointer("/metadata/managedFields")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    };
    let api_version = str_at(new, "/apiVersion").to_owned();
    let schema = Schema::new(resource, &api_version, writer.subresource);
    let change = Change {
        changed: schema.changed_fields(&mut Vec::new(), Some(old), new),
        removed: match entries.is_empty() {
            true => None,
            false => schema.removed_fields(&mut Vec::new(), old, Some(new)),
        },
    };
    let entries = change.record(entries, writer, &api_version);
    write_entries(new, entries);
}

/// What an Update did, as `fieldsV1` trees: the fields it added or changed and the fields it
/// removed (None: none).
#[derive(Debug, Default)]
pub struct Change {
    /// The fields added or changed.
    pub changed: Option<Value>,
    /// The fields removed.
    pub removed: Option<Value>,
}

impl Change {
    /// The raw managedFields `entries` after this Update by `writer` at `api_version`: the
    /// changed fields become the writer's (its Update entry's `time` moves, a new entry when it
    /// has none), every other manager loses them, and removed fields leave every manager. In
    /// kube-apiserver's order, without empty entries, the oldest merged past ten
    /// ([`cap_update_managers`]).
    pub fn record(
        self,
        mut entries: Vec<Value>,
        writer: Writer<'_>,
        api_version: &str,
    ) -> Vec<Value> {
        let Change { changed, removed } = self;
        let is_writer = |entry: &Value| {
            str_at(entry, "/manager") == writer.manager
                && str_at(entry, "/operation") == "Update"
                && str_at(entry, "/apiVersion") == api_version
                && str_at(entry, "/subresource") == writer.subresource
        };
        for entry in &mut entries {
            let writes = is_writer(entry);
            let Some(fields) = entry.get_mut("fieldsV1").and_then(Value::as_object_mut) else {
                continue;
            };
            if let Some(Value::Object(removed)) = &removed {
                subtract_v1(fields, removed);
            }
            if let Some(Value::Object(changed)) = &changed
                && !writes
            {
                subtract_v1(fields, changed);
            }
        }
        if let Some(Value::Object(changed)) = changed {
            match entries.iter_mut().find(|e| is_writer(e)) {
                Some(entry) => {
                    match entry.get_mut("fieldsV1").and_then(Value::as_object_mut) {
                        // An emptied entry is no set at all (its `{}` would read as a member).
                        Some(fields) if !fields.is_empty() => union_v1(fields, changed),
                        _ => entry["fieldsV1"] = Value::Object(changed),
                    }
                    entry["time"] = now().into();
                }
                None => entries.push(update_entry(writer, api_version, changed)),
            }
        }
        in_stored_order(cap_update_managers(entries))
    }
}

/// A new Update entry of `writer` at `api_version` owning `fields` (built as a map: `json!`
/// would copy the fields through serde), stamped with the time unless written through `scale`.
fn update_entry(writer: Writer<'_>, api_version: &str, fields: Map<String, Value>) -> Value {
    let mut entry = Map::new();
    entry.insert("apiVersion".into(), api_version.into());
    entry.insert("fieldsType".into(), "FieldsV1".into());
    entry.insert("fieldsV1".into(), Value::Object(fields));
    entry.insert("manager".into(), writer.manager.into());
    entry.insert("operation".into(), "Update".into());
    if !writer.subresource.is_empty() {
        entry.insert("subresource".into(), writer.subresource.into());
    }
    // kube-apiserver's scale handler writes its entries without a time (they sort first).
    if writer.subresource != "scale" {
        entry.insert("time".into(), now().into());
    }
    Value::Object(entry)
}

/// Whether sent managedFields ask for a reset: one empty entry (`[{}]`, kube-apiserver's
/// `isResetManagedFields`).
fn is_reset(sent: &Value) -> bool {
    matches!(sent.as_array().map(Vec::as_slice), Some([Value::Object(entry)]) if entry.is_empty())
}

/// Whether a sent entry is one kube-apiserver decodes: an operation, a manager, `FieldsV1`.
fn valid_entry(entry: &Value) -> bool {
    let fields_ok = match entry.get("fieldsV1") {
        None | Some(Value::Null) => true,
        Some(fields) => valid_fields_v1(fields),
    };
    matches!(str_at(entry, "/operation"), "Apply" | "Update")
        && entry.get("manager").is_some_and(Value::is_string)
        && matches!(str_at(entry, "/fieldsType"), "" | "FieldsV1")
        && fields_ok
}

/// Whether `fields` is a `fieldsV1` tree (every key `.` or a path element).
fn valid_fields_v1(fields: &Value) -> bool {
    fields.as_object().is_some_and(|node| {
        node.iter().all(|(key, child)| {
            (key == "." || ["f:", "k:", "v:", "i:"].iter().any(|p| key.starts_with(p)))
                && valid_fields_v1(child)
        })
    })
}

/// Raw `entries` as they are stored: without empty ones, in kube-apiserver's order (operation,
/// time, manager, apiVersion, subresource).
fn in_stored_order(mut entries: Vec<Value>) -> Vec<Value> {
    entries.retain(|e| e["fieldsV1"].as_object().is_some_and(|f| !f.is_empty()));
    entries.sort_by(|a, b| stored_order_key(a).cmp(&stored_order_key(b)));
    entries
}

/// What orders a raw entry: operation, time, manager, apiVersion, subresource.
fn stored_order_key(entry: &Value) -> [&str; 5] {
    ["operation", "time", "manager", "apiVersion", "subresource"]
        .map(|name| entry.get(name).and_then(Value::as_str).unwrap_or(""))
}

/// Writes raw `entries` (already [`in_stored_order`]) into `object`'s metadata.
fn write_entries(object: &mut Value, entries: Vec<Value>) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if entries.is_empty() {
        metadata.remove("managedFields");
    } else {
        metadata.insert("managedFields".into(), Value::Array(entries));
    }
}

/// The object a server-side apply of `config` by `writer` makes of `live` (the type's zero
/// value when the object does not exist yet), with its managedFields; `409 Conflict` when it
/// would change fields other managers own and `force` is not set.
pub fn apply(
    resource: &ResourceType,
    live: &Value,
    config: &Value,
    writer: Writer<'_>,
    force: bool,
) -> Result<Value, ApiError> {
    if config
        .pointer("/metadata/managedFields")
        .is_some_and(|v| !v.is_null())
    {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    let api_version = match str_at(config, "/apiVersion") {
        "" => resource.api_version(),
        given => given.to_owned(),
    };
    let schema = Schema::new(resource, &api_version, writer.subresource);
    let mut base = live.clone();
    if let Some(metadata) = base.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    let mut entries = stored(live);
    let mut applied = schema.field_set(&mut Vec::new(), config);
    ignore_in(&mut applied, writer.subresource);
    let position = entries
        .iter()
        .position(|e| e.is(writer.manager, Operation::Apply, "", writer.subresource));
    let last = position.map(|i| std::mem::replace(&mut entries[i].fields, applied.clone()));
    let index = position.unwrap_or_else(|| {
        entries.push(Entry {
            manager: writer.manager.to_owned(),
            operation: Operation::Apply,
            api_version: api_version.clone(),
            subresource: writer.subresource.to_owned(),
            time: None,
            fields: applied,
        });
        entries.len() - 1
    });
    entries[index].api_version = api_version;
    let mut merged = schema.merge(&mut Vec::new(), base.clone(), config);
    if let Some(last) = &last {
        let mut owned = FieldSet::default();
        for entry in &entries {
            owned.union_with(entry.fields.clone());
        }
        schema.prune(&mut Vec::new(), &mut merged, last, &owned);
    }
    let mut comparison = schema.compare(&mut Vec::new(), Some(&base), Some(&merged));
    comparison.ignore(writer.subresource);
    let changed = comparison.changed();
    let conflicts: Vec<(String, FieldSet)> = entries
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, e)| (e.printed(), e.fields.intersection(&changed)))
        .filter(|(_, set)| !set.is_empty())
        .collect();
    if !force && !conflicts.is_empty() {
        let allowed = allowed_by_last_applied(&schema, resource, live, writer);
        let remaining: Vec<(String, FieldSet)> = conflicts
            .into_iter()
            .map(|(manager, mut fields)| {
                if let Some(allowed) = &allowed {
                    fields.subtract(allowed);
                }
                (manager, fields)
            })
            .filter(|(_, fields)| !fields.is_empty())
            .collect();
        if !remaining.is_empty() {
            return Err(conflict_error(remaining));
        }
    }
    for (i, entry) in entries.iter_mut().enumerate() {
        entry.fields.subtract(&comparison.removed);
        if i != index {
            entry.fields.subtract(&changed);
        }
    }
    if merged != base || entries[index].time.is_none() {
        entries[index].time = Some(now());
    }
    encode(&mut merged, entries);
    Ok(merged)
}

/// kube-apiserver's apply conflict (`internal.NewConflictError`): `409 Conflict`, a cause per
/// field, the message listing them by manager.
/// The conflicts kube-apiserver lets `kubectl`'s server-side apply take over, so an object
/// managed by client-side apply upgrades without `--force-conflicts` (apimachinery
/// `pkg/util/managedfields/internal/lastappliedmanager.go`): the fields of the
/// `kubectl.kubernetes.io/last-applied-configuration` annotation that the live object still
/// holds unchanged. None unless the writer is `kubectl` and the annotation is an object of the
/// live object's apiVersion.
fn allowed_by_last_applied(
    schema: &Schema<'_>,
    resource: &ResourceType,
    live: &Value,
    writer: Writer<'_>,
) -> Option<FieldSet> {
    const ANNOTATION: &str =
        "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration";
    if writer.manager != "kubectl" {
        return None;
    }
    let last: Value = serde_json::from_str(live.pointer(ANNOTATION)?.as_str()?).ok()?;
    if !last.is_object() || str_at(&last, "/apiVersion") != resource.api_version() {
        return None;
    }
    let mut allowed = schema.field_set(&mut Vec::new(), &last);
    let comparison = schema.compare(&mut Vec::new(), Some(&last), Some(live));
    for differing in [&comparison.modified, &comparison.added, &comparison.removed] {
        allowed.subtract(differing);
    }
    Some(allowed)
}

fn conflict_error(mut conflicts: Vec<(String, FieldSet)>) -> ApiError {
    conflicts.sort_by(|a, b| a.0.cmp(&b.0));
    let mut causes = Vec::new();
    let mut lines = Vec::new();
    for (manager, fields) in &conflicts {
        lines.push(format!("conflicts with {manager}:"));
        for path in fields.paths() {
            lines.push(format!("- {path}"));
            causes.push(StatusCause {
                reason: "FieldManagerConflict".into(),
                message: format!("conflict with {manager}"),
                field: path.to_string(),
            });
        }
    }
    let message = match (causes.len(), causes.first()) {
        (1, Some(cause)) => format!(
            "Apply failed with 1 conflict: {}: {}",
            cause.message, cause.field
        ),
        (count, _) => format!("Apply failed with {count} conflicts: {}", lines.join("\n")),
    };
    let mut error = ApiError::new(409, "Conflict", message);
    error.details = Some(Box::new(StatusDetails {
        causes,
        ..StatusDetails::default()
    }));
    error
}

/// Keeps of `set` what a write of `subresource` may own: `status` only for status writes,
/// anything but `status` otherwise (the strategies' reset fields).
fn ignore_in(set: &mut FieldSet, subresource: &str) {
    let status = PathElement::Field("status".into());
    if subresource == "status" {
        let mut kept = FieldSet::default();
        if let Some(child) = set.take_child(&status) {
            kept.insert_child(status, child);
        }
        *set = kept;
    } else {
        set.take_child(&status);
    }
}

/// The fields a comparison found added, changed and removed.
#[derive(Debug, Default)]
struct Comparison {
    added: FieldSet,
    modified: FieldSet,
    removed: FieldSet,
}

impl Comparison {
    fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    fn insert_child(&mut self, element: &PathElement, child: Comparison) {
        for (mine, theirs) in [
            (&mut self.added, child.added),
            (&mut self.modified, child.modified),
            (&mut self.removed, child.removed),
        ] {
            if !theirs.is_empty() {
                mine.insert_child(element.clone(), theirs);
            }
        }
    }

    /// Added or modified.
    fn changed(&self) -> FieldSet {
        let mut changed = self.added.clone();
        changed.union_with(self.modified.clone());
        changed
    }

    fn ignore(&mut self, subresource: &str) {
        ignore_in(&mut self.added, subresource);
        ignore_in(&mut self.modified, subresource);
        ignore_in(&mut self.removed, subresource);
    }
}

/// How a value at a path is walked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape<'k> {
    /// Field by field.
    Map,
    /// Element by element, by their identity.
    List(ListType<'k>),
    /// As one value (scalars, atomic lists and maps).
    Leaf,
}

/// The schema facts of one kind the walks need, and the subresource written.
struct Schema<'k> {
    /// A built-in kind's schema in the written version.
    builtin: Option<&'static BuiltinSchema>,
    /// The fields the kind's strategy resets on this write.
    reset: &'static [&'static [&'static str]],
    /// A custom resource's structural schema for the written version.
    custom: Option<&'k Value>,
    subresource: &'k str,
}

impl<'k> Schema<'k> {
    fn new(resource: &'k ResourceType, api_version: &str, subresource: &'k str) -> Self {
        let version = api_version.rsplit('/').next().unwrap_or(api_version);
        Schema {
            builtin: BuiltinSchema::of(resource, version),
            reset: reset_fields(&resource.group, &resource.kind, subresource),
            custom: resource.schema_for(api_version),
            subresource,
        }
    }

    /// The custom resource's schema when it describes `path`: everywhere but `metadata`
    /// (ObjectMeta is the built-in one in every object, read from the built-in table).
    fn custom_at(&self, path: &[&str]) -> Option<&'k Value> {
        self.custom.filter(|_| path.first() != Some(&"metadata"))
    }

    /// The list type at `path` (see [`Self::custom_at`]).
    fn list_type(&self, path: &[&str]) -> ListType<'k> {
        match self.custom_at(path) {
            Some(schema) => crd_schema::list_type(schema, path),
            None => match self.builtin {
                Some(builtin) => builtin.list_type(path),
                None => list_type(path),
            },
        }
    }

    /// Whether the map at `path` is atomic (see [`Self::custom_at`]).
    fn is_atomic_map(&self, path: &[&str]) -> bool {
        match self.custom_at(path) {
            Some(schema) => crd_schema::is_atomic_map(schema, path),
            None => match self.builtin {
                Some(builtin) => builtin.is_atomic_map(path),
                None => is_atomic_map(path),
            },
        }
    }

    /// Whether the field `key` of the map at `path` is one the write's manager may own (see
    /// [`Self::skipped`] and [`ignore_in`]).
    fn tracked(&self, path: &[&str], key: &str) -> bool {
        if Self::skipped(path, key) || resets(self.reset, path, key) {
            return false;
        }
        !path.is_empty() || (key == "status") == (self.subresource == "status")
    }

    /// The shape of the non-null `values` at `path` (a leaf when they disagree).
    fn shape(&self, path: &[&str], values: [Option<&Value>; 2]) -> Shape<'k> {
        let mut found = None;
        for value in values.into_iter().flatten() {
            let shape = match value {
                Value::Null => continue,
                Value::Object(_) if !self.is_atomic_map(path) => Shape::Map,
                Value::Array(_) => match self.list_type(path) {
                    ListType::Atomic => Shape::Leaf,
                    other => Shape::List(other),
                },
                _ => Shape::Leaf,
            };
            if found.as_ref().is_some_and(|f| *f != shape) {
                return Shape::Leaf;
            }
            found = Some(shape);
        }
        found.unwrap_or(Shape::Leaf)
    }

    /// Whether the field `key` of the map at `path` is one no manager owns.
    fn skipped(path: &[&str], key: &str) -> bool {
        match path {
            [] => key == "apiVersion" || key == "kind",
            ["metadata"] => STRIPPED_METADATA.contains(&key),
            _ => false,
        }
    }

    /// Compares `old` and `new` at `path` (structured-merge-diff's `TypedValue.Compare`): a
    /// field or element absent before is added (maps and lists too), absent after is removed,
    /// a leaf that differs is modified.
    fn compare<'v>(
        &self,
        path: &mut Vec<&'v str>,
        old: Option<&'v Value>,
        new: Option<&'v Value>,
    ) -> Comparison {
        let mut out = Comparison::default();
        let walked = match self.shape(path, [old, new]) {
            Shape::Map => {
                self.compare_maps(path, old, new, &mut out);
                true
            }
            Shape::List(list) => self.compare_lists(path, &list, old, new, &mut out),
            Shape::Leaf => false,
        };
        match (old, new) {
            (None, Some(_)) => out.added.insert_self(),
            (Some(_), None) => out.removed.insert_self(),
            (Some(a), Some(b)) if !walked && a != b => out.modified.insert_self(),
            _ => {}
        }
        out
    }

    fn compare_maps<'v>(
        &self,
        path: &mut Vec<&'v str>,
        old: Option<&'v Value>,
        new: Option<&'v Value>,
        out: &mut Comparison,
    ) {
        let old = old.and_then(Value::as_object);
        let new = new.and_then(Value::as_object);
        let old_keys = old.into_iter().flat_map(|m| m.iter());
        let new_only = new
            .into_iter()
            .flat_map(|m| m.iter())
            .filter(|(k, _)| !old.is_some_and(|o| o.contains_key(*k)));
        for (key, _) in old_keys.chain(new_only) {
            if Self::skipped(path, key) {
                continue;
            }
            path.push(key);
            let child = self.compare(
                path,
                old.and_then(|m| m.get(key)),
                new.and_then(|m| m.get(key)),
            );
            path.pop();
            if !child.is_empty() {
                out.insert_child(&PathElement::Field(key.clone()), child);
            }
        }
    }

    /// Compares two lists element by element; false (compare them whole) when an element has
    /// no identity.
    fn compare_lists<'v>(
        &self,
        path: &mut Vec<&'v str>,
        list: &ListType<'_>,
        old: Option<&'v Value>,
        new: Option<&'v Value>,
        out: &mut Comparison,
    ) -> bool {
        let (Some(old_items), Some(new_items)) = (identify(list, old), identify(list, new)) else {
            return false;
        };
        let find = |items: &[(PathElement, &'v Value)], wanted: &PathElement| {
            items.iter().find(|(e, _)| e == wanted).map(|(_, v)| *v)
        };
        for (element, item) in &old_items {
            let child = self.compare(path, Some(item), find(&new_items, element));
            out.insert_child(element, child);
        }
        for (element, item) in &new_items {
            if find(&old_items, element).is_none() {
                let child = self.compare(path, None, Some(item));
                out.insert_child(element, child);
            }
        }
        true
    }

    /// The fields `new` adds to or changes in `old` (a main-resource write), straight as
    /// `fieldsV1` (None when none): what [`Self::compare`] finds added or modified, without the
    /// sets in between.
    fn changed_fields<'v>(
        &self,
        path: &mut Vec<&'v str>,
        old: Option<&'v Value>,
        new: &'v Value,
    ) -> Option<Value> {
        let mut fields = Map::new();
        match self.shape(path, [old, Some(new)]) {
            Shape::Map => {
                let old = old.and_then(Value::as_object);
                for (key, child) in new.as_object().into_iter().flatten() {
                    if !self.tracked(path, key) {
                        continue;
                    }
                    path.push(key);
                    let changed = self.changed_fields(path, old.and_then(|m| m.get(key)), child);
                    path.pop();
                    if let Some(changed) = changed {
                        fields.insert(field_key(key), changed);
                    }
                }
            }
            Shape::List(list) => {
                let (Some(old_items), Some(new_items)) =
                    (identify(&list, old), identify(&list, Some(new)))
                else {
                    return changed_leaf(old, new);
                };
                for (element, item) in new_items {
                    let before = old_items
                        .iter()
                        .find(|(e, _)| *e == element)
                        .map(|(_, v)| *v);
                    if let Some(changed) = self.changed_fields(path, before, item) {
                        fields.insert(element.encode(), changed);
                    }
                }
            }
            Shape::Leaf => return changed_leaf(old, new),
        }
        fields_node(fields, old.is_none())
    }

    /// The fields of `old` that `new` lacks, every path below a removed one included, as
    /// `fieldsV1` (None when none): what [`Self::compare`] finds removed.
    fn removed_fields<'v>(
        &self,
        path: &mut Vec<&'v str>,
        old: &'v Value,
        new: Option<&'v Value>,
    ) -> Option<Value> {
        let mut fields = Map::new();
        match self.shape(path, [Some(old), new]) {
            Shape::Map => {
                let new = new.and_then(Value::as_object);
                for (key, child) in old.as_object().into_iter().flatten() {
                    if !self.tracked(path, key) {
                        continue;
                    }
                    path.push(key);
                    let removed = self.removed_fields(path, child, new.and_then(|m| m.get(key)));
                    path.pop();
                    if let Some(removed) = removed {
                        fields.insert(field_key(key), removed);
                    }
                }
            }
            Shape::List(list) => {
                if let (Some(old_items), Some(new_items)) =
                    (identify(&list, Some(old)), identify(&list, new))
                {
                    for (element, item) in old_items {
                        let after = new_items
                            .iter()
                            .find(|(e, _)| *e == element)
                            .map(|(_, v)| *v);
                        if let Some(removed) = self.removed_fields(path, item, after) {
                            fields.insert(element.encode(), removed);
                        }
                    }
                }
            }
            Shape::Leaf => {}
        }
        fields_node(fields, new.is_none())
    }

    /// The fields a configuration sets (structured-merge-diff's `ToFieldSet`): leaves, null
    /// and empty maps, and every list element.
    fn field_set<'v>(&self, path: &mut Vec<&'v str>, value: &'v Value) -> FieldSet {
        let mut set = FieldSet::default();
        match self.shape(path, [Some(value), None]) {
            Shape::Map => {
                for (key, child) in value.as_object().into_iter().flatten() {
                    if Self::skipped(path, key) {
                        continue;
                    }
                    path.push(key);
                    let mut fields = self.field_set(path, child);
                    path.pop();
                    if child.is_null() || child.as_object().is_some_and(Map::is_empty) {
                        fields.insert_self();
                    }
                    set.insert_child(PathElement::Field(key.clone()), fields);
                }
            }
            Shape::List(list) => match identify(&list, Some(value)) {
                Some(items) => {
                    for (element, item) in items {
                        let mut fields = self.field_set(path, item);
                        fields.insert_self();
                        set.insert_child(element, fields);
                    }
                }
                None => set.insert_self(),
            },
            Shape::Leaf => set.insert_self(),
        }
        set
    }

    /// `base` with `config` merged in (structured-merge-diff's `Merge`): maps field by field
    /// (a null field removed), lists element by element (base order, the configuration's
    /// elements in its own order where they meet), leaves replaced.
    fn merge<'v>(&self, path: &mut Vec<&'v str>, base: Value, config: &'v Value) -> Value {
        match self.shape(path, [Some(&base), Some(config)]) {
            Shape::Map => {
                let mut merged = match base {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                for (key, value) in config.as_object().into_iter().flatten() {
                    if value.is_null() {
                        merged.remove(key);
                        continue;
                    }
                    path.push(key);
                    let current = merged.remove(key).unwrap_or(Value::Null);
                    let child = self.merge(path, current, value);
                    path.pop();
                    merged.insert(key.clone(), child);
                }
                Value::Object(merged)
            }
            Shape::List(list) => self.merge_lists(path, &list, base, config),
            Shape::Leaf => config.clone(),
        }
    }

    fn merge_lists<'v>(
        &self,
        path: &mut Vec<&'v str>,
        list: &ListType<'_>,
        base: Value,
        config: &'v Value,
    ) -> Value {
        let (Some(base_ids), Some(config_items)) =
            (identify(list, Some(&base)), identify(list, Some(config)))
        else {
            return config.clone();
        };
        let base_ids: Vec<PathElement> = base_ids.into_iter().map(|(e, _)| e).collect();
        let mut base_items: Vec<Option<Value>> = match base {
            Value::Array(items) => items.into_iter().map(Some).collect(),
            _ => Vec::new(),
        };
        let mut out = Vec::new();
        let mut next = 0;
        let mut emit_through =
            |until: usize, base_items: &mut Vec<Option<Value>>, out: &mut Vec<Value>| {
                while next < until {
                    let (element, item) = (&config_items[next].0, config_items[next].1);
                    let current = base_ids
                        .iter()
                        .position(|e| e == element)
                        .and_then(|i| base_items[i].take())
                        .unwrap_or(Value::Null);
                    out.push(self.merge(path, current, item));
                    next += 1;
                }
            };
        for (index, element) in base_ids.iter().enumerate() {
            match config_items.iter().position(|(e, _)| e == element) {
                Some(at) => emit_through(at + 1, &mut base_items, &mut out),
                None => out.extend(base_items[index].take()),
            }
        }
        emit_through(config_items.len(), &mut base_items, &mut out);
        Value::Array(out)
    }

    /// Removes from `value` the fields of `last` (what the applier applied before) that no
    /// manager owns any more (`owned`), each with everything below it.
    fn prune(&self, path: &mut Vec<String>, value: &mut Value, last: &FieldSet, owned: &FieldSet) {
        let orphaned = |element: &PathElement, last: &FieldSet| {
            let owned = owned.child(element);
            let still_owned = match element {
                PathElement::Field(_) => owned.is_some_and(|o| !o.is_empty()),
                _ => owned.is_some_and(FieldSet::is_member),
            };
            last.is_member() && !still_owned
        };
        let empty = FieldSet::default();
        match value {
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let element = PathElement::Field(key.clone());
                    let Some(last) = last.child(&element) else {
                        continue;
                    };
                    if orphaned(&element, last) {
                        map.remove(&key);
                    } else if let Some(child) = map.get_mut(&key) {
                        path.push(key);
                        self.prune(path, child, last, owned.child(&element).unwrap_or(&empty));
                        path.pop();
                    }
                }
            }
            Value::Array(items) => {
                let list = {
                    let names: Vec<&str> = path.iter().map(String::as_str).collect();
                    self.list_type(&names)
                };
                items.retain_mut(|item| {
                    let Some(element) = element_of(&list, item) else {
                        return true;
                    };
                    let Some(last) = last.child(&element) else {
                        return true;
                    };
                    if orphaned(&element, last) {
                        return false;
                    }
                    self.prune(path, item, last, owned.child(&element).unwrap_or(&empty));
                    true
                });
            }
            _ => {}
        }
    }
}

/// The `fieldsV1` node of `fields` (None when there are none), with its `.` member when the
/// value is `whole`ly new or removed (a map or list is then a member itself).
fn fields_node(mut fields: Map<String, Value>, whole: bool) -> Option<Value> {
    if !whole && fields.is_empty() {
        return None;
    }
    if whole && !fields.is_empty() {
        fields.insert(".".into(), Value::Object(Map::new()));
    }
    Some(Value::Object(fields))
}

/// A leaf's `fieldsV1` when it is new or changed.
fn changed_leaf(old: Option<&Value>, new: &Value) -> Option<Value> {
    (old != Some(new)).then(|| json!({}))
}

/// The elements of a list value with their identities; None when one has none (or the value
/// is not a list: an absent or null list has no elements).
fn identify<'v>(
    list: &ListType<'_>,
    value: Option<&'v Value>,
) -> Option<Vec<(PathElement, &'v Value)>> {
    match value {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| element_of(list, item).map(|e| (e, item)))
            .collect(),
        Some(_) => None,
    }
}

/// The path element of a list element: its value in a set, its key fields in a map list (a
/// missing `protocol` key is its schema default, `TCP`).
fn element_of(list: &ListType<'_>, item: &Value) -> Option<PathElement> {
    match list {
        ListType::Atomic => None,
        ListType::Set => Some(PathElement::Value(Atom::of(item))),
        ListType::Map(keys) => {
            let object = item.as_object()?;
            let mut key = Vec::new();
            for &name in keys {
                match object.get(name) {
                    Some(value) => key.push((name.to_owned(), Atom::of(value))),
                    None if name == "protocol" => {
                        key.push((name.to_owned(), Atom::Text("TCP".into())));
                    }
                    None => {}
                }
            }
            if key.is_empty() {
                return None;
            }
            key.sort();
            Some(PathElement::Key(key))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::resources::builtins;
    use crate::write::defaults::apply_defaults;
    use crate::write::zero_value::zero_value;

    fn deployments() -> ResourceType {
        builtins()
            .into_iter()
            .find(|r| r.kind == "Deployment")
            .expect("served")
    }

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            subresource: "",
        }
    }

    /// What `kubectl create deployment web --image=nginx:1.27` sends (its protobuf decoded).
    fn created() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "resources": {}}]},
                },
                "strategy": {},
            },
        })
    }

    fn fields_of(object: &Value, manager: &str) -> Value {
        object["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["manager"] == manager)
            .map(|e| e["fieldsV1"].clone())
            .unwrap_or(Value::Null)
    }

    fn managers(object: &Value) -> Vec<(String, String)> {
        object["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (str_at(e, "/manager").into(), str_at(e, "/operation").into()))
            .collect()
    }

    /// A created object, defaulted, its creator recorded.
    fn create(resource: &ResourceType, mut object: Value, manager: &str) -> Value {
        apply_defaults(&mut object, resource);
        record_update(resource, zero_value(resource), &mut object, writer(manager));
        object
    }

    /// The managedFields of `kubectl create deployment` on a v1.32 cluster (`kubectl get -o
    /// yaml --show-managed-fields`): the defaulted fields are the creator's, the maps and list
    /// elements absent from the empty Deployment carry `.`, `selector` is atomic.
    #[test]
    fn a_create_owns_every_field_it_set_or_defaulted() {
        let resource = deployments();
        let object = create(&resource, created(), "kubectl-create");
        let container = json!({
            ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
            "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {},
        });
        assert_eq!(
            fields_of(&object, "kubectl-create"),
            json!({
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {
                    "f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {},
                    "f:selector": {},
                    "f:strategy": {
                        "f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}},
                        "f:type": {},
                    },
                    "f:template": {
                        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {
                            "f:containers": {"k:{\"name\":\"nginx\"}": container},
                            "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                            "f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
                        },
                    },
                },
            })
        );
        let entry = &object["metadata"]["managedFields"][0];
        assert_eq!(entry["operation"], "Update");
        assert_eq!(entry["apiVersion"], "apps/v1");
        assert_eq!(entry["fieldsType"], "FieldsV1");
        assert!(entry["time"].is_string());
    }

    /// The first writer's fields, written straight as `fieldsV1`, are the ones the comparison
    /// finds (a pod with lists of every kind, and an update of it).
    #[test]
    fn the_first_writers_fields_are_the_comparisons() {
        let pods = builtins()
            .into_iter()
            .find(|r| r.kind == "Pod")
            .expect("served");
        let mut pod = crate::seed::synthetic_pod("default", 3);
        apply_defaults(&mut pod, &pods);
        let schema = Schema::new(&pods, "v1", "");
        let zero = zero_value(&pods);
        for old in [zero.clone(), {
            let mut old = pod.clone();
            old["spec"]["containers"][0]["image"] = json!("other");
            old["metadata"]["labels"] = json!({"gone": "x"});
            old
        }] {
            let mut comparison = schema.compare(&mut Vec::new(), Some(&old), Some(&pod));
            comparison.ignore("");
            let direct = schema.changed_fields(&mut Vec::new(), Some(&old), &pod);
            assert_eq!(direct, Some(comparison.changed().to_fields_v1()));
        }
    }

    /// An Update takes the fields it changes from their owners (SSA docs, "Conflicts": updates
    /// never conflict, they become the owner); an unchanged update records nothing.
    #[test]
    fn an_update_takes_the_fields_it_changes() {
        let resource = deployments();
        let old = create(&resource, created(), "kubectl-create");
        let mut same = old.clone();
        record_update(&resource, &old, &mut same, writer("kubectl-edit"));
        assert_eq!(
            managers(&same),
            [("kubectl-create".into(), "Update".into())]
        );

        let mut scaled = old.clone();
        scaled["spec"]["replicas"] = json!(3);
        record_update(&resource, &old, &mut scaled, writer("kubectl-scale"));
        assert_eq!(
            fields_of(&scaled, "kubectl-scale"),
            json!({"f:spec": {"f:replicas": {}}})
        );
        assert!(
            fields_of(&scaled, "kubectl-create")["f:spec"]
                .get("f:replicas")
                .is_none()
        );
    }

    /// `kubectl apply --server-side` by two managers (SSA docs, "Conflicts"): the second one
    /// changing a field of the first is refused naming field and manager; with `force` it takes
    /// the field over; applying the same value shares it.
    #[test]
    fn apply_conflicts_name_fields_and_managers_and_force_takes_over() {
        let resource = deployments();
        let config = |replicas: i64| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web"}, "spec": {"replicas": replicas}})
        };
        let first = apply(
            &resource,
            zero_value(&resource),
            &config(2),
            writer("alice"),
            false,
        )
        .expect("first apply");
        assert_eq!(
            fields_of(&first, "alice"),
            json!({"f:spec": {"f:replicas": {}}})
        );
        let error =
            apply(&resource, &first, &config(3), writer("bob"), false).expect_err("a conflict");
        assert_eq!(error.code, 409);
        assert_eq!(error.reason, "Conflict");
        assert_eq!(
            error.message,
            "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas"
        );
        assert_eq!(
            error.details.map(|d| d.causes),
            Some(vec![StatusCause {
                reason: "FieldManagerConflict".into(),
                message: "conflict with \"alice\"".into(),
                field: ".spec.replicas".into(),
            }])
        );
        let shared = apply(&resource, &first, &config(2), writer("bob"), false).expect("shared");
        assert_eq!(fields_of(&shared, "alice"), fields_of(&shared, "bob"));
        let forced = apply(&resource, &first, &config(3), writer("bob"), true).expect("forced");
        assert_eq!(forced["spec"]["replicas"], 3);
        assert_eq!(managers(&forced), [("bob".into(), "Apply".into())]);
    }

    /// An Update manager's field changed by an apply is a conflict naming it with its
    /// apiVersion (`internal.printManager`).
    #[test]
    fn a_conflict_with_an_updater_names_its_api_version() {
        let resource = deployments();
        let live = create(&resource, created(), "kubectl-create");
        let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"}, "spec": {"replicas": 5, "revisionHistoryLimit": 3}});
        let error = apply(&resource, &live, &config, writer("ssa"), false).expect_err("conflict");
        assert_eq!(
            error.message,
            "Apply failed with 2 conflicts: conflicts with \"kubectl-create\" using apps/v1:\n- .spec.replicas\n- .spec.revisionHistoryLimit"
        );
    }

    /// Fields an applier stops applying are removed unless another manager owns them (SSA
    /// docs, "Field management": removal of fields by the applier).
    #[test]
    fn fields_an_applier_drops_are_removed_unless_owned_elsewhere() {
        let resource = deployments();
        let config = |labels: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "labels": labels}})
        };
        let first = apply(
            &resource,
            zero_value(&resource),
            &config(json!({"a": "1", "b": "2", "c": "3"})),
            writer("alice"),
            false,
        )
        .expect("apply");
        let mut labelled = first.clone();
        labelled["metadata"]["labels"]["c"] = json!("4");
        record_update(&resource, &first, &mut labelled, writer("kubectl-label"));
        let second = apply(
            &resource,
            &labelled,
            &config(json!({"a": "1"})),
            writer("alice"),
            false,
        )
        .expect("apply");
        assert_eq!(second["metadata"]["labels"], json!({"a": "1", "c": "4"}));
        assert_eq!(
            fields_of(&second, "alice"),
            json!({"f:metadata": {"f:labels": {"f:a": {}}}})
        );
    }

    /// List elements are owned by key: a second applier adding a container neither conflicts
    /// nor removes the first one's; dropping it removes only its own.
    #[test]
    fn associative_lists_merge_by_key() {
        let resource = deployments();
        let config = |name: &str| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"template": {"spec": {"containers": [{"name": name, "image": name}]}}}})
        };
        let names = |object: &Value| -> Vec<String> {
            object["spec"]["template"]["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| str_at(c, "/name").to_owned())
                .collect()
        };
        let zero = zero_value(&resource);
        let one = apply(&resource, zero, &config("a"), writer("alice"), false).expect("apply");
        let two = apply(&resource, &one, &config("b"), writer("bob"), false).expect("apply");
        assert_eq!(names(&two), ["a", "b"]);
        let empty =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
        let dropped = apply(&resource, &two, &empty, writer("bob"), false).expect("apply");
        assert_eq!(names(&dropped), ["a"]);
    }

    /// Client-sent managedFields replace the stored ones when valid, are ignored when not, and
    /// `[{}]` resets them (kube-apiserver's `isResetManagedFields`).
    #[test]
    fn valid_managed_fields_from_a_client_replace_the_stored_ones() {
        let resource = deployments();
        let old = create(&resource, created(), "kubectl-create");
        let mut reset = old.clone();
        reset["metadata"]["managedFields"] = json!([{"manager": "someone", "operation": "Update",
            "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:paused": {}}}}]);
        record_update(&resource, &old, &mut reset, writer("kubectl-replace"));
        assert_eq!(managers(&reset), [("someone".into(), "Update".into())]);
        let mut garbage = old.clone();
        garbage["metadata"]["managedFields"] = json!([{"operation": "Sideways"}]);
        record_update(&resource, &old, &mut garbage, writer("kubectl-replace"));
        assert_eq!(managers(&garbage), managers(&old));
        let mut reset = old.clone();
        reset["metadata"]["managedFields"] = json!([{}]);
        reset["spec"]["paused"] = json!(true);
        record_update(&resource, &old, &mut reset, writer("kubectl-replace"));
        assert_eq!(
            managers(&reset),
            [("kubectl-replace".into(), "Update".into())]
        );
        assert_eq!(
            fields_of(&reset, "kubectl-replace"),
            json!({"f:spec": {"f:paused": {}}})
        );
    }
}
