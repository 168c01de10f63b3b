//! Any TCP byte stream, in any chunking, through the Wulfram II frame accumulator.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::wulfram::frame::FrameReader;

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, stream)) = data.split_first() else {
        return;
    };
    let mut reader = FrameReader::new();
    for piece in stream.chunks(usize::from(chunk).max(1)) {
        reader.push(piece);
        let mut frames = 0;
        while let Some(frame) = reader.next_frame() {
            frames += 1;
            if frame.is_err() || frames > stream.len() {
                break;
            }
        }
    }
});
