//! What `run` and `cluster` start, stopped together: on Ctrl-C (SIGINT to the terminal's
//! process group), SIGTERM or SIGHUP, when one of them exits, and when xtask fails at any step
//! after starting them. A newcomer's first try must leave nothing behind to trip the second.
//!
//! Every process started here carries one mark in its environment, which its own children
//! inherit, so what is left running can be found whatever became of its parent.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

/// The environment variable that marks the processes of one `run`.
pub const MARK: &str = "MUSTER_XTASK_RUN";

/// How long a process has to end after SIGTERM before it is killed: the relay's clean shutdown
/// (close frames to its sockets, the demo's end marker) takes well under this.
const GRACE: Duration = Duration::from_secs(5);

/// How often a wait looks at the signals and the children.
const TICK: Duration = Duration::from_millis(100);

/// Set when the user asks xtask to stop (SIGINT, SIGTERM, SIGHUP).
#[derive(Clone)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// Catches the signals that ask xtask to stop; from now on xtask stops what it started
    /// itself rather than dying with it still running.
    pub fn on_signals() -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let on_signal = stop.clone();
        ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst))
            .context("catching Ctrl-C")?;
        Ok(Self(stop))
    }

    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Why a wait ended early.
#[derive(Debug)]
pub enum Ended {
    /// The user asked xtask to stop.
    Interrupted,
    /// The named process exited.
    Exited(String, ExitStatus),
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Interrupted => write!(f, "interrupted"),
            Self::Exited(what, status) => write!(f, "{what} exited ({status})"),
        }
    }
}

impl std::error::Error for Ended {}

/// A process started in a process group of its own, which it leads: a terminal's Ctrl-C
/// reaches xtask alone, which then stops each in order, and a build's own children (cargo,
/// rustc, Trunk, wasm-opt) are stopped with it.
struct Started {
    what: String,
    child: Child,
    /// How it ended, once it has (reaped, so asked once).
    exited: Option<ExitStatus>,
}

/// The processes one command started; all stopped when it is dropped.
pub struct Fleet {
    started: Vec<Started>,
    mark: String,
}

impl Fleet {
    pub fn new() -> Result<Self> {
        Ok(Self {
            started: Vec::new(),
            mark: crate::run::operator_token()?,
        })
    }

    /// Starts `command` as `what` (named in every message about it), it and everything it
    /// starts in a process group of their own.
    pub fn spawn(&mut self, what: &str, command: &mut Command) -> Result<u32> {
        use std::os::unix::process::CommandExt;
        command.env(MARK, &self.mark).process_group(0);
        let child = command
            .spawn()
            .with_context(|| format!("starting {what} ({command:?})"))?;
        let pid = child.id();
        self.started.push(Started {
            what: what.to_owned(),
            child,
            exited: None,
        });
        Ok(pid)
    }

    fn find(&mut self, pid: u32) -> &mut Started {
        self.started
            .iter_mut()
            .find(|s| s.child.id() == pid)
            .expect("a process this fleet started")
    }

