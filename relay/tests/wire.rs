//! `muster wire` as a user runs it: hex lines in, one JSON object per datagram out.

use crate::common;

use protocol::cod::download::DownloadRecord;
use protocol::cod::info::{InfoString, MAX_INFO_STRING};
use protocol::cod::msg::MsgWriter;
use protocol::cod::netchan::{Netchan, Side};
use protocol::cod::oob::Packet;
use protocol::cod::sequenced::{client_message, server_message, ClientHeader, ServerHeader};
use relay::cli::wire::to_hex;
use serde_json::Value;

const CHALLENGE: i32 = -91_234_567;

fn muster(args: &[&str], stdin: &str) -> (String, bool) {
    let out = common::run_muster(args, stdin);
    (String::from_utf8(out.stdout).unwrap(), out.status.success())
}

fn server_body(records: impl FnOnce(&mut MsgWriter)) -> Vec<u8> {
    let mut w = MsgWriter::new();
    records(&mut w);
    w.write_byte(8);
    w.into_bytes()
}

/// A short session, built with the protocol crate: handshake, then a reliable command each
/// way (each direction's XOR key uses the other's command), then a fragmented message.
fn capture() -> String {
    let mut lines = Vec::new();
    let mut line = |dir: &str, bytes: &[u8]| lines.push(format!("{dir} {}", to_hex(bytes)));
    line("c2s", &Packet::GetChallenge.emit());
    line(
        "s2c",
        &Packet::ChallengeResponse {
            challenge: CHALLENGE,
            extra: vec![],
        }
        .emit(),
    );
    let mut userinfo = InfoString::new(MAX_INFO_STRING);
    for (k, v) in [
        ("protocol", "22"),
        ("qport", "777"),
        ("challenge", &CHALLENGE.to_string()),
        ("name", "^2Sniper Joe"),
    ] {
        userinfo.set(k, v).unwrap();
    }
    line("c2s", &Packet::Connect { userinfo }.emit());

    let mut server = Netchan::new(Side::Server, 777);
    let mut client = Netchan::new(Side::Client, 777);
    let cs = "cs 0 \"\\sv_hostname\\Lab\"";
    let body = server_body(|w| {
        w.write_byte(5);
        w.write_long(3);
        w.write_string(cs.as_bytes());
    });
    let header = ServerHeader {
        last_client_command: 0,
    };
    let seq = server.outgoing_sequence();
    server
        .transmit(&server_message(&header, &body, seq, CHALLENGE, b""))
        .unwrap();
    line("s2c", &server.poll_transmit().unwrap());

    let mut w = MsgWriter::new();
    w.write_bits(2, 2);
    w.write_long(1);
    w.write_string(b"say hi");
    w.write_bits(3, 2);
    let header = ClientHeader {
        server_id: 0x31,
        message_acknowledge: 1,
        reliable_acknowledge: 3,
    };
    client
        .transmit(&client_message(
            &header,
            &w.into_bytes(),
            CHALLENGE,
            cs.as_bytes(),
        ))
        .unwrap();
    line("c2s", &client.poll_transmit().unwrap());

    let header = ServerHeader {
        last_client_command: 1,
    };
    let seq = server.outgoing_sequence();
    let body = server_body(|w| w.write_byte(1));
    server
        .transmit(&server_message(&header, &body, seq, CHALLENGE, b"say hi"))
        .unwrap();
    line("s2c", &server.poll_transmit().unwrap());

    let seq = server.outgoing_sequence();
    let noise: Vec<u8> = (0..3000u32).map(|i| (i * 37 % 251) as u8).collect();
    // A file in two in-band download blocks.
    let body = server_body(|w| {
        w.write_byte(1);
        DownloadRecord::Block {
            number: 0,
            total_size: Some(3000),
            data: noise[..2048].to_vec(),
        }
        .write(w);
        DownloadRecord::Block {
            number: 1,
            total_size: None,
            data: noise[2048..].to_vec(),
        }
        .write(w);
    });
    server
        .transmit(&server_message(&header, &body, seq, CHALLENGE, b"say hi"))
        .unwrap();
    while let Some(datagram) = server.poll_transmit() {
        line("s2c", &datagram);
    }
    lines.push("# a comment, then garbage".into());
    lines.push("c2s zz".into());
    lines.join("\n") + "\n"
}

