//! Any datagram walked as Wulfram II records under a mode table drawn from the input, and fed
//! to a session.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::wulfram::record::{Mode2Header, ModeTable, StreamMode, Walker};
use protocol::wulfram::session::{Session, SessionConfig};

fuzz_target!(|data: &[u8]| {
    let Some((modes, datagram)) = data.split_first_chunk::<4>() else {
        return;
    };
    let mut table = ModeTable::default();
    for (i, &m) in modes.iter().enumerate() {
        let mode = StreamMode::from_number(u32::from(m & 3)).unwrap_or(StreamMode::Raw);
        table.set(datagram.get(i).copied().unwrap_or(0), mode);
    }
    if modes[0] & 0x80 != 0 {
        table.mode2 = Mode2Header::SeqOnly;
    }
    for record in Walker::new(datagram, &table) {
        let _ = record;
    }
    let mut session = Session::new(SessionConfig::default(), 0);
    session.handle_datagram(1, datagram);
    session.handle_tcp(2, datagram);
    session.handle_timeout(3);
    while session.poll_transmit().is_some() {}
    while session.poll_event().is_some() {}
});
