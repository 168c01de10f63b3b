//! Downloads: the `svc_download` records (in-band blocks, end of file, failure, HTTP redirect)
//! and the reliable client commands that drive them.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::msg::{MsgError, MsgReader, MsgWriter};

/// The service opcode of a download record.
pub const SVC_DOWNLOAD: u8 = 6;
/// Largest in-band block.
pub const MAX_BLOCK: usize = 2048;
/// Blocks the server keeps unacknowledged.
pub const WINDOW: usize = 8;

/// Why a download record or transfer was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownloadError {
    Msg(MsgError),
    /// A block length outside 0..2,048.
    BadBlockLength(i16),
    /// More data than the declared size.
    Oversize {
        declared: usize,
    },
    /// A block other than the next expected one (stock asks for it again).
    OutOfOrder {
        expected: u16,
        received: i16,
    },
}

impl fmt::Display for DownloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Msg(e) => write!(f, "download record: {e}"),
            Self::BadBlockLength(n) => write!(f, "block length {n} outside 0..2048"),
            Self::Oversize { declared } => {
                write!(f, "more data than the declared {declared} bytes")
            }
            Self::OutOfOrder { expected, received } => {
                write!(f, "block {received} while {expected} was expected")
            }
        }
    }
}

impl core::error::Error for DownloadError {}

impl From<MsgError> for DownloadError {
    fn from(e: MsgError) -> Self {
        Self::Msg(e)
    }
}

/// One `svc_download` record (after its opcode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadRecord {
    /// An in-band block; block 0 carries the total size. Zero-length data ends the file.
    Block {
        number: u16,
        total_size: Option<i32>,
        data: Vec<u8>,
    },
    /// Block 0 with a negative size: the server could not send the file.
    Failure { error: String },
    /// Block -1: fetch the file over HTTP instead.
    Redirect {
        url: String,
        size: i32,
        /// Bit 0: disconnect first; bit 1: open the URL and quit.
        flags: i32,
    },
}

impl DownloadRecord {
    /// Writes the record, opcode first.
    pub fn write(&self, w: &mut MsgWriter) {
        w.write_byte(SVC_DOWNLOAD);
        match self {
            Self::Block {
                number,
                total_size,
                data,
            } => {
                w.write_short(*number as i16);
                if *number == 0 {
                    w.write_long(total_size.unwrap_or(data.len() as i32));
                }
                w.write_short(data.len().min(MAX_BLOCK) as i16);
                w.write_data(&data[..data.len().min(MAX_BLOCK)]);
            }
            Self::Failure { error } => {
                w.write_short(0);
                w.write_long(-1);
                w.write_string(error.as_bytes());
            }
            Self::Redirect { url, size, flags } => {
                w.write_short(-1);
                w.write_string(url.as_bytes());
                w.write_long(*size);
                w.write_long(*flags);
            }
        }
    }

    /// Reads a record whose opcode the caller has consumed.
    pub fn read(r: &mut MsgReader<'_>) -> Result<Self, DownloadError> {
        let number = r.read_short()?;
        if number == -1 {
            return Ok(Self::Redirect {
                url: r.read_string()?,
                size: r.read_long()?,
                flags: r.read_long()?,
            });
        }
        let total_size = if number == 0 {
            let size = r.read_long()?;
            // Any negative size introduces the error string, not only -1.
            if size < 0 {
                return Ok(Self::Failure {
                    error: r.read_string()?,
                });
            }
            Some(size)
        } else {
            None
        };
        let length = r.read_short()?;
        if !(0..=MAX_BLOCK as i16).contains(&length) {
            return Err(DownloadError::BadBlockLength(length));
        }
        Ok(Self::Block {
            number: number as u16,
            total_size,
            data: r.read_data(length as usize)?.to_vec(),
        })
    }
}

/// A reliable client command about downloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadCommand {
    /// Close any transfer and ask for a server-relative file.
    Download(String),
    /// Acknowledge the next expected block.
    NextBlock(u16),
    /// Restart from the current acknowledged block.
    Retransmit(u16),
    Stop,
    /// The download set is complete: send a fresh gamestate.
    Done,
    /// `wwwdl ack|done|fail|chkfail|bbl8r`.
    Www(String),
}

impl fmt::Display for DownloadCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Download(file) => write!(f, "download {file}"),
            Self::NextBlock(n) => write!(f, "nextdl {n}"),
            Self::Retransmit(n) => write!(f, "retransdl {n}"),
            Self::Stop => f.write_str("stopdl"),
            Self::Done => f.write_str("donedl"),
            Self::Www(word) => write!(f, "wwwdl {word}"),
        }
    }
}

impl DownloadCommand {
    /// Parses a command's text; `None` for any other command.
    pub fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        let verb = words.next()?;
        let arg = words.next();
        Some(match (verb, arg) {
            ("download", Some(file)) => Self::Download(file.to_string()),
            ("nextdl", Some(n)) => Self::NextBlock(n.parse().ok()?),
            ("retransdl", Some(n)) => Self::Retransmit(n.parse().ok()?),
            ("stopdl", _) => Self::Stop,
            ("donedl", _) => Self::Done,
            ("wwwdl", Some(word)) => Self::Www(word.to_string()),
            _ => return None,
        })
    }
}

/// The client side of one in-band transfer: blocks in order, each acknowledged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transfer {
    next: u16,
    declared: Option<usize>,
    data: Vec<u8>,
    done: bool,
}

