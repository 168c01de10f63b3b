//! The fixed ports `run` and `cluster` take on 127.0.0.1, tried before anything starts, and,
//! when one is taken, who holds it: a newcomer told "Address already in use" needs the port,
//! the process, and whether it is an earlier Muster run to stop.

use std::collections::HashSet;
use std::net::{Ipv4Addr, TcpListener, UdpSocket};

use anyhow::{bail, Result};

/// One port a command needs, and what of Muster's listens there.
#[derive(Clone, Debug)]
pub struct Port {
    pub number: u16,
    pub udp: bool,
    pub what: String,
}

impl Port {
    pub fn tcp(number: u16, what: &str) -> Self {
        Self {
            number,
            udp: false,
            what: what.to_owned(),
        }
    }

    pub fn udp(number: u16, what: &str) -> Self {
        Self {
            number,
            udp: true,
            what: what.to_owned(),
        }
    }

    fn protocol(&self) -> &'static str {
        if self.udp {
            "udp"
        } else {
            "tcp"
        }
    }

    /// Whether 127.0.0.1 can bind it now (a listener only closing, in TIME_WAIT, does not count:
    /// the services bind with SO_REUSEADDR as std's listener does).
    fn free(&self) -> bool {
        if self.udp {
            UdpSocket::bind((Ipv4Addr::LOCALHOST, self.number)).is_ok()
        } else {
            TcpListener::bind((Ipv4Addr::LOCALHOST, self.number)).is_ok()
        }
    }
}

/// A process holding a port.
pub struct Holder {
    pub pid: i32,
    pub command: String,
    /// It is one of Muster's own (a relay, a lab, an xtask): an earlier run still going.
    pub muster: bool,
}

/// Fails, naming every taken port of `ports`, the process holding each and what to do, unless
/// all are free.
pub fn ensure_free(ports: &[Port]) -> Result<()> {
    let taken = taken_now(ports);
    if taken.is_empty() {
        return Ok(());
    }
    bail!("{taken}")
}

/// Which of `ports` are taken now, told as [`ensure_free`] tells them; empty if none is.
pub fn taken_now(ports: &[Port]) -> String {
    let taken: Vec<&Port> = ports.iter().filter(|p| !p.free()).collect();
    if taken.is_empty() {
        String::new()
    } else {
        describe_taken(&taken)
    }
}

fn describe_taken(taken: &[&Port]) -> String {
    let mut lines = Vec::new();
    let mut pids = Vec::new();
    for port in taken {
        let holders = holders(port);
        let by = if holders.is_empty() {
            format!(
                "by a process this user cannot see (`sudo ss -lnp 'sport = :{}'` names it)",
                port.number
            )
        } else {
            holders
                .iter()
                .map(|h| {
                    let whose = if h.muster {
                        "an earlier Muster run"
                    } else {
                        "not Muster's"
                    };
                    format!("by pid {} ({whose}: {})", h.pid, h.command)
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        pids.extend(holders.iter().map(|h| (h.pid, h.muster)));
        lines.push(format!(
            "port {}/{} on 127.0.0.1 ({}) is taken {by}",
            port.number,
            port.protocol(),
            port.what
        ));
    }
    pids.sort_unstable();
    pids.dedup();
    let earlier: Vec<String> = pids
        .iter()
        .filter(|(_, muster)| *muster)
        .map(|(pid, _)| pid.to_string())
        .collect();
    let advice = if !earlier.is_empty() && earlier.len() == pids.len() {
        format!(
            "an earlier Muster run still holds them: stop it with `kill {}` and run this again",
            earlier.join(" ")
        )
    } else {
        "stop what holds them, then run this again".to_owned()
    };
    format!("{}\n{advice}", lines.join("\n"))
}

/// The processes with a socket bound to `port` (a TCP listener, or any UDP socket), on any
/// address, IPv4 or IPv6.
pub fn holders(port: &Port) -> Vec<Holder> {
    let mut inodes = HashSet::new();
    if port.udp {
        for entries in [procfs::net::udp(), procfs::net::udp6()] {
            inodes.extend(
                entries
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|e| e.local_address.port() == port.number)
                    .map(|e| e.inode),
            );
        }
    } else {
        for entries in [procfs::net::tcp(), procfs::net::tcp6()] {
            inodes.extend(
                entries
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|e| {
                        e.local_address.port() == port.number
                            && e.state == procfs::net::TcpState::Listen
                    })
                    .map(|e| e.inode),
            );
        }
    }
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(Result::ok)
        .filter(|p| {
            p.fd().is_ok_and(|fds| {
                fds.filter_map(Result::ok).any(|fd| {
                    matches!(fd.target, procfs::process::FDTarget::Socket(inode) if inodes.contains(&inode))
                })
            })
        })
        .map(|p| {
            let command = command_line(&p);
            let name = p
                .exe()
                .ok()
                .and_then(|exe| exe.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            Holder {
                pid: p.pid,
                muster: matches!(name.as_str(), "muster" | "muster-lab" | "xtask"),
                command,
            }
        })
        .collect()
}

/// A process's command line, shortened for a message.
pub fn command_line(process: &procfs::process::Process) -> String {
    let mut line = process
        .cmdline()
        .map(|args| args.join(" "))
        .unwrap_or_default();
    if line.chars().count() > 120 {
        line = line.chars().take(117).collect::<String>() + "...";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_port_is_named_with_the_process_holding_it() {
        let held = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let number = held.local_addr().unwrap().port();
        let free = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let free_number = free.local_addr().unwrap().port();
        drop(free);
        let ports = [
            Port::udp(number, "the lab's master"),
            Port::tcp(free_number, "the relay's web server"),
        ];
        let error = ensure_free(&ports).unwrap_err().to_string();
        let me = std::process::id();
        assert!(
            error.starts_with(&format!(
                "port {number}/udp on 127.0.0.1 (the lab's master) is taken by pid {me} (not Muster's: "
            )),
            "{error}"
        );
        assert!(!error.contains(&free_number.to_string()), "{error}");
        assert!(
            error.ends_with("stop what holds them, then run this again"),
            "{error}"
        );
        drop(held);
        ensure_free(&ports).unwrap();
    }
}
