//! Re-deriving a round's deck from its revealed seed (R9) and checking the deal against it.

use racko_rules::shuffle::shuffled_deck;
use racko_rules::{Card, Options, Rack, Seat, Seed, Slot, StackedDeck};

/// What one round's `round_started` recorded.
pub struct RoundRecord<'a> {
    pub round: u32,
    pub start_seat: Seat,
    pub seed_commitment: &'a str,
    pub seed: Option<Seed>,
    pub stacked: Option<&'a StackedDeck>,
}

/// Checks the seed against its commitment (R9.2) and derives the round's deck: the stacked
/// deck when one was recorded (checked to be a whole deck), else the seed's shuffle.
pub fn derive_deck(options: &Options, round: &RoundRecord) -> Result<StackedDeck, String> {
    let r = round.round;
    let seed = round
        .seed
        .ok_or_else(|| format!("round {r}: the seed is not revealed"))?;
    if seed.commitment() != round.seed_commitment {
        return Err(format!("round {r}: seed does not match its commitment"));
    }
    let counts = options.deck_counts();
    match round.stacked {
        Some(deck) => {
            deck.validate(&counts, options.players)
                .map_err(|e| format!("round {r}: the stacked deck is not a whole deck: {e}"))?;
            Ok(deck.clone())
        }
        None => Ok(shuffled_deck(&counts, options.players, &seed)),
    }
}

/// The normal deal (R2.2) of `deck`: one card at a time clockwise from the start player, a
/// seat's first card into slot 60 (the rules' own [`StackedDeck::racks`]).
pub fn dealt_racks(deck: &StackedDeck, players: u8, start: Seat) -> Vec<[Option<u16>; 12]> {
    deck.racks(players, start)
}

/// Compares the recorded `dealt` racks with the deck's deal.
pub fn check_deal(
    round: u32,
    recorded: &[Option<Rack>],
    expected: &[[Option<u16>; 12]],
) -> Result<(), String> {
    if recorded.len() != expected.len() {
        return Err(format!(
            "round {round}: {} racks were dealt, the table has {}",
            recorded.len(),
            expected.len()
        ));
    }
    for (seat, (rack, want)) in recorded.iter().zip(expected).enumerate() {
        let Some(rack) = rack else {
            return Err(format!("round {round}: seat {seat}'s dealt rack is hidden"));
        };
        for (i, (card, value)) in rack.0.iter().zip(want).enumerate() {
            if card.number() != *value {
                return Err(format!(
                    "round {round}: seat {seat}'s dealt rack does not match the seed's deck \
                     (slot {}: recorded {}, the deck gives {})",
                    Slot::from_index(i).0,
                    card,
                    value.map_or("nothing".to_string(), |v| v.to_string()),
                ));
            }
        }
    }
    Ok(())
}

/// The start card (R2.3) against the deck's top stock card.
pub fn check_start_card(round: u32, recorded: &Card, deck: &StackedDeck) -> Result<(), String> {
    match deck.stock.first() {
        Some(top) if top == recorded => Ok(()),
        top => Err(format!(
            "round {round}: start card recorded {}, the seed's deck gives {}",
            recorded,
            top.map_or("nothing".to_string(), Card::to_string)
        )),
    }
}
