//! Request bodies generated from the published schema of key routes, many per route with
//! reproducible seeds: a body the schema allows is never refused as malformed (no 422 on the
//! lobby, account and webhook routes; on actions no `invalid_body`, only the rules' refusals
//! of a move at the wrong moment), and a body one step outside the schema (a bound crossed, a
//! wrong type, an unknown field) never gets a 2xx.

use reqwest::{Method, StatusCode};
use serde_json::{json, Map, Value};

use crate::common::app::TestApp;

both_stores!(schema_bodies_are_judged_as_the_schema_says);

const CASES: u64 = 24;

/// A small, reproducible random source (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low + 1) as u64) as i64
    }
    fn coin(&mut self) -> bool {
        self.below(2) == 0
    }
}

struct Schemas(Value);

impl Schemas {
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema["$ref"].as_str() {
            Some(r) => self.resolve(&self.0[r.trim_start_matches("#/components/schemas/")]),
            None => schema,
        }
    }

    /// A value the schema allows.
    fn valid(&self, schema: &Value, rng: &mut Rng) -> Value {
        let schema = self.resolve(schema);
        if let Some(items) = schema["oneOf"].as_array() {
            let item = &items[rng.below(items.len() as u64) as usize];
            return self.valid(item, rng);
        }
        if let Some(values) = schema["enum"].as_array() {
            return values[rng.below(values.len() as u64) as usize].clone();
        }
        let kind = match &schema["type"] {
            Value::Array(types) => {
                let real: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                if types.len() > real.len() && rng.below(4) == 0 {
                    return Value::Null;
                }
                real.first().and_then(|t| t.as_str()).unwrap_or("null")
            }
            Value::String(t) => t.as_str(),
            _ => "object",
        };
        match kind {
            "integer" => {
                let low = schema["minimum"].as_i64().unwrap_or(0);
                let high = schema["maximum"].as_i64().unwrap_or(low + 1000);
                let step = schema["multipleOf"].as_i64().unwrap_or(1);
                let value = rng.range((low + step - 1) / step, high / step) * step;
                json!(value)
            }
            "boolean" => json!(rng.coin()),
            "string" => json!(self.string(schema, rng)),
            "array" => {
                let most = schema["maxItems"].as_u64().unwrap_or(3);
                let n = rng.below(most + 1);
                (0..n).map(|_| self.valid(&schema["items"], rng)).collect()
            }
            "null" => Value::Null,
            _ => {
                let mut object = Map::new();
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(properties) = schema["properties"].as_object() {
                    for (name, property) in properties {
                        if required.contains(&name.as_str()) || rng.coin() {
                            object.insert(name.clone(), self.valid(property, rng));
                        }
                    }
                }
                Value::Object(object)
            }
        }
    }

    /// A string within the schema's lengths: a URL for `format: uri`, else lowercase letters
    /// and digits starting with a letter (which every pattern of these routes allows).
    fn string(&self, schema: &Value, rng: &mut Rng) -> String {
        let low = schema["minLength"].as_u64().unwrap_or(1).max(1);
        let high = schema["maxLength"].as_u64().unwrap_or(40).min(low + 40);
        let mut text = String::from("u");
        let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let length = low + rng.below(high - low + 1);
        while (text.len() as u64) < length {
            text.push(alphabet[rng.below(alphabet.len() as u64) as usize] as char);
        }
        if schema["format"] == "uri" {
            return format!("https://example.com/{text}");
        }
        text
    }

    /// `value` one step outside `schema`: a bound crossed, a wrong type or an unknown field,
    /// somewhere in it; None when nothing in it can be made invalid.
    fn invalid(&self, schema: &Value, value: &Value, rng: &mut Rng) -> Option<Value> {
        let schema = self.resolve(schema);
        if let (Some(properties), Value::Object(object)) = (schema["properties"].as_object(), value)
        {
            let present: Vec<&String> = object
                .keys()
                .filter(|k| properties.contains_key(*k))
                .collect();
            if !present.is_empty() && rng.below(3) > 0 {
                let name = present[rng.below(present.len() as u64) as usize];
                if let Some(inner) = self.invalid(&properties[name], &object[name], rng) {
                    let mut object = object.clone();
                    object.insert(name.clone(), inner);
                    return Some(Value::Object(object));
                }
            }
            if schema["additionalProperties"] == false {
                let mut object = object.clone();
                object.insert("surely_unknown".to_string(), json!(1));
                return Some(Value::Object(object));
            }
            return None;
        }
        if let Some(items) = schema["oneOf"].as_array() {
            // the variant of a tagged union: a wrong type for the whole value
            return (!items.is_empty() && !value.is_null()).then(|| json!(["not", "an", "object"]));
        }
        match value {
            Value::Number(_) => {
                let bound = match (schema["minimum"].as_i64(), schema["maximum"].as_i64()) {
                    (_, Some(high)) if rng.coin() => Some(high + 1),
                    (Some(low), _) => Some(low - 1),
                    (_, Some(high)) => Some(high + 1),
                    _ => None,
                };
                Some(bound.map_or(json!("a string"), |b| json!(b)))
            }
            Value::String(text) => match schema["maxLength"].as_u64() {
                Some(most) if rng.coin() => {
                    Some(json!(format!("{text}{}", "x".repeat(most as usize))))
                }
                _ => Some(json!(12345)),
            },
            Value::Bool(_) => Some(json!("yes")),
            Value::Array(_) => Some(json!({"not": "a list"})),
            _ => None,
        }
    }
}

