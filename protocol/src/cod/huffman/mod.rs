//! Huffman coding: the adaptive codec of the `connect` tail, and the fixed tree of message bodies.

pub mod adaptive;
pub mod fixed;
pub mod tree;

use core::fmt;

/// Why a compressed stream was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HuffmanError {
    /// The adaptive stream is shorter than its 2-byte length header.
    MissingLength,
    /// The declared or decoded length exceeds the caller's bound.
    TooLong { limit: usize },
    /// The input ended before the declared number of symbols.
    Truncated,
    /// The input is longer than a 16-bit length can declare.
    InputTooLong,
    /// A fixed-tree stream decoded the NYT leaf, which no stock encoder emits.
    UnexpectedNyt,
}

impl fmt::Display for HuffmanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingLength => f.write_str("compressed data shorter than its length header"),
            Self::TooLong { limit } => write!(f, "decompressed data longer than {limit} bytes"),
            Self::Truncated => f.write_str("compressed data ends before the declared length"),
            Self::InputTooLong => f.write_str("more than 65,535 bytes to compress"),
            Self::UnexpectedNyt => f.write_str("fixed-tree stream holds the NYT code"),
        }
    }
}

impl core::error::Error for HuffmanError {}

/// Appends bits LSB-first, the order both codecs emit.
#[derive(Default)]
struct BitSink {
    bytes: alloc::vec::Vec<u8>,
    bits: usize,
}

impl BitSink {
    fn push(&mut self, bit: bool) {
        if self.bits.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= 1 << (self.bits % 8);
        }
        self.bits += 1;
    }
}

/// Reads bits LSB-first; past the end it reads zeros, as stock reads its zeroed buffer.
struct BitSource<'a> {
    bytes: &'a [u8],
    bit: usize,
}

impl BitSource<'_> {
    fn next(&mut self) -> bool {
        let byte = self.bytes.get(self.bit >> 3).copied().unwrap_or(0);
        let bit = (byte >> (self.bit & 7)) & 1 == 1;
        self.bit += 1;
        bit
    }
}
