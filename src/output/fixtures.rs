//! Test fixtures: one example of every event kind, shared by the renderer tests (and the
//! source of the example lines of the JSONL schema, `docs/jsonl.md`).

use std::sync::Arc;
use std::time::Duration;

use crate::informer::trace::Notification;
use crate::informer::trace::{CachedObject, ObjectRef};
use crate::informer::trace::{DeltaObject, DeltaType, Tombstone};
use crate::informer::trace::{
    Event, HandlerSummary, InformerMetrics, NotifyKind, ProxySummary, RequestVerb, Summary,
    TraceEvent, WatchEventType,
};

pub fn pod(name: &str, rv: &str, app: &str) -> ObjectRef {
    let raw = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"default","uid":"6f1c2a9e-0000-4000-8000-000000000001","resourceVersion":"{rv}","creationTimestamp":"2026-11-22T09:00:00Z","labels":{{"app":"{app}"}}}},"spec":{{"nodeName":"node-a"}}}}"#
    );
    Arc::new(CachedObject::from_json(raw.into_bytes()).expect("valid fixture"))
}

pub fn secret(rv: &str) -> ObjectRef {
    let raw = format!(
        r#"{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"db","namespace":"default","resourceVersion":"{rv}"}},"data":{{"password":"aHVudGVyMg=="}},"type":"Opaque"}}"#
    );
    Arc::new(CachedObject::from_json(raw.into_bytes()).expect("valid fixture"))
}

pub fn stamp(seq: u64, event: Event) -> TraceEvent {
    let base: jiff::Timestamp = "2026-11-22T10:00:01.234567Z"
        .parse()
        .expect("valid timestamp");
    let offset =
        jiff::SignedDuration::from_millis(i64::try_from(seq.saturating_sub(1)).unwrap_or(0));
    let ts = base.checked_add(offset).expect("in range");
    // Every line of an informer carries its resource; the exit summary belongs to none.
    let resource =
        (!matches!(event, Event::Summary(_) | Event::ProxySummary(_))).then(|| Arc::from("pods"));
    TraceEvent {
        seq,
        ts,
        resource,
        event,
    }
}

fn handler(name: &str) -> Arc<str> {
    Arc::from(name)
}

/// One event of every kind, in contract order.
pub fn all_events() -> Vec<Event> {
    let mut events = reflector_events();
    events.extend(queue_events());
    events.extend(handler_events());
    events.extend(informer_events());
    events.extend(later_events());
    events.extend(proxy_events());
    events
}

/// Kinds added after the first fixtures (appended, so the others keep their positions).
fn later_events() -> Vec<Event> {
    vec![
        Event::Retry {
            verb: RequestVerb::List,
            attempt: 1,
            delay_ms: 1000,
            reason: "connection reset by peer".into(),
        },
        Event::SlowHandler {
            handler: Arc::from("slow"),
            pending: 1480,
            call: Duration::from_millis(250),
        },
        Event::ListError {
            code: Some(403),
            reason: "Forbidden".into(),
            message: "pods is forbidden: User \"dev\" cannot list resource \"pods\"".into(),
        },
    ]
}

/// `kinformer proxy`'s own events (their `resource` is the client's informer stream).
fn proxy_events() -> Vec<Event> {
    vec![
        Event::Request {
            client: "kubectl".into(),
            verb: "patch".into(),
            path: "/api/v1/namespaces/default/pods/web-1".into(),
            code: 200,
            bytes: 1843,
            duration: Duration::from_millis(3),
        },
        Event::ProxySummary(Box::new(ProxySummary {
            client: "kubectl".into(),
            stream: Some("kubectl/pods@default".into()),
            user_agent: "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07".into(),
            lists: 2,
            watches: 3,
            events: 17,
            relists: 1,
            errors: 1,
            requests: 0,
            bytes: 48213,
        })),
    ]
}

fn reflector_events() -> Vec<Event> {
    vec![
        Event::ListStart {
            resource_version: "0".into(),
            resource_version_match: None,
            limit: Some(500),
            watch_list: false,
        },
        Event::ListPage {
            page: 1,
            items: 500,
            more: true,
        },
        Event::ListDone {
            items: 742,
            pages: 2,
            resource_version: "4711".into(),
        },
        Event::WatchStart {
            resource_version: "4711".into(),
            timeout_seconds: 412,
            watch_list: false,
        },
        Event::WatchEvent {
            event_type: WatchEventType::Modified,
            key: "default/web-1".into(),
            resource_version: "4712".into(),
        },
        Event::Bookmark {
            resource_version: "4800".into(),
            initial_events_end: false,
        },
        Event::WatchEnd {
            resource_version: "4800".into(),
            events: 17,
            reason: "timeout".into(),
        },
        Event::WatchError {
            code: Some(410),
            reason: "Expired".into(),
            message: "too old resource version: 4711 (4750)".into(),
        },
        Event::Relist {
            reason: "410 Expired".into(),
        },
        Event::Backoff {
            reason: "429 TooManyRequests".into(),
            delay_ms: 1223,
            attempt: 1,
        },
    ]
}

