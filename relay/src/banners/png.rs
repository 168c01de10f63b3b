//! Banners as PNG: the SVG rendered by `resvg` with the one font compiled into the relay
//! (DejaVu Sans Condensed Bold, `assets/fonts/`), never the machine's fonts, so every relay
//! draws the same pixels from the same banner.

use std::sync::Arc;

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb};

const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSansCondensed-Bold.ttf");

/// What renders banners: the parsing options with the shipped font alone.
pub struct Renderer {
    options: usvg::Options<'static>,
}

impl Default for Renderer {
    fn default() -> Self {
        let mut fonts = fontdb::Database::new();
        fonts.load_font_data(FONT.to_vec());
        let options = usvg::Options {
            font_family: "DejaVu Sans".into(),
            fontdb: Arc::new(fonts),
            ..usvg::Options::default()
        };
        Self { options }
    }
}

impl Renderer {
    /// `svg` (one of ours) as PNG bytes.
    pub fn png(&self, svg: &str) -> anyhow::Result<Vec<u8>> {
        let tree = usvg::Tree::from_str(svg, &self.options)?;
        let size = tree.size().to_int_size();
        let mut pixmap = Pixmap::new(size.width(), size.height())
            .ok_or_else(|| anyhow::anyhow!("a banner of no size"))?;
        resvg::render(&tree, Transform::default(), &mut pixmap.as_mut());
        Ok(pixmap.encode_png()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_banner_gives_the_same_pixels_and_text_is_drawn() {
        let renderer = Renderer::default();
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"350\" height=\"20\">\
                   <rect width=\"350\" height=\"20\" fill=\"#000\"/>\
                   <text x=\"4\" y=\"15\" font-size=\"12\" font-weight=\"bold\" fill=\"#fff\">Muster</text></svg>";
        let png = renderer.png(svg).unwrap();
        assert_eq!(png, Renderer::default().png(svg).unwrap());
        let pixmap = Pixmap::decode_png(&png).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (350, 20));
        // The font drew something: some pixels are not the black background.
        let lit = pixmap.pixels().iter().filter(|p| p.red() > 128).count();
        assert!(lit > 20, "{lit} lit pixels: the font did not load");
    }
}
