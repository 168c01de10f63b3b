//! `muster tune` as a player or admin runs it.

use crate::common;

use common::{lab_config, run_muster};
use lab::Lab;
use serde_json::Value;

fn tune(args: &[&str]) -> Value {
    let mut all = vec!["tune", "--json"];
    all.extend_from_slice(args);
    let out = run_muster(&all, "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_has_every_figure_and_stock_defaults() {
    let report = tune(&[]);
    for key in [
        "packet_interval_ms",
        "packets_per_second",
        "usercmds_per_packet",
        "effective_rate",
        "rate_delay_ms",
        "requested_snapshot_interval_ms",
        "actual_snapshot_interval_ms",
        "snapshots_per_second",
        "advice",
    ] {
        assert!(report.get(key).is_some(), "{key} missing");
    }
    // Stock 85 FPS / 30 packets / rate 25000 / snaps 20 on a stock 20 Hz server.
    assert_eq!(report["packet_interval_ms"], 33);
    assert_eq!(report["usercmds_per_packet"], 6);
    assert_eq!(report["effective_rate"], 25000);
    assert_eq!(report["rate_delay_ms"], 61);
    assert_eq!(report["actual_snapshot_interval_ms"], 100);
    assert_eq!(report["advice"][0]["code"], "rate_delays_large_snapshots");
    assert_eq!(report["server"]["sv_fps_from"], "stock default");
}

#[test]
fn flags_are_named_after_the_cvars() {
    let report = tune(&[
        "--com-maxfps",
        "125",
        "--cl-maxpackets",
        "62",
        "--cl-packetdup",
        "1",
        "--rate",
        "50000",
        "--snaps",
        "30",
        "--sv-fps",
        "30",
        "--sv-maxrate",
        "0",
        "--packet-size",
        "900",
    ]);
    assert_eq!(report["packets_per_second"], 62.5);
    assert_eq!(report["actual_snapshot_interval_ms"], 33);
    assert_eq!(report["charged_size"], 948);
    assert_eq!(report["advice"], Value::Array(vec![]));
    let lan = tune(&["--lan", "--com-maxfps", "125"]);
    assert_eq!(lan["packet_interval_ms"], 8);
    assert_eq!(lan["actual_snapshot_interval_ms"], 50);
}

#[tokio::test]
async fn a_server_s_published_cvars_are_used() {
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    let addr = lab.servers[0].addr.to_string();
    let report = tokio::task::spawn_blocking(move || tune(&[&addr, "--rate", "50000"]))
        .await
        .unwrap();
    // The lab publishes sv_maxRate 25000 in its status: it caps a 50000 request.
    assert_eq!(report["server"]["sv_max_rate_from"], "server");
    assert_eq!(report["effective_rate"], 25000);
    assert_eq!(report["server"]["addr"], lab.servers[0].addr.to_string());
    let silent = run_muster(&["tune", "127.0.0.1:9"], "");
    assert!(
        !silent.status.success(),
        "an unreachable server is an error"
    );
}
