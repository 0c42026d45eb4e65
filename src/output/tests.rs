//! Tests of the JSONL contract and the [`EventRenderer`] across formats.

use serde_json::Value;

use super::fixtures::{all_events, notify, pod, secret, stamp, tombstone_delete};
use super::*;
use crate::informer::trace::{Event, Notification};

fn line(event: Event, opts: &RenderOptions) -> Value {
    let mut buf = Vec::new();
    jsonl::write_event(&mut buf, &stamp(7, event), opts);
    let text = String::from_utf8(buf).expect("utf-8");
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "{text}"
    );
    serde_json::from_str(&text).expect("valid JSON")
}

fn jsonl_opts() -> RenderOptions {
    RenderOptions::new(OutputFormat::Jsonl)
}

/// The fields every event kind's line must carry, besides the common ones.
fn expected_fields(name: &str) -> &'static [&'static str] {
    match name {
        "list-start" => &["rv", "limit", "watch_list"],
        "list-page" => &["page", "items", "more"],
        "list-done" => &["items", "pages", "rv"],
        "watch-start" => &["rv", "timeout_s", "watch_list"],
        "watch-event" => &["type", "key", "rv"],
        "bookmark" => &["rv", "initial_events_end"],
        "watch-end" => &["rv", "events", "reason"],
        "watch-error" | "list-error" => &["code", "reason", "message"],
        "relist" => &["reason"],
        "backoff" => &["reason", "delay_ms", "attempt"],
        "delta" => &["type", "key", "rv", "depth"],
        "pop" => &["key", "deltas", "depth", "initial"],
        "add" => &["key", "rv", "indices"],
        "update" => &["key", "rv", "old_rv", "indices"],
        "delete" => &["key", "rv", "tombstone", "indices"],
        "notify" => &[
            "handler", "kind", "key", "rv", "initial", "sync", "pending", "object",
        ],
        "handled" => &[
            "handler",
            "kind",
            "key",
            "rv",
            "sync",
            "pending",
            "latency_us",
        ],
        "tick" => &["due", "check_period_ms"],
        "sync-queued" => &["count"],
        "synced" => &["objects", "store_rv"],
        "handler-added" => &[
            "handler",
            "requested_resync_ms",
            "resync_ms",
            "check_period_ms",
            "after_start",
            "adjustment",
        ],
        "handler-removed" => &["handler"],
        "resync-period-changed" => &["handler", "resync_ms", "check_period_ms"],
        "stopped" => &["reason"],
        "retry" => &["verb", "attempt", "delay_ms", "reason", "silent"],
        "slow-handler" => &["handler", "pending", "call_ms"],
        "request" => &["client", "verb", "path", "code", "bytes", "duration_ms"],
        "proxy-summary" => &[
            "client",
            "stream",
            "user_agent",
            "lists",
            "watches",
            "events",
            "relists",
            "errors",
            "requests",
            "bytes",
        ],
        "started" => &[
            "name",
            "client_go",
            "queue",
            "pop_batch",
            "atomic_fifo",
            "unlock_while_processing",
            "watch_list",
            "overrides",
        ],
        "summary" => &[
            "counts",
            "handlers",
            "metrics",
            "duration_ms",
            "indices",
            "stop_reason",
        ],
        _ => &[],
    }
}

#[test]
fn every_event_kind_is_one_parseable_line_with_its_fields() {
    let events = all_events();
    assert_eq!(events.len(), 31);
    for event in events {
        let (stage, name) = (event.stage().as_str(), event.name());
        let v = line(event, &jsonl_opts());
        let obj = v.as_object().expect("object");
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut want = vec!["seq", "ts", "stage", "event"];
        if name != "summary" && name != "proxy-summary" {
            want.push("resource");
        }
        want.extend(expected_fields(name));
        let mut got = keys.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{stage}/{name}");
        assert_eq!(v["stage"], stage);
        assert_eq!(v["event"], name);
        assert_eq!(v["seq"], 7);
        assert_eq!(v["ts"], "2026-11-22T10:00:01.240567Z");
    }
}

