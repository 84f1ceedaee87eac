//! The special-purpose address ranges a webhook may not reach: every entry of the IANA IPv4
//! and IPv6 Special-Purpose Address Registries (whether marked globally reachable or not:
//! a relay or translator among them can lead inside), multicast, the deprecated forms still
//! routed somewhere (site-local, IPv4-compatible), and in IPv6 anything outside global unicast
//! 2000::/3. 6to4 carries an IPv4 address, which decides.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const fn v4(a: u8, b: u8, c: u8, d: u8) -> Ipv4Addr {
    Ipv4Addr::new(a, b, c, d)
}

#[allow(clippy::too_many_arguments)]
const fn v6(a: u16, b: u16, c: u16, d: u16, e: u16, f: u16, g: u16, h: u16) -> Ipv6Addr {
    Ipv6Addr::new(a, b, c, d, e, f, g, h)
}

/// (network, prefix length, what it is).
pub(super) const V4: &[(Ipv4Addr, u8, &str)] = &[
    (v4(0, 0, 0, 0), 8, "this network"),
    (v4(10, 0, 0, 0), 8, "private"),
    (
        v4(100, 64, 0, 0),
        10,
        "shared address space (carrier-grade NAT)",
    ),
    (v4(127, 0, 0, 0), 8, "loopback"),
    (v4(169, 254, 0, 0), 16, "link-local (cloud metadata)"),
    (v4(172, 16, 0, 0), 12, "private"),
    (v4(192, 0, 0, 0), 24, "IETF protocol assignments"),
    (v4(192, 0, 2, 0), 24, "documentation (TEST-NET-1)"),
    (v4(192, 31, 196, 0), 24, "AS112"),
    (v4(192, 52, 193, 0), 24, "AMT"),
    (v4(192, 88, 99, 0), 24, "6to4 relay anycast"),
    (v4(192, 168, 0, 0), 16, "private"),
    (v4(192, 175, 48, 0), 24, "AS112 direct delegation"),
    (v4(198, 18, 0, 0), 15, "benchmarking"),
    (v4(198, 51, 100, 0), 24, "documentation (TEST-NET-2)"),
    (v4(203, 0, 113, 0), 24, "documentation (TEST-NET-3)"),
    (v4(224, 0, 0, 0), 4, "multicast"),
    (v4(240, 0, 0, 0), 4, "reserved, and the limited broadcast"),
];

/// (network, prefix length, what it is). Most lie outside 2000::/3 and would be refused
/// anyway; they are named so that the tests (and a reader) can see each one.
pub(super) const V6: &[(Ipv6Addr, u8, &str)] = &[
    (v6(0, 0, 0, 0, 0, 0, 0, 0), 128, "unspecified"),
    (v6(0, 0, 0, 0, 0, 0, 0, 1), 128, "loopback"),
    (v6(0, 0, 0, 0, 0, 0xffff, 0, 0), 96, "IPv4-mapped"),
    (
        v6(0, 0, 0, 0, 0, 0, 0, 0),
        96,
        "IPv4-compatible (deprecated)",
    ),
    (v6(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, "NAT64"),
    (
        v6(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local-use IPv4/IPv6 translation",
    ),
    (v6(0x100, 0, 0, 0, 0, 0, 0, 0), 64, "discard-only"),
    (v6(0x100, 0, 0, 1, 0, 0, 0, 0), 64, "dummy prefix"),
    (
        v6(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "IETF protocol assignments",
    ),
    (v6(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "Teredo"),
    (v6(0x2001, 2, 0, 0, 0, 0, 0, 0), 48, "benchmarking"),
    (v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, "documentation"),
    (
        v6(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0),
        48,
        "AS112 direct delegation",
    ),
    (v6(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, "documentation"),
    (
        v6(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "segment routing (SRv6) SIDs",
    ),
    (v6(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, "unique local"),
    (v6(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (
        v6(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "site-local (deprecated)",
    ),
    (v6(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

/// 6to4: 2002:AABB:CCDD::/48 stands for the IPv4 address AA.BB.CC.DD.
const SIX_TO_FOUR: (Ipv6Addr, u8) = (v6(0x2002, 0, 0, 0, 0, 0, 0, 0), 16);
/// Global unicast: the only IPv6 space handed out for public use.
const GLOBAL_UNICAST: (Ipv6Addr, u8) = (v6(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

fn in_v4(ip: Ipv4Addr, (net, len): (Ipv4Addr, u8)) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(net) & mask
}

fn in_v6(ip: Ipv6Addr, (net, len): (Ipv6Addr, u8)) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

/// True for an address in a special-purpose range: the server does not call it.
pub fn internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => internal_v4(ip),
        IpAddr::V6(ip) => internal_v6(ip),
    }
}

fn internal_v4(ip: Ipv4Addr) -> bool {
    V4.iter().any(|&(net, len, _)| in_v4(ip, (net, len)))
}

fn internal_v6(ip: Ipv6Addr) -> bool {
    if in_v6(ip, SIX_TO_FOUR) {
        let [_, a, b, ..] = ip.segments();
        let [a1, a2] = a.to_be_bytes();
        let [b1, b2] = b.to_be_bytes();
        return internal_v4(Ipv4Addr::new(a1, a2, b1, b2));
    }
    !in_v6(ip, GLOBAL_UNICAST) || V6.iter().any(|&(net, len, _)| in_v6(ip, (net, len)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str) -> bool {
        internal(ip.parse().expect("an address"))
    }

    #[test]
    fn the_first_and_last_address_of_every_range_are_refused() {
        for &(net, len, what) in V4 {
            let first = u32::from(net);
            let last = first | u32::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            for ip in [first, last, first + (last - first) / 2] {
                let ip = IpAddr::V4(Ipv4Addr::from(ip));
                assert!(internal(ip), "{ip} in {net}/{len} ({what})");
            }
        }
        for &(net, len, what) in V6 {
            let first = u128::from(net);
            let last = first | u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
            for ip in [first, last, first + (last - first) / 2] {
                let ip = IpAddr::V6(Ipv6Addr::from(ip));
                assert!(internal(ip), "{ip} in {net}/{len} ({what})");
            }
        }
    }

    #[test]
    fn the_named_special_addresses_are_refused() {
        for ip in [
            // IPv4
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.255.255.255",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.0.170",
            "192.0.2.1",
            "192.31.196.1",
            "192.52.193.1",
            "192.88.99.1",
            "192.168.1.1",
            "192.175.48.6",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.254",
            "255.255.255.255",
            // IPv6
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "::127.0.0.1",
            "::10.0.0.1",
            "::8.8.8.8",
            "64:ff9b::7f00:1",
            "64:ff9b::808:808",
            "64:ff9b:1::1",
            "100::1",
            "100:0:0:1::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2001:10::1",
            "2001:20::1",
            "2001:db8::1",
            "2001:db8:ffff::1",
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2002:a9fe:a9fe::1",
            "2002:c0a8:101::1",
            "2620:4f:8000::1",
            "3fff::1",
            "3fff:fff::1",
            "5f00::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "feff::1",
            "ff02::1",
            "ff0e::1",
            "4000::1",
            "1::1",
        ] {
            assert!(refused(ip), "{ip}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.255",
            "192.0.3.0",
            "192.167.255.255",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700::1111",
            "2001:4860:4860::8888",
            "2001:200::1",
            "2a00:1450:4001::200e",
            "2002:808:808::1",
            "2620:4f:8001::1",
            "3ffe::1",
        ] {
            assert!(!refused(ip), "{ip}");
        }
    }
}
