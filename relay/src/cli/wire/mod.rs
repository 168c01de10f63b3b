//! `muster wire`: a dissector for captured datagrams, and the Huffman codecs on hex.
//!
//! Input is hex, one datagram per line, optionally prefixed `c2s` or `s2c` for its direction.
//! Each datagram becomes one JSON object. Netchan fragments are reassembled per direction; with
//! the challenge, bodies are un-XORed and decompressed, and the reliable commands they carry
//! are remembered, because each direction's XOR key stream uses the other direction's commands.

mod dissection;
pub mod wulfram;

use protocol::cod::fields::PlayerStateField;
use std::collections::BTreeMap;
use std::path::PathBuf;

use protocol::cod::client_records::{read_client_body, BundleContext, ClientRecord};
use protocol::cod::download::DownloadRecord;
use protocol::cod::huffman::{adaptive, fixed};
use protocol::cod::netchan::{self, Header, Netchan, Side};
use protocol::cod::oob::{Packet, MARKER};
use protocol::cod::playerstate::PlayerState;
use protocol::cod::sequenced::{decode_body, ClientHeader, ServerHeader};
use protocol::cod::service::{read_records, Record, World};
use protocol::cod::usercmd::{bundle_key, default_usercmd};
use protocol::cod::{xor, MAX_MSGLEN};

