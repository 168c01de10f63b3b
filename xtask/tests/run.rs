//! `cargo xtask run` as a newcomer meets it: a port taken is named with its holder before
//! anything starts; Ctrl-C (SIGINT to the process group, as a terminal sends it) stops the relay
//! and the lab within seconds; a child that dies stops the rest and names it. After each, no
//! process of the run is left and its ports are free.
//!
//! Runs the xtask binary itself, with the relay and the lab it builds in `target/debug`
//! (`cargo xtask test` has built them; a bare `cargo test` builds them here first).

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

/// The ports of `run --servers 2`.
const RUN_PORTS: [(u16, bool); 7] = [
    (8080, false),
    (20610, true),
    (20611, true),
    (2627, false),
    (2627, true),
    (28960, true),
    (28961, true),
];

/// How long a stopped run may take to end: its own grace for the relay is 5 s.
const STOPS_WITHIN: Duration = Duration::from_secs(15);

/// A run of `cargo xtask run ARGS` in a process group of its own, its output read line by line
/// (stdout and stderr both), every process of it marked in its environment with `mark`.
struct Run {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    mark: String,
}

impl Run {
    fn start(args: &[&str]) -> Self {
        use std::os::unix::process::CommandExt;
        let mark = format!("{}-{}", std::process::id(), args.join("-"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("run")
            .args(args)
            .env("MUSTER_XTASK_TEST_MARK", &mark)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("xtask starts");
        let (send, lines) = channel();
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let send = send.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    eprintln!("  | {line}");
                    let _ = send.send(line);
                }
            });
        }
        Self {
            child,
            lines,
            seen: Vec::new(),
            mark,
        }
    }

    /// Reads its output until a line contains `text`; fails if it ends first. Its build may
    /// compile the relay and the lab first: minutes on a machine that has not built them.
    fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(900);
        while Instant::now() < deadline {
            match self.lines.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    let found = line.contains(text);
                    self.seen.push(line);
                    if found {
                        return;
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        panic!(
            "xtask never printed {text:?}; it printed:\n{}",
            self.seen.join("\n")
        );
    }

    /// Waits for it to exit within [`STOPS_WITHIN`], gathering the rest of its output.
    fn ended(&mut self) -> (std::process::ExitStatus, String) {
        let deadline = Instant::now() + STOPS_WITHIN;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(2)) {
                    self.seen.push(line);
                }
                return (status, self.seen.join("\n"));
            }
            assert!(
                Instant::now() < deadline,
                "xtask still running {STOPS_WITHIN:?} after it was told to stop:\n{}",
                self.seen.join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The processes still running (not zombies) that carry this run's mark: pid and name.
    fn left_running(&self) -> Vec<(i32, String)> {
        let wanted = format!("MUSTER_XTASK_TEST_MARK={}", self.mark);
        procfs::process::all_processes()
            .unwrap()
            .filter_map(Result::ok)
            .filter(|p| p.stat().is_ok_and(|s| s.state != 'Z'))
            .filter(|p| {
                p.environ().is_ok_and(|env| {
                    env.iter().any(|(k, v)| {
                        format!("{}={}", k.to_string_lossy(), v.to_string_lossy()) == wanted
                    })
                })
            })
            .map(|p| (p.pid, p.stat().map(|s| s.comm).unwrap_or_default()))
            .collect()
    }

    fn pid_of(&self, name: &str) -> i32 {
        self.left_running()
            .into_iter()
            .find(|(_, comm)| comm == name)
            .unwrap_or_else(|| panic!("no {name} among {:?}", self.left_running()))
            .0
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // A failed assertion must not leave the run behind for the tests after it.
        let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
        for (pid, _) in self.left_running() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

fn ports_free() -> bool {
    RUN_PORTS.iter().all(|&(port, udp)| {
        if udp {
            UdpSocket::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
        } else {
            TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok()
        }
    })
}

/// The three in one test: they share the run's fixed ports, so they take turns.
#[test]
fn a_run_names_a_taken_port_and_leaves_nothing_running_after_ctrl_c_or_a_death() {
    assert!(ports_free(), "the run's ports are free before the test");

    // A port taken by someone else: named, with its holder, before anything starts.
    let held = UdpSocket::bind((Ipv4Addr::LOCALHOST, 20611)).unwrap();
    let mut run = Run::start(&["--servers", "2", "--no-page"]);
    let (status, output) = run.ended();
    assert!(!status.success(), "{output}");
    let me = std::process::id();
    assert!(
        output.contains(&format!(
            "port 20611/udp on 127.0.0.1 (the lab's master) is taken by pid {me} (not Muster's: "
        )),
        "{output}"
    );
    assert!(
        output.contains("stop what holds them, then run this again"),
        "{output}"
    );
    assert_eq!(run.left_running(), vec![], "{output}");
    drop(held);

    // Ctrl-C once it runs: everything stops within seconds, and says so.
    let mut run = Run::start(&["--servers", "2", "--no-page"]);
    run.wait_for("Muster is running: open http://127.0.0.1:8080/");
    let names: Vec<String> = run.left_running().into_iter().map(|(_, n)| n).collect();
    assert!(
        names.iter().any(|n| n == "muster") && names.iter().any(|n| n == "muster-lab"),
        "{names:?}"
    );
    killpg(Pid::from_raw(run.child.id() as i32), Signal::SIGINT).unwrap();
    let (status, output) = run.ended();
    assert!(status.success(), "{output}");
    assert!(
        output.contains("xtask: stopped; nothing of this run is left running"),
        "{output}"
    );
    assert_eq!(run.left_running(), vec![], "{output}");
    assert!(ports_free(), "{output}");

    // The lab dies under a running relay: the relay is stopped too, and the lab named.
    let mut run = Run::start(&["--servers", "2", "--no-page"]);
    run.wait_for("Muster is running: open http://127.0.0.1:8080/");
    kill(Pid::from_raw(run.pid_of("muster-lab")), Signal::SIGKILL).unwrap();
    let (status, output) = run.ended();
    assert!(!status.success(), "{output}");
    assert!(
        output.contains("running failed: the lab fleet (muster-lab) exited (signal: 9 (SIGKILL))"),
        "{output}"
    );
    assert!(
        output.contains("everything this run started is stopped"),
        "{output}"
    );
    assert_eq!(run.left_running(), vec![], "{output}");
    assert!(ports_free(), "{output}");
}
