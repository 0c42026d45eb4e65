//! The decoders the scanner benchmark compares, each doing the informer's job on a LIST body and
//! a watch line: validate the whole input (UTF-8 included), return the items (the object) as
//! zero-copy slices of it. simd-json cannot say where a value lies in its input (its tape holds
//! decoded strings of a mutated copy), so it only validates and finds the structure, on a copy
//! it is given inside the timed work, and returns a count.

use std::borrow::Cow;

use bytes::Bytes;
use kinformer::informer::source::{WatchFrame, parse_list, parse_watch_frame};
use serde::Deserialize;
use serde_json::value::RawValue;
use simd_json::prelude::ValueAsScalar;
use sonic_rs::{JsonValueTrait, LazyValue};

/// What a decoder got out of an input.
pub enum Decoded {
    /// The items (or the object) as slices of the input.
    Slices(Vec<Bytes>),
    /// How many items (or objects) it found, for a decoder that cannot slice.
    Count(usize),
}

/// A named decoder of LIST bodies and watch lines.
pub struct Decoder {
    pub name: &'static str,
    pub list: fn(&Bytes) -> Result<Decoded, String>,
    pub frame: fn(&Bytes) -> Result<Decoded, String>,
}

/// Every decoder, json_scan (the baseline of the ratios) first.
pub fn all() -> Vec<Decoder> {
    vec![
        Decoder {
            name: "json_scan (parse_list/_watch_frame)",
            list: json_scan_list,
            frame: json_scan_frame,
        },
        Decoder {
            name: "sonic-rs to_object_iter (lazy)",
            list: sonic_iter_list,
            frame: sonic_iter_frame,
        },
        Decoder {
            name: "sonic-rs from_slice (LazyValue)",
            list: sonic_serde_list,
            frame: sonic_serde_frame,
        },
        Decoder {
            name: "simd-json to_tape (copy included)",
            list: simd_json_list,
            frame: simd_json_frame,
        },
        Decoder {
            name: "serde_json from_slice (&RawValue)",
            list: serde_json_list,
            frame: serde_json_frame,
        },
    ]
}

/// Whether `decoder` returns every item of `list` and the object of every line, as expected.
pub fn check(
    decoder: &Decoder,
    list: &Bytes,
    items: &[Vec<u8>],
    lines: &[Bytes],
    objects: &[(String, Vec<u8>)],
) -> Result<(), String> {
    let wrong = |what: &str| format!("{}: wrong {what}", decoder.name);
    if !matches_expected(&(decoder.list)(list)?, items) {
        return Err(wrong("LIST items"));
    }
    for (line, (key, object)) in lines.iter().zip(objects) {
        if !matches_expected(&(decoder.frame)(line)?, std::slice::from_ref(object)) {
            return Err(wrong(&format!("watch object of {key}")));
        }
    }
    Ok(())
}

fn matches_expected(decoded: &Decoded, expected: &[Vec<u8>]) -> bool {
    match decoded {
        Decoded::Slices(got) => got
            .iter()
            .map(|b| &b[..])
            .eq(expected.iter().map(|e| &e[..])),
        Decoded::Count(n) => *n == expected.len(),
    }
}

fn json_scan_list(body: &Bytes) -> Result<Decoded, String> {
    let page = parse_list(body).map_err(|e| e.to_string())?;
    Ok(Decoded::Slices(page.items))
}

fn json_scan_frame(line: &Bytes) -> Result<Decoded, String> {
    match parse_watch_frame(line).map_err(|e| e.to_string())? {
        WatchFrame::Modified(object) => Ok(Decoded::Slices(vec![object.into()])),
        _ => Err("not a MODIFIED frame".into()),
    }
}

/// A LIST's metadata, as the informer reads it.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListMeta {
    #[serde(default)]
    resource_version: String,
}

/// `part` (a slice of what `whole` holds) as a slice of `whole`; a copy if it is not in it.
fn sliced(whole: &Bytes, part: &[u8]) -> Bytes {
    let inside = whole.as_ptr_range();
    if inside.contains(&part.as_ptr()) {
        whole.slice_ref(part)
    } else {
        Bytes::copy_from_slice(part)
    }
}

