//! Any server body read as a gamestate: a gamestate or an error, and one that reads writes back
//! to one that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::gamestate::Gamestate;
use protocol::cod::msg::{MsgReader, MsgWriter};

fuzz_target!(|data: &[u8]| {
    if let Ok(gamestate) = Gamestate::read(&mut MsgReader::new(data)) {
        let mut w = MsgWriter::new();
        gamestate.write(&mut w);
        let bytes = w.into_bytes();
        let again = Gamestate::read(&mut MsgReader::new(&bytes)).expect("own output reads");
        assert_eq!(
            again.configstrings.len(),
            gamestate
                .configstrings
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .count()
        );
    }
});
