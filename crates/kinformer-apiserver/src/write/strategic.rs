//! Strategic merge patch as kube-apiserver applies it to the built-in types
//! (`apimachinery/pkg/util/strategicpatch/patch.go`, `StrategicMergeMapPatch`): maps merge key
//! by key (`null` deletes), lists merge by the strategy of their field ([`list_strategy`], from
//! the kind's captured schema: by merge key, as a union of scalars, or replaced), and the directives are obeyed and never
//! stored: `$patch: replace|delete|merge` (on a map or as a list element), `$retainKeys`,
//! `$setElementOrder/FIELD` and `$deleteFromPrimitiveList/FIELD`.

use serde_json::{Map, Value};

use super::builtin_schema::BuiltinSchema;
use super::list_types::ListStrategy;
use super::patch_meta::list_strategy;
use crate::resources::ResourceType;
use crate::status::ApiError;

/// `$patch`: `replace`, `delete` or `merge` (the default).
const PATCH: &str = "$patch";
/// `$retainKeys`: the keys a map keeps (others are cleared).
const RETAIN_KEYS: &str = "$retainKeys";
/// `$setElementOrder/FIELD`: the order of FIELD's list after the merge.
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
/// `$deleteFromPrimitiveList/FIELD`: scalars to remove from FIELD's list.
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// Applies the strategic merge `patch` to `object`, an object of `resource` (the schema of its
/// `apiVersion` gives the list strategies).
pub fn apply(object: &mut Value, patch: &Value, resource: &ResourceType) -> Result<(), ApiError> {
    let version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.rsplit('/').next())
        .or_else(|| resource.versions.first().map(String::as_str))
        .unwrap_or_default()
        .to_owned();
    let schema = BuiltinSchema::of(resource, &version);
    let (Some(original), Some(patch)) = (object.as_object_mut(), patch.as_object()) else {
        return Err(ApiError::bad_request(
            "a strategic merge patch must be a JSON object",
        ));
    };
    let merger = Merger { schema };
    *original = merger.map(std::mem::take(original), patch, &mut Vec::new())?;
    Ok(())
}

/// One patch application: the object's schema gives the list strategies.
struct Merger {
    schema: Option<&'static BuiltinSchema>,
}

