//! The packed form of history: samples and min/avg/max buckets, one chunk per series and
//! period (an hour of samples, a day of buckets), stored column by column as varints and then
//! deflated. An empty server's day packs to a few bytes, so a year of 2,000 servers stays near
//! the budget (README, "History").

use std::io::{Read, Write};

use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;

use super::StoreError;

/// One poll of one server (or one tally of a total series).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub at_ms: u64,
    /// Clients the server counted, bots included.
    pub clients: u16,
    pub bots: u16,
    pub max_clients: u16,
    /// Whether it answered: a poll that did not is downtime, never an empty server.
    pub up: bool,
}

impl Sample {
    pub fn humans(&self) -> u16 {
        self.clients.saturating_sub(self.bots)
    }
}

/// Every poll that fell in one interval: how many there were, how many were answered, and the
/// humans' min, max and sum over the answered ones. Buckets merge exactly, so downsampling a
/// day of 5-minute buckets to hours gives what hours taken from the samples would.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bucket {
    pub start_ms: u64,
    pub polls: u32,
    pub up: u32,
    pub min: u16,
    pub max: u16,
    pub sum: u64,
    pub bots_max: u16,
    pub max_clients: u16,
}

impl Bucket {
    /// A bucket of one sample.
    pub fn of(sample: &Sample, start_ms: u64) -> Self {
        let humans = sample.humans();
        Self {
            start_ms,
            polls: 1,
            up: u32::from(sample.up),
            min: if sample.up { humans } else { 0 },
            max: if sample.up { humans } else { 0 },
            sum: if sample.up { u64::from(humans) } else { 0 },
            bots_max: if sample.up { sample.bots } else { 0 },
            max_clients: sample.max_clients,
        }
    }

    /// Adds another bucket's polls (of the same interval or a finer one inside it).
    pub fn merge(&mut self, other: &Bucket) {
        if other.up > 0 {
            if self.up == 0 {
                self.min = other.min;
                self.max = other.max;
            } else {
                self.min = self.min.min(other.min);
                self.max = self.max.max(other.max);
            }
            self.max_clients = other.max_clients.max(self.max_clients);
        } else if self.polls == 0 {
            self.max_clients = other.max_clients;
        }
        self.polls += other.polls;
        self.up += other.up;
        self.sum += other.sum;
        self.bots_max = self.bots_max.max(other.bots_max);
    }

    /// The humans' average over the answered polls; `None` when none answered (downtime).
    pub fn avg(&self) -> Option<f64> {
        (self.up > 0).then(|| self.sum as f64 / f64::from(self.up))
    }
}

/// Folds samples or buckets into buckets of `step_ms`, aligned to the Unix epoch, in time order.
pub fn fold(buckets: impl IntoIterator<Item = Bucket>, step_ms: u64) -> Vec<Bucket> {
    let mut out: std::collections::BTreeMap<u64, Bucket> = std::collections::BTreeMap::new();
    for b in buckets {
        let start = b.start_ms - b.start_ms % step_ms;
        let into = out.entry(start).or_insert(Bucket {
            start_ms: start,
            ..Bucket::default()
        });
        into.merge(&b);
    }
    out.into_values().collect()
}

/// Samples as buckets of `step_ms`.
pub fn bucket_samples(samples: &[Sample], step_ms: u64) -> Vec<Bucket> {
    fold(samples.iter().map(|s| Bucket::of(s, s.at_ms)), step_ms)
}

const VERSION: u8 = 1;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn varint(&mut self) -> Result<u64, StoreError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(StoreError::Corrupt("chunk ends inside a number"));
            };
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(StoreError::Corrupt("number longer than 64 bits"))
    }

    fn column(&mut self, n: usize) -> Result<Vec<u64>, StoreError> {
        (0..n).map(|_| self.varint()).collect()
    }

    fn small(&mut self, n: usize) -> Result<Vec<u16>, StoreError> {
        self.column(n)?
            .into_iter()
            .map(|v| u16::try_from(v).map_err(|_| StoreError::Corrupt("count out of range")))
            .collect()
    }
}

fn deflate(columns: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(vec![VERSION], Compression::default());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(columns);
    encoder.finish().unwrap_or_default()
}

/// The most a chunk may inflate to: a day of 1-second samples with room to spare.
const MAX_INFLATED: u64 = 4 << 20;

