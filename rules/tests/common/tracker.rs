//! An independent model of the table, rebuilt from the full events alone. It checks that the
//! events tell a consistent story (every card exists exactly once, a replaced card is the one the
//! rack held, ...) and records what each seat may know (R8), for the projection checks.

use std::collections::BTreeSet;

use racko_rules::deck::receiver;
use racko_rules::shuffle::shuffled_deck;
use racko_rules::{Card, DeckCounts, Event, Options, Rack, Seat, Seed, Slot};

use super::notation::show;

#[derive(Clone)]
pub struct Tracker {
    pub players: usize,
    pub max_number: u16,
    /// Every card of the deck, for the conservation check.
    pub deck: Vec<Card>,
    /// The kinds besides the numbers and how many of each the deck holds.
    pub others: [(Card, u16); 4],
    pub counts: DeckCounts,
    pub racks: Vec<[Option<Card>; 12]>,
    /// Bottom first.
    pub discard: Vec<Card>,
    /// Cards not in a rack, on the discard pile or drawn (Blitz cards not yet placed count here).
    pub stock: usize,
    pub drawn: Option<(Seat, Card)>,
    pub round_open: bool,
    pub seed: Option<Seed>,
    pub round_scores: Vec<Vec<u32>>,
    pub totals: Vec<u32>,
    pub winners: Option<Vec<Seat>>,
    /// Number values each seat may know this round (index `players` is the spectator: public).
    pub known: Vec<BTreeSet<u16>>,
    /// Off in light checking: the knowledge sets are only needed for the R8 checks.
    pub track_knowledge: bool,
    /// The number cards each seat receives this round, in order (R2.2), from the stacked deck
    /// or recomputed from the seed with the documented shuffle (R9.1), and how many of them
    /// a seat has placed in a Blitz deal.
    pub hands: Vec<Vec<u16>>,
    pub blitz_placed: Vec<usize>,
    /// The start card the deck order says.
    pub start_card: Option<Card>,
}

impl Tracker {
    pub fn new(options: &Options) -> Tracker {
        let deck = options.deck_counts();
        let players = usize::from(options.players);
        Tracker {
            players,
            max_number: deck.max_number,
            deck: deck.cards(),
            others: deck.others(),
            racks: vec![[None; 12]; players],
            discard: Vec::new(),
            stock: 0,
            drawn: None,
            round_open: false,
            seed: None,
            round_scores: Vec::new(),
            totals: vec![0; players],
            winners: None,
            known: vec![BTreeSet::new(); players + 1],
            track_knowledge: true,
            hands: vec![Vec::new(); players],
            blitz_placed: vec![0; players],
            start_card: None,
            counts: deck,
        }
    }

    pub fn rack(&self, seat: Seat) -> Vec<Card> {
        let rack = &self.racks[usize::from(seat)];
        rack.iter()
            .map(|c| c.unwrap_or_else(|| panic!("seat {seat}: rack not full: {}", show(rack))))
            .collect()
    }

    /// The card `seat` places next in a Blitz deal.
    pub fn next_blitz_card(&self, seat: Seat) -> Option<Card> {
        let seat = usize::from(seat);
        let value = self.hands[seat].get(self.blitz_placed[seat])?;
        Some(Card::Number { value: *value })
    }

    pub fn rack_full(&self, seat: Seat) -> bool {
        self.racks[usize::from(seat)].iter().all(Option::is_some)
    }

    pub fn top(&self) -> Option<Card> {
        self.discard.last().copied()
    }

    fn learn(&mut self, who: Option<Seat>, card: Card) {
        if !self.track_knowledge {
            return;
        }
        if let Some(value) = card.number() {
            match who {
                Some(seat) => {
                    self.known[usize::from(seat)].insert(value);
                }
                None => self.known.iter_mut().for_each(|k| {
                    k.insert(value);
                }),
            }
        }
    }

    fn learn_rack(&mut self, seat: Seat) {
        if !self.track_knowledge {
            return;
        }
        for card in self.racks[usize::from(seat)].into_iter().flatten() {
            self.learn(Some(seat), card);
        }
    }

    fn slot_mut(&mut self, seat: Seat, slot: Slot) -> &mut Option<Card> {
        let index = slot
            .index()
            .unwrap_or_else(|| panic!("event names bad slot {slot:?}"));
        &mut self.racks[usize::from(seat)][index]
    }

