//! Any bytes read as a client message body under any bundle key: records or an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::client_records::{read_client_body, BundleContext};
use protocol::cod::usercmd::UserCmd;

fuzz_target!(|data: &[u8]| {
    let Some((key_bytes, body)) = data.split_first_chunk::<4>() else {
        return;
    };
    let context = BundleContext {
        key: i32::from_le_bytes(*key_bytes),
        base: UserCmd::default(),
    };
    let _ = read_client_body(body, Some(&context));
    let _ = read_client_body(body, None);
});
