//! The lists: the open lobby (or games to watch) and the caller's own games, the
//! play-by-mail inbox. Entries carry no cards, so no list can show a hidden one. The lobby
//! lists public games only, and of those being played only the ones anyone may watch
//! (`access`); unlisted and private games are found by their players' lists alone.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::view::GameSummary;
use super::{game_error, Caller};
use crate::error::{Code, ServiceError};
use crate::store::{GameQuery, GameRecordPage, GameStatus, Spectators, Store, Visibility};

pub const DEFAULT_PAGE: i64 = 20;
pub const MAX_PAGE: i64 = 100;

/// A page of games.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GamePage {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

/// The open lobby (or active/finished games to watch), the latest change first; active games
/// by their start, since their moves leave the lists' order alone (`store::list`).
pub fn list(
    store: &Store,
    caller: &Caller,
    status: GameStatus,
    cursor: Option<String>,
    limit: Option<i64>,
) -> Result<GamePage, ServiceError> {
    let query = GameQuery {
        status: Some(status),
        visibility: Some(Visibility::Public),
        spectators: (status == GameStatus::Active).then_some(Spectators::Anyone),
        limit: page_limit(limit)?,
        cursor,
        ..GameQuery::default()
    };
    page(store, caller, &query)
}

/// Which of the caller's games to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MyGames {
    /// Games waiting for the caller to act: the play-by-mail inbox.
    MyTurn,
    Open,
    Active,
    Finished,
    /// Games whose creator left before they started.
    Cancelled,
    /// Open games the caller is invited to and has not joined yet.
    Invited,
    All,
}

/// How to order the caller's games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MySort {
    /// The latest change first.
    #[default]
    Activity,
    /// The inbox by urgency (R10.1): games waiting for the caller, the nearest deadline first,
    /// games without a turn time last. Only with `filter=my_turn` (the default with it).
    Deadline,
}

pub fn list_mine(
    store: &Store,
    caller: &Caller,
    filter: MyGames,
    sort: MySort,
    cursor: Option<String>,
    limit: Option<i64>,
) -> Result<GamePage, ServiceError> {
    if sort == MySort::Deadline {
        if filter != MyGames::MyTurn {
            return Err(ServiceError::new(
                Code::InvalidQuery,
                "sort=deadline lists the inbox: use it with filter=my_turn",
            ));
        }
        let limit = page_limit(limit)?;
        let page = store
            .awaiting_by_deadline(caller.id, limit, cursor.as_deref())
            .map_err(game_error)?;
        return Ok(summaries(page, caller));
    }
    let status = match filter {
        MyGames::MyTurn | MyGames::Active => Some(GameStatus::Active),
        MyGames::Open => Some(GameStatus::Open),
        MyGames::Finished => Some(GameStatus::Finished),
        MyGames::Cancelled => Some(GameStatus::Cancelled),
        MyGames::All => None,
        MyGames::Invited => {
            let query = GameQuery {
                invited: Some(caller.id),
                status: Some(GameStatus::Open),
                limit: page_limit(limit)?,
                cursor,
                ..GameQuery::default()
            };
            return page(store, caller, &query);
        }
    };
    let query = GameQuery {
        player: Some(caller.id),
        status,
        awaiting_player: filter == MyGames::MyTurn,
        limit: page_limit(limit)?,
        cursor,
        ..GameQuery::default()
    };
    page(store, caller, &query)
}

fn page(store: &Store, caller: &Caller, query: &GameQuery) -> Result<GamePage, ServiceError> {
    let page = store.list_games(query).map_err(game_error)?;
    Ok(summaries(page, caller))
}

fn summaries(page: GameRecordPage, caller: &Caller) -> GamePage {
    GamePage {
        games: page
            .games
            .iter()
            .map(|game| GameSummary::of(game, caller.id))
            .collect(),
        next_cursor: page.next_cursor,
    }
}

fn page_limit(limit: Option<i64>) -> Result<i64, ServiceError> {
    let limit = limit.unwrap_or(DEFAULT_PAGE);
    if (1..=MAX_PAGE).contains(&limit) {
        Ok(limit)
    } else {
        Err(ServiceError::new(
            Code::InvalidLimit,
            format!("limit must be 1..={MAX_PAGE}"),
        ))
    }
}
