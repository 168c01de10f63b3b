//! `muster wire`: a dissector for captured datagrams, and the Huffman codecs on hex.
//!
//! Input is hex, one datagram per line, optionally prefixed `c2s` or `s2c` for its direction.
//! Each datagram becomes one JSON object. Netchan fragments are reassembled per direction; with
//! the challenge, bodies are un-XORed and decompressed, and the reliable commands they carry
//! are remembered, because each direction's XOR key stream uses the other direction's commands.

pub mod wulfram;

use protocol::cod::fields::PlayerStateField;
use std::collections::BTreeMap;
use std::path::PathBuf;

use protocol::cod::client_records::{read_client_body, BundleContext, ClientRecord};
use protocol::cod::download::DownloadRecord;
use protocol::cod::huffman::{adaptive, fixed};
use protocol::cod::info::InfoString;
use protocol::cod::netchan::{Delivered, Header, Netchan, Side};
use protocol::cod::oob::{Packet, MARKER};
use protocol::cod::playerstate::PlayerState;
use protocol::cod::sequenced::{decode_body, ClientHeader, ServerHeader};
use protocol::cod::service::{read_records, Record, World};
use protocol::cod::usercmd::{bundle_key, default_usercmd};
use protocol::cod::{xor, MAX_MSGLEN};
use serde_json::{json, Value};

use super::out;
use super::spectate::{describe_command, obituaries};
use protocol::cod::fields::Named;
use protocol::cod::watch::spectator::PSF_FOLLOWING;

/// Parses hex, ignoring white space and `:` separators.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b':')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).map_err(|_| "not hex".to_owned())?;
            u8::from_str_radix(s, 16).map_err(|_| format!("not hex: {s:?}"))
        })
        .collect()
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Which codec `muster wire huffman` uses.
#[derive(Clone, Copy, Debug)]
pub enum Codec {
    Adaptive,
    Fixed,
}

/// `muster wire huffman encode|decode`: hex in, hex out.
pub fn huffman(codec: Codec, encode: bool, input: &str) -> Result<String, String> {
    let data = parse_hex(input)?;
    let out = match (codec, encode) {
        (Codec::Adaptive, true) => adaptive::compress(&data).map_err(|e| e.to_string())?,
        (Codec::Adaptive, false) => {
            adaptive::decompress(&data, 1 << 16).map_err(|e| e.to_string())?
        }
        (Codec::Fixed, true) => fixed::compress(&data),
        (Codec::Fixed, false) => fixed::decompress(&data, MAX_MSGLEN).map_err(|e| e.to_string())?,
    };
    Ok(to_hex(&out))
}

fn info_json(info: &InfoString) -> Value {
    Value::Array(info.iter().map(|(k, v)| json!([k, v])).collect())
}

fn connectionless_json(packet: &Packet) -> Value {
    match packet {
        Packet::GetInfo { challenge } => json!({"command": "getinfo", "challenge": challenge}),
        Packet::GetStatus { challenge } => json!({"command": "getstatus", "challenge": challenge}),
        Packet::GetChallenge => json!({"command": "getchallenge"}),
        Packet::Heartbeat { tag } => json!({"command": "heartbeat", "tag": tag}),
        Packet::GetServers(q) => {
            json!({"command": "getservers", "protocol": q.protocol, "keywords": q.keywords})
        }
        Packet::InfoResponse(info) => json!({"command": "infoResponse", "info": info_json(info)}),
        Packet::StatusResponse(status) => json!({
            "command": "statusResponse",
            "info": info_json(&status.info),
            "players": status.players.iter().map(|p| json!({"score": p.score, "ping": p.ping, "name": p.name})).collect::<Vec<_>>(),
        }),
        Packet::ChallengeResponse { challenge, extra } => {
            json!({"command": "challengeResponse", "challenge": challenge, "extra": extra})
        }
        Packet::Print(text) => json!({"command": "print", "text": text}),
        Packet::Error(text) => json!({"command": "error", "text": text}),
        Packet::ServerList(list) => json!({
            "command": "getserversResponse",
            "servers": list.servers.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
            "end": list.end,
        }),
        Packet::Connect { userinfo } => {
            json!({"command": "connect", "userinfo": info_json(userinfo)})
        }
        Packet::Other { command, rest } => json!({"command": command, "rest_hex": to_hex(rest)}),
    }
}

