//! The document's shape, checked.

use super::shape::*;
use super::*;

#[test]
fn every_operation_documents_problem_errors() {
    let api = openapi();
    assert!(!api.paths.paths.is_empty());
    let json = serde_json::to_value(&api).expect("json");
    for (path, item) in json["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            for range in ["4XX", "5XX"] {
                let schema = &op["responses"][range]["content"][PROBLEM_JSON]["schema"]["$ref"];
                assert_eq!(
                    schema, "#/components/schemas/Problem",
                    "{method} {path} {range}"
                );
            }
        }
    }
    assert!(json["components"]["securitySchemes"]["bearer"].is_object());
}

#[test]
fn seats_and_slots_are_bounded() {
    let json = serde_json::to_value(openapi()).expect("json");
    let schemas = &json["components"]["schemas"];
    assert!(
        schemas.get("u8").is_none(),
        "no schema named after a Rust type"
    );
    assert_eq!(schemas["Seat"]["maximum"], 3);
    assert_eq!(schemas["Slot"]["minimum"], 5);
    assert_eq!(schemas["Slot"]["maximum"], 60);
    assert_eq!(schemas["Slot"]["multipleOf"], 5);
}

#[test]
fn action_variants_refuse_unknown_fields() {
    let json = serde_json::to_value(openapi()).expect("json");
    let schemas = &json["components"]["schemas"];
    let variants = schemas["Action"]["oneOf"]
        .as_array()
        .expect("Action is a oneOf");
    assert!(!variants.is_empty());
    for variant in variants {
        let name = variant["$ref"].as_str().expect("a named variant");
        let name = name.trim_start_matches("#/components/schemas/");
        assert_eq!(schemas[name]["additionalProperties"], false, "{name}");
    }
}

/// Every tagged union is a `oneOf` of named variants with a discriminator that maps every
/// tag to the variant whose tag property has that one value.
#[test]
fn tagged_unions_have_named_variants_and_a_discriminator() {
    let json = serde_json::to_value(openapi()).expect("json");
    let schemas = &json["components"]["schemas"];
    for (union, property, _) in TAGGED_UNIONS {
        if schemas[union].is_null() {
            continue; // spread into another union
        }
        let items = schemas[union]["oneOf"].as_array().expect("a oneOf");
        let discriminator = &schemas[union]["discriminator"];
        assert_eq!(discriminator["propertyName"], *property, "{union}");
        let mapping = discriminator["mapping"].as_object().expect("a mapping");
        assert_eq!(mapping.len(), items.len(), "{union}");
        for (tag, target) in mapping {
            let target = target.as_str().expect("a reference");
            assert!(
                items.iter().any(|item| item["$ref"] == target),
                "{union}: {target} is not a variant"
            );
            let name = target.trim_start_matches("#/components/schemas/");
            let variant = &schemas[name];
            assert_eq!(
                variant["properties"][property]["enum"],
                serde_json::json!([tag])
            );
            assert!(
                variant["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|p| p == property)),
                "{name} requires its tag"
            );
        }
    }
    assert!(schemas["DrawAction"].is_object());
    assert!(schemas["JokerCard"].is_object());
    assert!(schemas["CardsSwappedEvent"].is_object());
    assert!(schemas["GameCreatedEvent"].is_object());
    // LogEvent: the lobby facts and every rules event, side by side
    let log = &schemas["LogEvent"]["discriminator"]["mapping"];
    for tag in [
        "game_created",
        "game_started",
        "round_started",
        "drew",
        "game_ended",
    ] {
        assert!(log[tag].is_string(), "LogEvent lacks {tag}");
    }
}

/// No union anywhere in the document still has inline tagged variants: a new tagged enum
/// belongs in [`TAGGED_UNIONS`], or generators number its variants again.
#[test]
fn no_unnamed_tagged_variants_are_left() {
    fn walk(value: &serde_json::Value, at: &str) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(items) = map.get("oneOf").and_then(|v| v.as_array()) {
                    for item in items {
                        let tagged = item["properties"].as_object().is_some_and(|props| {
                            props
                                .values()
                                .any(|p| p["enum"].as_array().is_some_and(|e| e.len() == 1))
                        });
                        assert!(!tagged, "{at}: an unnamed tagged variant {item}");
                    }
                }
                for (key, v) in map {
                    walk(v, &format!("{at}/{key}"));
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, at)),
            _ => {}
        }
    }
    walk(&serde_json::to_value(openapi()).expect("json"), "#");
}

