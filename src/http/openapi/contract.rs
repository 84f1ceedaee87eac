//! What the document promises beyond what the annotations write: the public document leaves the
//! test-only parts out, every seat is the one bounded `Seat` schema, and every summary is one
//! line (the rest of a handler's first paragraph moves into its description).

use serde_json::{json, Map, Value};

/// Paths only a server in test mode has.
const TEST_PATHS: &[&str] = &["/v1/test/clock"];
/// Schemas only the test-only parts use.
const TEST_SCHEMAS: &[&str] = &["ClockAdvance", "ClockNow", "StackedDeck"];
/// Properties only a server in test mode accepts, as (schema, property).
const TEST_PROPERTIES: &[(&str, &str)] =
    &[("CreateGame", "stacked"), ("RoundStartedEvent", "stacked")];

/// The schema name utoipa gives the rules' seat number (a Rust type name), and ours.
const RUST_SEAT: &str = "#/components/schemas/u8";
const SEAT: &str = "Seat";

/// The longest summary: one line in Swagger UI and in generated clients' doc comments.
pub const MAX_SUMMARY: usize = 90;

/// The document as served: `test_mode` keeps the test-only parts.
pub fn finish(api: utoipa::openapi::OpenApi, test_mode: bool) -> utoipa::openapi::OpenApi {
    let Ok(mut doc) = serde_json::to_value(&api) else {
        return api;
    };
    if !test_mode {
        leave_out_test_parts(&mut doc);
    }
    name_seats(&mut doc);
    bound_slots(&mut doc);
    one_line_summaries(&mut doc);
    serde_json::from_value(doc).unwrap_or_else(|e| {
        // Only a utoipa change could get here; the tests fail on the unfinished document.
        tracing::error!(error = %e, "the OpenAPI document does not read back");
        api
    })
}

fn leave_out_test_parts(doc: &mut Value) {
    if let Some(paths) = doc["paths"].as_object_mut() {
        for path in TEST_PATHS {
            paths.remove(*path);
        }
    }
    let Some(schemas) = doc["components"]["schemas"].as_object_mut() else {
        return;
    };
    for name in TEST_SCHEMAS {
        schemas.remove(*name);
    }
    for (schema, property) in TEST_PROPERTIES {
        let Some(schema) = schemas.get_mut(*schema) else {
            continue;
        };
        // `get_mut`, not indexing: indexing would add a missing key as null.
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            properties.remove(*property);
        }
        if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
            required.retain(|name| name != property);
        }
    }
}

/// Every reference to the seat number becomes `Seat`, one component with its real bounds.
fn name_seats(doc: &mut Value) {
    let Some(schemas) = doc["components"]["schemas"].as_object_mut() else {
        return;
    };
    if schemas.remove("u8").is_none() {
        return;
    }
    schemas.insert(
        SEAT.to_string(),
        json!({
            "type": "integer",
            "format": "int32",
            "description": "A seat at the table: 0 to 3, clockwise; the creator sits at seat 0.",
            "minimum": 0,
            "maximum": 3,
        }),
    );
    let seat = format!("#/components/schemas/{SEAT}");
    rename_refs(doc, &seat);
}

/// The slot labels 5, 10, ..., 60 (R1.2); utoipa takes no bounds on a newtype.
fn bound_slots(doc: &mut Value) {
    if let Some(slot) = doc["components"]["schemas"]["Slot"].as_object_mut() {
        slot.insert("minimum".to_string(), json!(5));
        slot.insert("maximum".to_string(), json!(60));
        slot.insert("multipleOf".to_string(), json!(5));
    }
}

fn rename_refs(value: &mut Value, to: &str) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "$ref" && v == RUST_SEAT {
                    *v = Value::String(to.to_string());
                } else {
                    rename_refs(v, to);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, to)),
        _ => {}
    }
}

/// utoipa takes a handler's whole first paragraph as its summary: the first sentence stays,
/// the rest opens the description.
fn one_line_summaries(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut().filter_map(Value::as_object_mut) {
            split_summary(op);
        }
    }
}

