//! Any text as an info string: parsed pairs print back to a string that parses the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::info::{InfoString, MAX_BIG_INFO_STRING};
use protocol::cod::text;

fuzz_target!(|data: &[u8]| {
    let text = text::decode(data);
    if let Ok(info) = InfoString::parse(&text, MAX_BIG_INFO_STRING) {
        let printed = info.to_string();
        assert_eq!(InfoString::parse(&printed, MAX_BIG_INFO_STRING), Ok(info));
    }
    let _ = text::spans(&text);
});
