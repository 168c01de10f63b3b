//! History answers built from a store: the same for the API and the command-line tools.

use std::collections::HashMap;

use protocol::relay_api::history::{
    self as api, MapMark, PlayerSeen, Point, Population, SeenServer, ServerHistory, Stay,
};
use protocol::relay_api::{Reachability, ServerInfo};

use crate::store::compact;
use crate::store::{self, Bucket, Result, Seen, Store, DAY_MS, HOUR_MS};

/// Unix day 0 was a Thursday; Monday is weekday 0.
fn weekday(t_ms: u64) -> usize {
    ((t_ms / DAY_MS + 3) % 7) as usize
}

fn point(b: &Bucket) -> Option<Point> {
    let avg = b.avg()?;
    Some(Point {
        t: b.start_ms,
        min: b.min,
        avg: ((avg * 10.0).round() / 10.0) as f32,
        max: b.max,
        slots: b.max_clients,
    })
}

/// The buckets' downtime: spans where polls went unanswered, joined when adjacent.
fn downtime(buckets: &[Bucket], step_ms: u64) -> Vec<(u64, u64)> {
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for b in buckets.iter().filter(|b| b.polls > 0 && b.up == 0) {
        match spans.last_mut() {
            Some(last) if last.1 == b.start_ms => last.1 = b.start_ms + step_ms,
            _ => spans.push((b.start_ms, b.start_ms + step_ms)),
        }
    }
    spans
}

/// The window a range covers, ending now and aligned to its step.
fn window(range: &str, now_ms: u64) -> Option<(u64, u64, u64)> {
    let (span, step) = api::range(range)?;
    let to = now_ms - now_ms % step + step;
    Some((to.saturating_sub(span), to, step))
}

/// A server's population over a range (`None`: no such range).
pub fn server_history(
    store: &mut dyn Store,
    addr: &str,
    range: &str,
    now_ms: u64,
) -> Result<Option<ServerHistory>> {
    let Some((from, to, step)) = window(range, now_ms) else {
        return Ok(None);
    };
    let buckets = compact::buckets(store, addr, from, to, step)?;
    // The busiest hours: the last four weeks, hour by hour.
    let week_from = now_ms - now_ms % HOUR_MS - 28 * DAY_MS;
    let hours = compact::buckets(store, addr, week_from, now_ms, HOUR_MS)?;
    let mut sums = vec![vec![(0.0f64, 0u32); 24]; 7];
    for h in &hours {
        if let Some(avg) = h.avg() {
            let cell = &mut sums[weekday(h.start_ms)][((h.start_ms % DAY_MS) / HOUR_MS) as usize];
            cell.0 += avg;
            cell.1 += 1;
        }
    }
    let week = sums
        .into_iter()
        .map(|day| {
            day.into_iter()
                .map(|(sum, n)| {
                    (n > 0).then(|| ((sum / f64::from(n) * 10.0).round() / 10.0) as f32)
                })
                .collect()
        })
        .collect();
    // Marks are drawn where they can be told apart: up to the 7-day range.
    let marks_to = if step <= 1_800_000 { to } else { from };
    let map_changes = store
        .map_changes(addr, from, marks_to)?
        .into_iter()
        .map(|c| MapMark {
            t: c.at_ms,
            map: c.map,
            gametype: c.gametype,
        })
        .collect();
    Ok(Some(ServerHistory {
        addr: addr.to_owned(),
        range: range.to_owned(),
        from_ms: from,
        to_ms: to,
        step_ms: step,
        points: buckets.iter().filter_map(point).collect(),
        downtime: downtime(&buckets, step),
        map_changes,
        week,
    }))
}

/// Every server's population together, and by gametype.
pub fn population(store: &mut dyn Store, range: &str, now_ms: u64) -> Result<Option<Population>> {
    let Some((from, to, step)) = window(range, now_ms) else {
        return Ok(None);
    };
    let points = |store: &mut dyn Store, series: &str| -> Result<Vec<Point>> {
        Ok(compact::buckets(store, series, from, to, step)?
            .iter()
            .filter_map(point)
            .collect())
    };
    let total = points(store, store::TOTAL)?;
    let mut gametypes = Vec::new();
    for series in store.series_names("gametype:")? {
        let name = series.trim_start_matches("gametype:").to_owned();
        let series_points = points(store, &series)?;
        if !series_points.is_empty() {
            gametypes.push((name, series_points));
        }
    }
    Ok(Some(Population {
        range: range.to_owned(),
        from_ms: from,
        to_ms: to,
        step_ms: step,
        total,
        gametypes,
    }))
}

/// Names seen whose plain, lower-case form contains `name`'s.
pub fn seen(store: &mut dyn Store, name: &str) -> Result<Vec<Seen>> {
    let key = store::name_key(name);
    if key.is_empty() {
        return Ok(Vec::new());
    }
    store.find_players(&key, 20, 10)
}

/// Sightings as the API gives them: hostnames from `servers` (the directory), and the names
/// playing now on a server that answered its latest poll, those first.
pub fn sightings<'a>(
    seen: Vec<Seen>,
    name: &str,
    servers: impl IntoIterator<Item = &'a ServerInfo>,
) -> Vec<PlayerSeen> {
    // One pass over the directory: the hostnames the answer names, and who plays now.
    let wanted: std::collections::HashSet<&str> = seen
        .iter()
        .flat_map(|s| {
            std::iter::once(s.last_server.as_str())
                .chain(s.sessions.iter().map(|x| x.server.as_str()))
        })
        .collect();
    let key = store::name_key(name);
    let mut hostnames: HashMap<&str, &str> = HashMap::new();
    let mut online: HashMap<String, &str> = HashMap::new();
    for s in servers {
        if wanted.contains(s.addr.as_str()) {
            hostnames.insert(&s.addr, &s.hostname);
        }
        if s.reachability != Reachability::Online || key.is_empty() {
            continue;
        }
        for p in s.players.iter().filter(|p| !p.bot) {
            let k = store::name_key(&p.name);
            if k.contains(&key) {
                online.insert(k, &s.addr);
                hostnames.insert(&s.addr, &s.hostname);
            }
        }
    }
    let server = |addr: &str| SeenServer {
        addr: addr.to_owned(),
        hostname: hostnames.get(addr).map_or(addr, |h| h).to_owned(),
    };
    let mut out: Vec<PlayerSeen> = seen
        .into_iter()
        .map(|s| PlayerSeen {
            online: online.get(&s.key).map(|addr| server(addr)),
            last_server: server(&s.last_server),
            stays: s
                .sessions
                .iter()
                .map(|x| Stay {
                    server: server(&x.server),
                    name: x.name.clone(),
                    first_ms: x.first_ms,
                    last_ms: x.last_ms,
                })
                .collect(),
            name: s.name,
            last_seen_ms: s.last_ms,
        })
        .collect();
    out.sort_by_key(|p| (p.online.is_none(), std::cmp::Reverse(p.last_seen_ms)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekdays_start_on_monday() {
        // 1970-01-05 was a Monday.
        assert_eq!(weekday(4 * DAY_MS), 0);
        assert_eq!(weekday(0), 3);
    }

    #[test]
    fn adjacent_down_buckets_join() {
        let down = |t| Bucket {
            start_ms: t,
            polls: 2,
            ..Bucket::default()
        };
        let up = Bucket {
            start_ms: 300,
            polls: 1,
            up: 1,
            ..Bucket::default()
        };
        let spans = downtime(&[down(0), down(100), up, down(400)], 100);
        assert_eq!(spans, [(0, 200), (400, 500)]);
    }
}
