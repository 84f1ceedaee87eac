//! Who may sit at the arena's table: a level, a sparring partner, `tuned` (the expert
//! level with the weights given by `--tuning`, for tuning runs), or a measuring player that
//! cheats (`oracle`, `swaporacle`: see `racko_bots::oracle`; `foresight`, `placesight`: see
//! `racko_bots::foresight`; never a level).

use std::fmt;

use racko_bots::foresight::{self, Reach};
use racko_bots::learned::{self, Scope, FEATURES};
use racko_bots::oracle::{self, Cheat, Peek};
use racko_bots::sparring::{self, Sparring};
use racko_bots::{decide, decide_expert_with, expert, Level, Tuning};
use racko_rules::{Action, Game, Seat, View};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Player {
    Level(Level),
    Sparring(Sparring),
    Tuned(usize, Tuning),
    /// The expert with the `--tuning` set `k`, whose take-or-draw choice cheats.
    Oracle(Cheat, usize, Tuning),
    /// The expert with the `--tuning` set `k`, planning with the whole hidden state; with
    /// `true`, the other seats' players too, else it takes them to play as the expert.
    Foresight(Reach, usize, Tuning, bool),
    /// The ninth round's learned valuation of the round (`racko_bots::learned`).
    Learned(Scope, Weights),
}

/// The learned model's weights (`--weights`, else `learned::WEIGHTS`).
pub type Weights = [f32; FEATURES];