/// Reliable commands seen so far, by sequence, for one direction.
type Commands = BTreeMap<i32, String>;

/// Dissector state across a capture.
pub struct Dissector {
    default_from: Side,
    challenge: Option<i32>,
    /// Reassembly per direction, keyed by the sender.
    from_client: Option<Netchan>,
    from_server: Netchan,
    client_commands: Commands,
    server_commands: Commands,
    world: World,
    /// The gamestate's checksum feed and the latest snapshot's player state: with them, the
    /// client's user-command bundles can be read.
    checksum_feed: Option<i32>,
    player: PlayerState,
    index: usize,
}

impl Dissector {
    pub fn new(default_from: Side, challenge: Option<i32>) -> Self {
        Self {
            default_from,
            challenge,
            from_client: None,
            from_server: Netchan::new(Side::Client, 0),
            client_commands: Commands::new(),
            server_commands: Commands::new(),
            world: World::default(),
            checksum_feed: None,
            player: PlayerState::default(),
            index: 0,
        }
    }

    /// One input line; `None` for blank lines and `#` comments.
    pub fn line(&mut self, line: &str) -> Option<Value> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        let (from, hex) = match line.split_once(char::is_whitespace) {
            Some(("c2s", rest)) => (Side::Client, rest),
            Some(("s2c", rest)) => (Side::Server, rest),
            _ => (self.default_from, line),
        };
        let index = self.index;
        self.index += 1;
        let direction = match from {
            Side::Client => "c2s",
            Side::Server => "s2c",
        };
        let mut out = json!({"index": index, "direction": direction});
        let fields = match parse_hex(hex) {
            Err(error) => json!({"error": error}),
            Ok(datagram) => self.datagram(from, &datagram),
        };
        if let (Value::Object(out), Value::Object(fields)) = (&mut out, fields) {
            out.extend(fields);
        }
        Some(out)
    }

    fn datagram(&mut self, from: Side, datagram: &[u8]) -> Value {
        if datagram.starts_with(&MARKER) {
            return match Packet::parse(datagram) {
                Ok(packet) => {
                    json!({"kind": "connectionless", "packet": connectionless_json(&packet)})
                }
                Err(e) => json!({"kind": "connectionless", "error": e.to_string()}),
            };
        }
        let (header, _) = match Header::parse(datagram, from) {
            Ok(parsed) => parsed,
            Err(e) => return json!({"kind": "netchan", "error": e.to_string()}),
        };
        let mut out = json!({
            "kind": "netchan",
            "sequence": header.sequence,
            "qport": header.qport,
            "fragment": header.fragment.map(|(start, length)| json!({"start": start, "length": length})),
        });
        let channel = match from {
            Side::Client => self
                .from_client
                .get_or_insert_with(|| Netchan::new(Side::Server, header.qport.unwrap_or(0))),
            Side::Server => &mut self.from_server,
        };
        let message = match channel.handle_datagram(datagram) {
            Ok(Some(delivered)) => self.message(from, delivered),
            Ok(None) => json!({"incomplete": true}),
            Err(e) => json!({"error": e.to_string()}),
        };
        out["message"] = message;
        out
    }

    fn message(&mut self, from: Side, delivered: Delivered) -> Value {
        let mut bundle = None;
        let mut out = json!({
            "sequence": delivered.sequence,
            "dropped": delivered.dropped,
            "length": delivered.payload.len(),
        });
        let opened = match from {
            Side::Client => ClientHeader::parse(&delivered.payload).map(|(h, rest)| {
                out["header"] = json!({
                    "server_id": h.server_id,
                    "message_acknowledge": h.message_acknowledge,
                    "reliable_acknowledge": h.reliable_acknowledge,
                });
                let command = self.server_commands.get(&h.reliable_acknowledge).cloned();
                bundle = self.checksum_feed.map(|feed| BundleContext {
                    key: bundle_key(
                        h.message_acknowledge,
                        feed,
                        command.as_deref().unwrap_or_default().as_bytes(),
                    ),
                    base: default_usercmd(&self.player),
                });
                (self.challenge.map(|c| h.key(c)), command, rest)
            }),
            Side::Server => ServerHeader::parse(&delivered.payload).map(|(h, rest)| {
                out["header"] = json!({"last_client_command": h.last_client_command});
                let command = self.client_commands.get(&h.last_client_command);
                let key = self
                    .challenge
                    .map(|c| xor::server_key(delivered.sequence, c));
                (key, command.cloned(), rest)
            }),
        };
        let (key, command, encoded) = match opened {
            Ok(parts) => parts,
            Err(e) => {
                out["error"] = json!(e.to_string());
                return out;
            }
        };
        let Some(key) = key else {
            out["body_encoded_hex"] = json!(to_hex(encoded));
            return out;
        };
        out["key_command_known"] = json!(command.is_some());
        match decode_body(encoded, key, command.unwrap_or_default().as_bytes()) {
            Ok(body) => {
                out["body_hex"] = json!(to_hex(&body));
                out["commands"] = match from {
                    Side::Client => {
                        client_commands(&body, bundle.as_ref(), &mut self.client_commands)
                    }
                    Side::Server => self.server_commands(&body, delivered.sequence),
                };
            }
            Err(e) => out["error"] = json!(e.to_string()),
        }
        out
    }
}

