//! What a seat's view shows, read once into the form the players reason with: its own rack,
//! and which cards it has not seen (R8.1: own rack, own drawn card, the whole discard pile).
//! Every other card of the deck is in the stock or in another rack; nothing here can tell
//! which, so a player that reasons from a `Sight` cannot use hidden information.

use racko_rules::{Card, Phase, Seat, TurnStage, View, Viewer};

/// A rack slot: a number 1..=max, a joker, or empty (Blitz deal).
pub(crate) const JOKER: u16 = 0;
pub(crate) const EMPTY: u16 = u16::MAX;

pub(crate) type Slots = [u16; 12];

pub(crate) struct Sight {
    pub me: Seat,
    pub players: u8,
    pub partner: bool,
    pub bonus: bool,
    pub max: u16,
    pub rack: Slots,
    /// By value 0..=max: true when the card is in no place this seat can see.
    pub unseen: Vec<bool>,
    /// By value 0..=max: true when the card lies in the discard pile.
    pub discarded: Vec<bool>,
    pub jokers_unseen: u16,
    pub events_unseen: u16,
    /// Of those, the rack swaps (R3.4): every unseen event card is in the stock.
    pub rack_swaps_unseen: u16,
    pub stock_size: u32,
    /// The seat expects to act (else only an off-turn Racko call is possible).
    pub awaited: bool,
    pub stage: Option<TurnStage>,
    pub top: Option<Card>,
    pub drawn: Option<Card>,
    pub blitz_card: Option<Card>,
    /// Totals by side (team totals with Partner), and the side of each seat.
    pub side_totals: Vec<u32>,
    /// By seat: the other racks as far as public facts show them (R8.1), EMPTY where unknown.
    pub known: Vec<Slots>,
    /// The total that ends the game (R6.1).
    pub target: u32,
}

fn slot_value(card: Option<Card>) -> u16 {
    match card {
        Some(Card::Number { value }) => value,
        Some(Card::Joker) => JOKER,
        _ => EMPTY,
    }
}

impl Sight {
    /// None for a view that is not a seat's.
    pub(crate) fn of(view: &View) -> Option<Sight> {
        let Viewer::Seat { seat: me } = view.viewer else {
            return None;
        };
        let deck = view.options.deck_counts();
        let max = deck.max_number;
        let mut rack = [EMPTY; 12];
        for (i, slot) in view.rack.iter().flatten().take(12).enumerate() {
            rack[i] = slot_value(slot.card);
        }
        let mut unseen = vec![true; usize::from(max) + 1];
        unseen[0] = false;
        let mut discarded = vec![false; usize::from(max) + 1];
        let (mut jokers, mut events) =
            (deck.jokers, deck.card_swaps + deck.skips + deck.rack_swaps);
        let mut rack_swaps = deck.rack_swaps;
        let mut see = |card: &Card, in_discard: bool| match card {
            Card::Number { value } => {
                if let Some(u) = unseen.get_mut(usize::from(*value)) {
                    *u = false;
                }
                if in_discard {
                    if let Some(d) = discarded.get_mut(usize::from(*value)) {
                        *d = true;
                    }
                }
            }
            Card::Joker => jokers = jokers.saturating_sub(1),
            Card::RackSwap => {
                rack_swaps = rack_swaps.saturating_sub(1);
                events = events.saturating_sub(1);
            }
            _ => events = events.saturating_sub(1),
        };
        for card in &view.discard {
            see(card, true);
        }
        for card in view.rack.iter().flatten().filter_map(|s| s.card.as_ref()) {
            see(card, false);
        }
        for card in view.drawn.iter().chain(view.blitz_card.iter()) {
            see(card, false);
        }
        // A card known to sit in another rack is not in the stock.
        let mut known = vec![[EMPTY; 12]; usize::from(view.options.players)];
        for fact in &view.known {
            let (Some(rack), Some(i)) = (known.get_mut(usize::from(fact.seat)), fact.slot.index())
            else {
                continue;
            };
            if i < 12 && fact.seat != me {
                rack[i] = slot_value(Some(fact.card));
                see(&fact.card, false);
            }
        }
        let stage = match view.phase {
            Phase::Turn { seat, stage } if seat == me => Some(stage),
            _ => None,
        };
        Some(Sight {
            me,
            players: view.options.players,
            partner: view.options.partner,
            bonus: view.options.bonus,
            max,
            rack,
            unseen,
            discarded,
            jokers_unseen: jokers,
            events_unseen: events,
            rack_swaps_unseen: rack_swaps,
            stock_size: view.stock_size,
            awaited: view.awaiting.contains(&me),
            stage,
            top: view.discard.last().copied(),
            drawn: view.drawn,
            blitz_card: view.blitz_card,
            side_totals: view
                .team_totals
                .clone()
                .unwrap_or_else(|| view.totals.clone()),
            known,
            target: view.options.target,
        })
    }

    /// The side (team with Partner, else the seat) of `seat`.
    pub(crate) fn side(&self, seat: Seat) -> usize {
        if self.partner {
            usize::from(seat % 2)
        } else {
            usize::from(seat)
        }
    }

    /// The seats of other sides, the leader (highest total) first, then clockwise from me.
    pub(crate) fn opponents_by_threat(&self) -> Vec<Seat> {
        let mut seats: Vec<Seat> = (1..self.players)
            .map(|k| (self.me + k) % self.players)
            .filter(|s| self.side(*s) != self.side(self.me))
            .collect();
        let total = |s: &Seat| self.side_totals.get(self.side(*s)).copied().unwrap_or(0);
        seats.sort_by_key(|s| std::cmp::Reverse(total(s)));
        seats
    }

    /// This seat's side's total and the highest total of the other sides.
    fn standing(&self) -> (u32, u32) {
        let total = |side: usize| self.side_totals.get(side).copied().unwrap_or(0);
        let mine = self.side(self.me);
        let best = (0..self.side_totals.len())
            .filter(|side| *side != mine)
            .map(total)
            .max()
            .unwrap_or(0);
        (total(mine), best)
    }

    /// The run bonus (R7.2) beyond which a Racko call by this seat wins the game no more
    /// surely: enough to reach the target ahead of every other side, which scores at most 55
    /// points of ordered start (R5.2). 0 when the call's 90 alone does it.
    pub(crate) fn bonus_needed(&self) -> u32 {
        let (mine, best) = self.standing();
        let called = mine + 90;
        self.target
            .saturating_sub(called)
            .max((best + 56).saturating_sub(called))
    }

    /// How far this seat's side trails the leading other side, as a share of the target (0
    /// when it leads).
    pub(crate) fn behind(&self) -> f32 {
        let (mine, best) = self.standing();
        best.saturating_sub(mine) as f32 / self.target.max(1) as f32
    }

    /// The number cards a draw may bring: the unseen ones, or with an empty stock the discards
    /// below the top, which are shuffled into a new one (R3.6).
    pub(crate) fn drawable(&self) -> impl Iterator<Item = u16> + '_ {
        let from_discard = self.stock_size == 0;
        (1..=self.max).filter(move |&v| {
            if from_discard {
                self.discarded[usize::from(v)] && self.top != Some(Card::Number { value: v })
            } else {
                self.unseen[usize::from(v)]
            }
        })
    }

    /// The slot index a value belongs to on an evenly spread rack.
    pub(crate) fn band(&self, value: u16) -> usize {
        (usize::from(value.saturating_sub(1)) * 12 / usize::from(self.max.max(1))).min(11)
    }
}
