//! An RGB raster with rectangles, lines and bitmap text.

use crate::error::{Error, Result};
use font8x8::legacy::BASIC_LEGACY;
use std::{fs::File, io::BufWriter, path::Path};

/// Width of every chart, in pixels.
pub const WIDTH: u32 = 800;
/// Height of every chart, in pixels.
pub const HEIGHT: u32 = 500;
/// Width and height of one glyph at scale 1.
pub(crate) const GLYPH: i32 = 8;

/// An 8-bit RGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// White.
    pub const WHITE: Self = Self(255, 255, 255);
    /// Black.
    pub const BLACK: Self = Self(0, 0, 0);
    /// Light grey, for grid lines.
    pub const GRID: Self = Self(225, 225, 225);
}

/// An RGB image, row-major, 3 bytes a pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    /// A white image.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            rgb: vec![255; width as usize * height as usize * 3],
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, row-major RGB.
    pub fn rgb(&self) -> &[u8] {
        &self.rgb
    }

    /// The colour at (`x`, `y`), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgb> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        Some(Rgb(self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]))
    }

    /// Sets one pixel; points outside the image are ignored.
    pub fn put(&mut self, x: i32, y: i32, c: Rgb) {
        if x < 0 || y < 0 || x >= self.width as i32 || y >= self.height as i32 {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        self.rgb[i..i + 3].copy_from_slice(&[c.0, c.1, c.2]);
    }

    /// Fills the rectangle with corners (`x0`, `y0`) and (`x1`, `y1`), both inclusive.
    pub fn fill_rect(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, c: Rgb) {
        let (x0, x1) = (x0.min(x1), x0.max(x1));
        let (y0, y1) = (y0.min(y1), y0.max(y1));
        for y in y0.max(0)..=y1.min(self.height as i32 - 1) {
            for x in x0.max(0)..=x1.min(self.width as i32 - 1) {
                self.put(x, y, c);
            }
        }
    }

    /// Draws a line `thickness` pixels wide (Bresenham, square pen).
    pub fn line(&mut self, (x0, y0): (i32, i32), (x1, y1): (i32, i32), thickness: i32, c: Rgb) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let lo = -(thickness - 1) / 2;
        let hi = lo + thickness - 1;
        // At most dx + |dy| + 1 steps.
        for _ in 0..=(dx - dy) {
            self.fill_rect(x + lo, y + lo, x + hi, y + hi, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Draws `text` with its top-left corner at (`x`, `y`), each glyph `8 × scale` pixels.
    /// Characters outside ASCII are drawn as `?`.
    pub fn text(&mut self, x: i32, y: i32, text: &str, scale: i32, c: Rgb) {
        for (i, ch) in text.chars().enumerate() {
            let glyph = glyph(ch);
            let gx = x + i as i32 * GLYPH * scale;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..GLYPH {
                    if bits & (1 << col) != 0 {
                        let (px, py) = (gx + col * scale, y + row as i32 * scale);
                        self.fill_rect(px, py, px + scale - 1, py + scale - 1, c);
                    }
                }
            }
        }
    }

    /// Draws `text` rotated a quarter turn anticlockwise (reading bottom to top), with the
    /// bottom-left corner of its first glyph at (`x`, `y`).
    pub fn text_vertical(&mut self, x: i32, y: i32, text: &str, c: Rgb) {
        for (i, ch) in text.chars().enumerate() {
            let glyph = glyph(ch);
            let gy = y - i as i32 * GLYPH;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..GLYPH {
                    if bits & (1 << col) != 0 {
                        self.put(x + row as i32, gy - col, c);
                    }
                }
            }
        }
    }

    /// Encodes the image as an 8-bit RGB PNG.
    pub fn to_png(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(&mut out)?;
        Ok(out)
    }

    /// Writes the image to `path` as a PNG.
    pub fn save(&self, path: &Path) -> Result<()> {
        let io = |source| Error::Io {
            path: path.display().to_string(),
            source,
        };
        let file = File::create(path).map_err(io)?;
        let mut w = BufWriter::new(file);
        self.encode(&mut w)?;
        std::io::Write::flush(&mut w).map_err(io)
    }

    fn encode<W: std::io::Write>(&self, w: W) -> Result<()> {
        let mut enc = png::Encoder::new(w, self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header()?;
        writer.write_image_data(&self.rgb)?;
        writer.finish()?;
        Ok(())
    }
}

fn glyph(ch: char) -> [u8; 8] {
    let i = if ch.is_ascii() {
        ch as usize
    } else {
        '?' as usize
    };
    BASIC_LEGACY[i]
}

/// Pixel width of `text` at `scale`.
pub(crate) fn text_width(text: &str, scale: i32) -> i32 {
    text.chars().count() as i32 * GLYPH * scale
}
