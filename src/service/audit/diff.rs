//! Names the first difference between two JSON values, for verification messages such as
//! "recorded slot 30, rules give 25".

use serde_json::Value;

/// The first field where `recorded` and `expected` differ, as "recorded PATH A, rules give B";
/// None when they are equal.
pub fn first_difference(recorded: &Value, expected: &Value) -> Option<String> {
    difference_from(recorded, expected, "rules give")
}

/// As `first_difference`, naming the other side with `source` (e.g. "the log gives").
pub fn difference_from(recorded: &Value, expected: &Value, source: &str) -> Option<String> {
    let (path, a, b) = walk(recorded, expected, String::new())?;
    let path = if path.is_empty() {
        "value".to_string()
    } else {
        path
    };
    Some(format!("recorded {path} {}, {source} {}", show(a), show(b)))
}

fn walk<'a>(a: &'a Value, b: &'a Value, path: String) -> Option<(String, &'a Value, &'a Value)> {
    if a == b {
        return None;
    }
    match (a, b) {
        // A card is shown whole ("14", "joker"), not as its fields.
        (Value::Object(_), Value::Object(_)) if is_card(a) && is_card(b) => Some((path, a, b)),
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                let (va, vb) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                let sub = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if let Some(found) = walk(va, vb, sub) {
                    return Some(found);
                }
            }
            Some((path, a, b))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| walk(va, vb, format!("{path}[{i}]"))),
        _ => Some((path, a, b)),
    }
}

fn is_card(v: &Value) -> bool {
    v.get("kind").is_some_and(Value::is_string)
}

/// A value for a message: a card by its name or number, anything else as compact JSON.
pub fn show(v: &Value) -> String {
    match (v.get("kind").and_then(Value::as_str), v.get("value")) {
        (Some("number"), Some(n)) => n.to_string(),
        (Some(kind), None) => kind.replace('_', " "),
        _ => match v {
            Value::Null => "nothing".to_string(),
            Value::Array(items) => {
                let inner: Vec<String> = items.iter().map(show).collect();
                format!("[{}]", inner.join(", "))
            }
            other => other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_field_and_both_values() {
        let a = json!({"type": "drawn_placed", "seat": 0, "slot": 30, "card": {"kind": "number", "value": 7}});
        let b = json!({"type": "drawn_placed", "seat": 0, "slot": 25, "card": {"kind": "number", "value": 7}});
        assert_eq!(
            first_difference(&a, &b).as_deref(),
            Some("recorded slot 30, rules give 25")
        );
        let c = json!({"card": {"kind": "joker"}});
        let d = json!({"card": {"kind": "number", "value": 3}});
        assert_eq!(
            first_difference(&c, &d).as_deref(),
            Some("recorded card joker, rules give 3")
        );
        let e = json!({"scores": [90, 35]});
        let f = json!({"scores": [90, 30]});
        assert_eq!(
            first_difference(&e, &f).as_deref(),
            Some("recorded scores[1] 35, rules give 30")
        );
        assert_eq!(first_difference(&e, &e), None);
    }
}
