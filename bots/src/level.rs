//! The levels of play a computer seat can have.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How well a computer seat plays; each level is its own algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Uniform over the legal actions: a baseline.
    Random,
    /// Each slot wants its band of values; takes the discard when it fits, else draws.
    Basic,
    /// Counts the cards it has not seen and plays for the fastest ordered rack.
    Strong,
    /// As `strong`, by a cost tuned in self-play: values the unseen jokers, plays for runs
    /// with Bonus. The best level.
    Expert,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Random, Level::Basic, Level::Strong, Level::Expert];
    /// The best level: it plays resigned seats (R10.3) and gives hints.
    pub const BEST: Level = Level::Expert;

    /// The snake_case name (as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Basic => "basic",
            Level::Strong => "strong",
            Level::Expert => "expert",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLevel(pub String);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown level {:?} (random, basic, strong or expert)",
            self.0
        )
    }
}

impl std::error::Error for UnknownLevel {}

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|level| level.name() == s)
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_in_text_and_json() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
            let json = serde_json::to_string(&level).unwrap();
            assert_eq!(json, format!("\"{}\"", level.name()));
            assert_eq!(serde_json::from_str::<Level>(&json).unwrap(), level);
        }
        assert!("Strong".parse::<Level>().is_err());
    }
}
