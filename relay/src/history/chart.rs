//! Charts as SVG, drawn by the relay: the page carries no chart code at all (it inserts the
//! SVG when a chart is opened), every page of a range gets the same cached bytes, and the
//! values show on hover or tap through CSS alone (each point is a focusable group).

use std::fmt::Write;

/// Text in the charts is escaped as the page's is.
use protocol::browse::escape_markup as esc;
use protocol::relay_api::history::{Point, Population, ServerHistory};
use time::{OffsetDateTime, UtcOffset};

/// The drawing's own units: narrow enough that, scaled to a phone's width, its 11-unit labels
/// stay about 10 CSS pixels tall.
const W: f64 = 360.0;
const H: f64 = 150.0;
/// Room for the axis labels: the widest count (`1.5k`) at the axis' 12-unit type.
const LEFT: f64 = 34.0;
const BOTTOM: f64 = 16.0;

const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A time in the viewer's zone (`tz_min` east of UTC): weekday and time within two days, the
/// date and time beyond.
fn when(t_ms: u64, tz_min: i32, long: bool) -> String {
    let offset = UtcOffset::from_whole_seconds(tz_min * 60).unwrap_or(UtcOffset::UTC);
    let Ok(t) = OffsetDateTime::from_unix_timestamp((t_ms / 1000) as i64) else {
        return String::new();
    };
    let t = t.to_offset(offset);
    let day = WEEKDAYS[t.weekday().number_days_from_monday() as usize];
    if long {
        let month = MONTHS[usize::from(u8::from(t.month())) - 1];
        format!("{} {month} {:02}:{:02}", t.day(), t.hour(), t.minute())
    } else {
        format!("{day} {:02}:{:02}", t.hour(), t.minute())
    }
}

struct Frame {
    from: u64,
    to: u64,
    top: f64,
}

impl Frame {
    fn x(&self, t: u64) -> f64 {
        let span = (self.to - self.from).max(1) as f64;
        LEFT + (t.saturating_sub(self.from)) as f64 / span * (W - LEFT)
    }

    fn y(&self, v: f64) -> f64 {
        (H - BOTTOM) - v / self.top * (H - BOTTOM - 6.0)
    }
}

/// A round axis top at or above `max`.
fn axis_top(max: f64) -> f64 {
    [
        4.0, 8.0, 12.0, 16.0, 20.0, 24.0, 32.0, 40.0, 48.0, 64.0, 100.0, 200.0, 500.0, 1000.0,
    ]
    .into_iter()
    .find(|&t| t >= max)
    .unwrap_or((max / 1000.0).ceil() * 1000.0)
}

/// The series: a min-max band, the average line, and a focusable group per point.
fn series(svg: &mut String, f: &Frame, points: &[Point], step: u64, tz: i32, long: bool) {
    let step_px = (f.x(f.from + step) - f.x(f.from)).max(1.0);
    // Lines break where buckets are missing (nothing polled, or down).
    let mut runs: Vec<Vec<&Point>> = Vec::new();
    for p in points {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|l| l.t + step == p.t) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    for run in &runs {
        let mut band = String::new();
        for p in run.iter() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                f.x(p.t) + step_px / 2.0,
                f.y(f64::from(p.max))
            );
        }
        for p in run.iter().rev() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                f.x(p.t) + step_px / 2.0,
                f.y(f64::from(p.min))
            );
        }
        let _ = write!(
            svg,
            r#"<polygon class="band" points="{}"/>"#,
            band.trim_end()
        );
        let line: Vec<(f64, f64)> = run
            .iter()
            .map(|p| (f.x(p.t) + step_px / 2.0, f.y(f64::from(p.avg))))
            .collect();
        if let [(x, y)] = line[..] {
            let _ = write!(
                svg,
                r#"<circle class="avg" cx="{x:.1}" cy="{y:.1}" r="2"/>"#
            );
        } else {
            let line: Vec<String> = line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = write!(
                svg,
                r#"<polyline class="avg" points="{}"/>"#,
                line.join(" ")
            );
        }
    }
    for p in points {
        let x = f.x(p.t);
        let label = format!(
            "{} · {}–{} players, avg {:.1}",
            when(p.t, tz, long),
            p.min,
            p.max,
            p.avg
        );
        // The label reads away from the nearer edge.
        let (lx, anchor) = if x > (LEFT + W) / 2.0 {
            (x + step_px, "end")
        } else {
            (x, "start")
        };
        let _ = write!(
            svg,
            r#"<g class="pt" tabindex="0" data-t="{}" data-min="{}" data-avg="{}" data-max="{}"><rect x="{x:.1}" y="0" width="{step_px:.1}" height="{:.0}"/><text x="{lx:.1}" y="12" text-anchor="{anchor}">{}</text></g>"#,
            p.t,
            p.min,
            p.avg,
            p.max,
            H - BOTTOM,
            esc(&label)
        );
    }
}