impl Merger {
    /// Merges `patch` into the map `original` found at `path`.
    fn map<'p>(
        &self,
        original: Map<String, Value>,
        patch: &'p Map<String, Value>,
        path: &mut Vec<&'p str>,
    ) -> Result<Map<String, Value>, ApiError> {
        // `replace`: the patch is merged into nothing (its `$patch` is skipped as a directive).
        let mut original = match directive(patch)? {
            Directive::Replace => Map::new(),
            Directive::Delete => return Ok(Map::new()),
            Directive::Merge => original,
        };
        if let Some(keys) = patch.get(RETAIN_KEYS) {
            retain_keys(&mut original, keys)?;
        }
        for (key, value) in patch {
            if let Some(field) = key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
                delete_from_list(&mut original, field, value)?;
                continue;
            }
            if let Some(field) = key.strip_prefix(SET_ELEMENT_ORDER) {
                if !patch.contains_key(field) {
                    self.reorder_only(&mut original, field, value, path);
                }
                continue;
            }
            if is_directive(key) {
                continue;
            }
            if value.is_null() {
                original.remove(key);
                continue;
            }
            let order = patch.get(&format!("{SET_ELEMENT_ORDER}{key}"));
            path.push(key);
            let current = original.remove(key).unwrap_or(Value::Null);
            let merged = self.value(current, value, order, path);
            path.pop();
            original.insert(key.clone(), merged?);
        }
        Ok(original)
    }

    /// Merges a patch value into the current one (`Null` when absent).
    fn value<'p>(
        &self,
        current: Value,
        patch: &'p Value,
        order: Option<&Value>,
        path: &mut Vec<&'p str>,
    ) -> Result<Value, ApiError> {
        match (current, patch) {
            (Value::Object(current), Value::Object(patch)) => {
                self.map(current, patch, path).map(Value::Object)
            }
            (_, Value::Object(patch)) => self.map(Map::new(), patch, path).map(Value::Object),
            (Value::Array(current), Value::Array(patch)) => {
                self.list(current, patch, order, path).map(Value::Array)
            }
            (_, Value::Array(patch)) => self.list(Vec::new(), patch, order, path).map(Value::Array),
            (_, scalar) => Ok(scalar.clone()),
        }
    }

    /// Merges the list `patch` into the list `current` by the field's strategy, then orders
    /// it as `mergeSliceHandler` and `mergePatchIntoOriginal` do (patch.go:1477, 1110): a
    /// merged list by the patch's order ([`normalized`]), then by `$setElementOrder` when
    /// the patch has one, both times against the stored order.
    fn list<'p>(
        &self,
        current: Vec<Value>,
        patch: &'p [Value],
        order: Option<&Value>,
        path: &mut Vec<&'p str>,
    ) -> Result<Vec<Value>, ApiError> {
        let stored = match order {
            Some(_) => current.clone(),
            None => Vec::new(),
        };
        let key = merge_key(self.schema, path);
        let merged = match list_strategy(self.schema, path) {
            ListStrategy::Replace => self.fresh_items(patch, path)?,
            ListStrategy::MergeScalars => {
                let items: Vec<&Value> = patch
                    .iter()
                    .filter(|item| !is_directive_item(item))
                    .collect();
                let merged = union(current.clone(), &items);
                normalized(merged, items, &current, None)
            }
            ListStrategy::MergeKey(key) => self.merge_by_key(current, patch, key, path)?,
        };
        Ok(match order.and_then(Value::as_array) {
            Some(order) => normalized(merged, order, &stored, key),
            None => merged,
        })
    }

    /// A list's patch items as new values (directives obeyed, directive-only items dropped).
    fn fresh_items<'p>(
        &self,
        patch: &'p [Value],
        path: &mut Vec<&'p str>,
    ) -> Result<Vec<Value>, ApiError> {
        let mut items = Vec::with_capacity(patch.len());
        for item in patch.iter().filter(|item| !is_directive_item(item)) {
            items.push(self.value(Value::Null, item, None, path)?);
        }
        Ok(items)
    }

    /// Merges list elements matched by `key` as `mergeSlice` does (patch.go:1495): the
    /// special elements first (`$patch: delete` removes the stored element with its key,
    /// `$patch: replace` makes the patch's elements the list), then each patch element merges
    /// into the element with the same key or is appended, and the result is [`normalized`] by
    /// the patch's order against the stored one (what is left of it after the deletions).
    fn merge_by_key<'p>(
        &self,
        current: Vec<Value>,
        patch: &'p [Value],
        key: &str,
        path: &mut Vec<&'p str>,
    ) -> Result<Vec<Value>, ApiError> {
        let (current, items) = match without_special_elements(current, patch, key, path)? {
            Special::Replaced(items) => (Vec::new(), items),
            Special::Merge(current, items) => (current, items),
        };
        let mut merged = current.clone();
        for item in &items {
            let wanted = item.get(key);
            match merged.iter().position(|c| c.get(key) == wanted) {
                Some(index) => {
                    let existing = std::mem::take(&mut merged[index]);
                    merged[index] = self.value(existing, item, None, path)?;
                }
                None => merged.push(self.value(Value::Null, item, None, path)?),
            }
        }
        Ok(normalized(merged, items, &current, Some(key)))
    }

    /// `$setElementOrder/FIELD` without FIELD in the patch: the object's list is reordered.
    fn reorder_only(
        &self,
        original: &mut Map<String, Value>,
        field: &str,
        order: &Value,
        path: &[&str],
    ) {
        let mut field_path = path.to_vec();
        field_path.push(field);
        let key = merge_key(self.schema, &field_path);
        if let Some(Value::Array(items)) = original.get_mut(field)
            && let Some(order) = order.as_array()
        {
            let server = items.clone();
            *items = normalized(std::mem::take(items), order, &server, key);
        }
    }
}

/// What a map's `$patch` says.
enum Directive {
    Replace,
    Delete,
    Merge,
}

fn directive(patch: &Map<String, Value>) -> Result<Directive, ApiError> {
    match patch.get(PATCH) {
        None => Ok(Directive::Merge),
        Some(Value::String(d)) if d == "merge" => Ok(Directive::Merge),
        Some(Value::String(d)) if d == "replace" => Ok(Directive::Replace),
        Some(Value::String(d)) if d == "delete" => Ok(Directive::Delete),
        Some(other) => Err(ApiError::bad_request(format!(
            "Unknown patch type: {other} in map"
        ))),
    }
}

