//! What the socket, the map and the tables of one watch view share, and the map's drawing loop.

use leptos::prelude::*;
use protocol::relay_api::watch::{HubStatus, MatchView, Overview, ViewerMessage};
use protocol::watching::{Bounds, RenderClock, Tracks};

use super::map;

/// What the socket, the map and the tables share.
pub struct Live {
    pub(super) view: Option<MatchView>,
    pub(super) seq: u64,
    pub(super) tracks: Tracks,
    pub(super) clock: RenderClock,
    /// What the map frames: every sighting on this map so far.
    pub(super) bounds: Option<Bounds>,
    pub(super) framed_map: String,
    pub(super) zoom: f32,
    /// The zoom, for the page (and its tests) to read.
    pub(super) zoomed: RwSignal<f32>,
    pub(super) pan: (f32, f32),
    /// The player followed and highlighted (a click on the map or the scoreboard).
    pub(super) selected: RwSignal<Option<u8>>,
    /// A second player highlighted beside the selected one (a replayed kill's victim), while
    /// the one it was marked with (its killer) stays selected.
    pub(super) marked: RwSignal<Option<(Option<u8>, u8)>>,
    pub(super) overview: Option<(Overview, web_sys::HtmlImageElement)>,
    pub(super) drag: Option<(f32, f32, bool)>,
    /// The fingers on the map (pointer id and where), and the distance between the first two
    /// when there are two: a pinch zooms about their midpoint.
    pub(super) touches: Vec<(i32, f32, f32)>,
    pub(super) pinch: Option<f32>,
    /// Local time the delay finishes filling.
    pub(super) filling_until: f64,
    pub(super) shown_at: f64,
    pub(super) connected: RwSignal<bool>,
    pub(super) status: RwSignal<Option<HubStatus>>,
    /// The view the tables show, refreshed a few times a second.
    pub(super) shown: RwSignal<Option<MatchView>>,
    /// When the newest message shown reached the relay (µs), and that, refreshed with the
    /// tables, for the rewind bar.
    pub(super) relay_us: u64,
    pub(super) shown_us: RwSignal<u64>,
    /// Live, or rewound and played at a speed (percent; 0: paused), as the relay last said.
    pub(super) playing: RwSignal<(bool, u16)>,
    /// What the view asks of the relay's hub (a seek, back to live), while a socket is open.
    pub(super) outbox: Option<futures::channel::mpsc::UnboundedSender<ViewerMessage>>,
}

/// Zooms the map by `factor` about the point (`x`, `y`) of a `w` x `h` canvas: the point
/// under the cursor or between the fingers stays put.
pub(super) fn zoom_about(l: &mut Live, w: f32, h: f32, x: f32, y: f32, factor: f32) {
    let zoom = (l.zoom * factor).clamp(0.25, 40.0);
    let ratio = zoom / l.zoom;
    let (cx, cy) = (w / 2.0 + l.pan.0, h / 2.0 + l.pan.1);
    l.pan.0 += (x - cx) * (1.0 - ratio);
    l.pan.1 += (y - cy) * (1.0 - ratio);
    l.zoom = zoom;
    l.zoomed.set(zoom);
}

/// The distance between the first two fingers.
pub(super) fn spread(touches: &[(i32, f32, f32)]) -> f32 {
    match touches {
        [(_, ax, ay), (_, bx, by), ..] => (ax - bx).hypot(ay - by),
        _ => 0.0,
    }
}

/// The point between the first two fingers.
pub(super) fn midpoint(touches: &[(i32, f32, f32)]) -> (f32, f32) {
    match touches {
        [(_, ax, ay), (_, bx, by), ..] => ((ax + bx) / 2.0, (ay + by) / 2.0),
        _ => (0.0, 0.0),
    }
}

impl Live {
    pub(super) fn new() -> Self {
        Self {
            view: None,
            seq: 0,
            tracks: Tracks::default(),
            clock: RenderClock::default(),
            bounds: None,
            framed_map: String::new(),
            zoom: 1.0,
            zoomed: RwSignal::new(1.0),
            pan: (0.0, 0.0),
            selected: RwSignal::new(None),
            marked: RwSignal::new(None),
            overview: None,
            drag: None,
            touches: Vec::new(),
            pinch: None,
            filling_until: 0.0,
            shown_at: 0.0,
            connected: RwSignal::new(false),
            status: RwSignal::new(None),
            shown: RwSignal::new(None),
            relay_us: 0,
            shown_us: RwSignal::new(0),
            playing: RwSignal::new((true, 100)),
            outbox: None,
        }
    }

    /// Asks the hub for something; false when no socket is open to ask.
    pub(super) fn say(&self, message: ViewerMessage) -> bool {
        self.outbox
            .as_ref()
            .is_some_and(|o| o.unbounded_send(message).is_ok())
    }

    /// Loads the operator's overview image for the current map, once.
    fn load_overview(&mut self) {
        let map = self.framed_map.clone();
        let wanted = self.status.with_untracked(|s| {
            s.as_ref()
                .and_then(|s| s.overviews.iter().find(|o| o.map == map).cloned())
        });
        let current = self.overview.as_ref().map(|(o, _)| o.map.clone());
        match wanted {
            Some(o) if current.as_deref() != Some(&o.map) => {
                if let Ok(image) = web_sys::HtmlImageElement::new() {
                    image.set_src(&o.url);
                    self.overview = Some((o, image));
                }
            }
            None => self.overview = None,
            _ => {}
        }
    }
}

/// Draws the map every animation frame while the view is open.
pub(super) fn frame_loop(
    live: StoredValue<Live, LocalStorage>,
    canvas: NodeRef<leptos::html::Canvas>,
    open: StoredValue<bool>,
) {
    request_animation_frame(move || {
        if !open.try_get_value().unwrap_or(false) {
            return;
        }
        if let Some(canvas) = canvas.get_untracked() {
            let now = crate::net::now_ms();
            live.update_value(|l| {
                l.load_overview();
                map::draw(l, &canvas, now);
            });
        }
        frame_loop(live, canvas, open);
    });
}
