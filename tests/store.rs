//! The store on each backend (`RACKO_TEST_BACKENDS`), each test on a fresh database.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;

use racko::store::*;
use racko_rules::{Card, Game, Options, StackedDeck};
use serde_json::json;
use uuid::Uuid;

use common::db::{backends, TestBackend, TestDb};

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
    if !backends().contains(&backend) {
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
    GameChange {
        state: record.state.clone(),
        status: GameStatus::Active,
        seats: record.seats.clone(),
        events,
        idempotency: None,
    }
}

/// `update_game` as a client with an expected version would call it.
fn update_at(
    store: &Store,
    id: Uuid,
    expected: i64,
    events: Vec<NewEvent>,
) -> Result<i64, StoreError> {
    store.update_game(id, |record| {
        if record.version != expected {
            return Err(StoreError::StaleVersion {
                current: record.version,
            });
        }
        Ok((change(record, events), record.version + 1))
    })
}

fn seqs(store: &Store, id: Uuid) -> Vec<i64> {
    let events = store.events(id, 0, 10_000).expect("events");
    events.iter().map(|e| e.seq).collect()
}

store_tests! {
    fn usernames_are_unique_ignoring_case(store: Store, _db: &TestDb) {
        let alice = account(&store, "Alice");
        let again = store.insert_account(&NewAccount {
            username: "aLICE".into(),
            password_hash: None,
            role: Role::Admin,
            guest: true,
        });
        assert!(matches!(again, Err(StoreError::Conflict("username_taken"))), "{again:?}");
        let found = store.account_by_username("ALICE").unwrap().expect("found");
        assert_eq!((found.id, found.username.as_str()), (alice.id, "Alice"));
        assert_eq!(found.password_hash.as_deref(), Some("hash"));
        let by_id = store.account(alice.id).unwrap().expect("found");
        assert_eq!((by_id.role, by_id.guest), (Role::Player, false));
        assert_eq!(by_id.created_at, alice.created_at);
        assert!(store.account(Uuid::new_v4()).unwrap().is_none());
        assert!(store.account_by_username("bob").unwrap().is_none());
    }

    fn a_guest_becomes_a_player(store: Store, _db: &TestDb) {
        account(&store, "Alice");
        let guest = store
            .insert_account(&NewAccount {
                username: "guest-7".into(),
                password_hash: None,
                role: Role::Player,
                guest: true,
            })
            .unwrap();
        let taken = store.upgrade_guest(guest.id, "ALICE", "h2");
        assert!(matches!(taken, Err(StoreError::Conflict("username_taken"))), "{taken:?}");
        let upgraded = store.upgrade_guest(guest.id, "Bob", "h2").unwrap();
        assert_eq!((upgraded.id, upgraded.username.as_str(), upgraded.guest), (guest.id, "Bob", false));
        assert_eq!(upgraded.password_hash.as_deref(), Some("h2"));
        assert!(store.account_by_username("guest-7").unwrap().is_none());
        let missing = store.upgrade_guest(Uuid::new_v4(), "Carol", "h");
        assert!(matches!(missing, Err(StoreError::NotFound)), "{missing:?}");
    }

    fn a_game_reads_back_as_written(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let new = new_game(&a, vec![seat(0, &a, true), seat(1, &b, false)]);
        let events = [event("created", Some(a.id)), event("joined", None)];
        let inserted = store.insert_game(&new, &events).unwrap();
        assert_eq!((inserted.version, inserted.last_seq), (1, 2));
        for loaded in [
            store.game(new.id).unwrap().expect("by id"),
            store.game_by_invite_code(&new.invite_code).unwrap().expect("by code"),
        ] {
            assert_eq!(loaded.id, new.id);
            assert_eq!(loaded.created_by, a.id);
            assert_eq!(loaded.invite_code, new.invite_code);
            assert_eq!(loaded.options, new.options);
            assert_eq!(loaded.rules_version, new.rules_version);
            assert_eq!(loaded.state, new.state);
            assert_eq!(loaded.status, GameStatus::Open);
            assert_eq!(loaded.seats, new.seats);
            assert!(loaded.test_mode);
            assert_eq!(loaded.stacked, new.stacked);
            assert_eq!((loaded.version, loaded.last_seq), (1, 2));
            assert_eq!(loaded.created_at, inserted.created_at);
            assert_eq!(loaded.updated_at, inserted.updated_at);
        }
        let stored = store.events(new.id, 0, 10).unwrap();
        assert_eq!(stored.len(), 2);
        assert_eq!((stored[0].seq, stored[0].kind.as_str()), (1, "created"));
        assert_eq!((stored[0].actor, stored[1].actor), (Some(a.id), None));
        assert_eq!(stored[1].payload, json!({ "type": "joined", "n": 1 }));
        assert!(store.game(Uuid::new_v4()).unwrap().is_none());
        assert!(store.game_by_invite_code("nope").unwrap().is_none());
    }

    fn uniqueness_of_invite_codes_and_seats(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let first = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&first, &[]).unwrap();
        let same_code = NewGame { id: Uuid::new_v4(), ..first.clone() };
        let e = store.insert_game(&same_code, &[]).unwrap_err();
        assert!(matches!(e, StoreError::Conflict("invite_code_taken")), "{e:?}");
        let twice = new_game(&a, vec![seat(0, &b, true), seat(1, &b, false)]);
        let e = store.insert_game(&twice, &[event("created", None)]).unwrap_err();
        assert!(matches!(e, StoreError::Conflict("seat_taken")), "{e:?}");
        // The failed insert left nothing behind.
        assert!(store.game(twice.id).unwrap().is_none());
        assert!(store.events(twice.id, 0, 10).unwrap().is_empty());
    }

    fn an_update_writes_state_seats_events_at_once(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let new = new_game(&a, vec![seat(0, &a, false)]);
        store.insert_game(&new, &[event("created", Some(a.id))]).unwrap();
        let answer = store.update_game(new.id, |record| {
            assert_eq!((record.version, record.last_seq), (1, 1));
            let mut c = change(record, vec![event("joined", Some(b.id)), event("dealt", None)]);
            c.seats = vec![seat(0, &a, true), seat(1, &b, false)];
            Ok::<_, StoreError>((c, "done"))
        });
        assert_eq!(answer.unwrap(), "done");
        let record = store.game(new.id).unwrap().unwrap();
        assert_eq!((record.version, record.last_seq, record.status), (2, 3, GameStatus::Active));
        assert_eq!(record.seats, vec![seat(0, &a, true), seat(1, &b, false)]);
        assert!(record.updated_at >= record.created_at);
        assert_eq!(seqs(&store, new.id), [1, 2, 3]);
        let missing = update_at(&store, Uuid::new_v4(), 1, vec![]);
        assert!(matches!(missing, Err(StoreError::NotFound)), "{missing:?}");
    }

    fn a_stale_or_failed_decision_writes_nothing(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&new, &[]).unwrap();
        assert_eq!(update_at(&store, new.id, 1, vec![event("x", None)]).unwrap(), 2);
        let stale = update_at(&store, new.id, 1, vec![event("y", None)]);
        assert!(matches!(stale, Err(StoreError::StaleVersion { current: 2 })), "{stale:?}");
        #[derive(Debug, PartialEq)]
        enum Refused {
            No,
            Store,
        }
        impl From<StoreError> for Refused {
            fn from(_: StoreError) -> Self {
                Refused::Store
            }
        }
        let refused = store.update_game(new.id, |_| Err::<(GameChange, ()), _>(Refused::No));
        assert_eq!(refused, Err(Refused::No));
        // A decision that breaks a rule in the middle of the writes is rolled back whole.
        let b = account(&store, "b");
        let broken = store.update_game(new.id, |record| {
            let mut c = change(record, vec![event("z", None)]);
            c.seats = vec![seat(0, &b, true), seat(1, &b, true)];
            Ok::<_, StoreError>((c, ()))
        });
        assert!(matches!(broken, Err(StoreError::Conflict("seat_taken"))), "{broken:?}");
        let record = store.game(new.id).unwrap().unwrap();
        assert_eq!((record.version, record.last_seq), (2, 1));
        assert_eq!(record.seats, vec![seat(0, &a, true)]);
        assert_eq!(seqs(&store, new.id), [1]);
    }

    fn of_twenty_racing_writers_on_one_version_one_wins(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&new, &[event("created", None)]).unwrap();
        let barrier = Arc::new(Barrier::new(20));
        let results: Vec<_> = (0..20)
            .map(|_| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    update_at(&store, new.id, 1, vec![event("a", None), event("b", None)])
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("no panic"))
            .collect();
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "{results:?}");
        for r in results.iter().filter(|r| r.is_err()) {
            assert!(matches!(r, Err(StoreError::StaleVersion { current: 2 })), "{r:?}");
        }
        assert_eq!(seqs(&store, new.id), [1, 2, 3]);
    }

    fn twenty_racing_writers_all_apply_in_turn(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&new, &[]).unwrap();
        let barrier = Arc::new(Barrier::new(20));
        let threads: Vec<_> = (0..20)
            .map(|_| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    // No expected version: each decides on whatever is current.
                    store.update_game(new.id, |record| {
                        Ok::<_, StoreError>((change(record, vec![event("n", None)]), ()))
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().expect("no panic").expect("applied");
        }
        let record = store.game(new.id).unwrap().unwrap();
        assert_eq!((record.version, record.last_seq), (21, 20));
        assert_eq!(seqs(&store, new.id), (1..=20).collect::<Vec<_>>());
    }

    fn events_page_by_sequence(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&new, &[]).unwrap();
        for version in 1..=5 {
            update_at(&store, new.id, version, vec![event("x", None), event("y", None)]).unwrap();
        }
        let page = |after, limit| -> Vec<i64> {
            store.events(new.id, after, limit).unwrap().iter().map(|e| e.seq).collect()
        };
        assert_eq!(page(0, 3), [1, 2, 3]);
        assert_eq!(page(3, 100), [4, 5, 6, 7, 8, 9, 10]);
        assert!(page(10, 5).is_empty());
        assert!(page(0, 0).is_empty());
        assert!(store.events(Uuid::new_v4(), 0, 5).unwrap().is_empty());
    }

    fn games_list_by_filters_and_pages(store: Store, _db: &TestDb) {
        let (a, b, c) = (account(&store, "a"), account(&store, "b"), account(&store, "c"));
        let mut ids = Vec::new();
        for i in 0..7u8 {
            // a sits in every game and is awaited in the even ones; b in the first three.
            let mut seats = vec![seat(0, &a, i % 2 == 0)];
            if i < 3 {
                seats.push(seat(1, &b, true));
            }
            let game = new_game(&c, seats);
            store.insert_game(&game, &[]).unwrap();
            ids.push(game.id);
        }
        update_at(&store, ids[1], 1, vec![]).unwrap(); // now Active and the latest
        let list = |q: GameQuery| -> Vec<Uuid> {
            let page = store.list_games(&q).unwrap();
            assert!(page.next_cursor.is_none());
            page.games.iter().map(|g| g.id).collect()
        };
        let all = GameQuery { limit: 100, ..Default::default() };
        let everything = list(all.clone());
        assert_eq!(everything.len(), 7);
        assert_eq!(everything[0], ids[1]);
        let of_b = list(GameQuery { player: Some(b.id), ..all.clone() });
        assert_eq!(of_b, [ids[1], ids[2], ids[0]]);
        let awaiting_a = list(GameQuery { player: Some(a.id), awaiting_player: true, ..all.clone() });
        assert_eq!(awaiting_a, [ids[6], ids[4], ids[2], ids[0]]);
        let active = list(GameQuery { status: Some(GameStatus::Active), ..all.clone() });
        assert_eq!(active, [ids[1]]);
        let open_of_b = list(GameQuery { player: Some(b.id), status: Some(GameStatus::Open), ..all.clone() });
        assert_eq!(open_of_b, [ids[2], ids[0]]);
        assert!(list(GameQuery { player: Some(Uuid::new_v4()), ..all.clone() }).is_empty());
        // Pages of two walk the same list, seats included, without gaps or repeats.
        let mut paged = Vec::new();
        let mut cursor = None;
        loop {
            let page = store.list_games(&GameQuery { limit: 2, cursor, ..Default::default() }).unwrap();
            assert!(page.games.len() <= 2);
            assert!(page.games.iter().all(|g| !g.seats.is_empty()));
            paged.extend(page.games.iter().map(|g| g.id));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(paged, everything);
        // The limit is clamped to 1..=100.
        let one = store.list_games(&GameQuery { limit: 0, ..Default::default() }).unwrap();
        assert_eq!(one.games.len(), 1);
        for bad in ["zz", "6869", &hex::encode("12:not-a-uuid")] {
            let e = store.list_games(&GameQuery { cursor: Some(bad.into()), ..all.clone() });
            assert!(matches!(e, Err(StoreError::BadInput("invalid_cursor"))), "{bad}: {e:?}");
        }
    }

    fn idempotency_records_round_trip(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        store.insert_game(&new, &[]).unwrap();
        let record = |key: &str| IdempotencyRecord {
            account_id: a.id,
            key: key.into(),
            request_hash: "abc".into(),
            status: 201,
            body: json!({ "ok": true }),
            created_at: chrono::Utc::now(),
        };
        let with_key = |key: &str| {
            store.update_game(new.id, |current| {
                let mut c = change(current, vec![event("x", None)]);
                c.idempotency = Some(record(key));
                Ok::<_, StoreError>((c, ()))
            })
        };
        with_key("k1").unwrap();
        let stored = store.idempotency_record(a.id, "k1").unwrap().expect("stored");
        assert_eq!((stored.account_id, stored.key.as_str()), (a.id, "k1"));
        assert_eq!((stored.request_hash.as_str(), stored.status), ("abc", 201));
        assert_eq!(stored.body, json!({ "ok": true }));
        let again = with_key("k1");
        assert!(matches!(again, Err(StoreError::Conflict("idempotency_key_taken"))), "{again:?}");
        assert_eq!(store.game(new.id).unwrap().unwrap().version, 2);
        store.put_idempotency_record(&record("k2")).unwrap();
        assert!(store.idempotency_record(a.id, "k2").unwrap().is_some());
        assert!(store.idempotency_record(a.id, "k3").unwrap().is_none());
        assert!(store.idempotency_record(Uuid::new_v4(), "k1").unwrap().is_none());
    }

    fn the_first_setting_wins(store: Store, _db: &TestDb) {
        assert_eq!(store.setting_or_insert("secret", || "one".into()).unwrap(), "one");
        let second = store.setting_or_insert("secret", || unreachable!("already set")).unwrap();
        assert_eq!(second, "one");
        let barrier = Arc::new(Barrier::new(10));
        let values: Vec<String> = (0..10)
            .map(|i| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    store.setting_or_insert("race", || format!("v{i}")).unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(values.iter().all(|v| *v == values[0]), "{values:?}");
    }

    fn migrating_again_changes_nothing(store: Store, db: &TestDb) {
        let a = account(&store, "a");
        Store::migrate(&db.url).unwrap();
        Store::migrate(&db.url).unwrap();
        let reopened = Store::open(&db.url, 2).unwrap();
        assert!(reopened.account(a.id).unwrap().is_some());
        reopened.ping().unwrap();
    }

    fn it_says_what_it_is(store: Store, db: &TestDb) {
        store.ping().unwrap();
        let (backend, words) = match db.backend {
            TestBackend::Postgres => (Backend::Postgres, "PostgreSQL"),
            TestBackend::Sqlite => (Backend::Sqlite, "SQLite"),
        };
        assert_eq!(store.backend(), backend);
        assert!(store.describe().contains(words), "{}", store.describe());
        assert!(!store.describe().contains("postgres@"), "{}", store.describe());
    }
}