/// The records of a client body, its reliable commands remembered by sequence. The bundle is
/// read once a gamestate has given the checksum feed its key needs.
fn client_commands(body: &[u8], bundle: Option<&BundleContext>, seen: &mut Commands) -> Value {
    let (records, stopped) = read_client_body(body, bundle);
    let mut found: Vec<Value> = records
        .into_iter()
        .map(|record| match record {
            ClientRecord::Command { sequence, text } => {
                seen.insert(sequence, text.clone());
                json!({"type": "clientCommand", "sequence": sequence, "text": text})
            }
            ClientRecord::Move { no_delta, commands } => json!({
                "type": if no_delta { "moveNoDelta" } else { "move" },
                "usercmds": commands.iter().map(|c| json!({
                    "server_time": c.server_time,
                    "buttons": c.buttons,
                    "wbuttons": c.wbuttons,
                    "weapon": c.weapon,
                    "angles": c.angles,
                    "forward": c.forward,
                    "right": c.right,
                    "up": c.up,
                })).collect::<Vec<_>>(),
            }),
            ClientRecord::Unread { no_delta } => {
                json!({"type": if no_delta { "moveNoDelta" } else { "move" }, "unread": "no gamestate yet"})
            }
            ClientRecord::Eof => json!({"type": "EOF"}),
        })
        .collect();
    if let Some(error) = stopped {
        found.push(json!({"error": error.to_string()}));
    }
    Value::Array(found)
}

impl Dissector {
    /// The service records of a decompressed server body (a demo record's, say).
    pub fn server_body(&mut self, body: &[u8], sequence: u32) -> Value {
        self.server_commands(body, sequence)
    }