#[test]
fn dissects_a_session_both_ways() {
    let (out, ok) = muster(&["wire", "--challenge", &CHALLENGE.to_string()], &capture());
    assert!(ok);
    let objects: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects[0]["packet"]["command"], "getchallenge");
    assert_eq!(objects[1]["packet"]["challenge"], CHALLENGE);
    let connect = &objects[2]["packet"];
    assert_eq!(connect["command"], "connect");
    assert_eq!(
        connect["userinfo"][3],
        serde_json::json!(["name", "^2Sniper Joe"])
    );

    let first = &objects[3]["message"];
    assert_eq!(objects[3]["kind"], "netchan");
    assert_eq!(first["commands"][0]["type"], "svc_serverCommand");
    assert_eq!(first["commands"][0]["sequence"], 3);
    assert_eq!(first["commands"][0]["text"], "cs 0 \"\\sv_hostname\\Lab\"");
    assert_eq!(first["commands"][1]["type"], "svc_EOF");

    let from_client = &objects[4];
    assert_eq!(from_client["qport"], 777);
    let message = &from_client["message"];
    assert_eq!(message["header"]["reliable_acknowledge"], 3);
    assert_eq!(message["key_command_known"], true);
    assert_eq!(message["commands"][0]["text"], "say hi");
    assert_eq!(message["commands"][1]["type"], "EOF");

    let second = &objects[5]["message"];
    assert_eq!(second["key_command_known"], true);
    assert_eq!(second["commands"][0]["type"], "svc_nop");

    // 3,000+ bytes: two full fragments and a short last one, reassembled on the third.
    assert_eq!(objects[6]["message"]["incomplete"], true);
    assert_eq!(objects[6]["fragment"]["length"], 1300);
    assert_eq!(objects[7]["message"]["incomplete"], true);
    let whole = &objects[8]["message"];
    assert_eq!(whole["sequence"], 3);
    assert_eq!(whole["commands"][1]["type"], "svc_download");
    assert_eq!(whole["commands"][1]["total_size"], 3000);
    assert_eq!(whole["commands"][2]["block"], 1);
    assert_eq!(whole["commands"][2]["length"], 952);
    assert_eq!(whole["commands"][3]["type"], "svc_EOF");

    assert!(objects[9]["error"].as_str().unwrap().contains("hex"));
    assert_eq!(objects.len(), 10);
}

#[test]
fn without_the_challenge_bodies_stay_encoded() {
    let (out, ok) = muster(&["wire"], &capture());
    assert!(ok);
    let fourth: Value = serde_json::from_str(out.lines().nth(3).unwrap()).unwrap();
    assert!(fourth["message"]["body_encoded_hex"].is_string());
    assert!(fourth["message"]["commands"].is_null());
}

#[test]
fn huffman_codecs_on_hex() {
    let hello = "68656c6c6f20776f726c642068656c6c6f";
    let (fixed, ok) = muster(&["wire", "huffman", "encode", "--fixed"], hello);
    assert!(ok);
    assert_eq!(fixed.trim(), "1c0c1373f6ce983dc2bc7473304ccc59");
    let (back, _) = muster(&["wire", "huffman", "decode", "--fixed"], &fixed);
    assert!(back.trim().starts_with(hello));
    let (adaptive, _) = muster(&["wire", "huffman", "encode", "--adaptive"], "61 62 63");
    assert_eq!(adaptive.trim(), "0003868c3006");
    let (plain, _) = muster(&["wire", "huffman", "decode", "--adaptive"], &adaptive);
    assert_eq!(plain.trim(), "616263");
    let (_, ok) = muster(&["wire", "huffman", "decode", "--adaptive"], "00");
    assert!(!ok, "a truncated tail is an error");
}