/// Whether `key` is a directive (never a field: no served type has a field named `$…`).
fn is_directive(key: &str) -> bool {
    key == PATCH
        || key == RETAIN_KEYS
        || key.starts_with(SET_ELEMENT_ORDER)
        || key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
}

/// A list element that only says `$patch: replace`.
fn is_directive_item(item: &Value) -> bool {
    item.as_object()
        .is_some_and(|m| m.len() == 1 && m.get(PATCH).and_then(Value::as_str) == Some("replace"))
}

/// `$retainKeys`: clears the keys of `original` the list does not name.
fn retain_keys(original: &mut Map<String, Value>, keys: &Value) -> Result<(), ApiError> {
    let keys: Vec<&str> = keys
        .as_array()
        .and_then(|keys| keys.iter().map(Value::as_str).collect())
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "invalid patch: $retainKeys must be a list of strings: {keys}"
            ))
        })?;
    original.retain(|key, _| keys.contains(&key.as_str()));
    Ok(())
}

/// `$deleteFromPrimitiveList/FIELD`: removes the listed scalars from FIELD's list.
fn delete_from_list(
    original: &mut Map<String, Value>,
    field: &str,
    values: &Value,
) -> Result<(), ApiError> {
    let Some(values) = values.as_array() else {
        return Err(ApiError::bad_request(format!(
            "invalid patch: $deleteFromPrimitiveList/{field} must be a list"
        )));
    };
    if let Some(Value::Array(items)) = original.get_mut(field) {
        items.retain(|item| !values.contains(item));
    }
    Ok(())
}

/// The union of two scalar lists, each value once (`deduplicateScalars` of both, patch.go:1844;
/// the order is [`normalized`] after).
fn union(current: Vec<Value>, patch: &[&Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(current.len() + patch.len());
    for item in current
        .into_iter()
        .chain(patch.iter().map(|item| (*item).clone()))
    {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// A keyed list's patch without its special elements (`mergeSliceWithSpecialElements`,
/// patch.go:1550).
enum Special<'p> {
    /// `$patch: replace` was among them: the list is the other patch elements.
    Replaced(Vec<&'p Value>),
    /// The stored list without the elements `$patch: delete` named, and the patch elements
    /// to merge into it.
    Merge(Vec<Value>, Vec<&'p Value>),
}

/// Splits a keyed list's `patch` into its special elements, applied to `current`, and the
/// elements to merge; each must be an object with the merge `key` (`$patch: replace` aside).
fn without_special_elements<'p>(
    mut current: Vec<Value>,
    patch: &'p [Value],
    key: &str,
    path: &[&str],
) -> Result<Special<'p>, ApiError> {
    let mut items = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Some(fields) = item.as_object() else {
            return Err(ApiError::bad_request(format!(
                "the strategic merge patch of {} must list objects",
                path.join(".")
            )));
        };
        let no_key = || {
            ApiError::bad_request(format!(
                "map: {item} does not contain declared merge key: {key}"
            ))
        };
        match fields.get(PATCH) {
            None => {
                fields.get(key).ok_or_else(no_key)?;
                items.push(item);
            }
            Some(Value::String(d)) if d == "delete" => {
                let wanted = fields.get(key).ok_or_else(no_key)?;
                current.retain(|c| c.get(key) != Some(wanted));
            }
            Some(Value::String(d)) if d == "replace" => replace = true,
            Some(Value::String(d)) if d == "merge" => {
                return Err(ApiError::bad_request(
                    "merging lists cannot yet be specified in the patch",
                ));
            }
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "Unknown patch type: {other} in map: {item}"
                )));
            }
        }
    }
    Ok(if replace {
        Special::Replaced(items)
    } else {
        Special::Merge(current, items)
    })
}

