//! The store on each backend (`RACKO_TEST_BACKENDS`), each test on a fresh database.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::thread;

use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use racko::store::*;
use racko_rules::{Card, Game, Options, StackedDeck};
use serde_json::json;
use uuid::Uuid;

use common::db::{backends, enabled, named, selected, TestBackend, TestDb};

/// `store_tests! { fn name(store: Store, db: &TestDb) { … } }` makes `mod name` with the tests
/// `postgres` and `sqlite`.
macro_rules! store_tests {
    ($(fn $name:ident($store:ident : Store, $db:ident : &TestDb) $body:block)*) => {$(
        mod $name {
            use super::*;

            fn run($store: Store, $db: &TestDb) $body

            #[test]
            fn postgres() {
                on(TestBackend::Postgres, run)
            }

            #[test]
            fn sqlite() {
                on(TestBackend::Sqlite, run)
            }
        }
    )*};
}

fn on(backend: TestBackend, test: fn(Store, &TestDb)) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let store = Store::open(&db.url, 8).expect("the store opens");
    test(store, &db);
}

fn account(store: &Store, name: &str) -> Account {
    store
        .insert_account(&NewAccount {
            username: name.into(),
            password_hash: Some("hash".into()),
            role: Role::Player,
            guest: false,
        })
        .expect("a new account")
}

fn seat(n: u8, who: &Account, awaiting: bool) -> SeatRecord {
    SeatRecord {
        seat: n,
        account_id: who.id,
        username: who.username.clone(),
        awaiting,
        deadline: None,
        reminded: false,
        away_until: None,
    }
}

fn new_game(creator: &Account, seats: Vec<SeatRecord>) -> NewGame {
    NewGame {
        id: Uuid::new_v4(),
        created_by: creator.id,
        invite_code: Uuid::new_v4().simple().to_string()[..8].to_string(),
        options: Options::default(),
        rules_version: racko_rules::RULES_VERSION,
        state: Game::new(Options::default()).expect("default options are valid"),
        status: GameStatus::Open,
        seats,
        test_mode: true,
        stacked: vec![StackedDeck {
            deal: vec![3, 1, 2],
            stock: vec![Card::Number { value: 4 }, Card::Joker],
        }],
        created_at: racko::store::now(),
        due_at: None,
        rematch_of: None,
        access: Default::default(),
    }
}

fn event(kind: &str, actor: Option<Uuid>) -> NewEvent {
    NewEvent {
        round: 1,
        kind: kind.into(),
        actor,
        payload: json!({ "type": kind, "n": 1 }),
    }
}

/// A change that keeps the game and seats and logs `events`.
fn change(record: &GameRecord, events: Vec<NewEvent>) -> GameChange {
    seated(record, events, record.seats.clone())
}

/// A change that logs `events` and leaves `seats` at the table.
fn seated(record: &GameRecord, events: Vec<NewEvent>, seats: Vec<SeatRecord>) -> GameChange {
    let changed = Changed {
        state: record.state.clone(),
        status: GameStatus::Active,
        seats,
        at: racko::store::now(),
        due_at: None,
    };
    record.after(changed, events, vec![])
}

/// `update_game` with a decision that fails as the store does: its answer, or the error.
fn update<T>(
    store: &Store,
    id: Uuid,
    decide: impl Fn(&GameRecord) -> Result<(GameChange, T), StoreError>,
) -> Result<T, StoreError> {
    match store.update_game(id, decide) {
        Ok(done) => Ok(done.value.1),
        Err(UpdateError::Store(e) | UpdateError::Decide(e)) => Err(e),
    }
}

/// `update_game` as a client with an expected version would call it.
fn update_at(
    store: &Store,
    id: Uuid,
    expected: i64,
    events: Vec<NewEvent>,
) -> Result<i64, StoreError> {
    update(store, id, |record| {
        if record.version != expected {
            return Err(StoreError::StaleVersion {
                current: record.version,
            });
        }
        Ok((change(record, events.clone()), record.version + 1))
    })
}

fn seqs(store: &Store, id: Uuid) -> Vec<i64> {
    let events = store.events(id, 0, 10_000).expect("events");
    events.iter().map(|e| e.seq).collect()
}

// The cases live in tests/store/ (a crate root's `mod` would look beside it, in tests/).
#[path = "store/accounts.rs"]
mod accounts;
#[path = "store/deadlines.rs"]
mod deadlines;
#[path = "store/games.rs"]
mod games;
#[path = "store/listing.rs"]
mod listing;
#[path = "store/push.rs"]
mod push;
#[path = "store/races.rs"]
mod races;
#[path = "store/sessions.rs"]
mod sessions;
#[path = "store/setup.rs"]
mod setup;
#[path = "store/shard_keys.rs"]
mod shard_keys;
