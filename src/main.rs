//! `racko`: the server binary. With no subcommand it serves (on the embedded SQLite store when
//! `DATABASE_URL` is unset), so `cargo run` needs no configuration.

use std::{
    io::{BufRead, Write},
    process::ExitCode,
};

use anyhow::Context;
use clap::{Parser, Subcommand};
use racko::{
    app::Application,
    config::{Config, ConfigArgs},
    http::openapi,
    service::accounts::{self, Password, Username},
    store::{Role, Store},
    telemetry,
};

/// mimalloc instead of glibc's malloc: a request allocates a few hundred small blocks (JSON,
/// rows, strings), and glibc's malloc and free took about 14 % of the server's CPU at 50 games
/// (1.05-1.08x the actions/s with mimalloc). It also gives back the 19 MiB block of each
/// argon2id hash once freed, which glibc kept in per-thread arenas unless told otherwise
/// (`scripts/bench-signup-memory.sh`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "racko",
    version,
    about = "A server for asynchronous, turn-by-turn Racko"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    config: ConfigArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the OpenAPI document (JSON) to stdout. Needs no database.
    Openapi {
        /// The document of a server in test mode (with the test clock and stacked decks).
        #[arg(long)]
        test_mode: bool,
    },
    /// Verify a game export file (GET /v1/games/{id}/export of a finished game): seeds,
    /// decks, every action through the rules, scores and winners. Needs no server or database.
    /// Exit code 0: verified; 1: a discrepancy (named); 2: the file cannot be verified.
    Verify {
        /// The export file (JSON).
        file: std::path::PathBuf,
    },
    /// Administration.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create an admin account; the password is read from the first line of stdin.
    Create {
        #[arg(long)]
        username: String,
        /// Read the password from stdin (required: passwords never go on the command line).
        #[arg(long, required = true)]
        password_stdin: bool,
    },
}

#[actix_web::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init(cli.config.log_format);
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}`: the whole cause chain on one line, without a backtrace.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(cli.config).await,
        Command::Openapi { test_mode } => write_stdout(&openapi::openapi_json_for(test_mode)),
        Command::Verify { file } => {
            std::process::exit(racko::service::audit::verify::run_cli(&file))
        }
        Command::Migrate => {
            let url = database_url(&cli.config);
            tokio::task::spawn_blocking(move || Store::migrate(&url)).await??;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Admin {
            command: AdminCommand::Create { username, .. },
        } => create_admin(&cli.config, &username).await,
    }
}

async fn serve(args: ConfigArgs) -> anyhow::Result<()> {
    racko::notify::slots::raise_open_files_limit();
    let config = Config::from_args(args).context("invalid configuration")?;
    tracing::info!(environment = ?config.environment, test_mode = config.test_mode, "starting");
    let app = Application::build(config).await?;
    app.run_until_stopped().await?;
    tracing::info!("stopped");
    Ok(())
}

/// Prints to stdout; a closed pipe (`racko openapi | head`) is not an error.
fn write_stdout(text: &str) -> anyhow::Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// The store's URL alone: subcommands other than `serve` need no token secret.
fn database_url(args: &ConfigArgs) -> String {
    Config {
        database_url: args.database_url.clone().filter(|u| !u.trim().is_empty()),
        ..Config::defaults()
    }
    .database_url()
}

async fn create_admin(args: &ConfigArgs, username: &str) -> anyhow::Result<()> {
    let username = Username::parse(username).map_err(|e| anyhow::anyhow!(e.detail))?;
    // The first line of stdin, so that the password stays out of argv and shell history.
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from stdin")?;
    let password = line.trim_end_matches(['\r', '\n']).to_string();
    let password = Password::parse(password).map_err(|e| anyhow::anyhow!(e.detail))?;
    let (url, pool) = (database_url(args), 1);
    let store = tokio::task::spawn_blocking(move || Store::open(&url, pool)).await??;
    let account = accounts::register(&store, username, password, Role::Admin)
        .await
        .map_err(|e| anyhow::anyhow!("{}", e.detail))?;
    println!("created admin {} ({})", account.username, account.id);
    Ok(())
}
