//! Known states drawn on ratatui's TestBackend: the boxes' titles and key numbers appear
//! where a person looks for them, at 120×40 and at 80×24.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::{ViewState, render};
use crate::cli::tui::fixtures::{added, at, handled, started};
use crate::cli::tui::model::{IndexCount, IndexerSnapshot, Model};
use crate::informer::trace::{Event, WatchEventType};

/// The screen as text, one string per row.
fn screen(model: &Model, view: &ViewState, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| render(f, model, view)).unwrap();
    let buffer = terminal.backend().buffer();
    buffer
        .content()
        .chunks(usize::from(width))
        .map(|row| row.iter().map(|c| c.symbol()).collect())
        .collect()
}

fn row_with<'a>(rows: &'a [String], needle: &str) -> &'a str {
    rows.iter()
        .find(|r| r.contains(needle))
        .unwrap_or_else(|| panic!("no row contains {needle:?}:\n{}", rows.join("\n")))
}

/// A synced informer on pods: watching at RV 4711, 3 queued deltas, 104 objects in
/// 4 namespaces, a current `fast` handler (10s resync) and a `slow` one 25 behind.
fn known_state() -> Model {
    let mut m = Model::default();
    m.observe(&at(0, started()));
    m.observe(&at(0, added("fast", Duration::from_secs(10))));
    m.observe(&at(0, added("slow", Duration::ZERO)));
    m.observe(&at(
        10,
        Event::ListDone {
            items: 104,
            pages: 1,
            resource_version: "4700".into(),
        },
    ));
    m.observe(&at(
        11,
        Event::WatchStart {
            resource_version: "4700".into(),
            timeout_seconds: 300,
            watch_list: false,
        },
    ));
    m.observe(&at(
        20,
        Event::Synced {
            objects: 104,
            store_rv: None,
        },
    ));
    m.observe(&at(
        1_000,
        Event::WatchEvent {
            event_type: WatchEventType::Modified,
            key: "default/web-1".into(),
            resource_version: "4711".into(),
        },
    ));
    m.observe(&at(
        1_001,
        Event::Delta {
            delta_type: crate::informer::trace::DeltaType::Updated,
            key: "default/web-1".into(),
            resource_version: "4711".into(),
            depth: 3,
            tombstone: false,
        },
    ));
    m.observe(&at(1_500, handled("fast", 0, 2)));
    m.observe(&at(1_600, handled("slow", 25, 250)));
    m.tick(
        2_000,
        IndexerSnapshot {
            objects: 104,
            indices: vec![IndexCount {
                name: "namespace".into(),
                values: 4,
                largest: Some(("default".into(), 40)),
            }],
            ..IndexerSnapshot::default()
        },
    );
    m
}

fn view() -> ViewState {
    ViewState {
        resource: "pods · all namespaces".into(),
        ..ViewState::default()
    }
}

#[test]
fn the_pipeline_boxes_show_their_titles_and_numbers() {
    let rows = screen(&known_state(), &view(), 120, 40);
    let header = &rows[0];
    assert!(
        header.contains("kinformer top · pods · all namespaces · client-go 1.36 real-fifo"),
        "{header}"
    );
    assert!(header.contains("synced 104"), "{header}");
    let titles = row_with(&rows, "Reflector");
    assert!(
        titles.contains("Queue") && titles.contains("Indexer"),
        "{titles}"
    );
    assert!(row_with(&rows, "state").contains("watching"));
    assert!(row_with(&rows, "RV  ").contains("4711"));
    assert!(row_with(&rows, "lists").contains("lists 0  relists 0"));
    assert!(row_with(&rows, "events/s").contains("0.5"), "1 event in 2s");
    assert!(row_with(&rows, "depth").contains("depth 3  peak 3  pops/s 0.0"));
    assert!(row_with(&rows, "objects").contains("objects  104"));
    assert!(row_with(&rows, "4 values").contains("│namespace 4 values  max default=40"));
}

#[test]
fn each_handler_has_a_lane_with_pending_rate_latency_and_resync() {
    let rows = screen(&known_state(), &view(), 120, 40);
    assert!(rows.iter().any(|r| r.contains("handler fast")));
    assert!(rows.iter().any(|r| r.contains("handler slow")));
    let fast = row_with(&rows, "latency    2ms");
    assert!(fast.contains("pending     0"), "{fast}");
    assert!(fast.contains("handled/s   0.5"), "{fast}");
    assert!(
        fast.contains("resync   8.0s"),
        "10s after 0, now at 2s: {fast}"
    );
    let slow = row_with(&rows, "latency  250ms");
    assert!(slow.contains("pending    25"), "{slow}");
    assert!(slow.contains('█'), "a full pending bar: {slow}");
    assert!(slow.contains("resync  never"), "{slow}");
}

