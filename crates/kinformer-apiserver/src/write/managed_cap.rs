//! The cap on managedFields entries from updates, as kube-apiserver's field manager keeps it
//! (apimachinery `pkg/util/managedfields/internal/capmanagers.go`): after an Update, when more
//! than ten entries come from updates (any operation but Apply), the oldest — by time in
//! seconds, then by manager identifier — are merged per apiVersion into one `ancient-changes`
//! Update entry, until ten are left. The first entry of a version stays as it is until a second
//! of that version is merged: then it becomes the bucket, which takes the fields of both and the
//! time of the later one. Apply entries are never merged.

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::fieldset::union_v1;
use super::meta::str_at;

/// At most this many entries from updates (`DefaultMaxUpdateManagers`).
const MAX_UPDATE_MANAGERS: usize = 10;

/// The manager of the merged entries.
const BUCKET: &str = "ancient-changes";

/// Raw managedFields `entries` with the oldest entries from updates merged, when there are more
/// than [`MAX_UPDATE_MANAGERS`].
pub fn cap_update_managers(entries: Vec<Value>) -> Vec<Value> {
    let mut slots: Vec<Option<Value>> = entries.into_iter().map(Some).collect();
    let mut updaters: Vec<usize> = (0..slots.len())
        .filter(|&i| {
            slots[i]
                .as_ref()
                .is_some_and(|e| str_at(e, "/operation") != "Apply")
        })
        .collect();
    if updaters.len() <= MAX_UPDATE_MANAGERS {
        return slots.into_iter().flatten().collect();
    }
    let order = |i: usize| {
        let entry = slots[i].as_ref();
        (
            entry.map_or(0, seconds),
            entry.map(identifier).unwrap_or_default(),
        )
    };
    updaters.sort_by_cached_key(|&i| order(i));
    let mut first_of_version: Vec<(String, usize)> = Vec::new();
    let mut length = updaters.len();
    for &index in &updaters {
        if length <= MAX_UPDATE_MANAGERS {
            break;
        }
        let Some(entry) = slots[index].clone() else {
            continue;
        };
        let version = str_at(&entry, "/apiVersion").to_owned();
        let Some(&(_, first)) = first_of_version.iter().find(|(v, _)| *v == version) else {
            first_of_version.push((version, index));
            continue;
        };
        let bucket = bucket_of(&slots, &version).unwrap_or_else(|| {
            if let Some(Some(first)) = slots.get_mut(first) {
                rename_to_bucket(first);
            }
            first
        });
        if let Some(Some(merged)) = slots.get_mut(bucket) {
            let mut fields = fields_of(merged);
            union_v1(&mut fields, fields_of(&entry));
            merged["fieldsV1"] = Value::Object(fields);
            match entry.get("time") {
                Some(time) => merged["time"] = time.clone(),
                None => drop(merged.as_object_mut().map(|m| m.remove("time"))),
            }
        }
        // As kube-apiserver does, even when the merged entry is the bucket itself.
        slots[index] = None;
        length -= 1;
    }
    slots.into_iter().flatten().collect()
}

/// An entry's time in whole seconds (0 when it has none).
fn seconds(entry: &Value) -> i64 {
    str_at(entry, "/time")
        .parse::<Timestamp>()
        .map_or(0, |t| t.as_second())
}

/// The manager identifier kube-apiserver sorts ties by: the entry's JSON without time and fields
/// (`BuildManagerIdentifier`).
fn identifier(entry: &Value) -> String {
    let text = |pointer: &str| Value::from(str_at(entry, pointer)).to_string();
    let subresource = match str_at(entry, "/subresource") {
        "" => String::new(),
        _ => format!(",\"subresource\":{}", text("/subresource")),
    };
    format!(
        "{{\"manager\":{},\"operation\":{},\"apiVersion\":{}{subresource}}}",
        text("/manager"),
        text("/operation"),
        text("/apiVersion"),
    )
}

/// Where the `ancient-changes` entry of `version` is.
fn bucket_of(slots: &[Option<Value>], version: &str) -> Option<usize> {
    slots.iter().position(|slot| {
        slot.as_ref().is_some_and(|e| {
            str_at(e, "/manager") == BUCKET
                && str_at(e, "/operation") == "Update"
                && str_at(e, "/apiVersion") == version
                && str_at(e, "/subresource").is_empty()
        })
    })
}

/// Makes `entry` the `ancient-changes` entry of its version.
fn rename_to_bucket(entry: &mut Value) {
    entry["manager"] = BUCKET.into();
    entry["operation"] = "Update".into();
    if let Some(members) = entry.as_object_mut() {
        members.remove("subresource");
    }
}

/// An entry's `fieldsV1`, as a map.
fn fields_of(entry: &Value) -> Map<String, Value> {
    entry
        .get("fieldsV1")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn update(manager: &str, minute: u32, field: &str) -> Value {
        json!({"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": manager,
            "fieldsV1": {"f:data": {format!("f:{field}"): {}}},
            "operation": "Update", "time": format!("2026-01-01T00:{minute:02}:00Z")})
    }

    fn managers(entries: &[Value]) -> Vec<String> {
        entries
            .iter()
            .map(|e| str_at(e, "/manager").to_owned())
            .collect()
    }

    #[test]
    fn ten_updaters_are_left_alone() {
        let entries: Vec<Value> = (0..10).map(|i| update(&format!("m{i}"), i, "x")).collect();
        assert_eq!(cap_update_managers(entries.clone()), entries);
    }

    /// capmanagers_test.go's shape: one over the cap merges the two oldest of a version.
    #[test]
    fn the_two_oldest_become_ancient_changes() {
        let mut entries: Vec<Value> = (0..11)
            .map(|i| update(&format!("m{i:02}"), i, &format!("f{i}")))
            .collect();
        entries.push(
            json!({"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "applier",
            "fieldsV1": {"f:data": {"f:a": {}}}, "operation": "Apply",
            "time": "2025-01-01T00:00:00Z"}),
        );
        let capped = cap_update_managers(entries);
        let expected: Vec<String> = ["ancient-changes"]
            .into_iter()
            .map(str::to_owned)
            .chain((2..11).map(|i| format!("m{i:02}")))
            .chain(["applier".to_owned()])
            .collect();
        assert_eq!(managers(&capped), expected);
        let bucket = &capped[0];
        assert_eq!(
            bucket["fieldsV1"],
            json!({"f:data": {"f:f0": {}, "f:f1": {}}})
        );
        assert_eq!(bucket["time"], json!("2026-01-01T00:01:00Z"));
    }

    #[test]
    fn merges_per_version_and_ties_sort_by_identifier() {
        let mut entries: Vec<Value> = (0..10).map(|i| update(&format!("m{i}"), 30, "x")).collect();
        for (manager, version) in [("a", "v2"), ("b", "v2"), ("c", "v1")] {
            let mut entry = update(manager, 0, manager);
            entry["apiVersion"] = json!(version);
            entries.push(entry);
        }
        let capped = cap_update_managers(entries);
        let bucket: Vec<&Value> = capped
            .iter()
            .filter(|e| str_at(e, "/manager") == BUCKET)
            .collect();
        assert_eq!(bucket.len(), 2, "{capped:#?}");
        assert_eq!(capped.len(), 10);
        let v2 = bucket.iter().find(|e| str_at(e, "/apiVersion") == "v2");
        assert_eq!(
            v2.map(|e| e["fieldsV1"].clone()),
            Some(json!({"f:data": {"f:a": {}, "f:b": {}}}))
        );
    }
}
