//! The map under the pointer and the fingers: one pointer drags (or clicks, picking a player),
//! two fingers pinch, the wheel zooms about the cursor, Fit frames the whole map again.

use leptos::prelude::*;

use super::live::{midpoint, spread, zoom_about, Live};
use super::map;

/// What a gesture moves: the view's shared state, drawn on `canvas`, following `selected`.
#[derive(Clone, Copy)]
pub struct Gestures {
    pub live: StoredValue<Live, LocalStorage>,
    pub canvas: NodeRef<leptos::html::Canvas>,
    pub selected: RwSignal<Option<u8>>,
}

fn at(ev: &leptos::ev::PointerEvent) -> (f32, f32) {
    (ev.offset_x() as f32, ev.offset_y() as f32)
}

impl Gestures {
    fn size(self) -> Option<(f32, f32)> {
        self.canvas
            .get_untracked()
            .map(|c| (c.client_width() as f32, c.client_height() as f32))
    }

    pub fn down(self, ev: leptos::ev::PointerEvent) {
        let (x, y) = at(&ev);
        if let Some(canvas) = self.canvas.get_untracked() {
            let _ = canvas.set_pointer_capture(ev.pointer_id());
        }
        self.live.update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            l.touches.push((ev.pointer_id(), x, y));
            if l.touches.len() == 2 {
                l.pinch = Some(spread(&l.touches));
                // A pinch is never a click.
                l.drag = Some((x, y, true));
            } else if l.touches.len() == 1 {
                l.drag = Some((x, y, false));
            }
        });
    }

    pub fn moved(self, ev: leptos::ev::PointerEvent) {
        let (x, y) = at(&ev);
        let Some((w, h)) = self.size() else {
            return;
        };
        let selected = self.selected;
        self.live.update_value(|l| {
            let before = l
                .touches
                .first()
                .zip(l.touches.get(1))
                .map(|_| midpoint(&l.touches));
            if let Some(t) = l.touches.iter_mut().find(|t| t.0 == ev.pointer_id()) {
                (t.1, t.2) = (x, y);
            }
            if let (Some(was), Some((mx0, my0))) = (l.pinch, before) {
                let now = spread(&l.touches);
                let (mx, my) = midpoint(&l.touches);
                l.pan.0 += mx - mx0;
                l.pan.1 += my - my0;
                zoom_about(l, w, h, mx, my, now / was.max(1.0));
                l.pinch = Some(now);
                return;
            }
            if let Some((px, py, moved)) = l.drag {
                let (dx, dy) = (x - px, y - py);
                if moved || dx.abs() + dy.abs() > 3.0 {
                    l.pan.0 += dx;
                    l.pan.1 += dy;
                    l.drag = Some((x, y, true));
                    if selected.get_untracked().is_some() {
                        selected.set(None);
                    }
                }
            }
        });
    }

    pub fn up(self, ev: leptos::ev::PointerEvent) {
        let (x, y) = at(&ev);
        let Some((w, h)) = self.size() else {
            return;
        };
        let picked = self.live.try_update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            if l.touches.len() < 2 {
                l.pinch = None;
            }
            if !l.touches.is_empty() {
                return None;
            }
            let was_click = matches!(l.drag.take(), Some((_, _, false)));
            let time = l.clock.render_time(crate::net::now_ms())?;
            let camera = map::camera(l, w, h, time)?;
            was_click.then(|| map::pick(l, &camera, x, y, time))
        });
        if let Some(Some(pick)) = picked {
            self.selected.set(pick);
        }
    }

    pub fn cancel(self, ev: leptos::ev::PointerEvent) {
        self.live.update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            l.pinch = None;
            l.drag = None;
        });
    }

    pub fn wheel(self, ev: leptos::ev::WheelEvent) {
        ev.prevent_default();
        let factor = 1.15f32.powf(-(ev.delta_y() as f32) / 100.0);
        let (x, y) = (ev.offset_x() as f32, ev.offset_y() as f32);
        let Some((w, h)) = self.size() else {
            return;
        };
        self.live
            .update_value(|l| zoom_about(l, w, h, x, y, factor));
    }

    pub fn fit(self) {
        self.live.update_value(|l| {
            l.zoom = 1.0;
            l.zoomed.set(1.0);
            l.pan = (0.0, 0.0);
        });
        self.selected.set(None);
    }
}
