//! The watch view's motion, shared by the page and its native tests: each player's recent
//! sightings, a render clock that runs a fixed margin behind the newest update, and
//! interpolation between the two sightings around the render time. Never extrapolates: past
//! the newest sighting a player holds still (the relay delays the match anyway, so the
//! margin costs viewers nothing).

use alloc::collections::{BTreeMap, VecDeque};

use crate::relay_api::watch::{yaw_degrees, MatchView};

/// How far behind the newest update the view renders, in ms.
pub const RENDER_BEHIND_MS: f64 = 150.0;
/// Sightings kept per player.
const KEPT: usize = 64;
/// A jump farther than this between two sightings is a respawn or teleport: no gliding.
pub const TELEPORT_UNITS: f32 = 320.0;
/// A clock off by more than this jumps instead of easing.
const CLOCK_RESET_MS: f64 = 500.0;

/// One sighting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub time: i32,
    pub x: f32,
    pub y: f32,
    /// Degrees.
    pub yaw: f32,
}

/// Where a player is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub x: f32,
    pub y: f32,
    pub yaw: f32,
}

/// Recent sightings of every player.
#[derive(Clone, Debug, Default)]
pub struct Tracks {
    players: BTreeMap<u8, VecDeque<Sample>>,
}

impl Tracks {
    /// Takes the sightings a view holds; players who left are forgotten. A server time that
    /// runs backwards (a restarted server) starts every track again.
    pub fn record(&mut self, view: &MatchView) {
        self.players
            .retain(|n, _| view.players.iter().any(|p| p.client == *n));
        for p in &view.players {
            let Some(time) = p.seen else { continue };
            let track = self.players.entry(p.client).or_default();
            if track.back().is_some_and(|last| last.time > time) {
                track.clear();
            }
            let sample = Sample {
                time,
                x: p.origin[0] as f32,
                y: p.origin[1] as f32,
                yaw: yaw_degrees(p.yaw),
            };
            match track.back_mut() {
                Some(last) if last.time == time => *last = sample,
                _ => track.push_back(sample),
            }
            while track.len() > KEPT {
                track.pop_front();
            }
        }
    }

    /// The pose at server time `time`: between the sightings around it, or the nearest one.
    pub fn pose(&self, client: u8, time: f64) -> Option<Pose> {
        let track = self.players.get(&client)?;
        let first = track.front()?;
        let at = |s: &Sample| Pose {
            x: s.x,
            y: s.y,
            yaw: s.yaw,
        };
        if time <= f64::from(first.time) {
            return Some(at(first));
        }
        let after = track.iter().position(|s| f64::from(s.time) >= time);
        let Some(i) = after else {
            return track.back().map(at);
        };
        let (a, b) = (&track[i - 1], &track[i]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        if dx * dx + dy * dy > TELEPORT_UNITS * TELEPORT_UNITS {
            return Some(at(a));
        }
        let span = f64::from(b.time - a.time).max(1.0);
        let t = ((time - f64::from(a.time)) / span) as f32;
        let mut turn = (b.yaw - a.yaw) % 360.0;
        if turn > 180.0 {
            turn -= 360.0;
        } else if turn < -180.0 {
            turn += 360.0;
        }
        Some(Pose {
            x: a.x + dx * t,
            y: a.y + dy * t,
            yaw: a.yaw + turn * t,
        })
    }
}

/// Maps local time (ms, any epoch) to the server time to render.
#[derive(Clone, Copy, Debug)]
pub struct RenderClock {
    /// server time - local time × rate, eased toward each update's.
    offset: Option<f64>,
    newest: f64,
    /// Server ms per local ms: 1 live, the playback speed for a demo.
    rate: f64,
}

impl Default for RenderClock {
    fn default() -> Self {
        Self {
            offset: None,
            newest: 0.0,
            rate: 1.0,
        }
    }
}

impl RenderClock {
    /// Runs the clock at `rate` server ms per local ms (a demo's speed); a change starts it
    /// again from the next update.
    pub fn set_rate(&mut self, rate: f64) {
        if rate != self.rate && rate > 0.0 {
            self.rate = rate;
            self.offset = None;
        }
    }

    /// An update for `server_time` arrived at local time `local`.
    pub fn update(&mut self, server_time: i32, local: f64) {
        let server = f64::from(server_time);
        let target = server - local * self.rate;
        self.offset = Some(match self.offset {
            Some(o) if (target - o).abs() <= CLOCK_RESET_MS && server >= self.newest => {
                o + (target - o) * 0.1
            }
            _ => target,
        });
        self.newest = if server < self.newest - CLOCK_RESET_MS {
            server
        } else {
            self.newest.max(server)
        };
    }

    /// The server time to draw at local time `local`, never past the newest update.
    pub fn render_time(&self, local: f64) -> Option<f64> {
        let offset = self.offset?;
        Some((local * self.rate + offset - RENDER_BEHIND_MS * self.rate).min(self.newest))
    }
}

/// The world rectangle a view frames: every sighting with a margin, or an overview's corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min_x: f32,
    pub min_y: f32,
    pub max_x: f32,
    pub max_y: f32,
}

