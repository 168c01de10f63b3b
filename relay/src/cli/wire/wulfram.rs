//! `muster wire wulfram`: Wulfram II captures as JSON. `--tcp` reads a hex byte stream (lines
//! may split it anywhere between bytes) and prints each frame; `--udp` reads one hex datagram
//! per line and prints each record, walked with the stream modes given by `--mode`.

use protocol::wulfram::control::{is_control, Ack, Control};
use protocol::wulfram::frame::FrameReader;
use protocol::wulfram::record::{ModeTable, StreamMode, Walker};
use serde_json::{json, Value};

use super::{out, parse_hex, to_hex};

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

fn control_json(control: &Control) -> Value {
    match control {
        Control::Diagnostic(bytes) => json!({"name": "diagnostic", "bytes": to_hex(bytes)}),
        Control::Ignore { opcode, seq } => {
            json!({"name": "D_IGNORE", "target": opcode, "target_seq": seq})
        }
        Control::Ack(Ack::Time { timestamp }) => {
            json!({"name": "D_ACK", "subtype": 0, "timestamp": timestamp})
        }
        Control::Ack(Ack::Record { opcode, seq }) => {
            json!({"name": "D_ACK", "subtype": 1, "target": opcode, "target_seq": seq})
        }
        Control::Ack(Ack::Start {
            timestamp,
            opcode,
            seq,
        }) => json!({
            "name": "D_ACK", "subtype": 2, "timestamp": timestamp, "target": opcode, "target_seq": seq,
        }),
        Control::Handshake(h) => json!({
            "name": "D_HANDSHAKE",
            "timestamp": h.timestamp,
            "connection_id": h.connection_id,
            "groups": h.groups.iter().map(|(n, m)| json!({"name": n, "members": m})).collect::<Vec<_>>(),
            "modes": h.modes.iter().map(|(o, m)| json!({"opcode": o, "mode": m})).collect::<Vec<_>>(),
        }),
        Control::SetStart { opcode, start } => {
            json!({"name": "D_SET_START", "target": opcode, "start": start})
        }
    }
}

/// The records of one datagram line, one object each (`datagram` numbers the line).
pub fn udp_line(index: usize, line: &str, table: &ModeTable) -> Vec<Value> {
    let bytes = match parse_hex(line) {
        Ok(b) => b,
        Err(e) => return vec![json!({"datagram": index, "error": e})],
    };
    let mut out = Vec::new();
    if bytes.len() > protocol::wulfram::policy::MAX_DATAGRAM {
        out.push(json!({
            "datagram": index,
            "error": format!("{} bytes: the client's 3072-byte buffer loses this datagram", bytes.len()),
        }));
    }
    for record in Walker::new(&bytes, table) {
        out.push(match record {
            Ok(r) => {
                let mut v = json!({
                    "datagram": index,
                    "opcode": r.opcode,
                    "mode": mode_name(r.mode),
                    "seq": r.seq,
                    "length": r.length,
                    "body": to_hex(&r.body),
                });
                if is_control(r.opcode) {
                    v["control"] = match Control::parse(r.opcode, &r.body) {
                        Ok(c) => control_json(&c),
                        Err(e) => json!({"error": e.to_string()}),
                    };
                }
                v
            }
            Err(e) => json!({"datagram": index, "error": e.to_string()}),
        });
    }
    out
}

/// Frames from a TCP byte stream, fed a line of hex at a time.
#[derive(Default)]
pub struct TcpDissector {
    reader: FrameReader,
    broken: bool,
}

impl TcpDissector {
    /// The frames the line completes.
    pub fn line(&mut self, line: &str) -> Vec<Value> {
        if self.broken {
            return Vec::new();
        }
        match parse_hex(line) {
            Ok(bytes) => self.reader.push(&bytes),
            Err(e) => return vec![json!({"error": e})],
        }
        let mut out = Vec::new();
        while let Some(frame) = self.reader.next_frame() {
            out.push(match frame {
                Ok(f) => json!({
                    "opcode": f.opcode,
                    "size": f.size(),
                    "length": f.body.len(),
                    "body": to_hex(&f.body),
                }),
                Err(e) => {
                    let fatal =
                        !matches!(e, protocol::wulfram::frame::FrameError::ControlOnTcp { .. });
                    self.broken |= fatal;
                    json!({"error": e.to_string()})
                }
            });
            if self.broken {
                break;
            }
        }
        out
    }

    /// What the stream left unfinished.
    pub fn finish(&self) -> Option<Value> {
        (!self.broken && self.reader.pending() > 0).then(|| {
            json!({"error": format!("stream ended inside a frame ({} bytes held)", self.reader.pending())})
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
                out(value)?;
            }
        }
        if let Some(value) = dissector.finish() {
            out(value)?;
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
            out(value)?;
        }
    }
    Ok(())
}
