//! The top-down map: a canvas redrawn every animation frame at the render clock's time, the
//! players interpolated between sightings, with pan, zoom and click-to-follow.

use leptos::prelude::GetUntracked;
use protocol::cod::text::strip;
use protocol::relay_api::watch::{yaw_degrees, Team, WatchPlayer};
use protocol::watching::{Bounds, Camera};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::live::Live;

/// A player not seen for this long is drawn faded, with how long ago.
pub const STALE_MS: i32 = 2000;
/// Clicks within this many pixels of a dot pick its player.
const PICK_PX: f32 = 14.0;

fn team_colour(team: Team) -> &'static str {
    match team {
        Team::Axis => "#e0604f",
        Team::Allies => "#5b9bf0",
        _ => "#c8c8c8",
    }
}

/// The camera for the canvas as it stands, following the selected player if any.
pub fn camera(live: &Live, width: f32, height: f32, render_time: f64) -> Option<Camera> {
    let bounds = overview_bounds(live).or(live.bounds)?;
    let mut camera = Camera {
        bounds,
        width,
        height,
        zoom: live.zoom,
        pan: live.pan,
    };
    let followed = live.selected.get_untracked();
    if let Some(pose) = followed.and_then(|c| live.tracks.pose(c, render_time)) {
        // Following: the selected player stays in the middle.
        camera.pan = (0.0, 0.0);
        let (sx, sy) = camera.to_screen(pose.x, pose.y);
        camera.pan = (width / 2.0 - sx, height / 2.0 - sy);
    }
    Some(camera)
}

fn overview_bounds(live: &Live) -> Option<Bounds> {
    let (o, _) = live.overview.as_ref()?;
    Some(Bounds {
        min_x: o.x0.min(o.x1),
        min_y: o.y0.min(o.y1),
        max_x: o.x0.max(o.x1),
        max_y: o.y0.max(o.y1),
    })
}

