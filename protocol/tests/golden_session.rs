//! Golden datagrams of a protocol-22 session, one per record type, in both directions. Each
//! case pins the whole datagram (netchan header, clear prefix, fixed-Huffman and XOR body) and
//! checks that it decodes to a body written out byte by byte from the spec's record layouts.

mod common;

use common::{hex, unhex};
use protocol::cod::fields::EntityField;

use protocol::cod::client_records::{
    read_client_body, write_client_body, BundleContext, ClientRecord,
};
use protocol::cod::download::DownloadRecord;
use protocol::cod::entity::EntityState;
use protocol::cod::fields::Named;
use protocol::cod::gamestate::{Gamestate, SVC_EOF};
use protocol::cod::msg::MsgWriter;
use protocol::cod::netchan::{Netchan, Side};
use protocol::cod::sequenced::{
    client_message, decode_body, server_message, ClientHeader, ServerHeader,
};
use protocol::cod::service::{read_records, Record, World, SVC_NOP, SVC_SERVER_COMMAND};
use protocol::cod::snapshot::Snapshot;
use protocol::cod::usercmd::{bundle_key, UserCmd};
use protocol::cod::xor;

const CHALLENGE: i32 = 0x1234_5678;
const QPORT: u16 = 0x0a0b;

/// A server datagram at netchan sequence 1 acknowledging client command `last`, whose text the
/// XOR key stream repeats.
fn server_datagram(body: &[u8], last: i32, last_text: &[u8]) -> Vec<u8> {
    let mut netchan = Netchan::new(Side::Server, QPORT);
    let logical = server_message(
        &ServerHeader {
            last_client_command: last,
        },
        body,
        netchan.outgoing_sequence(),
        CHALLENGE,
        last_text,
    );
    netchan.transmit(&logical).unwrap();
    netchan.poll_transmit().unwrap()
}

/// What a client makes of a server datagram: its body.
fn server_body(datagram: &[u8], last_text: &[u8]) -> Vec<u8> {
    let mut netchan = Netchan::new(Side::Client, QPORT);
    let delivered = netchan.handle_datagram(datagram).unwrap().unwrap();
    let (_, encoded) = ServerHeader::parse(&delivered.payload).unwrap();
    decode_body(
        encoded,
        xor::server_key(delivered.sequence, CHALLENGE),
        last_text,
    )
    .unwrap()
}

/// The decoded body is the sent one; like stock's decoder, ours may add one junk byte from the
/// padding bits of the last compressed byte, which the EOF-driven parse never reaches.
fn assert_body(name: &str, decoded: &[u8], body: &[u8]) {
    assert!(
        decoded.starts_with(body) && decoded.len() <= body.len() + 1,
        "{name}: decoded {decoded:02x?}, sent {body:02x?}"
    );
}

fn check_server(name: &str, body: &[u8], golden: &str) {
    let datagram = server_datagram(body, 3, b"say hi");
    assert_eq!(hex(&datagram), golden, "{name}: whole datagram");
    assert_body(name, &server_body(&unhex(golden), b"say hi"), body);
}

#[test]
fn server_command() {
    // svc_serverCommand (5), sequence 1 as a little-endian long, the text and its NUL, svc_EOF.
    let mut body = vec![5, 1, 0, 0, 0];
    body.extend_from_slice(b"print \"hi\"\0");
    body.push(8);
    let mut w = MsgWriter::new();
    w.write_byte(SVC_SERVER_COMMAND);
    w.write_long(1);
    w.write_string(b"print \"hi\"");
    w.write_byte(SVC_EOF);
    assert_eq!(w.into_bytes(), body);
    check_server("serverCommand", &body, GOLDEN_SERVER_COMMAND);
}

#[test]
fn gamestate() {
    // svc_gamestate (2), serverCommandSequence 4; svc_configstring (3), index 1 as a short,
    // the big string; svc_baseline (4) for entity 5 with eType 3: the 10-bit number (05, then
    // two bits of the next bit byte), table selector 0, removal 0, changed 1 (that byte: 0x10),
    // lastChanged 12 at the byte cursor, eleven unchanged-field bits (the rest of 0x10, then a
    // new bit byte 00), eType's changed and nonzero bits (a new bit byte 03) and its value 03 at
    // the byte cursor; inner EOF; clientNum 2; checksumFeed 0x01020304; outer EOF.
    let mut gamestate = Gamestate {
        server_command_sequence: 4,
        client_num: 2,
        checksum_feed: 0x0102_0304,
        ..Gamestate::default()
    };
    gamestate
        .configstrings
        .insert(1, "\\sv_serverid\\33".into());
    let mut baseline = EntityState::zero(5);
    baseline.set(EntityField::E_TYPE, 3);
    gamestate.baselines.insert(5, baseline);
    let mut w = MsgWriter::new();
    gamestate.write(&mut w);
    w.write_byte(SVC_EOF);
    let body = w.into_bytes();
    let mut expected = vec![2, 4, 0, 0, 0, 3, 1, 0];
    expected.extend_from_slice(b"\\sv_serverid\\33\0");
    expected.extend_from_slice(&[4, 0x05, 0x10, 12, 0x00, 0x03, 3]);
    expected.extend_from_slice(&[8, 2, 0, 0, 0, 4, 3, 2, 1, 8]);
    assert_eq!(body, expected);
    check_server("gamestate", &body, GOLDEN_GAMESTATE);
}

