//! Demo playback in the worker: a `.dm_3` decoded by `protocol` (`cod::watch::timeline`: the demo
//! reader, the service records, snapshots and the hubs' match model), played on the page's
//! clock at the chosen speed, each view posted as a hub would send it. And the relay's
//! recordings: their list, and the operator's start and stop.

use std::cell::RefCell;
use std::time::Duration;

use gloo_net::http::Request as Http;
use protocol::cod::watch::timeline::Timeline;
use protocol::relay_api::demos::DemoListing;
use protocol::relay_api::watch::WatchMessage;
use serde::{Deserialize, Serialize};

use crate::{now_ms, sleep};

/// Where a demo comes from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum DemoSource {
    /// A relay recording (`/demos/NAME`).
    Url(String),
    /// A file the visitor opened or dropped.
    File { name: String, bytes: Vec<u8> },
}

impl DemoSource {
    pub fn name(&self) -> &str {
        match self {
            Self::Url(url) => url.rsplit('/').next().unwrap_or(url),
            Self::File { name, .. } => name,
        }
    }
}

/// A finished relay recording, as `/api/demos` lists it.
pub use protocol::relay_api::demos::DemoEntry as RelayDemo;

/// What the page asks of a playing demo.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Controls {
    pub playing: bool,
    pub speed: f64,
    /// Demo time to jump to, taken by the player.
    pub seek: Option<u32>,
}

/// Speeds the player offers.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];
/// How often a playing demo posts a view: about a display frame.
const FRAME: Duration = Duration::from_millis(33);

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = Http::get(url)
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !response.ok() {
        let text = protocol::relay_api::ApiError::said(&response.text().await.unwrap_or_default());
        return Err(format!("{url}: {} {text}", response.status()));
    }
    response.binary().await.map_err(|e| format!("{url}: {e}"))
}

/// The relay's finished recordings.
pub async fn relay_demos() -> Result<Vec<RelayDemo>, String> {
    let bytes = fetch_bytes("/api/demos").await?;
    DemoListing::decode(&bytes)
        .map(|l| l.demos)
        .map_err(|e| format!("/api/demos: {e}"))
}

/// Starts (`on`) or stops a hub's recording with the operator's token; the relay's answer.
pub async fn set_recording(addr: &str, on: bool, token: &str) -> Result<String, String> {
    let url = format!("/api/spectate/{addr}/record");
    let request = if on {
        Http::post(&url)
    } else {
        Http::delete(&url)
    };
    let response = request
        .header("Authorization", &format!("Bearer {token}"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let text = protocol::relay_api::ApiError::said(&response.text().await.unwrap_or_default());
    if response.ok() {
        Ok(if on { "recording" } else { "stopped" }.into())
    } else {
        Err(format!("{}: {text}", response.status()))
    }
}

/// Opens `source` and plays it as `controls` say, handing the summary, each view and the
/// position to `out`, until `open` turns false.
pub async fn play(
    source: DemoSource,
    controls: &RefCell<Controls>,
    out: impl Fn(crate::Reply),
    open: impl Fn() -> bool,
) {
    let bytes = match source {
        DemoSource::Url(url) => match fetch_bytes(&url).await {
            Ok(bytes) => bytes,
            Err(e) => return out(crate::Reply::DemoFailed(e)),
        },
        DemoSource::File { bytes, .. } => bytes,
    };
    let started = now_ms();
    let mut timeline = match Timeline::open(bytes) {
        Ok(timeline) => timeline,
        Err(e) => return out(crate::Reply::DemoFailed(e.to_string())),
    };
    out(crate::Reply::DemoOpened {
        summary: Box::new(timeline.summary().clone()),
        decode_ms: now_ms() - started,
    });
    let duration = f64::from(timeline.duration());
    let (mut position, mut seq, mut last) = (0.0f64, 0u64, now_ms());
    let mut shown: Option<(u32, bool)> = None;
    let mut fresh = true;
    while open() {
        let now = now_ms();
        let elapsed = now - last;
        last = now;
        let playing = {
            let mut c = controls.borrow_mut();
            if let Some(at) = c.seek.take() {
                position = f64::from(at).min(duration);
                timeline.seek(position as u32);
                fresh = true;
            }
            if c.playing {
                position = (position + elapsed * c.speed).min(duration);
                if position >= duration {
                    c.playing = false;
                }
            }
            c.playing
        };
        fresh |= timeline.advance_to(position as u32);
        if fresh {
            fresh = false;
            seq += 1;
            out(crate::Reply::Watch(WatchMessage::Keyframe {
                seq,
                relay_us: 0,
                view: timeline.view(),
            }));
        }
        let at = (position as u32, playing);
        if shown != Some(at) {
            shown = Some(at);
            out(crate::Reply::DemoAt {
                at_ms: at.0,
                playing,
            });
        }
        sleep(FRAME).await;
    }
}
