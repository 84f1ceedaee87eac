//! One entry of a game's log: what its stored payload holds (a `LogEvent`), and its projection
//! for a viewer.
//!
//! A payload is a `LogEvent` as JSON with a `type` tag. The service's own events (lobby facts)
//! have their own tags; the rules' events are stored as they are, so their `type` tags
//! (`round_started`, `drew`, …) stay as the rules crate names them. The two sets of tags never
//! overlap, so one flat `type` field tells every event apart.

use racko_rules::{Event, Options, Seat, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{schema::Schema, OneOfBuilder, Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};
use uuid::Uuid;

use crate::error::ServiceError;
use crate::store::{NewEvent, SeatRecord};

/// A player at the table, as recorded when the game started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatedPlayer {
    pub seat: Seat,
    pub username: String,
}

impl SeatedPlayer {
    /// The players of these seats, in seat order as given.
    pub fn all(seats: &[SeatRecord]) -> Vec<SeatedPlayer> {
        seats
            .iter()
            .map(|s| SeatedPlayer {
                seat: s.seat,
                username: s.username.clone(),
            })
            .collect()
    }
}

/// One entry of a game's log. (Its OpenAPI schema is written out below.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogEvent {
    /// The game was set up; the rules version it is played under (R9.2: a replay needs it).
    GameCreated {
        options: Options,
        rules_version: u32,
        created_by: String,
    },
    PlayerJoined {
        seat: Seat,
        username: String,
    },
    PlayerLeft {
        seat: Seat,
        username: String,
    },
    /// The creator left the open game, which closes it for good.
    GameCancelled {
        by: String,
    },
    /// Every seat was taken; round 1 is dealt next.
    GameStarted {
        players: Vec<SeatedPlayer>,
    },
    /// A fact of play from the rules (its own `type` tag).
    #[serde(untagged)]
    Play(Event),
}

/// Schema only: `LogEvent`'s lobby facts as they serialize. utoipa cannot describe a tagged
/// enum with an untagged variant, so `LogEvent`'s schema is this one plus the rules' `Event`;
/// a test keeps the two enums serializing alike.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
enum LobbyFact {
    /// The game was set up; the rules version it is played under (R9.2: a replay needs it).
    GameCreated {
        options: Options,
        rules_version: u32,
        created_by: String,
    },
    PlayerJoined {
        seat: Seat,
        username: String,
    },
    PlayerLeft {
        seat: Seat,
        username: String,
    },
    /// The creator left the open game, which closes it for good.
    GameCancelled {
        by: String,
    },
    /// Every seat was taken; round 1 is dealt next.
    GameStarted {
        players: Vec<SeatedPlayer>,
    },
}

impl PartialSchema for LogEvent {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new()
            .description(Some("A lobby fact or a fact of play (the rules' `Event`)"));
        if let RefOr::T(Schema::OneOf(lobby)) = LobbyFact::schema() {
            for item in lobby.items {
                one_of = one_of.item(item);
            }
        }
        one_of.item(Ref::from_schema_name(Event::name())).into()
    }
}

impl ToSchema for LogEvent {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        LobbyFact::schemas(schemas);
        schemas.push((Event::name().into_owned(), Event::schema()));
        Event::schemas(schemas);
    }
}