#[test]
fn snapshot() {
    // svc_snapshot (7), serverTime 10000, delta 0, flags 0; player state: lastChanged byte 0,
    // then one bit byte of eight zero presence bits (stats, ammo, 4 clip groups, objectives,
    // HUD); entity stream: 1023 in 10 bits (ff, then 2 bits); client stream: a 0 bit; EOF.
    let snapshot = Snapshot {
        server_time: 10_000,
        ..Snapshot::default()
    };
    let mut w = MsgWriter::new();
    snapshot.write(&mut w, None, &Default::default());
    w.write_byte(SVC_EOF);
    let body = w.into_bytes();
    assert_eq!(body, [7, 0x10, 0x27, 0, 0, 0, 0, 0, 0x00, 0xff, 0x03, 8]);
    check_server("snapshot", &body, GOLDEN_SNAPSHOT);
    let (records, error) = read_records(
        &body,
        1,
        &mut World {
            baselines: Some(Default::default()),
            ..World::default()
        },
    );
    assert_eq!(error, None);
    assert_eq!(
        records[0],
        Record::Snapshot {
            snapshot: Box::new(snapshot),
            usable: true
        }
    );
}

#[test]
fn download_block_and_nop() {
    // svc_download (6): block 0 as a short, total size 3 as a long, length 3 as a short,
    // "abc"; svc_nop (1); svc_EOF.
    let mut w = MsgWriter::new();
    DownloadRecord::Block {
        number: 0,
        total_size: Some(3),
        data: b"abc".to_vec(),
    }
    .write(&mut w);
    w.write_byte(SVC_NOP);
    w.write_byte(SVC_EOF);
    let body = w.into_bytes();
    assert_eq!(body, [6, 0, 0, 3, 0, 0, 0, 3, 0, b'a', b'b', b'c', 1, 8]);
    check_server("download", &body, GOLDEN_DOWNLOAD);
}

/// A client datagram at netchan sequence 1: serverId 0x21, messageAcknowledge 7,
/// reliableAcknowledge 4 whose text the XOR and bundle keys repeat.
fn client_datagram(body: &[u8]) -> Vec<u8> {
    let header = ClientHeader {
        server_id: 0x21,
        message_acknowledge: 7,
        reliable_acknowledge: 4,
    };
    let mut netchan = Netchan::new(Side::Client, QPORT);
    netchan
        .transmit(&client_message(&header, body, CHALLENGE, b"cs 1 x"))
        .unwrap();
    netchan.poll_transmit().unwrap()
}

fn client_body(datagram: &[u8]) -> (ClientHeader, Vec<u8>) {
    let mut netchan = Netchan::new(Side::Server, QPORT);
    let delivered = netchan.handle_datagram(datagram).unwrap().unwrap();
    let (header, encoded) = ClientHeader::parse(&delivered.payload).unwrap();
    let body = decode_body(encoded, header.key(CHALLENGE), b"cs 1 x").unwrap();
    (header, body)
}

#[test]
fn client_command() {
    // Selector 2 opens a bit byte; sequence 5 and "say hi" follow at the byte cursor; the EOF
    // selector (3) fills bits 2-3 of the first byte: 0b1110.
    let body = write_client_body([(5, "say hi")], None);
    let mut expected = vec![0x0e, 5, 0, 0, 0];
    expected.extend_from_slice(b"say hi\0");
    assert_eq!(body, expected);
    let datagram = client_datagram(&body);
    // Netchan: sequence 1, qport; clear prefix: serverId, messageAcknowledge, reliableAcknowledge.
    assert_eq!(hex(&datagram[..15]), "010000000b0a210700000004000000");
    assert_eq!(hex(&datagram), GOLDEN_CLIENT_COMMAND);
    assert_body(
        "clientCommand",
        &client_body(&unhex(GOLDEN_CLIENT_COMMAND)).1,
        &body,
    );
}

#[test]
fn move_no_delta() {
    // Selector 1 (bits 0-1); count 1 (byte); the command: bit 1 then the time delta 50 as a
    // byte; the keyed "unchanged" control bit (0 ^ key bit 0); then the EOF selector.
    let key = bundle_key(7, 0x0102_0304, b"cs 1 x");
    let context = BundleContext {
        key,
        base: UserCmd {
            server_time: 1000,
            ..UserCmd::default()
        },
    };
    let cmd = UserCmd {
        server_time: 1050,
        ..UserCmd::default()
    };
    let body = write_client_body([], Some((true, &context, std::slice::from_ref(&cmd))));
    let control = (key & 1) as u8;
    // Bits, low first: selector 01, time-delta flag 1, control, EOF selector 11.
    let selector = 0b01;
    let first = selector | 1 << 2 | control << 3 | 0b11 << 4;
    assert_eq!(body, [first, 1, 50]);
    let datagram = client_datagram(&body);
    assert_eq!(hex(&datagram), GOLDEN_MOVE_NO_DELTA);
    let (header, decoded) = client_body(&unhex(GOLDEN_MOVE_NO_DELTA));
    assert_eq!(header.message_acknowledge, 7);
    let (records, error) = read_client_body(&decoded, Some(&context));
    assert_eq!(error, None);
    assert_eq!(
        records,
        [ClientRecord::Move {
            no_delta: true,
            commands: vec![cmd]
        }]
    );
}

const GOLDEN_SERVER_COMMAND: &str = "01000000030000001b939ccddb2af024c7fbbf5b5c";
const GOLDEN_GAMESTATE: &str =
    "0100000003000000c298244ca4dd4f7b1ec490c38ad510ada33dc14822d20ef066bef45b3827dc54";
const GOLDEN_SNAPSHOT: &str = "01000000030000007561c8a4bc922d";
const GOLDEN_DOWNLOAD: &str = "01000000030000001aad1a9de01d072496";
const GOLDEN_CLIENT_COMMAND: &str = "010000000b0a21070000000400000004ca9187f6b1e76de4";
const GOLDEN_MOVE_NO_DELTA: &str = "010000000b0a2107000000040000008c20e6";
