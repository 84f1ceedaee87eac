//! Accounts and settings.

use super::*;

store_tests! {
    fn usernames_are_unique_ignoring_case(store: Store, _db: &TestDb) {
        let alice = account(&store, "Alice");
        let again = store.insert_account(&NewAccount {
            username: "aLICE".into(),
            password_hash: None,
            role: Role::Admin,
            guest: true,
        });
        assert!(matches!(again, Err(StoreError::Conflict(Conflict::UsernameTaken))), "{again:?}");
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
        assert!(matches!(taken, Err(StoreError::Conflict(Conflict::UsernameTaken))), "{taken:?}");
        let upgraded = store.upgrade_guest(guest.id, "Bob", "h2").unwrap().value;
        assert_eq!((upgraded.id, upgraded.username.as_str(), upgraded.guest), (guest.id, "Bob", false));
        assert_eq!(upgraded.password_hash.as_deref(), Some("h2"));
        assert!(store.account_by_username("guest-7").unwrap().is_none());
        let again = store.upgrade_guest(guest.id, "Dora", "h3");
        assert!(matches!(again, Err(StoreError::Conflict(Conflict::NotAGuest))), "{again:?}");
        assert_eq!(store.account(guest.id).unwrap().unwrap().username, "Bob");
        let missing = store.upgrade_guest(Uuid::new_v4(), "Carol", "h");
        assert!(matches!(missing, Err(StoreError::NotFound)), "{missing:?}");
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

}
