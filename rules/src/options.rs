//! Game options chosen at creation (R1.4, R6.1, R7).

use serde::{Deserialize, Serialize};

use crate::{Card, RulesError};

/// R1.4 limits on a game's own deck.
const MAX_NUMBER_LIMIT: u16 = 999;
const MAX_COUNT: u16 = 99;
const TWO_PLAYER_DECK: DeckCounts = DeckCounts {
    max_number: 50,
    jokers: 5,
    card_swaps: 3,
    skips: 3,
    rack_swaps: 2,
};

fn invalid(message: String) -> RulesError {
    RulesError::InvalidOptions(message)
}

/// How the Blitz variant is used (R7.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlitzMode {
    #[default]
    Off,
    EveryRound,
    /// The dealer decides before each deal (`Action::ChooseDeal`).
    DealersChoice,
}

/// The cards in the deck (R1.4). A count out of its range is refused with `invalid_options`;
/// a kind of card left out is none of it.
// Counts are wide integers so that a too-large count is that clear error, not a parse error.
// Every game stores its deck: a count added later must read as 0 when missing (`default`),
// which is what every game stored before it had, so that old games still load and replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DeckCounts {
    /// Number cards are 1 to `max_number`, each once: at least 12 per rack and a start card
    /// (25 for 2 players, 37 for 3, 49 for 4), at most 999.
    #[cfg_attr(feature = "openapi", schema(minimum = 25, maximum = 999))]
    pub max_number: u16,
    /// 0 to 99; left out: 0.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 99))]
    pub jokers: u16,
    /// 0 to 99; left out: 0.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 99))]
    pub card_swaps: u16,
    /// 0 to 99; left out: 0.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 99))]
    pub skips: u16,
    /// 0 to 99; left out: 0.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 99))]
    pub rack_swaps: u16,
}

impl DeckCounts {
    /// No card at all: what a deck written by hand starts from (`DeckCounts { max_number: 30,
    /// jokers: 2, ..DeckCounts::NONE }`), so that a count added later is 0 there too and such
    /// a deck needs no edit.
    pub const NONE: DeckCounts = DeckCounts {
        max_number: 0,
        jokers: 0,
        card_swaps: 0,
        skips: 0,
        rack_swaps: 0,
    };

    /// The default deck for a player count (R1.4 table), None outside 2..=4.
    pub fn default_for(players: u8) -> Option<DeckCounts> {
        let (max_number, jokers, card_swaps, skips, rack_swaps) = match players {
            2 => (50, 5, 3, 3, 2),
            3 => (60, 6, 4, 4, 3),
            4 => (75, 7, 5, 5, 4),
            _ => return None,
        };
        Some(DeckCounts {
            max_number,
            jokers,
            card_swaps,
            skips,
            rack_swaps,
        })
    }

    /// The cards besides the numbers, kind by kind with their counts (R1.3, R1.4), in the
    /// deck's order: jokers, card swaps, skips, rack swaps. The one place that pairs a kind of
    /// card with its count; everything that lists, checks or shuffles a deck goes through it.
    pub fn others(&self) -> [(Card, u16); 4] {
        [
            (Card::Joker, self.jokers),
            (Card::CardSwap, self.card_swaps),
            (Card::Skip, self.skips),
            (Card::RackSwap, self.rack_swaps),
        ]
    }

    /// Every card of the deck once, in the deck's order: the numbers 1..=max_number ascending
    /// (R1.3), then the [`others`](Self::others) kind by kind.
    pub fn cards(&self) -> Vec<Card> {
        let mut cards = Vec::with_capacity(self.total());
        cards.extend((1..=self.max_number).map(|value| Card::Number { value }));
        for (card, count) in self.others() {
            cards.extend(std::iter::repeat_n(card, usize::from(count)));
        }
        cards
    }

    /// How many cards the deck holds in all.
    pub fn total(&self) -> usize {
        let others: usize = self.others().iter().map(|(_, n)| usize::from(*n)).sum();
        usize::from(self.max_number) + others
    }

