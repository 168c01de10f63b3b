//! Remote console: the `rcon` request as the stock client sends it, the server's `print`
//! replies joined into one output, and the `status` table that output most often holds.
//!
//! Stock server behaviour this follows (`SVC_RemoteCommand`, `SV_FlushRedirect`,
//! `SV_Status_f`): one rcon attempt is accepted per 500 ms for the whole server, good password
//! or bad, and an attempt inside that window gets no reply at all; an accepted attempt always
//! gets at least one `print` packet (an empty one when the command printed nothing); output is
//! sent in chunks of at most 1,300 text bytes, each its own `print\n` datagram, with nothing
//! that numbers them.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::oob::{tokenize, MARKER};
use super::{text, MAX_MSGLEN};

/// Text bytes in one `print` reply packet (`SV_FlushRedirect`).
pub const CHUNK: usize = 1300;
/// The stock server's spacing between accepted attempts, for the whole server.
pub const THROTTLE_MS: u64 = 500;
/// The stock client's message buffer, marker and final NUL included (`MAX_RCON_MESSAGE`);
/// the server rebuilds the command in a buffer of the same size.
pub const MAX_REQUEST: usize = 1024;
/// What a stock server prints for a wrong password.
pub const BAD_PASSWORD: &str = "Bad rconpassword.\n";
/// What a stock server prints when it has no rcon password at all.
pub const NO_PASSWORD: &str = "No rconpassword set on the server.\n";
/// Longest output the joiner keeps: the redirect buffer flushes every `MAX_MSGLEN - 16`
/// bytes, and no stock command prints more than a few of those.
pub const MAX_OUTPUT: usize = 16 * MAX_MSGLEN;
/// Quiet time after a full chunk before the output counts as finished: a full chunk means
/// more was cut off behind it, sent in the same server frame.
pub const QUIET_AFTER_FULL_MS: u64 = 1000;
/// Quiet time after a short chunk: the end of a flush. Only a command whose output filled the
/// redirect buffer sends more after one, and that within the same server frame.
pub const QUIET_AFTER_SHORT_MS: u64 = 250;

/// Why a request cannot be sent as the stock client would send it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestError {
    EmptyPassword,
    /// A quote, a control character or a byte above 255 in the password: the server's
    /// tokenizer would cut it, so it could never match.
    PasswordCharacter,
    EmptyCommand,
    /// A line break or NUL in the command: the server reads one line up to the first NUL.
    CommandCharacter,
    /// Longer than the stock client's 1,024-byte buffer.
    TooLong,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::EmptyPassword => "the rcon password is empty",
            Self::PasswordCharacter => {
                "the rcon password holds a quote or a control character, which the server cannot read"
            }
            Self::EmptyCommand => "the command is empty",
            Self::CommandCharacter => "the command holds a line break or NUL",
            Self::TooLong => "password and command are longer than the game's 1,024-byte rcon buffer",
        })
    }
}

impl core::error::Error for RequestError {}

/// Builds the datagram `ff ff ff ff rcon PASSWORD COMMAND\0`, the stock client's form with its
/// final NUL. A password with a space is sent quoted (stock sends it bare, which the server
/// cannot match); any other password goes byte for byte as stock sends it.
pub fn request(password: &str, command: &str) -> Result<Vec<u8>, RequestError> {
    if password.is_empty() {
        return Err(RequestError::EmptyPassword);
    }
    if password
        .chars()
        .any(|c| c == '"' || c < ' ' || u32::from(c) > 0xff)
    {
        return Err(RequestError::PasswordCharacter);
    }
    let command = command.trim();
    if command.is_empty() {
        return Err(RequestError::EmptyCommand);
    }
    if command.chars().any(|c| matches!(c, '\n' | '\r' | '\0')) {
        return Err(RequestError::CommandCharacter);
    }
    let mut line = String::from("rcon ");
    if password.contains(' ') {
        line.push('"');
        line.push_str(password);
        line.push('"');
    } else {
        line.push_str(password);
    }
    line.push(' ');
    line.push_str(command);
    let mut out = MARKER.to_vec();
    text::encode_into(&line, &mut out);
    out.push(0);
    if out.len() > MAX_REQUEST {
        return Err(RequestError::TooLong);
    }
    Ok(out)
}