/// The rules the create description states beyond each field's bounds. (`get_mut`, as
/// indexing would add missing fields as null.)
fn as_the_description_says(mut body: Value) -> Value {
    // Invited names must be accounts that exist: the schema cannot say which.
    if let Some(fields) = body.as_object_mut() {
        fields.remove("invite");
    }
    let players = body["options"]["players"].as_i64().unwrap_or(2);
    if let Some(options) = body.get_mut("options").and_then(Value::as_object_mut) {
        if options.get("partner") == Some(&json!(true)) && players != 4 {
            options.insert("partner".to_string(), json!(false));
        }
        if let Some(deck) = options.get_mut("deck").and_then(Value::as_object_mut) {
            let least = 12 * players + 1;
            if deck["max_number"].as_i64().unwrap_or(0) < least {
                deck.insert("max_number".to_string(), json!(least));
            }
        }
    }
    // A rated game seats no computer.
    if body["rated"] == json!(true) {
        if let Some(fields) = body.as_object_mut() {
            fields.remove("computer");
        }
    }
    if let Some(computers) = body.get_mut("computer").and_then(Value::as_array_mut) {
        let mut seen = Vec::new();
        computers.retain(|c| {
            let seat = c["seat"].as_i64().unwrap_or(0);
            let keep = seat < players && !seen.contains(&seat);
            seen.push(seat);
            keep
        });
    }
    body
}

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: &Value) -> (StatusCode, Value) {
    let res = app
        .request(Method::POST, path, token)
        .json(body)
        .send()
        .await
        .expect("request");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn body_schema(doc: &Value, path: &str) -> Value {
    doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"].clone()
}

async fn schema_bodies_are_judged_as_the_schema_says(app: TestApp) {
    // Webhook hosts are not looked up: this machine may have no DNS.
    let app = crate::spec_examples::app_taking_any_webhook_host(app.backend).await;
    let doc = serde_json::to_value(racko::http::openapi::openapi()).expect("json");
    let schemas = Schemas(doc["components"]["schemas"].clone());
    // Registered: a body may ask for a rated game, which a guest is refused.
    let (token, _) = app.register("schemabodies").await;
    let body = json!({"computer": [{"seat": 1, "level": "basic"}]});
    let (status, game) = post(&app, "/v1/games", Some(&token), &body).await;
    assert_eq!(status, StatusCode::CREATED, "{game}");
    let actions = format!("/v1/games/{}/actions", game["id"].as_str().expect("an id"));

    let routes = [
        ("/v1/games", "/v1/games".to_string()),
        ("/v1/accounts", "/v1/accounts".to_string()),
        ("/v1/me/webhooks", "/v1/me/webhooks".to_string()),
        ("/v1/games/{id}/actions", actions),
    ];
    for (documented, path) in &routes {
        let schema = body_schema(&doc, documented);
        assert!(!schema.is_null(), "{documented} has a body");
        for seed in 0..CASES {
            let mut rng = Rng(seed * 7919 + documented.len() as u64);
            let mut valid = schemas.valid(&schema, &mut rng);
            if *documented == "/v1/games" {
                valid = as_the_description_says(valid);
            }
            // A fresh account for each webhook, so the per-account limit is not what answers.
            let caller = match *documented {
                "/v1/me/webhooks" => Some(app.guest().await.0),
                "/v1/accounts" => None,
                _ => Some(token.clone()),
            };
            let (status, answer) = post(&app, path, caller.as_deref(), &valid).await;
            let malformed =
                ["invalid_body", "invalid_json"].contains(&answer["code"].as_str().unwrap_or(""));
            if *documented == "/v1/games/{id}/actions" {
                assert!(
                    !malformed,
                    "seed {seed}: {documented} refused {valid}: {answer}"
                );
            } else {
                assert_ne!(
                    status,
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "seed {seed}: {documented} refused {valid}: {answer}"
                );
                assert!(
                    status.is_success() || status == StatusCode::CONFLICT,
                    "seed {seed}: {documented} {valid}: {status} {answer}"
                );
            }
            let Some(invalid) = schemas.invalid(&schema, &valid, &mut rng) else {
                continue;
            };
            let (status, answer) = post(&app, path, caller.as_deref(), &invalid).await;
            assert!(
                !status.is_success(),
                "seed {seed}: {documented} accepted {invalid}: {answer}"
            );
        }
    }
}
