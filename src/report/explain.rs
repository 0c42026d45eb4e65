//! `kinformer explain`'s output: one object's stories (one per informer holding the key) as
//! text for people or as JSONL, one step per line; and the keys nearest an unknown one.

use std::io::Write;

use super::story::{Story, clock};

/// The stories of `key`; a bare name that no cluster-scoped object has is looked up in the
/// `default` namespace, as kubectl does.
pub fn find<'a>(stories: &'a [Story], key: &str) -> Vec<&'a Story> {
    let of = |key: &str| -> Vec<&'a Story> { stories.iter().filter(|s| s.key == key).collect() };
    match of(key) {
        found if found.is_empty() && !key.contains('/') => of(&format!("default/{key}")),
        found => found,
    }
}

/// Up to three keys of the trace that look like `key` (closest first); a bare name matches
/// that name in every namespace first.
pub fn nearest<'a>(stories: &'a [Story], key: &str) -> Vec<&'a str> {
    let suffix = format!("/{key}");
    let mut scored: Vec<(f64, &str)> = stories
        .iter()
        .map(|s| {
            let named = !key.contains('/') && s.key.ends_with(&suffix);
            let score = if named {
                2.0
            } else {
                strsim::jaro_winkler(key, &s.key)
            };
            (score, s.key.as_str())
        })
        .filter(|(score, _)| *score > 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, k)| k).collect()
}

/// The stories as text: a title line per story, then one line per step.
pub fn write_text(out: &mut Vec<u8>, stories: &[&Story]) {
    for (i, story) in stories.iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let _ = writeln!(out, "{} ({})", story.key, story.resource);
        for step in &story.steps {
            let _ = writeln!(
                out,
                "{}  {:<13}  {}",
                clock(step.ts),
                step.kind.as_str(),
                step.text
            );
        }
    }
}

/// The stories as JSONL: one object per step.
pub fn write_jsonl(out: &mut Vec<u8>, stories: &[&Story]) {
    for story in stories {
        for step in &story.steps {
            let ts = jiff::Timestamp::from_microsecond(step.ts).unwrap_or_default();
            let line = serde_json::json!({
                "key": story.key,
                "resource": story.resource,
                "seq": step.seq,
                "ts": format!("{ts:.6}"),
                "step": step.kind.as_str(),
                "handler": step.handler,
                "text": step.text,
            });
            let _ = serde_json::to_writer(&mut *out, &line);
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::story::{Step, StepKind};

    fn story(key: &str) -> Story {
        Story {
            resource: "pods".into(),
            key: key.into(),
            steps: vec![Step {
                seq: 4,
                ts: 1_000_000,
                kind: StepKind::Final,
                handler: None,
                text: "final cached state: never written to the cache in this trace".into(),
            }],
        }
    }

    #[test]
    fn a_name_without_a_namespace_is_found_in_default_or_suggested_elsewhere() {
        let all = [story("default/web-1"), story("shop/api-1")];
        let found: Vec<&str> = find(&all, "web-1").iter().map(|s| s.key.as_str()).collect();
        assert_eq!(found, ["default/web-1"], "kubectl's default namespace");
        assert!(find(&all, "api-1").is_empty());
        assert_eq!(nearest(&all, "api-1"), ["shop/api-1"]);
    }

    #[test]
    fn text_and_jsonl_say_the_same_step() {
        let all = [story("default/web-1"), story("default/web-2")];
        let found = find(&all, "default/web-1");
        let mut text = Vec::new();
        write_text(&mut text, &found);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "default/web-1 (pods)\n00:00:01.000  final          final cached state: never written to the cache in this trace\n"
        );
        let mut jsonl = Vec::new();
        write_jsonl(&mut jsonl, &found);
        let line: serde_json::Value = serde_json::from_slice(&jsonl).unwrap();
        assert_eq!(line["step"], "final");
        assert_eq!(line["ts"], "1970-01-01T00:00:01.000000Z");
        assert_eq!(
            nearest(&all, "default/web-3"),
            ["default/web-1", "default/web-2"]
        );
    }
}