/// An `rcon` request as a server reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub password: String,
    /// The command's tokens (`Cmd_Argv(2..)`).
    pub args: Vec<String>,
}

impl Request {
    /// Reads a whole datagram as the stock server does: the first line up to a NUL,
    /// tokenized; `None` when it is not an `rcon` packet.
    pub fn parse(datagram: &[u8]) -> Option<Self> {
        let body = datagram.strip_prefix(&MARKER)?;
        let end = body.iter().position(|&b| b == 0).unwrap_or(body.len());
        let line = text::decode(&body[..end]);
        let mut tokens = tokenize(line.split('\n').next().unwrap_or("")).into_iter();
        if !tokens.next()?.eq_ignore_ascii_case("rcon") {
            return None;
        }
        Some(Self {
            password: tokens.next().unwrap_or_default(),
            args: tokens.collect(),
        })
    }

    /// The command line the server executes: each token, quoted when it holds a space, and
    /// a space after each (`Com_AddToString`).
    pub fn command_line(&self) -> String {
        let mut line = String::new();
        for arg in &self.args {
            if arg.contains(' ') {
                line.push('"');
                line.push_str(arg);
                line.push('"');
            } else {
                line.push_str(arg);
            }
            line.push(' ');
        }
        line
    }
}

/// Output as a server sends it: `print\n` packets of at most [`CHUNK`] text bytes, at least
/// one even for no output (`SV_FlushRedirect`).
pub fn print_packets(output: &str) -> Vec<Vec<u8>> {
    let bytes = text::encode(output);
    let mut packets = Vec::new();
    let mut chunks = bytes.chunks(CHUNK).peekable();
    if chunks.peek().is_none() {
        packets.push(print_packet(&[]));
    }
    for chunk in chunks {
        packets.push(print_packet(chunk));
    }
    packets
}

fn print_packet(chunk: &[u8]) -> Vec<u8> {
    let mut packet = MARKER.to_vec();
    packet.extend_from_slice(b"print\n");
    packet.extend_from_slice(chunk);
    packet
}

/// What one command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server ran the command; its output, possibly empty.
    Output(String),
    /// `Bad rconpassword.`
    BadPassword,
    /// `No rconpassword set on the server.`: rcon is off there.
    NoPassword,
}

impl Outcome {
    /// Reads a whole reply: the stock refusals are exactly one line.
    pub fn of(output: String) -> Self {
        match output.as_str() {
            BAD_PASSWORD => Self::BadPassword,
            NO_PASSWORD => Self::NoPassword,
            _ => Self::Output(output),
        }
    }

    /// The name scripts and metrics see.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Output(_) => "output",
            Self::BadPassword => "bad_password",
            Self::NoPassword => "no_password",
        }
    }
}

/// Joins the `print` chunks of one reply in the order they arrive.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    output: String,
    chunks: usize,
    last_at_ms: u64,
    last_full: bool,
    truncated: bool,
}

impl Reply {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the text of one `print` packet that arrived at `now_ms`.
    pub fn push(&mut self, now_ms: u64, chunk: &str) {
        self.chunks += 1;
        self.last_at_ms = now_ms;
        self.last_full = chunk.chars().count() >= CHUNK;
        let room = MAX_OUTPUT.saturating_sub(self.output.len());
        if chunk.len() > room {
            self.truncated = true;
            // Whole chars only: the text is ISO-8859-1 decoded, some chars take two bytes.
            let mut end = room;
            while !chunk.is_char_boundary(end) {
                end -= 1;
            }
            self.output.push_str(&chunk[..end]);
        } else {
            self.output.push_str(chunk);
        }
    }

