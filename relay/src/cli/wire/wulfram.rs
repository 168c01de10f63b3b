//! `muster wire wulfram`: Wulfram II captures as JSON. `--tcp` reads a hex byte stream (lines
//! may split it anywhere between bytes) and prints each frame; `--udp` reads one hex datagram
//! per line and prints each record, walked with the stream modes given by `--mode`.

use protocol::wulfram::control::{is_control, Ack, Control};
use protocol::wulfram::frame::FrameReader;
use protocol::wulfram::record::{ModeTable, StreamMode, Walker};
use serde::Serialize;

use super::super::out_json;
use super::{parse_hex, to_hex};

/// The stock names of the stream modes.
pub fn mode_name(mode: StreamMode) -> &'static str {
    match mode {
        StreamMode::Raw => "raw",
        StreamMode::Latest => "latest",
        StreamMode::Mode2 => "mode2",
        StreamMode::Ordered => "ordered",
    }
}

/// Parses `OPCODE=MODE`: the opcode in decimal or 0x hex, the mode 0-3 or its name.
pub fn parse_mode(text: &str) -> Result<(u8, StreamMode), String> {
    let (op, mode) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected OPCODE=MODE"))?;
    let opcode = match op.strip_prefix("0x").or_else(|| op.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => op.parse(),
    }
    .map_err(|_| format!("{op:?} is not an opcode (0-255, or 0x00-0xff)"))?;
    let mode = match mode {
        "0" | "raw" => StreamMode::Raw,
        "1" | "latest" => StreamMode::Latest,
        "2" | "mode2" => StreamMode::Mode2,
        "3" | "ordered" => StreamMode::Ordered,
        other => {
            return Err(format!(
                "{other:?} is not a stream mode (0-3, raw, latest, mode2, ordered)"
            ))
        }
    };
    Ok((opcode, mode))
}

/// A transport control record, by its stock name.
#[derive(Serialize)]
#[serde(tag = "name")]
pub enum ControlLine {
    #[serde(rename = "diagnostic")]
    Diagnostic { bytes: String },
    #[serde(rename = "D_IGNORE")]
    Ignore { target: u8, target_seq: u16 },
    #[serde(rename = "D_ACK")]
    Ack(AckLine),
    #[serde(rename = "D_HANDSHAKE")]
    Handshake {
        timestamp: u32,
        connection_id: u32,
        groups: Vec<GroupLine>,
        modes: Vec<ModeLine>,
    },
    #[serde(rename = "D_SET_START")]
    SetStart { target: u8, start: u16 },
}

/// The three D_ACK forms, told apart by `subtype`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum AckLine {
    Time {
        subtype: u8,
        timestamp: u32,
    },
    Record {
        subtype: u8,
        target: u8,
        target_seq: u16,
    },
    Start {
        subtype: u8,
        timestamp: u32,
        target: u8,
        target_seq: u16,
    },
}

#[derive(Serialize)]
pub struct GroupLine {
    pub name: String,
    pub members: Vec<u32>,
}

#[derive(Serialize)]
pub struct ModeLine {
    pub opcode: u32,
    pub mode: u32,
}

impl From<Control> for ControlLine {
    fn from(control: Control) -> Self {
        match control {
            Control::Diagnostic(bytes) => Self::Diagnostic {
                bytes: to_hex(&bytes),
            },
            Control::Ignore { opcode, seq } => Self::Ignore {
                target: opcode,
                target_seq: seq,
            },
            Control::Ack(Ack::Time { timestamp }) => Self::Ack(AckLine::Time {
                subtype: 0,
                timestamp,
            }),
            Control::Ack(Ack::Record { opcode, seq }) => Self::Ack(AckLine::Record {
                subtype: 1,
                target: opcode,
                target_seq: seq,
            }),
            Control::Ack(Ack::Start {
                timestamp,
                opcode,
                seq,
            }) => Self::Ack(AckLine::Start {
                subtype: 2,
                timestamp,
                target: opcode,
                target_seq: seq,
            }),
            Control::Handshake(h) => Self::Handshake {
                timestamp: h.timestamp,
                connection_id: h.connection_id,
                groups: h
                    .groups
                    .into_iter()
                    .map(|(name, members)| GroupLine { name, members })
                    .collect(),
                modes: h
                    .modes
                    .into_iter()
                    .map(|(opcode, mode)| ModeLine { opcode, mode })
                    .collect(),
            },
            Control::SetStart { opcode, start } => Self::SetStart {
                target: opcode,
                start,
            },
        }
    }
}

/// A control record's body, read or not.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ControlRead {
    Read(ControlLine),
    Unreadable { error: String },
}

/// One line of `--udp`: a record of datagram number `datagram`, or what was wrong with it.
#[derive(Serialize)]
#[serde(untagged)]
pub enum UdpLine {
    Record {
        datagram: usize,
        opcode: u8,
        mode: &'static str,
        seq: Option<u16>,
        length: Option<u16>,
        body: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        control: Option<ControlRead>,
    },
    Error {
        datagram: usize,
        error: String,
    },
}