fn split_summary(op: &mut Map<String, Value>) {
    let Some(summary) = op.get("summary").and_then(Value::as_str) else {
        return;
    };
    let text = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    let (sentence, rest) = match text.find(". ") {
        Some(end) => (&text[..end], text[end + 2..].trim()),
        None => (text.trim_end_matches('.'), ""),
    };
    let short = shorten(sentence);
    // Cut inside its sentence, the summary is said in full in the description.
    let rest = if short.len() < sentence.len() {
        text.as_str()
    } else {
        rest
    };
    if !rest.is_empty() {
        let description = op
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let joined = match description.trim() {
            "" => rest.to_string(),
            more => format!("{rest}\n\n{more}"),
        };
        op.insert("description".to_string(), Value::String(joined));
    }
    op.insert("summary".to_string(), Value::String(short.to_string()));
}

/// A sentence longer than [`MAX_SUMMARY`] up to its first colon or semicolon, else up to its
/// first parenthesis, else up to its first comma (when that leaves a summary of a few words).
fn shorten(sentence: &str) -> &str {
    if sentence.len() <= MAX_SUMMARY {
        return sentence;
    }
    for marks in [&[": ", "; "][..], &[" ("], &[", "]] {
        let cut = marks.iter().filter_map(|m| sentence.find(m)).min();
        if let Some(cut) = cut.filter(|c| (12..=MAX_SUMMARY).contains(c)) {
            return &sentence[..cut];
        }
    }
    sentence
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_reads_back() {
        use utoipa::OpenApi;
        let mut doc = serde_json::to_value(super::super::ApiDoc::openapi()).expect("json");
        type Step = (&'static str, fn(&mut Value));
        let steps: [Step; 4] = [
            ("test parts", leave_out_test_parts),
            ("seats", name_seats),
            ("slots", bound_slots),
            ("summaries", one_line_summaries),
        ];
        for (name, step) in steps {
            step(&mut doc);
            if let Err(e) = serde_json::from_value::<utoipa::openapi::OpenApi>(doc.clone()) {
                panic!("after {name}: {e}");
            }
        }
    }

    #[test]
    fn a_paragraph_summary_keeps_its_first_sentence() {
        let mut op = json!({"summary": "Play one action. The version\ncomes from the body.",
                            "description": "More."});
        let op = op.as_object_mut().expect("an object");
        split_summary(op);
        assert_eq!(op["summary"], "Play one action");
        assert_eq!(
            op["description"],
            "The version comes from the body.\n\nMore."
        );
    }

    #[test]
    fn a_long_sentence_is_cut_at_its_colon_and_said_in_full() {
        let long = "Register a webhook endpoint: the items of the account feed are POSTed to it, \
                    signed per Standard Webhooks, with retries and a delivery log for each";
        let mut op = json!({ "summary": long });
        let op = op.as_object_mut().expect("an object");
        split_summary(op);
        assert_eq!(op["summary"], "Register a webhook endpoint");
        assert_eq!(op["description"], long);
    }

    /// Words of Rust or of the tracker that mean nothing to a client developer.
    const FOREIGN: &[&str] = &[
        "None", "Some", "Vec", "Option", "Debug", "u8", "u16", "u32", "u64", "i64", "usize",
        "issue", "tracker",
    ];

    /// Every text of `doc` (descriptions, summaries, titles), with where it is.
    fn texts(value: &Value, at: &str, out: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    let here = format!("{at}/{key}");
                    match (key.as_str(), v.as_str()) {
                        ("description" | "summary" | "title", Some(text)) => {
                            out.push((here, text.to_string()));
                        }
                        _ => texts(v, &here, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| texts(v, at, out)),
            _ => {}
        }
    }

    #[test]
    fn descriptions_speak_no_rust_and_name_no_tracker() {
        for test_mode in [false, true] {
            let doc = serde_json::to_value(super::super::openapi_for(test_mode)).expect("json");
            let mut all = Vec::new();
            texts(&doc, "#", &mut all);
            assert!(all.len() > 100, "only {} texts", all.len());
            for (at, text) in all {
                // A word is what lies between anything but letters, digits, `-` and `_`
                // (so `If-None-Match` is one word).
                let words = text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'));
                for word in words {
                    assert!(!FOREIGN.contains(&word), "{at}: `{word}` in {text:?}");
                }
                for mark in ["[`", "::", "..="] {
                    assert!(!text.contains(mark), "{at}: `{mark}` in {text:?}");
                }
            }
        }
    }

    #[test]
    fn summaries_are_one_short_line() {
        let doc = serde_json::to_value(super::super::openapi()).expect("json");
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                let summary = op["summary"].as_str().unwrap_or_default();
                assert!(!summary.is_empty(), "{method} {path} has no summary");
                assert!(summary.len() <= MAX_SUMMARY, "{method} {path}: {summary}");
                assert!(!summary.contains('\n'), "{method} {path}: {summary}");
            }
        }
    }

    #[test]
    fn play_is_the_first_tag() {
        let doc = serde_json::to_value(super::super::openapi()).expect("json");
        assert_eq!(doc["tags"][0]["name"], "play");
    }

    #[test]
    fn the_public_document_has_no_test_only_parts() {
        let public = super::super::openapi_json();
        for name in TEST_PATHS.iter().chain(TEST_SCHEMAS) {
            assert!(!public.contains(name), "the public document names {name}");
        }
        let doc: Value = serde_json::from_str(&public).expect("json");
        for (schema, property) in TEST_PROPERTIES {
            let properties = &doc["components"]["schemas"][schema]["properties"];
            assert!(properties.is_object(), "{schema}");
            assert!(properties.get(property).is_none(), "{schema}.{property}");
        }
        let test = serde_json::to_value(super::super::openapi_for(true)).expect("json");
        for path in TEST_PATHS {
            assert!(test["paths"][path].is_object(), "{path}");
        }
        for name in TEST_SCHEMAS {
            assert!(test["components"]["schemas"][name].is_object(), "{name}");
        }
        assert!(test["components"]["schemas"]["CreateGame"]["properties"]["stacked"].is_object());
    }

    /// The bounds written in the annotations are the bounds the rules and services enforce.
    #[test]
    fn bounds_are_the_enforced_ones() {
        use racko_rules::options::{
            MAX_TARGET, MAX_TIMEOUTS_TO_RESIGN, MAX_TURN_TIME, MIN_TURN_TIME,
        };
        let doc = serde_json::to_value(super::super::openapi()).expect("json");
        let schemas = &doc["components"]["schemas"];
        let options = &schemas["Options"]["properties"];
        let bounds = |field: &Value| (field["minimum"].clone(), field["maximum"].clone());
        assert_eq!(bounds(&options["players"]), (json!(2), json!(4)));
        assert_eq!(bounds(&options["target"]), (json!(1), json!(MAX_TARGET)));
        assert_eq!(
            bounds(&options["turn_time"]),
            (json!(MIN_TURN_TIME), json!(MAX_TURN_TIME))
        );
        assert_eq!(
            bounds(&options["timeouts_to_resign"]),
            (json!(1), json!(MAX_TIMEOUTS_TO_RESIGN))
        );
        let deck = &schemas["DeckCounts"]["properties"];
        assert_eq!(bounds(&deck["max_number"]), (json!(25), json!(999)));
        let counts = deck.as_object().expect("DeckCounts has properties");
        // Every kind of card besides the numbers has its count, a new kind included.
        let kinds = racko_rules::DeckCounts::default_for(2).map(|d| d.others().len());
        assert_eq!(Some(counts.len() - 1), kinds);
        for (count, field) in counts.iter().filter(|(name, _)| *name != "max_number") {
            assert_eq!(bounds(field), (json!(0), json!(99)), "{count}");
        }
        let chat = &schemas["ChatPost"]["properties"]["text"];
        assert_eq!(chat["maxLength"], crate::service::chat::MAX_CHARS);
        let reason = &schemas["ChatReportRequest"]["properties"]["reason"];
        assert_eq!(reason["maxLength"], crate::service::chat::MAX_REASON_CHARS);
        let url = &schemas["WebhookRequest"]["properties"]["url"];
        assert_eq!(url["maxLength"], 2000);
        let kinds = &schemas["WebhookRequest"]["properties"]["kinds"]["items"]["enum"];
        assert_eq!(*kinds, json!(crate::service::webhooks::KINDS));
        // every request body has an example
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                let Some(body) = op.get("requestBody") else {
                    continue;
                };
                let content = &body["content"]["application/json"];
                let named = content["schema"]["$ref"].as_str().unwrap_or_default();
                let schema = &schemas[named.trim_start_matches("#/components/schemas/")];
                assert!(
                    content["example"].is_object() || schema["example"].is_object(),
                    "{method} {path} has no example body"
                );
            }
        }
    }
}
