//! Ratings: Weng-Lin (the OpenSkill method, through the `skillratings` crate) from a finished
//! game's standings, free-for-all for 2 to 4 players and two teams with Partner. See
//! docs/ratings.md for the choices (pools, the rating shown, provisional ratings, who may
//! play rated games).
//!
//! The change that ends a game carries its [`GameEnd`] (every seat's result and, when the game
//! is rated, how ratings move); the store writes it in that change's transaction.

use racko_rules::{Game, Options, Phase, Seat, Viewer};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

use super::{Caller, Service};
use crate::error::{Code, ServiceError};
use crate::store::{GameEnd, GameRecord, Rater, SeatRecord, SeatResult, Skill};

/// A rating stays provisional (shown so, and left off the leaderboard) until this many rated
/// games in its pool.
pub const PROVISIONAL_GAMES: i32 = 10;
/// The rating shown is `SHOWN_BASE + SHOWN_SCALE * (mu - 25)`: a newcomer shows 1500, and a
/// sigma of 25/3 is about Glicko's 350 points of deviation.
pub const SHOWN_BASE: f64 = 1500.0;
pub const SHOWN_SCALE: f64 = 40.0;
/// The shown rating is kept within the bounds a seek's `rating_range` may name.
pub const MIN_SHOWN: i32 = 0;
pub const MAX_SHOWN: i32 = 4000;

/// A rated table is for registered people: no computer seat (a computer's strength is set,
/// not learnt, and games against it would feed ratings with a free source of points) and no
/// guest.
pub fn check_rated_table(
    store: &Service,
    caller: &Caller,
    computers: bool,
) -> Result<(), ServiceError> {
    if computers {
        return Err(ServiceError::new(
            Code::RatedWithComputer,
            "a rated game has no computer seats: play it casual (rated: false)",
        ));
    }
    if is_guest(store, caller)? {
        return Err(guest_refused());
    }
    Ok(())
}

pub(super) fn is_guest(store: &Service, caller: &Caller) -> Result<bool, ServiceError> {
    Ok(store.account(caller.id)?.is_none_or(|a| a.guest))
}

/// Guests play casual games only: a rating needs an account that keeps it, and a guest can
/// be made again at will (a new guest would start from a fresh rating each time).
pub(super) fn guest_refused() -> ServiceError {
    ServiceError::new(
        Code::RatedNeedsAccount,
        "guests play casual games only: register to play rated games",
    )
}

/// The rating pool of a game's options: the variant family and the player count. Bonus and
/// Blitz change scoring and the deal, not who is the better player, so they share the pool.
pub fn pool_of(options: &Options) -> String {
    pool_key(options.partner, options.players)
}

/// `standard_2`, `standard_3`, `standard_4` or `partner_4`.
pub fn pool_key(partner: bool, players: u8) -> String {
    if partner {
        "partner_4".to_string()
    } else {
        format!("standard_{players}")
    }
}

/// The final standings of a finished game, per seat: its side (the seat, or its team with
/// Partner, R7.1) and the side's rank, 1 the best, ties sharing a rank. A side that did not
/// resign ranks above one that did (R10.3: resigning loses, whatever the totals); among equals
/// the higher total (the team total with Partner) ranks higher.
pub fn standings(game: &Game) -> Vec<(u8, u32)> {
    let options = game.options();
    let players = options.players;
    let side = |seat: Seat| if options.partner { seat % 2 } else { seat };
    let totals = game.totals();
    let side_total = |s: u8| -> u64 {
        (0..players)
            .filter(|seat| side(*seat) == s)
            .map(|seat| u64::from(totals.get(usize::from(seat)).copied().unwrap_or(0)))
            .sum()
    };
    let side_resigned = |s: u8| (0..players).any(|seat| side(seat) == s && game.resigned(seat));
    // Lower is better: not resigned first, then the higher total.
    let key = |s: u8| (side_resigned(s), std::cmp::Reverse(side_total(s)));
    (0..players)
        .map(|seat| {
            let mine = key(side(seat));
            let sides = if options.partner { 2 } else { players };
            let better = (0..sides).filter(|other| key(*other) < mine).count();
            (side(seat), better as u32 + 1)
        })
        .collect()
}

