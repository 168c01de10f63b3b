//! User commands: `HashKey`, the per-bundle key, and the three keyed delta forms.
//!
//! Each command is written against the one before it (the first against a default derived
//! from the player state). The command time comes first and unkeyed; then two keyed control
//! bits choose "unchanged", the compact form or the full form. Every command of a bundle starts
//! from the same bundle key; the key is XORed with the command time part-way, as stock does.

use super::fields::{Named, PlayerStateField};
use super::msg::{angle16_encode, MsgError, MsgReader, MsgWriter};
use super::playerstate::PlayerState;

/// Commands one bundle may carry.
pub const MAX_PACKET_USERCMDS: usize = 32;

/// Stock `HashKey` over at most `max_len` bytes of a NUL-terminated text (bytes signed).
pub fn hash_key(text: &[u8], max_len: usize) -> i32 {
    let mut hash: i32 = 0;
    for (i, &byte) in text.iter().take(max_len).enumerate() {
        if byte == 0 {
            break;
        }
        hash = hash.wrapping_add((i as i32 + 119).wrapping_mul(i32::from(byte as i8)));
    }
    hash ^ (hash >> 10) ^ (hash >> 20)
}

/// `messageAcknowledge ^ checksumFeed ^ HashKey(last acknowledged server command, 32)`.
pub fn bundle_key(message_acknowledge: i32, checksum_feed: i32, server_command: &[u8]) -> i32 {
    message_acknowledge ^ checksum_feed ^ hash_key(server_command, 32)
}

/// One user command as the engine holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UserCmd {
    pub server_time: i32,
    pub buttons: u8,
    pub wbuttons: u8,
    /// 7 bits on the wire.
    pub weapon: u8,
    /// 16-bit angle words held in 32-bit members.
    pub angles: [i32; 3],
    pub forward: i8,
    pub right: i8,
    pub up: i8,
}

/// `MSG_SetDefaultUserCmd`: the first delta base of a bundle, derived from a player state.
pub fn default_usercmd(ps: &PlayerState) -> UserCmd {
    let field = |f: PlayerStateField| ps.get(f);
    let mut cmd = UserCmd {
        weapon: field(PlayerStateField::WEAPON) as u8,
        ..UserCmd::default()
    };
    for (i, angle) in cmd.angles.iter_mut().take(2).enumerate() {
        let view = angle16_encode(f32::from_bits(field(VIEWANGLES[i])));
        let delta = field(DELTA_ANGLES[i]);
        *angle = (u32::from(view).wrapping_sub(delta) & 0xffff) as i32;
    }
    if field(PlayerStateField::PM_FLAGS) & 0x80000 != 0 {
        let e_flags = field(PlayerStateField::E_FLAGS);
        if e_flags & 0x40 != 0 {
            cmd.wbuttons |= 0x40;
            cmd.up = -127;
        } else if e_flags & 0x20 != 0 {
            cmd.wbuttons |= 0x80;
            cmd.up = -127;
        }
        let lean = f32::from_bits(field(PlayerStateField::LEANF));
        if lean > 0.0 {
            cmd.wbuttons |= 0x20;
        } else if lean < 0.0 {
            cmd.wbuttons |= 0x10;
        }
        if f32::from_bits(field(PlayerStateField::F_WEAPON_POS_FRAC)) != 0.0 {
            cmd.buttons |= 0x10;
        }
        if field(PlayerStateField::PM_FLAGS) & 0x10000 != 0 {
            cmd.buttons |= 0x08;
        }
    }
    cmd
}

const VIEWANGLES: [PlayerStateField; 2] = [
    PlayerStateField::VIEWANGLES_0,
    PlayerStateField::VIEWANGLES_1,
];
const DELTA_ANGLES: [PlayerStateField; 2] = [
    PlayerStateField::DELTA_ANGLES_0,
    PlayerStateField::DELTA_ANGLES_1,
];

/// Movement is quantized before it is compared: past ±10 it is full, otherwise none.
pub fn quantize(move_: i8) -> i8 {
    match move_ {
        11.. => 127,
        ..=-11 => -127,
        _ => 0,
    }
}

fn flags(value: i8, positive: u32, negative: u32) -> u32 {
    match quantize(value) {
        127 => positive,
        -127 => negative,
        _ => 0,
    }
}

/// Forward (1, 2) and right (4, 8) in four bits.
fn horizontal(cmd: &UserCmd) -> u32 {
    flags(cmd.forward, 1, 2) | flags(cmd.right, 4, 8)
}

/// Up (1, 2) in two bits.
fn vertical(cmd: &UserCmd) -> u32 {
    flags(cmd.up, 1, 2)
}

fn unflag(bits: u32, positive: u32, negative: u32) -> i8 {
    if bits & positive != 0 {
        127
    } else if bits & negative != 0 {
        -127
    } else {
        0
    }
}

fn mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

fn write_keyed_bits(w: &mut MsgWriter, key: i32, value: u32, n: u32) {
    w.write_bits(value ^ (key as u32 & mask(n)), n);
}