fn inflate(chunk: &[u8]) -> Result<Vec<u8>, StoreError> {
    match chunk.split_first() {
        Some((&VERSION, body)) => {
            let mut out = Vec::new();
            DeflateDecoder::new(body)
                .take(MAX_INFLATED)
                .read_to_end(&mut out)
                .map_err(|_| StoreError::Corrupt("chunk does not inflate"))?;
            Ok(out)
        }
        Some(_) => Err(StoreError::Corrupt("unknown chunk version")),
        None => Err(StoreError::Corrupt("empty chunk")),
    }
}

/// Inflates a chunk and reads how many rows it holds (no more than it has bytes, since every
/// value takes one at least): the bytes, the count, and where the columns begin.
fn open(chunk: &[u8]) -> Result<(Vec<u8>, usize, usize), StoreError> {
    let bytes = inflate(chunk)?;
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
    };
    let n = usize::try_from(r.varint()?).unwrap_or(usize::MAX);
    if n > bytes.len() {
        return Err(StoreError::Corrupt("more rows than bytes"));
    }
    let at = r.at;
    Ok((bytes, n, at))
}

/// Packs samples (in time order, none before `start_ms`, which is on a whole second). Times
/// are kept to the second: a poll's milliseconds are its round trip's jitter, which would cost
/// more than everything else a sample holds, and no chart can show them.
pub fn pack_samples(start_ms: u64, samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::with_capacity(samples.len() * 5 + 4);
    put_varint(&mut out, samples.len() as u64);
    let mut prev = start_ms / 1000;
    for s in samples {
        let at = s.at_ms / 1000;
        put_varint(&mut out, at.saturating_sub(prev));
        prev = at.max(prev);
    }
    for column in [
        |s: &Sample| u64::from(s.clients),
        |s: &Sample| u64::from(s.bots),
        |s: &Sample| u64::from(s.max_clients),
        |s: &Sample| u64::from(s.up),
    ] {
        for s in samples {
            put_varint(&mut out, column(s));
        }
    }
    deflate(&out)
}

pub fn unpack_samples(start_ms: u64, chunk: &[u8]) -> Result<Vec<Sample>, StoreError> {
    let (bytes, n, at) = open(chunk)?;
    let mut r = Reader { bytes: &bytes, at };
    let deltas = r.column(n)?;
    let (clients, bots, max_clients, up) = (r.small(n)?, r.small(n)?, r.small(n)?, r.small(n)?);
    let mut at = start_ms / 1000;
    (0..n)
        .map(|i| {
            // A time past what a millisecond clock can count is a corrupt chunk, not a sample
            // (saturating it once made a chunk that did not pack back to itself).
            at = at
                .checked_add(deltas[i])
                .filter(|s| s.checked_mul(1000).is_some())
                .ok_or(StoreError::Corrupt("sample time out of range"))?;
            Ok(Sample {
                at_ms: at * 1000,
                clients: clients[i],
                bots: bots[i],
                max_clients: max_clients[i],
                up: up[i] != 0,
            })
        })
        .collect()
}

/// Packs buckets of `step_ms` (in time order, none before `start_ms`).
pub fn pack_buckets(start_ms: u64, step_ms: u64, buckets: &[Bucket]) -> Vec<u8> {
    let mut out = Vec::with_capacity(buckets.len() * 8 + 4);
    put_varint(&mut out, buckets.len() as u64);
    let mut prev = 0;
    for b in buckets {
        let index = b.start_ms.saturating_sub(start_ms) / step_ms;
        put_varint(&mut out, index.saturating_sub(prev));
        prev = index;
    }
    // Small numbers pack small: the minimum as its change from the bucket before (zigzag),
    // the spread above it, and the sum as its excess over `min * up`.
    let mut prev = 0i64;
    for b in buckets {
        let delta = i64::from(b.min) - prev;
        prev = i64::from(b.min);
        put_varint(&mut out, ((delta << 1) ^ (delta >> 63)) as u64);
    }
    let columns: [fn(&Bucket) -> u64; 6] = [
        |b| u64::from(b.polls),
        |b| u64::from(b.up),
        |b| u64::from(b.max.saturating_sub(b.min)),
        |b| b.sum.saturating_sub(u64::from(b.min) * u64::from(b.up)),
        |b| u64::from(b.bots_max),
        |b| u64::from(b.max_clients),
    ];
    for column in columns {
        for b in buckets {
            put_varint(&mut out, column(b));
        }
    }
    deflate(&out)
}