#[test]
fn field_values_follow_the_contract() {
    let events = all_events();
    let v = line(events[7].clone(), &jsonl_opts());
    assert_eq!(
        (v["code"].as_u64(), v["reason"].as_str()),
        (Some(410), Some("Expired"))
    );
    let v = line(events[10].clone(), &jsonl_opts());
    assert_eq!(v["type"], "Replaced");
    assert_eq!(v["depth"], 3);
    let v = line(events[15].clone(), &jsonl_opts());
    assert_eq!(v["kind"], "update");
    assert_eq!(v["object"]["metadata"]["labels"]["app"], "api");
    let v = line(events[16].clone(), &jsonl_opts());
    assert_eq!(v["latency_us"], 250_130);
    let v = line(events[17].clone(), &jsonl_opts());
    assert_eq!(v["due"], serde_json::json!(["fast", "default"]));
    assert_eq!(v["check_period_ms"], 30_000);
    let v = line(events[25].clone(), &jsonl_opts());
    assert_eq!(v["handlers"][0]["mean_latency_us"], 250_040);
}

#[test]
fn optional_fields_are_omitted_when_absent() {
    let v = line(
        Event::ListStart {
            resource_version: String::new(),
            resource_version_match: None,
            limit: None,
            watch_list: true,
        },
        &jsonl_opts(),
    );
    assert!(v.get("limit").is_none());
    let v = line(
        Event::WatchError {
            code: None,
            reason: "Internal".into(),
            message: "x".into(),
        },
        &jsonl_opts(),
    );
    assert!(v.get("code").is_none());
    let v = line(
        Event::Delta {
            delta_type: crate::informer::trace::DeltaType::Added,
            key: "a".into(),
            resource_version: "1".into(),
            depth: 1,
            tombstone: false,
        },
        &jsonl_opts(),
    );
    assert!(v.get("tombstone").is_none());
}

#[test]
fn notify_add_delete_tombstone_and_old_and_diff() {
    let add = Notification::Add {
        obj: pod("a", "1", "web"),
        initial: true,
    };
    let v = line(notify("h", add, 1), &jsonl_opts());
    assert_eq!(
        (v["kind"].as_str(), v["initial"].as_bool()),
        (Some("add"), Some(true))
    );
    assert!(v.get("old").is_none() && v.get("tombstone").is_none());
    let v = line(notify("h", tombstone_delete(), 0), &jsonl_opts());
    assert_eq!(v["tombstone"], true);
    assert_eq!(v["key"], "default/web-2");
    let update = Notification::Update {
        old: pod("a", "1", "web"),
        new: pod("a", "2", "api"),
        sync: true,
    };
    let v = line(notify("h", update.clone(), 1), &jsonl_opts());
    assert!(v.get("old").is_none() && v.get("diff").is_none());
    assert_eq!(v["sync"], true);
    let mut opts = jsonl_opts();
    opts.show_old = true;
    opts.diff = true;
    let v = line(notify("h", update, 1), &opts);
    assert_eq!(v["old"]["metadata"]["resourceVersion"], "1");
    assert_eq!(
        v["diff"],
        serde_json::json!([{"path":"metadata.labels.app","old":"web","new":"api"}])
    );
}

#[test]
fn handled_panicked_flag_only_when_it_panicked() {
    let mut events = all_events();
    let Event::Handled { panicked, .. } = &mut events[16] else {
        panic!("fixture order")
    };
    *panicked = true;
    assert_eq!(line(events[16].clone(), &jsonl_opts())["panicked"], true);
}

#[test]
fn secrets_are_redacted_unless_asked() {
    let n = || {
        notify(
            "h",
            Notification::Add {
                obj: secret("3"),
                initial: false,
            },
            1,
        )
    };
    let mut opts = jsonl_opts();
    opts.redact_secrets = true;
    assert_eq!(line(n(), &opts)["object"]["data"]["password"], "REDACTED");
    opts.show_secret_data = true;
    assert_eq!(
        line(n(), &opts)["object"]["data"]["password"],
        "aHVudGVyMg=="
    );
}

