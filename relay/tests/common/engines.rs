//! The real engines a cluster runs on, started by the tests themselves on 127.0.0.1: a
//! `nats-server` with JetStream in a throwaway directory (Debian's package, which `cargo xtask
//! test` installs when missing), and `muster serve` processes that can be killed for real.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `nats-server`, from `MUSTER_NATS_SERVER`, the PATH or Debian's /usr/sbin.
fn nats_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("MUSTER_NATS_SERVER") {
        return path.into();
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nats-server"))
        .find(|p| p.exists());
    on_path.expect("nats-server is not installed: `cargo xtask test` installs Debian's package")
}

/// A NATS server with JetStream on, its store in a temporary directory; stopped when dropped.
pub struct Nats {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Nats {
    pub fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut nats = Self {
            port,
            dir: tempfile::tempdir().unwrap(),
            child: None,
        };
        nats.run();
        nats
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn run(&mut self) {
        let child = Command::new(nats_binary())
            .args(["-js", "-sd"])
            .arg(self.dir.path())
            .args(["-a", "127.0.0.1", "-p", &self.port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server runs");
        self.child = Some(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "nats-server never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server (its JetStream store stays on disk).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port with an empty store, as after a lost disk.
    pub fn restart_empty(&mut self) {
        self.stop();
        self.dir = tempfile::tempdir().unwrap();
        self.run();
    }

    /// Starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A `muster serve` process: its address, and every line it logged so far.
pub struct RelayProcess {
    pub child: tokio::process::Child,
    pub addr: SocketAddr,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl RelayProcess {
    /// Starts `muster serve --listen 127.0.0.1:0 ARGS` and waits until it serves.
    pub async fn start(args: &[String]) -> Self {
        let mut all = vec!["serve".to_owned(), "--listen".into(), "127.0.0.1:0".into()];
        all.extend(super::NO_CLIENT_LIMITS.iter().map(|a| a.to_string()));
        all.extend(args.iter().cloned());
        let (child, mut lines) = super::spawn_muster(&all);
        let log = Arc::new(Mutex::new(Vec::new()));
        let addr = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                log.lock().unwrap().push(line.clone());
                if let Some(rest) = line.strip_prefix("muster: serving http://") {
                    return rest.trim_end_matches('/').parse::<SocketAddr>().ok();
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("the relay did not start: {:?}", log.lock().unwrap()));
        let kept = log.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                kept.lock().unwrap().push(line);
            }
        });
        Self { child, addr, log }
    }

    pub fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    /// `GET path` as JSON.
    pub async fn get(&self, path: &str) -> serde_json::Value {
        reqwest::get(format!("http://{}{path}", self.addr))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// The sum of the samples named `name` in its `/metrics`.
    pub async fn metric(&self, name: &str) -> f64 {
        super::metric(&format!("http://{}", self.addr), name).await
    }

    /// The leases this relay holds now (`GET /api/cluster`).
    pub async fn leases(&self) -> Vec<String> {
        let status = self.get("/api/cluster").await;
        status["leases"]
            .as_object()
            .map(|l| l.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// SIGKILL: no goodbye, no lease released.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }

    pub fn signal(&self, signal: &str) {
        let pid = self.child.id().expect("running").to_string();
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

/// Debian's PostgreSQL server programs (any version), which `cargo xtask test` installs.
fn postgres_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL's server is not installed: `cargo xtask test` installs it")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("pg_ctl").is_file())
        .collect();
    found.sort();
    found.pop().expect("pg_ctl is not installed")
}

/// A PostgreSQL server of the test's own in a throwaway directory, which the test can stop and
/// start under a running relay (the shared test cluster serves other tests at once).
pub struct Postgres {
    pub port: u16,
    dir: PathBuf,
    as_root: bool,
}

impl Postgres {
    pub fn start() -> Self {
        let as_root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // As root the server runs as `postgres`, which must reach the folder.
        let dir =
            PathBuf::from("/tmp").join(format!("muster-test-pg-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("run")).unwrap();
        let pg = Self { port, dir, as_root };
        if as_root {
            assert!(Command::new("chown")
                .args(["-R", "postgres"])
                .arg(&pg.dir)
                .status()
                .unwrap()
                .success());
        }
        let data = pg.dir.join("data");
        pg.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "muster".as_ref(),
                "--auth=trust".as_ref(),
            ],
        );
        pg.start_again();
        pg.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                "muster",
                "muster",
            ]
            .map(std::ffi::OsStr::new),
        );
        pg
    }

    pub fn url(&self) -> String {
        format!("postgres://muster@127.0.0.1:{}/muster", self.port)
    }

    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) {
        assert!(self.try_run(program, args), "{program} failed");
    }

    fn try_run(&self, program: &str, args: &[&std::ffi::OsStr]) -> bool {
        let path = postgres_bin().join(program);
        let mut command = if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        command
            .args(args)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// `pg_ctl -m immediate stop`: as a crash, every connection cut.
    pub fn stop(&self) {
        let data = self.dir.join("data");
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "stop".as_ref(),
            ],
        );
    }

    /// Starts it (again) on the same port and data.
    pub fn start_again(&self) {
        let data = self.dir.join("data");
        let log = self.dir.join("run/server.log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.join("run").display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let stop = [
            "-D".as_ref(),
            data.as_os_str(),
            "-m".as_ref(),
            "immediate".as_ref(),
            "stop".as_ref(),
        ];
        if data.join("postmaster.pid").exists() {
            self.try_run("pg_ctl", &stop);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