    /// The service records of a server body, as the client session reads them.
    fn server_commands(&mut self, body: &[u8], sequence: u32) -> Value {
        let (records, stopped) = read_records(body, sequence, &mut self.world);
        for record in &records {
            match record {
                Record::Gamestate(g) => {
                    self.checksum_feed = Some(g.checksum_feed);
                    self.player = PlayerState::default();
                }
                Record::Snapshot {
                    snapshot,
                    usable: true,
                } => self.player = snapshot.player.clone(),
                _ => {}
            }
        }
        let seen = &mut self.server_commands;
        let mut found: Vec<Value> = records
        .into_iter()
        .map(|record| match record {
            Record::Nop => json!({"type": "svc_nop"}),
            Record::ServerCommand { sequence, text } => {
                seen.insert(sequence, text.clone());
                let mut line = json!({"type": "svc_serverCommand", "sequence": sequence, "text": text});
                if let (Value::Object(line), Ok(Value::Object(read))) =
                    (&mut line, serde_json::to_value(describe_command(&text)))
                {
                    line.extend(read);
                }
                line
            }
            Record::Gamestate(g) => json!({
                "type": "svc_gamestate",
                "server_command_sequence": g.server_command_sequence,
                "configstrings": g.configstrings.len(),
                "baselines": g.baselines.len(),
                "client_num": g.client_num,
                "checksum_feed": g.checksum_feed,
            }),
            Record::Snapshot { snapshot, usable } => json!({
                "type": "svc_snapshot",
                "server_time": snapshot.server_time,
                "delta_num": snapshot.delta_num,
                "flags": snapshot.flags,
                "usable": usable,
                "entities": snapshot.entities.len(),
                "clients": snapshot.clients.len(),
                "following": (snapshot.player.get(PlayerStateField::PM_FLAGS) & PSF_FOLLOWING != 0)
                    .then(|| snapshot.player.get(PlayerStateField::CLIENT_NUM)),
                "obituaries": obituaries(&snapshot),
            }),
            Record::Download(DownloadRecord::Block { number, total_size, data }) => json!({
                "type": "svc_download", "block": number, "total_size": total_size, "length": data.len(),
            }),
            Record::Download(DownloadRecord::Failure { error }) => {
                json!({"type": "svc_download", "failure": error})
            }
            Record::Download(DownloadRecord::Redirect { url, size, flags }) => {
                json!({"type": "svc_download", "redirect": url, "size": size, "flags": flags})
            }
            Record::Eof => json!({"type": "svc_EOF"}),
        })
        .collect();
        if let Some(error) = stopped {
            found.push(json!({"error": error.to_string()}));
        }
        Value::Array(found)
    }
}

/// Dissect captured datagrams (hex on stdin, one per line, optionally prefixed c2s or s2c)
/// into JSON, one object per datagram.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    tool: Option<WireTool>,
    /// Who sent the lines that carry no c2s/s2c prefix.
    #[arg(long, value_enum, default_value_t = Sender::Client)]
    from: Sender,
    /// The connection's challenge: un-XOR and decompress sequenced bodies.
    #[arg(long, allow_hyphen_values = true)]
    challenge: Option<i32>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Sender {
    Client,
    Server,
}

#[derive(clap::Subcommand, Debug)]
enum WireTool {
    /// Run a Huffman codec over hex on stdin; prints hex.
    Huffman {
        #[arg(value_enum)]
        direction: HuffmanDirection,
        /// The adaptive codec of the connect tail (2-byte length header).
        #[arg(long, conflicts_with = "fixed", required_unless_present = "fixed")]
        adaptive: bool,
        /// The fixed tree of sequenced message bodies.
        #[arg(long)]
        fixed: bool,
    },
    /// Dissect Wulfram II traffic: TCP frames or UDP records, as JSON lines.
    Wulfram(wulfram::Args),
    /// Dissect a .dm_3 demo: each record's server message as JSON, one object per line.
    Demo { file: PathBuf },
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum HuffmanDirection {
    Encode,
    Decode,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    use std::io::{BufRead, Read};
    match args.tool {
        Some(WireTool::Huffman {
            direction,
            adaptive,
            ..
        }) => {
            let mut input = String::new();
            std::io::stdin().read_to_string(&mut input)?;
            let codec = if adaptive {
                Codec::Adaptive
            } else {
                Codec::Fixed
            };
            let encode = matches!(direction, HuffmanDirection::Encode);
            let hex = huffman(codec, encode, &input).map_err(anyhow::Error::msg)?;
            out(&hex)?;
        }
        Some(WireTool::Wulfram(args)) => wulfram::run(args)?,
        Some(WireTool::Demo { file }) => super::demo::dissect(&file, out)?,
        None => {
            let from = match args.from {
                Sender::Client => protocol::cod::netchan::Side::Client,
                Sender::Server => protocol::cod::netchan::Side::Server,
            };
            let mut dissector = Dissector::new(from, args.challenge);
            for line in std::io::stdin().lock().lines() {
                if let Some(value) = dissector.line(&line?) {
                    out(&value)?;
                }
            }
        }
    }
    Ok(())
}
