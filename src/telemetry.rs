//! Logging: `tracing` to stderr (stdout stays clean for `racko openapi`), filtered by
//! `RUST_LOG` (default `info`), as text or JSON lines.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a log file or collector gets plain text, not escape
        // codes around every field.
        .with_ansi(std::io::stderr().is_terminal());
    // A second init (tests) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
