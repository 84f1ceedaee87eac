//! Sessions in the store: racing refreshes with one token, and what a token check reads.

use std::time::Duration;

use super::*;

fn open(store: &Store, account: &Account, hash: &str) -> SessionRecord {
    let new = NewSession {
        id: Uuid::new_v4(),
        account: account.id,
        refresh_hash: hash.into(),
        user_agent: Some("test".into()),
        client_address: None,
        expires_at: store.now() + chrono::Duration::days(90),
    };
    store.open_session(&new, 50).expect("opened").value
}

const NO_GRACE: Duration = Duration::ZERO;
const GRACE: Duration = Duration::from_secs(30);

store_tests! {
    fn the_token_spent_last_rotates_again_within_the_grace_window_and_no_other(
        store: Store,
        _db: &TestDb
    ) {
        let a = account(&store, "a");
        let session = open(&store, &a, "t1");
        let expires = store.now() + chrono::Duration::days(90);
        let refresh = |presented: &str, next: &str| {
            store
                .refresh_session(session.id, (presented, next), expires, GRACE)
                .expect("no store error")
                .value
        };
        assert!(matches!(refresh("t1", "t2"), Refreshed::Rotated { .. }));
        // t2's answer was lost: t1 again gets t3, and t2 is spent unseen.
        assert!(matches!(refresh("t1", "t3"), Refreshed::RotatedAgain { .. }));
        assert!(matches!(refresh("t3", "t4"), Refreshed::Rotated { .. }));
        // t1 is two rotations old now: reuse, the session ends.
        assert!(matches!(refresh("t1", "t5"), Refreshed::Reused { .. }));
        assert!(matches!(refresh("t4", "t6"), Refreshed::Unknown));

        let other = open(&store, &a, "u1");
        let refresh = |presented: &str, next: &str| {
            store
                .refresh_session(other.id, (presented, next), expires, GRACE)
                .expect("no store error")
                .value
        };
        assert!(matches!(refresh("u1", "u2"), Refreshed::Rotated { .. }));
        // Past the window (the store's clock moved on), the spent token is reuse.
        store.raise_clock_offset(store.clock_offset() + 31_000_000);
        assert!(matches!(refresh("u1", "u3"), Refreshed::Reused { .. }));
        assert!(store.sessions(a.id).expect("listed").is_empty());
    }

    fn of_ten_refreshes_racing_with_one_token_one_rotates_and_the_rest_end_the_session(
        store: Store,
        _db: &TestDb
    ) {
        let a = account(&store, "a");
        let session = open(&store, &a, "first");
        let barrier = Arc::new(Barrier::new(10));
        let results: Vec<_> = (0..10)
            .map(|n| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    let expires = store.now() + chrono::Duration::days(90);
                    let next = format!("next-{n}");
                    store
                        .refresh_session(session.id, ("first", &next), expires, NO_GRACE)
                        .map(|done| done.value)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("no panic").expect("no store error"))
            .collect();
        let rotated = results
            .iter()
            .filter(|r| matches!(r, Refreshed::Rotated { .. }))
            .count();
        assert_eq!(rotated, 1, "{results:?}");
        // The first to find the token spent ends the session; later ones find none at all.
        assert!(
            results
                .iter()
                .any(|r| matches!(r, Refreshed::Reused { account } if *account == a.id)),
            "{results:?}"
        );
        assert!(store.sessions(a.id).expect("listed").is_empty());
        let read = store.account_for_token(a.id).expect("read").expect("the account");
        assert!(read.sessions.is_empty());
    }

    fn a_token_check_reads_the_live_sessions_in_one_go(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let read = store.account_for_token(a.id).expect("read").expect("the account");
        assert!(read.sessions.is_empty(), "an account without sessions is still read");
        let one = open(&store, &a, "one");
        let two = open(&store, &a, "two");
        let read = store.account_for_token(a.id).expect("read").expect("the account");
        let mut ids: Vec<Uuid> = read.sessions.iter().map(|s| s.id).collect();
        ids.sort();
        let mut expected = vec![one.id, two.id];
        expected.sort();
        assert_eq!(ids, expected);
        assert!(read.has_session(one.id, store.now()));
        assert!(!read.has_session(one.id, one.expires_at));
        let _ = store.end_session(a.id, one.id).expect("ended");
        assert!(matches!(store.end_session(a.id, one.id), Err(StoreError::NotFound)));
        let read = store.account_for_token(a.id).expect("read").expect("the account");
        assert_eq!(read.sessions.iter().map(|s| s.id).collect::<Vec<_>>(), [two.id]);
        assert!(store.account_for_token(Uuid::new_v4()).expect("read").is_none());
    }

    fn expired_sessions_are_refused_and_swept(store: Store, _db: &TestDb) {
        let a = account(&store, "a");
        let live = open(&store, &a, "live");
        let new = NewSession {
            id: Uuid::new_v4(),
            account: a.id,
            refresh_hash: "old".into(),
            user_agent: None,
            client_address: None,
            expires_at: store.now() - chrono::Duration::seconds(1),
        };
        let expired = store.open_session(&new, 50).expect("opened").value;
        let ids: Vec<Uuid> = store.sessions(a.id).expect("listed").iter().map(|s| s.id).collect();
        assert_eq!(ids, [live.id], "an expired session is not listed");
        assert_eq!(store.delete_expired_sessions(1000).expect("swept"), 1);
        assert_eq!(store.delete_expired_sessions(1000).expect("swept"), 0);
        let expires = store.now() + chrono::Duration::days(90);
        assert!(matches!(
            store.refresh_session(expired.id, ("old", "next"), expires, NO_GRACE),
            Ok(Committed {
                value: Refreshed::Unknown,
                ..
            })
        ));
        assert!(matches!(
            store.refresh_session(live.id, ("live", "next"), expires, NO_GRACE),
            Ok(Committed {
                value: Refreshed::Rotated { .. },
                ..
            })
        ));
    }
}