    /// R1.4: enough number cards for every rack and a start card; every other count 0..=99.
    fn validate(&self, players: u8) -> Result<(), RulesError> {
        let least = 12 * u16::from(players) + 1;
        if self.max_number < least {
            return Err(invalid(format!(
                "max_number must be at least {least} for {players} players (12 per rack and a start card)"
            )));
        }
        if self.max_number > MAX_NUMBER_LIMIT {
            return Err(invalid(format!(
                "max_number must be at most {MAX_NUMBER_LIMIT}"
            )));
        }
        for (card, count) in self.others() {
            if count > MAX_COUNT {
                let name = count_field(card);
                return Err(invalid(format!("{name} must be 0..={MAX_COUNT}")));
            }
        }
        Ok(())
    }
}

/// The field of [`DeckCounts`] that counts `card`'s kind, for messages.
pub(crate) fn count_field(card: Card) -> &'static str {
    match card {
        Card::Number { .. } => "max_number",
        Card::Joker => "jokers",
        Card::CardSwap => "card_swaps",
        Card::Skip => "skips",
        Card::RackSwap => "rack_swaps",
    }
}

/// Everything fixed at game creation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// 2 to 4 (R1.1); exactly 4 with `partner`.
    #[cfg_attr(feature = "openapi", schema(minimum = 2, maximum = 4))]
    pub players: u8,
    /// Partner play (R7.1); needs 4 players.
    pub partner: bool,
    /// Bonus points (R7.2).
    pub bonus: bool,
    /// The Blitz variant (R7.3).
    pub blitz: BlitzMode,
    /// The score that ends the game (R6.1): 1 to 1,000,000.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    pub target: u32,
    /// The deck's cards; null or missing: the R1.4 deck for the player count.
    pub deck: Option<DeckCounts>,
    /// Seconds a seat has to act (R10.1): 60 (a minute) to 2,592,000 (30 days); null: no
    /// deadline. Missing: 259,200 (3 days).
    // Missing from older JSON: `DEFAULT_TURN_TIME`; an explicit null is no deadline. The
    // bounds are `MIN_TURN_TIME` and `MAX_TURN_TIME` (a test compares them with the document).
    #[cfg_attr(feature = "openapi", schema(minimum = 60, maximum = 2_592_000))]
    pub turn_time: Option<u32>,
    /// A seat that runs out of time on this many turns in a row resigns (R10.2): 1 to 20.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 20))]
    pub timeouts_to_resign: u8,
}

/// The highest target a game may set: far beyond any real game, small enough for u32 totals.
pub const MAX_TARGET: u32 = 1_000_000;

/// R10.1: the default turn time, 3 days. Games here are played by correspondence, not at one
/// table: players come back once or twice a day, so a deadline of minutes would resign them.
pub const DEFAULT_TURN_TIME: u32 = 259_200;
/// R10.1: one minute.
pub const MIN_TURN_TIME: u32 = 60;
/// R10.1: thirty days.
pub const MAX_TURN_TIME: u32 = 2_592_000;
/// R10.2: the default number of timed-out turns in a row that resigns a seat.
pub const DEFAULT_TIMEOUTS_TO_RESIGN: u8 = 3;
/// R10.2: the highest `timeouts_to_resign` a game may set.
pub const MAX_TIMEOUTS_TO_RESIGN: u8 = 20;

impl Default for Options {
    fn default() -> Self {
        Options {
            players: 2,
            partner: false,
            bonus: false,
            blitz: BlitzMode::Off,
            target: 500,
            deck: None,
            turn_time: Some(DEFAULT_TURN_TIME),
            timeouts_to_resign: DEFAULT_TIMEOUTS_TO_RESIGN,
        }
    }
}