/// The merge key of the list at `path`, if it merges by one.
fn merge_key(schema: Option<&'static BuiltinSchema>, path: &[&str]) -> Option<&'static str> {
    match list_strategy(schema, path) {
        ListStrategy::MergeKey(key) => Some(key),
        _ => None,
    }
}

/// `items` ordered as kube-apiserver orders a merged list (strategicpatch's
/// `normalizeElementOrder`, patch.go:404, and `mergeSortedSlice`, patch.go:427): the elements
/// `order` names (patch elements, or `{key: value}` elements of `$setElementOrder`, the scalars
/// for a scalar list) in its order, interleaved with the others in their `server` order — an
/// other element goes first only when it stood before the next named element in `server`, so
/// a named element the server did not have goes before every other element left.
fn normalized<'o>(
    items: Vec<Value>,
    order: impl IntoIterator<Item = &'o Value>,
    server: &[Value],
    key: Option<&str>,
) -> Vec<Value> {
    let wanted: Vec<Option<Value>> = order.into_iter().map(|item| identity(item, key)).collect();
    let live: Vec<Option<Value>> = server.iter().map(|item| identity(item, key)).collect();
    let (mut named, mut server_only): (Vec<Value>, Vec<Value>) = items
        .into_iter()
        .partition(|item| index_in(&wanted, item, key).is_some());
    named.sort_by_key(|item| index_in(&wanted, item, key));
    server_only.sort_by_key(|item| index_in(&live, item, key).unwrap_or(usize::MAX));
    let before = |left: &Value, right: &Value| match (
        index_in(&live, left, key),
        index_in(&live, right, key),
    ) {
        (Some(l), Some(r)) => l < r,
        _ => false,
    };
    interleave(server_only, named, before)
}

/// What identifies a list element: its merge key's value, or the scalar itself.
fn identity(item: &Value, key: Option<&str>) -> Option<Value> {
    match key {
        Some(key) => item.get(key).cloned(),
        None => Some(item.clone()),
    }
}

/// Where `item` is in a list of identities.
fn index_in(list: &[Option<Value>], item: &Value, key: Option<&str>) -> Option<usize> {
    let id = identity(item, key)?;
    list.iter().position(|w| w.as_ref() == Some(&id))
}