/// The awaiting phase names no action (the server deals the next round by itself).
#[test]
fn awaiting_round_names_no_action() {
    let json = serde_json::to_value(openapi()).expect("json");
    let text = json["components"]["schemas"]["AwaitingRoundPhase"]["description"]
        .as_str()
        .expect("described")
        .to_string();
    assert!(!text.contains("start_round"), "{text}");
}

/// Generators want every operation's security stated and an optional body that is just
/// optional (not `null` or an object).
#[test]
fn public_operations_and_optional_bodies_are_explicit() {
    let json = serde_json::to_value(openapi()).expect("json");
    for (path, item) in json["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            assert!(op["security"].is_array(), "{method} {path}");
        }
    }
    let guests = &json["paths"]["/v1/guests"]["post"];
    assert_eq!(guests["security"], serde_json::json!([]));
    let body = &guests["requestBody"];
    assert!(body["required"].is_null() || body["required"] == false);
    assert_eq!(
        body["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/GuestRequest"
    );
    let options = &json["components"]["schemas"]["Options"];
    assert!(options["required"].is_null(), "every option has a default");
    for (name, field) in options["properties"].as_object().expect("properties") {
        assert!(field.get("default").is_none(), "{name}");
        let text = field["description"].as_str().unwrap_or_default();
        assert!(text.to_lowercase().contains("default"), "{name}: {text}");
    }
}

#[test]
fn pascal_case_of_tags() {
    assert_eq!(pascal_case("cards_swapped"), "CardsSwapped");
    assert_eq!(pascal_case("draw"), "Draw");
}

/// The codes a response description names (in backticks) are codes the server has, and
/// `Problem.code` is documented as the enum of them all.
#[test]
fn codes_named_in_error_responses_exist() {
    let json = serde_json::to_value(openapi()).expect("json");
    let known: std::collections::HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    let mut named = 0;
    for (path, item) in json["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            let responses = op["responses"].as_object().expect("responses");
            for (status, response) in responses {
                if !(status.starts_with('4') || status.starts_with('5')) {
                    continue;
                }
                let description = response["description"].as_str().unwrap_or_default();
                for code in description.split('`').skip(1).step_by(2) {
                    assert!(
                        known.contains(code),
                        "{method} {path} {status} names `{code}`, which is not a Code"
                    );
                    named += 1;
                }
            }
        }
    }
    assert!(named > 50, "only {named} codes named");
    let schemas = &json["components"]["schemas"];
    assert_eq!(
        schemas["Problem"]["properties"]["code"]["$ref"],
        "#/components/schemas/Code"
    );
    let listed = schemas["Code"]["enum"].as_array().expect("Code is an enum");
    assert_eq!(listed.len(), Code::ALL.len());
    for (listed, code) in listed.iter().zip(Code::ALL) {
        assert_eq!(listed, code.as_str(), "the wire name");
        assert_eq!(
            serde_json::to_value(code).expect("json"),
            *listed,
            "serde agrees"
        );
    }
}

/// Every `$ref` in the document names a schema it defines: generators refuse dangling ones.
#[test]
fn every_reference_resolves() {
    let json = serde_json::to_value(openapi()).expect("json");
    let schemas = json["components"]["schemas"].as_object().expect("schemas");
    let mut refs = Vec::new();
    collect_refs(&json, &mut refs);
    assert!(refs.len() > 20, "only {} references", refs.len());
    for r in refs {
        let name = r.strip_prefix("#/components/schemas/").unwrap_or(&r);
        assert!(schemas.contains_key(name), "{r} is not defined");
    }
}

fn collect_refs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v.as_str()) {
                    ("$ref", Some(r)) => out.push(r.to_string()),
                    _ => collect_refs(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