impl Transfer {
    /// Takes one block; returns the acknowledgement to send. An out-of-order block is refused
    /// (the caller asks for a retransmission from `next`).
    pub fn block(
        &mut self,
        number: u16,
        total_size: Option<i32>,
        data: &[u8],
    ) -> Result<DownloadCommand, DownloadError> {
        if number != self.next {
            return Err(DownloadError::OutOfOrder {
                expected: self.next,
                received: number as i16,
            });
        }
        if let Some(size) = total_size {
            self.declared = Some(size.max(0) as usize);
        }
        if let Some(declared) = self.declared {
            if self.data.len() + data.len() > declared {
                return Err(DownloadError::Oversize { declared });
            }
        }
        self.data.extend_from_slice(data);
        self.done = data.is_empty();
        self.next = self.next.wrapping_add(1);
        Ok(DownloadCommand::NextBlock(number))
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next block expected (for `retransdl`).
    pub fn expected(&self) -> u16 {
        self.next
    }

    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// Bytes received so far.
    pub fn received(&self) -> usize {
        self.data.len()
    }

    /// The size block 0 declared.
    pub fn declared(&self) -> Option<usize> {
        self.declared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn written(record: &DownloadRecord) -> Vec<u8> {
        let mut w = MsgWriter::new();
        record.write(&mut w);
        w.into_bytes()
    }

    fn read(bytes: &[u8]) -> Result<DownloadRecord, DownloadError> {
        let mut r = MsgReader::new(bytes);
        assert_eq!(r.read_byte(), Ok(SVC_DOWNLOAD));
        DownloadRecord::read(&mut r)
    }

    #[test]
    fn golden_records_both_ways() {
        let first = DownloadRecord::Block {
            number: 0,
            total_size: Some(5),
            data: b"abc".to_vec(),
        };
        let golden = [6, 0, 0, 5, 0, 0, 0, 3, 0, b'a', b'b', b'c'];
        assert_eq!(written(&first), golden);
        assert_eq!(read(&golden), Ok(first));
        let later = DownloadRecord::Block {
            number: 1,
            total_size: None,
            data: b"de".to_vec(),
        };
        let golden = [6, 1, 0, 2, 0, b'd', b'e'];
        assert_eq!(written(&later), golden);
        assert_eq!(read(&golden), Ok(later));
        let eof = [6, 2, 0, 0, 0];
        assert_eq!(
            read(&eof),
            Ok(DownloadRecord::Block {
                number: 2,
                total_size: None,
                data: vec![]
            })
        );
        let failure = DownloadRecord::Failure {
            error: "File not found".into(),
        };
        let mut golden = vec![6, 0, 0, 0xff, 0xff, 0xff, 0xff];
        golden.extend_from_slice(b"File not found\0");
        assert_eq!(written(&failure), golden);
        assert_eq!(read(&golden), Ok(failure));
        // Any negative size is a failure.
        assert!(matches!(
            read(&[6, 0, 0, 0xfe, 0xff, 0xff, 0xff, b'x', 0]),
            Ok(DownloadRecord::Failure { .. })
        ));
        let redirect = DownloadRecord::Redirect {
            url: "http://example.invalid/uo/map.pk3".into(),
            size: 1000,
            flags: 1,
        };
        let mut golden = vec![6, 0xff, 0xff];
        golden.extend_from_slice(b"http://example.invalid/uo/map.pk3\0");
        golden.extend_from_slice(&[0xe8, 0x03, 0, 0, 1, 0, 0, 0]);
        assert_eq!(written(&redirect), golden);
        assert_eq!(read(&golden), Ok(redirect));
    }

    #[test]
    fn hostile_records_are_refused() {
        assert_eq!(
            read(&[6, 1, 0, 0x01, 0x08]),
            Err(DownloadError::BadBlockLength(2049))
        );
        assert_eq!(
            read(&[6, 1, 0, 0xff, 0xff]),
            Err(DownloadError::BadBlockLength(-1))
        );
        assert_eq!(
            read(&[6, 1, 0, 4, 0, 1]),
            Err(DownloadError::Msg(MsgError::Overrun))
        );
    }

    #[test]
    fn commands_print_and_parse() {
        for command in [
            DownloadCommand::Download("maps/mp/custom.pk3".into()),
            DownloadCommand::NextBlock(3),
            DownloadCommand::Retransmit(7),
            DownloadCommand::Stop,
            DownloadCommand::Done,
            DownloadCommand::Www("chkfail".into()),
        ] {
            assert_eq!(DownloadCommand::parse(&command.to_string()), Some(command));
        }
        assert_eq!(DownloadCommand::parse("say hi"), None);
        assert_eq!(DownloadCommand::parse("nextdl x"), None);
    }

    #[test]
    fn a_transfer_takes_blocks_in_order() {
        let mut t = Transfer::default();
        assert_eq!(
            t.block(0, Some(5), b"abc"),
            Ok(DownloadCommand::NextBlock(0))
        );
        assert_eq!(
            t.block(2, None, b"x"),
            Err(DownloadError::OutOfOrder {
                expected: 1,
                received: 2
            })
        );
        assert_eq!(
            t.block(1, None, b"defg"),
            Err(DownloadError::Oversize { declared: 5 })
        );
        assert_eq!(t.block(1, None, b"de"), Ok(DownloadCommand::NextBlock(1)));
        assert!(!t.is_done());
        assert_eq!(t.block(2, None, b""), Ok(DownloadCommand::NextBlock(2)));
        assert!(t.is_done());
        assert_eq!((t.received(), t.declared()), (5, Some(5)));
        assert_eq!(t.into_data(), b"abcde");
    }

    proptest::proptest! {
        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = DownloadRecord::read(&mut MsgReader::new(&bytes));
        }
    }
}