    /// Chunks received so far.
    pub fn chunks(&self) -> usize {
        self.chunks
    }

    /// Whether more was cut off than [`MAX_OUTPUT`] keeps.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// When the reply counts as finished if nothing more arrives; `None` before any chunk.
    pub fn done_at_ms(&self) -> Option<u64> {
        (self.chunks > 0).then(|| {
            let quiet = if self.last_full {
                QUIET_AFTER_FULL_MS
            } else {
                QUIET_AFTER_SHORT_MS
            };
            self.last_at_ms + quiet
        })
    }

    /// The joined reply.
    pub fn finish(self) -> Outcome {
        Outcome::of(self.output)
    }
}

/// A client's ping column in `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusPing {
    Ms(u32),
    /// `CNCT`: connected, not yet in the game.
    Connecting,
    /// `ZMBI`: dropped, its slot not yet free.
    Zombie,
}

/// One row of the `status` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusRow {
    /// The client slot `clientkick` takes.
    pub slot: u8,
    pub score: i32,
    pub ping: StatusPing,
    pub guid: i64,
    /// The name as the server knows it, colour codes kept.
    pub name: String,
    /// Milliseconds since the client's last packet.
    pub last_msg: i64,
    /// `ip:port`, `bot` or `loopback`.
    pub address: String,
    pub qport: i32,
    pub rate: i32,
}

/// The table `status` prints (`SV_Status_f`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusTable {
    pub map: String,
    pub rows: Vec<StatusRow>,
}

/// The column titles line `SV_Status_f` prints.
pub const STATUS_HEADER: &str =
    "num score ping guid   name            lastmsg address               qport rate";
/// Columns the name is padded to, counted without colour codes.
const NAME_COLUMNS: usize = 16;
/// Columns the address is padded to.
const ADDRESS_COLUMNS: usize = 22;

impl StatusTable {
    /// Reads `status` output; `None` when the output is not a status table (another
    /// command's output, or `Server is not running.`). Rows that do not read are skipped.
    pub fn parse(output: &str) -> Option<Self> {
        let mut lines = output.lines();
        let map = lines
            .by_ref()
            .find_map(|l| l.strip_prefix("map: "))?
            .trim_end()
            .to_string();
        if !lines.next()?.starts_with("num score ping") {
            return None;
        }
        lines.next()?;
        let rows = lines
            .take_while(|l| !l.trim().is_empty())
            .filter_map(parse_row)
            .collect();
        Some(Self { map, rows })
    }

    /// The table as a stock server prints it.
    pub fn render(&self) -> String {
        let mut out = alloc::format!("map: {}\n{STATUS_HEADER}\n", self.map);
        out.push_str(
            "--- ----- ---- ------ --------------- ------- --------------------- ----- -----\n",
        );
        for row in &self.rows {
            let ping = match row.ping {
                StatusPing::Ms(ms) => alloc::format!("{:4} ", ms.min(9999)),
                StatusPing::Connecting => "CNCT ".into(),
                StatusPing::Zombie => "ZMBI ".into(),
            };
            let drawn = text::strip(&row.name).chars().count();
            let name_pad = NAME_COLUMNS.saturating_sub(drawn);
            let address_pad = ADDRESS_COLUMNS.saturating_sub(row.address.len());
            out.push_str(&alloc::format!(
                "{:3} {:5} {ping}{:6} {}^7{:name_pad$}{:7} {}{:address_pad$}{:5} {:5}\n",
                row.slot,
                row.score,
                row.guid,
                row.name,
                "",
                row.last_msg,
                row.address,
                "",
                row.qport,
                row.rate,
            ));
        }
        out.push('\n');
        out
    }
}

