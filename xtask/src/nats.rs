//! A throwaway `nats-server` with JetStream on 127.0.0.1 for `cargo xtask cluster` and the
//! cluster bench: Debian's package (installed by [`crate::tools`] when missing), its store in a
//! temporary directory, a free port (and a monitoring port for the bench's byte counts),
//! stopped and removed when dropped. The tests start their own.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// Debian installs the server in /usr/sbin, which a user's PATH may lack.
pub fn binary() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nats-server"))
        .find(|p| p.is_file())
}

pub fn needs_install() -> bool {
    binary().is_none()
}

pub struct Nats {
    /// `nats://127.0.0.1:PORT`
    pub url: String,
    /// The HTTP monitoring port (`/varz`).
    pub monitor: u16,
    dir: PathBuf,
    child: Child,
}

impl Nats {
    pub fn start() -> Result<Self> {
        let bin = binary().context("nats-server is not installed")?;
        let (port, monitor) = (crate::free_port()?, crate::free_port()?);
        let dir = std::env::temp_dir().join(format!("muster-nats-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let child = Command::new(bin)
            .args(["-js", "-sd"])
            .arg(&dir)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .args(["-m", &monitor.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting nats-server")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                bail!("nats-server did not listen on {port}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let url = format!("nats://127.0.0.1:{port}");
        eprintln!("xtask: NATS (JetStream) at {url}");
        Ok(Self {
            url,
            monitor,
            dir,
            child,
        })
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
