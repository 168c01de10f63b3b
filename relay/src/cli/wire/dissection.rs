//! What `muster wire` prints for a datagram: one JSON object per input line, each field named
//! after the stock game's own (the packet commands, `svc_*` records, the usercmd members), so
//! scripts can rely on them.

use protocol::cod::info::InfoString;
use protocol::cod::master::ListEnd;
use protocol::cod::oob::Packet;
use protocol::cod::usercmd::UserCmd;
use serde::Serialize;

use super::super::spectate::{CommandRead, ObituaryLine};
use super::to_hex;

/// One input line.
#[derive(Serialize)]
pub struct Line {
    pub index: usize,
    /// `c2s` or `s2c`.
    pub direction: &'static str,
    #[serde(flatten)]
    pub read: Read,
}

/// What the line held.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Read {
    /// Not hex.
    Unreadable {
        error: String,
    },
    Datagram(Datagram),
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Datagram {
    /// Out of band, marked by four 0xff bytes.
    Connectionless(Connectionless),
    Netchan(Netchan),
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum Connectionless {
    Packet { packet: PacketJson },
    Unparsed { error: String },
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum Netchan {
    Sequenced {
        sequence: u32,
        qport: Option<u16>,
        fragment: Option<Fragment>,
        message: Message,
    },
    Unparsed {
        error: String,
    },
}

#[derive(Serialize)]
pub struct Fragment {
    pub start: u16,
    pub length: u16,
}

/// What the netchan delivered from a datagram.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Message {
    /// A fragment that does not yet finish its message.
    Incomplete {
        incomplete: bool,
    },
    Refused {
        error: String,
    },
    Delivered(Box<Delivered>),
}

/// A whole message: its header, and its body when the key is known.
#[derive(Serialize, Default)]
pub struct Delivered {
    pub sequence: u32,
    pub dropped: u32,
    pub length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<MessageHeader>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Without the challenge the body cannot be un-XORed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_encoded_hex: Option<String>,
    /// Whether the command the XOR key is made of had been seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_command_known: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_hex: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<Command>>,
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum MessageHeader {
    Client {
        server_id: u8,
        message_acknowledge: i32,
        reliable_acknowledge: i32,
    },
    Server {
        last_client_command: i32,
    },
}

/// A connectionless packet, by its command.
#[derive(Serialize)]
#[serde(untagged)]
pub enum PacketJson {
    Known(KnownPacket),
    /// A command this dissector does not read.
    Other {
        command: String,
        rest_hex: String,
    },
}

/// An info string's pairs, in order, each `[key, value]`.
pub type Pairs = Vec<(String, String)>;

#[derive(Serialize)]
#[serde(tag = "command")]
pub enum KnownPacket {
    #[serde(rename = "getinfo")]
    GetInfo { challenge: Option<String> },
    #[serde(rename = "getstatus")]
    GetStatus { challenge: Option<String> },
    #[serde(rename = "getchallenge")]
    GetChallenge,
    #[serde(rename = "heartbeat")]
    Heartbeat { tag: String },
    #[serde(rename = "getservers")]
    GetServers {
        protocol: u32,
        keywords: Vec<String>,
    },
    #[serde(rename = "infoResponse")]
    InfoResponse { info: Pairs },
    #[serde(rename = "statusResponse")]
    StatusResponse {
        info: Pairs,
        players: Vec<StatusPlayer>,
    },
    #[serde(rename = "challengeResponse")]
    ChallengeResponse { challenge: i32, extra: Vec<String> },
    #[serde(rename = "print")]
    Print { text: String },
    #[serde(rename = "error")]
    Error { text: String },
    #[serde(rename = "getserversResponse")]
    ServerList { servers: Vec<String>, end: ListEnd },
    #[serde(rename = "connect")]
    Connect { userinfo: Pairs },
}

#[derive(Serialize)]
pub struct StatusPlayer {
    pub score: i32,
    pub ping: i32,
    pub name: String,
}

fn pairs(info: &InfoString) -> Pairs {
    info.iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

impl From<Packet> for PacketJson {
    fn from(packet: Packet) -> Self {
        Self::Known(match packet {
            Packet::GetInfo { challenge } => KnownPacket::GetInfo { challenge },
            Packet::GetStatus { challenge } => KnownPacket::GetStatus { challenge },
            Packet::GetChallenge => KnownPacket::GetChallenge,
            Packet::Heartbeat { tag } => KnownPacket::Heartbeat { tag },
            Packet::GetServers(q) => KnownPacket::GetServers {
                protocol: q.protocol,
                keywords: q.keywords,
            },
            Packet::InfoResponse(info) => KnownPacket::InfoResponse { info: pairs(&info) },
            Packet::StatusResponse(status) => KnownPacket::StatusResponse {
                info: pairs(&status.info),
                players: status
                    .players
                    .into_iter()
                    .map(|p| StatusPlayer {
                        score: p.score,
                        ping: p.ping,
                        name: p.name,
                    })
                    .collect(),
            },
            Packet::ChallengeResponse { challenge, extra } => {
                KnownPacket::ChallengeResponse { challenge, extra }
            }
            Packet::Print(text) => KnownPacket::Print { text },
            Packet::Error(text) => KnownPacket::Error { text },
            Packet::ServerList(list) => KnownPacket::ServerList {
                servers: list.servers.iter().map(|a| a.to_string()).collect(),
                end: list.end,
            },
            Packet::Connect { userinfo } => KnownPacket::Connect {
                userinfo: pairs(&userinfo),
            },
            Packet::Other { command, rest } => {
                return Self::Other {
                    command,
                    rest_hex: to_hex(&rest),
                }
            }
        })
    }
}

/// One record of a message body, client or server, or where reading it stopped.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Command {
    Client(ClientCommand),
    Server(ServerRecord),
    Stopped { error: String },
}

/// A record of a client body: `type` is the stock `clc_*` meaning.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ClientCommand {
    Command {
        #[serde(rename = "type")]
        kind: &'static str,
        sequence: i32,
        text: String,
    },
    Move {
        /// `move` or `moveNoDelta`.
        #[serde(rename = "type")]
        kind: &'static str,
        usercmds: Vec<UserCmdJson>,
    },
    Unread {
        #[serde(rename = "type")]
        kind: &'static str,
        unread: &'static str,
    },
    Eof {
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

/// A user command's members, as `usercmd_t` names them.
#[derive(Serialize)]
pub struct UserCmdJson {
    pub server_time: i32,
    pub buttons: u8,
    pub wbuttons: u8,
    pub weapon: u8,
    pub angles: [i32; 3],
    pub forward: i8,
    pub right: i8,
    pub up: i8,
}

impl From<&UserCmd> for UserCmdJson {
    fn from(c: &UserCmd) -> Self {
        Self {
            server_time: c.server_time,
            buttons: c.buttons,
            wbuttons: c.wbuttons,
            weapon: c.weapon,
            angles: c.angles,
            forward: c.forward,
            right: c.right,
            up: c.up,
        }
    }
}

/// A record of a server body, by its `svc_*` name.
#[derive(Serialize)]
#[serde(tag = "type")]
pub enum ServerRecord {
    #[serde(rename = "svc_nop")]
    Nop,
    #[serde(rename = "svc_serverCommand")]
    ServerCommand {
        sequence: i32,
        text: String,
        /// What the command means (chat, scores, a configstring...).
        #[serde(flatten)]
        read: CommandRead,
    },
    #[serde(rename = "svc_gamestate")]
    Gamestate {
        server_command_sequence: i32,
        configstrings: usize,
        baselines: usize,
        client_num: i32,
        checksum_feed: i32,
    },
    #[serde(rename = "svc_snapshot")]
    Snapshot {
        server_time: i32,
        delta_num: u8,
        flags: u8,
        usable: bool,
        entities: usize,
        clients: usize,
        /// The client the spectator follows, if it follows one.
        following: Option<u32>,
        obituaries: Vec<ObituaryLine>,
    },
    #[serde(rename = "svc_download")]
    Download(Download),
    #[serde(rename = "svc_EOF")]
    Eof,
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum Download {
    Block {
        block: u16,
        total_size: Option<i32>,
        length: usize,
    },
    Failure {
        failure: String,
    },
    Redirect {
        redirect: String,
        size: i32,
        flags: i32,
    },
}
