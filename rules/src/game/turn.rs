//! Checking and carrying out actions (R3, R4.2, R7.3). `check` refuses before anything
//! changes; `perform` trusts that `check` passed.

use super::{slot_index, Game, Phase, TurnStage};
use crate::event::RoundEnd;
use crate::score::in_order;
use crate::shuffle::shuffle;
use crate::{Action, Card, Event, RulesError, Seat, Slot};

impl Game {
    /// Every reason `seat` may not take `action` now, in a fixed order.
    pub(super) fn check(&self, seat: Seat, action: &Action) -> Result<(), RulesError> {
        if seat >= self.players() {
            return Err(RulesError::SeatOutOfRange(seat));
        }
        match self.phase {
            Phase::GameOver { .. } => return Err(RulesError::GameOver),
            Phase::AwaitingRound => return Err(RulesError::RoundNotStarted),
            _ => {}
        }
        match *action {
            Action::ChooseDeal { .. } => match self.phase {
                Phase::ChoosingDeal { dealer } if dealer == seat => Ok(()),
                Phase::ChoosingDeal { .. } => Err(RulesError::NotDealer),
                _ => Err(RulesError::WrongPhase),
            },
            Action::PlaceBlitzCard { slot } => {
                if self.phase != Phase::BlitzDeal {
                    return Err(RulesError::WrongPhase);
                }
                let index = slot_index(slot)?;
                if self.slot_filled(seat, index) {
                    return Err(RulesError::SlotOccupied);
                }
                Ok(())
            }
            Action::CallRacko => {
                if !matches!(self.phase, Phase::Turn { .. }) {
                    return Err(RulesError::WrongPhase);
                }
                if !in_order(self.rack_cards(seat)) {
                    return Err(RulesError::RackNotInOrder);
                }
                Ok(())
            }
            _ => self.check_turn(seat, action),
        }
    }

    /// The actions only the player on turn takes (R3).
    fn check_turn(&self, seat: Seat, action: &Action) -> Result<(), RulesError> {
        let Phase::Turn {
            seat: on_turn,
            stage,
        } = self.phase
        else {
            return Err(RulesError::WrongPhase);
        };
        if seat != on_turn {
            return Err(RulesError::NotYourTurn);
        }
        match *action {
            Action::TakeDiscard { slot } => {
                expect_stage(stage, TurnStage::Begin)?;
                slot_index(slot)?;
                if !self.top_discard_takeable() {
                    return Err(RulesError::DiscardNotTakeable);
                }
            }
            Action::Draw => {
                expect_stage(stage, TurnStage::Begin)?;
                if !self.can_draw() {
                    return Err(RulesError::StockEmpty);
                }
            }
            Action::PlaceDrawn { slot } => {
                expect_stage(stage, TurnStage::Drawn)?;
                slot_index(slot)?;
            }
            Action::DiscardDrawn => expect_stage(stage, TurnStage::Drawn)?,
            Action::SwapCard {
                with,
                their_slot,
                my_slot,
            } => {
                expect_stage(stage, TurnStage::CardSwap)?;
                self.check_swap_target(seat, with)?;
                slot_index(their_slot)?;
                let mine = slot_index(my_slot)?;
                if self.rack_cards(seat)[mine].number().is_none() {
                    return Err(RulesError::NotANumberCard);
                }
            }
            Action::SwapRacks { with } => {
                expect_stage(stage, TurnStage::RackSwap)?;
                self.check_swap_target(seat, with)?;
            }
            Action::ChooseDeal { .. } | Action::PlaceBlitzCard { .. } | Action::CallRacko => {
                return Err(RulesError::WrongPhase)
            }
        }
        Ok(())
    }

    fn check_swap_target(&self, seat: Seat, with: Seat) -> Result<(), RulesError> {
        if with == seat || with >= self.players() {
            return Err(RulesError::InvalidSwapTarget);
        }
        Ok(())
    }

    /// R3.1a, R3.5: a number card or a joker on top of the discard pile may be taken.
    pub(super) fn top_discard_takeable(&self) -> bool {
        self.discard.last().is_some_and(Card::is_playable)
    }

    /// R3.6: a card can be drawn if the stock holds one or a reshuffle would make one.
    pub(super) fn can_draw(&self) -> bool {
        !self.stock.is_empty() || self.discard.len() > 1
    }

    /// Carries out a checked action.
    pub(super) fn perform(&mut self, seat: Seat, action: Action, events: &mut Vec<Event>) {
        match action {
            Action::ChooseDeal { blitz } => self.choose_deal(blitz, events),
            Action::PlaceBlitzCard { slot } => self.place_blitz_card(seat, slot, events),
            Action::TakeDiscard { slot } => self.take_discard(seat, slot, events),
            Action::Draw => self.draw(seat, events),
            Action::PlaceDrawn { slot } => self.place_drawn(seat, slot, events),
            Action::DiscardDrawn => {
                if let Some(card) = self.drawn.take() {
                    self.discard.push(card);
                    events.push(Event::DrawnDiscarded { seat, card });
                }
                self.end_turn(seat, events);
            }
            Action::SwapCard {
                with,
                their_slot,
                my_slot,
            } => self.swap_card(seat, with, their_slot, my_slot, events),
            Action::SwapRacks { with } => {
                self.racks.swap(usize::from(seat), usize::from(with));
                events.push(Event::RacksSwapped { seat, with });
                self.end_event_turn(seat, events);
            }
            Action::CallRacko => {
                events.push(Event::RackoCalled { seat });
                self.end_round(RoundEnd::Racko { seat }, events);
            }
        }
    }

