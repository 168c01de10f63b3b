//! The compactor: packs each finished hour of samples into its day's chunk (one per series),
//! folds it into the period's 5-minute and hourly chunks, and drops what is past its retention. It runs on
//! the writer's thread between batches, an hour per transaction, so polls queue for at most
//! that long and pages (on their own connections) never wait.

use std::collections::BTreeMap;

use super::pack::{self, Bucket, Sample};
use super::{Chunk, Resolution, Result, Store, DAY_MS, HOUR_MS};

/// How long each resolution is kept; `None` keeps it for ever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub raw_ms: Option<u64>,
    pub five_minutes_ms: Option<u64>,
    pub hour_ms: Option<u64>,
    pub sessions_ms: Option<u64>,
    pub map_changes_ms: Option<u64>,
    /// Matches with their kills (each name's figures and ratings stay for ever).
    pub matches_ms: Option<u64>,
}

impl Default for Retention {
    /// Raw samples a week, 5-minute buckets 400 days, hours for ever, sessions 90 days (names
    /// keep their last sighting for ever), map changes a month (a busy server changes map 50
    /// to 70 times a day), matches a year.
    fn default() -> Self {
        Self {
            raw_ms: Some(7 * DAY_MS),
            five_minutes_ms: Some(400 * DAY_MS),
            hour_ms: None,
            sessions_ms: Some(90 * DAY_MS),
            map_changes_ms: Some(30 * DAY_MS),
            matches_ms: Some(365 * DAY_MS),
        }
    }
}

/// Packs every hour that ended before the current one. Returns the hours packed.
pub fn pack_finished(store: &mut dyn Store, now_ms: u64) -> Result<usize> {
    let current = now_ms - now_ms % HOUR_MS;
    let mut packed = 0;
    while let Some(oldest) = store.oldest_sample()? {
        let hour = oldest - oldest % HOUR_MS;
        if hour >= current {
            break;
        }
        pack_hour(store, hour)?;
        packed += 1;
    }
    Ok(packed)
}

/// Packs the samples of one hour (and any older stragglers) for every series.
pub fn pack_hour(store: &mut dyn Store, hour: u64) -> Result<()> {
    let end = hour + HOUR_MS;
    let mut by_series: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
    for (series, sample) in store.samples(None, 0, end)? {
        by_series.entry(series).or_default().push(sample);
    }
    let mut chunks = Vec::with_capacity(by_series.len() * 3);
    for (series, samples) in by_series {
        // Stragglers from before `hour` go to their own hour's chunk.
        let mut hours: BTreeMap<u64, Vec<Sample>> = BTreeMap::new();
        for s in samples {
            hours
                .entry(s.at_ms - s.at_ms % HOUR_MS)
                .or_default()
                .push(s);
        }
        for (start, samples) in hours {
            chunks.extend(merge_hour(store, &series, start, samples)?);
        }
    }
    store.pack(&chunks, end)
}

/// The raw, 5-minute and hourly chunks with one hour's samples added to what they held.
fn merge_hour(
    store: &mut dyn Store,
    series: &str,
    hour: u64,
    samples: Vec<Sample>,
) -> Result<Vec<Chunk>> {
    let mut raw = samples.clone();
    let day = Resolution::Raw.chunk_start(hour);
    for old in store.chunks(series, Resolution::Raw, day, day + 1)? {
        raw.extend(pack::unpack_samples(old.start_ms, &old.data)?);
    }
    raw.sort_by_key(|s| s.at_ms);
    let mut chunks = vec![Chunk {
        series: series.to_owned(),
        resolution: Resolution::Raw,
        start_ms: day,
        data: pack::pack_samples(day, &raw),
    }];
    // The coarser chunks already hold the old samples: only the new ones are added.
    for resolution in [Resolution::FiveMinutes, Resolution::Hour] {
        let step = resolution.step_ms().unwrap_or(HOUR_MS);
        let start = resolution.chunk_start(hour);
        let mut buckets = pack::bucket_samples(&samples, step);
        for old in store.chunks(series, resolution, start, start + 1)? {
            buckets.extend(pack::unpack_buckets(old.start_ms, step, &old.data)?);
        }
        let buckets = pack::fold(buckets, step);
        chunks.push(Chunk {
            series: series.to_owned(),
            resolution,
            start_ms: start,
            data: pack::pack_buckets(start, step, &buckets),
        });
    }
    Ok(chunks)
}

/// Drops whatever is past its retention. Returns the chunks and sessions dropped.
pub fn expire(store: &mut dyn Store, now_ms: u64, retention: &Retention) -> Result<u64> {
    let mut dropped = 0;
    for (resolution, keep) in [
        (Resolution::Raw, retention.raw_ms),
        (Resolution::FiveMinutes, retention.five_minutes_ms),
        (Resolution::Hour, retention.hour_ms),
    ] {
        if let Some(keep) = keep {
            dropped += store.expire(resolution, now_ms.saturating_sub(keep))?;
        }
    }
    if let Some(keep) = retention.sessions_ms {
        dropped += store.expire_sessions(now_ms.saturating_sub(keep))?;
    }
    if let Some(keep) = retention.map_changes_ms {
        dropped += store.expire_map_changes(now_ms.saturating_sub(keep))?;
    }
    if let Some(keep) = retention.matches_ms {
        dropped += super::matches::expire(store.exec()?, now_ms.saturating_sub(keep))?;
    }
    Ok(dropped)
}

/// Buckets of `step_ms` for one series over `[from_ms, to_ms)`, from the finest stored
/// resolution no finer than the step needs, plus the samples not packed yet.
pub fn buckets(
    store: &mut dyn Store,
    series: &str,
    from_ms: u64,
    to_ms: u64,
    step_ms: u64,
) -> Result<Vec<Bucket>> {
    let resolution = if step_ms >= HOUR_MS {
        Resolution::Hour
    } else if step_ms >= 300_000 {
        Resolution::FiveMinutes
    } else {
        Resolution::Raw
    };
    let chunk_ms = resolution.chunk_ms();
    let mut fine: Vec<Bucket> = Vec::new();
    for chunk in store.chunks(
        series,
        resolution,
        from_ms.saturating_sub(chunk_ms - 1),
        to_ms,
    )? {
        match resolution.step_ms() {
            Some(step) => fine.extend(pack::unpack_buckets(chunk.start_ms, step, &chunk.data)?),
            None => fine.extend(
                pack::unpack_samples(chunk.start_ms, &chunk.data)?
                    .iter()
                    .map(|s| Bucket::of(s, s.at_ms)),
            ),
        }
    }
    fine.extend(
        store
            .samples(Some(series), from_ms, to_ms)?
            .iter()
            .map(|(_, s)| Bucket::of(s, s.at_ms)),
    );
    fine.retain(|b| b.start_ms >= from_ms && b.start_ms < to_ms);
    Ok(pack::fold(fine, step_ms))
}