/// What the change that finishes `game` writes besides it: each seat's result, and (for a
/// rated game) how its players' ratings move. `state` and `seats` are the game as it ends.
pub fn game_end(game: &GameRecord, state: &Game, seats: &[SeatRecord]) -> GameEnd {
    let winners: &[Seat] = match state.phase() {
        Phase::GameOver { winners } => winners,
        _ => &[],
    };
    let ranks = standings(state);
    // Rounds are scored in order, so the last scored one's number counts them (a round a
    // resignation cut short is not scored, R10.3).
    let last = state.view(Viewer::Everyone).last_round;
    let rounds = last.map_or(0, |r| r.round);
    let results = seats
        .iter()
        .map(|seat| {
            let (side, rank) = ranks
                .get(usize::from(seat.seat))
                .copied()
                .unwrap_or((seat.seat, 1));
            SeatResult {
                account_id: seat.account_id,
                side,
                rank,
                won: winners.contains(&seat.seat),
                points: state
                    .totals()
                    .get(usize::from(seat.seat))
                    .copied()
                    .unwrap_or(0),
                rounds,
            }
        })
        .collect();
    GameEnd {
        pool: pool_of(&game.options),
        results,
        rater: game.access.rated.then_some(RATER),
    }
}

/// Weng-Lin with the crate's defaults (beta 25/6): a new rating is mu 25, sigma 25/3.
pub const RATER: Rater = Rater {
    rate,
    shown,
    fresh: Skill {
        mu: 25.0,
        sigma: 25.0 / 3.0,
    },
};

/// Each side's new skills from the sides' skills and ranks (one Weng-Lin update).
pub fn rate(sides: &[(Vec<Skill>, u32)]) -> Vec<Vec<Skill>> {
    let teams: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|(skills, _)| {
            skills
                .iter()
                .map(|s| WengLinRating {
                    rating: s.mu,
                    uncertainty: s.sigma,
                })
                .collect()
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(sides)
        .map(|(team, (_, rank))| (&team[..], MultiTeamOutcome::new(*rank as usize)))
        .collect();
    weng_lin_multi_team(&ranked, &WengLinConfig::new())
        .into_iter()
        .map(|team| {
            team.into_iter()
                .map(|r| Skill {
                    mu: r.rating,
                    sigma: r.uncertainty,
                })
                .collect()
        })
        .collect()
}

/// The rating shown for a skill (see [`SHOWN_SCALE`]).
pub fn shown(skill: Skill) -> i32 {
    let shown = (SHOWN_BASE + SHOWN_SCALE * (skill.mu - 25.0)).round();
    // In range by the clamp, so the cast cannot wrap.
    shown.clamp(f64::from(MIN_SHOWN), f64::from(MAX_SHOWN)) as i32
}

/// The deviation shown beside a rating: sigma on the shown scale.
pub fn shown_deviation(skill: Skill) -> i32 {
    (SHOWN_SCALE * skill.sigma)
        .round()
        .clamp(0.0, f64::from(MAX_SHOWN)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newcomer_shows_1500_and_a_win_moves_both_ratings() {
        assert_eq!(shown(RATER.fresh), 1500);
        let after = rate(&[(vec![RATER.fresh], 1), (vec![RATER.fresh], 2)]);
        assert!(after[0][0].mu > 25.0 && after[1][0].mu < 25.0, "{after:?}");
        assert!(after[0][0].sigma < RATER.fresh.sigma);
        let tied = rate(&[(vec![RATER.fresh], 1), (vec![RATER.fresh], 1)]);
        assert!((tied[0][0].mu - 25.0).abs() < 1e-9, "{tied:?}");
    }
}