    /// Echoes the stdout of the process `pid` until a line starting with `prefix` shows it is
    /// ready, then goes on echoing it. Fails at once if it exits first or the user stops xtask.
    pub fn wait_for_line(&mut self, pid: u32, prefix: &str, stop: &Stop) -> Result<()> {
        let started = self.find(pid);
        let stdout = started.child.stdout.take().context("a piped stdout")?;
        let (lines, ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                println!("{line}");
                // Once it is ready nobody listens; the echo goes on, so the child never blocks
                // on a full pipe.
                let _ = lines.send(line);
            }
        });
        loop {
            if stop.requested() {
                return Err(Ended::Interrupted.into());
            }
            match ready.recv_timeout(TICK) {
                Ok(line) if line.starts_with(prefix) => return Ok(()),
                Ok(_) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    let started = self.find(pid);
                    let status = started.child.wait()?;
                    started.exited = Some(status);
                    return Err(Ended::Exited(started.what.clone(), status).into());
                }
            }
        }
    }

    /// Waits until the user stops xtask or one of the processes exits (reaped, and named).
    pub fn watch(&mut self, stop: &Stop) -> Ended {
        loop {
            if stop.requested() {
                return Ended::Interrupted;
            }
            for started in self.started.iter_mut().filter(|s| s.exited.is_none()) {
                if let Ok(Some(status)) = started.child.try_wait() {
                    started.exited = Some(status);
                    return Ended::Exited(started.what.clone(), status);
                }
            }
            std::thread::sleep(TICK);
        }
    }

    /// How the process `pid` ended, or `None` while it runs.
    pub fn exit_status(&mut self, pid: u32) -> Option<ExitStatus> {
        let started = self.find(pid);
        if started.exited.is_none() {
            started.exited = started.child.try_wait().ok().flatten();
        }
        started.exited
    }

    /// Fails, naming it, if one of `pids` has exited or the user stops xtask.
    pub fn all_running(&mut self, pids: &[u32], stop: &Stop) -> Result<()> {
        if stop.requested() {
            return Err(Ended::Interrupted.into());
        }
        for &pid in pids {
            if let Some(status) = self.exit_status(pid) {
                return Err(Ended::Exited(self.find(pid).what.clone(), status).into());
            }
        }
        Ok(())
    }

    /// Stops every process: SIGTERM to its group; after [`GRACE`], SIGKILL to the group of each
    /// still running; then SIGKILL to anything left carrying the mark (a group's members whose
    /// leader had already ended: its process id may belong to someone else by now, so it is
    /// never signalled as a group once reaped). Returns what that last sweep found.
    pub fn stop(&mut self) -> Vec<(i32, String)> {
        let signal = |started: &Started, signal: Signal| {
            let _ = killpg(Pid::from_raw(started.child.id() as i32), signal);
        };
        for started in &mut self.started {
            if started.exited.is_none() {
                started.exited = started.child.try_wait().ok().flatten();
            }
        }
        for started in self.started.iter().filter(|s| s.exited.is_none()) {
            signal(started, Signal::SIGTERM);
        }
        let deadline = Instant::now() + GRACE;
        for started in self.started.iter_mut().filter(|s| s.exited.is_none()) {
            while Instant::now() < deadline {
                if let Ok(Some(status)) = started.child.try_wait() {
                    started.exited = Some(status);
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        for started in self.started.iter_mut().filter(|s| s.exited.is_none()) {
            signal(started, Signal::SIGKILL);
            started.exited = started.child.wait().ok();
        }
        // What the groups left behind; a few rounds, in case one forked as it was swept.
        let mut swept = Vec::new();
        for _ in 0..10 {
            let left = self.left_running();
            if left.is_empty() {
                break;
            }
            for (pid, _) in &left {
                let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
            }
            swept.extend(left);
            std::thread::sleep(Duration::from_millis(50));
        }
        swept
    }

    /// The processes still running with this fleet's mark: process id and command line.
    pub fn left_running(&self) -> Vec<(i32, String)> {
        marked(&self.mark)
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// Every process whose environment holds `MARK=mark`, but zombies (ended, waiting to be
/// reaped by a parent of their own).
pub fn marked(mark: &str) -> Vec<(i32, String)> {
    let wanted = format!("{MARK}={mark}");
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(Result::ok)
        .filter(|p| {
            p.stat()
                .is_ok_and(|s| s.state != 'Z' && s.pid != std::process::id() as i32)
        })
        .filter(|p| {
            p.environ().is_ok_and(|env| {
                env.iter().any(|(k, v)| {
                    format!("{}={}", k.to_string_lossy(), v.to_string_lossy()) == wanted
                })
            })
        })
        .map(|p| (p.pid, crate::ports::command_line(&p)))
        .collect()
}

/// Runs `command` to completion, stopping it (and failing) if the user stops xtask meanwhile.
pub fn finish(command: &mut Command, stop: &Stop) -> Result<()> {
    let shown = format!("{command:?}");
    eprintln!("xtask: {shown}");
    let mut child = command
        .spawn()
        .with_context(|| format!("starting {shown}"))?;
    loop {
        if let Some(status) = child.try_wait()? {
            if status.success() {
                return Ok(());
            }
            // The terminal's Ctrl-C reaches the build too, which may end before xtask sees it.
            if stop.requested() {
                return Err(Ended::Interrupted.into());
            }
            bail!("{shown} failed: {status}");
        }
        if stop.requested() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Ended::Interrupted.into());
        }
        std::thread::sleep(TICK);
    }
}
