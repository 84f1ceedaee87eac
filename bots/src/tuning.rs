//! The weights of the cost (`eval::Field`): one set per level, and the sets the arena tunes.

/// The weights of the cost, one set per level that uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// How much a card in the discard pile counts, against 1 for an unseen card.
    pub discard_weight: f32,
    /// Extra cost per slot that not even every unseen joker could fill.
    pub short_penalty: f32,
    /// How much of each unseen joker counts towards every slot still to fill (0: jokers only
    /// rescue short gaps).
    pub joker_share: f32,
    /// The exponent of a gap's slot count: 2 is `g²·S/c`, 1 is filling the slots in parallel.
    pub gap_power: f32,
    /// With Bonus (R7.2): draws of cost one point of the rack's run bonus is worth.
    pub bonus_weight: f32,
    /// Where a card goes is chosen by the cost expected after one more draw (expert only).
    pub lookahead: bool,
    /// The cost (draws) a rack swap leaves this seat with: the rack it gets in exchange, as
    /// far as it can guess. 0: a drawn rack swap is valued as leaving the rack as it is.
    pub rival_cost: f32,
    /// Draws of cost that leaving the most wanted card (a 1 or the highest number) on the
    /// discard pile for the next seat is worth; middle cards count less (`Field::feed`).
    pub feed_weight: f32,
    /// How much of the draws a laid card saves the next seat (an opponent whose rack this seat
    /// knows well enough from public facts, R8.1) counts against laying it.
    pub deny_weight: f32,
    /// How much of the draws a card swap costs that rack counts for the swap.
    pub harm_weight: f32,
    /// A rack swap drawn hands this seat the other rack and the other seat this one: with the
    /// other rack known well enough, the draw is valued as `now + swap_weight · (theirs − now)`.
    pub swap_weight: f32,
    /// With Bonus: the chance counted for each slot a run still waits for (`runs::potential`);
    /// 0 counts only the run the rack holds.
    pub run_chance: f32,
    /// Draws of cost one card of the rack's ordered prefix is worth (it scores 5 points when
    /// another seat calls Racko, R5.2).
    pub prefix_weight: f32,
    /// The slots of another rack this seat must know before it reasons about that rack.
    pub known_min: f32,
    /// With 2 players and the other rack known well enough: above 0 plays the race, valuing
    /// every draw's outcomes by the chance to lose the round (`Field::score`) rather than by
    /// draws; the other rack's draws count this many times (its player may be slower).
    pub race: f32,
    /// Draws of cost laying the card costs that would order the next seat's known rack.
    pub finish_guard: f32,
    /// With Bonus, above 0: a run's bonus counts only up to what the call needs to win the
    /// game (`Sight::bonus_needed`); points beyond it change nothing.
    pub bonus_cap: f32,
    /// With Bonus: a run's worth grows by this share for each target's worth of points this
    /// seat trails the leader by (far behind, only big calls catch up).
    pub bonus_behind: f32,
}

impl Tuning {
    /// The `strong` level's weights: the plain cost, and the other rack where public facts
    /// show most of it (the expert's cheapest features, which lift it over `max` most).
    pub const STRONG: Tuning = Tuning {
        discard_weight: 0.35,
        short_penalty: 4.0,
        joker_share: 0.0,
        gap_power: 2.0,
        bonus_weight: 0.0,
        lookahead: false,
        rival_cost: 0.0,
        feed_weight: 0.0,
        deny_weight: 0.1,
        harm_weight: 0.5,
        swap_weight: 0.5,
        run_chance: 0.0,
        prefix_weight: 0.0,
        known_min: 10.0,
        race: 0.0,
        finish_guard: 0.0,
        bonus_cap: 0.0,
        bonus_behind: 0.0,
    };
}
