//! Dealing a round (R2, R7.3) and turning up the start card (R2.3, R2.4).

use super::{BlitzDeal, Game, Phase, TurnStage, FULL_RACK};
use crate::deck::{dealt_slot, receiver};
use crate::event::RoundEnd;
use crate::score::in_order;
use crate::shuffle::{shuffled_deck, FIRST_RESHUFFLE_STREAM};
use crate::{BlitzMode, Card, Event, Rack, RoundDeal, Seat, Slot, StackedDeck};

impl Game {
    /// R2.1: the next dealer deals; the deal itself waits for the dealer's choice if asked.
    /// The stacked deck, if any, has been checked.
    pub(super) fn deal_round(&mut self, deal: &RoundDeal, events: &mut Vec<Event>) {
        self.round += 1;
        self.dealer = ((self.round - 1) % u32::from(self.players())) as Seat;
        self.seed = deal.seed;
        self.shuffles = FIRST_RESHUFFLE_STREAM;
        events.push(Event::RoundStarted {
            round: self.round,
            dealer: self.dealer,
            start_seat: self.start_seat(),
            seed_commitment: deal.seed.commitment(),
            seed: Some(deal.seed),
            stacked: deal.stacked.clone(),
        });
        match self.options.blitz {
            BlitzMode::Off => self.deal_cards(deal.stacked.clone(), false, events),
            BlitzMode::EveryRound => self.deal_cards(deal.stacked.clone(), true, events),
            BlitzMode::DealersChoice => {
                self.pending_stack = deal.stacked.clone();
                self.phase = Phase::ChoosingDeal {
                    dealer: self.dealer,
                };
            }
        }
    }

    /// R7.3 dealer's choice, already checked.
    pub(super) fn choose_deal(&mut self, blitz: bool, events: &mut Vec<Event>) {
        events.push(Event::DealChosen {
            dealer: self.dealer,
            blitz,
        });
        let stacked = self.pending_stack.take();
        self.deal_cards(stacked, blitz, events);
    }

    /// R2.2 or R7.3: builds the stock and fills (or starts filling) the racks.
    fn deal_cards(&mut self, stacked: Option<StackedDeck>, blitz: bool, events: &mut Vec<Event>) {
        let deck = stacked.unwrap_or_else(|| shuffled_deck(&self.deck, self.players(), &self.seed));
        // The stacked order is top first; the game keeps the top last.
        self.stock = deck.stock;
        self.stock.reverse();
        self.discard.clear();
        self.drawn = None;
        if blitz {
            self.racks.fill(Rack([Card::Joker; 12]));
            self.blitz = Some(BlitzDeal {
                deal: deck.deal,
                filled: vec![0; usize::from(self.players())],
            });
            self.phase = Phase::BlitzDeal;
            events.push(Event::BlitzDealStarted);
            return;
        }
        let (players, start) = (self.players(), self.start_seat());
        for (index, value) in deck.deal.into_iter().enumerate() {
            let (seat, card) = receiver(index, players, start);
            let rack = self.racks.get_mut(usize::from(seat));
            if let (Some(rack), Some(slot)) = (rack, dealt_slot(card)) {
                rack.0[slot] = Card::Number { value };
            }
        }
        events.push(Event::Dealt {
            racks: self.racks.iter().copied().map(Some).collect(),
        });
        self.turn_up_start_card(events);
    }

    /// R7.3: `seat` puts its next card into `slot` (checked: it has one, the slot is empty).
    pub(super) fn place_blitz_card(&mut self, seat: Seat, slot: Slot, events: &mut Vec<Event>) {
        let (Some(card), Some(index)) = (self.blitz_card(seat), slot.index()) else {
            return;
        };
        self.racks[usize::from(seat)].0[index] = card;
        let Some(blitz) = self.blitz.as_mut() else {
            return;
        };
        blitz.filled[usize::from(seat)] |= 1 << index;
        let done = blitz.filled.iter().all(|f| *f == FULL_RACK);
        events.push(Event::BlitzCardPlaced {
            seat,
            slot,
            card: Some(card),
        });
        if done {
            self.blitz = None;
            self.finish_blitz_deal(events);
        }
    }

    /// R7.3: the first rack in order from the start player has Blitz-Racko; else R2.3 goes on.
    fn finish_blitz_deal(&mut self, events: &mut Vec<Event>) {
        let start = self.start_seat();
        let winner = (0..self.players())
            .map(|i| (start + i) % self.players())
            .find(|seat| in_order(self.rack_cards(*seat)));
        match winner {
            Some(seat) => self.end_round(RoundEnd::BlitzRacko { seat }, events),
            None => self.turn_up_start_card(events),
        }
    }

    /// R2.3/R2.4: the stock's top card starts the discard pile; an event card is the start
    /// player's first turn.
    fn turn_up_start_card(&mut self, events: &mut Vec<Event>) {
        let start = self.start_seat();
        // The deck always has a card beyond the racks (R1.4 checks max_number).
        let Some(card) = self.stock.pop() else {
            self.begin_turn(start, events);
            return;
        };
        self.discard.push(card);
        events.push(Event::StartCard { card });
        match card {
            Card::Number { .. } | Card::Joker => self.begin_turn(start, events),
            _ => {
                events.push(Event::TurnStarted { seat: start });
                // Nothing is drawn: the card lies on the discard pile already.
                self.carry_out_event(start, card, events);
            }
        }
    }

    /// R3.4: a skip ends the turn; a card swap or rack swap waits for the drawer's choice
    /// (a card swap of a drawer without a number card has no effect).
    pub(super) fn carry_out_event(&mut self, seat: Seat, card: Card, events: &mut Vec<Event>) {
        let stage = match card {
            Card::Skip => {
                events.push(Event::Skipped { seat });
                return self.end_event_turn(seat, events);
            }
            Card::CardSwap if !self.has_number_card(seat) => {
                events.push(Event::CardSwapVoid {
                    seat,
                    with: None,
                    their_slot: None,
                    my_slot: None,
                });
                return self.end_event_turn(seat, events);
            }
            Card::CardSwap => TurnStage::CardSwap,
            Card::RackSwap => TurnStage::RackSwap,
            Card::Number { .. } | Card::Joker => TurnStage::Drawn,
        };
        self.phase = Phase::Turn { seat, stage };
    }

    fn has_number_card(&self, seat: Seat) -> bool {
        self.rack_cards(seat).iter().any(|c| c.number().is_some())
    }
}