pub fn unpack_buckets(
    start_ms: u64,
    step_ms: u64,
    chunk: &[u8],
) -> Result<Vec<Bucket>, StoreError> {
    let (bytes, n, at) = open(chunk)?;
    let mut r = Reader { bytes: &bytes, at };
    let steps = r.column(n)?;
    let mut prev = 0i64;
    let min = r
        .column(n)?
        .into_iter()
        .map(|zigzag| {
            prev = prev.wrapping_add(((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64));
            u16::try_from(prev).map_err(|_| StoreError::Corrupt("minimum out of range"))
        })
        .collect::<Result<Vec<u16>, StoreError>>()?;
    let polls = r.column(n)?;
    let up = r.column(n)?;
    let spread = r.small(n)?;
    let excess = r.column(n)?;
    let bots_max = r.small(n)?;
    let max_clients = r.small(n)?;
    let count = |v: u64| u32::try_from(v).map_err(|_| StoreError::Corrupt("count out of range"));
    let mut index = 0u64;
    // Values past their type's range are a corrupt chunk (saturating them once made chunks
    // that did not pack back to themselves).
    let corrupt = |what| StoreError::Corrupt(what);
    (0..n)
        .map(|i| {
            index = index
                .checked_add(steps[i])
                .ok_or(corrupt("bucket index out of range"))?;
            let start = index
                .checked_mul(step_ms)
                .and_then(|offset| start_ms.checked_add(offset))
                .ok_or(corrupt("bucket time out of range"))?;
            let sum = u64::from(min[i])
                .checked_mul(up[i])
                .and_then(|floor| excess[i].checked_add(floor))
                .ok_or(corrupt("bucket sum out of range"))?;
            Ok(Bucket {
                start_ms: start,
                polls: count(polls[i])?,
                up: count(up[i])?,
                min: min[i],
                max: min[i]
                    .checked_add(spread[i])
                    .ok_or(corrupt("bucket maximum out of range"))?,
                sum,
                bots_max: bots_max[i],
                max_clients: max_clients[i],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at_ms: u64, clients: u16, up: bool) -> Sample {
        Sample {
            at_ms,
            clients,
            bots: 1,
            max_clients: 20,
            up,
        }
    }

    #[test]
    fn samples_round_trip() {
        let samples: Vec<Sample> = (0..180)
            .map(|i| {
                sample(
                    3_600_000 + i * 20_000 + i % 7 * 1000,
                    (i % 13) as u16,
                    i % 50 != 3,
                )
            })
            .collect();
        let chunk = pack_samples(3_600_000, &samples);
        assert_eq!(unpack_samples(3_600_000, &chunk).unwrap(), samples);
        // Milliseconds are dropped, seconds kept.
        let jittered = [sample(3_600_000 + 20_417, 1, true)];
        let back = unpack_samples(3_600_000, &pack_samples(3_600_000, &jittered)).unwrap();
        assert_eq!(back[0].at_ms, 3_620_000);
    }

    #[test]
    fn buckets_round_trip_and_an_empty_day_is_tiny() {
        let day: Vec<Bucket> = (0..288)
            .map(|i| Bucket {
                start_ms: i * 300_000,
                polls: 15,
                up: 15,
                ..Bucket::default()
            })
            .collect();
        let chunk = pack_buckets(0, 300_000, &day);
        assert!(chunk.len() < 40, "{} bytes", chunk.len());
        assert_eq!(unpack_buckets(0, 300_000, &chunk).unwrap(), day);
        let sparse = vec![
            Bucket {
                start_ms: 600_000,
                polls: 3,
                up: 2,
                min: 4,
                max: 9,
                sum: 13,
                bots_max: 2,
                max_clients: 24,
            },
            Bucket {
                start_ms: 86_100_000,
                polls: 1,
                ..Bucket::default()
            },
        ];
        let chunk = pack_buckets(0, 300_000, &sparse);
        assert_eq!(unpack_buckets(0, 300_000, &chunk).unwrap(), sparse);
    }

    /// Folding is checked against a series worked out by hand.
    #[test]
    fn folding_matches_the_hand_computed_series() {
        // Polls every 100 s over 10 minutes: humans (clients - 1 bot) 3, 5, down, 7, 1, 2.
        let samples = [
            sample(0, 4, true),
            sample(100_000, 6, true),
            sample(200_000, 0, false),
            sample(300_000, 8, true),
            sample(400_000, 2, true),
            sample(500_000, 3, true),
        ];
        let five = bucket_samples(&samples, 300_000);
        assert_eq!(five.len(), 2);
        // 0-300 s: polls 3, answered 2, humans 3 and 5.
        assert_eq!(
            (
                five[0].polls,
                five[0].up,
                five[0].min,
                five[0].max,
                five[0].sum
            ),
            (3, 2, 3, 5, 8)
        );
        assert_eq!(five[0].avg(), Some(4.0));
        // 300-600 s: humans 7, 1, 2.
        assert_eq!((five[1].min, five[1].max, five[1].sum), (1, 7, 10));
        let ten = fold(five, 600_000);
        assert_eq!(ten.len(), 1);
        assert_eq!(
            (ten[0].polls, ten[0].up, ten[0].min, ten[0].max),
            (6, 5, 1, 7)
        );
        assert_eq!(ten[0].avg(), Some(18.0 / 5.0));
        // A bucket with polls but no answer is downtime, not zero.
        let down = bucket_samples(&[sample(0, 0, false)], 300_000);
        assert_eq!(down[0].avg(), None);
    }

    proptest::proptest! {
        /// Whatever a damaged database holds, decoding answers an error or a value.
        #[test]
        fn any_chunk_decodes_without_panicking(body in proptest::collection::vec(0u8..=255, 0..600)) {
            let _ = unpack_samples(0, &body);
            let _ = unpack_buckets(0, 300_000, &body);
            // The same bytes as a well-formed deflate stream of garbage columns.
            let chunk = deflate(&body);
            let _ = unpack_samples(0, &chunk);
            let _ = unpack_buckets(0, 300_000, &chunk);
        }

        #[test]
        fn buckets_round_trip(raw in proptest::collection::vec((1u32..100, 0u16..64, 0u16..8, 0u64..200), 0..300)) {
            let buckets: Vec<Bucket> = raw
                .iter()
                .enumerate()
                .map(|(i, &(polls, min, spread, excess))| {
                    let up = polls / 2;
                    Bucket {
                        start_ms: i as u64 * 300_000,
                        polls,
                        up,
                        min,
                        max: min + spread,
                        sum: u64::from(min) * u64::from(up) + excess,
                        bots_max: spread,
                        max_clients: 64,
                    }
                })
                .collect();
            let chunk = pack_buckets(0, 300_000, &buckets);
            proptest::prop_assert_eq!(unpack_buckets(0, 300_000, &chunk).unwrap(), buckets);
        }
    }

    /// Found by the `history_chunk` fuzz target: a chunk whose time deltas run past what a
    /// millisecond clock can count once decoded to saturated times, which packed back to
    /// other bytes. It is corrupt.
    #[test]
    fn a_chunk_whose_times_run_past_the_clock_is_corrupt() {
        let crash = [
            0x01, 0x33, 0x14, 0x0b, 0xeb, 0x83, 0x01, 0xff, 0x14, 0x16, 0xcf, 0x08, 0x14, 0x14,
            0x25, 0x3b, 0x7a, 0xf4, 0x77, 0x77, 0x77, 0x77, 0x03, 0x00, 0xff, 0x00, 0x00, 0x14,
            0x14,
        ];
        let start = 1_700_000_000_000;
        assert!(matches!(
            unpack_samples(start, &crash),
            Err(StoreError::Corrupt("sample time out of range"))
        ));
        // Its samples and buckets, whatever else the fuzzer finds, pack back to themselves.
        for chunk in [&crash[..], &deflate(&crash)] {
            if let Ok(samples) = unpack_samples(start, chunk) {
                let again = unpack_samples(start, &pack_samples(start, &samples)).unwrap();
                assert_eq!(again, samples);
            }
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for junk in [&[][..], &[9, 1, 2], &[1, 0xff, 0xff], &[1]] {
            let _ = unpack_samples(0, junk);
            let _ = unpack_buckets(0, 300_000, junk);
        }
        assert!(unpack_samples(0, &[2]).is_err());
        let mut chunk = pack_buckets(0, 300_000, &[Bucket::default()]);
        chunk.truncate(chunk.len() / 2);
        assert!(unpack_buckets(0, 300_000, &chunk).is_err());
    }
}