fn queue_events() -> Vec<Event> {
    vec![
        Event::Delta {
            delta_type: DeltaType::Replaced,
            key: "default/web-1".into(),
            resource_version: "4711".into(),
            depth: 3,
            tombstone: false,
        },
        Event::Pop {
            key: "default/web-1".into(),
            deltas: 2,
            depth: 2,
            initial: true,
            batch: None,
        },
        Event::IndexerAdd {
            key: "default/web-1".into(),
            resource_version: "4711".into(),
            indices: vec![("node".into(), vec!["node-a".into()])],
        },
        Event::IndexerUpdate {
            key: "default/web-1".into(),
            resource_version: "4712".into(),
            old_resource_version: "4711".into(),
            indices: vec![("node".into(), vec!["node-a".into()])],
        },
        Event::IndexerDelete {
            key: "default/web-2".into(),
            resource_version: "4690".into(),
            tombstone: true,
            indices: vec![("node".into(), vec!["node-b".into()])],
        },
    ]
}

fn handler_events() -> Vec<Event> {
    vec![
        Event::Notify {
            handler: handler("slow"),
            notification: Notification::Update {
                old: pod("web-1", "4711", "web"),
                new: pod("web-1", "4712", "api"),
                sync: false,
            },
            pending: 12,
        },
        Event::Handled {
            handler: handler("slow"),
            kind: NotifyKind::Update,
            key: "default/web-1".into(),
            resource_version: "4712".into(),
            sync: false,
            pending: 11,
            latency: Duration::from_micros(250_130),
            panicked: false,
        },
        Event::ResyncTick {
            due: vec![handler("fast"), handler("default")],
            check_period: Duration::from_secs(30),
        },
        Event::SyncQueued { count: 742 },
    ]
}

fn informer_events() -> Vec<Event> {
    vec![
        Event::Started {
            name: Some("my-controller".into()),
            what_if: None,
            profile: Some("1.36".into()),
            queue: "real-fifo".into(),
            pop_batch: true,
            atomic_fifo: true,
            unlock_while_processing: true,
            watch_list: false,
            overrides: vec!["watch-list".into()],
        },
        Event::Synced {
            objects: 742,
            store_rv: Some("4711".into()),
        },
        Event::HandlerAdded {
            handler: handler("fast"),
            requested_resync: Duration::from_millis(500),
            effective_resync: Duration::from_secs(1),
            check_period: Duration::from_secs(1),
            after_start: false,
            adjustment: Some("raised to the 1s minimum".into()),
        },
        Event::HandlerRemoved {
            handler: handler("fast"),
        },
        Event::ResyncPeriodChanged {
            handler: handler("default"),
            effective_resync: Duration::from_secs(30),
            check_period: Duration::from_secs(10),
        },
        Event::Stopped {
            reason: "count of 3 notifications reached".into(),
        },
        Event::Summary(Box::new(summary())),
    ]
}

pub fn summary() -> Summary {
    Summary {
        counts: [
            ("fifo/delta".to_owned(), 744),
            ("handler/notify".to_owned(), 743),
        ]
        .into_iter()
        .collect(),
        handlers: vec![HandlerSummary {
            name: "slow".into(),
            resource: None,
            notifications: 743,
            adds: 742,
            updates: 1,
            deletes: 0,
            syncs: 0,
            handled: 731,
            panics: 0,
            dropped: 0,
            max_pending: 742,
            mean_latency: Duration::from_micros(250_040),
        }],
        metrics: vec![InformerMetrics {
            resource: None,
            name: Some("my-controller".into()),
            queued_items: 0,
            processed: 3,
            mean_processing: Duration::from_micros(840),
            max_processing: Duration::from_micros(2210),
            store_resource_version: Some(4800),
        }],
        duration: Duration::from_millis(12_345),
        indices: vec![(
            "node".into(),
            vec![("node-a".into(), 400), ("node-b".into(), 342)],
        )],
        stop_reason: "count of 3 notifications reached".into(),
    }
}

/// Extra variants not in [`all_events`]: an add, a tombstone delete, a sync, a panic.
pub fn notify(handler_name: &str, notification: Notification, pending: usize) -> Event {
    Event::Notify {
        handler: handler(handler_name),
        notification,
        pending,
    }
}

pub fn tombstone_delete() -> Notification {
    Notification::Delete {
        obj: DeltaObject::Tombstone(Tombstone {
            key: "default/web-2".into(),
            obj: pod("web-2", "4690", "web"),
        }),
    }
}

/// A `notify` of an add of pod `default/NAME` to `handler_name`, stamped `seq`.
pub fn notify_add(seq: u64, handler_name: &str, name: &str, initial: bool) -> TraceEvent {
    let obj = pod(name, "7", "web");
    stamp(
        seq,
        notify(handler_name, Notification::Add { obj, initial }, 0),
    )
}

/// A `notify` of a resync's update of pod `default/NAME` to `handler_name`, stamped `seq`.
pub fn notify_sync_update(seq: u64, handler_name: &str, name: &str) -> TraceEvent {
    let obj = pod(name, "7", "web");
    let update = Notification::Update {
        old: obj.clone(),
        new: obj,
        sync: true,
    };
    stamp(seq, notify(handler_name, update, 0))
}
