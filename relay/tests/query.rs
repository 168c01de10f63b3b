//! The query engine against lab fleets on loopback: fault classification, multi-master merge,
//! and the CLI's JSON.

use crate::common;

use std::collections::BTreeSet;
use std::net::SocketAddrV4;
use std::time::Duration;

use common::lab_config;
use lab::{Fault, FaultPlan, Lab, LabConfig};
use protocol::cod::master::{ListEnd, ServerList};
use relay::browse::EngineConfig;
use tokio::net::UdpSocket;

const LIMIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn faulty_servers_are_classified() {
    let config = LabConfig {
        faults: FaultPlan {
            lossy: 0.2,
            loss_rate: 0.3,
            late: 0.1,
            late_by: Duration::from_millis(700),
            silent: 0.1,
            garbage: 0.1,
        },
        ..lab_config(60, 100)
    };
    let lab = Lab::start(config).await.unwrap();
    let faults: BTreeSet<String> = lab
        .servers
        .iter()
        .map(|s| format!("{:?}", s.fault))
        .collect();
    assert!(
        faults.len() >= 5,
        "every kind of fault is present: {faults:?}"
    );
    let addrs: Vec<SocketAddrV4> = lab.servers.iter().map(|s| s.addr).collect();
    let results = relay::browse::query_servers(&addrs, EngineConfig::default())
        .await
        .unwrap();
    assert_eq!(results.len(), 60, "one result per server, none lost");
    for (server, result) in lab.servers.iter().zip(&results) {
        assert_eq!(
            result.addr,
            server.addr.to_string(),
            "results keep input order"
        );
        match server.fault {
            Fault::None | Fault::Lossy(_) => {
                assert_eq!(result.outcome, "answered", "{server:?}");
                let seen = result.server.as_ref().unwrap();
                assert_eq!(seen.clients, server.snapshot().clients());
            }
            Fault::Late(by) => {
                assert_eq!(result.outcome, "answered", "{server:?}");
                // The late reply to the first attempt still counts; its RTT is the delay.
                let ping = result.ping_ms.unwrap();
                assert!(
                    ping >= by.as_millis() as u32,
                    "ping {ping} for a late server"
                );
            }
            Fault::Silent => {
                assert_eq!(result.outcome, "timed_out");
                assert_eq!(result.attempts, 3);
                assert!(result.server.is_none());
            }
            Fault::Garbage => {
                assert_eq!(result.outcome, "malformed");
                assert!(result.error.is_some());
            }
        }
        if matches!(server.fault, Fault::None) {
            assert_eq!(result.attempts, 1, "a healthy server is asked once");
        }
    }
}

/// A master built from the protocol crate on a real loopback socket, answering `getservers`
/// with `list` in packets of `per_packet`, every one ending `\EOT` (as stock masters do).
async fn extra_master(list: Vec<SocketAddrV4>, per_packet: usize) -> SocketAddrV4 {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let std::net::SocketAddr::V4(addr) = socket.local_addr().unwrap() else {
        unreachable!()
    };
    tokio::spawn(async move {
        let mut buf = [0u8; 2048];
        while let Ok((_, from)) = socket.recv_from(&mut buf).await {
            for chunk in list.chunks(per_packet) {
                let packet = ServerList {
                    servers: chunk.to_vec(),
                    end: ListEnd::Eot,
                }
                .emit();
                socket.send_to(&packet, from).await.unwrap();
            }
        }
    });
    addr
}

#[tokio::test]
async fn masters_are_merged_without_losing_a_server() {
    // Fleet a's master ends its list with \EOF; b's, like the stock master, with \EOT only.
    let a = Lab::start(LabConfig {
        list_end: ListEnd::Eof,
        ..lab_config(30, 7)
    })
    .await
    .unwrap();
    let b = Lab::start(LabConfig {
        seed: 99,
        ..lab_config(25, 100)
    })
    .await
    .unwrap();
    a.wait_registered(LIMIT).await.unwrap();
    b.wait_registered(LIMIT).await.unwrap();
    let a_addrs: Vec<SocketAddrV4> = a.servers.iter().map(|s| s.addr).collect();
    let b_addrs: Vec<SocketAddrV4> = b.servers.iter().map(|s| s.addr).collect();
    // A third master lists half of each fleet and never sends \EOF.
    let overlap: Vec<SocketAddrV4> = a_addrs[..15]
        .iter()
        .chain(&b_addrs[..10])
        .copied()
        .collect();
    let third = extra_master(overlap.clone(), 4).await;
    let names = vec![
        ("a".to_owned(), vec![a.master]),
        ("b".to_owned(), vec![b.master]),
        ("third".to_owned(), vec![third]),
    ];
    let listing = relay::browse::query_masters(&names, EngineConfig::default())
        .await
        .unwrap();
    assert_eq!(listing.servers.len(), 55, "every server once");
    for server in &listing.servers {
        let addr: SocketAddrV4 = server.addr.parse().unwrap();
        let mut expected = Vec::new();
        if a_addrs.contains(&addr) {
            expected.push("a");
        }
        if b_addrs.contains(&addr) {
            expected.push("b");
        }
        if overlap.contains(&addr) {
            expected.push("third");
        }
        assert_eq!(server.sources, expected, "{addr}");
    }
    let by_name = |n: &str| listing.masters.iter().find(|m| m.master == n).unwrap();
    assert_eq!(by_name("a").servers, 30);
    assert_eq!(by_name("a").packets, 5);
    assert!(by_name("a").complete);
    assert!(!by_name("b").complete);
    assert_eq!(by_name("b").servers, 25);
    assert_eq!(by_name("third").servers, 25);
    assert_eq!(by_name("third").packets, 7);
    assert!(
        !by_name("third").complete,
        "no \\EOF: complete by the idle timeout"
    );
}

#[tokio::test]
async fn cli_json_is_stable_and_reads_stdin() {
    let lab = Lab::start(lab_config(3, 100)).await.unwrap();
    let input: String = lab
        .servers
        .iter()
        .map(|s| format!("{}\n", s.addr))
        .collect();
    let output =
        tokio::task::spawn_blocking(move || common::run_muster(&["query", "--json"], &input))
            .await
            .unwrap();
    assert!(output.status.success());
    let results: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let results = results.as_array().unwrap();
    assert_eq!(results.len(), 3);
    for (result, server) in results.iter().zip(&lab.servers) {
        let keys: BTreeSet<&str> = result
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["addr", "outcome", "error", "attempts", "ping_ms", "server"])
        );
        assert_eq!(result["addr"], server.addr.to_string());
        assert_eq!(result["outcome"], "answered");
        let profile = server.snapshot();
        assert_eq!(result["server"]["hostname"], profile.hostname.as_str());
        assert_eq!(
            result["server"]["players"].as_array().unwrap().len(),
            profile.players.len()
        );
        assert!(result["server"]["cvars"].as_array().unwrap().len() > 10);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("3 servers: 3 answered, 0 timed out, 0 malformed"),
        "{stderr}"
    );
}