use super::spectate::{describe_command, obituaries};
use super::{out, out_json};
use dissection::{
    ClientCommand, Connectionless, Datagram, Delivered, Download, Fragment, Message, MessageHeader,
    Netchan as NetchanJson, Read, ServerRecord, UserCmdJson,
};
pub use dissection::{Command, Line};
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
    pub fn line(&mut self, line: &str) -> Option<Line> {
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
        let read = match parse_hex(hex) {
            Err(error) => Read::Unreadable { error },
            Ok(datagram) => Read::Datagram(self.datagram(from, &datagram)),
        };
        Some(Line {
            index,
            direction,
            read,
        })
    }

    fn datagram(&mut self, from: Side, datagram: &[u8]) -> Datagram {
        if datagram.starts_with(&MARKER) {
            return Datagram::Connectionless(match Packet::parse(datagram) {
                Ok(packet) => Connectionless::Packet {
                    packet: packet.into(),
                },
                Err(e) => Connectionless::Unparsed {
                    error: e.to_string(),
                },
            });
        }
        let (header, _) = match Header::parse(datagram, from) {
            Ok(parsed) => parsed,
            Err(e) => {
                return Datagram::Netchan(NetchanJson::Unparsed {
                    error: e.to_string(),
                })
            }
        };
        let channel = match from {
            Side::Client => self
                .from_client
                .get_or_insert_with(|| Netchan::new(Side::Server, header.qport.unwrap_or(0))),
            Side::Server => &mut self.from_server,
        };
        let message = match channel.handle_datagram(datagram) {
            Ok(Some(delivered)) => Message::Delivered(Box::new(self.message(from, delivered))),
            Ok(None) => Message::Incomplete { incomplete: true },
            Err(e) => Message::Refused {
                error: e.to_string(),
            },
        };
        Datagram::Netchan(NetchanJson::Sequenced {
            sequence: header.sequence,
            qport: header.qport,
            fragment: header
                .fragment
                .map(|(start, length)| Fragment { start, length }),
            message,
        })
    }

    fn message(&mut self, from: Side, delivered: netchan::Delivered) -> Delivered {
        let mut bundle = None;
        let mut out = Delivered {
            sequence: delivered.sequence,
            dropped: delivered.dropped,
            length: delivered.payload.len(),
            ..Delivered::default()
        };
        let opened = match from {
            Side::Client => ClientHeader::parse(&delivered.payload).map(|(h, rest)| {
                out.header = Some(MessageHeader::Client {
                    server_id: h.server_id,
                    message_acknowledge: h.message_acknowledge,
                    reliable_acknowledge: h.reliable_acknowledge,
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
                out.header = Some(MessageHeader::Server {
                    last_client_command: h.last_client_command,
                });
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
                out.error = Some(e.to_string());
                return out;
            }
        };
        let Some(key) = key else {
            out.body_encoded_hex = Some(to_hex(encoded));
            return out;
        };
        out.key_command_known = Some(command.is_some());
        match decode_body(encoded, key, command.unwrap_or_default().as_bytes()) {
            Ok(body) => {
                out.body_hex = Some(to_hex(&body));
                out.commands = Some(match from {
                    Side::Client => {
                        client_commands(&body, bundle.as_ref(), &mut self.client_commands)
                    }
                    Side::Server => self.server_commands(&body, delivered.sequence),
                });
            }
            Err(e) => out.error = Some(e.to_string()),
        }
        out
    }
}

/// The records of a client body, its reliable commands remembered by sequence. The bundle is
/// read once a gamestate has given the checksum feed its key needs.
fn client_commands(
    body: &[u8],
    bundle: Option<&BundleContext>,
    seen: &mut Commands,
) -> Vec<Command> {
    let (records, stopped) = read_client_body(body, bundle);
    let move_kind = |no_delta| if no_delta { "moveNoDelta" } else { "move" };
    let mut found: Vec<Command> = records
        .into_iter()
        .map(|record| {
            Command::Client(match record {
                ClientRecord::Command { sequence, text } => {
                    seen.insert(sequence, text.clone());
                    ClientCommand::Command {
                        kind: "clientCommand",
                        sequence,
                        text,
                    }
                }
                ClientRecord::Move { no_delta, commands } => ClientCommand::Move {
                    kind: move_kind(no_delta),
                    usercmds: commands.iter().map(UserCmdJson::from).collect(),
                },
                ClientRecord::Unread { no_delta } => ClientCommand::Unread {
                    kind: move_kind(no_delta),
                    unread: "no gamestate yet",
                },
                ClientRecord::Eof => ClientCommand::Eof { kind: "EOF" },
            })
        })
        .collect();
    if let Some(error) = stopped {
        found.push(Command::Stopped {
            error: error.to_string(),
        });
    }
    found
}

impl Dissector {
    /// The service records of a decompressed server body (a demo record's, say).
    pub fn server_body(&mut self, body: &[u8], sequence: u32) -> Vec<Command> {
        self.server_commands(body, sequence)
    }

    /// The service records of a server body, as the client session reads them.
    fn server_commands(&mut self, body: &[u8], sequence: u32) -> Vec<Command> {
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
        let mut found: Vec<Command> = records
            .into_iter()
            .map(|record| {
                Command::Server(match record {
                    Record::Nop => ServerRecord::Nop,
                    Record::ServerCommand { sequence, text } => {
                        seen.insert(sequence, text.clone());
                        let read = describe_command(&text);
                        ServerRecord::ServerCommand {
                            sequence,
                            text,
                            read,
                        }
                    }
                    Record::Gamestate(g) => ServerRecord::Gamestate {
                        server_command_sequence: g.server_command_sequence,
                        configstrings: g.configstrings.len(),
                        baselines: g.baselines.len(),
                        client_num: g.client_num,
                        checksum_feed: g.checksum_feed,
                    },
                    Record::Snapshot { snapshot, usable } => ServerRecord::Snapshot {
                        server_time: snapshot.server_time,
                        delta_num: snapshot.delta_num,
                        flags: snapshot.flags,
                        usable,
                        entities: snapshot.entities.len(),
                        clients: snapshot.clients.len(),
                        following: (snapshot.player.get(PlayerStateField::PM_FLAGS)
                            & PSF_FOLLOWING
                            != 0)
                            .then(|| snapshot.player.get(PlayerStateField::CLIENT_NUM)),
                        obituaries: obituaries(&snapshot),
                    },
                    Record::Download(DownloadRecord::Block {
                        number,
                        total_size,
                        data,
                    }) => ServerRecord::Download(Download::Block {
                        block: number,
                        total_size,
                        length: data.len(),
                    }),
                    Record::Download(DownloadRecord::Failure { error }) => {
                        ServerRecord::Download(Download::Failure { failure: error })
                    }
                    Record::Download(DownloadRecord::Redirect { url, size, flags }) => {
                        ServerRecord::Download(Download::Redirect {
                            redirect: url,
                            size,
                            flags,
                        })
                    }
                    Record::Eof => ServerRecord::Eof,
                })
            })
            .collect();
        if let Some(error) = stopped {
            found.push(Command::Stopped {
                error: error.to_string(),
            });
        }
        found
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
        Some(WireTool::Demo { file }) => super::demo::dissect(&file)?,
        None => {
            let from = match args.from {
                Sender::Client => protocol::cod::netchan::Side::Client,
                Sender::Server => protocol::cod::netchan::Side::Server,
            };
            let mut dissector = Dissector::new(from, args.challenge);
            for line in std::io::stdin().lock().lines() {
                if let Some(value) = dissector.line(&line?) {
                    out_json(&value)?;
                }
            }
        }
    }
    Ok(())
}
