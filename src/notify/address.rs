//! Which webhook addresses the server may call: http(s) URLs only, and (unless
//! `RACKO_WEBHOOKS_ALLOW_PRIVATE=1`, refused in production) none in a special-purpose range of
//! the IANA IPv4 and IPv6 registries, so that an account cannot make the server probe its own
//! network. A name is resolved once per connection, by [`Guard`] as the HTTP client's resolver,
//! and the client connects only to the addresses it checked: an answer that changes between a
//! check and the connection (DNS rebinding) cannot slip through. Also checked at registration.

use std::net::{IpAddr, SocketAddr};

use crate::config::WebhookLookup;
use crate::error::{Code, ServiceError};

mod ranges;
pub use ranges::internal;

/// A URL's host: a literal address (the client connects to it without resolving) or a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    Address(IpAddr),
    Name(String),
}

/// Why no connection may be made to a host.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// One of its addresses is special-purpose (the address stays in the server log).
    #[error("{0} is a special-purpose address")]
    Internal(IpAddr),
    #[error("the host does not resolve: {0}")]
    Unresolved(std::io::Error),
}

fn bad_url(detail: impl Into<String>) -> ServiceError {
    ServiceError::new(Code::InvalidWebhookUrl, detail)
}

/// The host of a webhook URL, or why the URL is not one.
pub fn host(url: &str) -> Result<Host, ServiceError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| bad_url(format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad_url("the URL must be http or https"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad_url("the URL must not hold credentials"));
    }
    let host = parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad_url("the URL has no host"))?;
    // The URL parser has already read every IPv4 spelling (`0x7f.1`, `2130706433`) as one
    // and written it out dotted, so a name never parses as an address.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    Ok(match bare.parse::<IpAddr>() {
        Ok(ip) => Host::Address(ip),
        Err(_) => Host::Name(host.to_string()),
    })
}

/// The address policy and the one resolver it checks: used at registration and as the HTTP
/// client's resolver for every delivery.
#[derive(Clone, Debug)]
pub struct Guard {
    allow_private: bool,
    lookup: WebhookLookup,
}

impl Guard {
    pub fn new(allow_private: bool, lookup: WebhookLookup) -> Guard {
        Guard {
            allow_private,
            lookup,
        }
    }

    /// Refuses a special-purpose address unless private addresses are allowed.
    pub fn allowed(&self, ip: IpAddr) -> Result<(), Refusal> {
        if !self.allow_private && internal(ip) {
            return Err(Refusal::Internal(ip));
        }
        Ok(())
    }

    /// Resolves `name` once (blocking) and checks every answer.
    pub fn resolve(&self, name: &str) -> Result<Vec<IpAddr>, Refusal> {
        let addresses = self.lookup.lookup(name).map_err(Refusal::Unresolved)?;
        if addresses.is_empty() {
            return Err(Refusal::Unresolved(std::io::ErrorKind::NotFound.into()));
        }
        addresses.iter().try_for_each(|ip| self.allowed(*ip))?;
        Ok(addresses)
    }

    /// Registration: Ok when the server may call `url` (blocking: resolves its host). The
    /// account is told neither the addresses nor the resolver's words.
    pub fn check(&self, url: &str) -> Result<(), ServiceError> {
        let refused = |e: Refusal| match e {
            Refusal::Internal(_) => ServiceError::new(
                Code::WebhookAddressRefused,
                "the host has a special-purpose (internal) address",
            ),
            Refusal::Unresolved(_) => bad_url("the host does not resolve"),
        };
        match host(url)? {
            Host::Address(ip) => self.allowed(ip).map_err(refused),
            Host::Name(name) => self.resolve(&name).map(drop).map_err(refused),
        }
    }
}

