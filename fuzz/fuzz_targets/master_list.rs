//! Any bytes after the marker and `getserversResponse`: a list or an error, and a parsed list
//! re-emits to the same list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::master::ServerList;

fuzz_target!(|data: &[u8]| {
    let mut datagram = b"\xff\xff\xff\xffgetserversResponse".to_vec();
    datagram.extend_from_slice(data);
    if let Ok(list) = ServerList::parse(&datagram) {
        assert_eq!(ServerList::parse(&list.emit()), Ok(list));
    }
});
