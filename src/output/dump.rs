//! `kinformer dump`: the indexer's contents — one row per object plus one table per index —
//! or the objects as JSON/YAML/JSONL. Secret values are redacted per the render options.
//! A dump of several resources is one such dump per resource, each named by its `resource`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use crate::informer::trace::ObjectRef;

use super::columns::{COLUMN_GAP, Columns};
use super::document::write_document;
use super::options::{OutputFormat, RenderOptions};
use super::ordered::OrderedValue;
use crate::duration::age;
use crate::json_scan::single_line;
use crate::redact::REDACTED;

/// The index every store has; its values are not shown as an object column.
const NAMESPACE_INDEX: &str = "namespace";

/// Everything `dump` shows.
pub struct DumpInput<'a> {
    /// The resource's label when the dump is one of several: a `RESOURCE` title line before
    /// the tables, a `resource` member first in the JSON/YAML document.
    pub resource: Option<&'a str>,
    /// The LIST's resourceVersion.
    pub resource_version: &'a str,
    /// The cached objects, sorted by key.
    pub objects: &'a [ObjectRef],
    /// The index names in indexer order (position `i` is `ObjectRef::index_values(i)`).
    pub index_names: &'a [String],
    /// Per index name: value → keys, all sorted.
    pub indices: &'a BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// The time AGE is measured against.
    pub now: jiff::Timestamp,
    /// Indices whose values are secret (a Secret's `data` or last-applied manifest): shown as
    /// `REDACTED`.
    pub secret_indices: &'a [String],
}

impl DumpInput<'_> {
    /// Each index's `value → keys` as shown: a secret index has one `REDACTED` value.
    fn shown_indices(&self) -> BTreeMap<&str, Cow<'_, BTreeMap<String, Vec<String>>>> {
        self.indices
            .iter()
            .map(|(name, values)| {
                let shown = if self.secret_indices.contains(name) {
                    let mut keys: Vec<String> = values.values().flatten().cloned().collect();
                    keys.sort_unstable();
                    keys.dedup();
                    let redacted = (!keys.is_empty()).then(|| (REDACTED.to_owned(), keys));
                    Cow::Owned(redacted.into_iter().collect())
                } else {
                    Cow::Borrowed(values)
                };
                (name.as_str(), shown)
            })
            .collect()
    }
}

/// Renders the dump in `opts.format`, streaming object by object: memory stays flat however
/// large the cache (JSON keeps each object compact on one line inside a pretty envelope).
pub fn render(out: &mut dyn Write, input: &DumpInput<'_>, opts: &RenderOptions) -> io::Result<()> {
    match opts.format {
        OutputFormat::Table | OutputFormat::Wide => {
            let mut buf = Vec::new();
            write_tables(&mut buf, input, opts);
            out.write_all(&buf)?;
        }
        OutputFormat::Jsonl => write_jsonl(out, input, opts)?,
        OutputFormat::Json => write_json(out, input, opts)?,
        OutputFormat::Yaml => write_yaml(out, input, opts)?,
    }
    out.flush()
}

/// Writes one object's bytes as shown (redacted when needed), on one line.
fn write_one_line(out: &mut dyn Write, obj: &ObjectRef, opts: &RenderOptions) -> io::Result<()> {
    out.write_all(&single_line(&opts.object_bytes(obj.raw())))
}

