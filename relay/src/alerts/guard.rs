//! No open cannon: an alert's URL is a request the relay makes on a stranger's behalf, so it
//! goes only to hosts the operator allowed (by default Discord's and ntfy's public hosts, and
//! the browsers' push services for push), over `https` (plain `http` only to a host the
//! operator named), never to a loopback, private, link-local, shared or metadata address,
//! checked on every address the name resolves to when the request is made, and the address
//! checked is the one connected to (our resolver hands the client only those). Redirects are
//! not followed (the client is built so); answers are not read past [`BODY_CAP`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use protocol::relay_api::alerts::Destination;
use url::{Host, Url};

/// The hosts webhooks, Discord and ntfy may reach unless the operator adds more.
pub const DEFAULT_HOSTS: &[&str] = &[
    "discord.com",
    "discordapp.com",
    "ptb.discord.com",
    "canary.discord.com",
    "ntfy.sh",
];

/// The push services browsers subscribe with (Chrome, Firefox, Edge, Safari); an entry with a
/// leading dot takes its subdomains.
pub const PUSH_HOSTS: &[&str] = &[
    "fcm.googleapis.com",
    "updates.push.services.mozilla.com",
    ".notify.windows.com",
    "web.push.apple.com",
];

/// Bytes of an answer read at most (an error's text for the outbox, Discord's `retry_after`).
pub const BODY_CAP: usize = 4096;

/// Why a URL or an address is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("not a URL: {0}")]
    NotUrl(String),
    #[error("only https (plain http only to a host the operator allowed by name)")]
    Scheme,
    #[error("a URL with a user name or password is not sent to")]
    Credentials,
    #[error("{0} is not on this relay's allow-list (--alert-allow-host)")]
    Host(String),
    #[error("{0} is not a public address (loopback, private, link-local or reserved)")]
    Address(IpAddr),
    #[error("{host} resolves to {ip}, not a public address")]
    Resolves { host: String, ip: IpAddr },
    #[error("a Discord webhook is https://discord.com/api/webhooks/ID/TOKEN")]
    NotDiscord,
}

/// The operator's allow-list.
#[derive(Clone, Debug)]
pub struct Allow {
    /// Lower case; a leading dot takes subdomains.
    hosts: Vec<String>,
    push: Vec<String>,
    /// What the operator named (`--alert-allow-host`): the only hosts plain `http` may reach,
    /// and the only non-public addresses (named as IP literals) that may be connected to.
    operator: Vec<String>,
}

impl Allow {
    pub fn new(operator: &[String]) -> Self {
        let operator: Vec<String> = (operator.iter())
            .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        let with = |defaults: &[&str]| {
            (defaults.iter().map(|h| (*h).to_owned()))
                .chain(operator.iter().cloned())
                .collect()
        };
        Self {
            hosts: with(DEFAULT_HOSTS),
            push: with(PUSH_HOSTS),
            operator,
        }
    }

    /// Whether `to` may be sent to as far as its URL tells (its addresses are checked when
    /// it is sent); the URL parsed.
    pub fn check(&self, to: &Destination) -> Result<Url, Refused> {
        let url = Url::parse(to.url()).map_err(|e| Refused::NotUrl(e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refused::Credentials);
        }
        if !matches!(url.scheme(), "https" | "http") {
            return Err(Refused::Scheme);
        }
        let host = match url.host() {
            Some(Host::Domain(d)) => d.trim_end_matches('.').to_ascii_lowercase(),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => ip.to_string(),
            None => return Err(Refused::NotUrl("no host".into())),
        };
        let named = self.operator.contains(&host);
        match url.scheme() {
            "https" => {}
            "http" if named => {}
            _ => return Err(Refused::Scheme),
        }
        let list = match to {
            Destination::Push { .. } => &self.push,
            _ => &self.hosts,
        };
        if !list.iter().any(|entry| matches(entry, &host)) {
            return Err(Refused::Host(host));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            self.address(ip)?;
        }
        if matches!(to, Destination::Discord { .. }) && !url.path().starts_with("/api/webhooks/") {
            return Err(Refused::NotDiscord);
        }
        Ok(url)
    }

    /// Whether an address may be connected to: a public one, or one the operator named.
    pub fn address(&self, ip: IpAddr) -> Result<(), Refused> {
        let ip = ip.to_canonical();
        if is_public(ip) || self.operator.iter().any(|h| h.parse() == Ok(ip)) {
            Ok(())
        } else {
            Err(Refused::Address(ip))
        }
    }
}

fn matches(entry: &str, host: &str) -> bool {
    match entry.strip_prefix('.') {
        Some(domain) => host
            .strip_suffix(domain)
            .is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
        None => entry == host,
    }
}

