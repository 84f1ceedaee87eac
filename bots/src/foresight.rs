//! A measuring player for the arena only, never a [`crate::Level`]: it plans with the whole
//! hidden state (R8 forbids a seat that: the stock's order, every rack) and with the other
//! seats' own players, to measure what perfect foresight in placing and drawing is worth.
//!
//! At each of its choices (take or draw, R3.1; where a drawn card goes, R3.2) it shortlists
//! the expert's best options, plays the round to its end from each on a copy of the game
//! (itself by the expert's cost, the other seats by their real players, every seat calling
//! Racko as soon as it may) and keeps the option whose round ends best for it: the future it
//! plays out is the true one. `docs/bots.md` (eighth round) has what it wins.

use racko_rules::{Action, Event, Game, Phase, Seat, TurnStage, View, Viewer};

use crate::eval::Field;
use crate::sight::Sight;
use crate::strong::{slot_card, with_card};
use crate::tuning::Tuning;

/// Where the cheat plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Every take-or-draw choice and every placing.
    All,
    /// Only where a card goes (the slot of a take the expert chose, a drawn card's slot):
    /// the take-or-draw choice stays the expert's.
    Placing,
    /// As `All`, but seeing only this many turns ahead (every seat's turns counted): a round
    /// not ended by then is valued by the chance each rack orders first.
    Turns(u32),
}

/// The other seats' players, as the arena seats them: `(seat, view)` to an action.
pub type Others<'a> = dyn FnMut(Seat, &View) -> Option<Action> + 'a;

/// Options shortlisted besides the expert's own choice.
const WIDTH: usize = 4;

/// Actions a rollout may take before it gives up on the round.
const LIMIT: usize = 600;

/// The expert's play with `tuning`, but at the choices `reach` names it plays each
/// shortlisted option out against the true future and keeps the best.
pub fn decide(
    tuning: Tuning,
    reach: Reach,
    game: &Game,
    seat: Seat,
    view: &View,
    others: &mut Others<'_>,
) -> Option<Action> {
    let base = crate::decide_expert_with(tuning, view)?;
    if !plans(game, seat, base) {
        return Some(base);
    }
    let candidates = shortlist(tuning, reach, base, view);
    if candidates.len() < 2 {
        return Some(base);
    }
    let quick = quick(tuning);
    let mut best = (base, f32::NEG_INFINITY);
    for action in candidates {
        let Some(worth) = play_out(game, seat, action, quick, reach, others) else {
            continue;
        };
        // Strictly better only: ties keep the expert's order (its own choice first).
        if worth > best.1 {
            best = (action, worth);
        }
    }
    Some(best.0)
}

/// The rollouts play the expert without its lookahead: as strong, ten times faster.
pub fn quick(tuning: Tuning) -> Tuning {
    Tuning {
        lookahead: false,
        ..tuning
    }
}

/// Where the cheat plans at all: its own turn, taking or drawing or placing, not calling.
fn plans(game: &Game, seat: Seat, base: Action) -> bool {
    let stage = match game.phase() {
        Phase::Turn { seat: s, stage } if *s == seat => *stage,
        _ => return false,
    };
    base != Action::CallRacko && matches!(stage, TurnStage::Begin | TurnStage::Drawn)
}

/// `seat` takes `action` in `game` and the round is played to its end (see [`rollout`]):
/// the round's points of `seat` less the best of the others'. None for an illegal action.
pub fn play_out(
    game: &Game,
    seat: Seat,
    action: Action,
    quick: Tuning,
    reach: Reach,
    others: &mut Others<'_>,
) -> Option<f32> {
    let (next, events) = game.apply(seat, &action).ok()?;
    let turns = match reach {
        Reach::Turns(t) => Some(t),
        _ => None,
    };
    Some(match ended(&events, seat) {
        Some(w) => w,
        None => rollout(next, seat, quick, turns, others),
    })
}

