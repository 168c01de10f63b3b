//! Helpers every capability and tool shares: resolving `HOST[:PORT]`, the local address a UDP
//! socket for a target binds to, and the wall clock in the units the relay's API speaks.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use tokio::net::UdpSocket;

/// A game server's address through the relay: parsed once where it enters (a route, a flag,
/// a master's list), then passed as itself. Its text is `IP:PORT`, as the API and the page
/// write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerAddr(pub SocketAddrV4);

/// Why a text is not a server address.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("not an IPv4 ip:port")]
pub struct NotServerAddr;

impl std::str::FromStr for ServerAddr {
    type Err = NotServerAddr;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse().map(Self).map_err(|_| NotServerAddr)
    }
}

impl std::fmt::Display for ServerAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<SocketAddrV4> for ServerAddr {
    fn from(addr: SocketAddrV4) -> Self {
        Self(addr)
    }
}

impl From<ServerAddr> for SocketAddrV4 {
    fn from(addr: ServerAddr) -> Self {
        addr.0
    }
}

impl From<ServerAddr> for SocketAddr {
    fn from(addr: ServerAddr) -> Self {
        SocketAddr::V4(addr.0)
    }
}

impl serde::Serialize for ServerAddr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ServerAddr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Resolves `HOST[:PORT]` to IPv4 addresses, `default_port` when none is given.
pub async fn resolve(target: &str, default_port: u16) -> anyhow::Result<Vec<SocketAddrV4>> {
    let target = target.trim();
    let with_port = if target
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        target.to_owned()
    } else {
        format!("{target}:{default_port}")
    };
    let addrs: Vec<SocketAddrV4> = tokio::net::lookup_host(&with_port)
        .await
        .with_context(|| format!("cannot resolve {target}"))?
        .filter_map(|a| match a {
            SocketAddr::V4(v4) => Some(v4),
            SocketAddr::V6(_) => None,
        })
        .collect();
    if addrs.is_empty() {
        bail!("{target} has no IPv4 address");
    }
    Ok(addrs)
}

/// A UDP socket `connect`ed to `target`, so the kernel drops datagrams from anyone else. It
/// binds to loopback for a loopback target, so a test never listens on every interface, and
/// to the target's own address family.
pub async fn udp_to(target: SocketAddr) -> std::io::Result<UdpSocket> {
    let local: IpAddr = match (target.ip().is_loopback(), target) {
        (true, SocketAddr::V4(_)) => Ipv4Addr::LOCALHOST.into(),
        (false, SocketAddr::V4(_)) => Ipv4Addr::UNSPECIFIED.into(),
        (true, SocketAddr::V6(_)) => Ipv6Addr::LOCALHOST.into(),
        (false, SocketAddr::V6(_)) => Ipv6Addr::UNSPECIFIED.into(),
    };
    let socket = UdpSocket::bind((local, 0)).await?;
    socket.connect(target).await?;
    Ok(socket)
}

/// A Unix time in milliseconds as the CLI and the relay's pages print it, to the minute in UTC.
pub fn utc_minute(ms: u64) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    time::OffsetDateTime::from_unix_timestamp((ms / 1000) as i64)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_default()
}

/// Unix time in milliseconds: what `updated_ms` and the like carry.
pub fn unix_ms() -> u64 {
    unix_us() / 1000
}

/// Unix time in microseconds: a hub stamps each frame with it, so a viewer can measure delay.
pub fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_address_reads_writes_and_refuses_as_the_api_spells_it() {
        let addr: ServerAddr = "10.0.0.7:28960".parse().unwrap();
        assert_eq!(addr.0, SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960));
        assert_eq!(addr.to_string(), "10.0.0.7:28960");
        assert_eq!(serde_json::to_string(&addr).unwrap(), "\"10.0.0.7:28960\"");
        assert_eq!(
            serde_json::from_str::<ServerAddr>("\"10.0.0.7:28960\"").unwrap(),
            addr
        );
        for bad in [
            "10.0.0.7",
            "[::1]:28960",
            "host:28960",
            "10.0.0.7:70000",
            "",
        ] {
            assert_eq!(bad.parse::<ServerAddr>(), Err(NotServerAddr), "{bad}");
        }
        assert!(serde_json::from_str::<ServerAddr>("\"nonsense\"").is_err());
    }
}