fn read_keyed_bits(r: &mut MsgReader<'_>, key: i32, n: u32) -> Result<u32, MsgError> {
    Ok(r.read_bits(n)? ^ (key as u32 & mask(n)))
}

/// A keyed delta of `n` bits: a plain changed bit, then the keyed value.
fn write_delta_bits(w: &mut MsgWriter, key: i32, old: u32, new: u32, n: u32) {
    w.write_bit(old != new);
    if old != new {
        write_keyed_bits(w, key, new, n);
    }
}

fn read_delta_bits(r: &mut MsgReader<'_>, key: i32, old: u32, n: u32) -> Result<u32, MsgError> {
    if r.read_bit()? {
        read_keyed_bits(r, key, n)
    } else {
        Ok(old)
    }
}

/// A keyed delta short, through the byte cursor.
fn write_delta_short(w: &mut MsgWriter, key: i32, old: i32, new: i32) {
    w.write_bit(old != new);
    if old != new {
        w.write_short(((new as u16) ^ (key as u16)) as i16);
    }
}

fn read_delta_short(r: &mut MsgReader<'_>, key: i32, old: i32) -> Result<i32, MsgError> {
    if r.read_bit()? {
        Ok(i32::from((r.read_short()? as u16 ^ key as u16) as i16))
    } else {
        Ok(old)
    }
}

/// A keyed delta byte, through the byte cursor.
fn write_delta_byte(w: &mut MsgWriter, key: i32, old: u8, new: u8) {
    w.write_bit(old != new);
    if old != new {
        w.write_byte(new ^ key as u8);
    }
}

fn read_delta_byte(r: &mut MsgReader<'_>, key: i32, old: u8) -> Result<u8, MsgError> {
    if r.read_bit()? {
        Ok(r.read_byte()? ^ key as u8)
    } else {
        Ok(old)
    }
}

/// Writes `new` against `base` with the bundle `key`.
pub fn write_usercmd(w: &mut MsgWriter, key: i32, base: &UserCmd, new: &UserCmd) {
    let delta = new.server_time.wrapping_sub(base.server_time);
    if (0..256).contains(&delta) {
        w.write_bit(true);
        w.write_byte(delta as u8);
    } else {
        w.write_bit(false);
        w.write_long(new.server_time);
    }
    let full = (base.buttons >> 1) != (new.buttons >> 1)
        || base.angles[2] != new.angles[2]
        || base.wbuttons != new.wbuttons
        || vertical(base) != vertical(new)
        || (base.weapon & 0x7f) != (new.weapon & 0x7f);
    let compact = (base.buttons & 1) != (new.buttons & 1)
        || base.angles[0] != new.angles[0]
        || base.angles[1] != new.angles[1]
        || horizontal(base) != horizontal(new);
    if !full && !compact {
        write_keyed_bits(w, key, 0, 1);
        return;
    }
    write_keyed_bits(w, key, 1, 1);
    write_keyed_bits(w, key, u32::from(full), 1);
    let mut key = key;
    if !full {
        key ^= new.server_time;
    }
    write_keyed_bits(w, key, u32::from(new.buttons & 1), 1);
    write_delta_short(w, key, base.angles[0], new.angles[0]);
    write_delta_short(w, key, base.angles[1], new.angles[1]);
    write_delta_bits(w, key, horizontal(base), horizontal(new), 4);
    if full {
        key ^= new.server_time;
        write_delta_short(w, key, base.angles[2], new.angles[2]);
        write_delta_bits(
            w,
            key,
            u32::from(base.buttons >> 1),
            u32::from(new.buttons >> 1),
            6,
        );
        write_delta_byte(w, key, base.wbuttons, new.wbuttons);
        write_delta_bits(w, key, vertical(base), vertical(new), 2);
        write_delta_bits(
            w,
            key,
            u32::from(base.weapon & 0x7f),
            u32::from(new.weapon & 0x7f),
            7,
        );
    }
}