fn write_jsonl(out: &mut dyn Write, input: &DumpInput<'_>, opts: &RenderOptions) -> io::Result<()> {
    for obj in input.objects {
        write_one_line(out, obj, opts)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `{"resourceVersion":…, "items":[…], "indices":{name:{value:[keys]}}}`.
fn write_json(out: &mut dyn Write, input: &DumpInput<'_>, opts: &RenderOptions) -> io::Result<()> {
    out.write_all(b"{\n  ")?;
    if let Some(resource) = input.resource {
        out.write_all(b"\"resource\": ")?;
        serde_json::to_writer(&mut *out, resource)?;
        out.write_all(b",\n  ")?;
    }
    out.write_all(b"\"resourceVersion\": ")?;
    serde_json::to_writer(&mut *out, input.resource_version)?;
    out.write_all(b",\n  \"items\": [")?;
    for (i, obj) in input.objects.iter().enumerate() {
        out.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        write_one_line(out, obj, opts)?;
    }
    out.write_all(if input.objects.is_empty() {
        b"],\n  \"indices\": "
    } else {
        b"\n  ],\n  \"indices\": "
    })?;
    let mut indices = Vec::new();
    write_document(&mut indices, &indices_value(input), OutputFormat::Json)?;
    let text = String::from_utf8_lossy(&indices);
    out.write_all(text.trim_end().replace('\n', "\n  ").as_bytes())?;
    out.write_all(b"\n}\n")?;
    Ok(())
}

/// The same document as YAML, one item at a time.
fn write_yaml(out: &mut dyn Write, input: &DumpInput<'_>, opts: &RenderOptions) -> io::Result<()> {
    if let Some(resource) = input.resource {
        let resource = serde_saphyr::to_string(&resource).map_err(io::Error::other)?;
        writeln!(out, "---\nresource: {}", resource.trim_end())?;
    }
    let rv = serde_saphyr::to_string(&input.resource_version).map_err(io::Error::other)?;
    writeln!(out, "resourceVersion: {}", rv.trim_end())?;
    out.write_all(if input.objects.is_empty() {
        b"items: []\n"
    } else {
        b"items:\n"
    })?;
    for obj in input.objects {
        let value =
            OrderedValue::from_slice(&opts.object_bytes(obj.raw())).map_err(io::Error::other)?;
        let yaml = serde_saphyr::to_string(&value).map_err(io::Error::other)?;
        for (i, line) in yaml.lines().enumerate() {
            let prefix = if i == 0 { "- " } else { "  " };
            writeln!(out, "{prefix}{line}")?;
        }
    }
    let indices = OrderedValue::Object(vec![("indices".into(), indices_value(input))]);
    out.write_all(
        serde_saphyr::to_string(&indices)
            .map_err(io::Error::other)?
            .as_bytes(),
    )?;
    Ok(())
}

/// `{name: {value: [keys]}}` for every index.
fn indices_value(input: &DumpInput<'_>) -> OrderedValue {
    let strings =
        |v: &[String]| OrderedValue::Array(v.iter().cloned().map(OrderedValue::String).collect());
    OrderedValue::Object(
        input
            .shown_indices()
            .iter()
            .map(|(name, values)| {
                let members = values.iter().map(|(v, keys)| (v.clone(), strings(keys)));
                ((*name).to_owned(), OrderedValue::Object(members.collect()))
            })
            .collect(),
    )
}

fn write_tables(buf: &mut Vec<u8>, input: &DumpInput<'_>, opts: &RenderOptions) {
    if let Some(resource) = input.resource {
        buf.extend_from_slice(format!("RESOURCE {resource}\n").as_bytes());
    }
    let shown: Vec<(usize, &String)> = input
        .index_names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.as_str() != NAMESPACE_INDEX)
        .collect();
    let mut header = vec!["KEY".to_owned(), "RV".to_owned(), "AGE".to_owned()];
    header.extend(shown.iter().map(|(_, n)| n.to_uppercase()));
    let rows = input.objects.iter().map(|o| {
        let mut row = vec![
            o.key().to_owned(),
            o.resource_version().to_owned(),
            object_age(o, input.now),
        ];
        row.extend(shown.iter().map(|(i, name)| {
            let values = o.index_values(*i).collect::<Vec<_>>().join(",");
            if input.secret_indices.contains(name) && !values.is_empty() {
                REDACTED.to_owned()
            } else {
                values
            }
        }));
        row
    });
    let mut table = Columns::new(header, opts.no_headers);
    rows.for_each(|row| table.row(row));
    table.write(buf);
    for (name, values) in &input.shown_indices() {
        buf.extend_from_slice(format!("\nINDEX {name}\n").as_bytes());
        let header = ["VALUE", "COUNT", "KEYS"];
        // On a terminal the KEYS cell takes what is left of the line, cut with `(+N more)`;
        // `-o wide` keeps every key, as kubectl's wide output cuts nothing.
        let width = opts.width.filter(|_| opts.format != OutputFormat::Wide);
        let room = width.map(|w| {
            let widest = |cells: &mut dyn Iterator<Item = usize>| cells.max().unwrap_or(0);
            let value = widest(&mut values.keys().map(|v| v.chars().count())).max(5);
            let count = widest(&mut values.values().map(|k| k.len().to_string().len())).max(5);
            w.saturating_sub(value + count + 2 * COLUMN_GAP)
        });
        let mut table = Columns::new(header, opts.no_headers);
        for (v, keys) in values.iter() {
            table.row([v.clone(), keys.len().to_string(), fit_keys(keys, room)]);
        }
        table.write(buf);
    }
}

/// The keys joined with commas; with a `room` (a terminal), as many as fit followed by
/// `(+N more)`, at least one key.
fn fit_keys(keys: &[String], room: Option<usize>) -> String {
    let all = keys.join(",");
    let Some(room) = room.filter(|r| all.chars().count() > *r) else {
        return all;
    };
    let mut shown = String::new();
    for (i, key) in keys.iter().enumerate() {
        let more = format!(" (+{} more)", keys.len() - i - 1);
        let next = if i == 0 {
            key.clone()
        } else {
            format!("{shown},{key}")
        };
        let rest_fits = i + 1 == keys.len() || next.chars().count() + more.chars().count() <= room;
        if i > 0 && !rest_fits {
            return format!("{shown} (+{} more)", keys.len() - i);
        }
        shown = next;
    }
    shown
}

/// kubectl's AGE from `metadata.creationTimestamp`, `<unknown>` without one.
fn object_age(obj: &ObjectRef, now: jiff::Timestamp) -> String {
    let Some(created) = obj
        .meta()
        .creation_timestamp()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    else {
        return "<unknown>".to_owned();
    };
    let secs = now.as_second().saturating_sub(created.as_second());
    age(Duration::from_secs(u64::try_from(secs).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::fixtures::{pod, secret};

    fn input_for<'a>(
        objects: &'a [ObjectRef],
        names: &'a [String],
        indices: &'a BTreeMap<String, BTreeMap<String, Vec<String>>>,
    ) -> DumpInput<'a> {
        DumpInput {
            resource: None,
            resource_version: "4711",
            objects,
            index_names: names,
            indices,
            now: "2026-11-24T12:00:00Z".parse().unwrap(),
            secret_indices: &[],
        }
    }

    fn rendered(input: &DumpInput<'_>, opts: &RenderOptions) -> String {
        let mut out = Vec::new();
        render(&mut out, input, opts).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table_rows_with_age_and_index_tables() {
        let objects = [pod("web-1", "10", "web"), pod("web-2", "11", "web")];
        let names = vec!["namespace".to_owned()];
        let mut indices = BTreeMap::new();
        indices.insert(
            "namespace".to_owned(),
            BTreeMap::from([(
                "default".to_owned(),
                vec!["default/web-1".into(), "default/web-2".into()],
            )]),
        );
        let text = rendered(
            &input_for(&objects, &names, &indices),
            &RenderOptions::default(),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "KEY             RV   AGE");
        assert_eq!(lines[1], "default/web-1   10   2d3h");
        assert!(text.contains("INDEX namespace\nVALUE     COUNT   KEYS\ndefault   2       default/web-1,default/web-2"), "{text}");
    }

    #[test]
    fn json_yaml_and_jsonl_with_redaction() {
        let objects = [secret("5")];
        let names = vec![];
        let indices = BTreeMap::new();
        let input = input_for(&objects, &names, &indices);
        let mut opts = RenderOptions::new(OutputFormat::Json);
        opts.redact_secrets = true;
        let json: serde_json::Value = serde_json::from_str(&rendered(&input, &opts)).unwrap();
        assert_eq!(json["resourceVersion"], "4711");
        assert_eq!(json["items"][0]["data"]["password"], "REDACTED");
        opts.format = OutputFormat::Yaml;
        assert!(rendered(&input, &opts).contains("password: REDACTED"));
        opts.format = OutputFormat::Jsonl;
        opts.show_secret_data = true;
        assert!(rendered(&input, &opts).contains("aHVudGVyMg=="));
    }

    #[test]
    fn index_keys_are_cut_to_the_terminal_with_a_count_of_the_rest() {
        let keys: Vec<String> = (0..1000).map(|i| format!("default/pod-{i:04}")).collect();
        assert_eq!(
            fit_keys(&keys, None),
            keys.join(","),
            "a pipe gets every key"
        );
        let cut = fit_keys(&keys, Some(60));
        assert!(cut.chars().count() <= 60, "{cut}");
        let (shown, more) = cut.split_once(" (+").unwrap();
        let hidden: usize = more.trim_end_matches(" more)").parse().unwrap();
        assert_eq!(shown.split(',').count() + hidden, 1000, "{cut}");
        assert!(
            shown.starts_with("default/pod-0000,default/pod-0001"),
            "{cut}"
        );
        let few = ["a".to_owned(), "b".to_owned()];
        assert_eq!(fit_keys(&few, Some(60)), "a,b");
        let objects = [pod("web-1", "10", "web")];
        let names = vec!["namespace".to_owned()];
        let indices = BTreeMap::from([(
            "namespace".to_owned(),
            BTreeMap::from([("default".to_owned(), keys.clone())]),
        )]);
        let opts = RenderOptions {
            width: Some(80),
            ..RenderOptions::default()
        };
        let text = rendered(&input_for(&objects, &names, &indices), &opts);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(text.contains("more)"));
        let wide = RenderOptions {
            format: OutputFormat::Wide,
            ..opts
        };
        let text = rendered(&input_for(&objects, &names, &indices), &wide);
        assert!(
            !text.contains("more)") && text.contains(&keys.join(",")),
            "-o wide keeps every key: {text}"
        );
    }

    #[test]
    fn missing_creation_timestamp_is_unknown() {
        let obj = std::sync::Arc::new(
            crate::informer::trace::CachedObject::from_json(
                br#"{"metadata":{"name":"n"}}"#.to_vec(),
            )
            .unwrap(),
        );
        assert_eq!(object_age(&obj, jiff::Timestamp::UNIX_EPOCH), "<unknown>");
    }
}
