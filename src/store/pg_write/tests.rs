//! The statements' parts, checked.

use super::statement::*;

/// Each of the 64 statements holds exactly the parts its flags name, with the games' part of
/// its form (one game, or several), and is the one `statement` gives for those.
#[test]
fn each_statement_holds_the_parts_its_change_needs() {
    for games in [1, 2, 32] {
        for i in 0..32 {
            let parts = Parts::from_index(i);
            assert_eq!(parts.index(), i);
            let text = parts.statement(games);
            let (form, other) = if games == 1 {
                (ONE_GAME, GAMES)
            } else {
                (GAMES, ONE_GAME)
            };
            assert!(text.starts_with(form), "statement {i} of {games}");
            assert!(!text.contains(other), "statement {i} of {games}");
            assert!(text.contains(EVENTS), "statement {i} of {games}");
            for (on, part) in [
                (parts.gone_seats, GONE_SEATS),
                (parts.changed_seats, CHANGED_SEATS),
                (parts.new_seats, NEW_SEATS),
                (parts.feed, FEED),
                (parts.idempotency, IDEMPOTENCY),
            ] {
                assert_eq!(text.contains(part), on, "statement {i} of {games}");
            }
            assert_eq!(text.contains(" heads h "), parts.feed, "statement {i}");
        }
    }
}

/// The columns a games part sets and the names it returns, in order (comments left out).
fn columns(part: &str) -> (Vec<String>, Vec<String>) {
    let text: String = part
        .lines()
        .map(|line| line.split("--").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ");
    let words = |from: &str, to: &[&str]| {
        let start = text.find(from).expect("the part") + from.len();
        let rest = &text[start..];
        let end = to
            .iter()
            .filter_map(|t| rest.find(t))
            .min()
            .unwrap_or(rest.len());
        top_level_items(&rest[..end])
    };
    let set = words(" SET ", &[" FROM ", " WHERE "])
        .iter()
        .map(|item| {
            item.split(" = ")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect();
    let returned = words(" RETURNING ", &[")"])
        .iter()
        .map(|item| {
            item.rsplit([' ', '.'])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    (set, returned)
}

/// `text` split at the commas outside parentheses, each item trimmed.
fn top_level_items(text: &str) -> Vec<String> {
    let (mut items, mut item, mut depth) = (Vec::new(), String::new(), 0);
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item).trim().to_string());
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item.trim().to_string());
    items
}

/// Both forms of the games' part set the same columns and return the same names.
#[test]
fn one_game_sets_and_returns_what_several_do() {
    let (several, one) = (columns(GAMES), columns(ONE_GAME));
    assert_eq!(
        several.0,
        [
            "state",
            "status",
            "version",
            "last_seq",
            "updated_at",
            "due_at",
            "listed_at"
        ]
    );
    assert_eq!(several.1, ["id", "version", "at"]);
    assert_eq!(one, several);
}