#[test]
fn objects_with_raw_newlines_stay_on_one_line() {
    let raw = b"{\n  \"metadata\": {\"name\": \"a\", \"resourceVersion\": \"1\"}\n}".to_vec();
    let obj = std::sync::Arc::new(crate::informer::trace::CachedObject::from_json(raw).unwrap());
    let v = line(
        notify(
            "h",
            Notification::Add {
                obj,
                initial: false,
            },
            1,
        ),
        &jsonl_opts(),
    );
    assert_eq!(v["object"]["metadata"]["name"], "a");
}

fn render_all(format: OutputFormat) -> String {
    let mut r = EventRenderer::new(Vec::new(), RenderOptions::new(format));
    for (i, e) in all_events().into_iter().enumerate() {
        r.render(&stamp(i as u64 + 1, e)).unwrap();
    }
    String::from_utf8(r.into_inner()).unwrap()
}

#[test]
fn renderer_writes_each_format() {
    let jsonl = render_all(OutputFormat::Jsonl);
    assert_eq!(jsonl.lines().count(), 31);
    let json = render_all(OutputFormat::Json);
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&json)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(docs.len(), 31);
    assert_eq!(render_all(OutputFormat::Yaml).matches("---\n").count(), 31);
    let table = render_all(OutputFormat::Table);
    assert!(table.contains("Summary (12.345s elapsed; stopped: count of 3 notifications reached)"));
}

#[test]
fn write_errors_surface() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut r = EventRenderer::new(Broken, jsonl_opts());
    let err = r
        .render(&stamp(1, Event::SyncQueued { count: 1 }))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
}

/// The JSONL schema (`docs/jsonl.md`) shows one example line per event kind, as rendered from
/// the fixtures (with `--diff`, as a flag can ask, plus a tombstone delete): they must stay
/// what the renderer prints.
#[test]
fn docs_jsonl_shows_every_event_kinds_jsonl_line_as_rendered() {
    let mut opts = jsonl_opts();
    opts.diff = true;
    let mut r = EventRenderer::new(Vec::new(), opts);
    for (i, e) in all_events().into_iter().enumerate() {
        r.render(&stamp(i as u64 + 1, e)).unwrap();
    }
    r.render(&stamp(30, notify("default", tombstone_delete(), 0)))
        .unwrap();
    let lines = String::from_utf8(r.into_inner()).unwrap();
    let schema = include_str!("../../docs/jsonl.md");
    let missing: Vec<&str> = lines.lines().filter(|l| !schema.contains(l)).collect();
    assert!(
        missing.is_empty(),
        "docs/jsonl.md lacks (or shows differently):\n{}\n\nAll the lines, as rendered:\n{lines}",
        missing.join("\n")
    );
}

#[test]
fn kinds_shows_only_the_notifications_of_those_kinds() {
    use super::fixtures::{notify_add, notify_sync_update};
    let kinds = NotifyKinds::parse("sync,delete").unwrap_or_else(|e| panic!("{e}"));
    let hidden = Hidden {
        kinds: Some(kinds),
        ..Hidden::default()
    };
    assert!(hidden.hides(&notify_add(1, "fast", "a", false).event));
    assert!(!hidden.hides(&notify_sync_update(2, "fast", "a").event));
    assert!(NotifyKinds::parse("adds").is_err());
}

/// A writer into a buffer shared by stdout and stderr, to see their order.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_narration_comes_after_the_header_and_the_rows_it_speaks_of() {
    let both = Shared::default();
    let stdout = std::io::BufWriter::new(both.clone());
    let narrator: narration::Narrator = Box::new(|e: &Event| {
        matches!(e, Event::Synced { .. }).then(|| "── initial sync: the rows above".to_owned())
    });
    let told = narration::Narration::new(narrator, Box::new(both.clone()), Some(80));
    let mut r = EventRenderer::new(stdout, RenderOptions::new(OutputFormat::Table))
        .with_narration(Some(told));
    for (i, e) in all_events().into_iter().enumerate() {
        r.render(&stamp(i as u64 + 1, e)).unwrap();
    }
    r.flush().unwrap();
    let text = String::from_utf8(both.0.borrow().clone()).unwrap();
    let (header, told) = (text.find("SEQ").unwrap(), text.find("── initial").unwrap());
    let synced_row = text.find(" synced ").unwrap();
    assert!(header < synced_row && synced_row < told, "{text}");
}
