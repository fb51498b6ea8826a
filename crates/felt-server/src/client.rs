//! The client's address, as throttling counts it: the connection's peer, or, when the
//! peer is a proxy the operator trusts (`felt serve --trust-proxy`), the last address
//! of `X-Forwarded-For` that is not one of those proxies. Without a trusted proxy the
//! header is ignored, so no client chooses its own address.

use axum::http::HeaderMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// The connection's peer, put in each request's extensions by the accept loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// The client's address for a request from `peer` with these headers.
pub fn address(peer: Option<Peer>, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    let peer = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |p| {
        p.0.ip().to_canonical()
    });
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Some(ip) = parse_hop(hop) else { break };
        client = ip;
        if !trusted.contains(&ip) {
            break;
        }
    }
    client
}

/// An `X-Forwarded-For` entry: an address, with or without a port.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .or_else(|_| hop.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    fn peer(ip: &str) -> Option<Peer> {
        Some(Peer(SocketAddr::new(ip.parse().unwrap(), 4000)))
    }

    #[test]
    fn the_header_is_ignored_unless_the_peer_is_a_trusted_proxy() {
        let h = headers("203.0.113.9");
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(address(peer("198.51.100.1"), &h, &[]), ip("198.51.100.1"));
        let proxy = [ip("10.0.0.1")];
        assert_eq!(
            address(peer("198.51.100.1"), &h, &proxy),
            ip("198.51.100.1")
        );
        assert_eq!(address(peer("10.0.0.1"), &h, &proxy), ip("203.0.113.9"));
    }

    #[test]
    fn the_last_untrusted_hop_is_the_client_whatever_it_put_before() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let proxies = [ip("10.0.0.1"), ip("10.0.0.2")];
        // The client wrote a first entry itself; the proxies appended the rest.
        let h = headers("1.2.3.4, 203.0.113.9, 10.0.0.2");
        assert_eq!(address(peer("10.0.0.1"), &h, &proxies), ip("203.0.113.9"));
        let h = headers("garbage, 203.0.113.9:5555");
        assert_eq!(address(peer("10.0.0.1"), &h, &proxies), ip("203.0.113.9"));
        assert_eq!(
            address(None, &HeaderMap::new(), &proxies),
            ip("0.0.0.0"),
            "no peer known (a request made in-process)"
        );
    }
}
