//! Whole sample games, for the audit tests, the benchmark, the timing tool and the load tool:
//! every choice is made from the player's own view (what a client sees) by the computer
//! players' `basic` level.
//!
//! Not part of the server: only the workspace's examples, tests and benchmarks use it (a
//! dev-dependency of `racko`).

use racko::service::audit::export::{ExportHead, GameExport};
use racko::service::{log_event::SeatedPlayer, log_page::EventEntry, LogEvent};
use racko::store::GameStatus;
use racko_bots::Level;
use racko_rules::{Action, Event, Game, Input, Options, Phase, RoundDeal, Seed, View, Viewer};

/// The action the sample player takes from `view`, if any is legal for it: the computer
/// players' `basic` level (each slot kept to its band of numbers, Racko called when possible).
pub fn choose(view: &View) -> Option<Action> {
    racko_bots::decide(Level::Basic, view, 0)
}

/// The seed of round `round` of sample game `game` (deterministic, so runs compare).
pub fn round_seed(game: u64, round: u32) -> Seed {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&game.to_le_bytes());
    bytes[8..12].copy_from_slice(&round.to_le_bytes());
    bytes[31] = 0x5a;
    Seed(bytes)
}

/// Plays sample game `game` with the rules alone until it ends (or `max_actions` actions);
/// returns the full events in order.
pub fn play(options: &Options, game: u64, max_actions: usize) -> Result<Vec<Event>, String> {
    let mut state = Game::new(options.clone()).map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    let mut actions = 0;
    while !state.is_over() && actions < max_actions {
        let input = if state.needs_round() {
            let seed = round_seed(game, state.round() + 1);
            Input::Deal(RoundDeal {
                seed,
                stacked: None,
            })
        } else {
            let seat = match state.phase() {
                Phase::Turn { seat, .. } | Phase::ChoosingDeal { dealer: seat } => *seat,
                _ => state.awaiting().first().copied().ok_or("nobody may act")?,
            };
            let action = choose(&state.view(Viewer::Seat { seat })).ok_or("no legal action")?;
            actions += 1;
            Input::Act { seat, action }
        };
        events.extend(state.play_mut(&input).map_err(|e| e.to_string())?);
    }
    Ok(events)
}

/// The complete export of a game played by [`play`] (as a server would write it once the game
/// has ended), with players named `names` and one event per millisecond from `start`.
pub fn export(
    game_id: uuid::Uuid,
    options: &Options,
    names: &[&str],
    events: Vec<Event>,
    start: chrono::DateTime<chrono::Utc>,
) -> GameExport {
    let players: Vec<SeatedPlayer> = (0u8..)
        .zip(names)
        .map(|(seat, name)| SeatedPlayer {
            seat,
            username: name.to_string(),
        })
        .collect();
    let mut log = vec![(
        Some(0),
        LogEvent::GameCreated {
            options: options.clone(),
            rules_version: racko_rules::RULES_VERSION,
            created_by: names.first().map_or(String::new(), |n| n.to_string()),
        },
    )];
    for p in &players {
        let joined = LogEvent::PlayerJoined {
            seat: p.seat,
            username: p.username.clone(),
        };
        log.push((Some(p.seat), joined));
    }
    log.push((
        None,
        LogEvent::GameStarted {
            players: players.clone(),
        },
    ));
    let mut round = 0;
    let mut entries = Vec::with_capacity(log.len() + events.len());
    let all = log.into_iter().chain(
        events
            .into_iter()
            .map(|e| (e.actor().seat(), LogEvent::Play(e))),
    );
    for (seq, (actor_seat, event)) in (1i64..).zip(all) {
        if let LogEvent::Play(Event::RoundStarted { round: r, .. }) = &event {
            round = *r;
        }
        entries.push(EventEntry {
            seq,
            round: if matches!(event, LogEvent::Play(_)) {
                round
            } else {
                0
            },
            kind: event.kind().to_string(),
            actor_seat,
            at: start + chrono::Duration::milliseconds(seq),
            event,
        });
    }
    GameExport::new(ExportHead {
        game_id,
        rules_version: racko_rules::RULES_VERSION,
        options: options.clone(),
        status: GameStatus::Finished,
        rated: false,
        viewer: Viewer::Everyone,
        seats: players,
        exported_at: start,
        events: entries,
    })
}
