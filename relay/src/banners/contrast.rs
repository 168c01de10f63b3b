//! Contrast for the banners and the widget, whose background an owner may choose: every word is
//! drawn at WCAG 2.1's AA ratio for normal text (4.5:1) on the background it sits on. A colour
//! that does not reach it (the game's yellow on a white banner, an owner's grey on grey) is moved
//! toward black or white, whichever the background sets off better, just far enough; the
//! pages' stylesheet does the same for the game's colours on the app's own backgrounds.

/// WCAG 2.1's minimum for normal text (1.4.3, AA); every word of a banner is held to it.
pub const AA: f64 = 4.5;

/// `#rrggbb` as its three channels; `None` for anything else (the one reading of a banner's
/// colour: [`super::svg::is_colour`] asks it too).
pub(crate) fn channels(colour: &str) -> Option<[u8; 3]> {
    let hex = colour
        .strip_prefix('#')
        .filter(|h| h.len() == 6 && h.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let channel = |at: usize| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok();
    Some([channel(0)?, channel(2)?, channel(4)?])
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// WCAG 2.1's relative luminance of sRGB channels (0 for black, 1 for white).
fn luminance(rgb: [u8; 3]) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2])
}

fn ratio_of(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// The contrast ratio of two `#rrggbb` colours (1 to 21); `None` if either is not one.
pub fn ratio(a: &str, b: &str) -> Option<f64> {
    Some(ratio_of(channels(a)?, channels(b)?))
}

/// `colour` mixed with `into` by `share` (0 keeps `colour`, 1 is `into`), channel by channel.
fn mix(colour: [u8; 3], into: [u8; 3], share: f64) -> [u8; 3] {
    let channel =
        |c: u8, t: u8| (f64::from(c) + (f64::from(t) - f64::from(c)) * share).round() as u8;
    [
        channel(colour[0], into[0]),
        channel(colour[1], into[1]),
        channel(colour[2], into[2]),
    ]
}

/// `colour` as drawn on `background`: itself when it reads at [`AA`], else moved toward black
/// or white (the pole with the more contrast on `background`, which always reaches AA) by the
/// least share that does. Not `#rrggbb` either: the banner's plain text colour (ours).
pub fn readable(colour: &str, background: &str) -> String {
    let (Some(fg), Some(bg)) = (channels(colour), channels(background)) else {
        return crate::banners::svg::Colours::default().text;
    };
    if ratio_of(fg, bg) >= AA {
        return hex(fg);
    }
    let pole = if ratio_of([0; 3], bg) >= ratio_of([255; 3], bg) {
        [0; 3]
    } else {
        [255; 3]
    };
    // Steps of 1% (a channel moves at most 3 of 255 a step): the first that reads.
    (1..=100)
        .map(|step| mix(fg, pole, f64::from(step) / 100.0))
        .find(|c| ratio_of(*c, bg) >= AA)
        .map_or_else(|| hex(pole), hex)
}

/// `colour` faded `share` of the way into `background` (the banner's quieter lines), then
/// made [`readable`] on it.
pub fn muted(colour: &str, background: &str, share: f64) -> String {
    match (channels(colour), channels(background)) {
        (Some(fg), Some(bg)) => readable(&hex(mix(fg, bg, share)), background),
        _ => readable(colour, background),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wcag_s_own_figures() {
        // Black on white is 21:1, a colour on itself 1:1; #767676 is the lightest grey that
        // reads at AA on white (4.54:1), #777777 just misses it (4.48:1).
        assert_eq!(ratio("#000000", "#ffffff").map(|r| r.round()), Some(21.0));
        assert_eq!(ratio("#1d2327", "#1d2327"), Some(1.0));
        assert!(ratio("#767676", "#ffffff").unwrap() >= AA);
        assert!(ratio("#777777", "#ffffff").unwrap() < AA);
        assert_eq!(ratio("red", "#ffffff"), None);
    }

    #[test]
    fn a_colour_that_reads_is_kept_and_one_that_does_not_is_moved_just_far_enough() {
        // The game's green on our dark banner reads: kept.
        assert_eq!(readable("#5cd65c", "#1d2327"), "#5cd65c");
        // The game's yellow on white does not (1.3:1): darkened until it does.
        let yellow = readable("#ffe14d", "#ffffff");
        let read = ratio(&yellow, "#ffffff").unwrap();
        assert!((AA..AA + 0.3).contains(&read), "{yellow} at {read}");
        // A grey on a mid-grey: either pole would do; the one with more contrast is taken.
        for background in [
            "#777777", "#808080", "#3a3a3a", "#c0c0c0", "#ff0000", "#0000ff",
        ] {
            for colour in [
                "#8c8c8c", "#ffe14d", "#6f8cff", "#ffffff", "#000000", background,
            ] {
                let drawn = readable(colour, background);
                assert!(
                    ratio(&drawn, background).unwrap() >= AA,
                    "{colour} on {background} drawn {drawn}"
                );
            }
        }
    }

    #[test]
    fn a_muted_line_is_quieter_but_still_reads() {
        let line = muted("#e8e8e8", "#1d2327", 0.2);
        assert_ne!(line, "#e8e8e8");
        assert!(ratio(&line, "#1d2327").unwrap() >= AA);
        assert!(ratio(&line, "#1d2327") < ratio("#e8e8e8", "#1d2327"));
    }
}