/// As the HTTP client's resolver: the client connects only to the addresses returned here.
impl reqwest::dns::Resolve for Guard {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (guard, name) = (self.clone(), name.as_str().to_string());
        Box::pin(async move {
            let found = tokio::task::spawn_blocking(move || guard.resolve(&name)).await?;
            // Port 0: the client puts in the URL's.
            let addresses: Vec<SocketAddr> = found?
                .into_iter()
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            Ok(Box::new(addresses.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::HostLookup;

    /// Answers from a script, one answer per lookup (the last again once it is used up).
    #[derive(Debug)]
    struct Scripted(std::sync::Mutex<(Vec<Vec<IpAddr>>, usize)>);

    impl Scripted {
        fn new(answers: Vec<Vec<IpAddr>>) -> Arc<Scripted> {
            Arc::new(Scripted(std::sync::Mutex::new((answers, 0))))
        }

        fn lookups(&self) -> usize {
            self.0.lock().expect("script").1
        }
    }

    impl HostLookup for Scripted {
        fn lookup(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            let mut script = self.0.lock().expect("script");
            let (answers, used) = &mut *script;
            let answer = answers.get(*used).or(answers.last()).cloned();
            *used += 1;
            Ok(answer.unwrap_or_default())
        }
    }

    fn guard(allow_private: bool, answers: Vec<Vec<IpAddr>>) -> (Guard, Arc<Scripted>) {
        let script = Scripted::new(answers);
        let lookup = WebhookLookup(script.clone());
        (Guard::new(allow_private, lookup), script)
    }

    #[test]
    fn urls_are_checked_before_any_lookup() {
        let (guard, script) = guard(false, vec![]);
        for url in [
            "ftp://example.com/",
            "not a url",
            "http://user:pw@example.com/",
            "mailto:hooks@example.com",
        ] {
            assert_eq!(
                guard.check(url).map_err(|e| e.code),
                Err(Code::InvalidWebhookUrl),
                "{url}"
            );
        }
        assert_eq!(script.lookups(), 0);
    }

    #[test]
    fn literal_addresses_in_every_spelling_are_refused_without_a_lookup() {
        let (guard, script) = guard(false, vec![]);
        for url in [
            "http://127.0.0.1:9/hook",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:a00:1::]/",
            "http://[fe80::1%25eth0]/",
            "http://169.254.169.254/latest",
            "http://198.18.0.1/",
            "http://240.0.0.1/",
        ] {
            let code = guard.check(url).map_err(|e| e.code);
            assert!(
                matches!(
                    code,
                    Err(Code::WebhookAddressRefused) | Err(Code::InvalidWebhookUrl)
                ),
                "{url}: {code:?}"
            );
        }
        assert_eq!(
            host("http://0x7f.1/").ok(),
            Some(Host::Address("127.0.0.1".parse().expect("ip")))
        );
        assert_eq!(script.lookups(), 0);
        let (open, _) = super::tests::guard(true, vec![]);
        assert!(open.check("http://127.0.0.1:9/hook").is_ok());
    }

    #[test]
    fn a_name_is_refused_when_any_answer_is_special() {
        let public: IpAddr = "93.184.216.34".parse().expect("ip");
        let inside: IpAddr = "10.0.0.7".parse().expect("ip");
        let (guard, _) = guard(false, vec![vec![public, inside]]);
        let e = guard.check("https://hooks.example/x").expect_err("refused");
        assert_eq!(e.code, Code::WebhookAddressRefused);
        assert!(!e.detail.contains("10.0.0.7"), "{}", e.detail);
        let (guard, _) = super::tests::guard(false, vec![vec![]]);
        let e = guard
            .check("https://nowhere.example/")
            .expect_err("refused");
        assert_eq!(e.code, Code::InvalidWebhookUrl);
        let (guard, _) = super::tests::guard(false, vec![vec![public]]);
        assert!(guard.check("https://hooks.example/x").is_ok());
    }

    #[test]
    fn each_resolution_is_checked_on_its_own() {
        // A rebinding resolver: public for the registration, loopback for the delivery.
        let public: IpAddr = "93.184.216.34".parse().expect("ip");
        let loopback: IpAddr = "127.0.0.1".parse().expect("ip");
        let (guard, script) = guard(false, vec![vec![public], vec![loopback]]);
        assert!(guard.check("http://rebind.example/").is_ok());
        assert!(matches!(
            guard.resolve("rebind.example"),
            Err(Refusal::Internal(ip)) if ip == loopback
        ));
        assert_eq!(script.lookups(), 2);
    }
}
