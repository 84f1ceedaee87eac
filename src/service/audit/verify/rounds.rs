//! The per-round checks of a verification: seeds against their commitments, decks against the
//! deal and start card, and the document's rounds table against the log.

use racko_rules::{Event, Options};

use super::{difference_from, discrepancy, json, VerifyError};
use crate::service::audit::deck::{
    check_deal, check_start_card, dealt_racks, derive_deck, RoundRecord,
};
use crate::service::audit::export::{note_round, GameExport};

/// Seeds against commitments, decks against the deal. Returns (commitments, decks) checked.
pub(super) fn check_seeds(
    options: &Options,
    events: &[(i64, Event)],
) -> Result<(usize, usize), VerifyError> {
    let (mut commitments, mut decks) = (0, 0);
    let mut deck = None;
    let mut dealt_seed = None;
    for (seq, event) in events {
        match event {
            Event::RoundStarted {
                round,
                start_seat,
                seed_commitment,
                seed,
                stacked,
                ..
            } => {
                let record = RoundRecord {
                    round: *round,
                    start_seat: *start_seat,
                    seed_commitment,
                    seed: *seed,
                    stacked: stacked.as_ref(),
                };
                let derived = derive_deck(options, &record).map_err(discrepancy)?;
                commitments += 1;
                deck = Some((record.round, record.start_seat, derived));
                dealt_seed = *seed;
            }
            Event::Dealt { racks } => {
                let Some((round, start, deck)) = &deck else {
                    return Err(discrepancy(format!(
                        "event seq {seq} (dealt): no round was started"
                    )));
                };
                let expected = dealt_racks(deck, options.players, *start);
                check_deal(*round, racks, &expected).map_err(discrepancy)?;
                decks += 1;
            }
            Event::StartCard { card } => {
                if let Some((round, _, deck)) = &deck {
                    check_start_card(*round, card, deck).map_err(discrepancy)?;
                }
            }
            Event::RoundEnded { round, seed, .. } if Some(*seed) != dealt_seed => {
                return Err(discrepancy(format!(
                    "round {round}: the revealed seed differs from the seed of its deal"
                )));
            }
            _ => {}
        }
    }
    Ok((commitments, decks))
}

/// The document's rounds table is what the log tells.
pub(super) fn check_rounds_table(
    doc: &GameExport,
    events: &[(i64, Event)],
) -> Result<(), VerifyError> {
    let (mut rounds, mut result) = (Vec::new(), None);
    for (_, event) in events {
        note_round(event, &mut rounds, &mut result);
    }
    if rounds.len() != doc.rounds.len() {
        return Err(discrepancy(format!(
            "the rounds table lists {} rounds, the log {}",
            doc.rounds.len(),
            rounds.len()
        )));
    }
    for (listed, logged) in doc.rounds.iter().zip(&rounds) {
        if let Some(what) = difference_from(&json(listed), &json(logged), "the log gives") {
            return Err(discrepancy(format!(
                "round {} in the rounds table: {what}",
                logged.round
            )));
        }
    }
    Ok(())
}
