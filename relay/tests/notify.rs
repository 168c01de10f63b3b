//! systemd's notify protocol as the Debian package's `Type=notify` unit uses it: a Unix
//! datagram socket stands where systemd's is (`NOTIFY_SOCKET`), and `muster serve` must say
//! `READY=1` once it serves, ping `WATCHDOG=1` at half of `WATCHDOG_USEC`, and say
//! `STOPPING=1` when SIGTERM starts its shutdown.

use crate::common;

use std::time::Duration;

use tokio::net::UnixDatagram;

async fn next(socket: &UnixDatagram) -> String {
    let mut buf = vec![0; 4096];
    let n = tokio::time::timeout(Duration::from_secs(30), socket.recv(&mut buf))
        .await
        .expect("a notification within 30 s")
        .unwrap();
    String::from_utf8(buf[..n].to_vec())
        .unwrap()
        .trim_end()
        .to_owned()
}

#[tokio::test]
async fn serve_tells_systemd_it_is_ready_pings_the_watchdog_and_says_it_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify.sock");
    let socket = UnixDatagram::bind(&path).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(common::SERVE_ALONE)
        .arg("--dist")
        .arg(dir.path())
        .env("NOTIFY_SOCKET", &path)
        .env("WATCHDOG_USEC", "400000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let ready = next(&socket).await;
    let mut lines = ready.lines();
    assert_eq!(lines.next(), Some("READY=1"), "{ready}");
    let status = lines.next().unwrap_or_default();
    let url = status
        .strip_prefix("STATUS=serving ")
        .unwrap_or_else(|| panic!("{ready}"));
    // Ready means serving: the address it names answers at once.
    let answer = reqwest::get(format!("{url}api/servers")).await.unwrap();
    assert!(answer.status().is_success(), "{}", answer.status());
    // The watchdog, at half of its 400 ms: a handful within a second and a half.
    let began = tokio::time::Instant::now();
    let mut pings = 0;
    while began.elapsed() < Duration::from_millis(1500) {
        assert_eq!(next(&socket).await, "WATCHDOG=1");
        pings += 1;
    }
    assert!((3..=9).contains(&pings), "{pings} pings in 1.5 s");
    let pid = rustix::process::Pid::from_raw(child.id().unwrap() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    loop {
        let said = next(&socket).await;
        if said != "WATCHDOG=1" {
            assert_eq!(said, "STOPPING=1\nSTATUS=SIGTERM: shutting down");
            break;
        }
    }
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}
