//! Games: insert, load, update, events, idempotency records.

use super::*;

store_tests! {
    fn a_game_reads_back_as_written(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let new = new_game(&a, vec![seat(0, &a, true), seat(1, &b, false)]);
        let events = [event("created", Some(a.id)), event("joined", None)];
        let inserted = store.insert_game(&new, &events, None).unwrap().value;
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
        let _ = store.insert_game(&first, &[], None).unwrap();
        let same_code = NewGame { id: Uuid::new_v4(), ..first.clone() };
        let e = store.insert_game(&same_code, &[], None).unwrap_err();
        assert!(matches!(e, StoreError::Conflict(Conflict::InviteCodeTaken)), "{e:?}");
        let twice = new_game(&a, vec![seat(0, &b, true), seat(1, &b, false)]);
        let e = store.insert_game(&twice, &[event("created", None)], None).unwrap_err();
        assert!(matches!(e, StoreError::Conflict(Conflict::SeatTaken)), "{e:?}");
        // The failed insert left nothing behind.
        assert!(store.game(twice.id).unwrap().is_none());
        assert!(store.events(twice.id, 0, 10).unwrap().is_empty());
    }

    fn an_update_writes_state_seats_events_at_once(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let new = new_game(&a, vec![seat(0, &a, false)]);
        let _ = store.insert_game(&new, &[event("created", Some(a.id))], None).unwrap();
        let answer = update(&store, new.id, |record| {
            assert_eq!((record.version, record.last_seq), (1, 1));
            let events = vec![event("joined", Some(b.id)), event("dealt", None)];
            let c = seated(record, events, vec![seat(0, &a, true), seat(1, &b, false)]);
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
        let _ = store.insert_game(&new, &[], None).unwrap();
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
        assert!(matches!(refused, Err(UpdateError::Decide(Refused::No))), "{refused:?}");
        // A decision that breaks a rule in the middle of the writes is rolled back whole.
        let b = account(&store, "b");
        let broken = update(&store, new.id, |record| {
            let c = seated(record, vec![event("z", None)], vec![seat(0, &b, true), seat(1, &b, true)]);
            Ok::<_, StoreError>((c, ()))
        });
        assert!(matches!(broken, Err(StoreError::Conflict(Conflict::SeatTaken))), "{broken:?}");
        let record = store.game(new.id).unwrap().unwrap();
        assert_eq!((record.version, record.last_seq), (2, 1));
        assert_eq!(record.seats, vec![seat(0, &a, true)]);
        assert_eq!(seqs(&store, new.id), [1]);
    }

    fn events_page_by_sequence(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&new, &[], None).unwrap();
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

    fn idempotency_records_round_trip(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&new, &[], None).unwrap();
        let record = |key: &str| IdempotencyRecord {
            account_id: a.id,
            key: key.into(),
            request_hash: "abc".into(),
            status: 201,
            body: json!({ "ok": true }),
            created_at: chrono::Utc::now(),
            // What the body is, kept as is (a change's record on the game's write path).
            stored_as: if key == "k1" {
                StoredAs::Change
            } else {
                StoredAs::Answer
            },
        };
        let with_key = |key: &str| {
            update(&store, new.id, |current| {
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
        assert_eq!(stored.stored_as, StoredAs::Change);
        let again = with_key("k1");
        assert!(matches!(again, Err(StoreError::Conflict(Conflict::IdempotencyKeyTaken))), "{again:?}");
        assert_eq!(store.game(new.id).unwrap().unwrap().version, 2);
        // A game's creation stores its key's answer in the same transaction.
        let other = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&other, &[], Some(&record("k2"))).unwrap();
        let stored = store.idempotency_record(a.id, "k2").unwrap().expect("stored");
        assert_eq!(stored.stored_as, StoredAs::Answer);
        let third = new_game(&a, vec![seat(0, &a, true)]);
        let taken = store.insert_game(&third, &[], Some(&record("k2")));
        assert!(matches!(taken, Err(StoreError::Conflict(Conflict::IdempotencyKeyTaken))), "{taken:?}");
        assert!(store.game(third.id).unwrap().is_none(), "the game of a taken key is not kept");
        assert!(store.idempotency_record(a.id, "k3").unwrap().is_none());
        assert!(store.idempotency_record(Uuid::new_v4(), "k1").unwrap().is_none());
        // Expiry: records stored before a time go, in batches of at most the size asked.
        let later = chrono::Utc::now() + chrono::Duration::seconds(60);
        assert_eq!(store.delete_idempotency_records(later, 1).unwrap(), 1);
        assert_eq!(store.delete_idempotency_records(later, 10).unwrap(), 1);
        assert_eq!(store.delete_idempotency_records(later, 10).unwrap(), 0);
        assert!(store.idempotency_record(a.id, "k1").unwrap().is_none());
    }

}

store_tests! {
    fn a_game_read_is_the_game_another_process_left(store: Store, db: &TestDb) {
        // `other` stands for another process on the same database: its writes reach `store`
        // by the database alone.
        let other = Store::open(&db.url, 2).unwrap();
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let new = new_game(&a, vec![seat(0, &a, true), seat(1, &b, false)]);
        let _ = store.insert_game(&new, &[event("created", None)], None).unwrap();
        update_at(&store, new.id, 1, vec![event("n", None)]).unwrap();
        assert_eq!(store.game(new.id).unwrap().unwrap().version, 2, "kept as written");

        // The other process moves the turn on: the next read here is its game, seats too.
        update(&other, new.id, |record| {
            let seats = vec![seat(0, &a, false), seat(1, &b, true)];
            Ok::<_, StoreError>((seated(record, vec![event("m", None)], seats), ()))
        })
        .unwrap();
        let read = store.game(new.id).unwrap().unwrap();
        assert_eq!((read.version, read.last_seq), (3, 3));
        assert_eq!(read.seats, vec![seat(0, &a, false), seat(1, &b, true)]);

        // The sweeper's `due_at` moves without the version: a read shows it all the same.
        let due = chrono::DateTime::parse_from_rfc3339("2031-01-02T03:04:05Z").unwrap();
        other.set_due(new.id, 3, Some(due.to_utc())).unwrap();
        assert_eq!(store.game(new.id).unwrap().unwrap().due_at, Some(due.to_utc()));

        // The read is the one a process that kept nothing makes.
        let fresh = Store::open(&db.url, 2).unwrap().game(new.id).unwrap().unwrap();
        let read = store.game(new.id).unwrap().unwrap();
        assert_eq!(format!("{read:?}"), format!("{fresh:?}"));

        // And an action here after the other's write is decided on that write.
        assert_eq!(update_at(&store, new.id, 3, vec![event("o", None)]).unwrap(), 4);
        assert_eq!(seqs(&store, new.id), [1, 2, 3, 4]);
    }
}
