//! The records of a decoded client message body, selected by two-bit selectors:
//! `clientCommand* (move | moveNoDelta)? EOF`.

use alloc::string::String;
use alloc::vec::Vec;

use super::msg::{MsgError, MsgReader, MsgWriter};
use super::usercmd::{read_usercmd, write_usercmd, UserCmd, MAX_PACKET_USERCMDS};

pub const SELECTOR_MOVE: u32 = 0;
pub const SELECTOR_MOVE_NO_DELTA: u32 = 1;
pub const SELECTOR_CLIENT_COMMAND: u32 = 2;
pub const SELECTOR_EOF: u32 = 3;

/// One record of a client body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientRecord {
    Command {
        sequence: i32,
        text: String,
    },
    /// A user-command bundle, oldest first; `no_delta` asks for a full snapshot.
    Move {
        no_delta: bool,
        commands: Vec<UserCmd>,
    },
    /// A bundle left unread because no key was given.
    Unread {
        no_delta: bool,
    },
    Eof,
}

/// The bundle key and first delta base a reader needs for the user commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BundleContext {
    pub key: i32,
    pub base: UserCmd,
}

/// Writes reliable commands, an optional bundle (`no_delta`, commands) and EOF.
pub fn write_client_body<'a>(
    commands: impl IntoIterator<Item = (i32, &'a str)>,
    bundle: Option<(bool, &BundleContext, &[UserCmd])>,
) -> Vec<u8> {
    let mut w = MsgWriter::new();
    for (sequence, text) in commands {
        w.write_bits(SELECTOR_CLIENT_COMMAND, 2);
        w.write_long(sequence);
        w.write_string(text.as_bytes());
    }
    if let Some((no_delta, context, cmds)) = bundle {
        let cmds = &cmds[..cmds.len().min(MAX_PACKET_USERCMDS)];
        if !cmds.is_empty() {
            let selector = if no_delta {
                SELECTOR_MOVE_NO_DELTA
            } else {
                SELECTOR_MOVE
            };
            w.write_bits(selector, 2);
            w.write_byte(cmds.len() as u8);
            let mut base = context.base;
            for cmd in cmds {
                write_usercmd(&mut w, context.key, &base, cmd);
                base = *cmd;
            }
        }
    }
    w.write_bits(SELECTOR_EOF, 2);
    w.into_bytes()
}

/// Reads a client body. With no `context` a bundle is reported unread and reading stops there,
/// as the server reads nothing after the bundle anyway. Returns the records and, if reading
/// stopped on bad input, why.
pub fn read_client_body(
    body: &[u8],
    context: Option<&BundleContext>,
) -> (Vec<ClientRecord>, Option<MsgError>) {
    let mut r = MsgReader::new(body);
    let mut records = Vec::new();
    loop {
        let selector = match r.read_bits(2) {
            Ok(s) => s,
            Err(e) => return (records, Some(e)),
        };
        match selector {
            SELECTOR_CLIENT_COMMAND => {
                match r.read_long().and_then(|s| Ok((s, r.read_string()?))) {
                    Ok((sequence, text)) => records.push(ClientRecord::Command { sequence, text }),
                    Err(e) => return (records, Some(e)),
                }
            }
            SELECTOR_EOF => {
                records.push(ClientRecord::Eof);
                return (records, None);
            }
            _ => {
                let no_delta = selector == SELECTOR_MOVE_NO_DELTA;
                let Some(context) = context else {
                    records.push(ClientRecord::Unread { no_delta });
                    return (records, None);
                };
                match read_bundle(&mut r, context) {
                    Ok(commands) => records.push(ClientRecord::Move { no_delta, commands }),
                    Err(e) => return (records, Some(e)),
                }
                // Nothing after the bundle is read.
                return (records, None);
            }
        }
    }
}

fn read_bundle(r: &mut MsgReader<'_>, context: &BundleContext) -> Result<Vec<UserCmd>, MsgError> {
    let count = usize::from(r.read_byte()?);
    if !(1..=MAX_PACKET_USERCMDS).contains(&count) {
        return Err(MsgError::Overrun);
    }
    let mut base = context.base;
    let mut commands = Vec::with_capacity(count);
    for _ in 0..count {
        let cmd = read_usercmd(r, context.key, &base)?;
        commands.push(cmd);
        base = cmd;
    }
    Ok(commands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn golden_command_then_eof() {
        let body = write_client_body([(1, "hi")], None);
        // Selector 2 opens a bit byte; the long and string follow at the byte cursor; the EOF
        // selector (3) fills bits 2-3 of that first byte.
        assert_eq!(body, vec![0x0e, 0x01, 0x00, 0x00, 0x00, b'h', b'i', 0x00]);
        let (records, error) = read_client_body(&body, None);
        assert_eq!(error, None);
        assert_eq!(
            records,
            vec![
                ClientRecord::Command {
                    sequence: 1,
                    text: "hi".into()
                },
                ClientRecord::Eof
            ]
        );
    }

    #[test]
    fn bundles_round_trip_and_need_their_key() {
        let context = BundleContext {
            key: 0x1234_5678,
            base: UserCmd::default(),
        };
        let cmds = [
            UserCmd {
                server_time: 1000,
                forward: 127,
                ..UserCmd::default()
            },
            UserCmd {
                server_time: 1050,
                angles: [10, 20, 0],
                ..UserCmd::default()
            },
        ];
        let body = write_client_body([], Some((false, &context, &cmds)));
        let (records, error) = read_client_body(&body, Some(&context));
        assert_eq!(error, None);
        assert_eq!(
            records,
            vec![ClientRecord::Move {
                no_delta: false,
                commands: cmds.to_vec()
            }]
        );
        let (records, _) = read_client_body(&body, None);
        assert_eq!(records, vec![ClientRecord::Unread { no_delta: false }]);
    }

    #[test]
    fn a_bad_count_is_refused() {
        let mut w = MsgWriter::new();
        w.write_bits(SELECTOR_MOVE, 2);
        w.write_byte(33);
        let context = BundleContext {
            key: 0,
            base: UserCmd::default(),
        };
        let (_, error) = read_client_body(&w.into_bytes(), Some(&context));
        assert_eq!(error, Some(MsgError::Overrun));
    }
}