/// `--weights 0.1,-2,...`: one weight per feature of `learned::NAMES`.
pub fn parse_weights(text: &str) -> Result<Weights, String> {
    let list: Vec<f32> = text
        .split(',')
        .map(|w| {
            w.trim()
                .parse::<f32>()
                .map_err(|e| format!("--weights {w}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    list.try_into()
        .map_err(|_| format!("--weights: write {FEATURES} numbers"))
}

impl Player {
    /// `tunings` are the `--tuning` sets: `tuned` (or `tuned0`) is the first, `tuned1` the next.
    pub fn parse(name: &str, tunings: &[Tuning], weights: Weights) -> Result<Player, String> {
        match name {
            "learned" => return Ok(Player::Learned(Scope::All, weights)),
            "learnedtake" => return Ok(Player::Learned(Scope::Begin, weights)),
            _ => {}
        }
        let set = |k: &str| -> Result<(usize, Tuning), String> {
            let k: usize = if k.is_empty() {
                0
            } else {
                k.parse().map_err(|e| format!("{name}: {e}"))?
            };
            Ok((k, tunings.get(k).copied().unwrap_or(expert::TUNED)))
        };
        if let Some(k) = name.strip_prefix("tuned") {
            let (k, tuning) = set(k)?;
            return Ok(Player::Tuned(k, tuning));
        }
        for (prefix, cheat) in [("swaporacle", Cheat::RackSwap), ("oracle", Cheat::Next)] {
            if let Some(k) = name.strip_prefix(prefix) {
                let (k, tuning) = set(k)?;
                return Ok(Player::Oracle(cheat, k, tuning));
            }
        }
        for (prefix, reach, mind) in [
            ("foresight", Reach::All, true),
            ("placesight", Reach::Placing, true),
            ("cardsight", Reach::All, false),
        ] {
            if let Some(k) = name.strip_prefix(prefix) {
                let (k, tuning) = set(k)?;
                return Ok(Player::Foresight(reach, k, tuning, mind));
            }
        }
        if let Some(t) = name.strip_prefix("horizon") {
            let t = t.parse().map_err(|e| format!("{name}: {e}"))?;
            return Ok(Player::Foresight(Reach::Turns(t), 0, expert::TUNED, true));
        }
        if let Ok(level) = name.parse::<Level>() {
            return Ok(Player::Level(level));
        }
        name.parse::<Sparring>().map(Player::Sparring).map_err(|_| {
            format!("{name}: not a level, a sparring partner (max, band, kyle) or tuned")
        })
    }

    /// `game`: the whole game and the player of the other seats, for the cheats alone
    /// (without it they play as the expert).
    pub fn decide(
        self,
        game: Option<(&Game, Seat, Player)>,
        view: &View,
        seed: u64,
    ) -> Option<Action> {
        match self {
            Player::Level(level) => decide(level, view, seed),
            Player::Sparring(partner) => sparring::decide(partner, view),
            Player::Tuned(_, tuning) => decide_expert_with(tuning, view),
            Player::Learned(scope, weights) => learned::decide(view, scope, weights),
            Player::Oracle(cheat, _, tuning) => match game {
                // The peek costs a copy of the game: only where a draw is to be chosen.
                Some((game, seat, _)) if view.legal_actions.contains(&Action::Draw) => {
                    oracle::decide(tuning, cheat, view, &Peek::of(game, seat))
                }
                _ => decide_expert_with(tuning, view),
            },
            Player::Foresight(reach, _, tuning, mind) => match game {
                Some((game, seat, rival)) => {
                    let quick = foresight::quick(tuning);
                    let mut others = |_: Seat, view: &View| {
                        if mind {
                            rival.decide(None, view, 0)
                        } else {
                            decide_expert_with(quick, view)
                        }
                    };
                    foresight::decide(tuning, reach, game, seat, view, &mut others)
                }
                None => decide_expert_with(tuning, view),
            },
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Level(level) => write!(f, "{level}"),
            Player::Sparring(partner) => write!(f, "{partner}"),
            Player::Tuned(k, _) => write!(f, "tuned{k}"),
            Player::Oracle(Cheat::Next, k, _) => write!(f, "oracle{k}"),
            Player::Oracle(Cheat::RackSwap, k, _) => write!(f, "swaporacle{k}"),
            Player::Foresight(Reach::All, k, _, true) => write!(f, "foresight{k}"),
            Player::Foresight(Reach::All, k, _, false) => write!(f, "cardsight{k}"),
            Player::Foresight(Reach::Placing, k, _, _) => write!(f, "placesight{k}"),
            Player::Foresight(Reach::Turns(t), _, _, _) => write!(f, "horizon{t}"),
            Player::Learned(Scope::All, _) => write!(f, "learned"),
            Player::Learned(Scope::Begin, _) => write!(f, "learnedtake"),
        }
    }
}

/// `--tuning joker_share=0.5,gap_power=1.8/joker_share=0.2`: sets of the expert's weights with
/// some changed, separated by `/` (`tuned0`, `tuned1`, ...).
pub fn parse_tunings(text: &str) -> Result<Vec<Tuning>, String> {
    text.split('/').map(parse_tuning).collect()
}

fn parse_tuning(text: &str) -> Result<Tuning, String> {
    let mut tuning = expert::TUNED;
    for pair in text.split(',').filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or(format!("{pair}: write name=value"))?;
        let value: f32 = value.parse().map_err(|e| format!("{pair}: {e}"))?;
        if name == "lookahead" {
            tuning.lookahead = value != 0.0;
            continue;
        }
        let weight = match name {
            "discard_weight" => &mut tuning.discard_weight,
            "short_penalty" => &mut tuning.short_penalty,
            "joker_share" => &mut tuning.joker_share,
            "gap_power" => &mut tuning.gap_power,
            "bonus_weight" => &mut tuning.bonus_weight,
            "rival_cost" => &mut tuning.rival_cost,
            "feed_weight" => &mut tuning.feed_weight,
            "deny_weight" => &mut tuning.deny_weight,
            "harm_weight" => &mut tuning.harm_weight,
            "swap_weight" => &mut tuning.swap_weight,
            "known_min" => &mut tuning.known_min,
            "prefix_weight" => &mut tuning.prefix_weight,
            "run_chance" => &mut tuning.run_chance,
            "race" => &mut tuning.race,
            "finish_guard" => &mut tuning.finish_guard,
            "bonus_cap" => &mut tuning.bonus_cap,
            "bonus_behind" => &mut tuning.bonus_behind,
            _ => return Err(format!("{name}: no such weight")),
        };
        *weight = value;
    }
    Ok(tuning)
}
