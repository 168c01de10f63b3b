//! Any bytes as a stored history chunk, read by the relay's own chunk codec (its source file,
//! `relay/src/store/pack.rs`, compiled here on its own so the fuzzer need not build the whole
//! relay): samples and buckets each decode to an error or to rows, never a panic, and rows that
//! decode pack and unpack again to themselves.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The one thing the codec takes from the store around it (`super::StoreError`): its error.
#[derive(Debug)]
#[allow(dead_code)]
pub enum StoreError {
    Corrupt(&'static str),
}

#[path = "../../relay/src/store/pack.rs"]
#[allow(dead_code)]
mod pack;

use pack::{pack_buckets, pack_samples, unpack_buckets, unpack_samples};

fuzz_target!(|data: &[u8]| {
    let (start_ms, step_ms) = (1_700_000_000_000, 300_000);
    if let Ok(samples) = unpack_samples(start_ms, data) {
        let again = unpack_samples(start_ms, &pack_samples(start_ms, &samples))
            .expect("packed samples unpack");
        assert_eq!(again, samples);
    }
    if let Ok(buckets) = unpack_buckets(start_ms, step_ms, data) {
        let again = unpack_buckets(start_ms, step_ms, &pack_buckets(start_ms, step_ms, &buckets))
            .expect("packed buckets unpack");
        assert_eq!(again, buckets);
    }
});