/// Reads a command written by [`write_usercmd`] against `base` with the bundle `key`. Movement
/// comes back quantized; the buttons' bit 7 is cleared, as stock's reader does.
pub fn read_usercmd(r: &mut MsgReader<'_>, key: i32, base: &UserCmd) -> Result<UserCmd, MsgError> {
    let server_time = if r.read_bit()? {
        base.server_time.wrapping_add(i32::from(r.read_byte()?))
    } else {
        r.read_long()?
    };
    let mut cmd = UserCmd {
        server_time,
        forward: quantize(base.forward),
        right: quantize(base.right),
        up: quantize(base.up),
        ..*base
    };
    if read_keyed_bits(r, key, 1)? == 0 {
        return Ok(cmd);
    }
    let full = read_keyed_bits(r, key, 1)? == 1;
    let mut key = key;
    if !full {
        key ^= server_time;
    }
    let fire = read_keyed_bits(r, key, 1)? as u8;
    cmd.angles[0] = read_delta_short(r, key, base.angles[0])?;
    cmd.angles[1] = read_delta_short(r, key, base.angles[1])?;
    let moves = read_delta_bits(r, key, horizontal(base), 4)?;
    cmd.forward = unflag(moves, 1, 2);
    cmd.right = unflag(moves, 4, 8);
    let mut upper = base.buttons >> 1;
    if full {
        key ^= server_time;
        cmd.angles[2] = read_delta_short(r, key, base.angles[2])?;
        upper = read_delta_bits(r, key, u32::from(base.buttons >> 1), 6)? as u8;
        cmd.wbuttons = read_delta_byte(r, key, base.wbuttons)?;
        cmd.up = unflag(read_delta_bits(r, key, vertical(base), 2)?, 1, 2);
        cmd.weapon = read_delta_bits(r, key, u32::from(base.weapon & 0x7f), 7)? as u8;
    }
    cmd.buttons = ((upper << 1) | fire) & 0x7f;
    Ok(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_key_is_signed_and_stops_at_nul_or_length() {
        assert_eq!(hash_key(b"", 32), 0);
        // 119 * 'a' + 120 * 'b' = 23303; 23303 ^ (23303 >> 10) = 23303 ^ 22.
        assert_eq!(hash_key(b"ab", 32), 23303 ^ 22);
        assert_eq!(hash_key(b"ab\0cd", 32), hash_key(b"ab", 32));
        assert_eq!(hash_key(b"abcd", 2), hash_key(b"ab", 32));
        // 0xff counts as -1: -119, and arithmetic shifts keep the sign.
        assert_eq!(hash_key(b"\xff", 32), -119 ^ -1 ^ -1);
        assert_eq!(bundle_key(5, 3, b""), 5 ^ 3);
    }

    #[test]
    fn the_default_base_follows_the_player_state() {
        let mut ps = PlayerState::default();
        ps.set(PlayerStateField::WEAPON, 5);
        ps.set_f32(PlayerStateField::VIEWANGLES_1, 90.0);
        ps.set(PlayerStateField::DELTA_ANGLES_1, 0x1000);
        ps.set(PlayerStateField::PM_FLAGS, 0x80000);
        ps.set(PlayerStateField::E_FLAGS, 0x20);
        let cmd = default_usercmd(&ps);
        assert_eq!(cmd.weapon, 5);
        assert_eq!(cmd.angles, [0, 0x4000 - 0x1000, 0]);
        assert_eq!((cmd.wbuttons, cmd.up), (0x80, -127));
        assert_eq!(default_usercmd(&PlayerState::default()), UserCmd::default());
    }

    #[test]
    fn movement_quantizes_around_ten() {
        assert_eq!(quantize(11), 127);
        assert_eq!(quantize(10), 0);
        assert_eq!(quantize(-10), 0);
        assert_eq!(quantize(-11), -127);
    }

    #[test]
    fn golden_unchanged_commands() {
        let base = UserCmd {
            server_time: 1000,
            ..UserCmd::default()
        };
        let written = |key: i32| {
            let mut w = MsgWriter::new();
            let later = UserCmd {
                server_time: 1016,
                ..base
            };
            write_usercmd(&mut w, key, &base, &later);
            w.into_bytes()
        };
        // Only the time moved by 16: bit 1 and the byte 16, then the control bit 0, keyed:
        // with key 1 it is sent as 1, with key 0 as 0.
        assert_eq!(written(1), [0b11, 16]);
        assert_eq!(written(0), [0b01, 16]);
    }

    proptest::proptest! {
        #[test]
        fn commands_round_trip(
            key in proptest::num::i32::ANY,
            times in (proptest::num::i32::ANY, 0i32..300),
            buttons in (proptest::num::u8::ANY, proptest::num::u8::ANY, 0u8..128),
            angles in (0i32..65536, 0i32..65536, 0i32..65536),
            moves in (proptest::num::i8::ANY, proptest::num::i8::ANY, proptest::num::i8::ANY),
            same in proptest::bool::ANY,
        ) {
            let base = UserCmd { server_time: times.0, ..UserCmd::default() };
            let new = if same {
                UserCmd { server_time: times.0.wrapping_add(times.1), ..base }
            } else {
                UserCmd {
                    server_time: times.0.wrapping_add(times.1),
                    buttons: buttons.0 & 0x7f,
                    wbuttons: buttons.1,
                    weapon: buttons.2,
                    angles: [angles.0 as i16 as i32, angles.1 as i16 as i32, angles.2 as i16 as i32],
                    forward: moves.0,
                    right: moves.1,
                    up: moves.2,
                }
            };
            let mut w = MsgWriter::new();
            write_usercmd(&mut w, key, &base, &new);
            let bytes = w.into_bytes();
            let back = read_usercmd(&mut MsgReader::new(&bytes), key, &base).unwrap();
            let expected = UserCmd {
                forward: quantize(new.forward),
                right: quantize(new.right),
                up: quantize(new.up),
                ..new
            };
            proptest::prop_assert_eq!(back, expected);
        }

        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..24), key in proptest::num::i32::ANY) {
            let _ = read_usercmd(&mut MsgReader::new(&bytes), key, &UserCmd::default());
        }
    }
}