/// One row: four fields from the left, four from the right, the name between them (it may
/// hold spaces; the server appends `^7` and pads it).
fn parse_row(line: &str) -> Option<StatusRow> {
    let mut left = line;
    let mut take_left = || {
        let trimmed = left.trim_start();
        let end = trimmed.find(' ').unwrap_or(trimmed.len());
        let (field, rest) = trimmed.split_at(end);
        left = rest;
        field
    };
    let slot = take_left().parse().ok()?;
    let score = take_left().parse().ok()?;
    let ping = match take_left() {
        "CNCT" => StatusPing::Connecting,
        "ZMBI" => StatusPing::Zombie,
        ms => StatusPing::Ms(ms.parse().ok()?),
    };
    let guid = take_left().parse().ok()?;
    // `%6i ` then the name: exactly one space before it.
    let middle_and_right = left.strip_prefix(' ')?;
    let mut right = middle_and_right.trim_end();
    let mut take_right = || {
        let start = right.rfind(' ').map_or(0, |i| i + 1);
        let field = &right[start..];
        right = right[..start].trim_end();
        field
    };
    let rate = take_right().parse().ok()?;
    let qport = take_right().parse().ok()?;
    let address = take_right().to_string();
    let last_msg = take_right().parse().ok()?;
    let name = right.strip_suffix("^7").unwrap_or(right).to_string();
    Some(StatusRow {
        slot,
        score,
        ping,
        guid,
        name,
        last_msg,
        address,
        qport,
        rate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    #[test]
    fn a_request_is_the_stock_clients_datagram_with_its_final_nul() {
        assert_eq!(
            request("secret", "status").unwrap(),
            b"\xff\xff\xff\xffrcon secret status\0".to_vec()
        );
        assert_eq!(
            request("two words", "kick \"Pink Panzer\"").unwrap(),
            b"\xff\xff\xff\xffrcon \"two words\" kick \"Pink Panzer\"\0".to_vec()
        );
        assert_eq!(request("", "status"), Err(RequestError::EmptyPassword));
        assert_eq!(
            request("a\"b", "status"),
            Err(RequestError::PasswordCharacter)
        );
        assert_eq!(request("pw", "  "), Err(RequestError::EmptyCommand));
        assert_eq!(
            request("pw", "status\nquit"),
            Err(RequestError::CommandCharacter)
        );
        let long = "x".repeat(MAX_REQUEST);
        assert_eq!(request("pw", &long), Err(RequestError::TooLong));
        // Exactly the buffer: marker, `rcon pw `, command, NUL.
        let fits = "x".repeat(MAX_REQUEST - 4 - 8 - 1);
        assert_eq!(request("pw", &fits).unwrap().len(), MAX_REQUEST);
    }

    #[test]
    fn a_server_reads_the_request_back_as_its_tokens() {
        let datagram = request("two words", "say \"hello there\" all").unwrap();
        let read = Request::parse(&datagram).unwrap();
        assert_eq!(read.password, "two words");
        assert_eq!(read.args, ["say", "hello there", "all"]);
        assert_eq!(read.command_line(), "say \"hello there\" all ");
        assert_eq!(Request::parse(b"\xff\xff\xff\xffgetinfo"), None);
        assert_eq!(
            Request::parse(b"\xff\xff\xff\xffRCON pw\0trailing"),
            Some(Request {
                password: "pw".into(),
                args: vec![]
            })
        );
    }

    #[test]
    fn output_is_sent_in_chunks_of_1300_and_an_empty_one_for_none() {
        assert_eq!(print_packets(""), [b"\xff\xff\xff\xffprint\n".to_vec()]);
        let long: String = (0..2700)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let packets = print_packets(&long);
        assert_eq!(
            packets.iter().map(Vec::len).collect::<Vec<_>>(),
            [10 + 1300, 10 + 1300, 10 + 100]
        );
        let mut reply = Reply::new();
        for (i, p) in packets.iter().enumerate() {
            let text = text::decode(&p[10..]);
            reply.push(i as u64 * 5, &text);
        }
        assert_eq!(reply.chunks(), 3);
        assert_eq!(reply.done_at_ms(), Some(10 + QUIET_AFTER_SHORT_MS));
        assert_eq!(reply.finish(), Outcome::Output(long));
    }

    #[test]
    fn a_full_chunk_waits_longer_for_what_follows() {
        let mut reply = Reply::new();
        assert_eq!(reply.done_at_ms(), None);
        reply.push(100, &"x".repeat(CHUNK));
        assert_eq!(reply.done_at_ms(), Some(100 + QUIET_AFTER_FULL_MS));
    }

    #[test]
    fn the_stock_refusals_are_recognised() {
        assert_eq!(Outcome::of(BAD_PASSWORD.into()), Outcome::BadPassword);
        assert_eq!(Outcome::of(NO_PASSWORD.into()), Outcome::NoPassword);
        assert_eq!(
            Outcome::of("Bad rconpassword.\nmore".into()).as_str(),
            "output"
        );
    }

    #[test]
    fn output_past_the_cap_is_cut_and_said() {
        let mut reply = Reply::new();
        for i in 0..(MAX_OUTPUT / CHUNK + 2) {
            reply.push(i as u64, &"y".repeat(CHUNK));
        }
        assert!(reply.truncated());
        match reply.finish() {
            Outcome::Output(text) => assert_eq!(text.len(), MAX_OUTPUT),
            other => panic!("{other:?}"),
        }
    }

    /// The exact table of `SV_Status_f`, and every row read back: a name with spaces and
    /// colours, a long name without padding, a bot, a client still connecting.
    #[test]
    fn the_status_table_reads_back_slot_by_slot() {
        let text = concat!(
            "map: mp_foy\n",
            "num score ping guid   name            lastmsg address               qport rate\n",
            "--- ----- ---- ------ --------------- ------- --------------------- ----- -----\n",
            "  0    12   48 123456 ^1Pink Panzer^7           0 10.0.0.2:28960         4711 25000\n",
            "  3    -2    0      0 bot3^7                 50 bot                       0  5000\n",
            " 11     0 CNCT 654321 AVeryLongNameIndeed^7      0 10.0.0.9:-27409       -7422 25000\n",
            "\n",
        );
        let table = StatusTable::parse(text).unwrap();
        assert_eq!(table.map, "mp_foy");
        assert_eq!(
            table.rows,
            [
                StatusRow {
                    slot: 0,
                    score: 12,
                    ping: StatusPing::Ms(48),
                    guid: 123456,
                    name: "^1Pink Panzer".into(),
                    last_msg: 0,
                    address: "10.0.0.2:28960".into(),
                    qport: 4711,
                    rate: 25000
                },
                StatusRow {
                    slot: 3,
                    score: -2,
                    ping: StatusPing::Ms(0),
                    guid: 0,
                    name: "bot3".into(),
                    last_msg: 50,
                    address: "bot".into(),
                    qport: 0,
                    rate: 5000
                },
                StatusRow {
                    slot: 11,
                    score: 0,
                    ping: StatusPing::Connecting,
                    guid: 654321,
                    name: "AVeryLongNameIndeed".into(),
                    last_msg: 0,
                    address: "10.0.0.9:-27409".into(),
                    qport: -7422,
                    rate: 25000
                },
            ]
        );
        assert_eq!(table.render(), text);
        assert_eq!(StatusTable::parse("Server is not running.\n"), None);
        assert_eq!(StatusTable::parse(BAD_PASSWORD), None);
    }

    #[test]
    fn a_table_renders_and_reads_back() {
        let table = StatusTable {
            map: "mp_carentan".into(),
            rows: (0..20)
                .map(|slot| StatusRow {
                    slot,
                    score: i32::from(slot) * 3 - 5,
                    ping: StatusPing::Ms(u32::from(slot) * 17),
                    guid: i64::from(slot) * 1001,
                    name: format!("^{}Player {slot}", slot % 8),
                    last_msg: 0,
                    address: format!("127.0.0.1:{}", 30000 + u32::from(slot)),
                    qport: i32::from(slot) * 7,
                    rate: 25000,
                })
                .collect(),
        };
        assert_eq!(StatusTable::parse(&table.render()), Some(table));
    }
}
