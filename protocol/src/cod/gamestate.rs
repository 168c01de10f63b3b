//! `svc_gamestate`: the server-command sequence, every non-empty configstring, every entity
//! baseline, then the client number and the checksum feed.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::fmt;

use super::entity::{read_entity, write_entity, EntityError, EntityState, ENTITY_NUMBER_BITS};
use super::msg::{MsgError, MsgReader, MsgWriter};

/// Server service opcodes.
pub const SVC_GAMESTATE: u8 = 2;
pub const SVC_CONFIGSTRING: u8 = 3;
pub const SVC_BASELINE: u8 = 4;
pub const SVC_EOF: u8 = 8;
/// Configstring indexes are 0..2,047.
pub const MAX_CONFIGSTRINGS: u16 = 2048;
/// The configstring holding the server's info string (`sv_hostname`, `mapname`, `g_gametype`...).
pub const CS_SERVERINFO: u16 = 0;

/// Why a gamestate was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GamestateError {
    Msg(MsgError),
    Entity(EntityError),
    /// Not `svc_gamestate`.
    NotAGamestate(u8),
    /// A configstring index outside 0..2,047.
    BadConfigstringIndex(i16),
    /// An opcode other than configstring, baseline or EOF inside the gamestate.
    UnexpectedOpcode(u8),
    /// A baseline record that removes its entity.
    RemovedBaseline(u16),
}

impl fmt::Display for GamestateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Msg(e) => write!(f, "gamestate: {e}"),
            Self::Entity(e) => write!(f, "gamestate baseline: {e}"),
            Self::NotAGamestate(op) => write!(f, "opcode {op} is not svc_gamestate"),
            Self::BadConfigstringIndex(i) => write!(f, "configstring index {i} out of range"),
            Self::UnexpectedOpcode(op) => write!(f, "opcode {op} inside a gamestate"),
            Self::RemovedBaseline(n) => write!(f, "baseline {n} removes its entity"),
        }
    }
}

impl core::error::Error for GamestateError {}

impl From<MsgError> for GamestateError {
    fn from(e: MsgError) -> Self {
        Self::Msg(e)
    }
}

impl From<EntityError> for GamestateError {
    fn from(e: EntityError) -> Self {
        Self::Entity(e)
    }
}

/// A whole gamestate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gamestate {
    /// The client's server-command sequence is set to this (an assignment, not a maximum).
    pub server_command_sequence: i32,
    pub configstrings: BTreeMap<u16, String>,
    pub baselines: BTreeMap<u16, EntityState>,
    pub client_num: i32,
    /// Part of the usercmd key and pure validation.
    pub checksum_feed: i32,
}

impl Gamestate {
    /// Writes `svc_gamestate` through its own closing `svc_EOF` and the two trailing longs; only
    /// non-empty configstrings and baselines of nonzero entities are sent.
    pub fn write(&self, w: &mut MsgWriter) {
        w.write_byte(SVC_GAMESTATE);
        w.write_long(self.server_command_sequence);
        for (&index, value) in &self.configstrings {
            if !value.is_empty() && index < MAX_CONFIGSTRINGS {
                w.write_byte(SVC_CONFIGSTRING);
                w.write_short(index as i16);
                w.write_big_string(value.as_bytes());
            }
        }
        for (&number, baseline) in &self.baselines {
            if number != 0 {
                w.write_byte(SVC_BASELINE);
                write_entity(w, &EntityState::zero(number), Some(baseline), true);
            }
        }
        w.write_byte(SVC_EOF);
        w.write_long(self.client_num);
        w.write_long(self.checksum_feed);
    }

    /// Reads a gamestate from its `svc_gamestate` opcode on.
    pub fn read(r: &mut MsgReader<'_>) -> Result<Self, GamestateError> {
        let opcode = r.read_byte()?;
        if opcode != SVC_GAMESTATE {
            return Err(GamestateError::NotAGamestate(opcode));
        }
        let mut gamestate = Self {
            server_command_sequence: r.read_long()?,
            ..Self::default()
        };
        loop {
            match r.read_byte()? {
                SVC_CONFIGSTRING => {
                    let index = r.read_short()?;
                    if !(0..MAX_CONFIGSTRINGS as i16).contains(&index) {
                        return Err(GamestateError::BadConfigstringIndex(index));
                    }
                    let value = r.read_big_string()?;
                    gamestate.configstrings.insert(index as u16, value);
                }
                SVC_BASELINE => {
                    let number = r.read_bits(ENTITY_NUMBER_BITS)? as u16;
                    let zero = EntityState::zero(number);
                    let baseline = read_entity(r, number, &zero)?
                        .ok_or(GamestateError::RemovedBaseline(number))?;
                    gamestate.baselines.insert(number, baseline);
                }
                SVC_EOF => break,
                other => return Err(GamestateError::UnexpectedOpcode(other)),
            }
        }
        gamestate.client_num = r.read_long()?;
        gamestate.checksum_feed = r.read_long()?;
        Ok(gamestate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn golden_configstrings_only() {
        let mut gamestate = Gamestate {
            server_command_sequence: 7,
            client_num: 3,
            checksum_feed: -2,
            ..Gamestate::default()
        };
        gamestate
            .configstrings
            .insert(1, "\\sv_serverid\\16".into());
        gamestate.configstrings.insert(2, String::new());
        let mut w = MsgWriter::new();
        gamestate.write(&mut w);
        let mut golden = vec![2, 7, 0, 0, 0, 3, 1, 0];
        golden.extend_from_slice(b"\\sv_serverid\\16\0");
        golden.extend_from_slice(&[8, 3, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
        assert_eq!(w.into_bytes(), golden);
        let mut r = MsgReader::new(&golden);
        let back = Gamestate::read(&mut r).unwrap();
        gamestate.configstrings.remove(&2);
        assert_eq!(back, gamestate);
    }

    #[test]
    fn baselines_round_trip() {
        let mut gamestate = Gamestate::default();
        let mut base = EntityState::zero(40);
        base.fields[0] = 1234;
        base.fields[11] = 3;
        gamestate.baselines.insert(40, base);
        gamestate
            .configstrings
            .insert(0, "\\g_gametype\\tdm".into());
        let mut w = MsgWriter::new();
        gamestate.write(&mut w);
        let bytes = w.into_bytes();
        let back = Gamestate::read(&mut MsgReader::new(&bytes)).unwrap();
        assert_eq!(back, gamestate);
    }

    #[test]
    fn hostile_gamestates_are_refused() {
        let read = |b: &[u8]| Gamestate::read(&mut MsgReader::new(b));
        assert_eq!(read(&[5]), Err(GamestateError::NotAGamestate(5)));
        assert_eq!(
            read(&[2, 0, 0, 0, 0, 3, 0x00, 0x08]),
            Err(GamestateError::BadConfigstringIndex(2048))
        );
        assert_eq!(
            read(&[2, 0, 0, 0, 0, 7]),
            Err(GamestateError::UnexpectedOpcode(7))
        );
        assert_eq!(
            read(&[2, 0, 0, 0, 0, 3, 1, 0, b'a']),
            Err(GamestateError::Msg(MsgError::Overrun))
        );
    }

    proptest::proptest! {
        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let mut data = vec![2u8, 0, 0, 0, 0];
            data.extend(bytes);
            let _ = Gamestate::read(&mut MsgReader::new(&data));
        }
    }
}