/// Draws one frame.
pub fn draw(live: &Live, canvas: &HtmlCanvasElement, now: f64) -> Option<()> {
    let ratio = web_sys::window()?.device_pixel_ratio() as f32;
    let (css_w, css_h) = (canvas.client_width() as f32, canvas.client_height() as f32);
    let (w, h) = ((css_w * ratio) as u32, (css_h * ratio) as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    let _ = ctx.set_transform(f64::from(ratio), 0.0, 0.0, f64::from(ratio), 0.0, 0.0);
    ctx.set_fill_style_str("#10141a");
    ctx.fill_rect(0.0, 0.0, f64::from(css_w), f64::from(css_h));
    let view = live.view.as_ref()?;
    let time = live.clock.render_time(now)?;
    let camera = camera(live, css_w, css_h, time)?;
    if let Some((o, image)) = &live.overview {
        let (x0, y0) = camera.to_screen(o.x0, o.y0);
        let (x1, y1) = camera.to_screen(o.x1, o.y1);
        let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(
            image,
            f64::from(x0),
            f64::from(y0),
            f64::from(x1 - x0),
            f64::from(y1 - y0),
        );
    } else {
        grid(&ctx, &camera);
    }
    let ppu = camera.pixels_per_unit();
    for v in &view.vehicles {
        let (x, y) = camera.to_screen(v.origin[0] as f32, v.origin[1] as f32);
        let tank = v.model == 2;
        let (len, wide) = if tank { (110.0, 60.0) } else { (70.0, 36.0) };
        let (len, wide) = ((len * ppu).max(10.0), (wide * ppu).max(6.0));
        ctx.save();
        let _ = ctx.translate(f64::from(x), f64::from(y));
        let _ = ctx.rotate(-f64::from(yaw_degrees(v.yaw)).to_radians());
        ctx.set_fill_style_str(if tank { "#6b7a4b" } else { "#8a7d55" });
        ctx.fill_rect(
            -f64::from(len) / 2.0,
            -f64::from(wide) / 2.0,
            f64::from(len),
            f64::from(wide),
        );
        ctx.set_stroke_style_str("#d8d0b0");
        ctx.stroke_rect(
            -f64::from(len) / 2.0,
            -f64::from(wide) / 2.0,
            f64::from(len),
            f64::from(wide),
        );
        ctx.restore();
    }
    ctx.set_font("11px sans-serif");
    ctx.set_text_align("center");
    for p in view.players.iter().filter(|p| playing(p)) {
        draw_player(&ctx, &camera, live, p, time, view.server_time);
    }
    Some(())
}

/// Soldiers are drawn; spectators are not on the field.
pub fn playing(p: &WatchPlayer) -> bool {
    p.team != Team::Spectator && p.seen.is_some()
}

fn draw_player(
    ctx: &CanvasRenderingContext2d,
    camera: &Camera,
    live: &Live,
    p: &WatchPlayer,
    time: f64,
    server_time: i32,
) {
    let Some(pose) = live.tracks.pose(p.client, time) else {
        return;
    };
    let (x, y) = camera.to_screen(pose.x, pose.y);
    let (x, y) = (f64::from(x), f64::from(y));
    let age = p.seen.map_or(i32::MAX, |t| server_time.wrapping_sub(t));
    let stale = age > STALE_MS;
    ctx.set_global_alpha(if !p.alive || stale { 0.4 } else { 1.0 });
    let radius = f64::from((14.0 * camera.pixels_per_unit()).clamp(4.0, 14.0));
    let colour = team_colour(p.team);
    if p.alive {
        ctx.begin_path();
        let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
        ctx.set_fill_style_str(colour);
        ctx.fill();
        let yaw = f64::from(pose.yaw).to_radians();
        ctx.begin_path();
        ctx.move_to(x, y);
        ctx.line_to(x + yaw.cos() * radius * 2.2, y - yaw.sin() * radius * 2.2);
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(2.0);
        ctx.stroke();
    } else {
        ctx.begin_path();
        ctx.move_to(x - radius, y - radius);
        ctx.line_to(x + radius, y + radius);
        ctx.move_to(x + radius, y - radius);
        ctx.line_to(x - radius, y + radius);
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(2.0);
        ctx.stroke();
    }
    let selected = live.selected.get_untracked();
    let ring = if selected == Some(p.client) {
        Some("#ffffff")
    } else if live.marked.get_untracked() == Some((selected, p.client)) {
        Some("#ffb74d")
    } else {
        None
    };
    if let Some(ring) = ring {
        ctx.begin_path();
        let _ = ctx.arc(x, y, radius + 4.0, 0.0, std::f64::consts::TAU);
        ctx.set_stroke_style_str(ring);
        ctx.set_line_width(2.0);
        ctx.stroke();
    }
    let mut label = strip(&p.name);
    if stale {
        label.push_str(&tr!("map-seen-ago", seconds = age / 1000));
    }
    ctx.set_fill_style_str("#e8e8e8");
    let _ = ctx.fill_text(&label, x, y - radius - 4.0);
    ctx.set_global_alpha(1.0);
}

/// A faint grid every 500 world units, so distance reads without map art.
fn grid(ctx: &CanvasRenderingContext2d, camera: &Camera) {
    const STEP: f32 = 500.0;
    if STEP * camera.pixels_per_unit() < 12.0 {
        return;
    }
    let (left, top) = camera.to_world(0.0, 0.0);
    let (right, bottom) = camera.to_world(camera.width, camera.height);
    ctx.set_stroke_style_str("#1f2630");
    ctx.set_line_width(1.0);
    ctx.begin_path();
    let mut x = (left / STEP).floor() * STEP;
    while x <= right {
        let (sx, _) = camera.to_screen(x, 0.0);
        ctx.move_to(f64::from(sx), 0.0);
        ctx.line_to(f64::from(sx), f64::from(camera.height));
        x += STEP;
    }
    let mut y = (bottom / STEP).floor() * STEP;
    while y <= top {
        let (_, sy) = camera.to_screen(0.0, y);
        ctx.move_to(0.0, f64::from(sy));
        ctx.line_to(f64::from(camera.width), f64::from(sy));
        y += STEP;
    }
    ctx.stroke();
}

/// The player whose dot is under a click at (`sx`, `sy`), if any.
pub fn pick(live: &Live, camera: &Camera, sx: f32, sy: f32, time: f64) -> Option<u8> {
    let view = live.view.as_ref()?;
    view.players
        .iter()
        .filter(|p| playing(p))
        .filter_map(|p| {
            let pose = live.tracks.pose(p.client, time)?;
            let (x, y) = camera.to_screen(pose.x, pose.y);
            let d = ((x - sx).powi(2) + (y - sy).powi(2)).sqrt();
            (d <= PICK_PX).then_some((d, p.client))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, client)| client)
}