/// The records of one datagram line, one object each (`datagram` numbers the line).
pub fn udp_line(index: usize, line: &str, table: &ModeTable) -> Vec<UdpLine> {
    let error = |error| UdpLine::Error {
        datagram: index,
        error,
    };
    let bytes = match parse_hex(line) {
        Ok(b) => b,
        Err(e) => return vec![error(e)],
    };
    let mut out = Vec::new();
    if bytes.len() > protocol::wulfram::policy::MAX_DATAGRAM {
        out.push(error(format!(
            "{} bytes: the client's 3072-byte buffer loses this datagram",
            bytes.len()
        )));
    }
    for record in Walker::new(&bytes, table) {
        out.push(match record {
            Ok(r) => UdpLine::Record {
                datagram: index,
                opcode: r.opcode,
                mode: mode_name(r.mode),
                seq: r.seq,
                length: r.length,
                body: to_hex(&r.body),
                control: is_control(r.opcode).then(|| match Control::parse(r.opcode, &r.body) {
                    Ok(c) => ControlRead::Read(c.into()),
                    Err(e) => ControlRead::Unreadable {
                        error: e.to_string(),
                    },
                }),
            },
            Err(e) => error(e.to_string()),
        });
    }
    out
}

/// One line of `--tcp`: a frame, or where the stream broke.
#[derive(Serialize)]
#[serde(untagged)]
pub enum TcpLine {
    Frame {
        opcode: u8,
        /// On the wire, the length prefix included.
        size: usize,
        length: usize,
        body: String,
    },
    Error {
        error: String,
    },
}

/// Frames from a TCP byte stream, fed a line of hex at a time.
#[derive(Default)]
pub struct TcpDissector {
    reader: FrameReader,
    broken: bool,
}

impl TcpDissector {
    /// The frames the line completes.
    pub fn line(&mut self, line: &str) -> Vec<TcpLine> {
        if self.broken {
            return Vec::new();
        }
        match parse_hex(line) {
            Ok(bytes) => self.reader.push(&bytes),
            Err(error) => return vec![TcpLine::Error { error }],
        }
        let mut out = Vec::new();
        while let Some(frame) = self.reader.next_frame() {
            out.push(match frame {
                Ok(f) => TcpLine::Frame {
                    opcode: f.opcode,
                    size: f.size(),
                    length: f.body.len(),
                    body: to_hex(&f.body),
                },
                Err(e) => {
                    let fatal =
                        !matches!(e, protocol::wulfram::frame::FrameError::ControlOnTcp { .. });
                    self.broken |= fatal;
                    TcpLine::Error {
                        error: e.to_string(),
                    }
                }
            });
            if self.broken {
                break;
            }
        }
        out
    }

    /// What the stream left unfinished.
    pub fn finish(&self) -> Option<TcpLine> {
        (!self.broken && self.reader.pending() > 0).then(|| TcpLine::Error {
            error: format!(
                "stream ended inside a frame ({} bytes held)",
                self.reader.pending()
            ),
        })
    }
}

/// Dissect Wulfram II traffic: TCP frames or UDP records, as JSON lines.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["tcp", "udp"])))]
pub struct Args {
    /// A TCP byte stream in hex (lines may split it between any two bytes): one object per frame.
    #[arg(long)]
    tcp: bool,
    /// One hex datagram per line: one object per record.
    #[arg(long)]
    udp: bool,
    /// An opcode's stream mode, as OPCODE=MODE (0x35=latest, 31=3); repeat. Others are raw.
    #[arg(long = "mode", value_name = "OPCODE=MODE", value_parser = parse_mode)]
    modes: Vec<(u8, protocol::wulfram::record::StreamMode)>,
    /// Mode 2's header layout, an open question: seq-and-length (as modes 1 and 3) or seq-only.
    #[arg(long = "mode2-header", value_enum, default_value_t = Mode2Layout::SeqAndLength)]
    mode2_header: Mode2Layout,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Mode2Layout {
    SeqAndLength,
    SeqOnly,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    use std::io::BufRead;
    if args.tcp {
        let mut dissector = TcpDissector::default();
        for line in std::io::stdin().lock().lines() {
            for value in dissector.line(&line?) {
                out_json(&value)?;
            }
        }
        if let Some(value) = dissector.finish() {
            out_json(&value)?;
        }
        return Ok(());
    }
    let mut table = protocol::wulfram::record::ModeTable::default();
    for (opcode, mode) in args.modes {
        table.set(opcode, mode);
    }
    table.mode2 = match args.mode2_header {
        Mode2Layout::SeqAndLength => protocol::wulfram::record::Mode2Header::SeqAndLength,
        Mode2Layout::SeqOnly => protocol::wulfram::record::Mode2Header::SeqOnly,
    };
    let lines = std::io::stdin().lock().lines();
    for (index, line) in lines.enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        for value in udp_line(index, &line, &table) {
            out_json(&value)?;
        }
    }
    Ok(())
}
