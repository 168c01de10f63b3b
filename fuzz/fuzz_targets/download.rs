//! Any bytes read as download records: records or an error, and a transfer that never takes
//! more than it declared.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::download::{DownloadRecord, Transfer};
use protocol::cod::msg::MsgReader;

fuzz_target!(|data: &[u8]| {
    let mut r = MsgReader::new(data);
    let mut transfer = Transfer::default();
    for _ in 0..64 {
        match DownloadRecord::read(&mut r) {
            Ok(DownloadRecord::Block {
                number,
                total_size,
                data,
            }) => {
                let _ = transfer.block(number, total_size, &data);
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
});
