//! What a stream's socket may cost the server: clients that stop reading hold a bounded number
//! of bytes in the kernel and are dropped within the configured time; a closed stream gives
//! its place back at once; a flood of streams against a 1,024-descriptor server is refused
//! past the limits while other clients' requests still answer. Prints its figures
//! (`cargo test --test api stream_sockets -- --nocapture`).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use socket2::{Domain, Protocol, Socket, Type};

use crate::common::app::{spawn_app_with, TestApp};
use crate::common::db::{enabled, TestBackend, TestDb};
use crate::common::process::ServeProcess;
use crate::compression::finished_game;
use crate::sse::Stream;
use crate::tables::players;

/// A connection from `source` that sends one GET and then never reads, with a small receive
/// buffer so the server's side fills quickly. Returns it and its local port.
fn silent_get(server: SocketAddr, source: Ipv4Addr, path: &str, token: &str) -> (Socket, u16) {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).expect("socket");
    socket
        .set_recv_buffer_size(4096)
        .expect("small receive buffer");
    socket
        .bind(&SocketAddr::from((source, 0)).into())
        .expect("bind a loopback address");
    socket.connect(&server.into()).expect("connect");
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {server}\r\nAuthorization: Bearer {token}\r\n\r\n");
    (&socket)
        .write_all(request.as_bytes())
        .expect("request sent");
    let port = socket
        .local_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .map_or(0, |a| a.port());
    (socket, port)
}

/// The established server side of the connections from `clients`: how many,
/// and the bytes queued for sending (`tx_queue` of /proc/net/tcp), all and the largest.
fn server_side(port: u16, clients: &HashSet<u16>) -> (usize, u64, u64) {
    let text = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    let (mut count, mut total, mut largest) = (0, 0, 0);
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(local), Some(remote), Some(queues)) =
            (fields.get(1), fields.get(2), fields.get(4))
        else {
            continue;
        };
        // Established only: a closed connection of the same ports may linger (TIME_WAIT).
        if fields.get(3) != Some(&"01") {
            continue;
        }
        let port_of = |a: &str| {
            a.split(':')
                .nth(1)
                .and_then(|p| u16::from_str_radix(p, 16).ok())
        };
        // Both ends on 127.0.0.1 (0100007F): other tests' clients come from other addresses.
        let loopback = |a: &str| a.starts_with("0100007F:");
        if !loopback(local)
            || !loopback(remote)
            || port_of(local) != Some(port)
            || !port_of(remote).is_some_and(|p| clients.contains(&p))
        {
            continue;
        }
        let queued = queues
            .split(':')
            .next()
            .and_then(|q| u64::from_str_radix(q, 16).ok())
            .unwrap_or(0);
        count += 1;
        total += queued;
        largest = largest.max(queued);
    }
    (count, total, largest)
}

