//! The R8 projection of a game for one viewer.

use super::{Game, Phase};
use crate::view::{KnownCard, SlotCard};
use crate::{Seat, Slot, View, Viewer};

impl Game {
    pub(super) fn project(&self, viewer: Viewer) -> View {
        let in_round = self.in_round();
        // Before the dealer has chosen, the racks still hold the last round's cards (or the
        // placeholders of a new game): no rack of this round exists yet.
        let dealt = in_round && !matches!(self.phase, Phase::ChoosingDeal { .. });
        let own_seat = match viewer {
            Viewer::Seat { seat } if seat < self.players() => Some(seat),
            _ => None,
        };
        let everyone = viewer == Viewer::Everyone;
        let turn = match self.phase {
            Phase::Turn { seat, .. } => Some(seat),
            _ => None,
        };
        let drawn = self
            .drawn
            .filter(|card| everyone || card.is_event() || (turn.is_some() && turn == own_seat));
        let blitz_placed = match &self.blitz {
            Some(blitz) => blitz.filled.iter().map(|f| f.count_ones() as u8).collect(),
            None => Vec::new(),
        };
        View {
            viewer,
            options: self.options.clone(),
            phase: self.phase.clone(),
            round: self.round,
            dealer: (self.round > 0).then_some(self.dealer),
            start_seat: (self.round > 0).then(|| self.start_seat()),
            turn,
            awaiting: self.awaiting(),
            rack: own_seat
                .filter(|_| dealt)
                .map(|seat| self.visible_rack(seat)),
            known: own_seat
                .filter(|_| in_round)
                .map(|seat| {
                    self.known
                        .of(seat)
                        .into_iter()
                        .map(|(seat, slot, card)| KnownCard { seat, slot, card })
                        .collect()
                })
                .unwrap_or_default(),
            racks: (everyone && dealt)
                .then(|| self.seats().map(|seat| self.visible_rack(seat)).collect()),
            drawn,
            blitz_card: own_seat.and_then(|seat| self.blitz_card(seat)),
            blitz_placed,
            discard: self.discard.clone(),
            stock_size: self.stock.len() as u32,
            seed_commitment: in_round.then(|| self.seed.commitment()),
            round_scores: self.round_scores.clone(),
            totals: self.totals.clone(),
            team_totals: self.team_totals(),
            legal_actions: own_seat
                .map(|seat| self.legal_actions(seat))
                .unwrap_or_default(),
            last_round: self.last_round.clone(),
            winners: match &self.phase {
                Phase::GameOver { winners } => Some(winners.clone()),
                _ => None,
            },
            resigned: self.resigned_seats(),
            timeouts: self.seats().map(|seat| self.timeouts(seat)).collect(),
        }
    }

    /// A rack slot by slot; slots the Blitz deal has not filled are empty.
    fn visible_rack(&self, seat: Seat) -> Vec<SlotCard> {
        let cards = self.rack_cards(seat);
        (0..12)
            .map(|i| SlotCard {
                slot: Slot::from_index(i),
                card: self.slot_filled(seat, i).then_some(cards[i]),
            })
            .collect()
    }
}
