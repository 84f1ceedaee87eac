//! The scenario file format (documented in rules/scenarios/README.md).

use std::collections::BTreeMap;

use racko_rules::{Action, Options, Seat, Seed};
use serde::Deserialize;
use serde_json::Value;

use crate::common::notation::CardSpec;

/// A file holds one scenario or a list of them.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum File {
    One(Box<Scenario>),
    Many(Vec<Scenario>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The rules (R3.4) and examples (E6) the scenario checks.
    pub rules: Vec<String>,
    #[serde(default)]
    pub options: Options,
    /// Expected `invalid_options` (or another code) from `Game::new`; then `rounds` is empty.
    #[serde(default)]
    pub options_error: Option<String>,
    #[serde(default)]
    pub rounds: Vec<Round>,
    /// Checked after the last round's steps.
    #[serde(default)]
    pub expect: Option<Expect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Round {
    /// Default: 32 bytes of the round number.
    #[serde(default)]
    pub seed: Option<Seed>,
    /// The racks after a normal deal, by seat, slot 5 first.
    #[serde(default)]
    pub racks: Option<Vec<Vec<u16>>>,
    /// The number cards each seat receives, in order (for Blitz deals), by seat.
    #[serde(default)]
    pub hands: Option<Vec<Vec<u16>>>,
    /// The raw deal order (R2.2).
    #[serde(default)]
    pub deal: Option<Vec<u16>>,
    /// The stock from the top down; `stock[0]` is the start card.
    #[serde(default)]
    pub stock: Vec<CardSpec>,
    /// Put every card not named yet under `stock` (numbers ascending, jokers, card swaps,
    /// skips, rack swaps). Default true.
    #[serde(default = "yes")]
    pub fill: bool,
    /// No stacked deck: deal from the seed.
    #[serde(default)]
    pub shuffled: bool,
    #[serde(default)]
    pub deal_error: Option<String>,
    /// Patterns the deal's events must contain, in order.
    #[serde(default)]
    pub events: Option<Vec<Value>>,
    #[serde(default)]
    pub expect: Option<Expect>,
    #[serde(default)]
    pub steps: Vec<Step>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub seat: Option<Seat>,
    #[serde(default)]
    pub action: Option<Action>,
    /// R10.2: instead of an action, the seat's deadline passes (`Game::stand_in`).
    #[serde(default)]
    pub stand_in: bool,
    /// R10.1: exactly the seats awaited after the step whose deadline starts afresh with it.
    #[serde(default)]
    pub fresh_deadlines: Option<Vec<Seat>>,
    /// The error code the action must be refused with.
    #[serde(default)]
    pub expect_error: Option<String>,
    /// Patterns the step's events must contain, in order (a pattern matches an event when
    /// every field it names is equal; objects match recursively).
    #[serde(default)]
    pub events: Option<Vec<Value>>,
    /// The exact list of the step's event kinds.
    #[serde(default)]
    pub event_kinds: Option<Vec<String>>,
    #[serde(default)]
    pub expect: Option<Expect>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Matched as a pattern against the serialized `Phase`.
    #[serde(default)]
    pub phase: Option<Value>,
    #[serde(default)]
    pub round: Option<u32>,
    #[serde(default)]
    pub awaiting: Option<Vec<Seat>>,
    /// Seat (as a string key) to rack, slot 5 first; null for an empty slot.
    #[serde(default)]
    pub racks: BTreeMap<String, Vec<Option<CardSpec>>>,
    /// The whole discard pile, bottom first.
    #[serde(default)]
    pub discard: Option<Vec<CardSpec>>,
    #[serde(default)]
    pub discard_top: Option<CardSpec>,
    #[serde(default)]
    pub stock_size: Option<usize>,
    /// The last ended round's scores by seat.
    #[serde(default)]
    pub round_scores: Option<Vec<u32>>,
    #[serde(default)]
    pub totals: Option<Vec<u32>>,
    #[serde(default)]
    pub winners: Option<Vec<Seat>>,
    /// With Partner: team 0 (seats 0 and 2), team 1 (seats 1 and 3).
    #[serde(default)]
    pub team_totals: Option<Vec<u32>>,
    /// Seat (as a string key) to expectations on its legal actions.
    #[serde(default)]
    pub legal: BTreeMap<String, Legal>,
    /// R10.2: seat (as a string key) to its count of timeouts in a row.
    #[serde(default)]
    pub timeouts: BTreeMap<String, u8>,
    /// R10.3: the seats that resigned.
    #[serde(default)]
    pub resigned: Option<Vec<Seat>>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Legal {
    #[serde(default)]
    pub includes: Vec<Action>,
    #[serde(default)]
    pub excludes: Vec<Action>,
    #[serde(default)]
    pub exactly: Option<Vec<Action>>,
    #[serde(default)]
    pub count: Option<usize>,
}
