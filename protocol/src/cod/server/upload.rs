//! The server side of one in-band download: 2,048-byte blocks numbered from zero, then a
//! zero-length end-of-file block; at most eight blocks unacknowledged; a restart from the oldest
//! unacknowledged block after 1,000 ms without an acknowledgement.

use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::cod::download::{DownloadRecord, MAX_BLOCK};

/// Blocks in flight before the server waits for `nextdl`.
pub const WINDOW: u16 = 8;
/// Silence after a full window before transmission restarts.
pub const RESTART_MS: u64 = 1000;

#[derive(Clone, Debug)]
pub struct Upload {
    data: Arc<Vec<u8>>,
    /// The oldest block not yet acknowledged.
    acked: u16,
    /// The next block to transmit.
    next: u16,
    last_sent: u64,
}

impl Upload {
    pub fn new(data: Arc<Vec<u8>>, now: u64) -> Self {
        Self {
            data,
            acked: 0,
            next: 0,
            last_sent: now,
        }
    }

    /// Data blocks plus the end-of-file block.
    fn blocks(&self) -> u16 {
        (self.data.len().div_ceil(MAX_BLOCK) + 1).min(usize::from(u16::MAX)) as u16
    }

    fn block(&self, number: u16) -> DownloadRecord {
        let start = (usize::from(number) * MAX_BLOCK).min(self.data.len());
        let end = (start + MAX_BLOCK).min(self.data.len());
        DownloadRecord::Block {
            number,
            total_size: (number == 0).then_some(self.data.len() as i32),
            data: self.data[start..end].to_vec(),
        }
    }

    /// The block to put in the next message, if the window allows one.
    pub fn next_record(&mut self, now: u64) -> Option<DownloadRecord> {
        let limit = self.acked.saturating_add(WINDOW).min(self.blocks());
        if self.next >= limit && now.saturating_sub(self.last_sent) > RESTART_MS {
            self.next = self.acked;
        }
        if self.next >= limit {
            return None;
        }
        let record = self.block(self.next);
        self.next += 1;
        self.last_sent = now;
        Some(record)
    }

    /// `nextdl N`: returns true once the end-of-file block is acknowledged.
    pub fn acknowledge(&mut self, number: u16) -> bool {
        if number == self.acked {
            self.acked = self.acked.saturating_add(1);
        }
        self.acked >= self.blocks()
    }

    /// `retransdl`: send again from the oldest unacknowledged block.
    pub fn restart(&mut self) {
        self.next = self.acked;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn numbers(upload: &mut Upload, now: u64) -> Vec<u16> {
        core::iter::from_fn(|| upload.next_record(now))
            .map(|r| match r {
                DownloadRecord::Block { number, .. } => number,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_window_of_eight_then_a_restart_after_silence() {
        let mut upload = Upload::new(Arc::new(vec![7; MAX_BLOCK * 10 + 1]), 0);
        assert_eq!(numbers(&mut upload, 0), (0..8).collect::<Vec<_>>());
        assert!(!upload.acknowledge(0));
        assert_eq!(numbers(&mut upload, 10), [8]);
        assert_eq!(
            numbers(&mut upload, 1000),
            [0u16; 0],
            "not yet 1,000 ms of silence"
        );
        assert_eq!(numbers(&mut upload, 1011), (1..9).collect::<Vec<_>>());
        for n in 1..11 {
            assert!(!upload.acknowledge(n));
            upload.next_record(2000);
        }
        // Block 10 holds the last byte; block 11 is the empty end-of-file block.
        assert!(matches!(
            upload.block(10),
            DownloadRecord::Block { ref data, .. } if data.len() == 1
        ));
        assert!(matches!(
            upload.block(11),
            DownloadRecord::Block { ref data, .. } if data.is_empty()
        ));
        assert!(upload.acknowledge(11));
    }

    #[test]
    fn an_empty_file_is_one_end_of_file_block_with_its_size() {
        let mut upload = Upload::new(Arc::new(Vec::new()), 0);
        assert_eq!(
            upload.next_record(0),
            Some(DownloadRecord::Block {
                number: 0,
                total_size: Some(0),
                data: vec![]
            })
        );
        assert!(upload.acknowledge(0));
    }
}
