//! Property tests (proptest) of the parsers that read outside input: watch-event frames,
//! label/field selectors, index expressions, handler specs, durations and scenario files.
//! Arbitrary input never panics and errors stay one line; well-formed input parses to what it
//! says. (`tests/fuzz_parsers.rs` adds seeded mutation fuzzing of the same parsers.)
//! A longer run: `PROPTEST_CASES=100000 cargo test --release --test proptest_parsers`.

use bytes::Bytes;
use kinformer::cli::{parse_field_selector, parse_handler, parse_index, parse_label_selector};
use kinformer::duration::{format_duration, parse_duration};
use kinformer::informer::CachedObject;
use kinformer::informer::IndexFunc;
use kinformer::informer::source::{WatchFrame, parse_watch_frame};
use kinformer::json_scan::{skip_whitespace, valid_value_end, value_end};
use proptest::prelude::*;

/// Failing cases are kept beside this file (`proptest_parsers.proptest-regressions`) and
/// replayed first on the next run; proptest's default looks for a lib.rs above tests/ and
/// finds none.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

fn one_line(e: &str) -> bool {
    !e.contains('\n')
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic_the_watch_frame_parser(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_watch_frame(&Bytes::from(bytes));
    }

    #[test]
    fn well_formed_watch_frames_keep_their_object(
        kind in prop::sample::select(vec!["ADDED", "MODIFIED", "DELETED"]),
        name in "[a-z0-9-]{1,20}",
        rv in 1u64..1_000_000,
    ) {
        let object = format!(r#"{{"metadata":{{"name":"{name}","resourceVersion":"{rv}"}}}}"#);
        let line = format!(r#"{{"type":"{kind}","object":{object}}}"#);
        let raw = match parse_watch_frame(&Bytes::from(line)) {
            Ok(WatchFrame::Added(b) | WatchFrame::Modified(b) | WatchFrame::Deleted(b)) => b,
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        prop_assert_eq!(&raw[..], object.as_bytes());
    }

    #[test]
    fn the_json_scanner_accepts_exactly_what_serde_json_accepts(
        text in prop_oneof![json_like(), "\\PC{0,64}"],
    ) {
        let b = text.as_bytes();
        let ours = value_end(b, 0).is_some_and(|end| skip_whitespace(b, end) == b.len());
        let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
        prop_assert_eq!(ours, serde, "{:?}", text);
        // On what was validated, the structural skip ends where the validating scan does.
        if serde {
            prop_assert_eq!(valid_value_end(b, 0), value_end(b, 0), "{:?}", text);
        } else {
            let _ = valid_value_end(b, 0);
        }
    }

    #[test]
    fn metadata_read_from_the_scan_equals_serde_json_s(
        labels in json_object(&[r#""a":"1""#, r#""b":"2""#, r#""a":"dup""#, r#""k\u0065y":"v""#,
            r#""e":"\u00e9\n""#, r#""n":1"#, r#""z":null"#]),
        owners in prop::collection::vec(prop_oneof![
            json_object(&[r#""kind":"RS""#, r#""kind":null"#, r#""name":"n\u0073""#, r#""uid":"u""#,
                r#""controller":true"#, r#""controller":false"#, r#""controller":null"#,
                r#""controller":"x""#, r#""apiVersion":"v1""#, r#""k\u0069nd":"x""#,
                r#""extra":{"a":[1,"]}"]}"#]),
            Just("null".to_owned()),
        ], 0..3),
        labels_null in any::<bool>(),
    ) {
        let labels = if labels_null { "null".to_owned() } else { labels };
        let raw = format!(
            r#"{{"kind":"Pod","metadata":{{"name":"p","labels":{labels},"ownerReferences":[{}],"managedFields":[{{"f":{{}}}}]}}}}"#,
            owners.join(",")
        );
        let full = CachedObject::from_json(raw.as_bytes().to_vec()).map(|o| o.meta().clone());
        let scanned = CachedObject::from_valid_json(raw.as_bytes().to_vec()).map(|o| o.meta().clone());
        prop_assert_eq!(scanned, full, "{}", raw);
    }

    #[test]
    fn arbitrary_selectors_never_panic_and_errors_are_one_line(text in "\\PC{0,64}") {
        for result in [parse_label_selector(&text), parse_field_selector(&text)] {
            if let Err(e) = result {
                prop_assert!(one_line(&e), "{}", e);
            }
        }
    }

    #[test]
    fn equality_and_set_label_selectors_parse(key in "[a-z][a-z0-9]{0,10}", value in "[a-z0-9]{0,10}") {
        let equality = format!("{key}={value}");
        let set = format!("{key} in ({value}x)");
        let absent = format!("!{key}");
        for selector in [equality, set, absent] {
            let parsed = parse_label_selector(&selector);
            prop_assert!(parsed.is_ok(), "{}: {:?}", selector, parsed);
        }
    }

    #[test]
    fn arbitrary_index_expressions_never_panic(text in "\\PC{0,48}") {
        let _ = IndexFunc::parse(&text);
        if let Err(e) = parse_index(&text) {
            prop_assert!(one_line(&e), "{}", e);
        }
    }

    #[test]
    fn label_index_expressions_keep_their_key(key in "[a-z][a-z0-9./-]{0,20}") {
        let expr = format!("label:{key}");
        let parsed = IndexFunc::parse(&expr);
        prop_assert!(matches!(parsed, Ok(IndexFunc::Label(ref k)) if *k == key), "{:?}", parsed);
    }

    #[test]
    fn arbitrary_handler_specs_never_panic(text in "\\PC{0,48}") {
        if let Err(e) = parse_handler(&text) {
            prop_assert!(one_line(&e), "{}", e);
        }
    }

    #[test]
    fn durations_print_back_to_themselves(millis in 0u64..100_000_000) {
        let d = std::time::Duration::from_millis(millis);
        prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
    }

    #[test]
    fn arbitrary_scenario_files_never_panic_and_errors_are_one_line(text in "\\PC{0,256}") {
        if let Err(e) = kinformer::scenario::parse(&text) {
            prop_assert!(one_line(&e), "{}", e);
        }
    }
}

/// A JSON object of up to four members drawn from `members` (repeats possible).
fn json_object(members: &[&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(members.to_vec()), 0..4)
        .prop_map(|members| format!("{{{}}}", members.join(",")))
}

/// Text that is often JSON and often almost JSON: JSON tokens glued at random.
fn json_like() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\"k\"",
        "\"v\\n\"",
        "\"\\u00e9\"",
        "\"\\x\"",
        "0",
        "-1.5e3",
        "01",
        "1.",
        "true",
        "nul",
        "null",
        "\"",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.concat())
}
