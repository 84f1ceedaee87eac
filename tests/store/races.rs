//! Concurrent writers on one game.

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