impl LogEvent {
    /// The serde tag, stored as the event's kind.
    pub fn kind(&self) -> &'static str {
        match self {
            LogEvent::GameCreated { .. } => "game_created",
            LogEvent::PlayerJoined { .. } => "player_joined",
            LogEvent::PlayerLeft { .. } => "player_left",
            LogEvent::GameCancelled { .. } => "game_cancelled",
            LogEvent::GameStarted { .. } => "game_started",
            LogEvent::Play(event) => event.kind(),
        }
    }

    /// The event as `viewer` may see it (R8). Lobby facts are public; rules events are
    /// projected by the rules. `round_closed`: the event's round has ended.
    pub fn for_viewer(&self, viewer: Viewer, round_closed: bool) -> LogEvent {
        match self {
            LogEvent::Play(event) => LogEvent::Play(event.for_viewer(viewer, round_closed)),
            other => other.clone(),
        }
    }

    /// Who may be named as the event's actor, given the account whose request or move led to
    /// it: a rules event has one only when it records a seat's own choice (`Event::actor`: a
    /// move, a player's resignation). The server's inputs and what follows from the rules
    /// (`turn_started`, `round_ended`, a deal after `deal_chosen`) have none, whoever's move
    /// they followed, so a person's and the computer's moves read alike. Lobby facts keep the
    /// account that made them.
    pub fn actor(&self, actor: Option<Uuid>) -> Option<Uuid> {
        match self {
            LogEvent::Play(event) => actor.filter(|_| event.actor().seat().is_some()),
            _ => actor,
        }
    }

    /// The entry to append: `round` is the round the event belongs to (0 before the first deal).
    /// The actor is kept only where [`LogEvent::actor`] allows one.
    pub fn to_new(&self, round: u32, actor: Option<Uuid>) -> Result<NewEvent, ServiceError> {
        Ok(NewEvent {
            round,
            kind: self.kind().to_string(),
            actor: self.actor(actor),
            payload: serde_json::to_value(self).map_err(ServiceError::internal)?,
        })
    }

    /// Reads a stored payload; a payload that does not parse is a server fault.
    pub fn from_payload(payload: &serde_json::Value) -> Result<LogEvent, ServiceError> {
        LogEvent::deserialize(payload).map_err(ServiceError::internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use racko_rules::{Card, Seed};

    #[test]
    fn the_schema_mirror_serializes_like_the_lobby_facts() {
        let pairs = [
            (
                LogEvent::GameCreated {
                    options: Options::default(),
                    rules_version: 1,
                    created_by: "ann".into(),
                },
                LobbyFact::GameCreated {
                    options: Options::default(),
                    rules_version: 1,
                    created_by: "ann".into(),
                },
            ),
            (
                LogEvent::PlayerJoined {
                    seat: 1,
                    username: "bea".into(),
                },
                LobbyFact::PlayerJoined {
                    seat: 1,
                    username: "bea".into(),
                },
            ),
            (
                LogEvent::PlayerLeft {
                    seat: 1,
                    username: "bea".into(),
                },
                LobbyFact::PlayerLeft {
                    seat: 1,
                    username: "bea".into(),
                },
            ),
            (
                LogEvent::GameCancelled { by: "ann".into() },
                LobbyFact::GameCancelled { by: "ann".into() },
            ),
            (
                LogEvent::GameStarted { players: vec![] },
                LobbyFact::GameStarted { players: vec![] },
            ),
        ];
        for (event, mirror) in pairs {
            let (a, b) = (serde_json::to_value(&event), serde_json::to_value(&mirror));
            assert_eq!(a.expect("event"), b.expect("mirror"));
        }
        let schema = serde_json::to_value(LogEvent::schema()).expect("schema");
        assert_eq!(schema["oneOf"].as_array().map(Vec::len), Some(6));
        assert_eq!(schema["oneOf"][5]["$ref"], "#/components/schemas/Event");
    }

    #[test]
    fn lobby_and_rules_events_round_trip_with_flat_tags() {
        let events = [
            LogEvent::PlayerJoined {
                seat: 1,
                username: "bea".into(),
            },
            LogEvent::Play(Event::Drew {
                seat: 1,
                card: Some(Card::Number { value: 7 }),
            }),
            LogEvent::Play(Event::RoundStarted {
                round: 1,
                dealer: 0,
                start_seat: 1,
                seed_commitment: "c".into(),
                seed: Some(Seed([7; 32])),
                stacked: None,
            }),
        ];
        for event in events {
            let json = serde_json::to_value(&event).expect("serializes");
            assert_eq!(json["type"], event.kind());
            assert_eq!(LogEvent::from_payload(&json).expect("parses"), event);
        }
    }
}
