//! A message read with an operation sequence taken from the input itself: every read either
//! succeeds or reports an error, and the cursor never passes the end.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::msg::MsgReader;

fuzz_target!(|data: &[u8]| {
    let Some((&ops, message)) = data.split_first() else {
        return;
    };
    let mut reader = MsgReader::new(message);
    for i in 0..64u32 {
        let op = (u32::from(ops).wrapping_mul(i + 7) >> 2) % 8;
        let ok = match op {
            0 => reader.read_bits((i * 5) % 33).is_ok(),
            1 => reader.read_byte().is_ok(),
            2 => reader.read_short().is_ok(),
            3 => reader.read_long().is_ok(),
            4 => reader.read_string().is_ok(),
            5 => reader.read_big_string().is_ok(),
            6 => reader.read_string_line().is_ok(),
            _ => reader.read_data(usize::from(ops)).is_ok(),
        };
        assert!(reader.position() <= message.len());
        if !ok {
            break;
        }
    }
});
