//! The legal actions of a seat: exactly what `check` accepts.

use super::{Game, Phase, TurnStage};
use crate::score::in_order;
use crate::{Action, Seat, Slot};

impl Game {
    /// Appends the legal actions of `seat` to `actions` (nothing for a seat not at the table).
    pub fn legal_actions_into(&self, seat: Seat, actions: &mut Vec<Action>) {
        if seat >= self.players() {
            return;
        }
        match self.phase {
            Phase::ChoosingDeal { dealer } if dealer == seat => {
                actions.push(Action::ChooseDeal { blitz: false });
                actions.push(Action::ChooseDeal { blitz: true });
            }
            Phase::BlitzDeal => {
                let empty = (0..12).filter(|i| !self.slot_filled(seat, *i));
                actions.extend(empty.map(|i| Action::PlaceBlitzCard {
                    slot: Slot::from_index(i),
                }));
            }
            Phase::Turn {
                seat: on_turn,
                stage,
            } => {
                if on_turn == seat {
                    self.turn_actions(seat, stage, actions);
                }
                // R4.2: any seat, at any moment of the play.
                if in_order(self.rack_cards(seat)) {
                    actions.push(Action::CallRacko);
                }
            }
            _ => {}
        }
    }

    fn turn_actions(&self, seat: Seat, stage: TurnStage, actions: &mut Vec<Action>) {
        match stage {
            TurnStage::Begin => {
                if self.top_discard_takeable() {
                    actions.extend(Slot::all().map(|slot| Action::TakeDiscard { slot }));
                }
                if self.can_draw() {
                    actions.push(Action::Draw);
                }
            }
            TurnStage::Drawn => {
                actions.extend(Slot::all().map(|slot| Action::PlaceDrawn { slot }));
                actions.push(Action::DiscardDrawn);
            }
            TurnStage::CardSwap => {
                let mine = self.rack_cards(seat);
                for with in self.seats().filter(|s| *s != seat) {
                    for their_slot in Slot::all() {
                        let own_numbers = (0..12).filter(|i| mine[*i].number().is_some());
                        actions.extend(own_numbers.map(|i| Action::SwapCard {
                            with,
                            their_slot,
                            my_slot: Slot::from_index(i),
                        }));
                    }
                }
            }
            TurnStage::RackSwap => {
                let others = self.seats().filter(|s| *s != seat);
                actions.extend(others.map(|with| Action::SwapRacks { with }));
            }
        }
    }
}
