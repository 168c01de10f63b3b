//! The matches' charts as SVG from the relay, as the history's are: the score over a match,
//! a name's rating over its matches, and where a match's kills and deaths happened.

use std::fmt::Write;

use protocol::relay_api::matches::{KillKind, MatchDetail, RatingPoint};
use protocol::relay_api::watch::Team;

const W: f64 = 480.0;
const H: f64 = 200.0;
const LEFT: f64 = 36.0;
const BOTTOM: f64 = 20.0;
/// Lines drawn in a free-for-all score chart: the best names.
const TOP_NAMES: usize = 5;
const COLOURS: [&str; 5] = ["#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#9b59b6"];

/// One line: its name, colour and points (x, y).
pub struct Line {
    pub label: String,
    pub colour: &'static str,
    pub points: Vec<(f64, f64)>,
}

fn escape(text: &str) -> String {
    maud::html! { (text) }.into_string()
}

/// Lines on shared axes; `x_label` names the x axis. Empty lines draw empty axes.
pub fn lines(title: &str, x_label: &str, lines: &[Line]) -> String {
    let points = lines.iter().flat_map(|l| &l.points);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0_f64, f64::MIN);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y1) = (0.0, 1.0, 1.0);
    }
    // Counted from the start (a match's level start, a name's first match) when it is in view.
    x0 = x0.min(0.0);
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    if y1 - y0 < 1e-9 {
        y1 = y0 + 1.0;
    }
    let (pw, ph) = (W - LEFT - 8.0, H - BOTTOM - 8.0);
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| 8.0 + ph - (y - y0) / (y1 - y0) * ph;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" role=\"img\" \
         aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"10\">",
        escape(title)
    );
    let _ = write!(
        svg,
        "<g stroke=\"#999\" stroke-width=\"0.5\"><line x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\
         <line x1=\"{LEFT}\" y1=\"8\" x2=\"{LEFT}\" y2=\"{}\"/></g>",
        8.0 + ph,
        LEFT + pw,
        8.0 + ph,
        8.0 + ph
    );
    for y in [y0, (y0 + y1) / 2.0, y1] {
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#777\">{}</text>",
            LEFT - 4.0,
            sy(y) + 3.0,
            fmt(y)
        );
    }
    for x in [x0, (x0 + x1) / 2.0, x1] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"#777\">{}</text>",
            sx(x),
            H - 6.0,
            fmt(x)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#777\">{}</text>",
        LEFT + pw,
        H - 6.0 - 10.0,
        escape(x_label)
    );
    for (i, line) in lines.iter().enumerate() {
        let path: Vec<String> = line
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title></polyline>\
             <text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>",
            line.colour,
            path.join(" "),
            escape(&line.label),
            LEFT + 6.0,
            18.0 + 12.0 * i as f64,
            line.colour,
            escape(&line.label)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn fmt(v: f64) -> String {
    if (v - v.round()).abs() < 0.05 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// The score over the match: each side's score in a team game (as the server gave it, or
/// counted from kills where it gave none), else the best names' kills. Minutes from the level
/// start.
pub fn score(m: &MatchDetail) -> String {
    let minutes = |t: i32| f64::from(t - m.level_start) / 60_000.0;
    let teams = m
        .scoreboard
        .iter()
        .any(|p| matches!(p.team, Team::Axis | Team::Allies));
    let mut out = Vec::new();
    if teams && !m.team_scores.is_empty() {
        for (i, (label, pick)) in [("Axis", 1), ("Allies", 2)].into_iter().enumerate() {
            out.push(Line {
                label: label.to_owned(),
                colour: COLOURS[i],
                // From nothing at the level start, then each score the server told.
                points: std::iter::once((0.0, 0.0))
                    .chain(
                        m.team_scores
                            .iter()
                            .map(|s| (minutes(s.0), f64::from(if pick == 1 { s.1 } else { s.2 }))),
                    )
                    .collect(),
            });
        }
    } else if teams {
        for (i, (label, side)) in [("Axis", Team::Axis), ("Allies", Team::Allies)]
            .into_iter()
            .enumerate()
        {
            out.push(counted(m, label, COLOURS[i], |k| {
                k.kind == KillKind::Kill && k.attacker_team == side
            }));
        }
    } else {
        for (i, p) in m.scoreboard.iter().take(TOP_NAMES).enumerate() {
            let name = p.name.clone();
            out.push(counted(
                m,
                &protocol::cod::text::strip(&name),
                COLOURS[i],
                |k| k.kind == KillKind::Kill && k.attacker.as_deref() == Some(name.as_str()),
            ));
        }
    }
    lines("The score over the match", "minutes", &out)
}

/// A line of kills counted up over the match.
fn counted(
    m: &MatchDetail,
    label: &str,
    colour: &'static str,
    counts: impl Fn(&protocol::relay_api::matches::MatchKill) -> bool,
) -> Line {
    let mut n = 0.0;
    let mut points = vec![(0.0, 0.0)];
    for k in m.kill_feed.iter().filter(|k| counts(k)) {
        n += 1.0;
        points.push((f64::from(k.server_time - m.level_start) / 60_000.0, n));
    }
    Line {
        label: label.to_owned(),
        colour,
        points,
    }
}

/// A name's rating (`mu`) and its floor (`mu - 3 sigma`, what lists rank by), match by match.
pub fn rating(history: &[RatingPoint]) -> String {
    // From the rating every name starts with (Weng-Lin's 25 ± 25).
    let start = skillratings::weng_lin::WengLinRating::new();
    let mu = std::iter::once((0.0, start.rating))
        .chain(
            history
                .iter()
                .enumerate()
                .map(|(i, p)| (i as f64 + 1.0, p.mu)),
        )
        .collect();
    let floor = std::iter::once((0.0, start.rating - 3.0 * start.uncertainty))
        .chain(
            history
                .iter()
                .enumerate()
                .map(|(i, p)| (i as f64 + 1.0, p.mu - 3.0 * p.sigma)),
        )
        .collect();
    lines(
        "Rating over rated matches",
        "rated matches",
        &[
            Line {
                label: "rating".into(),
                colour: COLOURS[1],
                points: mu,
            },
            Line {
                label: "rating − 3σ (ranked by)".into(),
                colour: COLOURS[3],
                points: floor,
            },
        ],
    )
}

/// Where the match's kills were made (the killer's place, red) and its deaths fell (the
/// victim's place, blue), seen from above in the map's own coordinates (x east, y north).
/// A map's overview image behind the heatmap: its URL and the world coordinates of its
/// top-left and bottom-right corners (`--overview`, as the watch view draws it).
#[derive(Clone, Debug, PartialEq)]
pub struct Backdrop {
    pub url: String,
    pub corners: [f32; 4],
}

/// Where kills were made and deaths fell, seen from above: on the map's overview where the
/// operator gave one (placed by its corners), else on a plain square fitted to the spots.
pub fn heatmap(m: &MatchDetail, backdrop: Option<&Backdrop>) -> String {
    let spots: Vec<([i32; 3], bool)> = m
        .kill_feed
        .iter()
        .flat_map(|k| {
            k.attacker_origin
                .map(|o| (o, true))
                .into_iter()
                .chain(k.victim_origin.map(|o| (o, false)))
        })
        .collect();
    let size = 300.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {size} {size}\" role=\"img\" \
         aria-label=\"Where kills were made (red) and deaths fell (blue)\">\
         <rect width=\"{size}\" height=\"{size}\" fill=\"#1d2327\"/>"
    );
    // World to picture: the overview's corners, or the spots' extent at one scale both ways
    // (so the map keeps its shape) within a margin.
    let place: Box<dyn Fn([i32; 3]) -> (f64, f64)> = match backdrop {
        Some(b) => {
            let _ = write!(
                svg,
                "<image href=\"{}\" x=\"0\" y=\"0\" width=\"{size}\" height=\"{size}\" \
                 preserveAspectRatio=\"none\"/>",
                b.url
            );
            let [x0, y0, x1, y1] = b.corners.map(f64::from);
            let (w, h) = ((x1 - x0).abs().max(1.0), (y1 - y0).abs().max(1.0));
            Box::new(move |o: [i32; 3]| {
                let x = (f64::from(o[0]) - x0) / (x1 - x0).signum() / w * size;
                let y = (f64::from(o[1]) - y0) / (y1 - y0).signum() / h * size;
                // Plus zero: no `-0.0` in the picture.
                (x + 0.0, y + 0.0)
            })
        }
        None => {
            let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
            for (o, _) in &spots {
                (x0, x1, y0, y1) = (x0.min(o[0]), x1.max(o[0]), y0.min(o[1]), y1.max(o[1]));
            }
            let span = f64::from((x1 - x0).max(y1 - y0).max(1));
            Box::new(move |o: [i32; 3]| {
                let x = 10.0 + f64::from(o[0] - x0) / span * (size - 20.0);
                let y = size - 10.0 - f64::from(o[1] - y0) / span * (size - 20.0);
                (x, y)
            })
        }
    };
    for (o, kill) in &spots {
        let (x, y) = place(*o);
        let colour = if *kill { "#ff5a4f" } else { "#4fa3ff" };
        let _ = write!(
            svg,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{colour}\" fill-opacity=\"0.45\"/>"
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use protocol::relay_api::matches::{KillKind, MatchDetail, MatchKill, MatchSummary};
    use protocol::relay_api::watch::Team;

    use super::{heatmap, Backdrop};

    fn kill_at(attacker: [i32; 3], victim: [i32; 3]) -> MatchDetail {
        MatchDetail {
            summary: MatchSummary {
                id: 1,
                server: "192.0.2.1:28960".into(),
                hostname: "h".into(),
                map: "mp_foy".into(),
                gametype: "tdm".into(),
                start_ms: 0,
                end_ms: 0,
                ended: None,
                kills: 1,
                players: 2,
                axis: None,
                allies: None,
                winner: None,
                demo: None,
            },
            level_start: 0,
            scoreboard: Vec::new(),
            kill_feed: vec![MatchKill {
                server_time: 1000,
                attacker: Some("a".into()),
                attacker_team: Team::Axis,
                victim: "v".into(),
                victim_team: Team::Allies,
                weapon: "kar98k_mp".into(),
                kind: KillKind::Kill,
                attacker_origin: Some(attacker),
                victim_origin: Some(victim),
            }],
            team_scores: Vec::new(),
            rounds: Vec::new(),
        }
    }

    #[test]
    fn on_an_overview_spots_sit_where_its_corners_say() {
        // Top-left (-1000, 2000), bottom-right (3000, -2000): world y grows up the picture.
        let backdrop = Backdrop {
            url: "/overview/mp_foy".into(),
            corners: [-1000.0, 2000.0, 3000.0, -2000.0],
        };
        let svg = heatmap(&kill_at([-1000, 2000, 0], [1000, 0, 0]), Some(&backdrop));
        assert!(svg.contains("<image href=\"/overview/mp_foy\""), "{svg}");
        assert!(svg.contains("cx=\"0.0\" cy=\"0.0\""), "{svg}");
        assert!(svg.contains("cx=\"150.0\" cy=\"150.0\""), "{svg}");
        // Without one, the spots are fitted to the square.
        let plain = heatmap(&kill_at([-1000, 2000, 0], [1000, 0, 0]), None);
        assert!(!plain.contains("<image"));
        assert!(
            plain.contains("cx=\"10.0\" cy=\"290.0\"") || plain.contains("cx=\"10.0\""),
            "{plain}"
        );
    }
}