#[test]
fn dissects_a_gamestate_and_its_snapshots() {
    use protocol::cod::entity::EntityState;
    use protocol::cod::gamestate::Gamestate;
    use protocol::cod::snapshot::Snapshot;

    let mut server = Netchan::new(Side::Server, 1);
    let header = ServerHeader {
        last_client_command: 0,
    };
    let mut gamestate = Gamestate {
        server_command_sequence: 4,
        client_num: 2,
        checksum_feed: 99,
        ..Gamestate::default()
    };
    gamestate
        .configstrings
        .insert(0, "\\g_gametype\\sd\\mapname\\mp_foy".into());
    let mut base = EntityState::zero(40);
    base.fields[0] = 77;
    gamestate.baselines.insert(40, base.clone());
    let mut lines = Vec::new();
    let mut send = |body: Vec<u8>, server: &mut Netchan| {
        let seq = server.outgoing_sequence();
        server
            .transmit(&server_message(&header, &body, seq, CHALLENGE, b""))
            .unwrap();
        lines.push(format!("s2c {}", to_hex(&server.poll_transmit().unwrap())));
    };
    let mut w = MsgWriter::new();
    gamestate.write(&mut w);
    w.write_byte(8);
    send(w.into_bytes(), &mut server);

    let mut first = Snapshot {
        server_time: 5000,
        ..Snapshot::default()
    };
    let mut moved = base.clone();
    moved.fields[0] = 78;
    first.entities.insert(40, moved);
    let mut w = MsgWriter::new();
    first.write(&mut w, None, &gamestate.baselines);
    send(w.into_bytes(), &mut server);

    let mut second = first.clone();
    second.server_time = 5050;
    second.delta_num = 1;
    second.entities.insert(41, EntityState::zero(41));
    let mut w = MsgWriter::new();
    second.write(&mut w, Some(&first), &gamestate.baselines);
    send(w.into_bytes(), &mut server);

    let input = lines.join("\n") + "\n";
    let (out, ok) = muster(&["wire", "--challenge", &CHALLENGE.to_string()], &input);
    assert!(ok);
    let objects: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let g = &objects[0]["message"]["commands"][0];
    assert_eq!(g["type"], "svc_gamestate");
    assert_eq!(g["configstrings"], 1);
    assert_eq!(g["baselines"], 1);
    assert_eq!(g["checksum_feed"], 99);
    assert_eq!(objects[0]["message"]["commands"][1]["type"], "svc_EOF");
    let s1 = &objects[1]["message"]["commands"][0];
    assert_eq!(s1["type"], "svc_snapshot");
    assert_eq!(s1["server_time"], 5000);
    assert_eq!(s1["entities"], 1);
    let s2 = &objects[2]["message"]["commands"][0];
    assert_eq!(s2["delta_num"], 1);
    assert_eq!(s2["usable"], true);
    assert_eq!(s2["entities"], 2);
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn wulfram_tcp_frames_from_a_stream_split_anywhere() {
    // An empty 0x19 frame, a 0x35 frame with one i32 split across lines, a refused control,
    // then a frame cut off by the end of input.
    let input = "0003 19\n0007 35 0000\n002a\n0004 0201\n0010 20\n";
    let (out, ok) = muster(&["wire", "wulfram", "--tcp"], input);
    assert!(ok);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0]["opcode"], 0x19);
    assert_eq!(lines[0]["size"], 3);
    assert_eq!(lines[1]["body"], "0000002a");
    assert!(lines[2]["error"]
        .as_str()
        .unwrap()
        .contains("refused on TCP"));
    assert!(lines[3]["error"].as_str().unwrap().contains("3 bytes held"));
}