    /// A drawn event card goes onto the discard pile once it has been carried out (R3.4).
    fn event_card_done(&mut self, expected: Card) {
        if let Some((_, card)) = self.drawn {
            assert_eq!(
                card, expected,
                "carried out a different event card than drawn"
            );
            self.discard.push(card);
            self.drawn = None;
        }
    }

    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::RoundStarted {
                seed,
                stacked,
                start_seat,
                ..
            } => {
                self.racks = vec![[None; 12]; self.players];
                self.discard.clear();
                self.stock = self.deck.len();
                self.drawn = None;
                self.round_open = true;
                self.seed = *seed;
                self.known = vec![BTreeSet::new(); self.players + 1];
                let seed = seed.expect("a full event holds the seed");
                let players = self.players as u8;
                let deck = match stacked {
                    Some(stacked) => stacked.clone(),
                    None => shuffled_deck(&self.counts, players, &seed),
                };
                self.start_card = deck.stock.first().copied();
                self.hands = vec![Vec::new(); self.players];
                for (i, value) in deck.deal.iter().enumerate() {
                    let (seat, _) = receiver(i, players, *start_seat);
                    self.hands[usize::from(seat)].push(*value);
                }
                self.blitz_placed = vec![0; self.players];
            }
            Event::DealChosen { .. } | Event::BlitzDealStarted | Event::TurnStarted { .. } => {}
            Event::Dealt { racks } => {
                assert_eq!(racks.len(), self.players, "Dealt names every seat");
                for (seat, rack) in racks.iter().enumerate() {
                    let rack = rack.expect("a full event shows every rack");
                    assert!(
                        rack.0.iter().all(|c| c.number().is_some()),
                        "R2.2: numbers only"
                    );
                    // R2.2: the seat's first card into slot 60, the twelfth into slot 5.
                    let dealt: Vec<u16> = rack.0.iter().rev().filter_map(|c| c.number()).collect();
                    assert_eq!(dealt, self.hands[seat], "seat {seat}: R2.2 deal order");
                    self.racks[seat] = rack.0.map(Some);
                    self.learn_rack(seat as Seat);
                    self.stock -= 12;
                }
            }
            Event::BlitzCardPlaced { seat, slot, card } => {
                let card = card.expect("a full event shows the card");
                let place = self.slot_mut(*seat, *slot);
                assert!(place.is_none(), "Blitz card placed into an occupied slot");
                *place = Some(card);
                assert_eq!(
                    Some(card),
                    self.next_blitz_card(*seat),
                    "R7.3: the next dealt card"
                );
                self.blitz_placed[usize::from(*seat)] += 1;
                self.learn(Some(*seat), card);
                self.stock -= 1;
            }
            Event::StartCard { card } => {
                assert!(self.discard.is_empty(), "start card onto a non-empty pile");
                assert_eq!(
                    Some(*card),
                    self.start_card,
                    "R2.3: the top card of the stock"
                );
                self.discard.push(*card);
                self.learn(None, *card);
                self.stock -= 1;
            }
            Event::DiscardTaken {
                seat,
                slot,
                card,
                replaced,
            } => {
                assert_eq!(
                    self.discard.pop(),
                    Some(*card),
                    "taken card is the top discard"
                );
                let place = self.slot_mut(*seat, *slot);
                assert_eq!(
                    *place,
                    Some(*replaced),
                    "replaced card is the one in the slot"
                );
                *place = Some(*card);
                self.discard.push(*replaced);
                self.learn(None, *replaced);
            }
            Event::Drew { seat, card } => {
                let card = card.expect("a full event shows the drawn card");
                assert!(self.drawn.is_none(), "drew while holding a drawn card");
                assert!(self.stock > 0, "drew from an empty stock");
                self.stock -= 1;
                self.drawn = Some((*seat, card));
                self.learn(Some(*seat), card);
            }
            Event::DrawnPlaced {
                seat,
                slot,
                card,
                replaced,
            } => {
                let card = card.expect("a full event shows the placed card");
                assert_eq!(
                    self.drawn.take(),
                    Some((*seat, card)),
                    "placed the drawn card"
                );
                let place = self.slot_mut(*seat, *slot);
                assert_eq!(
                    *place,
                    Some(*replaced),
                    "replaced card is the one in the slot"
                );
                *place = Some(card);
                self.discard.push(*replaced);
                self.learn(None, *replaced);
            }
            Event::DrawnDiscarded { seat, card } => {
                assert_eq!(
                    self.drawn.take(),
                    Some((*seat, *card)),
                    "discarded the drawn card"
                );
                self.discard.push(*card);
                self.learn(None, *card);
            }
            Event::Skipped { .. } => self.event_card_done(Card::Skip),
            Event::CardsSwapped {
                seat,
                with,
                my_slot,
                their_slot,
                given,
                taken,
            } => {
                let (given, taken) = (given.expect("full"), taken.expect("full"));
                let mine = self.slot_mut(*seat, *my_slot).replace(taken);
                assert_eq!(mine, Some(given), "the drawer gave the card of his slot");
                let theirs = self.slot_mut(*with, *their_slot).replace(given);
                assert_eq!(
                    theirs,
                    Some(taken),
                    "the drawer took the card of their slot"
                );
                assert!(
                    given.number().is_some() && taken.number().is_some(),
                    "R3.4: numbers"
                );
                for seat in [*seat, *with] {
                    self.learn(Some(seat), given);
                    self.learn(Some(seat), taken);
                }
                self.event_card_done(Card::CardSwap);
            }
            Event::CardSwapVoid { .. } => self.event_card_done(Card::CardSwap),
            Event::RacksSwapped { seat, with } => {
                self.racks.swap(usize::from(*seat), usize::from(*with));
                self.learn_rack(*seat);
                self.learn_rack(*with);
                self.event_card_done(Card::RackSwap);
            }
            Event::StockReshuffled { cards } => {
                let top = self
                    .discard
                    .pop()
                    .expect("a reshuffle keeps the top discard");
                assert_eq!(
                    *cards as usize,
                    self.discard.len(),
                    "R3.6: all but the top card"
                );
                assert_eq!(
                    self.stock, 0,
                    "R3.6: reshuffle only when the stock is empty"
                );
                self.stock = self.discard.len();
                self.discard = vec![top];
            }
            Event::RackoCalled { .. } => {}
            Event::RoundEnded {
                racks,
                scores,
                totals,
                seed,
                ..
            } => {
                for (seat, rack) in racks.iter().enumerate() {
                    assert_eq!(
                        rack.0.map(Some),
                        self.racks[seat],
                        "seat {seat}: the shown rack is the rack as played"
                    );
                }
                if let Some(committed) = self.seed {
                    assert_eq!(
                        *seed, committed,
                        "R9.2: the revealed seed is the round's seed"
                    );
                }
                self.round_open = false;
                self.round_scores.push(scores.clone());
                self.totals = totals.clone();
                // R8.2: every rack is shown.
                let shown: Vec<u16> = racks
                    .iter()
                    .flat_map(|r| r.0)
                    .filter_map(|c| c.number())
                    .collect();
                if self.track_knowledge {
                    for known in &mut self.known {
                        known.extend(shown.iter().copied());
                    }
                }
            }
            Event::GameEnded { winners, totals } => {
                assert_eq!(
                    *totals, self.totals,
                    "final totals are the last round's totals"
                );
                self.winners = Some(winners.clone());
                // R10.3: a resignation ends the game with the round unscored.
                self.round_open = false;
            }
            // R10.4: public, and nothing moves.
            Event::TurnTimedOut { .. } | Event::Resigned { .. } => {}
        }
    }

    /// Every card of the deck exists exactly once: the known places hold no number twice, no
    /// card outside the deck, and the rest is exactly the stock's size. Counting, not searching,
    /// so that it is cheap enough for every step of every game.
    pub fn check_conservation(&self) {
        if !self.round_open {
            return;
        }
        // A bit per number value 0..=999 (R1.4 caps max_number at 999).
        let mut numbers = [0u64; 16];
        let mut others = [0u16; 4];
        let mut count = 0;
        let mut count_card = |card: Card| {
            count += 1;
            if let Card::Number { value } = card {
                assert!(
                    (1..=self.max_number).contains(&value),
                    "{value} is not in the deck"
                );
                let (word, bit) = (usize::from(value) / 64, 1u64 << (value % 64));
                assert!(numbers[word] & bit == 0, "number {value} exists twice");
                numbers[word] |= bit;
                return;
            }
            let kind = self
                .others
                .iter()
                .position(|(other, _)| *other == card)
                .unwrap_or_else(|| panic!("{card:?} is no kind of the deck"));
            others[kind] += 1;
            assert!(others[kind] <= self.others[kind].1, "too many {card:?}");
        };
        for rack in &self.racks {
            for card in rack.iter().flatten() {
                count_card(*card);
            }
        }
        for card in &self.discard {
            count_card(*card);
        }
        if let Some((_, card)) = self.drawn {
            count_card(card);
        }
        assert_eq!(
            count + self.stock,
            self.deck.len(),
            "the stock holds every other card"
        );
    }

    pub fn rack_of(rack: &Rack) -> Vec<Card> {
        rack.0.to_vec()
    }
}
