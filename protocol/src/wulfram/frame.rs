//! TCP frames: a big-endian u16 size that counts the whole frame (its own two bytes included),
//! the opcode, then the body. The reader accepts up to 10,240 bytes after the prefix (the
//! payload: opcode and body), so the largest frame is 10,242 bytes.

use alloc::vec::Vec;
use core::fmt;

/// The most a frame may carry after its size prefix: the opcode and the body.
pub const MAX_PAYLOAD: usize = 10_240;
/// The size prefix.
pub const PREFIX: usize = 2;
/// The largest frame.
pub const MAX_FRAME: usize = PREFIX + MAX_PAYLOAD;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The size prefix is below three (no room for an opcode).
    TooShort { size: u16 },
    /// More than 10,240 bytes after the prefix; the stream cannot be resynchronized.
    TooLong { size: u16 },
    /// Transport controls 0x01-0x07 are refused on TCP.
    ControlOnTcp { opcode: u8 },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort { size } => write!(f, "frame size {size} leaves no room for an opcode"),
            Self::TooLong { size } => write!(
                f,
                "frame size {size}: {} bytes after the prefix, the limit is {MAX_PAYLOAD}",
                usize::from(*size).saturating_sub(PREFIX)
            ),
            Self::ControlOnTcp { opcode } => {
                write!(f, "transport control 0x{opcode:02x} is refused on TCP")
            }
        }
    }
}

impl core::error::Error for FrameError {}

/// One frame's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub opcode: u8,
    pub body: Vec<u8>,
}

impl Frame {
    /// The frame's wire size, prefix included.
    pub fn size(&self) -> usize {
        PREFIX + 1 + self.body.len()
    }
}

/// Whether `opcode` is one of the controls TCP refuses.
pub fn refused_on_tcp(opcode: u8) -> bool {
    (0x01..=0x07).contains(&opcode)
}

/// Encodes one frame; a payload (opcode and body) over 10,240 bytes or a refused control is an
/// error, never truncated.
pub fn emit(opcode: u8, body: &[u8]) -> Result<Vec<u8>, FrameError> {
    if refused_on_tcp(opcode) {
        return Err(FrameError::ControlOnTcp { opcode });
    }
    let size = PREFIX + 1 + body.len();
    if size > MAX_FRAME {
        return Err(FrameError::TooLong {
            size: u16::try_from(size).unwrap_or(u16::MAX),
        });
    }
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(size as u16).to_be_bytes());
    out.push(opcode);
    out.extend_from_slice(body);
    Ok(out)
}

/// Reassembles frames from a TCP byte stream delivered in any chunking.
#[derive(Clone, Debug, Default)]
pub struct FrameReader {
    buffer: Vec<u8>,
    /// Set by a size the stream cannot recover from; nothing more is read.
    broken: Option<FrameError>,
}