#[test]
fn wulfram_udp_records_walk_with_the_given_modes() {
    let input = "19 0001 0005 35 0002 0009 0000002a 02 01 19 0001 40 0102\n19 ffff 0005\nzz\n";
    let (out, ok) = muster(
        &[
            "wire",
            "wulfram",
            "--udp",
            "--mode",
            "0x19=ordered",
            "--mode",
            "53=1",
        ],
        input,
    );
    assert!(ok);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(
        (
            lines[0]["opcode"].as_u64(),
            lines[0]["mode"].as_str(),
            lines[0]["seq"].as_u64(),
            lines[0]["length"].as_u64()
        ),
        (Some(0x19), Some("ordered"), Some(1), Some(5))
    );
    assert_eq!(
        (lines[1]["mode"].as_str(), lines[1]["body"].as_str()),
        (Some("latest"), Some("0000002a"))
    );
    assert_eq!(lines[2]["control"]["name"], "D_ACK");
    assert_eq!(lines[2]["control"]["target_seq"], 1);
    assert_eq!(
        (lines[3]["opcode"].as_u64(), lines[3]["body"].as_str()),
        (Some(0x40), Some("0102"))
    );
    assert!(lines[4]["error"].as_str().unwrap().contains("65535"));
    assert_eq!(lines[4]["datagram"], 1);
    assert!(lines[5]["error"].is_string());
    // A bad --mode is a clear error.
    let out = common::run_muster(&["wire", "wulfram", "--udp", "--mode", "0x19=fast"], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a stream mode"));
}

/// A capture of a real session: `cod::client` against `cod::server` on a perfect link, with the
/// user commands the server read, in order.
fn live_capture() -> (String, i32, Vec<i32>) {
    use protocol::cod::client::{Client, ClientConfig};
    use protocol::cod::entity::EntityState;
    use protocol::cod::server::{Frame, Map, Server, ServerConfig, ServerEvent};
    let from: std::net::SocketAddr = "127.0.0.1:40000".parse().unwrap();
    let mut map = Map {
        checksum_feed: 0x5eed,
        ..Map::default()
    };
    map.baselines.insert(70, EntityState::zero(70));
    let mut server = Server::new(ServerConfig::default(), map);
    let mut client = Client::new(ClientConfig::default(), 0);
    let mut frame = Frame::default();
    let (mut lines, mut times, mut challenge) = (Vec::new(), Vec::new(), 0);
    for now in (10u64..2000).step_by(10) {
        if now.is_multiple_of(50) {
            frame.server_time += 50;
            server.frame(now, &frame);
        }
        client.handle_timeout(now);
        while let Some(d) = client.poll_transmit() {
            if let Ok(Packet::Connect { userinfo }) = Packet::parse(&d) {
                challenge = userinfo.get("challenge").unwrap().parse().unwrap();
            }
            lines.push(format!("c2s {}", to_hex(&d)));
            server.handle_datagram(now, from, &d);
        }
        while let Some(transmit) = server.poll_transmit() {
            lines.push(format!("s2c {}", to_hex(&transmit.payload)));
            client.handle_datagram(now, &transmit.payload);
        }
        for e in std::iter::from_fn(|| server.poll_event()) {
            if let ServerEvent::Moves { commands, .. } = e {
                times.extend(commands.iter().map(|c| c.server_time));
            }
        }
        while client.poll_event().is_some() {}
    }
    (lines.join("\n"), challenge, times)
}

#[test]
fn user_commands_are_read_once_the_gamestate_gives_their_key() {
    let (capture, challenge, times) = live_capture();
    let (out, ok) = muster(&["wire", "--challenge", &challenge.to_string()], &capture);
    assert!(ok);
    let dissected: Vec<i64> = json_lines(&out)
        .iter()
        .filter(|l| l["direction"] == "c2s")
        .filter_map(|l| l["message"]["commands"].as_array().cloned())
        .flatten()
        .filter(|r| r["usercmds"].is_array())
        .flat_map(|r| r["usercmds"].as_array().unwrap().clone())
        .map(|c| c["server_time"].as_i64().unwrap())
        .collect();
    assert!(times.len() > 30, "{}", times.len());
    // Every bundle the server read, the dissector read the same; before the gamestate
    // arrived there were none.
    assert_eq!(
        dissected,
        times.iter().map(|&t| i64::from(t)).collect::<Vec<_>>()
    );
    assert!(times.iter().any(|&t| t > 1000), "{times:?}");
}