    /// Puts `card` into slot index `index` of `seat`; returns the card that was there.
    fn put_into_slot(&mut self, seat: Seat, index: usize, card: Card) -> Card {
        std::mem::replace(&mut self.racks[usize::from(seat)].0[index], card)
    }

    /// R3.1a
    fn take_discard(&mut self, seat: Seat, slot: Slot, events: &mut Vec<Event>) {
        let (Some(index), Some(card)) = (slot.index(), self.discard.pop()) else {
            return;
        };
        let replaced = self.put_into_slot(seat, index, card);
        self.discard.push(replaced);
        events.push(Event::DiscardTaken {
            seat,
            slot,
            card,
            replaced,
        });
        self.end_turn(seat, events);
    }

    /// R3.1b, R3.6
    fn draw(&mut self, seat: Seat, events: &mut Vec<Event>) {
        if self.stock.is_empty() {
            self.reshuffle(events);
        }
        let Some(card) = self.stock.pop() else {
            return;
        };
        self.drawn = Some(card);
        events.push(Event::Drew {
            seat,
            card: Some(card),
        });
        self.carry_out_event(seat, card, events);
    }

    /// R3.6: every discard but the top card becomes the new stock (house rule).
    fn reshuffle(&mut self, events: &mut Vec<Event>) {
        let Some(top) = self.discard.pop() else {
            return;
        };
        let mut cards = std::mem::take(&mut self.discard);
        self.discard.push(top);
        shuffle(&mut cards, &self.seed, self.shuffles);
        self.shuffles += 1;
        // The shuffled order is top first; the game keeps the top last.
        cards.reverse();
        events.push(Event::StockReshuffled {
            cards: cards.len() as u32,
        });
        self.stock = cards;
    }

    /// R3.2
    fn place_drawn(&mut self, seat: Seat, slot: Slot, events: &mut Vec<Event>) {
        let (Some(index), Some(card)) = (slot.index(), self.drawn.take()) else {
            return;
        };
        let replaced = self.put_into_slot(seat, index, card);
        self.discard.push(replaced);
        events.push(Event::DrawnPlaced {
            seat,
            slot,
            card: Some(card),
            replaced,
        });
        self.end_turn(seat, events);
    }

    /// R3.4 card swap (house rule: a named joker makes it void, the joker stays).
    fn swap_card(
        &mut self,
        seat: Seat,
        with: Seat,
        their_slot: Slot,
        my_slot: Slot,
        events: &mut Vec<Event>,
    ) {
        let (Some(theirs), Some(mine)) = (their_slot.index(), my_slot.index()) else {
            return;
        };
        let taken = self.racks[usize::from(with)].0[theirs];
        if taken.number().is_none() {
            events.push(Event::CardSwapVoid {
                seat,
                with: Some(with),
                their_slot: Some(their_slot),
                my_slot: Some(my_slot),
            });
        } else {
            let given = self.racks[usize::from(seat)].0[mine];
            self.racks[usize::from(seat)].0[mine] = taken;
            self.racks[usize::from(with)].0[theirs] = given;
            events.push(Event::CardsSwapped {
                seat,
                with,
                my_slot,
                their_slot,
                given: Some(given),
                taken: Some(taken),
            });
        }
        self.end_event_turn(seat, events);
    }

    /// R3.4: the carried-out event card goes onto the discard pile (a start card lies there
    /// already), and the turn ends.
    pub(super) fn end_event_turn(&mut self, seat: Seat, events: &mut Vec<Event>) {
        if let Some(card) = self.drawn.take() {
            self.discard.push(card);
        }
        self.end_turn(seat, events);
    }

    fn end_turn(&mut self, seat: Seat, events: &mut Vec<Event>) {
        let next = self.left_of(seat);
        self.begin_turn(next, events);
    }

    /// A turn begins; R3.6 ends the round when nothing can be drawn or taken.
    pub(super) fn begin_turn(&mut self, seat: Seat, events: &mut Vec<Event>) {
        events.push(Event::TurnStarted { seat });
        if !self.can_draw() && !self.top_discard_takeable() {
            self.end_round(RoundEnd::StockExhausted, events);
        } else {
            self.phase = Phase::Turn {
                seat,
                stage: TurnStage::Begin,
            };
        }
    }
}

/// The error for an action that belongs to another stage of the turn.
fn expect_stage(stage: TurnStage, wanted: TurnStage) -> Result<(), RulesError> {
    if stage == wanted {
        return Ok(());
    }
    Err(match (stage, wanted) {
        (TurnStage::Drawn, TurnStage::Begin) => RulesError::CardAlreadyDrawn,
        (TurnStage::CardSwap | TurnStage::RackSwap, TurnStage::Begin | TurnStage::Drawn) => {
            RulesError::EventPending
        }
        (TurnStage::Begin, TurnStage::Drawn) => RulesError::NoCardDrawn,
        _ => RulesError::WrongPhase,
    })
}
