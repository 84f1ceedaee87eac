//! Pairing the seek pool: which open seeks sit down together, and the game they start.
//!
//! Fair: the oldest seek is served first, with the oldest seeks compatible with it (and
//! with each other) — two seeks are compatible when their seekers are two accounts, neither
//! blocks the other, and each one's rating is within the other's range. A pass matches one
//! table at a time, each in its own transaction (see `store::seek_pairing` for why pairing
//! happens exactly once across processes), until nothing in the pool pairs.
//!
//! The game starts at once with every seeker seated, oldest in seat 0 (its creator), round 1
//! dealt, and each seated account gets `game_started` (and the first player `your_turn`) in
//! its feed.

use chrono::{DateTime, Utc};
use racko_rules::{Game, RULES_VERSION};
use uuid::Uuid;

use super::log_event::SeatedPlayer;
use super::write::{deal_round, Logged};
use super::{access, due, feed, random, LogEvent, Service};
use crate::error::ServiceError;
use crate::store::{
    Access, Candidates, Conflict, GameStatus, NewGame, Pairing, SeatRecord, SeekRecord, StoreError,
    UpdateError,
};

/// Tables one pass matches at most (each its own transaction).
const TABLES_PER_PASS: usize = 100;
/// Passes that failed for a reason that passes (a taken invite code, a seek cancelled
/// meanwhile, a busy lock) before the pass gives up for now.
const RETRIES: usize = 5;

/// Whether `seek` accepts a partner rated `rating`.
fn accepts(seek: &SeekRecord, rating: i32) -> bool {
    seek.range.0.is_none_or(|min| rating >= min) && seek.range.1.is_none_or(|max| rating <= max)
}

/// Whether `a` and `b` may sit at one table (see the module docs).
pub fn compatible(a: &SeekRecord, b: &SeekRecord, candidates: &Candidates) -> bool {
    let (x, y) = (a.account_id, b.account_id);
    x != y
        && accepts(a, b.rating)
        && accepts(b, a.rating)
        && !candidates.blocks.contains(&(x, y))
        && !candidates.blocks.contains(&(y, x))
}

/// The table to seat: the oldest seek that completes one, with the oldest seeks compatible
/// with it and each other. None: nobody pairs.
pub fn choose(candidates: &Candidates) -> Option<Vec<&SeekRecord>> {
    let seeks = &candidates.seeks;
    for (i, anchor) in seeks.iter().enumerate() {
        let players = usize::from(anchor.options.players);
        let mut table = vec![anchor];
        for other in &seeks[i + 1..] {
            if other.options != anchor.options || other.rated != anchor.rated {
                continue;
            }
            if table.iter().all(|sat| compatible(sat, other, candidates)) {
                table.push(other);
                if table.len() == players {
                    return Some(table);
                }
            }
        }
    }
    None
}

/// The started game of `table` (oldest first), its log and feed items.
pub fn game_of(
    table: &[&SeekRecord],
    at: DateTime<Utc>,
    lead: std::time::Duration,
) -> Result<Pairing, ServiceError> {
    let Some(first) = table.first() else {
        return Err(ServiceError::internal("a table of no seeks"));
    };
    let options = first.options.clone();
    let mut seats: Vec<SeatRecord> = Vec::new();
    let mut log = vec![Logged {
        round: 0,
        actor: Some(first.account_id),
        event: LogEvent::GameCreated {
            options: options.clone(),
            rules_version: RULES_VERSION,
            created_by: first.username.clone(),
        },
    }];
    for (seat, seek) in (0u8..).zip(table) {
        seats.push(SeatRecord {
            seat,
            account_id: seek.account_id,
            username: seek.username.clone(),
            awaiting: false,
            deadline: None,
            reminded: false,
            away_until: None,
        });
        log.push(Logged {
            round: 0,
            actor: Some(seek.account_id),
            event: LogEvent::PlayerJoined {
                seat,
                username: seek.username.clone(),
            },
        });
    }
    let seated = seats.clone();
    log.push(Logged {
        round: 0,
        actor: None,
        event: LogEvent::GameStarted {
            players: SeatedPlayer::all(&seats),
        },
    });
    let (state, dealt) = deal_round(&Game::new(options.clone())?, false, &[])?;
    log.extend(dealt.into_iter().map(|event| Logged {
        round: state.round(),
        actor: None,
        event: LogEvent::Play(event),
    }));
    let status = GameStatus::Active;
    let due_at = due::settle(&state, status, (&[], &[]), &mut seats, at, lead);
    let game = NewGame {
        id: Uuid::new_v4(),
        created_by: first.account_id,
        invite_code: random::invite_code()?,
        options,
        rules_version: RULES_VERSION,
        state,
        status,
        seats,
        test_mode: false,
        stacked: Vec::new(),
        created_at: at,
        due_at,
        rematch_of: None,
        access: Access {
            visibility: access::DEFAULT_VISIBILITY,
            spectators: access::DEFAULT_SPECTATORS,
            invited: Vec::new(),
            rated: first.rated,
        },
    };
    let events = log
        .iter()
        .map(|entry| entry.event.to_new(entry.round, entry.actor))
        .collect::<Result<Vec<_>, _>>()?;
    // The feed as for a table that filled up: everyone seated, the game started now.
    let mut before = game.record(events.len());
    before.status = GameStatus::Open;
    before.seats = seated;
    let feed = feed::items(&before, status, &game.seats);
    Ok(Pairing {
        seeks: table.iter().map(|seek| seek.id).collect(),
        game,
        events,
        feed,
    })
}