impl Options {
    /// Checks R1.1, R1.4, R7.1 and R10.1/R10.2; the error is `invalid_options` with a message that says
    /// which value is wrong.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(2..=4).contains(&self.players) {
            return Err(invalid(format!(
                "players must be 2, 3 or 4, not {}",
                self.players
            )));
        }
        if self.partner && self.players != 4 {
            return Err(invalid("partner needs exactly 4 players".to_string()));
        }
        // A target of 0 would end the game before it began (R6.1).
        if !(1..=MAX_TARGET).contains(&self.target) {
            return Err(invalid(format!(
                "target must be 1..={MAX_TARGET}, not {}",
                self.target
            )));
        }
        if let Some(seconds) = self.turn_time {
            if !(MIN_TURN_TIME..=MAX_TURN_TIME).contains(&seconds) {
                return Err(invalid(format!(
                    "turn_time must be {MIN_TURN_TIME}..={MAX_TURN_TIME} seconds (1 minute to 30 days) or null for none, not {seconds}"
                )));
            }
        }
        if !(1..=MAX_TIMEOUTS_TO_RESIGN).contains(&self.timeouts_to_resign) {
            return Err(invalid(format!(
                "timeouts_to_resign must be 1..={MAX_TIMEOUTS_TO_RESIGN}, not {}",
                self.timeouts_to_resign
            )));
        }
        self.deck_counts().validate(self.players)
    }

    /// The deck in use: `deck` or the default for the player count. With an invalid player
    /// count and no deck it is the 2-player deck; `validate` refuses such options anyway.
    pub fn deck_counts(&self) -> DeckCounts {
        self.deck
            .or_else(|| DeckCounts::default_for(self.players))
            .unwrap_or(TWO_PLAYER_DECK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_deck(players: u8, deck: DeckCounts) -> Options {
        Options {
            players,
            deck: Some(deck),
            ..Options::default()
        }
    }

    #[test]
    fn r1_4_default_decks() {
        let four = DeckCounts::default_for(4).expect("4 players have a deck");
        assert_eq!((four.max_number, four.jokers, four.card_swaps), (75, 7, 5));
        assert_eq!((four.skips, four.rack_swaps), (5, 4));
        assert_eq!(DeckCounts::default_for(2).map(|d| d.total()), Some(63));
        assert_eq!(DeckCounts::default_for(3).map(|d| d.total()), Some(77));
        assert_eq!(DeckCounts::default_for(1), None);
        assert_eq!(DeckCounts::default_for(5), None);
    }

    #[test]
    fn r1_3_the_deck_holds_each_number_once_and_each_kind_as_counted() {
        // Distinct counts, so that a count paired with the wrong kind shows.
        let counts = DeckCounts {
            max_number: 37,
            jokers: 1,
            card_swaps: 2,
            skips: 3,
            rack_swaps: 4,
        };
        let cards = counts.cards();
        assert_eq!(cards.len(), counts.total());
        assert_eq!(cards.len(), 37 + 1 + 2 + 3 + 4);
        let numbers: Vec<u16> = cards.iter().filter_map(Card::number).collect();
        assert_eq!(numbers, (1..=37).collect::<Vec<u16>>());
        let count = |kind: Card| cards.iter().filter(|c| **c == kind).count();
        assert_eq!(count(Card::Joker), 1);
        assert_eq!(count(Card::CardSwap), 2);
        assert_eq!(count(Card::Skip), 3);
        assert_eq!(count(Card::RackSwap), 4);
        // The deck's order: numbers ascending, then jokers, card swaps, skips, rack swaps.
        let kinds: Vec<Card> = cards[37..].to_vec();
        let mut expected = vec![Card::Joker];
        expected.extend([Card::CardSwap; 2]);
        expected.extend([Card::Skip; 3]);
        expected.extend([Card::RackSwap; 4]);
        assert_eq!(kinds, expected);
    }

    #[test]
    fn r1_4_default_decks_list_their_cards() {
        for (players, total, jokers) in [(2, 63, 5), (3, 77, 6), (4, 96, 7)] {
            let counts = DeckCounts::default_for(players).expect("a default deck");
            let cards = counts.cards();
            assert_eq!(cards.len(), total, "{players} players");
            let found = cards.iter().filter(|c| **c == Card::Joker).count();
            assert_eq!(found, jokers, "{players} players");
            assert_eq!(counts.others()[0], (Card::Joker, jokers as u16));
        }
    }

    #[test]
    fn r1_4_a_count_out_of_range_names_its_field() {
        let base = DeckCounts::default_for(2).expect("2 players have a deck");
        let cases = [
            (
                "jokers",
                DeckCounts {
                    jokers: 100,
                    ..base
                },
            ),
            (
                "card_swaps",
                DeckCounts {
                    card_swaps: 100,
                    ..base
                },
            ),
            ("skips", DeckCounts { skips: 100, ..base }),
            (
                "rack_swaps",
                DeckCounts {
                    rack_swaps: 100,
                    ..base
                },
            ),
        ];
        for (field, deck) in cases {
            let err = with_deck(2, deck).validate().expect_err("count above 99");
            assert!(err.to_string().contains(field), "{field}: {err}");
        }
    }

    #[test]
    fn r6_1_target_is_at_least_one() {
        for (target, ok) in [
            (0, false),
            (1, true),
            (500, true),
            (MAX_TARGET, true),
            (MAX_TARGET + 1, false),
        ] {
            let options = Options {
                target,
                ..Options::default()
            };
            assert_eq!(options.validate().is_ok(), ok, "target {target}");
        }
    }

    #[test]
    fn r1_1_player_count() {
        for players in [2, 3, 4] {
            let options = Options {
                players,
                ..Options::default()
            };
            assert_eq!(options.validate(), Ok(()));
        }
        for players in [0, 1, 5] {
            let options = Options {
                players,
                ..Options::default()
            };
            let err = options.validate().expect_err("bad player count");
            assert_eq!(err.code(), "invalid_options");
        }
    }

    #[test]
    fn r7_1_partner_needs_four() {
        let three = Options {
            players: 3,
            partner: true,
            ..Options::default()
        };
        assert!(three.validate().is_err());
        let four = Options {
            players: 4,
            partner: true,
            ..Options::default()
        };
        assert_eq!(four.validate(), Ok(()));
    }

    #[test]
    fn r1_4_own_deck_limits() {
        let base = DeckCounts::default_for(3).expect("3 players have a deck");
        let small = DeckCounts {
            max_number: 36,
            ..base
        };
        let err = with_deck(3, small).validate().expect_err("too few numbers");
        assert!(err.to_string().contains("max_number"));
        let least = DeckCounts {
            max_number: 37,
            jokers: 0,
            card_swaps: 0,
            skips: 0,
            rack_swaps: 0,
        };
        assert_eq!(with_deck(3, least).validate(), Ok(()));
        let huge = DeckCounts {
            max_number: 1000,
            ..base
        };
        assert!(with_deck(3, huge).validate().is_err());
        let jokers = DeckCounts {
            jokers: 100,
            ..base
        };
        let err = with_deck(3, jokers)
            .validate()
            .expect_err("too many jokers");
        assert!(err.to_string().contains("jokers"));
    }

    #[test]
    fn r10_1_options_without_the_turn_fields_get_the_defaults() {
        let old: Options =
            serde_json::from_str(r#"{"players": 3, "target": 300}"#).expect("old JSON loads");
        assert_eq!(old.turn_time, Some(DEFAULT_TURN_TIME));
        assert_eq!(old.turn_time, Some(3 * 24 * 60 * 60));
        assert_eq!(old.timeouts_to_resign, 3);
        assert_eq!(old.validate(), Ok(()));
        let none: Options =
            serde_json::from_str(r#"{"turn_time": null}"#).expect("null is allowed");
        assert_eq!(none.turn_time, None);
        assert_eq!(none.validate(), Ok(()));
        let back: Options =
            serde_json::from_value(serde_json::to_value(&none).expect("serializes"))
                .expect("round trip");
        assert_eq!(back, none, "None stays None through JSON");
    }

    #[test]
    fn r10_1_turn_time_is_one_minute_to_thirty_days() {
        for (turn_time, ok) in [
            (Some(59), false),
            (Some(60), true),
            (Some(DEFAULT_TURN_TIME), true),
            (Some(2_592_000), true),
            (Some(2_592_001), false),
            (Some(0), false),
            (None, true),
        ] {
            let options = Options {
                turn_time,
                ..Options::default()
            };
            let result = options.validate();
            assert_eq!(result.is_ok(), ok, "turn_time {turn_time:?}");
            if let Err(err) = result {
                assert_eq!(err.code(), "invalid_options");
                assert!(err.to_string().contains("turn_time"), "{err}");
            }
        }
    }

    #[test]
    fn r10_2_timeouts_to_resign_is_1_to_20() {
        for (timeouts_to_resign, ok) in [(0, false), (1, true), (3, true), (20, true), (21, false)]
        {
            let options = Options {
                timeouts_to_resign,
                ..Options::default()
            };
            let result = options.validate();
            assert_eq!(
                result.is_ok(),
                ok,
                "timeouts_to_resign {timeouts_to_resign}"
            );
            if let Err(err) = result {
                assert!(err.to_string().contains("timeouts_to_resign"), "{err}");
            }
        }
        let json = r#"{"timeouts_to_resign": 300}"#;
        assert!(serde_json::from_str::<Options>(json).is_err(), "beyond u8");
    }
}
