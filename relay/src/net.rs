//! Helpers every capability and tool shares: resolving `HOST[:PORT]`, the local address a UDP
//! socket for a target binds to, and the wall clock in the units the relay's API speaks.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use tokio::net::UdpSocket;

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