/// An axis tick: the time within two days, the date beyond.
fn tick(t_ms: u64, tz: i32, long: bool) -> String {
    let full = when(t_ms, tz, long);
    if long {
        full.rsplit_once(' ')
            .map_or(full.clone(), |(date, _)| date.to_owned())
    } else {
        full
    }
}

/// A count on the y axis in at most four characters: `500`, `1k`, `1.5k`.
fn count(v: f64) -> String {
    if v >= 1000.0 {
        format!("{}k", v / 1000.0)
    } else {
        format!("{v}")
    }
}

/// Time ticks along the x axis: four, so that four "Wed 19:25" fit the drawing's width with
/// room between them at the axis' type size.
const TICKS: u64 = 3;

fn axes(svg: &mut String, f: &Frame, tz: i32, long: bool) {
    for v in [0.0, f.top / 2.0, f.top] {
        let y = f.y(v);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{LEFT}" x2="{W}" y1="{y:.1}" y2="{y:.1}"/><text class="axis" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 3.0,
            y + 4.0,
            count(v)
        );
    }
    for i in 0..=TICKS {
        let t = f.from + (f.to - f.from) * i / TICKS;
        let anchor = match i {
            0 => "start",
            TICKS => "end",
            _ => "middle",
        };
        let _ = write!(
            svg,
            r#"<text class="axis" x="{:.1}" y="{}" text-anchor="{anchor}">{}</text>"#,
            f.x(t),
            H - 4.0,
            esc(&tick(t, tz, long))
        );
    }
}

fn open(svg: &mut String, class: &str, h: f64, label: &str) {
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="{class}" viewBox="0 0 {W} {h}" role="img" aria-label="{}">"#,
        esc(label)
    );
}

/// A server's population chart: band and average, downtime as shaded gaps, map changes as
/// marks; below it, the busiest hours of the week.
pub fn server(history: &ServerHistory, tz_min: i32) -> String {
    let long = history.to_ms - history.from_ms > 2 * 86_400_000;
    let top = history
        .points
        .iter()
        .map(|p| f64::from(p.max.max(p.slots)))
        .fold(0.0, f64::max);
    let f = Frame {
        from: history.from_ms,
        to: history.to_ms,
        top: axis_top(top),
    };
    let mut svg = String::with_capacity(64 * 1024);
    open(
        &mut svg,
        "chart",
        H,
        &format!("Players on {} over {}", history.addr, history.range),
    );
    axes(&mut svg, &f, tz_min, long);
    for (a, b) in &history.downtime {
        let _ = write!(
            svg,
            r#"<rect class="down" x="{:.1}" y="0" width="{:.1}" height="{}"><title>down {} – {}</title></rect>"#,
            f.x(*a),
            (f.x(*b) - f.x(*a)).max(1.0),
            H - BOTTOM,
            esc(&when(*a, tz_min, true)),
            esc(&when(*b, tz_min, true))
        );
    }
    for m in &history.map_changes {
        let x = f.x(m.t);
        let _ = write!(
            svg,
            r#"<line class="map" x1="{x:.1}" x2="{x:.1}" y1="0" y2="{}"><title>{} {} from {}</title></line>"#,
            H - BOTTOM,
            esc(&m.map),
            esc(&m.gametype),
            esc(&when(m.t, tz_min, true))
        );
    }
    series(&mut svg, &f, &history.points, history.step_ms, tz_min, long);
    svg.push_str("</svg>");
    svg.push_str(&week(&history.week, tz_min));
    svg
}

