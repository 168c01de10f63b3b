//! A throwaway PostgreSQL cluster on 127.0.0.1 for the tests and the history bench: Debian's
//! server (installed by [`crate::tools`] when missing), a temporary data directory, a free port,
//! `fsync` off, stopped (and removed) when dropped. PostgreSQL refuses to run as root, so as
//! root it runs as the `postgres` user the package creates, in folders that user owns.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};

use crate::status;

pub struct Cluster {
    /// `postgres://muster@127.0.0.1:PORT/muster`
    pub url: String,
    bin: PathBuf,
    dir: PathBuf,
    as_root: bool,
}

/// Where Debian put the server's programs (any version).
pub fn server_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("pg_ctl").is_file() && bin.join("postgres").is_file())
        .collect();
    found.sort();
    found.pop()
}

impl Cluster {
    pub fn start() -> Result<Self> {
        let bin = server_bin().context("PostgreSQL's server is not installed")?;
        let as_root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0"));
        // As root the server runs as `postgres`, which must reach the folder: /tmp always lets
        // it, where a TMPDIR of root's own might not.
        let base = if as_root {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("muster-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("pg"))?;
        std::fs::create_dir_all(dir.join("run"))?;
        if as_root {
            status(Command::new("chmod").arg("755").arg(&dir))?;
            status(Command::new("chown").args(["-R", "postgres"]).arg(&dir))?;
        }
        let port = crate::free_port()?;
        let cluster = Self {
            url: format!("postgres://muster@127.0.0.1:{port}/muster"),
            bin,
            dir,
            as_root,
        };
        let pg = cluster.dir.join("pg");
        let run = cluster.dir.join("run");
        cluster.pg(
            "initdb",
            &[
                "-D".as_ref(),
                pg.as_os_str(),
                "-U".as_ref(),
                "muster".as_ref(),
                "--auth=trust".as_ref(),
            ],
        )?;
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            run.display()
        );
        cluster.pg(
            "pg_ctl",
            &[
                "-D".as_ref(),
                pg.as_os_str(),
                "-l".as_ref(),
                run.join("server.log").as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        )?;
        cluster.pg(
            "createdb",
            &[
                "-h".as_ref(),
                "127.0.0.1".as_ref(),
                "-p".as_ref(),
                port.to_string().as_ref(),
                "-U".as_ref(),
                "muster".as_ref(),
                "muster".as_ref(),
            ],
        )?;
        eprintln!("xtask: PostgreSQL at {}", cluster.url);
        Ok(cluster)
    }

    fn pg(&self, program: &str, args: &[&std::ffi::OsStr]) -> Result<()> {
        let path = self.bin.join(program);
        let mut command = if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        command.args(args).stdout(std::process::Stdio::null());
        status(&mut command)
            .with_context(|| format!("{program} failed; see {}", self.log().display()))
    }

    fn log(&self) -> PathBuf {
        self.dir.join("run/server.log")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let pg = self.dir.join("pg");
        let stopped = self.pg(
            "pg_ctl",
            &[
                "-D".as_ref(),
                pg.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "stop".as_ref(),
            ],
        );
        if let Err(e) = stopped {
            eprintln!("xtask: stopping PostgreSQL: {e:#}");
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Installs PostgreSQL's server from Debian's packages if it is missing.
pub fn needs_install() -> bool {
    server_bin().is_none()
}
