//! The in-band XOR transform of compressed bodies: reversible synchronization, not encryption.

/// Transforms `body` in place (the same call encodes and decodes).
///
/// `command` is the sender's storage of the command text, read as stock reads it: when the byte
/// at the current index is NUL (or past the storage), the index returns to 0 and byte 0 is used.
/// A zero-filled empty command therefore contributes nothing, while storage that still holds an
/// older command after its NUL walks that older text, as the stock server does.
pub fn apply(body: &mut [u8], initial_key: u8, command: &[u8]) {
    let byte_at = |i: usize| command.get(i).copied().unwrap_or(0);
    let mut key = initial_key;
    let mut index = 0usize;
    for (i, byte) in body.iter_mut().enumerate() {
        if byte_at(index) == 0 {
            index = 0;
        }
        key ^= byte_at(index) << (i & 1);
        index += 1;
        *byte ^= key;
    }
}

/// Client to server: the low byte of `serverId ^ challenge ^ messageAcknowledge`.
pub fn client_key(server_id: u8, challenge: i32, message_acknowledge: i32) -> u8 {
    server_id ^ (challenge as u8) ^ (message_acknowledge as u8)
}

/// Server to client: the low byte of `netchanSequence ^ challenge`.
pub fn server_key(sequence: u32, challenge: i32) -> u8 {
    (sequence as u8) ^ (challenge as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_key_streams() {
        // Key 0x10 with "ab": key ^= 'a' (0x61) -> 0x71; key ^= 'b' << 1 (0xc4) -> 0xb5;
        // key ^= 'a' -> 0xd4; key ^= 'b' << 1 -> 0x10.
        let mut body = [0u8; 4];
        apply(&mut body, 0x10, b"ab");
        assert_eq!(body, [0x71, 0xb5, 0xd4, 0x10]);
        let mut back = body;
        apply(&mut back, 0x10, b"ab");
        assert_eq!(back, [0; 4]);
    }

    #[test]
    fn empty_command_keeps_the_initial_key() {
        let mut body = [1, 2, 3, 4];
        apply(&mut body, 0x5a, b"");
        assert_eq!(body, [0x5b, 0x58, 0x59, 0x5e]);
        let mut zeroed = [1, 2, 3, 4];
        apply(&mut zeroed, 0x5a, &[0; 16]);
        assert_eq!(zeroed, body);
    }

    #[test]
    fn stale_storage_walks_the_older_text() {
        // An empty command written over "abc": storage "\0bc\0". Bytes 1 and 2 are walked.
        let mut stale = [0u8; 4];
        apply(&mut stale, 0, b"\0bc\0");
        // i0: byte0 NUL -> idx0, key^=0; i1: 'b'<<1=0xc4; i2: 'c'=0x63 -> 0xa7; i3: NUL -> 0 -> key^=0.
        assert_eq!(stale, [0x00, 0xc4, 0xa7, 0xa7]);
    }

    #[test]
    fn keys_take_the_low_bytes() {
        assert_eq!(
            client_key(0x21, 0x1234_5678, 0x0000_0102),
            0x21 ^ 0x78 ^ 0x02
        );
        assert_eq!(server_key(0x1ff, -1), 0xff ^ 0xff);
    }
}
