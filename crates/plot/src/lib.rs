//! PNG charts for PACE-rs reports: [`bar_chart`], [`grouped_bar_chart`] and [`line_chart`].
//!
//! Rendered entirely in Rust: a small RGB raster ([`Image`]) with an embedded 8×8 bitmap font
//! (the public-domain `font8x8` glyphs), encoded with the `png` crate. No system fonts, no C
//! libraries, no network: the same data gives byte-identical files on any machine. Every chart
//! is [`WIDTH`] × [`HEIGHT`] pixels.

mod axis;
mod chart;
mod error;
mod image;

pub use chart::{
    bar_chart, grouped_bar_chart, line_chart, render_bar, render_grouped_bar, render_line,
};
pub use error::{Error, Result};
pub use image::{HEIGHT, Image, Rgb, WIDTH};
