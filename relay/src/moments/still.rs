//! A moment's still: the players where they stood, seen from above, on the map's overview when
//! the operator gave one (placed by its corners, as the watch view draws it), else on a plain
//! square fitted to them. A PNG, the same bytes for the same moment, for link cards.

use protocol::relay_api::watch::{MatchView, Team};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, PixmapPaint, Stroke, Transform};

/// The still's side in pixels: a card shows a square at any size chat apps use.
pub const SIDE: u32 = 512;

/// An overview's image and the world coordinates of its top-left and bottom-right corners.
pub struct Overview<'a> {
    pub png: &'a [u8],
    pub corners: [f32; 4],
}

fn colour(team: Team, alive: bool) -> Color {
    match (team, alive) {
        (_, false) => Color::from_rgba8(150, 150, 150, 255),
        (Team::Axis, _) => Color::from_rgba8(235, 87, 70, 255),
        (Team::Allies, _) => Color::from_rgba8(80, 160, 255, 255),
        _ => Color::from_rgba8(240, 200, 80, 255),
    }
}

/// The still of `view`, highlighting the clients in `marked` (a kill's two players).
pub fn render(view: &MatchView, overview: Option<Overview<'_>>, marked: &[u8]) -> Vec<u8> {
    let side = SIDE as f32;
    let Some(mut pixmap) = Pixmap::new(SIDE, SIDE) else {
        return Vec::new();
    };
    pixmap.fill(Color::from_rgba8(29, 35, 39, 255));
    let shown: Vec<_> = view
        .players
        .iter()
        .filter(|p| p.seen.is_some() && p.team != Team::Spectator)
        .collect();
    let backdrop = overview.and_then(|o| Some((Pixmap::decode_png(o.png).ok()?, o.corners)));
    let place: Box<dyn Fn([i32; 3]) -> (f32, f32)> = match backdrop {
        Some((image, [x0, y0, x1, y1])) => {
            let scale =
                Transform::from_scale(side / image.width() as f32, side / image.height() as f32);
            pixmap.draw_pixmap(0, 0, image.as_ref(), &PixmapPaint::default(), scale, None);
            let (w, h) = ((x1 - x0).abs().max(1.0), (y1 - y0).abs().max(1.0));
            Box::new(move |o| {
                let x = (o[0] as f32 - x0) / (x1 - x0).signum() / w * side;
                let y = (o[1] as f32 - y0) / (y1 - y0).signum() / h * side;
                (x, y)
            })
        }
        None => {
            let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
            for p in &shown {
                let o = p.origin;
                (x0, x1, y0, y1) = (x0.min(o[0]), x1.max(o[0]), y0.min(o[1]), y1.max(o[1]));
            }
            let span = (x1.saturating_sub(x0)).max(y1.saturating_sub(y0)).max(1) as f32;
            Box::new(move |o| {
                let x = 24.0 + (o[0] - x0) as f32 / span * (side - 48.0);
                let y = side - 24.0 - (o[1] - y0) as f32 / span * (side - 48.0);
                (x, y)
            })
        }
    };
    for p in shown {
        let (x, y) = place(p.origin);
        let mut paint = Paint::default();
        paint.set_color(colour(p.team, p.alive));
        paint.anti_alias = true;
        if let Some(dot) = PathBuilder::from_circle(x, y, 7.0) {
            pixmap.fill_path(&dot, &paint, FillRule::Winding, Transform::identity(), None);
        }
        // Facing: a tick from the dot (256 steps a turn, counter-clockwise from east; the
        // picture's y grows downwards).
        let turn = f32::from(p.yaw) / 256.0 * std::f32::consts::TAU;
        let mut tick = PathBuilder::new();
        tick.move_to(x, y);
        tick.line_to(x + 14.0 * turn.cos(), y - 14.0 * turn.sin());
        let stroke = Stroke {
            width: 3.0,
            ..Stroke::default()
        };
        if let Some(tick) = tick.finish() {
            pixmap.stroke_path(&tick, &paint, &stroke, Transform::identity(), None);
        }
        if marked.contains(&p.client) {
            let mut ring = Paint::default();
            ring.set_color(Color::WHITE);
            ring.anti_alias = true;
            if let Some(circle) = PathBuilder::from_circle(x, y, 12.0) {
                let stroke = Stroke {
                    width: 2.5,
                    ..Stroke::default()
                };
                pixmap.stroke_path(&circle, &ring, &stroke, Transform::identity(), None);
            }
        }
    }
    pixmap.encode_png().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use protocol::relay_api::watch::{MatchView, Team, WatchPlayer};
    use tiny_skia::{Color, Pixmap};

    use super::{render, Overview, SIDE};

    fn view() -> MatchView {
        let player = |client: u8, team: Team, origin: [i32; 3]| WatchPlayer {
            client,
            team,
            alive: true,
            origin,
            seen: Some(1000),
            ..WatchPlayer::default()
        };
        MatchView {
            players: vec![
                player(0, Team::Axis, [500, 500, 0]),
                player(1, Team::Allies, [900, 100, 0]),
                // A spectator is not drawn.
                player(2, Team::Spectator, [100, 900, 0]),
            ],
            ..MatchView::default()
        }
    }

    fn pixel(png: &[u8], x: u32, y: u32) -> (u8, u8, u8) {
        let image = Pixmap::decode_png(png).unwrap();
        let p = image.pixel(x, y).unwrap();
        (p.red(), p.green(), p.blue())
    }

    #[test]
    fn players_stand_where_the_overview_places_them() {
        let mut backdrop = Pixmap::new(64, 64).unwrap();
        backdrop.fill(Color::from_rgba8(0, 120, 0, 255));
        let backdrop = backdrop.encode_png().unwrap();
        // World x 0..1000 left to right, y 1000..0 top to bottom.
        let overview = || Overview {
            png: &backdrop,
            corners: [0.0, 1000.0, 1000.0, 0.0],
        };
        let png = render(&view(), Some(overview()), &[0]);
        assert_eq!(
            render(&view(), Some(overview()), &[0]),
            png,
            "the same bytes"
        );
        let image = Pixmap::decode_png(&png).unwrap();
        assert_eq!((image.width(), image.height()), (SIDE, SIDE));
        let at = |x: f32, y: f32| {
            (
                (x / 1000.0 * SIDE as f32) as u32,
                ((1000.0 - y) / 1000.0 * SIDE as f32) as u32,
            )
        };
        let (x, y) = at(500.0, 500.0);
        assert_eq!(pixel(&png, x, y), (235, 87, 70), "the axis player");
        let (x, y) = at(900.0, 100.0);
        assert_eq!(pixel(&png, x, y), (80, 160, 255), "the allied player");
        let (x, y) = at(100.0, 900.0);
        assert_eq!(pixel(&png, x, y), (0, 120, 0), "no spectator: the overview");
        // The marked player's ring.
        let (x, y) = at(500.0, 500.0);
        let (r, g, b) = pixel(&png, x, y + 12);
        assert!(r > 200 && g > 200 && b > 200, "{r} {g} {b}");
    }

    #[test]
    fn without_an_overview_the_players_fill_a_plain_square() {
        let png = render(&view(), None, &[]);
        assert_eq!(pixel(&png, 2, 2), (29, 35, 39));
        // The two players span the square's diagonal within its margin.
        assert_eq!(pixel(&png, 24, 24), (235, 87, 70));
        assert_eq!(pixel(&png, SIDE - 24, SIDE - 24), (80, 160, 255));
        // An overview that is not a PNG is no backdrop, not an error.
        let broken = Overview {
            png: b"not a png",
            corners: [0.0, 0.0, 1.0, 1.0],
        };
        assert_eq!(render(&view(), Some(broken), &[]), png);
    }
}
