//! Concurrent writers on one game.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::connection::SimpleConnection;

use super::*;

store_tests! {
    fn of_twenty_racing_writers_on_one_version_one_wins(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&new, &[event("created", None)], None).unwrap();
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
        let _ = store.insert_game(&new, &[], None).unwrap();
        let barrier = Arc::new(Barrier::new(20));
        let threads: Vec<_> = (0..20)
            .map(|_| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    // No expected version: each decides on whatever is current.
                    update(&store, new.id, |record| {
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

    fn a_game_nobody_else_changed_is_decided_once(store: Store, _db: &TestDb) {
        // With nobody writing in between, the rules run once per action: on PostgreSQL on the
        // game this process wrote last, on SQLite under the file's lock.
        let a = account(&store, "a");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&new, &[], None).unwrap();
        let decided = AtomicUsize::new(0);
        for n in 1..=3 {
            decided.store(0, Ordering::SeqCst);
            update(&store, new.id, |record| {
                decided.fetch_add(1, Ordering::SeqCst);
                Ok::<_, StoreError>((change(record, vec![event("n", None)]), ()))
            })
            .expect("applied");
            // The first write decides on the game read; it is kept from then on.
            let once = if n == 1 { 1..=2 } else { 1..=1 };
            assert!(once.contains(&decided.load(Ordering::SeqCst)), "write {n}");
        }
        assert_eq!(seqs(&store, new.id), [1, 2, 3]);
    }
}

/// Prints update_game throughput: `cargo test --test store -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn update_game_throughput() {
    for backend in backends() {
        let db = TestDb::new(backend);
        let store = Store::open(&db.url, 8).expect("the store opens");
        let a = account(&store, "a");
        let threads = 8;
        let per_thread = 100;
        let games: Vec<Uuid> = (0..threads)
            .map(|_| {
                let game = new_game(&a, vec![seat(0, &a, true)]);
                let _ = store.insert_game(&game, &[], None).unwrap();
                game.id
            })
            .collect();
        for (label, spread) in [("one game", false), ("a game per thread", true)] {
            let start = std::time::Instant::now();
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let store = store.clone();
                    let id = if spread { games[t] } else { games[0] };
                    thread::spawn(move || {
                        for _ in 0..per_thread {
                            update(&store, id, |r| {
                                Ok::<_, StoreError>((change(r, vec![event("n", None)]), ()))
                            })
                            .unwrap();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            let n = threads * per_thread;
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{backend:?}, {threads} threads, {label}: {n} updates in {secs:.2}s = {:.0}/s",
                n as f64 / secs
            );
        }
    }
}

/// A write of one game, run on a thread of its own.
type Job = Box<dyn FnOnce(&Store) -> Result<i64, StoreError> + Send>;

/// Runs `jobs` while two writers of another game wait in their statements: their changes
/// feed an account whose feed head a transaction of the test's own holds, so both statements
/// are in flight, the jobs queue, and they run together once the head is let go. Returns their
/// answers and the writes and statements the store counted.
fn behind_a_held_feed(
    store: &Store,
    db: &TestDb,
    jobs: Vec<Job>,
) -> (Vec<Result<i64, StoreError>>, GroupCommits) {
    let a = account(store, &format!("holder-{}", Uuid::new_v4().simple()));
    let games: Vec<NewGame> = (0..2)
        .map(|_| new_game(&a, vec![seat(0, &a, true)]))
        .collect();
    for game in &games {
        let _ = store.insert_game(game, &[], None).unwrap();
    }
    let mut holder = PgConnection::establish(&db.url).expect("a connection");
    let head = format!(
        "INSERT INTO account_feed_heads (account_id, last_seq) VALUES ('{}', 0)",
        a.id
    );
    diesel::sql_query(head).execute(&mut holder).unwrap();
    holder.batch_execute("BEGIN").unwrap();
    let hold = format!(
        "SELECT 1 FROM account_feed_heads WHERE account_id = '{}' FOR UPDATE",
        a.id
    );
    diesel::sql_query(hold).execute(&mut holder).unwrap();
    let blocked: Vec<_> = games
        .iter()
        .map(|game| {
            let (store, id, reader) = (store.clone(), game.id, a.id);
            thread::spawn(move || {
                update(&store, id, |current| {
                    let mut c = change(current, vec![event("x", None)]);
                    c.feed = vec![NewFeedItem {
                        account_id: reader,
                        kind: "your_turn".into(),
                        payload: json!({}),
                    }];
                    Ok::<_, StoreError>((c, 2))
                })
            })
        })
        .collect();
    thread::sleep(std::time::Duration::from_millis(300));
    let before = store.shared_commits();
    let queued: Vec<_> = jobs
        .into_iter()
        .map(|job| {
            let store = store.clone();
            thread::spawn(move || job(&store))
        })
        .collect();
    thread::sleep(std::time::Duration::from_millis(300));
    holder.batch_execute("COMMIT").unwrap();
    let answers = queued
        .into_iter()
        .map(|t| t.join().expect("no panic"))
        .collect();
    let after = store.shared_commits();
    for t in blocked {
        assert_eq!(t.join().expect("no panic").ok(), Some(2));
    }
    let spent = GroupCommits {
        writes: after.writes - before.writes,
        commits: after.commits - before.commits,
    };
    (answers, spent)
}

/// PostgreSQL: writers of different games that come while the statements in flight are at
/// their bound share the next statement (`store::pg_batch`), and each game's change stands or
/// falls alone: a change decided on a version that is gone writes nothing, one whose key is
/// taken fails (the shared statement fails, and each writes again alone), the others apply.
#[test]
fn writers_of_many_games_share_statements_on_postgres() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let store = Store::open(&db.url, 32).expect("the store opens");
    let a = account(&store, "a");
    let games = |n: usize| -> Vec<Uuid> {
        (0..n)
            .map(|_| {
                let game = new_game(&a, vec![seat(0, &a, true)]);
                let _ = store.insert_game(&game, &[], None).unwrap();
                game.id
            })
            .collect()
    };
    let plain = |id: Uuid, expected: i64| -> Job {
        Box::new(move |store| update_at(store, id, expected, vec![event("x", None)]))
    };

    // Twenty writers queue; one decided on a version that never was.
    let ids = games(20);
    let jobs = ids
        .iter()
        .enumerate()
        .map(|(n, id)| plain(*id, if n == 7 { 5 } else { 1 }));
    let (answers, spent) = behind_a_held_feed(&store, &db, jobs.collect());
    for (n, answer) in answers.iter().enumerate() {
        if n == 7 {
            assert!(
                matches!(answer, Err(StoreError::StaleVersion { current: 1 })),
                "{answer:?}"
            );
            assert_eq!(seqs(&store, ids[n]), Vec::<i64>::new());
        } else {
            assert_eq!(answer.as_ref().ok(), Some(&2), "game {n}");
            assert_eq!(seqs(&store, ids[n]), [1]);
        }
    }
    // 19 changes queued, and the two held ones: in far fewer statements.
    eprintln!(
        "{} games written by {} statements",
        spent.writes, spent.commits
    );
    assert!(spent.writes == 21 && spent.commits <= 6, "{spent:?}");

    // Again, with one change whose key another game's change took before.
    let key = IdempotencyRecord {
        account_id: a.id,
        key: "k".into(),
        request_hash: "h".into(),
        status: 200,
        body: json!({}),
        created_at: chrono::Utc::now(),
        stored_as: StoredAs::Answer,
    };
    let keyed = move |store: &Store, id: Uuid| {
        update(store, id, |current| {
            let mut c = change(current, vec![event("x", None)]);
            c.idempotency = Some(key.clone());
            Ok::<_, StoreError>((c, 2))
        })
    };
    let ids = games(11);
    keyed(&store, ids[10]).expect("the key is stored");
    let jobs = ids[..10].iter().enumerate().map(|(n, id)| -> Job {
        let (id, keyed) = (*id, keyed.clone());
        match n {
            3 => Box::new(move |store| keyed(store, id)),
            _ => plain(id, 1),
        }
    });
    let (answers, _) = behind_a_held_feed(&store, &db, jobs.collect());
    for (n, answer) in answers.iter().enumerate() {
        if n == 3 {
            let taken = matches!(
                answer,
                Err(StoreError::Conflict(Conflict::IdempotencyKeyTaken))
            );
            assert!(taken, "{answer:?}");
            assert_eq!(seqs(&store, ids[n]), Vec::<i64>::new());
        } else {
            assert_eq!(answer.as_ref().ok(), Some(&2), "game {n}");
            assert_eq!(seqs(&store, ids[n]), [1]);
        }
    }
}

/// PostgreSQL: a writer waiting for another's statement holds no pooled connection
/// (`store::on_demand`), so a pool far smaller than the writers still lets them all queue for
/// one statement. With 4 connections, two held by the statements in flight, twenty writers
/// share a few statements instead of taking turns for the two connections left.
#[test]
fn writers_waiting_for_a_statement_hold_no_connection() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let store = Store::open(&db.url, 4).expect("the store opens");
    let a = account(&store, "a");
    let jobs = (0..20)
        .map(|_| -> Job {
            let game = new_game(&a, vec![seat(0, &a, true)]);
            let _ = store.insert_game(&game, &[], None).unwrap();
            Box::new(move |store| update_at(store, game.id, 1, vec![event("x", None)]))
        })
        .collect();
    let (answers, spent) = behind_a_held_feed(&store, &db, jobs);
    for answer in &answers {
        assert_eq!(answer.as_ref().ok(), Some(&2), "{answer:?}");
    }
    assert!(spent.writes == 22 && spent.commits <= 6, "{spent:?}");
}

/// PostgreSQL: a game's change written in a statement shared with other games leaves the
/// games row that a statement of its game alone leaves (the statement's two forms of the
/// games' part): twice, so that both of `listed_at`'s cases are written (a game that starts,
/// then a move in an active game).
#[test]
fn a_shared_statement_writes_the_row_a_lone_one_does() {
    if !enabled(TestBackend::Postgres) {
        return;
    }
    let db = TestDb::new(TestBackend::Postgres);
    let store = Store::open(&db.url, 32).expect("the store opens");
    let a = account(&store, "a");
    let ids: Vec<Uuid> = (0..8)
        .map(|_| {
            let game = new_game(&a, vec![seat(0, &a, true)]);
            let _ = store.insert_game(&game, &[], None).unwrap();
            game.id
        })
        .collect();
    let mut conn = PgConnection::establish(&db.url).expect("a connection");
    for (round, version) in [(1, 1), (2, 2)] {
        let at = racko::store::now() + chrono::Duration::minutes(round);
        let due_at = Some(at + chrono::Duration::hours(round));
        let write = move |store: &Store, id: Uuid| {
            update(store, id, |current| {
                if current.version != version {
                    return Err(StoreError::StaleVersion {
                        current: current.version,
                    });
                }
                let changed = Changed {
                    state: current.state.clone(),
                    status: GameStatus::Active,
                    seats: current.seats.clone(),
                    at,
                    due_at,
                };
                let events = vec![event("x", None)];
                Ok((current.after(changed, events, vec![]), version + 1))
            })
        };
        assert_eq!(write(&store, ids[0]).ok(), Some(version + 1), "alone");
        let jobs = ids[1..]
            .iter()
            .map(|&id| -> Job { Box::new(move |store| write(store, id)) })
            .collect();
        let (answers, spent) = behind_a_held_feed(&store, &db, jobs);
        for answer in &answers {
            assert_eq!(answer.as_ref().ok(), Some(&(version + 1)), "{answer:?}");
        }
        assert!(spent.commits < spent.writes, "shared: {spent:?}");
        let rows: Vec<GameLine> = diesel::sql_query(
            "SELECT concat_ws(' ', state, status, version, last_seq, updated_at, \
                    coalesce(due_at::text, '-'), listed_at = updated_at, \
                    listed_at = created_at) AS line \
               FROM games WHERE created_by = $1 ORDER BY id",
        )
        .bind::<Text, _>(a.id.to_string())
        .load(&mut conn)
        .expect("the games");
        assert_eq!(rows.len(), ids.len());
        let first = rows[0].line.clone();
        assert!(first.contains(" active "), "{first}");
        for row in &rows {
            assert_eq!(row.line, first, "round {round}");
        }
    }
}

#[derive(QueryableByName)]
struct GameLine {
    #[diesel(sql_type = Text)]
    line: String,
}
