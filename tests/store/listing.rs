//! `list_games`: filters and cursor paging.

use super::*;

store_tests! {
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
            let _ = store.insert_game(&game, &[], None).unwrap();
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
            assert!(matches!(e, Err(StoreError::BadInput(BadInput::InvalidCursor))), "{bad}: {e:?}");
        }
    }

}