/// Pairs `pool` until nothing in it pairs (or a pass's bound): how many games started.
pub fn pair_pool(store: &Service, pool: &str) -> Result<usize, ServiceError> {
    let (mut games, mut retries) = (0, 0);
    while games < TABLES_PER_PASS {
        let at = store.now();
        let lead = store.reminder_lead();
        let paired = store.pair_seeks(pool, at, |candidates| {
            choose(candidates)
                .map(|table| game_of(&table, at, lead))
                .transpose()
        });
        match paired {
            Ok(None) => break,
            Ok(Some(done)) => {
                store.after(done);
                games += 1;
            }
            Err(UpdateError::Decide(e)) => return Err(e),
            Err(UpdateError::Store(
                StoreError::Conflict(Conflict::InviteCodeTaken | Conflict::SeekTaken)
                | StoreError::Locked(_)
                | StoreError::Busy(_),
            )) if retries < RETRIES => retries += 1,
            Err(UpdateError::Store(e)) => return Err(e.into()),
        }
    }
    Ok(games)
}

/// Pools with open seeks this many at most are swept per housekeeping pass.
const SWEPT_POOLS: i64 = 100;

/// The housekeeping pass: pairs every pool where two accounts or more seek. A seek pairs
/// when it is made; this makes up for a pass that failed then. How many games started.
pub fn sweep(store: &Service) -> Result<usize, ServiceError> {
    let mut games = 0;
    for pool in store.crowded_pools(store.now(), SWEPT_POOLS)? {
        games += pair_pool(store, &pool)?;
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use racko_rules::Options;
    use uuid::Uuid;

    use super::{choose, Candidates};
    use crate::store::{SeekRecord, SeekStatus};

    fn seek(account: u128, players: u8, range: (Option<i32>, Option<i32>)) -> SeekRecord {
        SeekRecord {
            id: Uuid::new_v4(),
            account_id: Uuid::from_u128(account),
            username: format!("p{account}"),
            options: Options {
                players,
                ..Options::default()
            },
            rated: false,
            rating: 1500,
            range,
            status: SeekStatus::Open,
            game_id: None,
            created_at: Utc::now(),
            expires_at: Utc::now(),
            ended_at: None,
        }
    }

    fn accounts(table: Option<Vec<&SeekRecord>>) -> Vec<u128> {
        table
            .unwrap_or_default()
            .iter()
            .map(|s| s.account_id.as_u128())
            .collect()
    }

    #[test]
    fn the_oldest_seek_that_completes_a_table_is_served_with_the_oldest_partners() {
        let pool = Candidates {
            seeks: vec![
                seek(1, 2, (Some(1600), None)),
                seek(2, 2, (None, None)),
                seek(3, 2, (None, None)),
            ],
            ..Candidates::default()
        };
        assert_eq!(
            accounts(choose(&pool)),
            vec![2, 3],
            "1 accepts nobody rated 1500"
        );
    }

    #[test]
    fn a_table_needs_every_pair_compatible_and_distinct_accounts() {
        let mut pool = Candidates {
            seeks: vec![
                seek(1, 3, (None, None)),
                seek(2, 3, (None, None)),
                seek(1, 3, (None, None)),
                seek(3, 3, (None, None)),
                seek(4, 3, (None, None)),
            ],
            ..Candidates::default()
        };
        pool.blocks.insert((Uuid::from_u128(3), Uuid::from_u128(2)));
        assert_eq!(
            accounts(choose(&pool)),
            vec![1, 2, 4],
            "1 twice, 3 blocks 2"
        );
        pool.seeks.truncate(4);
        assert!(
            choose(&pool).is_none(),
            "no third for 1 and 2, nor for 1 and 3"
        );
    }
}
