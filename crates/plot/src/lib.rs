//! The benchmark's figures as SVG: horizontal [`BarChart`]s (one bar per category and series)
//! and [`LineChart`]s with a linear or logarithmic x axis, drawn with `plotters`' SVG backend.
//!
//! SVG needs no font files: text is written as text, laid out here from an estimate of its width
//! and drawn by the viewer, so every label is whole. Category labels sit on the vertical axis,
//! where a long name takes room to the left instead of being cut. The same data gives the same
//! bytes on any machine.

mod bars;
mod error;
mod lines;
mod style;
mod ticks;

pub use bars::BarChart;
pub use error::{Error, Result};
pub use lines::{LineChart, Scale};
pub use style::WIDTH;

/// One named series of values: a bar per category, or a point per x value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series<'a> {
    /// Its name in the legend.
    pub name: &'a str,
    /// One value per category or x value.
    pub values: Vec<f64>,
}

impl<'a> Series<'a> {
    /// A series named `name`.
    pub fn new(name: &'a str, values: Vec<f64>) -> Self {
        Self { name, values }
    }
}

/// Writes `svg` to `path`.
fn save(path: &std::path::Path, svg: &str) -> Result<()> {
    std::fs::write(path, svg).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}