impl FrameReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends received bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.broken.is_none() {
            self.buffer.extend_from_slice(bytes);
        }
    }

    /// Bytes held toward an incomplete frame.
    pub fn pending(&self) -> usize {
        self.buffer.len()
    }

    /// The next complete frame. A bad size breaks the stream for good (the caller closes the
    /// connection); a refused control is reported and skipped, since its size was sound.
    pub fn next_frame(&mut self) -> Option<Result<Frame, FrameError>> {
        if let Some(e) = self.broken {
            return Some(Err(e));
        }
        let prefix = self.buffer.get(..PREFIX)?;
        let size = u16::from_be_bytes([prefix[0], prefix[1]]);
        let error = if usize::from(size) < PREFIX + 1 {
            Some(FrameError::TooShort { size })
        } else if usize::from(size) > MAX_FRAME {
            Some(FrameError::TooLong { size })
        } else {
            None
        };
        if let Some(e) = error {
            self.broken = Some(e);
            self.buffer = Vec::new();
            return Some(Err(e));
        }
        if self.buffer.len() < usize::from(size) {
            return None;
        }
        let rest = self.buffer.split_off(usize::from(size));
        let frame = core::mem::replace(&mut self.buffer, rest);
        let opcode = frame[PREFIX];
        if refused_on_tcp(opcode) {
            return Some(Err(FrameError::ControlOnTcp { opcode }));
        }
        Some(Ok(Frame {
            opcode,
            body: frame[PREFIX + 1..].to_vec(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn golden_frames() {
        assert_eq!(emit(0x19, &[]).unwrap(), [0x00, 0x03, 0x19]);
        assert_eq!(
            emit(0x35, &[0, 0, 0, 7]).unwrap(),
            [0x00, 0x07, 0x35, 0, 0, 0, 7]
        );
        assert_eq!(emit(0x02, &[]), Err(FrameError::ControlOnTcp { opcode: 2 }));
        // Diagnostic 0x00 has its own handling, not the control refusal.
        assert!(emit(0x00, &[0]).is_ok());
    }

    #[test]
    fn the_largest_frame_is_10242_bytes() {
        let largest = emit(0x20, &vec![0xab; MAX_PAYLOAD - 1]).unwrap();
        assert_eq!(largest.len(), 10_242);
        assert_eq!(&largest[..3], [0x28, 0x02, 0x20]);
        assert_eq!(
            emit(0x20, &vec![0; MAX_PAYLOAD]),
            Err(FrameError::TooLong { size: 10_243 })
        );
        let mut reader = FrameReader::new();
        reader.push(&largest);
        assert_eq!(
            reader.next_frame().unwrap().unwrap().body.len(),
            MAX_PAYLOAD - 1
        );
        // 10,241 bytes after the prefix are refused, and the stream stays broken.
        let mut reader = FrameReader::new();
        reader.push(&[0x28, 0x03, 0x20]);
        assert_eq!(
            reader.next_frame(),
            Some(Err(FrameError::TooLong { size: 10_243 }))
        );
        reader.push(&emit(0x20, &[]).unwrap());
        assert!(matches!(reader.next_frame(), Some(Err(_))));
    }

    #[test]
    fn frames_come_out_whatever_the_chunking() {
        let mut stream = Vec::new();
        for (op, body) in [(0x10u8, &b"abc"[..]), (0x11, b""), (0x12, &[9; 300])] {
            stream.extend(emit(op, body).unwrap());
        }
        for chunk in [1, 2, 3, 7, 64, stream.len()] {
            let mut reader = FrameReader::new();
            let mut frames = Vec::new();
            for piece in stream.chunks(chunk) {
                reader.push(piece);
                while let Some(frame) = reader.next_frame() {
                    frames.push(frame.unwrap());
                }
            }
            assert_eq!(frames.len(), 3, "chunks of {chunk}");
            assert_eq!(frames[2].body, [9; 300]);
            assert_eq!(reader.pending(), 0);
        }
    }

    #[test]
    fn a_control_on_tcp_is_refused_and_skipped() {
        let mut reader = FrameReader::new();
        reader.push(&[0, 4, 0x02, 0, 0, 3, 0x30]);
        assert_eq!(
            reader.next_frame(),
            Some(Err(FrameError::ControlOnTcp { opcode: 2 }))
        );
        assert_eq!(
            reader.next_frame(),
            Some(Ok(Frame {
                opcode: 0x30,
                body: vec![]
            }))
        );
        let mut reader = FrameReader::new();
        reader.push(&[0, 2]);
        assert_eq!(
            reader.next_frame(),
            Some(Err(FrameError::TooShort { size: 2 }))
        );
    }

    proptest::proptest! {
        #[test]
        fn any_stream_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600), split in 0usize..600) {
            let mut reader = FrameReader::new();
            let (a, b) = bytes.split_at(split.min(bytes.len()));
            reader.push(a);
            reader.push(b);
            for _ in 0..700 {
                if reader.next_frame().is_none() { break; }
            }
        }

        #[test]
        fn frames_round_trip(op in 8u8..=0x56, body in proptest::collection::vec(proptest::num::u8::ANY, 0..2000)) {
            let mut reader = FrameReader::new();
            reader.push(&emit(op, &body).unwrap());
            proptest::prop_assert_eq!(reader.next_frame(), Some(Ok(Frame { opcode: op, body })));
        }
    }
}
