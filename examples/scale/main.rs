//! How the server's costs grow with its data. `scripts/scale-bench.sh` runs it; see
//! docs/scaling.md for the figures.
//!
//! - `scale populate --db URL [--accounts N] [--finished N] [--active N] [--open N]
//!   [--threads N]` migrates the database and fills it: accounts (each with the password
//!   `population password`, usernames `pop0`, `pop1`, …), then games played by computer
//!   players through the rules (`racko::service::population`), so every log replays and
//!   verifies, loaded by multi-row INSERTs (`Store::insert_games_in_bulk`). Prints the rate.
//! - `scale measure --empty URL --empty-db URL --full URL --full-db URL [--rounds N]
//!   [--samples N]` measures p50/p99 of real HTTP requests against two running servers, one
//!   on an empty and one on a populated database, interleaved by rounds, plus a sweeper pass
//!   and the bytes each stored game takes; prints a table with the ratios.

mod measure;
mod populate;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("populate") => populate::run(&args[1..]),
        Some("measure") => measure::run(&args[1..]),
        _ => Err("usage: scale populate|measure [flags] (see examples/scale/main.rs)".into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// The flags of a command as (name, value) pairs, each flag taking a value.
pub fn flags(args: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        pairs.push((flag.clone(), value.clone()));
    }
    Ok(pairs)
}

/// The value of `--name` parsed, else `default`.
pub fn number(pairs: &[(String, String)], name: &str, default: usize) -> Result<usize, String> {
    match pairs.iter().find(|(flag, _)| flag == name) {
        Some((_, value)) => value
            .replace('_', "")
            .parse()
            .map_err(|_| format!("{name}: a number, not {value}")),
        None => Ok(default),
    }
}

/// The value of `--name`, required.
pub fn text(pairs: &[(String, String)], name: &str) -> Result<String, String> {
    pairs
        .iter()
        .find(|(flag, _)| flag == name)
        .map(|(_, value)| value.clone())
        .ok_or(format!("{name} is required"))
}

/// The password of every account of the population.
pub const PASSWORD: &str = "population password";

/// The username of population account `n`.
pub fn username(n: usize) -> String {
    format!("pop{n}")
}