/// Globally routable: not loopback, private, shared (CGNAT), link-local (cloud metadata lives
/// there), unspecified, broadcast, multicast, documentation, benchmarking or reserved, nor an
/// IPv6 form that carries such an IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let embedded =
        |hi: u16, lo: u16| public_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    if let Some(v4) = ip.to_ipv4_mapped() {
        return public_v4(v4);
    }
    match s[0] {
        // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address.
        0x64 if s[1] == 0xff9b => embedded(s[6], s[7]),
        0x2002 => embedded(s[1], s[2]),
        // Documentation (2001:db8::/32).
        0x2001 if s[1] == 0xdb8 => false,
        // Global unicast is 2000::/3; the rest (ULA fc00::/7, link-local fe80::/10, site-local,
        // multicast ff00::/8, loopback, unspecified, discard 100::/64) is not routable.
        first => (0x2000..0x4000).contains(&first),
    }
}

/// The resolver the alert client connects with: a name's addresses, only those allowed.
pub struct Resolver(pub Arc<Allow>);

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut refused = None;
            let kept: Vec<SocketAddr> = (found.into_iter())
                .filter(|a| {
                    let allowed = allow.address(a.ip()).is_ok();
                    if !allowed {
                        refused = Some(a.ip());
                    }
                    allowed
                })
                .collect();
            if kept.is_empty() {
                return Err(match refused {
                    Some(ip) => Box::new(Refused::Resolves { host, ip }) as _,
                    None => format!("{host} has no address").into(),
                });
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(url: &str) -> Destination {
        Destination::Webhook { url: url.into() }
    }

    #[test]
    fn only_allowed_hosts_over_https() {
        let allow = Allow::new(&[]);
        assert!(allow
            .check(&Destination::Discord {
                url: "https://discord.com/api/webhooks/1/x".into()
            })
            .is_ok());
        assert!(allow.check(&hook("https://ntfy.sh/topic")).is_ok());
        assert_eq!(
            allow.check(&hook("http://ntfy.sh/topic")),
            Err(Refused::Scheme)
        );
        assert_eq!(
            allow.check(&hook("https://evil.example/hook")),
            Err(Refused::Host("evil.example".into()))
        );
        assert_eq!(
            allow.check(&hook("https://ntfy.sh.evil.example/")),
            Err(Refused::Host("ntfy.sh.evil.example".into()))
        );
        assert_eq!(
            allow.check(&hook("https://u:p@ntfy.sh/topic")),
            Err(Refused::Credentials)
        );
        assert_eq!(
            allow.check(&hook("https://127.0.0.1/")),
            Err(Refused::Host("127.0.0.1".into()))
        );
        assert_eq!(
            allow.check(&Destination::Discord {
                url: "https://discord.com/channels/1".into()
            }),
            Err(Refused::NotDiscord)
        );
        assert_eq!(
            allow.check(&hook("file:///etc/passwd")),
            Err(Refused::Scheme)
        );
    }

    #[test]
    fn push_goes_only_to_push_services() {
        let allow = Allow::new(&[]);
        let push = |endpoint: &str| Destination::Push {
            subscription: protocol::relay_api::alerts::PushSubscription {
                endpoint: endpoint.into(),
                keys: protocol::relay_api::alerts::PushKeys {
                    p256dh: String::new(),
                    auth: String::new(),
                },
            },
        };
        assert!(allow
            .check(&push("https://fcm.googleapis.com/fcm/send/x"))
            .is_ok());
        assert!(allow
            .check(&push("https://wns2-by3p.notify.windows.com/w/?token=x"))
            .is_ok());
        assert_eq!(
            allow.check(&push("https://notify.windows.com.evil.example/")),
            Err(Refused::Host("notify.windows.com.evil.example".into()))
        );
        assert_eq!(
            allow.check(&push("https://discord.com/api/webhooks/1/x")),
            Err(Refused::Host("discord.com".into()))
        );
    }

    #[test]
    fn the_operator_names_local_receivers_explicitly() {
        let allow = Allow::new(&["127.0.0.1".into(), "hooks.example".into()]);
        assert!(allow.check(&hook("http://127.0.0.1:8080/hook")).is_ok());
        assert!(allow.check(&hook("http://hooks.example/hook")).is_ok());
        assert!(allow.address("127.0.0.1".parse().unwrap()).is_ok());
        // Only the address named: other loopback and private addresses stay refused.
        for ip in ["127.0.0.2", "10.0.0.1", "::1", "169.254.169.254"] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(allow.address(ip), Err(Refused::Address(ip)));
        }
        assert_eq!(
            allow.check(&hook("http://169.254.169.254/latest/meta-data/")),
            Err(Refused::Scheme)
        );
        assert_eq!(
            allow.check(&hook("https://169.254.169.254/latest/meta-data/")),
            Err(Refused::Host("169.254.169.254".into()))
        );
    }

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            "2001:db8::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "162.159.135.232",
            "8.8.8.8",
            "2606:4700::6810:85e5",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }
}