/// The busiest hours of the week (stored by UTC hour, shown in the viewer's zone).
fn week(week: &[Vec<Option<f32>>], tz_min: i32) -> String {
    let cell_w = (W - LEFT) / 24.0;
    let cell_h = 14.0;
    let h = 7.0 * cell_h + 16.0;
    let max = week
        .iter()
        .flatten()
        .flatten()
        .fold(0.0f32, |a, &b| a.max(b));
    let mut svg = String::new();
    open(&mut svg, "week", h, "Busiest hours of the week");
    let shift = tz_min.div_euclid(60);
    for (d, day) in week.iter().enumerate() {
        for (hour, v) in day.iter().enumerate() {
            // The UTC cell (d, hour) in local time.
            let local = (d as i32 * 24 + hour as i32 + shift).rem_euclid(168);
            let (ld, lh) = ((local / 24) as f64, (local % 24) as f64);
            let (opacity, label) = match v {
                Some(v) => (
                    if max > 0.0 {
                        0.08 + 0.92 * v / max
                    } else {
                        0.08
                    },
                    format!("{} {:02}:00 · avg {v:.1}", WEEKDAYS[ld as usize], lh),
                ),
                None => (
                    0.0,
                    format!("{} {:02}:00 · no data", WEEKDAYS[ld as usize], lh),
                ),
            };
            let _ = write!(
                svg,
                r#"<rect class="cell" x="{:.1}" y="{:.1}" width="{:.1}" height="{cell_h}" fill-opacity="{opacity:.2}"><title>{label}</title></rect>"#,
                LEFT + lh * cell_w,
                ld * cell_h,
                cell_w - 1.0
            );
        }
    }
    for (d, name) in WEEKDAYS.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text class="axis" x="0" y="{:.1}">{name}</text>"#,
            d as f64 * cell_h + 11.0
        );
    }
    for hour in [0, 6, 12, 18] {
        let _ = write!(
            svg,
            r#"<text class="axis" x="{:.1}" y="{:.1}">{hour:02}h</text>"#,
            LEFT + hour as f64 * cell_w,
            h - 3.0
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The population sparkline above the list: every server together.
pub fn sparkline(population: &Population, tz_min: i32) -> String {
    let long = population.to_ms - population.from_ms > 2 * 86_400_000;
    let top = population
        .total
        .iter()
        .map(|p| f64::from(p.max))
        .fold(0.0, f64::max);
    let f = Frame {
        from: population.from_ms,
        to: population.to_ms,
        top: axis_top(top),
    };
    let now = population.total.last().map_or(0.0, |p| f64::from(p.avg));
    let mut svg = String::with_capacity(32 * 1024);
    open(
        &mut svg,
        "sparkline",
        H,
        &format!(
            "Players on every server over {}: about {now:.0} now",
            population.range
        ),
    );
    axes(&mut svg, &f, tz_min, long);
    series(
        &mut svg,
        &f,
        &population.total,
        population.step_ms,
        tz_min,
        long,
    );
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each axis label's extent along the x axis, from the SVG, with a generous 0.6 em per
    /// character at the stylesheet's 12-unit axis type (`svg .axis`).
    fn label_extents(svg: &str) -> Vec<(f64, f64, f64, String)> {
        let attr = |tag: &str, name: &str| -> Option<String> {
            let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(tag[start..].split('"').next()?.to_owned())
        };
        svg.split(r#"<text class="axis""#)
            .skip(1)
            .map(|rest| {
                let (tag, rest) = rest.split_once('>').unwrap();
                let text = rest.split("</text>").next().unwrap().to_owned();
                let x: f64 = attr(tag, "x").unwrap().parse().unwrap();
                let y: f64 = attr(tag, "y").unwrap().parse().unwrap();
                let width = text.chars().count() as f64 * 0.6 * 12.0;
                let (a, b) = match attr(tag, "text-anchor").as_deref() {
                    Some("end") => (x - width, x),
                    Some("middle") => (x - width / 2.0, x + width / 2.0),
                    _ => (x, x + width),
                };
                (a, b, y, text)
            })
            .collect()
    }

    #[test]
    fn axis_labels_neither_overlap_nor_leave_the_drawing() {
        for (span_h, long) in [(24, false), (48, false), (7 * 24, true), (365 * 24, true)] {
            for top in [4.0, 64.0, 500.0, 1000.0, 3000.0] {
                let f = Frame {
                    from: 1_795_000_000_000,
                    to: 1_795_000_000_000 + span_h * 3_600_000,
                    top,
                };
                let mut svg = String::new();
                axes(&mut svg, &f, 60, long);
                let labels = label_extents(&svg);
                for (a, b, _, text) in &labels {
                    assert!(*a >= 0.0 && *b <= W, "{text:?} spans {a:.1}..{b:.1}");
                }
                let mut bottom: Vec<_> = labels.iter().filter(|l| l.2 >= H - 4.0).collect();
                bottom.sort_by(|x, y| x.0.total_cmp(&y.0));
                for pair in bottom.windows(2) {
                    assert!(
                        pair[0].1 + 4.0 <= pair[1].0,
                        "{:?} runs into {:?} ({span_h} h)",
                        pair[0].3,
                        pair[1].3
                    );
                }
                let left: Vec<_> = labels.iter().filter(|l| l.2 < H - 4.0).collect();
                assert!(left.iter().all(|l| l.1 <= LEFT), "{left:?}");
            }
        }
        assert_eq!(count(1500.0), "1.5k");
        assert_eq!(count(16.0), "16");
    }

    fn history(points: Vec<Point>) -> ServerHistory {
        ServerHistory {
            addr: "10.0.0.1:28960".into(),
            range: "24h".into(),
            from_ms: 0,
            to_ms: 86_400_000,
            step_ms: 300_000,
            points,
            downtime: vec![(600_000, 900_000)],
            map_changes: vec![protocol::relay_api::history::MapMark {
                t: 0,
                map: "mp_<foy>".into(),
                gametype: "tdm".into(),
            }],
            week: vec![vec![None; 24]; 7],
        }
    }

    #[test]
    fn every_point_is_in_the_chart_with_its_values() {
        let p = |t, min, avg, max| Point {
            t,
            min,
            avg,
            max,
            slots: 20,
        };
        let svg = server(&history(vec![p(0, 1, 2.5, 4), p(300_000, 3, 3.0, 3)]), 60);
        assert_eq!(svg.matches(r#"class="pt""#).count(), 2);
        assert!(svg.contains(r#"data-t="300000" data-min="3" data-avg="3" data-max="3""#));
        assert!(svg.contains("mp_&lt;foy&gt;"), "names are escaped");
        assert!(svg.contains(r#"class="down""#));
        // Times are the viewer's: 00:00 UTC is 01:00 at UTC+1.
        assert!(svg.contains("Thu 01:00"));
        assert_eq!(svg.matches("<svg").count(), 2, "the chart and the week");
        assert_eq!(axis_top(17.0), 20.0);
        assert_eq!(axis_top(1500.0), 2000.0);
    }
}
