//! The resourceVersion mask that keeps order and equality: within one sequence of the corpus
//! (a lone request is a sequence of one), on one server, every resourceVersion is rewritten to
//! its rank among the resourceVersions of the objects that sequence's answers carry.
//!
//! An object's resourceVersion (an item of a list, a watch event's object, a created or read
//! object) is an anchor: anchors are numbered 1, 2, … in increasing order, so two answers
//! agree when their objects' versions are ordered and equal alike, and a watch that misses,
//! doubles or reorders a write shows it. A collection's resourceVersion (a list's, a
//! BOOKMARK's) and the numbers a 410's or 504's message names are not objects': each becomes
//! the rank of the newest anchor at or below it (`rv-0` below every anchor). kube-apiserver's
//! etcd revision also moves on writes no request of the corpus makes (its own leases), so a
//! list read after the third write may carry a revision past it; the floor says "after the
//! third write, before the fourth" on both servers. The rank space is one sequence, not the
//! whole run: one write accepted by one server and refused by the other would otherwise shift
//! every later row.

use std::collections::BTreeSet;

use serde_json::Value;

/// What a ranked resourceVersion is written as.
const PREFIX: &str = "rv-";

/// Where a message that speaks of a resource version names one: the number right after one of
/// these.
const MESSAGE_MARKERS: [&str; 3] = ["resource version: ", "current: ", " ("];

/// Rewrites, in place, every resourceVersion of `answers` (one sequence's answers from one
/// server) to its rank.
pub fn mask(answers: &mut [&mut Value]) {
    let mut anchors = BTreeSet::new();
    for answer in answers.iter() {
        collect(answer, &mut anchors);
    }
    let anchors: Vec<u64> = anchors.into_iter().collect();
    for answer in answers.iter_mut() {
        rewrite(answer, &anchors, "");
    }
}

/// A collection's kind: its own resourceVersion is no object's.
fn is_collection(map: &serde_json::Map<String, Value>) -> bool {
    map.contains_key("items")
        || map
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|kind| kind.ends_with("List") || kind == "Table")
}

/// The anchors: every object's `metadata.resourceVersion`, but a BOOKMARK's.
fn collect(v: &Value, anchors: &mut BTreeSet<u64>) {
    match v {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("BOOKMARK") {
                return;
            }
            if !is_collection(map)
                && let Some(rv) = map
                    .get("metadata")
                    .and_then(|m| m.get("resourceVersion"))
                    .and_then(Value::as_str)
                    .and_then(number)
            {
                anchors.insert(rv);
            }
            map.values().for_each(|child| collect(child, anchors));
        }
        Value::Array(items) => items.iter().for_each(|child| collect(child, anchors)),
        _ => {}
    }
}

/// A resourceVersion as a number (`""`, `"0"` and what is no number are left alone).
fn number(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().filter(|n| *n > 0)
}

/// How many anchors are at or below `rv`.
fn rank(rv: u64, anchors: &[u64]) -> String {
    format!("{PREFIX}{}", anchors.partition_point(|a| *a <= rv))
}

fn rewrite(v: &mut Value, anchors: &[u64], key: &str) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                rewrite(child, anchors, k);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|c| rewrite(c, anchors, key)),
        Value::String(s) if key == "resourceVersion" => {
            if let Some(rv) = number(s) {
                *s = rank(rv, anchors);
            }
        }
        Value::String(s) if key == "message" && s.to_lowercase().contains("resource version") => {
            *s = rank_message(s, anchors);
        }
        _ => {}
    }
}

/// A Status message with each resourceVersion it names ranked (`too old resource version: 12
/// (40)` → `too old resource version: rv-2 (rv-5)`).
fn rank_message(message: &str, anchors: &[u64]) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        let next = MESSAGE_MARKERS
            .iter()
            .filter_map(|m| rest.find(m).map(|at| (at, m.len())))
            .min();
        let Some((at, len)) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at + len]);
        rest = &rest[at + len..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Ok(rv) = rest[..digits].parse::<u64>() {
            out.push_str(&rank(rv, anchors));
            rest = &rest[digits..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_are_numbered_in_order_and_collections_take_the_newest_anchor_below() {
        let mut list = json!({"kind": "ConfigMapList", "metadata": {"resourceVersion": "57"},
            "items": [{"metadata": {"resourceVersion": "40"}},
                      {"metadata": {"resourceVersion": "12"}}]});
        let mut events = json!([
            {"type": "ADDED", "object": {"metadata": {"resourceVersion": "60"}}},
            {"type": "MODIFIED", "object": {"metadata": {"resourceVersion": "60"}}},
            {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "61"}}},
            {"type": "ERROR", "object": {"kind": "Status",
                "message": "too old resource version: 12 (59)"}}]);
        mask(&mut [&mut list, &mut events]);
        assert_eq!(
            list["metadata"]["resourceVersion"], "rv-2",
            "57 is after 40"
        );
        assert_eq!(list["items"][0]["metadata"]["resourceVersion"], "rv-2");
        assert_eq!(list["items"][1]["metadata"]["resourceVersion"], "rv-1");
        assert_eq!(events[0]["object"]["metadata"]["resourceVersion"], "rv-3");
        assert_eq!(
            events[1]["object"]["metadata"]["resourceVersion"], "rv-3",
            "equal stays equal"
        );
        assert_eq!(
            events[2]["object"]["metadata"]["resourceVersion"], "rv-3",
            "a bookmark is no anchor"
        );
        assert_eq!(
            events[3]["object"]["message"],
            "too old resource version: rv-1 (rv-2)"
        );
    }

    #[test]
    fn a_revision_no_object_carries_cannot_shift_the_ranks() {
        // kube-apiserver: writes at 10 and 12, its own lease at 11, a list at 13.
        let mut real = json!([{"metadata": {"resourceVersion": "10"}},
            {"metadata": {"resourceVersion": "12"}},
            {"kind": "PodList", "metadata": {"resourceVersion": "13"}, "items": []}]);
        // The embedded server: the same two writes, nothing else.
        let mut embedded = json!([{"metadata": {"resourceVersion": "3"}},
            {"metadata": {"resourceVersion": "4"}},
            {"kind": "PodList", "metadata": {"resourceVersion": "4"}, "items": []}]);
        mask(&mut [&mut real]);
        mask(&mut [&mut embedded]);
        assert_eq!(real, embedded);
        let mut swapped = json!([{"metadata": {"resourceVersion": "4"}},
            {"metadata": {"resourceVersion": "3"}}]);
        mask(&mut [&mut swapped]);
        assert_ne!(swapped[0], embedded[0], "an order that differs shows");
    }

    #[test]
    fn what_is_no_resource_version_number_is_left_alone() {
        let mut v = json!({"metadata": {"resourceVersion": "0"},
            "spec": {"resourceVersion": "abc"}, "message": "no (number) here"});
        let before = v.clone();
        mask(&mut [&mut v]);
        assert_eq!(v, before);
    }
}