/// Merges two ordered lists keeping each one's order: the head of `left` goes first when
/// `before` says so, else the head of `right`.
fn interleave(
    left: Vec<Value>,
    right: Vec<Value>,
    before: impl Fn(&Value, &Value) -> bool,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (Some(l), Some(r)) => before(l, r),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return out,
        };
        out.extend(if take_left { left.next() } else { right.next() });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The built-in resource of `kind`.
    fn resource(kind: &str) -> ResourceType {
        crate::resources::builtins()
            .into_iter()
            .find(|r| r.kind == kind)
            .unwrap_or_else(|| unreachable!("{kind} is built in"))
    }

    fn patched(kind: &str, object: Value, patch: Value) -> Value {
        let mut object = object;
        apply(&mut object, &patch, &resource(kind)).unwrap_or_else(|e| unreachable!("{e:?}"));
        object
    }

    /// `kubectl set image` sends the changed container with `$setElementOrder/containers`
    /// (kubectl's `set image`, a strategic merge patch computed by `CreateTwoWayMergePatch`).
    #[test]
    fn containers_merge_by_name_and_keep_their_fields() {
        let deployment = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]},
            {"name": "sidecar", "image": "busybox", "args": ["sleep", "1d"]}]}}}});
        let patch = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "nginx"}, {"name": "sidecar"}],
            "containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}});
        let expected = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80}]},
            {"name": "sidecar", "image": "busybox", "args": ["sleep", "1d"]}]}}}});
        assert_eq!(patched("Deployment", deployment, patch), expected);
    }

    /// The directives of the strategic-merge-patch design document
    /// (community/contributors/devel/sig-api-machinery/strategic-merge-patch.md).
    #[test]
    fn directives_are_obeyed_and_never_stored() {
        let pod = json!({"metadata": {"finalizers": ["a", "b"]},
            "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}],
                     "tolerations": [{"key": "k"}]}});
        let patch = json!({
            "metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "finalizers": ["c"]},
            "spec": {"containers": [{"name": "a", "$patch": "delete"}],
                     "tolerations": [{"key": "z"}]}});
        // The new finalizer goes first (the patch's order, before the stored-only `b`).
        let expected = json!({"metadata": {"finalizers": ["c", "b"]},
            "spec": {"containers": [{"name": "b", "image": "y"}], "tolerations": [{"key": "z"}]}});
        assert_eq!(patched("Pod", pod.clone(), patch), expected);
        let replace = json!({"spec": {"containers": [{"$patch": "replace"}, {"name": "c"}]}});
        let replaced = patched("Pod", pod.clone(), replace);
        assert_eq!(replaced["spec"]["containers"], json!([{"name": "c"}]));
        let strategy = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
        let retain = json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}});
        assert_eq!(
            patched("Deployment", strategy, retain),
            json!({"spec": {"strategy": {"type": "Recreate"}}})
        );
        let map_replace = json!({"spec": {"$patch": "replace", "containers": []}});
        assert_eq!(
            patched("Pod", pod, map_replace),
            json!({"metadata": {"finalizers": ["a", "b"]}, "spec": {"containers": []}})
        );
    }

    /// Server-only elements keep their place among the elements `$setElementOrder` names
    /// (strategicpatch's `mergeSortedSlice` interleaves by the live order).
    #[test]
    fn set_element_order_interleaves_server_only_elements() {
        let names = |object: &Value| -> Vec<Value> {
            object["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["name"].clone())
                .collect()
        };
        let pod = json!({"spec": {"containers": [{"name": "a"}, {"name": "x"}, {"name": "b"}]}});
        let patch = json!({"spec": {"$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                                    "containers": [{"name": "b", "image": "new"}]}});
        let merged = patched("Pod", pod.clone(), patch);
        assert_eq!(names(&merged), [json!("a"), json!("x"), json!("b")]);
        assert_eq!(merged["spec"]["containers"][2]["image"], "new");
        let reversed = json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}, {"name": "c"}],
                                       "containers": [{"name": "c"}]}});
        let merged = patched("Pod", pod, reversed);
        // x stood before b on the server, so it goes before b (the first named element that
        // followed it), as mergeSortedSlice places it.
        assert_eq!(
            names(&merged),
            [json!("x"), json!("b"), json!("a"), json!("c")]
        );
    }

    /// The names of a pod's containers.
    fn names(object: &Value) -> Vec<&str> {
        object["spec"]["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
            .collect()
    }

    /// Without `$setElementOrder` (`kubectl patch -p`), a merged keyed list takes the patch's
    /// order, the stored-only elements interleaved by their stored order (`mergeSlice`
    /// normalizes by the patch, patch.go:1540): the golden corpus's patch of sidecar, then
    /// nginx with a new port, makes sidecar first and puts 443 before 80.
    #[test]
    fn a_keyed_list_takes_the_patch_order() {
        let pod = json!({"spec": {"containers": [
            {"name": "nginx", "ports": [{"containerPort": 80}]},
            {"name": "sidecar", "image": "busybox"}]}});
        let patch = json!({"spec": {"containers": [
            {"name": "sidecar", "env": [{"name": "LEVEL"}]},
            {"name": "nginx", "ports": [{"containerPort": 443}]}]}});
        let merged = patched("Pod", pod, patch);
        assert_eq!(names(&merged), ["sidecar", "nginx"]);
        assert_eq!(
            merged["spec"]["containers"][1]["ports"],
            json!([{"containerPort": 443}, {"containerPort": 80}])
        );
        // A stored-only element before the first patched one stays first; one after it
        // follows it: [a, x, b, y] patched with [b, new] is [a, x, b, new, y].
        let pod = json!({"spec": {"containers": [
            {"name": "a"}, {"name": "x"}, {"name": "b"}, {"name": "y"}]}});
        let patch = json!({"spec": {"containers": [{"name": "b", "image": "i"}, {"name": "new"}]}});
        assert_eq!(
            names(&patched("Pod", pod, patch)),
            ["a", "x", "b", "new", "y"]
        );
    }

    /// A deleted element is gone before the order is kept, and the others keep the patch's
    /// order among themselves.
    #[test]
    fn a_deleted_element_leaves_the_order_of_the_rest() {
        let pod = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}});
        let patch = json!({"spec": {"containers": [
            {"name": "c", "image": "i"}, {"name": "b", "$patch": "delete"}, {"name": "a", "image": "j"}]}});
        assert_eq!(names(&patched("Pod", pod, patch)), ["c", "a"]);
    }

    /// A merged scalar list is the union in the patch's order, the stored-only values by
    /// their stored order: [a, b] patched with [c, a] is [c, a, b] (new values go first).
    #[test]
    fn a_scalar_list_takes_the_patch_order() {
        let object = json!({"metadata": {"finalizers": ["a", "b"]}});
        let patch = json!({"metadata": {"finalizers": ["c", "a"]}});
        let merged = patched("ConfigMap", object, patch);
        assert_eq!(merged["metadata"]["finalizers"], json!(["c", "a", "b"]));
        let object = json!({"metadata": {"finalizers": ["a", "b", "c"]}});
        let patch = json!({"metadata": {"finalizers": ["b", "z"]}});
        let merged = patched("ConfigMap", object, patch);
        assert_eq!(
            merged["metadata"]["finalizers"],
            json!(["a", "b", "z", "c"])
        );
    }

    /// apimachinery's "set elements order in a list with server-only items 3" (patch_test.go
    /// :3803): the server-only 7, 9, 8 stay together after 1, where they stood.
    #[test]
    fn set_element_order_keeps_server_only_runs_in_place() {
        let pod = json!({"spec": {"containers": [
            {"name": "1", "other": "a"}, {"name": "2", "value": "2"}, {"name": "7"},
            {"name": "9"}, {"name": "8"}, {"name": "3", "value": "3"}, {"name": "4", "value": "4"}]}});
        let order = json!([{"name": "2"}, {"name": "1"}, {"name": "4"}, {"name": "3"}]);
        let patch = json!({"spec": {"$setElementOrder/containers": order}});
        assert_eq!(
            names(&patched("Pod", pod, patch)),
            ["2", "1", "7", "9", "8", "4", "3"]
        );
        // "add an item in a list and preserve order" (patch_test.go:3321), its three-way patch.
        let pod = json!({"spec": {"containers": [
            {"name": "1", "other": "a"}, {"name": "2", "value": "2", "other": "b"}]}});
        let patch = json!({"spec": {
            "$setElementOrder/containers": [{"name": "3"}, {"name": "1"}, {"name": "2"}],
            "containers": [{"name": "3", "value": "3"}]}});
        assert_eq!(
            patched("Pod", pod, patch)["spec"]["containers"],
            json!([{"name": "3", "value": "3"}, {"name": "1", "other": "a"},
                   {"name": "2", "value": "2", "other": "b"}])
        );
    }

    /// apimachinery's "set elements order in a int list with server-only items"
    /// (patch_test.go:4099), as finalizers, and "behavior of set element order for a merging
    /// list with duplicate" (:4251): equal keys keep their stored order, side by side.
    #[test]
    fn set_element_order_of_scalars_and_duplicates() {
        let object = json!({"metadata": {"finalizers": ["1", "3", "4", "2", "9"]}});
        let patch = json!({"metadata": {"$setElementOrder/finalizers": ["4", "2", "3", "1"]}});
        assert_eq!(
            patched("ConfigMap", object, patch)["metadata"]["finalizers"],
            json!(["4", "2", "3", "1", "9"])
        );
        let pod = json!({"spec": {"containers": [
            {"name": "1"}, {"name": "2", "image": "dup1"}, {"name": "3"},
            {"name": "2", "image": "dup2"}, {"name": "4"}]}});
        let order =
            json!([{"name": "2"}, {"name": "1"}, {"name": "4"}, {"name": "3"}, {"name": "2"}]);
        let patch = json!({"spec": {"$setElementOrder/containers": order}});
        assert_eq!(
            patched("Pod", pod, patch)["spec"]["containers"],
            json!([{"name": "2", "image": "dup1"}, {"name": "2", "image": "dup2"},
                   {"name": "1"}, {"name": "4"}, {"name": "3"}])
        );
    }

    #[test]
    fn a_list_element_without_its_merge_key_is_refused() {
        let mut pod = json!({"spec": {"containers": [{"name": "a"}]}});
        let patch = json!({"spec": {"containers": [{"image": "x"}]}});
        assert!(apply(&mut pod, &patch, &resource("Pod")).is_err_and(|e| e.code == 400));
    }
}