#[test]
fn at_80x24_many_lanes_collapse_into_one_scrolling_box() {
    let mut m = known_state();
    for i in 0..12 {
        m.observe(&at(1_700, added(&format!("extra-{i:02}"), Duration::ZERO)));
    }
    m.tick(2_000, m.indexer.snapshot.clone());
    let rows = screen(&m, &view(), 80, 24);
    assert!(rows.iter().all(|r| !r.contains("handler fast")));
    assert!(row_with(&rows, "Handlers (14)").contains('┌'));
    assert!(row_with(&rows, "fast ").contains("pending"));
    assert!(row_with(&rows, "↓").contains("below"));
    assert!(row_with(&rows, "Reflector").contains("Indexer"));
    let scrolled = ViewState {
        scroll: 100,
        ..view()
    };
    let rows = screen(&m, &scrolled, 80, 24);
    assert!(
        row_with(&rows, "extra-11").contains("pending"),
        "scrolled to the end"
    );
    assert!(row_with(&rows, "↑").contains("above"));
}

#[test]
fn the_events_panel_shows_the_newest_events() {
    let shown = ViewState {
        show_events: true,
        ..view()
    };
    let rows = screen(&known_state(), &shown, 120, 40);
    assert!(rows.iter().any(|r| r.contains("Last events")));
    assert!(row_with(&rows, "watch-event").contains("MODIFIED default/web-1 rv=4711"));
    assert!(row_with(&rows, "Updated default/web-1 depth=3").contains("fifo      delta"));
}

#[test]
fn backoff_pause_and_a_missing_handler_are_said_plainly() {
    let mut m = Model::default();
    m.observe(&at(
        0,
        Event::Backoff {
            reason: "connection refused".into(),
            delay_ms: 1_600,
            attempt: 2,
        },
    ));
    m.tick(400, IndexerSnapshot::default());
    let paused = ViewState {
        paused: true,
        ..view()
    };
    let rows = screen(&m, &paused, 80, 24);
    assert!(row_with(&rows, "state").contains("backoff #2 1.2s"));
    assert!(rows[0].contains("PAUSED"), "{}", rows[0]);
    assert!(rows[0].contains("syncing"), "{}", rows[0]);
    assert!(row_with(&rows, "no handlers").contains("a adds one"));
    assert!(rows[23].contains("p resume"), "{}", rows[23]);
}

#[test]
fn at_80x24_numbers_are_never_cut_labels_shorten_first() {
    let mut m = known_state();
    for i in 0..103 {
        m.observe(&at(
            1_800,
            Event::Delta {
                delta_type: crate::informer::trace::DeltaType::Updated,
                key: format!("default/web-{i}"),
                resource_version: "4800".into(),
                depth: 100 + i,
                tombstone: false,
            },
        ));
    }
    m.observe(&at(1_900, handled("slow", 103, 250)));
    // A key that puts `depth=203` across the panel's right edge.
    m.observe(&at(
        1_950,
        Event::Delta {
            delta_type: crate::informer::trace::DeltaType::Updated,
            key: "default/web-abcdefghijkl".into(),
            resource_version: "4801".into(),
            depth: 203,
            tombstone: false,
        },
    ));
    let mut snapshot = m.indexer.snapshot.clone();
    snapshot.indices.push(IndexCount {
        name: "by-node".into(),
        values: 3,
        largest: Some(("node-1".into(), 36)),
    });
    m.tick(2_000, snapshot);
    let shown = ViewState {
        show_events: true,
        ..view()
    };
    let rows = screen(&m, &shown, 80, 24);
    let queue = row_with(&rows, " pk ");
    assert!(
        queue.contains("│d 203 pk 203 /s 0.0"),
        "short labels, every number whole (pops/s too): {queue}"
    );
    let index = row_with(&rows, "by-node");
    assert!(
        index.contains("by-node 3") && index.contains("node-1=36"),
        "{index}"
    );
    assert!(row_with(&rows, "namespace 4").contains("default=40"));
    let edge = row_with(&rows, "web-abcdefghijkl");
    assert!(
        edge.contains("web-abcdefghijkl…") && !edge.contains("depth=2"),
        "a number whole or not at all: {edge}"
    );
}

/// client-go 1.36's informer metrics in the view (issue 20): the store's resourceVersion in
/// the Indexer box, the mean processing time of a pop in the Queue box, when there is room.
#[test]
fn the_store_resource_version_and_processing_latency_are_shown() {
    let mut model = known_state();
    let snapshot = model.indexer.snapshot.clone();
    model.tick(
        2_100,
        IndexerSnapshot {
            store_resource_version: Some(4711),
            mean_processing: Some(std::time::Duration::from_micros(840)),
            ..snapshot
        },
    );
    let rows = screen(&model, &view(), 160, 40);
    assert!(
        row_with(&rows, "objects").contains("store rv 4711"),
        "{rows:#?}"
    );
    assert!(row_with(&rows, "depth").contains("proc 840"), "{rows:#?}");
    // No room: the numbers stay whole, the extras go first.
    let narrow = screen(&model, &view(), 80, 24);
    let objects = row_with(&narrow, "objects");
    assert!(objects.contains("104"), "{objects}");
}