fn address(app: &TestApp) -> SocketAddr {
    let url = reqwest::Url::parse(&app.url("/")).expect("the app's url");
    let port = url.port().expect("a port");
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

async fn non_reading_clients_hold_bounded_kernel_memory_and_are_dropped(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let drop_after = Duration::from_secs(3);
    let app = spawn_app_with(backend, |config| {
        config.stream_limits.drop_after = drop_after;
    })
    .await;
    let table = players(&app, &["ann", "bob"]).await;
    // A whole game: its log is far more than the bound, so every stream has bytes to send.
    let id = finished_game(&app, &table).await;
    let log = app
        .get(
            &format!("/v1/games/{id}/events?limit=500"),
            table[0].token(),
        )
        .await
        .bytes()
        .await
        .expect("the log");
    let server = address(&app);
    let path = format!("/v1/games/{id}/stream");
    let mut clients = Vec::new();
    for _ in 0..200 {
        clients.push(silent_get(
            server,
            Ipv4Addr::LOCALHOST,
            &path,
            &table[0].token,
        ));
    }
    let ports: HashSet<u16> = clients.iter().map(|(_, port)| *port).collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (count, total, largest) = server_side(server.port(), &ports);
    println!(
        "{backend:?}: 200 non-reading streams of a {} B log: {count} held, {total} B queued in the \
         server's kernel ({largest} B at most on one socket)",
        log.len()
    );
    assert!(
        log.len() > 64 * 1024,
        "a log of {} B proves nothing",
        log.len()
    );
    // At least the 200 (a connection of another test may share a pair of ports for a moment).
    assert!(count >= 200, "every stream is open at first: {count}");
    assert!(largest <= 64 * 1024, "{largest} B on one socket");
    assert!(total <= 200 * 64 * 1024, "{total} B in all");

    // A client that reads is served meanwhile.
    let mut reader = Stream::open(&app, &path, table[1].token(), None).await;
    assert!(
        reader.next(Duration::from_secs(2)).await.is_some(),
        "a reading client gets its frames"
    );

    // The kernel gives up on the silent ones after `drop_after`.
    let started = Instant::now();
    loop {
        let (count, ..) = server_side(server.port(), &ports);
        if count == 0 {
            break;
        }
        assert!(
            started.elapsed() < drop_after * 5,
            "{count} silent clients still held after {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    println!(
        "{backend:?}: all dropped {:?} after the first measurement (drop_after {drop_after:?})",
        started.elapsed()
    );
    drop(clients);
}

#[actix_web::test]
async fn non_reading_clients_hold_bounded_kernel_memory_and_are_dropped_postgres() {
    non_reading_clients_hold_bounded_kernel_memory_and_are_dropped(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn non_reading_clients_hold_bounded_kernel_memory_and_are_dropped_sqlite() {
    non_reading_clients_hold_bounded_kernel_memory_and_are_dropped(TestBackend::Sqlite).await;
}

/// A stream whose client hung up gives its place back at once, not at the next heartbeat.
async fn a_closed_stream_gives_its_place_back_at_once(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let app = spawn_app_with(backend, |config| {
        config.stream_limits.per_account = 1;
        config.stream_heartbeat = Duration::from_secs(15);
    })
    .await;
    let (token, _) = app.guest().await;
    for _ in 0..3 {
        // The one place: free at first, then once the stream before has hung up.
        let started = Instant::now();
        let stream = loop {
            let res = app.get("/v1/me/stream", Some(&token)).await;
            if res.status() == StatusCode::OK {
                break res;
            }
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "the place came back only after {:?}",
                started.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        println!("{backend:?}: a place after {:?}", started.elapsed());
        drop(stream);
    }
}

#[actix_web::test]
async fn a_closed_stream_gives_its_place_back_at_once_postgres() {
    a_closed_stream_gives_its_place_back_at_once(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn a_closed_stream_gives_its_place_back_at_once_sqlite() {
    a_closed_stream_gives_its_place_back_at_once(TestBackend::Sqlite).await;
}

/// The status code of a stream request from `source`; the connection is kept when it is 200.
fn open_stream(server: SocketAddr, source: Ipv4Addr, token: &str) -> (u16, Option<TcpStream>) {
    let (socket, _) = silent_get(server, source, "/v1/me/stream", token);
    let mut stream: TcpStream = socket.into();
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = [0u8; 12];
    if stream.read_exact(&mut head).is_err() {
        return (0, None);
    }
    let status = std::str::from_utf8(&head[9..12])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, (status == 200).then_some(stream))
}

async fn guest_at(url: &str) -> String {
    let res = reqwest::Client::new()
        .post(format!("{url}/v1/guests"))
        .json(&json!({}))
        .send()
        .await
        .expect("guest request");
    let body: serde_json::Value = res.json().await.expect("json");
    body["token"].as_str().expect("a token").to_string()
}

/// Another client's ordinary requests, timed while a flood goes on.
async fn timed_requests(
    url: String,
    token: String,
    until: tokio::sync::watch::Receiver<bool>,
) -> Vec<Duration> {
    let client = reqwest::Client::new();
    let mut took = Vec::new();
    while !*until.borrow() {
        for path in ["/healthz", "/v1/me/games"] {
            let started = Instant::now();
            let res = client
                .get(format!("{url}{path}"))
                .bearer_auth(&token)
                .send()
                .await
                .expect("an answer");
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            took.push(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    took
}

/// 2,000 streams against a server limited to 1,024 descriptors: one token gets 16 and 429s
/// beyond; 2,000 accounts from 40 addresses get as many as the global bound allows (three
/// quarters of the descriptors, less 64) and 429s beyond; another client's requests answer
/// meanwhile.
async fn a_stream_flood_leaves_a_small_server_responsive(backend: TestBackend) {
    if !enabled(backend) {
        eprintln!("skipped: {backend:?} is not in RACKO_TEST_BACKENDS");
        return;
    }
    let db = TestDb::new(backend);
    let server = ServeProcess::start_with_open_files(&db.url, &[], 1024);
    let url = server.url.clone();
    let address: SocketAddr = url
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    let flooder = guest_at(&url).await;
    let mut guests = Vec::new();
    for _ in 0..2000 {
        guests.push(guest_at(&url).await);
    }
    let other = guest_at(&url).await;
    let (stop, until) = tokio::sync::watch::channel(false);
    let timing = tokio::spawn(timed_requests(url.clone(), other, until));

    let flood = tokio::task::spawn_blocking(move || {
        let mut held = Vec::new();
        let (mut one_ok, mut one_refused) = (0, 0);
        for _ in 0..2000 {
            match open_stream(address, Ipv4Addr::LOCALHOST, &flooder) {
                (200, Some(stream)) => {
                    one_ok += 1;
                    held.push(stream);
                }
                (429, _) => one_refused += 1,
                (status, _) => panic!("a stream answered {status}"),
            }
        }
        let (mut many_ok, mut many_refused) = (0, 0);
        for (i, token) in guests.iter().enumerate() {
            // 40 source addresses, 50 accounts each: below the per-address bound.
            let source = Ipv4Addr::new(127, 0, 1, u8::try_from(1 + i % 40).unwrap_or(1));
            match open_stream(address, source, token) {
                (200, Some(stream)) => {
                    many_ok += 1;
                    held.push(stream);
                }
                (429, _) => many_refused += 1,
                (status, _) => panic!("a stream answered {status}"),
            }
        }
        (one_ok, one_refused, many_ok, many_refused, held)
    });
    let (one_ok, one_refused, many_ok, many_refused, held) = flood.await.expect("the flood ran");
    // A moment with every place taken.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = stop.send(true);
    let mut took = timing.await.expect("the timed client ran");
    took.sort();
    let median = took[took.len() / 2];
    let worst = took[took.len() - 1];
    println!(
        "{backend:?}: one token {one_ok} streams, {one_refused} refused; 2,000 accounts \
         {many_ok} streams, {many_refused} refused; another client's {} requests: median \
         {median:?}, worst {worst:?}",
        took.len()
    );
    assert_eq!((one_ok, one_refused), (16, 1984));
    // 1,024 descriptors: 704 streams in all, 16 of them the first token's.
    assert_eq!(many_ok, 704 - 16);
    assert_eq!(many_refused, 2000 - many_ok);
    assert!(median < Duration::from_millis(100), "median {median:?}");
    assert!(worst < Duration::from_secs(1), "worst {worst:?}");
    drop(held);
}

#[actix_web::test]
async fn a_stream_flood_leaves_a_small_server_responsive_postgres() {
    a_stream_flood_leaves_a_small_server_responsive(TestBackend::Postgres).await;
}

#[actix_web::test]
async fn a_stream_flood_leaves_a_small_server_responsive_sqlite() {
    a_stream_flood_leaves_a_small_server_responsive(TestBackend::Sqlite).await;
}
