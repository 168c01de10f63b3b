//! Any bytes read as a usercmd bundle body under any key: commands or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::msg::MsgReader;
use protocol::cod::usercmd::{read_usercmd, UserCmd, MAX_PACKET_USERCMDS};

fuzz_target!(|data: &[u8]| {
    let Some((key_bytes, body)) = data.split_first_chunk::<4>() else {
        return;
    };
    let key = i32::from_le_bytes(*key_bytes);
    let mut r = MsgReader::new(body);
    let mut base = UserCmd::default();
    for _ in 0..MAX_PACKET_USERCMDS {
        match read_usercmd(&mut r, key, &base) {
            Ok(cmd) => base = cmd,
            Err(_) => break,
        }
    }
});
