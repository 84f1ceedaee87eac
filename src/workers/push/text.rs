//! What a push says: a title and a line in the device's language, naming the game, the kind,
//! the other players' usernames and the deadline; built from the feed item alone, so never a
//! card, a rack or the stock (R8): pushes pass through Apple's, Google's and browser
//! vendors' services.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

/// One push, whichever provider carries it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Notification {
    pub title: String,
    pub body: String,
    pub kind: String,
    pub game_id: Option<String>,
    /// The feed item's seq: with the device, the push's identity (a client may deduplicate).
    pub seq: i64,
    pub deadline: Option<DateTime<Utc>>,
    /// When the change was committed.
    pub at: Option<DateTime<Utc>>,
}

impl Notification {
    /// Pushes of the same kind about the same game replace each other (APNs
    /// `apns-collapse-id`, FCM `collapse_key`, Web Push `Topic`: at most 32 base64url
    /// characters, so the game id without its dashes).
    pub fn collapse_key(&self) -> Option<String> {
        let game = self.game_id.as_deref()?.replace('-', "");
        let kind = match self.kind.as_str() {
            "your_turn" => "t",
            "deadline_near" => "d",
            _ => return None,
        };
        Some(format!("{kind}{}", &game[..game.len().min(31)]))
    }
}

/// The usernames in the item's `seats`, less the seat it is addressed to.
fn others(data: &Value) -> Vec<String> {
    let own = data.get("seat").and_then(Value::as_i64);
    data.get("seats")
        .and_then(Value::as_array)
        .map(|seats| {
            seats
                .iter()
                .filter(|s| own.is_none() || s.get("seat").and_then(Value::as_i64) != own)
                .filter_map(|s| s.get("username").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn names(list: &[String], and: &str) -> String {
    match list {
        [] => "?".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {and} {last}", rest.join(", ")),
    }
}

/// The push for a feed item (as `store::delivery_bodies` builds it) in `language` (`en`, `de`).
pub fn notification(item: &Value, language: &str) -> Notification {
    let kind = item.get("kind").and_then(Value::as_str).unwrap_or("");
    let data = item.get("data").cloned().unwrap_or(Value::Null);
    let deadline = data
        .get("deadline")
        .and_then(Value::as_str)
        .and_then(|d| DateTime::parse_from_rfc3339(d).ok())
        .map(|d| d.with_timezone(&Utc));
    let german = language == "de";
    let who = names(&others(&data), if german { "und" } else { "and" });
    let joined = data
        .get("username")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let by = data
        .get("by")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let due = deadline
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    let (title, body) = match (kind, german) {
        ("your_turn", false) => ("Your turn".into(), format!("Your move against {who}.")),
        ("your_turn", true) => ("Du bist dran".into(), format!("Dein Zug gegen {who}.")),
        ("deadline_near", false) => (
            "Your turn ends soon".into(),
            format!("Your move against {who} is due by {due}."),
        ),
        ("deadline_near", true) => (
            "Die Zeit läuft ab".into(),
            format!("Dein Zug gegen {who} ist bis {due} fällig."),
        ),
        ("game_finished", false) => (
            "Game over".into(),
            format!("Your game against {who} has finished."),
        ),
        ("game_finished", true) => (
            "Spiel beendet".into(),
            format!("Dein Spiel gegen {who} ist beendet."),
        ),
        ("game_started", false) => (
            "Game started".into(),
            format!("Your game against {who} has started."),
        ),
        ("game_started", true) => (
            "Spiel gestartet".into(),
            format!("Dein Spiel gegen {who} hat begonnen."),
        ),
        ("game_cancelled", false) => (
            "Game cancelled".into(),
            "A game you were in was cancelled.".to_string(),
        ),
        ("game_cancelled", true) => (
            "Spiel abgesagt".into(),
            "Ein Spiel, in dem du warst, wurde abgesagt.".to_string(),
        ),
        ("player_joined", false) => (
            "A player joined".into(),
            format!("{joined} joined your game."),
        ),
        ("player_joined", true) => (
            "Neuer Mitspieler".into(),
            format!("{joined} ist deinem Spiel beigetreten."),
        ),
        ("invited", false) => (
            "New invitation".into(),
            format!("{by} invited you to a game."),
        ),
        ("invited", true) => (
            "Neue Einladung".into(),
            format!("{by} hat dich zu einem Spiel eingeladen."),
        ),
        (other, _) => (other.to_string(), String::new()),
    };
    Notification {
        title,
        body,
        kind: kind.to_string(),
        game_id: item
            .get("game_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        seq: item.get("seq").and_then(Value::as_i64).unwrap_or(0),
        deadline,
        at: item
            .get("at")
            .and_then(Value::as_str)
            .and_then(|d| DateTime::parse_from_rfc3339(d).ok())
            .map(|d| d.with_timezone(&Utc)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_turn_names_the_opponents_in_the_devices_language() {
        let item = json!({
            "seq": 4, "kind": "your_turn", "game_id": "0b0c3c5e-8a43-4a4e-9a55-1f2d3c4b5a69",
            "data": { "seat": 1, "seats": [
                { "seat": 0, "username": "ann" }, { "seat": 1, "username": "bob" },
                { "seat": 2, "username": "cy" } ] }
        });
        let en = notification(&item, "en");
        assert_eq!(en.body, "Your move against ann and cy.");
        assert_eq!(en.collapse_key().map(|k| k.len()), Some(32));
        let de = notification(&item, "de");
        assert_eq!(
            (de.title.as_str(), de.body.as_str()),
            ("Du bist dran", "Dein Zug gegen ann und cy.")
        );
    }

    #[test]
    fn a_reminder_names_its_deadline() {
        let item = json!({
            "seq": 9, "kind": "deadline_near", "game_id": "0b0c3c5e-8a43-4a4e-9a55-1f2d3c4b5a69",
            "data": { "seat": 0, "deadline": "2026-12-03T10:30:00Z",
                      "seats": [ { "seat": 0, "username": "ann" }, { "seat": 1, "username": "bob" } ] }
        });
        let en = notification(&item, "en");
        assert_eq!(
            en.body,
            "Your move against bob is due by 2026-12-03 10:30 UTC."
        );
        assert!(en.deadline.is_some());
    }

    #[test]
    fn an_invitation_names_who_invited_in_either_language() {
        let item = json!({
            "seq": 2, "kind": "invited", "game_id": "0b0c3c5e-8a43-4a4e-9a55-1f2d3c4b5a69",
            "data": { "by": "ann", "seats": [ { "seat": 0, "username": "ann" } ] }
        });
        let en = notification(&item, "en");
        assert_eq!(
            (en.title.as_str(), en.body.as_str()),
            ("New invitation", "ann invited you to a game.")
        );
        assert_eq!(en.collapse_key(), None, "each invitation is its own");
        let de = notification(&item, "de");
        assert_eq!(
            (de.title.as_str(), de.body.as_str()),
            ("Neue Einladung", "ann hat dich zu einem Spiel eingeladen.")
        );
    }
}