/// sonic-rs's lazy object iterator validates every value it steps over (UTF-8 included); the
/// items array, validated by that step, is then walked by its unchecked inner iterator.
fn sonic_iter_list(body: &Bytes) -> Result<Decoded, String> {
    let mut items = Vec::new();
    let mut meta = ListMeta::default();
    for member in sonic_rs::to_object_iter(&body[..]) {
        let (key, value) = member.map_err(|e| e.to_string())?;
        match &*key {
            "items" => {
                for item in value.into_array_iter().into_iter().flatten() {
                    let item = item.map_err(|e| e.to_string())?;
                    items.push(sliced(body, item.as_raw_str().as_bytes()));
                }
            }
            "metadata" => {
                meta = sonic_rs::from_str(value.as_raw_str()).map_err(|e| e.to_string())?
            }
            _ => {}
        }
    }
    std::hint::black_box(meta.resource_version);
    Ok(Decoded::Slices(items))
}

fn sonic_iter_frame(line: &Bytes) -> Result<Decoded, String> {
    let (mut kind, mut object) = (None, None);
    for member in sonic_rs::to_object_iter(&line[..]) {
        let (key, value) = member.map_err(|e| e.to_string())?;
        match &*key {
            "type" => kind = value.as_str().map(str::to_owned),
            "object" => object = Some(sliced(line, value.as_raw_str().as_bytes())),
            _ => {}
        }
    }
    match (kind.as_deref(), object) {
        (Some("MODIFIED"), Some(object)) => Ok(Decoded::Slices(vec![object])),
        _ => Err("not a MODIFIED frame".into()),
    }
}

#[derive(Deserialize)]
struct SonicList<'a> {
    #[serde(default)]
    metadata: ListMeta,
    #[serde(borrow)]
    items: Vec<LazyValue<'a>>,
}

#[derive(Deserialize)]
struct SonicFrame<'a> {
    #[serde(rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    object: LazyValue<'a>,
}

/// sonic-rs's serde deserializer skips each item strictly; an item with escapes comes back as
/// a copy (sonic-rs hands it over as an owned string), which [`sliced`] keeps.
fn sonic_serde_list(body: &Bytes) -> Result<Decoded, String> {
    let list: SonicList<'_> = sonic_rs::from_slice(body).map_err(|e| e.to_string())?;
    std::hint::black_box(list.metadata.resource_version);
    Ok(Decoded::Slices(
        list.items
            .iter()
            .map(|item| sliced(body, item.as_raw_str().as_bytes()))
            .collect(),
    ))
}

fn sonic_serde_frame(line: &Bytes) -> Result<Decoded, String> {
    let frame: SonicFrame<'_> = sonic_rs::from_slice(line).map_err(|e| e.to_string())?;
    if frame.kind != "MODIFIED" {
        return Err("not a MODIFIED frame".into());
    }
    Ok(Decoded::Slices(vec![sliced(
        line,
        frame.object.as_raw_str().as_bytes(),
    )]))
}

/// simd-json parses in place: a mutable copy of the input, made here, inside the timed work.
fn simd_json_list(body: &Bytes) -> Result<Decoded, String> {
    let mut copy = body.to_vec();
    let tape = simd_json::to_tape(&mut copy).map_err(|e| e.to_string())?;
    let items = tape.as_value().get_array("items").ok_or("no items")?;
    Ok(Decoded::Count(items.len()))
}

fn simd_json_frame(line: &Bytes) -> Result<Decoded, String> {
    let mut copy = line.to_vec();
    let tape = simd_json::to_tape(&mut copy).map_err(|e| e.to_string())?;
    let frame = tape.as_value();
    let kind = frame.get("type");
    match (
        kind.as_ref().and_then(ValueAsScalar::as_str),
        frame.get("object"),
    ) {
        (Some("MODIFIED"), Some(_)) => Ok(Decoded::Count(1)),
        _ => Err("not a MODIFIED frame".into()),
    }
}

#[derive(Deserialize)]
struct SerdeList<'a> {
    #[serde(default)]
    metadata: ListMeta,
    #[serde(borrow)]
    items: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct SerdeFrame<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    object: &'a RawValue,
}

fn serde_json_list(body: &Bytes) -> Result<Decoded, String> {
    let list: SerdeList<'_> = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    std::hint::black_box(list.metadata.resource_version);
    Ok(Decoded::Slices(
        list.items
            .iter()
            .map(|item| body.slice_ref(item.get().as_bytes()))
            .collect(),
    ))
}

fn serde_json_frame(line: &Bytes) -> Result<Decoded, String> {
    let frame: SerdeFrame<'_> = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    if frame.kind != "MODIFIED" {
        return Err("not a MODIFIED frame".into());
    }
    Ok(Decoded::Slices(vec![
        line.slice_ref(frame.object.get().as_bytes()),
    ]))
}
