//! The relay's edge and life as an operator meets them, on real sockets on loopback: a clean
//! shutdown (pages and viewers told why, the game server told goodbye, the recording ended
//! with its marker, exit status 0 on SIGTERM), several listeners (IPv4 and IPv6), `/metrics`
//! as Prometheus's own checker reads it, and every per-client limit.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use lab::{Lab, LabConfig};
use protocol::cod::demo::END_MARKER;
use relay::demos::RecordConfig;
use relay::edge::{EdgeConfig, Limits};
use relay::spectate::SpectateConfig;
use relay::{Relay, ServeConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

const LIMIT: Duration = Duration::from_secs(30);

/// The next close frame on a socket, skipping data; `None` if it ended without one.
async fn close_frame<S>(socket: &mut S) -> Option<(CloseCode, String)>
where
    S: futures_util::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        match tokio::time::timeout(LIMIT, socket.next()).await.ok()?? {
            Ok(Message::Close(Some(frame))) => return Some((frame.code, frame.reason.to_string())),
            Ok(Message::Close(None)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

#[tokio::test]
async fn shutdown_tells_pages_viewers_and_the_game_server_and_ends_the_recording() {
    let demos = tempfile::tempdir().unwrap();
    let lab = Lab::start(LabConfig {
        players: Some(6),
        ..common::lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let server = lab.servers[0].addr;
    let relay = Relay::start(relay::ServeConfig {
        recording: Some(RecordConfig {
            dir: demos.path().into(),
            max_bytes: 50 << 20,
        }),
        ..common::spectating_config(
            &lab,
            SpectateConfig {
                delay: Duration::ZERO,
                ..SpectateConfig::default()
            },
        )
    })
    .await
    .unwrap();
    common::wait_listed(&relay, &lab).await;
    let mut page = common::Page::open(&relay).await;
    let mut viewer = common::Viewer::open(&relay, &server.to_string()).await;
    viewer.until(LIMIT, |v| v.view.is_some()).await;
    let hub = relay.hubs.record(server).unwrap();
    let spectating = || {
        lab.servers[0]
            .snapshot()
            .players
            .iter()
            .filter(|p| p.spectator)
            .count()
    };
    let deadline = tokio::time::Instant::now() + LIMIT;
    while (hub.record_path().is_none() || spectating() == 0)
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(spectating(), 1, "the hub's session is on the lab server");
    assert!(hub.record_path().is_some(), "the recording started");

    let report = relay.shutdown().await;

    assert_eq!(report.hubs_closed, 1, "{report:?}");
    assert!(report.sockets_closed >= 2, "{report:?}");
    assert!(report.history_flushed);
    for socket in [
        close_frame(&mut page.socket).await,
        close_frame(&mut viewer.socket).await,
    ] {
        let (code, reason) = socket.expect("a close frame, not a cut connection");
        assert_eq!(code, CloseCode::Away);
        assert_eq!(reason, relay::edge::SHUTDOWN_REASON);
    }
    // The server heard `disconnect` (a timeout would keep the slot for many seconds more).
    assert_eq!(spectating(), 0, "the session said goodbye");
    let files: Vec<_> = std::fs::read_dir(demos.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let demo = std::fs::read(&files[0]).unwrap();
    assert!(demo.ends_with(&END_MARKER), "the demo ends with its marker");
}

/// Whether this machine has IPv6 loopback (some containers do not).
fn ipv6_loopback() -> bool {
    std::net::TcpListener::bind("[::1]:0").is_ok()
}

#[tokio::test]
async fn sigterm_stops_the_relay_with_status_0_after_serving_every_listener() {
    let mut args = common::SERVE_ALONE.to_vec();
    let v6 = ipv6_loopback();
    if v6 {
        args.extend(["--listen", "[::1]:0"]);
    } else {
        eprintln!("no IPv6 loopback here: the IPv6 listener is not tried");
    }
    let dist = common::dist().display().to_string();
    args.extend(["--dist", &dist]);
    let (mut child, mut lines) = common::spawn_muster(&args);
    let mut addrs: Vec<SocketAddr> = Vec::new();
    while addrs.len() < if v6 { 2 } else { 1 } {
        let line = tokio::time::timeout(LIMIT, lines.next_line())
            .await
            .expect("the relay starts")
            .unwrap()
            .expect("the relay prints its addresses");
        if let Some(rest) = line.strip_prefix("muster: serving http://") {
            addrs.push(rest.trim_end_matches('/').parse().unwrap());
        }
    }
    if v6 {
        assert!(addrs[1].is_ipv6(), "{addrs:?}");
    }
    for addr in &addrs {
        let metrics = common::body(format!("http://{addr}/metrics")).await;
        assert!(metrics.contains("muster_build_info{"), "{metrics}");
        promtool_accepts(&metrics);
    }
    let pid = child.id().expect("running").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the relay exits within 10 s of SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// Prometheus's own checker reads the scrape without an error or a lint (`cargo xtask test`
/// installs it; elsewhere the check says it was not run).
fn promtool_accepts(metrics: &str) {
    use std::io::Write;
    let spawned = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if std::env::var_os("MUSTER_DIST").is_none() => {
            eprintln!("promtool not run ({e}); cargo xtask test installs it");
            return;
        }
        Err(e) => panic!("promtool is needed under cargo xtask test: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(metrics.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && said.trim().is_empty(),
        "promtool: {said}"
    );
}

/// A relay polling `lab`, with these edge limits and trusted proxies.
async fn limited(lab: &Lab, limits: Limits, trusted_proxies: Vec<std::net::IpAddr>) -> Relay {
    let mut config: ServeConfig = common::spectating_config(lab, SpectateConfig::default());
    config.edge = EdgeConfig {
        limits,
        trusted_proxies,
    };
    Relay::start(config).await.unwrap()
}

async fn get(url: &str, forwarded_for: Option<&str>) -> reqwest::Response {
    let client = reqwest::Client::new();
    let mut request = client.get(url);
    if let Some(xff) = forwarded_for {
        request = request.header("x-forwarded-for", xff);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_api_rate_answers_429_with_retry_after_per_client_and_trusts_only_its_proxies() {
    let lab = Lab::start(common::lab_config(1, 10)).await.unwrap();
    let limits = Limits {
        api_per_second: 1,
        api_burst: 5,
        ..Limits::none()
    };
    let relay = limited(&lab, limits.clone(), Vec::new()).await;
    let url = format!("http://{}/api/servers", relay.addr);
    for _ in 0..5 {
        assert_eq!(get(&url, None).await.status(), 200);
    }
    let refused = get(&url, None).await;
    assert_eq!(refused.status(), 429);
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    // A forged X-Forwarded-For from an untrusted peer changes nothing.
    assert_eq!(get(&url, Some("203.0.113.1")).await.status(), 429);
    // The plain list and a first screen in a view of the client's own cost work too, and share
    // the API's bucket; the shared first screen does not.
    let page = |path: &str| format!("http://{}{path}", relay.addr);
    assert_eq!(get(&page("/servers"), None).await.status(), 429);
    assert_eq!(get(&page("/?q=x"), None).await.status(), 429);
    assert_ne!(get(&page("/"), None).await.status(), 429);
    // Only those are rate-limited: the metrics (like the page) still answer.
    let metrics = get(&format!("http://{}/metrics", relay.addr), None).await;
    assert_eq!(metrics.status(), 200);
    let metrics = metrics.text().await.unwrap();
    assert!(
        metrics.contains("muster_http_limited_total{reason=\"api_rate\"} 4"),
        "{metrics}"
    );

    // Behind a trusted proxy, each forwarded client has its own bucket.
    let proxied = limited(&lab, limits, vec!["127.0.0.1".parse().unwrap()]).await;
    let url = format!("http://{}/api/servers", proxied.addr);
    for _ in 0..5 {
        assert_eq!(get(&url, Some("203.0.113.1")).await.status(), 200);
    }
    assert_eq!(get(&url, Some("203.0.113.1")).await.status(), 429);
    assert_eq!(get(&url, Some("203.0.113.2")).await.status(), 200);
    // IPv6 clients share a bucket per /64.
    for _ in 0..5 {
        assert_eq!(get(&url, Some("2001:db8:0:1::a")).await.status(), 200);
    }
    assert_eq!(get(&url, Some("2001:db8:0:1::b")).await.status(), 429);
    assert_eq!(get(&url, Some("2001:db8:0:2::a")).await.status(), 200);
}

async fn open_feed(addr: SocketAddr) -> Result<common::Socket, u16> {
    match tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn sockets_per_client_are_capped_for_the_life_of_each_socket_and_upgrades_are_rated() {
    let lab = Lab::start(common::lab_config(1, 10)).await.unwrap();
    let relay = limited(
        &lab,
        Limits {
            sockets_per_client: 2,
            ..Limits::none()
        },
        Vec::new(),
    )
    .await;
    let first = open_feed(relay.addr).await.unwrap();
    let mut second = open_feed(relay.addr).await.unwrap();
    assert_eq!(open_feed(relay.addr).await.err(), Some(429));
    // A socket's place is given back when it closes, not before.
    second.close(None).await.unwrap();
    while second.next().await.is_some() {}
    let deadline = tokio::time::Instant::now() + LIMIT;
    let third = loop {
        match open_feed(relay.addr).await {
            Ok(socket) => break socket,
            Err(429) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(status) => panic!("{status}"),
        }
    };
    drop((first, third));

    let rated = limited(
        &lab,
        Limits {
            upgrades_per_second: 1,
            upgrades_burst: 3,
            ..Limits::none()
        },
        Vec::new(),
    )
    .await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(open_feed(rated.addr).await.unwrap());
    }
    assert_eq!(open_feed(rated.addr).await.err(), Some(429));
}

/// Sends `bytes` on a new connection and reads until the relay closes it: what it answered,
/// or `None` when it kept the connection open past [`LIMIT`].
async fn sent_until_closed(addr: std::net::SocketAddr, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(LIMIT, stream.read_to_end(&mut answer)).await;
    read.is_ok().then_some(answer)
}

#[tokio::test]
async fn a_slow_or_oversized_request_head_is_cut_off() {
    let lab = Lab::start(common::lab_config(1, 10)).await.unwrap();
    let relay = limited(
        &lab,
        Limits {
            header_timeout: Duration::from_secs(1),
            max_header_bytes: 8192,
            ..Limits::none()
        },
        Vec::new(),
    )
    .await;
    // Slowloris: a head that never ends is closed once its deadline passes.
    let slow = sent_until_closed(
        relay.addr,
        b"GET /api/servers HTTP/1.1\r\nHost: x\r\nX-Slow: ",
    )
    .await;
    assert!(slow.is_some(), "the relay closed the slow connection");
    // A head larger than the limit is refused (431) before any route sees it.
    let huge = "x".repeat(20_000);
    let response = reqwest::Client::new()
        .get(format!("http://{}/api/servers", relay.addr))
        .header("x-huge", huge)
        .send()
        .await;
    match response {
        Ok(response) => assert_eq!(response.status(), 431),
        // hyper may close instead of answering, which the client sees as an error.
        Err(e) => assert!(e.is_request() || e.is_connect() || e.is_body(), "{e}"),
    }
    // An ordinary request still works.
    assert_eq!(
        get(&format!("http://{}/api/servers", relay.addr), None)
            .await
            .status(),
        200
    );
    // Both refusals are counted, as every refusal is; a connection left idle after its
    // answer (keep-alive ending at the same deadline) is not one.
    let answer = sent_until_closed(relay.addr, b"GET /api/servers HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("the relay closed the idle connection");
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{answer:?}");
    let metrics = get(&format!("http://{}/metrics", relay.addr), None)
        .await
        .text()
        .await
        .unwrap();
    for reason in ["header_timeout", "header_size"] {
        let line = format!("muster_http_limited_total{{reason=\"{reason}\"}} 1\n");
        assert!(metrics.contains(&line), "{line}{metrics}");
    }
}

#[tokio::test]
async fn a_message_over_the_limit_is_refused_with_1009_and_a_reason_and_counted() {
    let lab = Lab::start(common::lab_config(1, 10)).await.unwrap();
    let relay = limited(&lab, Limits::none(), Vec::new()).await;
    let mut page = open_feed(relay.addr).await.unwrap();
    futures_util::SinkExt::send(&mut page, Message::text("x".repeat(8 * 1024)))
        .await
        .unwrap();
    let (code, reason) = close_frame(&mut page)
        .await
        .expect("a close frame, not a dropped connection");
    assert_eq!(
        (code, reason.as_str()),
        (CloseCode::Size, relay::edge::TOO_BIG_REASON)
    );
    let metrics = get(&format!("http://{}/metrics", relay.addr), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("muster_http_limited_total{reason=\"ws_message\"} 1\n"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_websocket_that_stops_answering_pings_is_closed_and_one_that_answers_is_kept() {
    let lab = Lab::start(LabConfig {
        players: Some(4),
        ..common::lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = common::spectating_config(
        &lab,
        SpectateConfig {
            delay: Duration::ZERO,
            ..SpectateConfig::default()
        },
    );
    config.edge.limits.ws_ping_every = Duration::from_secs(1);
    config.edge.limits.ws_answer_within = Duration::from_secs(1);
    let relay = Relay::start(config).await.unwrap();
    common::wait_listed(&relay, &lab).await;
    let server = lab.servers[0].addr.to_string();
    // A viewer reads (and so answers pings, as a browser does); another never reads.
    let mut answering = common::Viewer::open(&relay, &server).await;
    answering.until(LIMIT, |v| v.view.is_some()).await;
    let mut silent = common::Viewer::open(&relay, &server).await;
    let quiet_until = tokio::time::Instant::now() + Duration::from_secs(5);
    while tokio::time::Instant::now() < quiet_until {
        let next = tokio::time::timeout_at(quiet_until, answering.next()).await;
        assert!(!matches!(next, Ok(None)), "the answering viewer is kept");
    }
    // The silent one finds, after what was queued for it, that the relay closed its socket.
    let ended = tokio::time::timeout(LIMIT, async {
        while let Some(Ok(message)) = silent.socket.next().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the silent viewer's socket was closed");
    assert!(
        answering.next().await.is_some(),
        "the answering viewer still gets frames"
    );
}