/// The expert's choice `base` first, then the options the cost ranks best (and drawing or
/// discarding the drawn card), from the view alone.
pub fn shortlist(tuning: Tuning, reach: Reach, base: Action, view: &View) -> Vec<Action> {
    let Some(sight) = Sight::of(view) else {
        return vec![base];
    };
    let sight = &sight;
    let legal = &view.legal_actions;
    let field = Field::new(sight, tuning);
    let card = match (sight.stage, base) {
        (Some(TurnStage::Begin), Action::TakeDiscard { .. }) => slot_card(sight.top),
        (Some(TurnStage::Begin), _) if reach != Reach::Placing => slot_card(sight.top),
        (Some(TurnStage::Drawn), _) => slot_card(sight.drawn),
        _ => return vec![base],
    };
    let mut ranked: Vec<(Action, f32)> = legal
        .iter()
        .filter_map(|a| match a {
            Action::TakeDiscard { slot } | Action::PlaceDrawn { slot } => {
                Some((*a, field.cost(&with_card(&sight.rack, *slot, card))))
            }
            _ => None,
        })
        .collect();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut out = vec![base];
    for (a, _) in ranked.into_iter().take(WIDTH) {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    let keep = match sight.stage {
        Some(TurnStage::Begin) if reach != Reach::Placing => Some(Action::Draw),
        Some(TurnStage::Drawn) => Some(Action::DiscardDrawn),
        _ => None,
    };
    if let Some(a) = keep.filter(|a| legal.contains(a) && !out.contains(a)) {
        out.push(a);
    }
    out
}

/// The round's points of `me` less the best of the other seats', when `events` end it.
fn ended(events: &[Event], me: Seat) -> Option<f32> {
    events.iter().find_map(|e| match e {
        Event::RoundEnded { scores, .. } => {
            let mine = scores.get(usize::from(me)).copied().unwrap_or(0);
            let theirs = scores
                .iter()
                .enumerate()
                .filter(|(s, _)| *s != usize::from(me))
                .map(|(_, v)| *v)
                .max()
                .unwrap_or(0);
            Some(mine as f32 - theirs as f32)
        }
        _ => None,
    })
}

/// Plays the round on to its end: `me` by the expert's cost, the others by their players.
fn rollout(
    mut game: Game,
    me: Seat,
    quick: Tuning,
    turns: Option<u32>,
    others: &mut Others<'_>,
) -> f32 {
    let players = game.options().players;
    let mut left = turns.unwrap_or(u32::MAX);
    for _ in 0..LIMIT {
        let Some(&on) = game.awaiting().first() else {
            return 0.0;
        };
        if left == 0 {
            return race(&game, me, quick);
        }
        // Every player at the arena's table calls Racko as soon as it may, off turn too.
        let caller = (0..players)
            .map(|k| (on + k) % players)
            .find(|s| *s != on && game.legal_actions(*s).contains(&Action::CallRacko));
        let (seat, action) = match caller {
            Some(s) => (s, Action::CallRacko),
            None => {
                let view = game.view(Viewer::Seat { seat: on });
                let action = if on == me {
                    crate::decide_expert_with(quick, &view)
                } else {
                    others(on, &view)
                };
                match action {
                    Some(a) => (on, a),
                    None => return 0.0,
                }
            }
        };
        if matches!(action, Action::Draw | Action::TakeDiscard { .. }) {
            left = left.saturating_sub(1);
        }
        let Ok(events) = game.apply_mut(seat, &action) else {
            return 0.0;
        };
        if let Some(worth) = ended(&events, me) {
            return worth;
        }
    }
    0.0
}

/// A round cut short, as round points: each rack orders with a steady chance per turn of one
/// over its expected draws (by the expert's cost, from its own seat's view), the first to
/// order wins about 75 points net.
fn race(game: &Game, me: Seat, quick: Tuning) -> f32 {
    let draws = |seat: Seat| {
        Sight::of(&game.view(Viewer::Seat { seat }))
            .map_or(30.0, |s| Field::new(&s, quick).cost(&s.rack).max(0.05))
    };
    let mine = draws(me);
    let theirs = (0..game.options().players)
        .filter(|s| *s != me)
        .map(draws)
        .fold(f32::INFINITY, f32::min);
    150.0 * theirs / (mine + theirs) - 75.0
}
