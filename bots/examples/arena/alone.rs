//! Solo deals: one rack, the 2-player deck, no opponent, counting turns to an ordered rack.

use crate::players::Player;
use racko_rules::score::in_order;
use racko_rules::{Action, Card, Options, Phase, Slot, SlotCard, TurnStage, View, Viewer};

/// One solo deal: turns from the deal until the rack is in order (cut off at 2,000).
pub fn alone(player: Player, deal: u64) -> u32 {
    let options = Options::default();
    let counts = options.deck_counts();
    let mut rng = deal.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1;
    let mut below = |n: usize| -> usize {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        (rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    };
    let shuffle = |cards: &mut Vec<Card>, below: &mut dyn FnMut(usize) -> usize| {
        for i in (1..cards.len()).rev() {
            cards.swap(i, below(i + 1));
        }
    };
    let mut numbers: Vec<Card> = (1..=counts.max_number)
        .map(|value| Card::Number { value })
        .collect();
    shuffle(&mut numbers, &mut below);
    let mut rack: Vec<Card> = numbers.drain(..12).collect();
    let mut stock = numbers;
    for (card, count) in counts.others() {
        stock.extend(std::iter::repeat_n(card, usize::from(count)));
    }
    shuffle(&mut stock, &mut below);
    let mut discard = vec![stock.pop().expect("a full deck")];
    let mut turns = 0;
    let mut step = 0u64;
    while !in_order(&rack) && turns < 2000 {
        turns += 1;
        let mut drawn: Option<Card> = None;
        loop {
            let stage = if drawn.is_some() {
                TurnStage::Drawn
            } else {
                TurnStage::Begin
            };
            let mut legal = Vec::new();
            if drawn.is_some() {
                legal.extend(Slot::all().map(|slot| Action::PlaceDrawn { slot }));
                legal.push(Action::DiscardDrawn);
            } else {
                if discard.last().is_some_and(Card::is_playable) {
                    legal.extend(Slot::all().map(|slot| Action::TakeDiscard { slot }));
                }
                if !stock.is_empty() || discard.len() > 1 {
                    legal.push(Action::Draw);
                }
            }
            let view = solo_view(&options, &rack, drawn, &discard, stock.len(), stage, legal);
            step += 1;
            let action = player
                .decide(None, &view, deal ^ step)
                .expect("an awaited seat acts");
            match action {
                Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
                    let card = drawn
                        .take()
                        .or_else(|| discard.pop())
                        .expect("a card to place");
                    let i = slot.index().expect("a legal slot");
                    discard.push(std::mem::replace(&mut rack[i], card));
                    break;
                }
                Action::DiscardDrawn => {
                    discard.extend(drawn.take());
                    break;
                }
                Action::Draw => {
                    if stock.is_empty() {
                        let top = discard.pop().expect("a top card");
                        stock = std::mem::take(&mut discard);
                        shuffle(&mut stock, &mut below);
                        discard.push(top);
                    }
                    let card = stock.pop().expect("a card to draw");
                    if card.is_event() {
                        // No opponent: the event is laid away and the turn ends.
                        discard.push(card);
                        break;
                    }
                    drawn = Some(card);
                }
                other => panic!("{other:?} in a solo turn"),
            }
        }
    }
    turns
}

fn solo_view(
    options: &Options,
    rack: &[Card],
    drawn: Option<Card>,
    discard: &[Card],
    stock_size: usize,
    stage: TurnStage,
    legal_actions: Vec<Action>,
) -> View {
    View {
        known: Vec::new(),
        viewer: Viewer::Seat { seat: 0 },
        options: options.clone(),
        phase: Phase::Turn { seat: 0, stage },
        round: 1,
        dealer: Some(1),
        start_seat: Some(0),
        turn: Some(0),
        awaiting: vec![0],
        rack: Some(
            rack.iter()
                .enumerate()
                .map(|(i, card)| SlotCard {
                    slot: Slot::from_index(i),
                    card: Some(*card),
                })
                .collect(),
        ),
        racks: None,
        drawn,
        blitz_card: None,
        blitz_placed: Vec::new(),
        discard: discard.to_vec(),
        stock_size: stock_size as u32,
        seed_commitment: None,
        round_scores: Vec::new(),
        totals: vec![0, 0],
        team_totals: None,
        legal_actions,
        last_round: None,
        winners: None,
        resigned: Vec::new(),
        timeouts: vec![0, 0],
    }
}
