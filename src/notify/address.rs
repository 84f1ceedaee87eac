//! Which webhook URLs the server may call: http(s) only, and (unless
//! `RACKO_WEBHOOKS_ALLOW_PRIVATE=1`) none that resolves to a loopback, private, link-local or
//! otherwise internal address, so that an account cannot make the server probe its own
//! network. Checked at registration and again before every attempt (DNS may change).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};

use crate::error::{Code, ServiceError};

fn bad_url(detail: impl Into<String>) -> ServiceError {
    ServiceError::new(Code::InvalidWebhookUrl, detail)
}

/// Checks `url` and resolves its host (blocking); Ok when the server may call it.
pub fn check(url: &str, allow_private: bool) -> Result<(), ServiceError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| bad_url(format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad_url("the URL must be http or https"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad_url("the URL must not hold credentials"));
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| bad_url("the URL has no host"))?;
    let port = parsed
        .port_or_known_default()
        .ok_or_else(|| bad_url("the URL has no port"))?;
    if allow_private {
        return Ok(());
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<IpAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| bad_url(format!("the host does not resolve: {e}")))?
        .map(|a| a.ip())
        .collect();
    if addresses.is_empty() {
        return Err(bad_url("the host does not resolve"));
    }
    if let Some(inner) = addresses.iter().find(|ip| internal(**ip)) {
        return Err(ServiceError::new(
            Code::WebhookAddressRefused,
            format!("the host resolves to {inner}, an internal address"),
        ));
    }
    Ok(())
}

/// Loopback, private, link-local, shared, unspecified, broadcast, multicast or documentation.
pub fn internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => internal_v4(v4),
            None => internal_v6(v6),
        },
    }
}

fn internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        // 100.64.0.0/10, carrier-grade NAT
        || (a == 100 && (64..128).contains(&b))
}

fn internal_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        // fc00::/7 unique local, fe80::/10 link-local
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_refused_and_public_ones_pass() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(internal(ip.parse().expect("an address")), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert!(!internal(ip.parse().expect("an address")), "{ip}");
        }
    }

    #[test]
    fn urls_are_checked_before_any_lookup() {
        for url in [
            "ftp://example.com/",
            "not a url",
            "http://user:pw@example.com/",
        ] {
            assert_eq!(
                check(url, false).map_err(|e| e.code),
                Err(Code::InvalidWebhookUrl),
                "{url}"
            );
        }
        assert_eq!(
            check("http://127.0.0.1:9/hook", false).map_err(|e| e.code),
            Err(Code::WebhookAddressRefused)
        );
        assert!(check("http://127.0.0.1:9/hook", true).is_ok());
    }
}
