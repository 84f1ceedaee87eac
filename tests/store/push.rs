//! The push outbox: its rows commit with the change (or roll back with it), and a claim is
//! fair: at most its share per device in flight, the accounts in turn.

use chrono::Duration;

use super::*;

fn device(store: &Store, who: &Account, token: &str) -> Device {
    let new = NewDevice {
        account_id: who.id,
        provider: "fcm".into(),
        address: token.into(),
        p256dh: None,
        auth: None,
        topic: None,
        sandbox: false,
        kinds: vec!["player_joined".into()],
        language: "en".into(),
        quiet: None,
        utc_offset: 0,
    };
    store.put_device(&new, 32).expect("a device")
}

/// A change of `id` that tells each of `told` of a player joining (a kind no push collapses).
fn telling(
    store: &Store,
    id: Uuid,
    told: &[&Account],
    break_seats: Option<&Account>,
) -> Result<(), StoreError> {
    update(store, id, |record| {
        let seats = match break_seats {
            // One account in two seats: the write breaks a rule after the feed items.
            Some(b) => vec![seat(0, b, true), seat(1, b, true)],
            None => record.seats.clone(),
        };
        let mut c = seated(record, vec![event("joined", None)], seats);
        c.feed = told
            .iter()
            .map(|a| NewFeedItem {
                account_id: a.id,
                kind: "player_joined".into(),
                payload: json!({ "username": "someone" }),
            })
            .collect();
        Ok::<_, StoreError>((c, ()))
    })
}

fn claim(store: &Store, limit: i64) -> Vec<ClaimedPush> {
    let now = racko::store::now() + Duration::seconds(1);
    store
        .claim_pushes(now, now + Duration::minutes(1), limit, 1)
        .expect("a claim")
}

store_tests! {
    fn a_change_that_rolls_back_pushes_nothing(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        device(&store, &a, "a-phone");
        let new = new_game(&a, vec![seat(0, &a, true)]);
        let _ = store.insert_game(&new, &[], None).unwrap();
        let broken = telling(&store, new.id, &[&a], Some(&b));
        assert!(matches!(broken, Err(StoreError::Conflict(Conflict::SeatTaken))), "{broken:?}");
        assert_eq!(store.push_backlog().unwrap().0, 0);
        assert!(claim(&store, 10).is_empty());
        // The same change, committed, pushes: the check above would have seen a row.
        telling(&store, new.id, &[&a], None).unwrap();
        assert_eq!(store.push_backlog().unwrap().0, 1);
        let claimed = claim(&store, 10);
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].body["kind"], "player_joined");
    }

    fn a_claim_takes_one_per_device_and_the_accounts_in_turn(store: Store, _db: &TestDb) {
        let (a, b) = (account(&store, "a"), account(&store, "b"));
        let (a1, a2, b1) = (
            device(&store, &a, "a-phone"),
            device(&store, &a, "a-tablet"),
            device(&store, &b, "b-phone"),
        );
        let new = new_game(&a, vec![seat(0, &a, true), seat(1, &b, false)]);
        let _ = store.insert_game(&new, &[], None).unwrap();
        // a's two devices get five pushes each before b's device gets its one.
        for _ in 0..5 {
            telling(&store, new.id, &[&a], None).unwrap();
        }
        telling(&store, new.id, &[&b], None).unwrap();
        assert_eq!(store.push_backlog().unwrap().0, 11);
        // Two sends: one account's first and the other's first, not a's two devices.
        let first = claim(&store, 2);
        let owners: BTreeSet<Uuid> = first.iter().map(|p| p.device.device.account_id).collect();
        assert_eq!(owners, BTreeSet::from([a.id, b.id]), "{first:?}");
        // Then a's other device; then nothing, each device has its one in flight.
        let second = claim(&store, 10);
        assert_eq!(second.len(), 1, "{second:?}");
        let busy: BTreeSet<Uuid> = first.iter().chain(&second).map(|p| p.device.id).collect();
        assert_eq!(busy, BTreeSet::from([a1.id, a2.id, b1.id]));
        assert!(claim(&store, 10).is_empty(), "one in flight per device");
        // A device whose send is over gets its next push, oldest first.
        let done = first.iter().find(|p| p.device.id != b1.id).expect("a's push");
        store
            .finish_push(done, &PushAttempt::Delivered { status: 200 })
            .unwrap();
        let next = claim(&store, 10);
        assert_eq!(next.len(), 1, "{next:?}");
        assert_eq!(next[0].device.id, done.device.id);
        assert!(next[0].body["seq"].as_i64() > done.body["seq"].as_i64());
    }
}
