//! Strategic merge patch as kube-apiserver applies it to the built-in types
//! (`apimachinery/pkg/util/strategicpatch/patch.go`, `StrategicMergeMapPatch`): maps merge key
//! by key (`null` deletes), lists merge by the strategy of their field ([`list_strategy`]:
//! by merge key, as a union of scalars, or replaced), and the directives are obeyed and never
//! stored: `$patch: replace|delete|merge` (on a map or as a list element), `$retainKeys`,
//! `$setElementOrder/FIELD` and `$deleteFromPrimitiveList/FIELD`.

use serde_json::{Map, Value};

use super::patch_meta::{ListStrategy, list_strategy};
use crate::status::ApiError;

/// `$patch`: `replace`, `delete` or `merge` (the default).
const PATCH: &str = "$patch";
/// `$retainKeys`: the keys a map keeps (others are cleared).
const RETAIN_KEYS: &str = "$retainKeys";
/// `$setElementOrder/FIELD`: the order of FIELD's list after the merge.
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
/// `$deleteFromPrimitiveList/FIELD`: scalars to remove from FIELD's list.
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// Applies the strategic merge `patch` to `object`, an object of `kind`.
pub fn apply(object: &mut Value, patch: &Value, kind: &str) -> Result<(), ApiError> {
    let (Some(original), Some(patch)) = (object.as_object_mut(), patch.as_object()) else {
        return Err(ApiError::bad_request(
            "a strategic merge patch must be a JSON object",
        ));
    };
    let merger = Merger { kind };
    *original = merger.map(std::mem::take(original), patch, &mut Vec::new())?;
    Ok(())
}

/// One patch application: the object's kind picks the list strategies.
struct Merger<'k> {
    kind: &'k str,
}

impl Merger<'_> {
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

    /// Merges the list `patch` into the list `current` by the field's strategy.
    fn list<'p>(
        &self,
        current: Vec<Value>,
        patch: &'p [Value],
        order: Option<&Value>,
        path: &mut Vec<&'p str>,
    ) -> Result<Vec<Value>, ApiError> {
        let replaced = patch.iter().any(|item| {
            item.as_object()
                .is_some_and(|m| m.get(PATCH).and_then(Value::as_str) == Some("replace"))
        });
        let current = if replaced { Vec::new() } else { current };
        let server = match order {
            Some(_) => current.clone(),
            None => Vec::new(),
        };
        let merged = match list_strategy(self.kind, path) {
            ListStrategy::Replace => self.fresh_items(patch, path)?,
            ListStrategy::MergeScalars => union(current, patch),
            ListStrategy::MergeKey(key) => self.merge_by_key(current, patch, key, path)?,
        };
        Ok(match order {
            Some(order) => ordered(merged, order, merge_key(self.kind, path), &server),
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

    /// Merges list elements matched by `key`: a patch element merges into the element with
    /// the same key, `$patch: delete` removes it, an unmatched one is appended.
    fn merge_by_key<'p>(
        &self,
        mut current: Vec<Value>,
        patch: &'p [Value],
        key: &str,
        path: &mut Vec<&'p str>,
    ) -> Result<Vec<Value>, ApiError> {
        for item in patch.iter().filter(|item| !is_directive_item(item)) {
            let Some(fields) = item.as_object() else {
                return Err(ApiError::bad_request(format!(
                    "the strategic merge patch of {} must list objects",
                    path.join(".")
                )));
            };
            let wanted = fields.get(key).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "map: {item} does not contain declared merge key: {key}"
                ))
            })?;
            let found = current.iter().position(|c| c.get(key) == Some(wanted));
            if fields.get(PATCH).and_then(Value::as_str) == Some("delete") {
                current.retain(|c| c.get(key) != Some(wanted));
                continue;
            }
            match found {
                Some(index) => {
                    let existing = std::mem::take(&mut current[index]);
                    current[index] = self.value(existing, item, None, path)?;
                }
                None => current.push(self.value(Value::Null, item, None, path)?),
            }
        }
        Ok(current)
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
        let key = merge_key(self.kind, &field_path);
        if let Some(Value::Array(items)) = original.get_mut(field) {
            let server = items.clone();
            *items = ordered(std::mem::take(items), order, key, &server);
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

/// The union of two scalar lists: `current`, then the patch's values it lacks.
fn union(mut current: Vec<Value>, patch: &[Value]) -> Vec<Value> {
    for item in patch.iter().filter(|item| !is_directive_item(item)) {
        if !current.contains(item) {
            current.push(item.clone());
        }
    }
    current
}

/// The merge key of the list at `path`, if it merges by one.
fn merge_key(kind: &str, path: &[&str]) -> Option<&'static str> {
    match list_strategy(kind, path) {
        ListStrategy::MergeKey(key) => Some(key),
        _ => None,
    }
}

/// `items` ordered as kube-apiserver orders a list sent with `$setElementOrder` (strategicpatch's
/// `normalizeElementOrder`): the elements the order names (`{key: value}` elements for a keyed
/// list, the scalars for a scalar list) in its order, interleaved with the server-only ones in
/// their `server` order — a server-only element goes before the first named element that
/// followed it in `server`.
fn ordered(items: Vec<Value>, order: &Value, key: Option<&str>, server: &[Value]) -> Vec<Value> {
    let Some(order) = order.as_array() else {
        return items;
    };
    let wanted: Vec<Option<Value>> = order.iter().map(|item| identity(item, key)).collect();
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

    fn patched(kind: &str, object: Value, patch: Value) -> Value {
        let mut object = object;
        apply(&mut object, &patch, kind).unwrap_or_else(|e| unreachable!("{e:?}"));
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
        let expected = json!({"metadata": {"finalizers": ["b", "c"]},
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

    #[test]
    fn a_list_element_without_its_merge_key_is_refused() {
        let mut pod = json!({"spec": {"containers": [{"name": "a"}]}});
        let patch = json!({"spec": {"containers": [{"image": "x"}]}});
        assert!(apply(&mut pod, &patch, "Pod").is_err_and(|e| e.code == 400));
    }
}
