//! Any bytes as a `.dm_3`: the record reader, playback of each record, and the timeline (one
//! decoding pass, then seeks and play). Nothing may panic, and a seek never lands past the
//! moment asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::demo::{Playback, Records};
use protocol::cod::watch::timeline::Timeline;

fuzz_target!(|data: &[u8]| {
    let mut playback = Playback::new();
    for record in Records::new(data).flatten() {
        let _ = record.reliable_acknowledge();
        let _ = playback.read(&record);
    }
    if let Ok(mut timeline) = Timeline::open(data.to_vec()) {
        let end = timeline.duration();
        for at in [end / 2, 0, end, end / 3] {
            timeline.seek(at);
            assert!(timeline.position() <= at);
            let _ = timeline.view();
        }
        timeline.advance_to(u32::MAX);
        assert!(timeline.finished());
    }
});
