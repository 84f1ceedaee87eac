//! `scale populate`: accounts, then games played by computer players, bulk-loaded.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use racko::service::population::{game, Player, Stage};
use racko::store::{NewAccount, Role, Store};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::{flags, number, text, username, PASSWORD};

/// The letters of an invite code (as the service draws them: no I, L, O, 0 or 1).
const CODE_LETTERS: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

pub fn run(args: &[String]) -> Result<(), String> {
    let pairs = flags(args)?;
    let db = text(&pairs, "--db")?;
    let accounts = number(&pairs, "--accounts", 200_000)?.max(2);
    let finished = number(&pairs, "--finished", 1_000_000)?;
    let active = number(&pairs, "--active", 50_000)?;
    let open = number(&pairs, "--open", 1_000)?;
    let threads = number(&pairs, "--threads", 2)?.max(1);
    let batch = number(&pairs, "--batch", 100)?.max(1);
    let store = Store::open(&db, threads as u32 + 1).map_err(|e| e.to_string())?;
    let started = Instant::now();

    // One hash for all: hashing is deliberately slow, and every account may share it.
    let hash = actix_web::rt::System::new()
        .block_on(racko::auth::hash_password(PASSWORD.to_string()))
        .map_err(|e| e.detail)?;
    let players = accounts_of(&store, accounts, threads, &hash)?;
    let accounts_took = started.elapsed();
    eprintln!(
        "{accounts} accounts in {:.1} s ({:.0}/s)",
        accounts_took.as_secs_f64(),
        accounts as f64 / accounts_took.as_secs_f64()
    );

    let total = finished + active + open;
    let done = AtomicUsize::new(0);
    let events = AtomicUsize::new(0);
    let games_started = Instant::now();
    let nonce: u64 = rand::rng().random_range(0..31u64.pow(8) / 2);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (store, players, done, events) = (&store, &players, &done, &events);
                scope.spawn(move || -> Result<(), String> {
                    let mut rng = StdRng::from_os_rng();
                    let lead = store.reminder_lead();
                    let mut last_report = Instant::now();
                    let mut first = t * batch;
                    while first < total {
                        let mut made = Vec::with_capacity(batch);
                        for i in first..(first + batch).min(total) {
                            let stage = if i < finished {
                                Stage::Finished
                            } else if i < finished + active {
                                Stage::Active {
                                    actions: rng.random_range(1..120),
                                }
                            } else {
                                Stage::Open
                            };
                            let host = &players[rng.random_range(0..players.len())];
                            let mut guest = host;
                            while guest.id == host.id {
                                guest = &players[rng.random_range(0..players.len())];
                            }
                            let days = if stage == Stage::Finished { 365.0 } else { 2.0 };
                            let ago =
                                Duration::from_secs_f64(rng.random_range(0.0..days) * 86_400.0);
                            let at = racko::store::now() - ago;
                            let code = invite_code(nonce + i as u64);
                            let made_game =
                                game((host, guest), stage, (at, lead), code, rng.random())
                                    .map_err(|e| e.detail)?;
                            events.fetch_add(made_game.1.len(), Ordering::Relaxed);
                            made.push(made_game);
                        }
                        store
                            .insert_games_in_bulk(&made)
                            .map_err(|e| e.to_string())?;
                        let now_done = done.fetch_add(made.len(), Ordering::Relaxed) + made.len();
                        if t == 0 && last_report.elapsed() > Duration::from_secs(30) {
                            last_report = Instant::now();
                            let secs = games_started.elapsed().as_secs_f64();
                            eprintln!(
                                "{now_done}/{total} games, {:.0} games/s, {:.0} events/s",
                                now_done as f64 / secs,
                                events.load(Ordering::Relaxed) as f64 / secs
                            );
                        }
                        first += threads * batch;
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or(Err("a worker panicked".into())))
            .collect::<Result<Vec<()>, String>>()
    })?;
    let secs = games_started.elapsed().as_secs_f64();
    let events = events.load(Ordering::Relaxed);
    println!(
        "populated: {accounts} accounts, {finished} finished, {active} active and {open} open \
         games ({events} events, {:.0} per game) in {:.0} s: games at {:.0}/s, {:.0} events/s; \
         {threads} threads, load average {}",
        events as f64 / total.max(1) as f64,
        started.elapsed().as_secs_f64(),
        total as f64 / secs,
        events as f64 / secs,
        crate::measure::load_average()
    );
    Ok(())
}

/// Accounts `pop0` … in parallel through the store (as a sign-up writes them).
fn accounts_of(store: &Store, n: usize, threads: usize, hash: &str) -> Result<Vec<Player>, String> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || -> Result<Vec<(usize, Player)>, String> {
                    let mut made = Vec::new();
                    for i in (t..n).step_by(threads) {
                        let account = store
                            .insert_account(&NewAccount {
                                username: username(i),
                                password_hash: Some(hash.to_string()),
                                role: Role::Player,
                                guest: false,
                            })
                            .map_err(|e| e.to_string())?;
                        made.push((
                            i,
                            Player {
                                id: account.id,
                                username: account.username,
                            },
                        ));
                    }
                    Ok(made)
                })
            })
            .collect();
        let mut all = Vec::with_capacity(n);
        for worker in workers {
            all.extend(worker.join().unwrap_or(Err("a worker panicked".into()))?);
        }
        all.sort_by_key(|(i, _)| *i);
        Ok(all.into_iter().map(|(_, player)| player).collect())
    })
}

/// Invite code number `n` (8 letters; distinct for distinct `n` below 31^8).
fn invite_code(mut n: u64) -> String {
    let mut code = String::with_capacity(8);
    for _ in 0..8 {
        code.push(CODE_LETTERS[(n % 31) as usize] as char);
        n /= 31;
    }
    code
}
