//! What every `racko serve` process runs beside the HTTP server: the sweeper (deadlines and
//! computer seats), housekeeping (old records, unfinished deletions), and the delivery of
//! webhooks and pushes from their outboxes. Each goes through the service like a request.

pub mod housekeeping;
pub mod push;
pub mod seeks;
pub mod sweeper;
pub mod webhooks;
