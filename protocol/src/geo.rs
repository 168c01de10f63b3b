//! Countries: what the page and the relay agree on about a server's country. The lookup
//! itself is the relay's (an offline database); these say why an address has none, and check
//! a code's shape.

use core::net::Ipv4Addr;

/// Why `addr` (`ip:port` or an IP) can have no country, as the catalogues' id of the reason
/// (`address-private`: "a private address"), or `None` if it is public: a database places only
/// public addresses.
pub fn not_placed(addr: &str) -> Option<&'static str> {
    let ip = addr.split(':').next().unwrap_or(addr);
    not_placed_ip(ip.parse().ok()?)
}

/// [`not_placed`] of an address already parsed.
pub fn not_placed_ip(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(if ip.is_loopback() {
        "address-loopback"
    } else if ip.is_private() {
        "address-private"
    } else if ip.is_link_local() {
        "address-link-local"
    } else if a == 100 && (64..128).contains(&b) {
        "address-shared"
    } else if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() || a == 0 || a >= 240 {
        "address-reserved"
    } else {
        return None;
    })
}

/// Whether `code` is an ISO 3166-1 alpha-2 code's shape (two ASCII capitals).
pub fn is_code(code: &str) -> bool {
    code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_and_reserved_addresses_have_no_country_and_say_why() {
        assert_eq!(not_placed("127.0.0.1:28960"), Some("address-loopback"));
        assert_eq!(not_placed("192.168.1.4:28960"), Some("address-private"));
        assert_eq!(not_placed("10.0.0.1"), Some("address-private"));
        assert_eq!(not_placed("169.254.169.254:80"), Some("address-link-local"));
        assert_eq!(not_placed("100.64.0.1:1"), Some("address-shared"));
        assert_eq!(not_placed("0.1.2.3:1"), Some("address-reserved"));
        assert_eq!(not_placed("8.8.8.8:28960"), None);
        assert_eq!(not_placed("not an address"), None);
    }
}
