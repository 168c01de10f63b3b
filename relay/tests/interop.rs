//! Interop with real third-party peers on loopback: QStat and gamedig query the lab servers and
//! the lab master, and what they print must match what the lab serves. Run by `cargo xtask test`,
//! which installs both.

use crate::common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::lab_config;
use lab::{Lab, ServerProfile};
use protocol::cod::text::strip;
use serde_json::Value;

fn qstat_cfg() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/qstat-coduo.cfg")
}

/// Runs a peer and parses its JSON output; both peers exit 0 even for a down server.
fn run_json(program: &str, args: &[&str]) -> Value {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs (cargo xtask test installs it): {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{program} {args:?} printed no JSON ({e}): {stdout}"))
}

fn quakestat(args: &[&str]) -> Value {
    let cfg = qstat_cfg();
    let mut all = vec!["-cfg", cfg.to_str().unwrap(), "-json"];
    all.extend_from_slice(args);
    run_json("quakestat", &all)
}

fn gamedig_bin() -> PathBuf {
    std::env::var_os("MUSTER_NODE_BIN")
        .map(PathBuf::from)
        .unwrap_or_default()
        .join("gamedig")
}

/// QStat's and gamedig's view of a server's players: names without colours, score, ping.
fn lab_players(profile: &ServerProfile) -> Vec<(String, i64, i64)> {
    profile
        .players
        .iter()
        .map(|p| (strip(&p.name), i64::from(p.score), i64::from(p.ping)))
        .collect()
}

fn check_qstat_server(entry: &Value, profile: &ServerProfile) {
    assert_eq!(entry["status"], "online", "{entry}");
    assert_eq!(entry["name"], strip(&profile.hostname).as_str());
    assert_eq!(entry["map"], profile.mapname.as_str());
    assert_eq!(entry["numplayers"], profile.clients());
    assert_eq!(entry["maxplayers"], profile.max_clients);
    assert_eq!(entry["gametype"], "Call of Duty");
    let rules = &entry["rules"];
    assert_eq!(rules["sv_hostname"], profile.hostname.as_str());
    assert_eq!(rules["g_gametype"], profile.gametype.as_str());
    assert_eq!(rules["protocol"], "22");
    assert_eq!(rules["pswrd"], if profile.password { "1" } else { "0" });
    let players: Vec<(String, i64, i64)> = entry["players"]
        .as_array()
        .expect("players listed")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["score"].as_i64().unwrap(),
                p["ping"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(players, lab_players(profile));
}

#[tokio::test]
#[ignore = "needs QStat; run by cargo xtask test"]
async fn qstat_reads_every_lab_server_as_the_lab_serves_it() {
    let lab = Lab::start(lab_config(6, 100)).await.unwrap();
    for server in &lab.servers {
        let addr = server.addr.to_string();
        let out = tokio::task::spawn_blocking(move || quakestat(&["-R", "-P", "-coduos", &addr]))
            .await
            .unwrap();
        check_qstat_server(&out[0], &server.snapshot());
    }
}

#[tokio::test]
#[ignore = "needs QStat; run by cargo xtask test"]
async fn qstat_reads_the_lab_master_list_across_packets() {
    // Three addresses per packet: the 8-server list takes three packets, EOT, EOT, EOF.
    let lab = Lab::start(lab_config(8, 3)).await.unwrap();
    lab.wait_registered(Duration::from_secs(10)).await.unwrap();
    let master = lab.master.to_string();
    let out = tokio::task::spawn_blocking(move || quakestat(&["-R", "-P", "-coduom", &master]))
        .await
        .unwrap();
    let entries = out.as_array().unwrap();
    assert_eq!(entries[0]["protocol"], "coduom");
    assert_eq!(entries[0]["status"], "online");
    assert_eq!(entries[0]["servers"], 8);
    let mut listed: Vec<&str> = entries[1..]
        .iter()
        .map(|e| e["address"].as_str().unwrap())
        .collect();
    listed.sort();
    let mut expected: Vec<String> = lab.servers.iter().map(|s| s.addr.to_string()).collect();
    expected.sort();
    assert_eq!(listed, expected);
    for entry in &entries[1..] {
        let server = lab
            .servers
            .iter()
            .find(|s| s.addr.to_string() == entry["address"].as_str().unwrap())
            .unwrap();
        check_qstat_server(entry, &server.snapshot());
    }
}

#[tokio::test]
#[ignore = "needs gamedig; run by cargo xtask test"]
async fn gamedig_reads_every_lab_server_as_the_lab_serves_it() {
    let lab = Lab::start(lab_config(6, 100)).await.unwrap();
    let bin = gamedig_bin();
    for server in &lab.servers {
        let addr = server.addr.to_string();
        let bin = bin.clone();
        let out = tokio::task::spawn_blocking(move || {
            run_json(bin.to_str().unwrap(), &["--type", "coduo", &addr])
        })
        .await
        .unwrap();
        let profile = server.snapshot();
        assert!(out.get("error").is_none(), "{out}");
        assert_eq!(out["name"], strip(&profile.hostname).as_str());
        assert_eq!(out["map"], profile.mapname.as_str());
        // gamedig's password flag reads Quake III's g_needpass, which UO does not send; the
        // UO flag is `pswrd`.
        assert_eq!(
            out["raw"]["pswrd"],
            if profile.password { "1" } else { "0" }
        );
        assert_eq!(out["maxplayers"], profile.max_clients.to_string().as_str());
        assert_eq!(out["numplayers"], profile.clients());
        assert_eq!(out["raw"]["sv_hostname"], strip(&profile.hostname).as_str());
        // gamedig files a player with ping 0 under bots.
        let named = |list: &Value| -> Vec<(String, i64, i64)> {
            list.as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap().to_owned(),
                        p["raw"]["frags"].as_i64().unwrap(),
                        p["raw"]["ping"].as_i64().unwrap(),
                    )
                })
                .collect()
        };
        let mut seen = named(&out["players"]);
        seen.extend(named(&out["bots"]));
        seen.sort();
        let mut expected = lab_players(&profile);
        expected.sort();
        assert_eq!(seen, expected);
        assert_eq!(
            named(&out["bots"]).len(),
            profile.players.iter().filter(|p| p.bot).count()
        );
    }
}
