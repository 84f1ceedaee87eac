//! How webhook host names become addresses. Production asks the system resolver; a test may
//! hand in its own (a rebinding one, say). `notify::address` checks every answer and the
//! delivery connects only to what it checked, so this is the one place a name is resolved.

use std::fmt;
use std::io;
use std::net::{IpAddr, ToSocketAddrs};
use std::sync::Arc;

/// Resolves a host name (blocking).
pub trait HostLookup: Send + Sync + fmt::Debug {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The system resolver (`getaddrinfo`).
#[derive(Debug)]
pub struct SystemLookup;

impl HostLookup for SystemLookup {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok((host, 0).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// The resolver webhook deliveries and registrations use.
#[derive(Clone, Debug)]
pub struct WebhookLookup(pub Arc<dyn HostLookup>);

impl Default for WebhookLookup {
    fn default() -> WebhookLookup {
        WebhookLookup(Arc::new(SystemLookup))
    }
}

impl WebhookLookup {
    pub fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.0.lookup(host)
    }
}
