//! Whole games between computer players, played with the rules alone: for the tests and the
//! arena. Each seat's player sees only `Game::view` of its seat.

use racko_rules::{Action, Event, Game, Options, RoundDeal, RoundEnd, Seat, Seed, View, Viewer};

use crate::dice::Dice;

/// One ended round.
#[derive(Clone, Debug)]
pub struct RoundRecord {
    /// By seat.
    pub scores: Vec<u32>,
    /// Turns played in the round, all seats together (a turn begins with a draw or a take).
    pub turns: u32,
    /// How it ended.
    pub end: RoundEnd,
    /// Rack swaps (R3.4) carried out in the round.
    pub rack_swaps: u32,
}

/// One game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Empty when the game was cut off at the action limit.
    pub winners: Vec<Seat>,
    pub totals: Vec<u32>,
    pub rounds: Vec<RoundRecord>,
    pub actions: usize,
}

impl GameRecord {
    pub fn finished(&self) -> bool {
        !self.winners.is_empty()
    }
}

/// The 32-byte seed of round `round` of game `game` (deterministic, so runs compare).
pub fn round_seed(game: u64, round: u32) -> Seed {
    let mut dice = Dice::new(game ^ u64::from(round).wrapping_mul(0x9e37_79b9));
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&dice.next().to_le_bytes());
    }
    Seed(bytes)
}

/// Plays game `game` under `options` until it ends or `max_actions` actions were taken.
/// `player(seat, view, seed)` answers for a seat as [`crate::decide`] does: after every change,
/// each seat that may call Racko off turn is asked first (clockwise from the seat on turn),
/// then the first awaited seat must act. Errors name a player that broke the rules.
pub fn play_game(
    options: &Options,
    game: u64,
    max_actions: usize,
    mut player: impl FnMut(Seat, &View, u64) -> Option<Action>,
) -> Result<GameRecord, String> {
    play_game_seeing(options, game, max_actions, |_, seat, view, seed| {
        player(seat, view, seed)
    })
}

/// [`play_game`], with the whole game passed to `player` as well: for the arena's measuring
/// players only (`crate::oracle`), which read what a seat may not see. A level never gets it.
pub fn play_game_seeing(
    options: &Options,
    game: u64,
    max_actions: usize,
    mut player: impl FnMut(&Game, Seat, &View, u64) -> Option<Action>,
) -> Result<GameRecord, String> {
    let mut state = Game::new(options.clone()).map_err(|e| e.to_string())?;
    let mut record = GameRecord {
        winners: Vec::new(),
        totals: Vec::new(),
        rounds: Vec::new(),
        actions: 0,
    };
    let mut dice = Dice::new(game.rotate_left(17) ^ 0x5151);
    let mut turns = 0u32;
    let mut rack_swaps = 0u32;
    let players = options.players;
    while record.actions < max_actions {
        if state.needs_round() {
            let deal = RoundDeal {
                seed: round_seed(game, state.round() + 1),
                stacked: None,
            };
            state.start_round_mut(&deal).map_err(|e| e.to_string())?;
            turns = 0;
            rack_swaps = 0;
            continue;
        }
        if state.is_over() {
            break;
        }
        let awaiting = state.awaiting();
        let first = awaiting.first().copied().unwrap_or(0);
        let mut acted: Option<(Seat, Action)> = None;
        for k in 0..players {
            let seat = (first + k) % players;
            if awaiting.contains(&seat) || !state.legal_actions(seat).contains(&Action::CallRacko) {
                continue;
            }
            let view = state.view(Viewer::Seat { seat });
            if let Some(action) = player(&state, seat, &view, dice.next()) {
                acted = Some((seat, action));
                break;
            }
        }
        let (seat, action) = match acted {
            Some(done) => done,
            None => {
                let seat = *awaiting.first().ok_or("nobody may act")?;
                let view = state.view(Viewer::Seat { seat });
                let action = player(&state, seat, &view, dice.next())
                    .ok_or_else(|| format!("seat {seat} is awaited and gave no action"))?;
                (seat, action)
            }
        };
        if matches!(action, Action::Draw | Action::TakeDiscard { .. }) {
            turns += 1;
        }
        let events = state
            .apply_mut(seat, &action)
            .map_err(|e| format!("seat {seat} chose {action:?}: {e}"))?;
        record.actions += 1;
        for event in events {
            match event {
                Event::RoundEnded { end, scores, .. } => record.rounds.push(RoundRecord {
                    scores,
                    turns,
                    end,
                    rack_swaps,
                }),
                Event::RacksSwapped { .. } => rack_swaps += 1,
                _ => {}
            }
        }
    }
    record.totals = state.totals().to_vec();
    if let racko_rules::Phase::GameOver { winners } = state.phase() {
        record.winners = winners.clone();
    }
    Ok(record)
}
