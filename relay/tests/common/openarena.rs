//! OpenArena's dedicated server (ioquake3, protocol 71) on loopback: a real third-party peer
//! for the master (its heartbeat) and the admin console (its rcon). `cargo xtask test` installs
//! it.

use std::process::{Command, Stdio};

/// The running server; killed when dropped, its home (where it writes its config) removed
/// after it.
pub struct OpenArena {
    child: std::process::Child,
    pub port: u16,
    _home: tempfile::TempDir,
}

impl Drop for OpenArena {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a server on a free port of 127.0.0.1 on `oa_dm1`: a dedicated server that
/// heartbeats `master` (dedicated 2) or none (dedicated 1), with `settings` as more `+set`
/// pairs.
pub fn start(master: Option<std::net::SocketAddr>, settings: &[(&str, &str)]) -> OpenArena {
    let home = tempfile::tempdir().unwrap();
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut command = Command::new("/usr/games/openarena-server");
    let dedicated = if master.is_some() { "2" } else { "1" };
    command
        .env("HOME", home.path())
        .args([
            "+set",
            "dedicated",
            dedicated,
            "+set",
            "net_ip",
            "127.0.0.1",
        ])
        .args(["+set", "net_port", &port.to_string()])
        .args(["+set", "sv_master1"])
        .arg(master.map(|m| m.to_string()).unwrap_or_default())
        // The Debian wrapper points a master at the internet; blank the rest.
        .args(["+set", "sv_master2", "", "+set", "sv_master3", ""])
        .args(["+set", "sv_master4", "", "+set", "sv_master5", ""]);
    for (key, value) in settings {
        command.args(["+set", key, value]);
    }
    let child = command
        .args(["+map", "oa_dm1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("openarena-server runs (cargo xtask test installs it)");
    OpenArena {
        child,
        port,
        _home: home,
    }
}