impl Bounds {
    /// The extent of what was seen, padded by a tenth (at least 200 units a side).
    pub fn of(view: &MatchView) -> Option<Self> {
        let points = view
            .players
            .iter()
            .filter(|p| p.seen.is_some())
            .map(|p| p.origin)
            .chain(view.vehicles.iter().map(|v| v.origin));
        let mut bounds: Option<Self> = None;
        for [x, y, _] in points {
            let (x, y) = (x as f32, y as f32);
            let b = bounds.get_or_insert(Self {
                min_x: x,
                min_y: y,
                max_x: x,
                max_y: y,
            });
            b.min_x = b.min_x.min(x);
            b.min_y = b.min_y.min(y);
            b.max_x = b.max_x.max(x);
            b.max_y = b.max_y.max(y);
        }
        bounds.map(|b| {
            let pad_x = ((b.max_x - b.min_x) * 0.1).max(200.0);
            let pad_y = ((b.max_y - b.min_y) * 0.1).max(200.0);
            Self {
                min_x: b.min_x - pad_x,
                min_y: b.min_y - pad_y,
                max_x: b.max_x + pad_x,
                max_y: b.max_y + pad_y,
            }
        })
    }

    /// Grows to take in `other` (the framing never shrinks while the map runs).
    pub fn union(self, other: Self) -> Self {
        Self {
            min_x: self.min_x.min(other.min_x),
            min_y: self.min_y.min(other.min_y),
            max_x: self.max_x.max(other.max_x),
            max_y: self.max_y.max(other.max_y),
        }
    }
}

/// World to screen: `bounds` fitted into a `width` x `height` canvas, zoomed about its centre
/// and panned; world y grows up, screen y down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub bounds: Bounds,
    pub width: f32,
    pub height: f32,
    pub zoom: f32,
    /// Pan in screen pixels.
    pub pan: (f32, f32),
}

impl Camera {
    fn scale(&self) -> f32 {
        let w = (self.bounds.max_x - self.bounds.min_x).max(1.0);
        let h = (self.bounds.max_y - self.bounds.min_y).max(1.0);
        (self.width / w).min(self.height / h) * self.zoom
    }

    pub fn to_screen(&self, x: f32, y: f32) -> (f32, f32) {
        let s = self.scale();
        let cx = (self.bounds.min_x + self.bounds.max_x) / 2.0;
        let cy = (self.bounds.min_y + self.bounds.max_y) / 2.0;
        (
            self.width / 2.0 + (x - cx) * s + self.pan.0,
            self.height / 2.0 - (y - cy) * s + self.pan.1,
        )
    }

    pub fn to_world(&self, sx: f32, sy: f32) -> (f32, f32) {
        let s = self.scale();
        let cx = (self.bounds.min_x + self.bounds.max_x) / 2.0;
        let cy = (self.bounds.min_y + self.bounds.max_y) / 2.0;
        (
            cx + (sx - self.width / 2.0 - self.pan.0) / s,
            cy - (sy - self.height / 2.0 - self.pan.1) / s,
        )
    }

    /// Pixels per world unit.
    pub fn pixels_per_unit(&self) -> f32 {
        self.scale()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relay_api::watch::WatchPlayer;
    use alloc::vec;

    fn view_with(time: i32, x: i32) -> MatchView {
        MatchView {
            server_time: time,
            players: vec![WatchPlayer {
                client: 4,
                origin: [x, 0, 0],
                seen: Some(time),
                ..WatchPlayer::default()
            }],
            ..MatchView::default()
        }
    }

    #[test]
    fn poses_interpolate_and_never_extrapolate() {
        let mut tracks = Tracks::default();
        tracks.record(&view_with(1000, 0));
        tracks.record(&view_with(1050, 100));
        assert_eq!(tracks.pose(4, 1025.0).unwrap().x, 50.0);
        assert_eq!(tracks.pose(4, 900.0).unwrap().x, 0.0);
        assert_eq!(tracks.pose(4, 2000.0).unwrap().x, 100.0);
        // A respawn is a jump, not a glide.
        tracks.record(&view_with(1100, 2000));
        assert_eq!(tracks.pose(4, 1075.0).unwrap().x, 100.0);
        // A restarted server starts the track again.
        tracks.record(&view_with(10, 5));
        assert_eq!(tracks.pose(4, 1075.0).unwrap().x, 5.0);
        assert_eq!(tracks.pose(9, 0.0), None);
    }

    #[test]
    fn the_clock_runs_behind_the_newest_update() {
        let mut clock = RenderClock::default();
        assert_eq!(clock.render_time(0.0), None);
        clock.update(5000, 100.0);
        assert_eq!(clock.render_time(100.0), Some(4850.0));
        // Never past the newest update, however long the wait.
        assert_eq!(clock.render_time(10_000.0), Some(5000.0));
        clock.update(5050, 150.0);
        assert_eq!(clock.render_time(150.0), Some(4900.0));
        // A restart jumps.
        clock.update(20, 200.0);
        assert_eq!(clock.render_time(400.0), Some(20.0));
    }

    #[test]
    fn the_camera_fits_and_round_trips() {
        let camera = Camera {
            bounds: Bounds {
                min_x: -1000.0,
                min_y: -500.0,
                max_x: 1000.0,
                max_y: 500.0,
            },
            width: 800.0,
            height: 400.0,
            zoom: 1.0,
            pan: (0.0, 0.0),
        };
        assert_eq!(camera.to_screen(-1000.0, 500.0), (0.0, 0.0));
        assert_eq!(camera.to_screen(1000.0, -500.0), (800.0, 400.0));
        let (x, y) = camera.to_world(200.0, 100.0);
        assert_eq!(camera.to_screen(x, y), (200.0, 100.0));
        let b = Bounds::of(&view_with(0, 300)).unwrap();
        assert_eq!((b.min_x, b.max_x), (100.0, 500.0));
    }
}
